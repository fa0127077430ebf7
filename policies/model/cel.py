"""CEL selectors of DRA requests over the devices a node publishes (resource.k8s.io DeviceSelector.cel), decided where
the pack knows what decides them.

A selector is evaluated by cel-python (a maintained CEL implementation, not a parser of the pack's) over one device
as the pack knows it before deploy: its driver and the attributes every device of a class has alike (NVIDIA's DRA
driver: ``type`` of its two DeviceClasses). An attribute the driver publishes whose value the pack does not know (a
GPU's productName, a MIG instance's profile, memory) is there with no value: anything done with it is an error, which
CEL's ``&&``, ``||`` and ``?:`` absorb where the other side decides, as they do for a value of any kind, so a verdict
that survives it holds whatever the value is; ``has()`` of it is true, as on every node. An attribute the pack does not
know to be published stops the evaluation (``has()`` of it could go either way). So True means every device of the
class matches, False none does, None not known; a selector the library cannot compile or run is None too.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NoReturn


class _Unpublished(Exception):
    """An attribute, capacity or domain the pack does not know to be published: the selector is not decided."""


class _Unvalued:
    """A value the driver publishes that the pack does not know: every operation on it is a type error, which CEL
    turns into an error value."""

    def _refuse(self, *_args: Any) -> NoReturn:
        raise TypeError("a value not known before deploy")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse  # type: ignore[assignment]
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __mod__ = _refuse
    __neg__ = __bool__ = __len__ = __iter__ = __contains__ = __getitem__ = _refuse  # type: ignore[assignment]
    __str__ = __int__ = __float__ = __index__ = __hash__ = _refuse  # type: ignore[assignment]

    def __getattr__(self, name: str) -> NoReturn:
        raise TypeError(f"a value not known before deploy has no {name} known")


@dataclass(frozen=True)
class Device:
    """One device as a node publishes it, as far as the pack knows it: ``known`` attribute values (qualified by the
    driver's domain), ``unvalued`` attributes and ``capacity`` names published with values not known."""

    driver: str
    known: tuple[tuple[str, str], ...]
    unvalued: frozenset[str]
    capacity: frozenset[str]


def selects(expressions: tuple[str, ...], device: Device) -> bool | None:
    """Whether every selector (they are ANDed) matches the device: True, False, or None where it is not decided."""
    verdict: bool | None = True
    for expression in expressions:
        found = _one(expression, device)
        if found is False:
            return False
        if found is None:
            verdict = None
    return verdict


@lru_cache(maxsize=512)
def _one(expression: str, device: Device) -> bool | None:
    try:
        from celpy import celtypes

        result = _program(expression).evaluate({"device": _activation(device, celtypes)})
    except Exception:  # (a selector cel-python cannot compile or run; an attribute not known to be published)
        return None
    return bool(result) if isinstance(result, celtypes.BoolType) else None  # (an error, or not a bool: not decided)


@lru_cache(maxsize=512)
def _program(expression: str) -> Any:
    from celpy import celtypes

    def kind(value: Any) -> Any:  # type(): of a value not known, not known (the pack's stand-in is of no CEL type)
        if isinstance(value, _Unvalued):
            raise TypeError("a value not known before deploy")
        return celtypes.TypeType(value)

    environment = _environment()
    return environment.program(environment.compile(expression), functions={"type": kind})


@lru_cache(maxsize=1)
def _environment() -> Any:
    import celpy

    # cel-python logs an exception it passes on (an attribute not known to be published) at ERROR: the pack says what
    # it does not decide in its own words
    logging.getLogger("celpy").addHandler(logging.NullHandler())
    logging.getLogger("celpy").propagate = False
    return celpy.Environment()


def _activation(device: Device, celtypes: Any) -> Any:
    domain = device.driver  # (the attributes a driver publishes unqualified are in its own domain)
    partial = _partial_map()

    def keyed(values: Mapping[str, Any]) -> Any:
        return partial({celtypes.StringType(key): value for key, value in values.items()})

    attributes = {name: celtypes.StringType(value) for name, value in device.known}
    attributes.update(dict.fromkeys(device.unvalued, _Unvalued()))
    # (a device's other fields, allowMultipleAllocations and the like, may be there or not: not decided)
    return keyed({"driver": celtypes.StringType(device.driver), "attributes": keyed({domain: keyed(attributes)}),
                  "capacity": keyed({domain: keyed(dict.fromkeys(device.capacity, _Unvalued()))})})


@lru_cache(maxsize=1)
def _partial_map() -> type:
    """A CEL map of which the pack knows some keys: another key may be there or not, so looking it up, asking for
    it, counting, listing or comparing the map is not decided (made on first use: celpy is imported late)."""
    from celpy import celtypes

    class Partial(celtypes.MapType):  # type: ignore[misc]
        def __getitem__(self, key: Any) -> Any:
            if key not in self.keys():
                raise _Unpublished(key)
            return super().__getitem__(key)

        def get(self, key: Any, default: Any = None) -> Any:
            return self[key]

        def __contains__(self, key: Any) -> bool:
            if key not in self.keys():
                raise _Unpublished(key)
            return True

        def __len__(self) -> int:
            raise _Unpublished("size")

        def __iter__(self) -> Any:
            raise _Unpublished("keys")

        def __eq__(self, other: Any) -> bool:
            raise _Unpublished("equality")

        __hash__ = None  # type: ignore[assignment]

    return Partial
