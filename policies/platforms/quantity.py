"""Kubernetes resource quantities: read as the API server reads them, written in human units.

A quantity is a signed decimal number with an optional suffix: a binary one (Ki Mi Gi Ti Pi Ei), a
decimal one (n u m k M G T P E, or none) or a decimal exponent (``e3``, ``E-2``): ``500m``, ``0.5``,
``128Mi``, ``1G``, ``1e3`` (k8s.io/apimachinery/pkg/api/resource, quantity.go). Anything else is
refused by the API server when the manifest is applied, so a rule reports it instead of guessing.

No library is used: the Kubernetes Python client's ``parse_quantity`` accepts what the API server
refuses (``1K``, ``1mi``, ``NaN``, ``1_000``) and would add the whole client and its HTTP stack to
the pack's virtualenv for one function.

Amounts are :class:`~decimal.Decimal` in base units: CPU in millicores, memory and storage in
bytes, devices and Pods as counts. Like the scheduler, a request is rounded up to a whole base unit
(``Quantity.MilliValue`` for CPU, ``Quantity.Value`` otherwise).
"""

from __future__ import annotations

import math
import re
from contextlib import AbstractContextManager
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal, InvalidOperation, localcontext

_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|[numkMGTPE]?)$")
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

KIB = 1024
MIB = 1024**2
GIB = 1024**3
CPU = "cpu"
MEMORY = "memory"
STORAGE = "ephemeral-storage"
PODS = "pods"
# The largest amount Kubernetes counts in base units (Quantity.Value and MilliValue are int64), and the
# largest replica count (int32 fields: replicas, parallelism, minReplicas).
MAX_AMOUNT = Decimal(2**63 - 1)
MAX_REPLICAS = 2**31 - 1
# Enough digits for any product of bounded amounts and counts (2^63 x 2^31 < 10^29), so that integer
# division and formatting never run out of precision.
PRECISION = 60


def parse_quantity(value: object) -> Decimal | None:
    """The value of a quantity (a string as Kubernetes writes it, or a number as YAML gives it), or
    None when the API server would refuse it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(float(value))) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value)
    if match is None:
        return None
    number, suffix = match.groups()
    try:
        amount = Decimal(number)
        if suffix in _BINARY:
            return amount * (KIB ** _BINARY[suffix])
        if suffix not in _DECIMAL:  # a decimal exponent (a bare "E" is the suffix exa)
            exponent = int(suffix[1:])
            if abs(exponent) > 100:  # far beyond any machine; Decimal would still compute it
                return None
            return amount.scaleb(exponent)
        return amount.scaleb(_DECIMAL[suffix])
    except (InvalidOperation, ValueError):
        return None


def base_units(resource: str, amount: Decimal) -> Decimal:
    """A request in the scheduler's units, rounded up: millicores for CPU, else whole units."""
    scaled = amount * 1000 if resource == CPU else amount
    return scaled.to_integral_value(rounding=ROUND_CEILING)


def floor(amount: Decimal) -> Decimal:
    return amount.to_integral_value(rounding=ROUND_FLOOR)


def exact() -> AbstractContextManager[Context]:
    """Decimal arithmetic with enough digits for any sum of bounded amounts (PRECISION), for a whole check."""
    return localcontext(prec=PRECISION)


# --- human units --------------------------------------------------------------------------------

def _trim(amount: Decimal, places: int = 2) -> str:
    """At most ``places`` decimals, no trailing zeros: 1.50 -> 1.5, 2.00 -> 2."""
    text = f"{amount.quantize(Decimal(1).scaleb(-places)):f}" if amount != amount.to_integral_value() else f"{amount:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def cpu(millicores: Decimal) -> str:
    """Whole cores, and 10 cores or more, as cores (``2 cores``, ``1 core``, ``95.5 cores``), anything else in
    millicores (``1930m``)."""
    if millicores % 1000 == 0 or millicores >= 10000:
        cores = millicores / 1000
        return f"{_trim(cores, 3)} core{'' if cores == 1 else 's'}"  # three decimals: to the millicore
    return f"{_trim(millicores)}m"


def size(amount: Decimal) -> str:
    """Bytes in GiB when a whole number of them or at least 10 GiB, else in MiB (``1572 MiB``,
    ``953.67 MiB``), KiB or bytes when smaller."""
    if amount >= GIB and (amount % GIB == 0 or amount >= 10 * GIB):
        return f"{_trim(amount / GIB)} GiB"
    if amount >= MIB:
        return f"{_trim(amount / MIB)} MiB"
    if amount >= KIB:
        return f"{_trim(amount / KIB)} KiB"
    return f"{_trim(amount)} bytes"


def count(amount: Decimal) -> str:
    return _trim(amount)


def amount(resource: str, value: Decimal) -> str:
    """An amount of ``resource`` in its human unit."""
    with localcontext() as context:
        context.prec = PRECISION
        if abs(value) > MAX_AMOUNT * MAX_REPLICAS:  # beyond any sum of bounded amounts: never in a message
            return f"{value:.3E}"
        if resource == CPU:
            return cpu(value)
        if resource in (MEMORY, STORAGE):
            return size(value)
        return count(value)
