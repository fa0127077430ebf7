"""What rules return, and how a policy hands it to the engine.

A rule returns findings: a :class:`Violation` for every problem it proved, and an
:class:`~policies.values.Unknown` for every check it could not make because a value is not
known yet. The policy reports every violation first, then raises the first unknown's error
once, which the SDK turns into one advisory "can't run policy ... during preview" note. So one
unknown field never hides a violation elsewhere.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from pulumi_policy.proxy import UnknownValueError

from ..model.values import Unknown, listed, quoted
from .sdk import NotApplicableError


@dataclass(frozen=True)
class Violation:
    message: str
    urn: str | None = None


Finding = Violation | Unknown


Report = Callable[..., None]

_log = logging.getLogger("compute-guard")
STRICT = "COMPUTE_GUARD_STRICT"
INTERNAL_ERROR = ("compute-guard could not evaluate this ({}); this is a bug in the policy pack, please report it "
                  "with the resource's shape")


def report(findings: Iterable[Finding], report_violation: Report) -> None:
    """Report every violation, then raise the first unknown (if any) exactly once."""
    first_unknown: Unknown | None = None
    for finding in findings:
        if isinstance(finding, Violation):
            report_violation(finding.message, finding.urn)
        elif first_unknown is None:
            first_unknown = finding
    if first_unknown is not None:
        raise first_unknown.error


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
