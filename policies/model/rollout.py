"""A Deployment's rolling update (SPEC section 15, policy 19): how many Pods above its replicas it adds and how
many below it may go while it replaces them.

From Kubernetes' Deployment documentation ("Max Unavailable", "Max Surge") and the controller it describes
(pkg/controller/deployment/util ResolveFenceposts): ``strategy.type`` defaults to RollingUpdate; ``maxSurge`` and
``maxUnavailable`` default to 25%; a percentage of the replicas is rounded up for maxSurge and down for
maxUnavailable; when both come to 0, maxUnavailable is taken as 1. With maxUnavailable 0 the controller removes an
old Pod only once a new one is available, so the rollout needs room for at least one Pod more than the replicas at
once (up to replicas + maxSurge); a Recreate Deployment removes its old Pods first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .values import SecretInt, Unknown, as_int, child, is_secret

_PERCENT = re.compile(r"^[0-9]+%$")
DEFAULT = "25%"


@dataclass(frozen=True, slots=True)
class Rollout:
    """A rolling update at some number of replicas."""

    max_surge: int
    max_unavailable: int
    surge_written: str  # as written, or the default
    unavailable_written: str
    secret: bool = False

    def arithmetic(self, replicas: int) -> str:
        """How both bounds follow from what is written, for a message."""
        return f"maxUnavailable {_part(self.unavailable_written, replicas, self.max_unavailable, 'down')}, " \
               f"maxSurge {_part(self.surge_written, replicas, self.max_surge, 'up')}"


def _part(written: str, replicas: int, value: int, rounding: str) -> str:
    if written == "[secret]":
        return written
    if written.endswith("%"):
        return f"{written} of {replicas} = {value} (rounded {rounding})"
    return written


def _resolve(value: Any, replicas: int, round_up: bool) -> tuple[int, str, bool] | Unknown | None:
    if value is None:
        value = DEFAULT
    if isinstance(value, Unknown):
        return value
    if isinstance(value, str):
        if not _PERCENT.match(value):
            return None  # the API server refuses it
        percent = int(value[:-1])
        scaled = -(-percent * replicas // 100) if round_up else percent * replicas // 100
        return scaled, ("[secret]" if is_secret(value) else value), is_secret(value)
    number = as_int(value)
    if number is None or number < 0:
        return None
    return int(number), ("[secret]" if isinstance(number, SecretInt) else str(int(number))), \
        isinstance(number, SecretInt)


def rollout(kind: str, props: Any, replicas: int) -> Rollout | Unknown | None:
    """A Deployment's rolling update at ``replicas``; None for another kind, a Recreate one, or one the API server
    refuses."""
    if kind != "Deployment":
        return None
    strategy = child(child(props, "spec"), "strategy")
    if isinstance(strategy, Unknown):
        return strategy
    kind_written = child(strategy, "type")
    if isinstance(kind_written, Unknown):
        return kind_written
    if kind_written not in (None, "RollingUpdate"):
        return None
    rolling = child(strategy, "rollingUpdate")
    if isinstance(rolling, Unknown):
        return rolling
    surge = _resolve(child(rolling, "maxSurge"), replicas, True)
    unavailable = _resolve(child(rolling, "maxUnavailable"), replicas, False)
    for value in (surge, unavailable):
        if isinstance(value, Unknown):
            return value
    if surge is None or unavailable is None:
        return None
    assert not isinstance(surge, Unknown) and not isinstance(unavailable, Unknown)
    most, least = surge[0], unavailable[0]
    if most == 0 and least == 0:
        least = 1  # ResolveFenceposts
    return Rollout(most, least, surge[1], unavailable[1], surge[2] or unavailable[2])


__all__ = ["Rollout", "rollout"]
