"""The scheduler's own rules, for pools the platforms declare (SPEC section 14): a Pod's nodeSelector and
required node affinity against a node's labels, its tolerations against a node's taints.

Written from Kubernetes' documentation (kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/,
"nodeSelector" and "Node affinity"; .../taint-and-toleration/) and the scheduler's matching code it
describes (k8s.io/component-helpers/scheduling/corev1: MatchNodeSelectorTerms, ToleratesTaint):

* a Pod may land on a node when every nodeSelector entry equals the node's label, and, when it has
  required node affinity, one of its nodeSelectorTerms matches: the terms are ORed, the expressions of a
  term ANDed, and a term without expressions matches nothing;
* In holds when the label is there with one of the values, NotIn when it is absent or none of them,
  Exists and DoesNotExist on the label's presence, Gt and Lt when the label is an integer above or below the
  one value;
* the Pod must tolerate every NoSchedule and NoExecute taint of the node (PreferNoSchedule only steers): a
  toleration matches a taint when its effect is empty or the same, its key is empty or the same, and its
  operator is Exists, or Equal (the default) with the same value;
* what a platform's admission adds to a Pod before the scheduler sees it lives in platform_admission.py: the
  tolerations a platform grants (a taint a source marks :attr:`Taint.granted`: GKE's Arm, Sandbox and Windows taints)
  and the ExtendedResourceToleration plugin's, which EKS, GKE and AKS run (a NoSchedule taint keyed by an extended
  resource the Pod requests keeps it off no node of those platforms);
* a platform may set a taint only in some orders of creation (GKE's GPU taint): a :attr:`Taint.maybe` makes the
  pool possible, never certain, for the Pods that do not tolerate it.

A pool's nodes are a :class:`NodeSpace` per machine: for each label key, the values its nodes may carry
(one, several, any) or none. What is not known (a preview unknown, a label the platform may or may not set)
only ever makes a Pod *possible* on a pool, never refused: the policies reject what certainly fails.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .admission.extended_resource_toleration import admitted
from .platform_admission import grants
from .selectors import NODE_OPERATORS, holds
from .values import Unknown, first_unknown, is_list, is_mapping

BLOCKING = ("NoSchedule", "NoExecute")  # the effects that keep a Pod off a node (PreferNoSchedule does not)


class _Any:
    """A label every node of the space carries, with a value that is not known here (a zone, a hostname)."""

    def __repr__(self) -> str:
        return "ANY"


class _Maybe:
    """A label the nodes may or may not carry, with any value (a platform label the pack does not model)."""

    def __repr__(self) -> str:
        return "MAYBE"


ANY = _Any()
MAYBE = _Maybe()
Domain = frozenset[str] | _Any | _Maybe  # the values a label key may have on a node of the space


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str
    granted: str = ""  # the platform adds its toleration to Pods that ask for this ("arm64", "gvisor", a resource)
    maybe: str = ""  # why the platform may or may not set it (empty: its nodes certainly carry it)

    @property
    def text(self) -> str:
        """As kubectl writes it: key=value:Effect (key:Effect without a value)."""
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class NodeSpace:
    """The labels the nodes of one machine of a pool carry: each key's domain. A key not listed is absent unless
    ``maybe_prefixes`` say the platform may set it and ``absent`` does not name it."""

    labels: Mapping[str, Domain]
    maybe_prefixes: tuple[str, ...] = ()  # keys under these prefixes may be there with any value
    absent: frozenset[str] = frozenset()  # keys under those prefixes that no node of the space has

    def domain(self, key: str) -> Domain | None:
        """The key's domain, None when no node of the space has it."""
        found = self.labels.get(key)
        if found is not None:
            return found
        if key not in self.absent and any(key.startswith(prefix) for prefix in self.maybe_prefixes):
            return MAYBE
        return None


