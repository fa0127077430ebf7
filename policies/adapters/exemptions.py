"""Exemptions that expire (SPEC section 13): a reviewed way out for one resource, without disabling a policy.

Every policy's config takes ``exemptions``: ``[{"resource": ..., "reason": ..., "expires": "YYYY-MM-DD"}]``.
``resource`` is a URN (``urn:pulumi:...`` without ``*`` or ``?``: matched exactly) or a glob
(``fnmatch``: ``*``, ``?``, ``[...]``) over the resource's name or URN. The engine's schema validation
refuses, before the preview starts, an entry without its three fields, a date that is not one, and an
expiry further ahead than the limit (365 days from today; an organisation raises it with
``COMPUTE_GUARD_EXEMPTION_DAYS`` in the pack's environment, or ``exemption_days`` in its own
``policy_pack``). The CLI's validation refuses what is not a real date; the pack refuses, in Configure and
so also before the preview starts, an expiry past the limit, naming the latest allowed date.

The adapters (policies/adapters/templates.py) apply them the same way to every policy: a finding on a resource an
exemption in force covers is not reported by its policy but handed to exemptions-in-force (advisory),
which shows it with the policy, the reason and the expiry; after its expiry the finding counts again at
its policy's level and says the exemption expired; an exemption that matches no resource of the stack is
reported as unused. Today's date is read once per pack process (PackState), and can be set for tests
(``COMPUTE_GUARD_TODAY``).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

DEFAULT_DAYS = 365
DAYS_VARIABLE = "COMPUTE_GUARD_EXEMPTION_DAYS"
TODAY_VARIABLE = "COMPUTE_GUARD_TODAY"


@dataclass(frozen=True)
class Exemption:
    resource: str
    reason: str
    expires: date

    @property
    def exact(self) -> bool:
        """A URN without glob characters: it covers that one resource (brackets in a URN are literal)."""
        return self.resource.startswith("urn:pulumi:") and not any(c in self.resource for c in "*?")

    def covers(self, urn: str, name: str) -> bool:
        if self.exact:
            return urn == self.resource
        return fnmatch.fnmatchcase(name, self.resource) or fnmatch.fnmatchcase(urn, self.resource)

    def in_force(self, today: date) -> bool:
        """Through its expiry date; the day after, the finding counts again."""
        return today <= self.expires


def today_from_environment() -> date:
    """``COMPUTE_GUARD_TODAY`` (YYYY-MM-DD) when set and valid, else the system's date."""
    text = os.environ.get(TODAY_VARIABLE, "")
    try:
        return date.fromisoformat(text) if text else date.today()
    except ValueError:
        return date.today()


def days_from_environment() -> int:
    text = os.environ.get(DAYS_VARIABLE, "")
    return int(text) if text.isdigit() and int(text) > 0 else DEFAULT_DAYS


def parse(config: Any) -> tuple[Exemption, ...]:
    """The exemptions of a policy's config (the engine validated them; anything else is left out)."""
    entries = config.get("exemptions") if isinstance(config, Mapping) else None
    if not isinstance(entries, (list, tuple)):
        return ()
    found = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        resource, reason, expires = entry.get("resource"), entry.get("reason"), entry.get("expires")
        if not (isinstance(resource, str) and resource and isinstance(reason, str) and isinstance(expires, str)):
            continue
        try:
            found.append(Exemption(resource, reason, date.fromisoformat(expires)))
        except ValueError:
            continue
    return tuple(found)


def covering(exemptions: tuple[Exemption, ...], urn: str, name: str) -> Exemption | None:
    """The exemption that covers the resource: one in force if any (the latest expiry), else the latest
    expired one (so the finding can say it expired)."""
    matching = [exemption for exemption in exemptions if exemption.covers(urn, name)]
    return max(matching, key=lambda exemption: exemption.expires, default=None)


def beyond(message: str, exemption: Exemption, latest: date) -> str:
    """A finding whose exemption expires after the limit (a pack whose config check did not run): it counts."""
    return (f"{message} [the exemption for '{exemption.resource}' expires on {exemption.expires.isoformat()}, later "
            f"than the latest allowed date {latest.isoformat()}: it exempts nothing]")


def expired(message: str, exemption: Exemption) -> str:
    """A finding whose exemption has expired: it counts again, and says so."""
    return (f"{message} [the exemption for '{exemption.resource}' expired on {exemption.expires.isoformat()}: "
            f"{exemption.reason}]")


# --- the schema the engine validates ------------------------------------------------------------------------

def _at_most(digits: str) -> str:
    """A regular expression for the strings of len(digits) decimal digits that are <= digits."""
    if not digits:
        return ""
    head, rest = int(digits[0]), digits[1:]
    choices = [f"{digits[0]}{_at_most(rest)}" if rest else digits[0]]
    if head > 0:
        lower = "0" if head == 1 else f"[0-{head - 1}]"
        choices.append(lower + r"\d" * len(rest))
    return choices[0] if len(choices) == 1 else f"(?:{'|'.join(choices)})"


