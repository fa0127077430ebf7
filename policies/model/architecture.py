"""Which CPU architectures a pod spec lets its Pods run on.

Follows the scheduler: ``nodeSelector`` (``kubernetes.io/arch`` and ``beta.kubernetes.io/arch``)
and required node affinity must both match. Node selector terms are ORed, the expressions of a
term are ANDed; In / NotIn / Exists / DoesNotExist apply to the architecture label, Gt / Lt never
match it, a term without architecture expressions allows every architecture and a term with no
expressions at all matches nothing. Preferred affinity never constrains.

Values that are not known yet make the result an upper bound: ``allowed`` is every architecture
the Pods could still be allowed, and ``unknown`` says the exact set cannot be known yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..platforms.architectures import KUBERNETES_ARCHITECTURES, MISTAKES, NODE_ARCHITECTURE
from .labels import ARCH_LABELS
from .selectors import NODE_OPERATORS, holds
from .values import Unknown, derived, is_mapping, type_name

_NONE: frozenset[str] = frozenset()


def node_architecture(architecture: str) -> str:
    """The node label value for a ComputeCluster architecture, secret when the architecture is."""
    return derived(NODE_ARCHITECTURE[architecture], architecture)


# What reading the constraints found wrong, as typed outcomes: workload-architecture-selector-valid writes the
# words (policies/workload_architecture_selector_valid.py).

@dataclass(frozen=True, slots=True)
class WrongType:
    """A field of the wrong JSON type."""

    where: str
    expected: str  # "string", "object of label values", "object", "list of architectures"
    found: str  # as a JSON reader names it ("a number")


@dataclass(frozen=True, slots=True)
class NotAnArchitecture:
    """A label value that is not a Kubernetes architecture name."""

    where: str
    value: str  # as written (a secret stays marked)
    hint: str | None  # the Kubernetes name of a classic mistake (x86_64 -> amd64), secret when the value is


@dataclass(frozen=True, slots=True)
class MatchesNoNode:
    """Required node affinity without terms, or with an empty list of them."""

    where: str
    empty: bool  # nodeSelectorTerms is there but empty (else missing)


@dataclass(frozen=True, slots=True)
class BadOperator:
    where: str


@dataclass(frozen=True, slots=True)
class NoValues:
    where: str
    operator: str


Problem = WrongType | NotAnArchitecture | MatchesNoNode | BadOperator | NoValues


@dataclass(frozen=True, slots=True)
class Constraint:
    allowed: frozenset[str]
    problems: tuple[Problem, ...]
    unknown: Unknown | None

    @property
    def pinned(self) -> str | None:
        """The one architecture the Pods are pinned to, when they are."""
        if self.unknown is None and len(self.allowed) == 1:
            return next(iter(self.allowed))
        return None


class _Reader:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.unknown: Unknown | None = None

    def note_unknown(self, value: Unknown) -> None:
        if self.unknown is None:
            self.unknown = value

    def is_unknown(self, value: Any) -> bool:
        """True (and remembered) when the value is not known yet."""
        if isinstance(value, Unknown):
            self.note_unknown(value)
            return True
        return False

    def name(self, value: Any, where: str) -> frozenset[str] | None:
        """The architecture a label value names: a set of at most one, None when unknown."""
        if isinstance(value, Unknown):
            self.note_unknown(value)
            return None
        if not isinstance(value, str):
            self.problems.append(WrongType(where, "string", type_name(value)))
            return _NONE
        if value in KUBERNETES_ARCHITECTURES:
            return frozenset({value})
        hint = MISTAKES.get(value.lower())  # a plain string: derived from the value, so secret when it is
        self.problems.append(NotAnArchitecture(where, value, derived(hint, value) if hint else None))
        return _NONE


# The sets of architectures workloads allow, one object each: a subset of KUBERNETES_ARCHITECTURES (a handful), kept by
# every workload of a stack (a frozenset of one is 216 bytes: a megabyte per 5,000 workloads, BENCHMARKS.md).
_ALLOWED: dict[frozenset[str], frozenset[str]] = {}


def architecture_constraint(node_selector: Any, node_affinity: Any, pod_spec_path: str) -> Constraint:
    reader = _Reader()
    allowed = _node_selector(reader, node_selector, f"{pod_spec_path}.nodeSelector")
    allowed &= _required_affinity(reader, node_affinity, f"{pod_spec_path}.affinity.nodeAffinity")
    if allowed <= KUBERNETES_ARCHITECTURES:
        allowed = _ALLOWED.setdefault(allowed, allowed)
    return Constraint(allowed, tuple(reader.problems), reader.unknown)


def _node_selector(reader: _Reader, selector: Any, where: str) -> frozenset[str]:
    if reader.is_unknown(selector):
        return KUBERNETES_ARCHITECTURES
    if selector is None:
        return KUBERNETES_ARCHITECTURES
    if not is_mapping(selector):
        reader.problems.append(WrongType(where, "object of label values", type_name(selector)))
        return KUBERNETES_ARCHITECTURES
    allowed = KUBERNETES_ARCHITECTURES
    for label in ARCH_LABELS:
        if label in selector and selector[label] is not None:
            named = reader.name(selector[label], f"{where}['{label}']")
            if named is not None:
                allowed &= named
    return allowed


def _required_affinity(reader: _Reader, node_affinity: Any, where: str) -> frozenset[str]:
    if reader.is_unknown(node_affinity):
        return KUBERNETES_ARCHITECTURES
    if not is_mapping(node_affinity):
        return KUBERNETES_ARCHITECTURES
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    where = f"{where}.requiredDuringSchedulingIgnoredDuringExecution"
    if reader.is_unknown(required):
        return KUBERNETES_ARCHITECTURES
    if required is None:
        return KUBERNETES_ARCHITECTURES
    if not is_mapping(required):
        reader.problems.append(WrongType(where, "object", type_name(required)))
        return KUBERNETES_ARCHITECTURES
    terms = required.get("nodeSelectorTerms")
    if reader.is_unknown(terms):
        return KUBERNETES_ARCHITECTURES
    if terms is None:
        reader.problems.append(MatchesNoNode(where, empty=False))
        return _NONE
    if not isinstance(terms, list) or not terms:
        reader.problems.append(MatchesNoNode(where, empty=True))
        return _NONE
    allowed = _NONE
    for index, term in enumerate(terms):
        allowed |= _term(reader, term, f"{where}.nodeSelectorTerms[{index}]")
    return allowed


def _term(reader: _Reader, term: Any, where: str) -> frozenset[str]:
    if reader.is_unknown(term):
        return KUBERNETES_ARCHITECTURES
    if not is_mapping(term):
        reader.problems.append(WrongType(where, "object", type_name(term)))
        return _NONE
    expressions = term.get("matchExpressions")
    fields = term.get("matchFields")
    if reader.is_unknown(expressions) or reader.is_unknown(fields):
        return KUBERNETES_ARCHITECTURES
    if not expressions and not fields:
        return _NONE  # a term with no expressions matches no node
    if not isinstance(expressions, list):
        return KUBERNETES_ARCHITECTURES
    allowed = KUBERNETES_ARCHITECTURES
    for index, expression in enumerate(expressions):
        allowed &= _expression(reader, expression, f"{where}.matchExpressions[{index}]")
    return allowed


def _expression(reader: _Reader, expression: Any, where: str) -> frozenset[str]:
    if reader.is_unknown(expression):
        return KUBERNETES_ARCHITECTURES
    if not is_mapping(expression):
        return KUBERNETES_ARCHITECTURES
    key = expression.get("key")
    if reader.is_unknown(key):
        return KUBERNETES_ARCHITECTURES
    if key not in ARCH_LABELS:
        return KUBERNETES_ARCHITECTURES
    operator = expression.get("operator")
    if reader.is_unknown(operator):
        return KUBERNETES_ARCHITECTURES
    if operator not in NODE_OPERATORS:
        reader.problems.append(BadOperator(f"{where}.operator"))
        return _NONE
    if operator not in ("In", "NotIn"):  # every node has an architecture label, and it is not a number
        return frozenset(arch for arch in KUBERNETES_ARCHITECTURES if holds(operator, (), arch))
    values = expression.get("values")
    if reader.is_unknown(values):
        return KUBERNETES_ARCHITECTURES
    if values is None:
        reader.problems.append(NoValues(where, operator))
        return _NONE
    if not isinstance(values, list):
        reader.problems.append(WrongType(f"{where}.values", "list of architectures", type_name(values)))
        return _NONE
    named: set[str] = set()
    some_unknown = False
    for index, value in enumerate(values):
        names = reader.name(value, f"{where}.values[{index}]")
        if names is None:
            some_unknown = True
        else:
            named |= names
    if operator == "In" and some_unknown:
        return KUBERNETES_ARCHITECTURES
    return frozenset(arch for arch in KUBERNETES_ARCHITECTURES if holds(operator, tuple(named), arch))