@dataclass(frozen=True, slots=True)
class Expression:
    key: str
    operator: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PodPlacement:
    """What the scheduler matches of a Pod: its nodeSelector, its required node affinity terms (None: none),
    its tolerations; ``unknown`` when any of it is not known yet (the Pod is then possible anywhere)."""

    selector: tuple[tuple[str, str], ...]
    terms: tuple[tuple[Expression, ...], ...] | None
    tolerations: tuple[Mapping[str, Any], ...]
    unknown: Unknown | None = None
    unreadable: bool = False  # a part the API server would refuse (the architecture policy reports it)
    runtime_class: str | None = None  # spec.runtimeClassName
    # the extended resources its containers request or limit (nvidia.com/gpu); Unknown when they are not known yet
    requested: frozenset[str] | Unknown = frozenset()

    @property
    def granted(self) -> frozenset[str]:
        """What a platform's admission grants the Pods a toleration for (platform_admission.grants)."""
        return grants(self)

    @property
    def key(self) -> tuple[Any, ...] | None:
        """What a pool's verdict reads of it (landing.judge), as one hashable value: two Pods with equal keys are
        judged alike on every pool. None when some of it is not known yet, or cannot be compared."""
        if self.unknown is not None or not isinstance(self.requested, frozenset):
            return None
        try:
            tolerations = tuple(tuple(sorted(toleration.items())) for toleration in self.tolerations)
            key = (self.selector, self.terms, tolerations, self.runtime_class, self.requested, self.unreadable)
            hash(key)
        except TypeError:  # a value that cannot be ordered or hashed: judged on its own
            return None
        return key

    @property
    def keys(self) -> frozenset[str]:
        """Every label key it asks about."""
        found = {key for key, _ in self.selector}
        for term in self.terms or ():
            found |= {expression.key for expression in term}
        return frozenset(found)


def required(placement: PodPlacement, key: str) -> frozenset[str] | None:
    """The values a Pod requires of label ``key`` (its nodeSelector's, else the union over its required node affinity
    terms when each term has an In on it); None when it does not restrict the key to listed values."""
    for found, value in placement.selector:
        if found == key:
            return frozenset({value})
    if not placement.terms:
        return None
    union: set[str] = set()
    for term in placement.terms:
        values: set[str] | None = None
        for expression in term:
            if expression.key == key and expression.operator == "In":
                values = set(expression.values) if values is None else values & set(expression.values)
        if values is None:
            return None
        union |= values
    return frozenset(union)


def _texts(values: Any) -> tuple[str, ...] | None:
    if not is_list(values):
        return None
    if any(not isinstance(value, str) for value in values):
        return None
    return tuple(values)


def pod_placement(node_selector: Any, node_affinity: Any, tolerations: Any,
                  runtime_class: Any = None, requested: frozenset[str] | Unknown = frozenset()) -> PodPlacement:
    """A Pod's placement constraints from the plain values of its nodeSelector, nodeAffinity, tolerations and
    runtimeClassName, and the extended resources it requests."""
    unknown = first_unknown(node_selector) or first_unknown(node_affinity) or first_unknown(tolerations) \
        or first_unknown(runtime_class)
    if unknown is not None:
        return PodPlacement((), None, (), unknown)
    unreadable = False
    selector: list[tuple[str, str]] = []
    if is_mapping(node_selector):
        for key, value in node_selector.items():
            if isinstance(key, str) and isinstance(value, str):
                selector.append((key, value))
            else:
                unreadable = True
    elif node_selector is not None:
        unreadable = True
    terms: list[tuple[Expression, ...]] | None = None
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") \
        if is_mapping(node_affinity) else None
    if required is not None:
        listed = required.get("nodeSelectorTerms") if is_mapping(required) else None
        if not is_list(listed):
            unreadable = True
        else:
            terms = []
            for term in listed:
                expressions = _term(term)
                if expressions is None:
                    unreadable = True
                    continue
                terms.append(expressions)
    kept = tuple(item for item in tolerations if is_mapping(item)) if is_list(tolerations) else ()
    if tolerations is not None and (not is_list(tolerations) or len(kept) != len(tolerations)):
        unreadable = True
    return PodPlacement(tuple(selector), None if terms is None else tuple(terms), kept, None, unreadable,
                        runtime_class if isinstance(runtime_class, str) else None, requested)


_MATCHES_ANY_NODE = (Expression("", "Exists", ()),)  # a term of matchFields only: node names are not known here


