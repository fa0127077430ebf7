"""What a module derives from a stack, kept per stack by that module (issue 47: the Stack holds the parsed facts and
nothing derived; placement, landing, loads and disruption each keep their own answers).

A :class:`PerStack` is made once at a module's top level and asked with the stack: the first time it makes the
answer, then every policy, the remediation and the report read that same answer. It holds each stack weakly: an
answer lives exactly as long as its stack (the pack keeps the last one it analysed), never for the life of the pack
process.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
S = TypeVar("S")


class PerStack(Generic[S, T]):
    """One module's answer for each stack, made by ``make(stack)`` the first time it is asked."""

    __slots__ = ("_kept", "_make")

    def __init__(self, make: Callable[[S], T]) -> None:
        self._kept: weakref.WeakKeyDictionary[S, T] = weakref.WeakKeyDictionary()
        self._make = make

    def of(self, stack: S) -> T:
        found = self._kept.get(stack)
        if found is None:
            found = self._kept[stack] = self._make(stack)
        return found