# RE2 syntax only (the Pulumi CLI validates with Go's regexp): no lookarounds, so every month is written out.
_DAYS = {28: r"(?:0[1-9]|1\d|2[0-8])", 30: r"(?:0[1-9]|[12]\d|30)", 31: r"(?:0[1-9]|[12]\d|3[01])"}
_LENGTHS = {1: 31, 2: 28, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}  # 29 Feb: leap years
# The last two digits of a leap year of the Gregorian calendar that is not a century (divisible by 4, not 00).
_LEAP_IN_CENTURY = r"(?:0[48]|[2468][048]|[13579][26])"
FIRST_YEAR = 1000  # the earliest year an expiry may name: four digits without a leading zero


def _months(through: int) -> str:
    """MM-DD of the months 1..through, any of their days (29 February apart: it is a leap year's)."""
    return "|".join(f"{month:02d}-{_DAYS[_LENGTHS[month]]}" for month in range(1, through + 1))


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _leap_years_below(year: int) -> str:
    """The leap years from 1000 to before ``year``, or '' when there are none: the whole centuries below year's
    (their year 00 only when the century is divisible by 4), and year's own century written out."""
    century, choices = year // 100, []
    below = [f"{c:02d}" for c in range(FIRST_YEAR // 100, century)]
    if below:
        choices.append(f"(?:{'|'.join(below)}){_LEAP_IN_CENTURY}")
        choices += [f"{c}00" for c in below if int(c) % 4 == 0]
    choices += [f"{y:04d}" for y in range(max(century * 100, FIRST_YEAR), year) if _is_leap(y)]
    return "|".join(choices)


def _years_below(year: int) -> str:
    """The four-digit years from 1000 to before ``year``, or '' when there are none."""
    if year <= FIRST_YEAR:
        return ""
    top = f"{year - 1:04d}"
    choices = [top[0] + _at_most(top[1:])]
    if int(top[0]) > 1:
        choices.append(("1" if top[0] == "2" else f"[1-{int(top[0]) - 1}]") + r"\d" * 3)
    return choices[0] if len(choices) == 1 else f"(?:{'|'.join(choices)})"


def date_pattern(latest: date) -> str:
    """A regular expression for exactly the real calendar dates (YYYY-MM-DD) no later than ``latest``: the engine
    validates policy config with JSON schema only, which compares no dates and checks no calendar, but can match
    this. No day 00, no 31 in a month of 30, 29 February only in a leap year, no year before 1000."""
    year = f"{latest.year:04d}"
    last_days = "|".join(f"{day:02d}" for day in range(1, latest.day + 1))
    same_year = [f"{latest.month:02d}-(?:{last_days})"]
    if latest.month > 1:
        same_year.insert(0, _months(latest.month - 1))
    if _is_leap(latest.year) and (latest.month > 2 or latest.day == 29):
        same_year.append("02-29")
    parts = [f"{year}-(?:{'|'.join(same_year)})"]
    earlier_years = _years_below(latest.year)
    if earlier_years:
        parts.insert(0, f"{earlier_years}-(?:{_months(12)})")
    leap = _leap_years_below(latest.year)
    if leap:
        parts.insert(1, f"(?:{leap})-02-29")
    return f"^(?:{'|'.join(parts)})$"


LAST_DATE = date(9999, 12, 31)


def latest_allowed(today: date, days: int) -> date:
    return today + timedelta(days=days)


def refusals(config: Mapping[str, Any], today: date, days: int) -> list[str]:
    """What the pack refuses in a policy's config before the preview starts, naming the limit: an expiry later
    than ``days`` ahead. (The schema the CLI validates admits exactly the real dates, but the CLI prints a
    pattern it does not match, never a date: the pack says it in Configure, which the CLI reports as is.)"""
    latest = latest_allowed(today, days)
    return [f"exemption for '{exemption.resource}' expires on {exemption.expires.isoformat()}, later than the latest "
            f"allowed date {latest.isoformat()} ({days} days from {today.isoformat()})"
            for exemption in parse(config) if exemption.expires > latest]


def schema(today: date, days: int) -> dict[str, Any]:
    latest = latest_allowed(today, days)
    return {
        "type": "array",
        "description": f"Resources this policy does not fail, each for a reason and until a date at most {days} days "
                       f"ahead ({latest.isoformat()}); see exemptions-in-force.",
        "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["resource", "reason", "expires"],
            "properties": {
                "resource": {"type": "string", "minLength": 1,
                             "description": "A URN, or a glob (*, ?, [...]) over the resource's name or URN."},
                "reason": {"type": "string", "pattern": r"\S", "description": "Why it is exempt (a ticket, a review)."},
                # format date: the CLI's validator (gojsonschema) parses it as a calendar date; the pattern holds it
                # to real dates for any validator; the limit is the pack's to refuse, naming it (refusals)
                "expires": {"type": "string", "format": "date", "pattern": date_pattern(LAST_DATE),
                            "description": f"YYYY-MM-DD, no later than {latest.isoformat()}; the finding counts again "
                                           "the day after."},
            },
        },
    }