def _term(term: Any) -> tuple[Expression, ...] | None:
    """A nodeSelectorTerm's expressions; None when it cannot be read. matchFields (a node's name) can be met."""
    if not is_mapping(term):
        return None
    expressions = term.get("matchExpressions")
    fields = term.get("matchFields")
    found: list[Expression] = []
    for expression in expressions if is_list(expressions) else ():
        if not is_mapping(expression):
            return None
        key, operator = expression.get("key"), expression.get("operator")
        values = _texts(expression.get("values", [])) if expression.get("values") is not None else ()
        if not isinstance(key, str) or operator not in NODE_OPERATORS or values is None:
            return None
        found.append(Expression(key, operator, values))
    if expressions is not None and not is_list(expressions):
        return None
    if is_list(fields) and fields:
        return (*found, *_MATCHES_ANY_NODE) if found else _MATCHES_ANY_NODE
    return tuple(found)


# --- matching ----------------------------------------------------------------------------------

def matches(expression: Expression, value: str | None) -> bool:
    """One expression against a node's value of its key (None: the node has no such label)."""
    return holds(expression.operator, expression.values, value)


def satisfiable(expressions: Sequence[Expression], domain: Domain | None) -> bool:
    """Whether some node of a space, whose key has ``domain``, meets all ``expressions`` on that key."""
    if domain is None:
        return all(matches(expression, None) for expression in expressions)
    if isinstance(domain, frozenset):
        return any(all(matches(expression, value) for expression in expressions) for value in domain)
    if isinstance(domain, _Maybe):
        return True  # present with some value, or absent: either may meet them
    # ANY: present, with a value not known here
    if any(expression.operator == "DoesNotExist" for expression in expressions):
        return False
    wanted: set[str] | None = None
    for expression in expressions:
        if expression.operator == "In":
            wanted = set(expression.values) if wanted is None else wanted & set(expression.values)
    if wanted is None:
        return True  # some value meets NotIn, Exists, Gt and Lt
    return any(all(matches(expression, value) for expression in expressions) for value in wanted)


Failure = Literal["selector", "affinity"]


@dataclass(frozen=True, slots=True)
class LabelMismatch:
    """Why no node of a pool's spaces has the labels a Pod asks for: the first selector entry none of them
    has (``key``, ``value``), else its required node affinity (``key``: the first key of its only term that no
    node meets, or None with several terms)."""

    failure: Failure
    key: str | None
    value: str | None = None


def labels_match(placement: PodPlacement, space: NodeSpace) -> LabelMismatch | None:
    """None when some node of the space has the labels the Pod asks for, else why not."""
    selected: dict[str, list[Expression]] = {}
    for key, value in placement.selector:
        selected.setdefault(key, []).append(Expression(key, "In", (value,)))
    for key, expressions in sorted(selected.items()):  # the first key by name: the same reason every run
        if not satisfiable(expressions, space.domain(key)):
            return LabelMismatch("selector", key, expressions[0].values[0])
    if placement.terms is None:
        return None
    first_key: str | None = None
    for term in placement.terms:
        by_key: dict[str, list[Expression]] = {}
        for expression in term:
            if expression.key:
                by_key.setdefault(expression.key, []).append(expression)
        if not term:
            continue  # an empty term matches no node
        failing = next((key for key, expressions in by_key.items()
                        if not satisfiable([*selected.get(key, ()), *expressions], space.domain(key))), None)
        if failing is None:
            return None
        first_key = first_key or failing
    return LabelMismatch("affinity", first_key if len(placement.terms) == 1 else None)


def tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """ToleratesTaint: the effect empty or the same, the key empty or the same, Exists or an equal value."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    key = toleration.get("key") or ""
    if key and key != taint.key:
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == taint.value
    return False


def untolerated(placement: PodPlacement, taints: Iterable[Taint]) -> tuple[Taint, ...]:
    """The taints that keep the Pod off the node: NoSchedule and NoExecute ones no toleration matches (nor one the
    platform grants the Pod)."""
    granted = placement.granted
    return tuple(taint for taint in taints if taint.effect in BLOCKING and taint.granted not in granted
                 and not admitted(placement, taint)
                 and not any(tolerates(toleration, taint) for toleration in placement.tolerations))
