"""When each platform's control plane versions leave standard and extended support (SPEC 23, policy 32
cluster-support-window), and what extended support costs.

The facts live in ``data/support_windows.json``, kept by hand from each platform's release calendar (its source is
named there and in messages); tests/policies/test_cluster_support_window.py writes every row out. The day each
platform's rows were held to their source is said in messages.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "support_windows.json"


@dataclass(frozen=True)
class Window:
    """One minor version's support on one platform: the last day of standard support and of extended support (where the
    calendar says)."""

    minor: tuple[int, int]
    standard_end: date
    extended_end: date | None  # None: the calendar does not say (GKE's)


@dataclass(frozen=True)
class Calendar:
    """A platform's support calendar: each minor's window, where it is said, and the price of a control plane hour in
    standard and extended support (USD), where a version's support sets it (EKS)."""

    windows: Mapping[tuple[int, int], Window]
    source: str
    standard_hour: Decimal | None  # None: the platform prices its versions alike (AKS: a tier decides, not a version)
    extended_hour: Decimal | None
    price_source: str
    held: str  # the day the source was held to
    extended: str = "extended support"  # what the platform calls the support after standard (AKS: long-term support)

    def window(self, minor: tuple[int, int]) -> Window | None:
        return self.windows.get(minor)

    @property
    def oldest(self) -> Window:
        return self.windows[min(self.windows)]

    def in_standard(self, today: date) -> tuple[int, int] | None:
        """The oldest minor still in standard support today, where the calendar knows one."""
        return min((minor for minor, window in self.windows.items() if today <= window.standard_end), default=None)


@functools.cache
def _document() -> Mapping[str, Calendar]:
    document = json.loads(DATA.read_text())
    calendars: dict[str, Calendar] = {}
    for platform, entry in document["platforms"].items():
        windows: dict[tuple[int, int], Window] = {}
        for version, (standard, extended) in entry["versions"].items():
            major, minor = (int(part) for part in version.split("."))
            windows[(major, minor)] = Window((major, minor), date.fromisoformat(standard),
                                             date.fromisoformat(extended) if extended is not None else None)
        prices = [Decimal(entry[key]) if key in entry else None for key in ("standard_hour", "extended_hour")]
        calendars[platform] = Calendar(windows, entry["source"], prices[0], prices[1], entry.get("price_source", ""),
                                       entry.get("date", document["date"]),
                                       entry.get("extended", "extended support"))
    return calendars


def calendar(platform: str) -> Calendar | None:
    """The platform's support calendar, where the table has one (EKS, AKS, GKE)."""
    return _document().get(platform)


__all__ = ["Calendar", "Window", "calendar"]
