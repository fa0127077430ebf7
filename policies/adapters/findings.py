"""What rules return, and how a policy hands it to the engine.

A rule returns findings: a :class:`Violation` for every problem it proved, and an
:class:`~policies.values.Unknown` for every check it could not make because a value is not
known yet. The policy reports every violation first, then raises one error that says every
check it could not make, which the SDK turns into one advisory "can't run policy ... during
preview" note (the SDK shows one per policy and resource, one per stack policy: a note that
named the first unknown only hid every other workload the policy could not judge). So one
unknown field never hides a violation elsewhere, nor another unknown.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from pulumi_policy.proxy import UnknownValueError

from ..model.values import Undetermined, Unknown, listed, quoted
from .sdk import NotApplicableError


@dataclass(frozen=True)
class Violation:
    message: str
    urn: str | None = None


Finding = Violation | Unknown


Report = Callable[..., None]

_log = logging.getLogger("compute-guard")
STRICT = "COMPUTE_GUARD_STRICT"
# scripts/digest: a file every reported violation and note is appended to, one JSON line each, so that a refactor's
# verdicts over the whole suite can be compared before and after (read once: the pack process inherits it)
DIGEST = "COMPUTE_GUARD_DIGEST"
_DIGEST = os.environ.get(DIGEST)
INTERNAL_ERROR = ("compute-guard could not evaluate this ({}); this is a bug in the policy pack, please report it "
                  "with the resource's shape")


NOTED = 10  # how many unjudged checks one note lists before "and N more"


def report(findings: Iterable[Finding], report_violation: Report, named: bool = False) -> None:
    """Report every violation, then raise once what could not be checked (if anything): one unknown's own error, or
    one that lists each distinct one, in order (the first NOTED, and how many more). ``named``: a stack policy's, whose
    one note has no URN: each check says which resource it is about."""
    unknowns: dict[str, Unknown] = {}
    if _DIGEST:
        findings = _recorded(list(findings), named)
    for finding in findings:
        if isinstance(finding, Violation):
            report_violation(finding.message, finding.urn)
        else:
            # a resource policy's note names what it is about where a rule said (the engine shows it with no URN:
            # several pools' notes were identical lines)
            unknowns.setdefault(format(finding.said if named or finding.about else finding.words), finding)
    if len(unknowns) == 1:
        said, unknown = next(iter(unknowns.items()))
        if unknown.said == unknown.words or not (named or unknown.about):  # its own words say whose it is
            raise unknown.error
        raise Undetermined(said)
    if unknowns:
        every = list(unknowns)
        items = listed((f"({number}) {message}" for number, message in enumerate(every[:NOTED], 1)), "; ")
        rest = f"; and {len(every) - NOTED:,} more not listed" if len(every) > NOTED else ""
        raise Undetermined(f"{len(every)} checks could not be made: {items}{rest}")


def _recorded(findings: list[Finding], named: bool) -> list[Finding]:
    """The findings, each appended to the digest file as a line (one write: lines of parallel processes stay whole)."""
    lines = "".join(json.dumps(["violation", finding.message, finding.urn] if isinstance(finding, Violation) else
                               ["note", format(finding.said if named or finding.about else finding.words)]) + "\n"
                    for finding in findings)
    if lines and _DIGEST:
        with open(_DIGEST, "a", encoding="utf-8") as out:
            out.write(lines)
    return findings


F = TypeVar("F", bound=Callable[..., None])


def never_raises(validate: F) -> F:
    """Make a validate function safe for the engine.

    An exception escaping a policy fails the user's whole preview with no stack trace
    (pulumi/pulumi#16741). UnknownValueError and not-applicable are the SDK's own signals and
    pass through; anything else is a bug in this pack, reported as a violation of the policy
    (fail closed) that says so, instead of breaking the preview. With COMPUTE_GUARD_STRICT=1 (the
    test suite sets it) the error is raised instead, so that no test can mistake a swallowed crash
    for a pass.
    """

    @functools.wraps(validate)
    def guarded(args: Any, report_violation: Report) -> None:
        try:
            validate(args, report_violation)
        except (UnknownValueError, NotApplicableError):
            raise
        except Exception as error:  # noqa: BLE001 - the whole point is to catch everything
            _log.exception("compute-guard: internal error")
            if os.environ.get(STRICT) == "1":
                raise
            try:
                report_violation(INTERNAL_ERROR.format(type(error).__name__), None)
            except Exception:  # noqa: BLE001
                pass

    return guarded  # type: ignore[return-value]


__all__ = ["INTERNAL_ERROR", "STRICT", "Finding", "Report", "Violation", "listed", "never_raises", "quoted", "report"]
