"""PodDisruptionBudgets and the Pods they protect (SPEC section 15): which workloads each budget selects, and how
many of their Pods the eviction API lets a drain take at once.

From Kubernetes' API reference (PodDisruptionBudgetSpec, policy/v1) and the disruption controller it describes
(pkg/controller/disruption/disruption.go, getExpectedPodCount; k8s.io/apimachinery intstr
GetScaledValueFromIntOrPercent):

* a budget selects the Pods of its namespace whose labels its ``selector`` matches (matchLabels and
  matchExpressions); in policy/v1 an empty selector selects every Pod of the namespace and a null one none
  (policy/v1beta1: an empty one selects none);
* with ``maxUnavailable`` (an integer, or a percentage of the expected Pods rounded up) the desired healthy Pods are
  expected - maxUnavailable (at least 0); with ``minAvailable`` they are its integer, or its percentage of the
  expected Pods rounded up; with neither, none;
* the disruptions allowed are the healthy Pods - the desired healthy (at least 0): with every Pod healthy, the
  expected Pods - the desired healthy. The API server refuses a budget that sets both fields, a percentage over
  100% and a string that is not one.
* The eviction API refuses to evict a Pod that more than one budget selects ("This pod has more than one
  PodDisruptionBudget, which the eviction subresource does not support"), so no drain can move it.

A drain leaves DaemonSet Pods where they are (kubectl drain --ignore-daemonsets, and the platforms' node
upgrades), so budgets are judged on the other workloads.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .selectors import LABEL_OPERATORS, holds
from .values import SecretInt, Unknown, as_int, child, is_list, is_mapping, is_secret, plain, undetermined

if TYPE_CHECKING:
    from .stack import Stack
    from .workloads import Workload

BUDGET = re.compile(r"^kubernetes:policy/(v1|v1beta1):PodDisruptionBudget$")
# A custom resource of an API group outside Kubernetes' own (monitoring.coreos.com's Prometheus, an operator's
# database): its operator may create Pods the stack does not declare, which a budget of the stack may be for.
_CUSTOM = re.compile(r"^kubernetes:([a-z0-9-]+\.[a-z0-9.-]+)/[a-z0-9]+:[A-Za-z]+$")
_PERCENT = re.compile(r"^[0-9]+%$")  # the API server's IsValidPercent
NOT_DRAINED = ("DaemonSet", "PodTemplate")  # a drain leaves their Pods (a template runs none)


@dataclass(frozen=True, slots=True)
class Amount:
    """A budget's minAvailable or maxUnavailable: an integer or a percentage."""

    value: int
    percent: bool
    secret: bool = False

    def of(self, expected: int) -> int:
        """Its number of Pods out of ``expected``: a percentage rounded up, as the disruption controller does."""
        if not self.percent:
            return self.value
        return -(-self.value * expected // 100)

    def __str__(self) -> str:
        return f"{self.value}%" if self.percent else str(self.value)


@dataclass(frozen=True, slots=True)
class Budget:
    urn: str
    name: str
    namespace: Any  # str, None (the provider's namespace) or Unknown
    selector: Any  # plain; None selects nothing
    empty_selects_all: bool  # policy/v1
    min_available: Amount | Unknown | None
    max_unavailable: Amount | Unknown | None
    readable: bool = True  # False: the API server refuses it (both fields, a value that is not one)

    @property
    def subject(self) -> str:
        return f"PodDisruptionBudget '{self.name}'"

    @property
    def unknown(self) -> Unknown | None:
        for value in (self.min_available, self.max_unavailable, self.selector, self.namespace):
            if isinstance(value, Unknown):
                return value
        return None

    @property
    def secret(self) -> bool:
        return any(isinstance(value, Amount) and value.secret for value in (self.min_available, self.max_unavailable))

    @property
    def selector_secret(self) -> bool:
        """A value of its selector is secret: which Pods it selects is secret too."""
        return _has_secret(self.selector)

    @property
    def never_allows(self) -> bool:
        """maxUnavailable 0 or 0%: no eviction at any number of Pods."""
        return isinstance(self.max_unavailable, Amount) and self.max_unavailable.value == 0

    def allowed(self, expected: int) -> int | None:
        """How many of ``expected`` healthy Pods a drain may evict at once (None: not known, or refused)."""
        if not self.readable or self.unknown is not None:
            return None
        if isinstance(self.max_unavailable, Amount):
            desired = max(0, expected - self.max_unavailable.of(expected))
        elif isinstance(self.min_available, Amount):
            desired = self.min_available.of(expected)
        else:
            desired = 0
        return max(0, expected - desired)

    def arithmetic(self, expected: int) -> str:
        """How many of ``expected`` Pods it keeps, in its own terms (secret numbers read [secret]): "minAvailable 90%
        of 3 = 3 (rounded up)", "maxUnavailable 0"."""
        amount = self.max_unavailable if isinstance(self.max_unavailable, Amount) else self.min_available
        if not isinstance(amount, Amount):
            return "no minAvailable or maxUnavailable"
        field = "maxUnavailable" if amount is self.max_unavailable else "minAvailable"
        if not amount.percent:
            return f"{field} {_shown(amount)}"
        return f"{field} {_shown(amount)} of {expected} = {_number(amount, expected)} (rounded up)"


def _has_secret(value: Any) -> bool:
    if is_mapping(value):
        return any(_has_secret(item) for item in value.values())
    if is_list(value):
        return any(_has_secret(item) for item in value)
    return is_secret(value)


def _shown(amount: Amount) -> str:
    return "[secret]" if amount.secret else str(amount)


def _number(amount: Amount, expected: int) -> str:
    return "[secret]" if amount.secret else str(amount.of(expected))


def _amount(value: Any) -> Amount | Unknown | None | bool:
    """An IntOrString field: its Amount, None when absent, False when the API server refuses it."""
    if value is None:
        return None
    if isinstance(value, Unknown):
        return value
    if isinstance(value, str):
        if not _PERCENT.match(value) or int(value[:-1]) > 100:
            return False
        return Amount(int(value[:-1]), True, is_secret(value))
    number = as_int(value)
    if number is None or number < 0:
        return False
    return Amount(int(number), False, isinstance(number, SecretInt))


def parse_budget(resource_type: str, props: Any, urn: str, name: str) -> Budget | None:
    if not isinstance(resource_type, str):
        return None
    match = BUDGET.match(resource_type)
    if match is None:
        return None
    metadata = child(props, "metadata")
    namespace = metadata if isinstance(metadata, Unknown) else child(metadata, "namespace")
    spec = child(props, "spec")
    if isinstance(spec, Unknown):
        return Budget(urn, name, namespace, spec, True, spec, spec)
    minimum, maximum = _amount(child(spec, "minAvailable")), _amount(child(spec, "maxUnavailable"))
    readable = minimum is not False and maximum is not False and not (minimum is not None and maximum is not None)
    return Budget(urn, name, namespace if isinstance(namespace, (str, Unknown)) else None,
                  plain(child(spec, "selector")), match.group(1) == "v1",
                  minimum if not isinstance(minimum, bool) else None,
                  maximum if not isinstance(maximum, bool) else None, readable)


def may_make_pods(resource_type: str) -> bool:
    """A custom resource whose operator may create Pods (any group but Kubernetes' own ``*.k8s.io``)."""
    match = _CUSTOM.match(resource_type) if isinstance(resource_type, str) else None
    return match is not None and not match.group(1).endswith(".k8s.io")


# --- which Pods a budget selects -------------------------------------------------------------------------------

def pod_labels(workload: Workload) -> Any:
    """The labels its Pods carry (its pod template's; a Pod's own), plain; Unknown when not known yet."""
    metadata = child(workload.template, "metadata") if not isinstance(workload.template, Unknown) \
        else workload.template
    labels = metadata if isinstance(metadata, Unknown) else plain(child(metadata, "labels"))
    if isinstance(labels, Unknown):
        return labels
    return labels if is_mapping(labels) else {}


def selection(budget: Budget, labels: Any) -> bool | Unknown:
    """Whether the budget's selector matches these Pod labels: True, False, or Unknown when a value that decides is
    not known yet. Something the API server refuses matches nothing."""
    selector = budget.selector
    if isinstance(selector, Unknown):
        return selector
    if not is_mapping(selector):
        return False
    if not selector:
        return budget.empty_selects_all
    unknown: Unknown | None = labels if isinstance(labels, Unknown) else None
    match_labels = selector.get("matchLabels")
    if isinstance(match_labels, Unknown):
        unknown = unknown or match_labels
    elif is_mapping(match_labels):
        for key, wanted in match_labels.items():
            have = labels.get(key) if is_mapping(labels) else None
            if isinstance(wanted, Unknown) or isinstance(have, Unknown) or isinstance(labels, Unknown):
                unknown = unknown or (wanted if isinstance(wanted, Unknown) else
                                      have if isinstance(have, Unknown) else labels)
            elif have != wanted:
                return False
    elif match_labels is not None:
        return False
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, Unknown):
        return expressions
    for expression in expressions if is_list(expressions) else ():
        found = _expression(expression, labels)
        if found is False:
            return False
        if isinstance(found, Unknown):
            unknown = unknown or found
    return unknown if unknown is not None else True


def _expression(expression: Any, labels: Any) -> bool | Unknown:
    if isinstance(expression, Unknown):
        return expression
    if not is_mapping(expression):
        return False
    key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values")
    for value in (key, operator, values):
        if isinstance(value, Unknown):
            return value
    if isinstance(labels, Unknown):
        return labels
    if not isinstance(key, str) or operator not in LABEL_OPERATORS:
        return False
    options = list(values) if is_list(values) else []
    for option in options:
        if isinstance(option, Unknown):
            return option
    value = labels.get(key)
    if isinstance(value, Unknown):
        return value
    return holds(operator, tuple(option for option in options if isinstance(option, str)),
                 value if isinstance(value, str) else None)


# --- the stack's budgets and the workloads they protect -------------------------------------------------------

@dataclass
class Protection:
    """Every budget's workloads, and every workload's budgets, decided once per stack."""

    of_workload: dict[int, list[Budget]] = field(default_factory=dict)  # budgets that certainly select it (by id)
    unknown_of: dict[int, Unknown] = field(default_factory=dict)  # a workload some budget may select
    selected: dict[int, list[Workload]] = field(default_factory=dict)  # by id(budget): what it certainly selects
    unknown: dict[int, Unknown] = field(default_factory=dict)  # by id(budget): it may select more
    near: dict[int, tuple[str, Workload]] = field(default_factory=dict)  # by id(budget): a label one edit away
    # (id(budget), id(workload)) whose match a secret decides: a secret selector value or Pod label (SPEC section
    # 4: which budget selects which Pods is then secret too)
    secret: set[tuple[int, int]] = field(default_factory=set)

    def hidden(self, budget: Budget, workload: Workload) -> bool:
        return (id(budget), id(workload)) in self.secret


def drained(workload: Workload) -> bool:
    """Its Pods are evicted by a drain: not a DaemonSet's, not a Patch's, with a pod spec."""
    return workload.kind not in NOT_DRAINED and not workload.patch and workload.has_pod_spec


def protection(stack: Stack) -> Protection:
    """Which workloads each budget selects, computed the first time a policy asks."""
    if stack.protection is None:
        stack.protection = _protection(stack)
    return stack.protection


def _namespace(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _protection(stack: Stack) -> Protection:
    found = Protection()
    if not stack.budgets:
        return found
    # the workloads by where they run and by each label their Pods carry: a budget looks up the workloads that
    # carry its first matchLabels pair, not every workload of the stack
    by_label: dict[tuple[str, str | None, str, Any], list[Workload]] = {}
    anywhere: dict[tuple[str, Any], list[Workload]] = {}  # by label alone, whatever their cluster and namespace
    whole: dict[tuple[str, str | None], list[Workload]] = {}
    loose: list[tuple[Workload, Any]] = []  # namespace or labels not known: they may be anywhere
    labels_of: dict[int, Any] = {}
    for workload in stack.workloads:
        if not drained(workload):
            continue
        labels = labels_of[id(workload)] = pod_labels(workload)
        namespace = workload.namespace
        if isinstance(labels, Unknown) or isinstance(namespace, Unknown):
            loose.append((workload, labels))
            continue
        scope = (stack.scope(workload.urn), _namespace(namespace))
        whole.setdefault(scope, []).append(workload)
        for key, value in labels.items():
            if isinstance(value, str):
                by_label.setdefault((*scope, key, value), []).append(workload)
                anywhere.setdefault((key, value), []).append(workload)
    for budget in stack.budgets:
        namespace = budget.namespace
        scope = (stack.scope(budget.urn), _namespace(namespace))
        first = _first_pair(budget.selector)
        candidates = whole.get(scope, []) if first is None else by_label.get((*scope, *first), [])
        certain: list[Workload] = []
        unknown: Unknown | None = budget.unknown
        for workload in candidates:
            chosen = selection(budget, labels_of[id(workload)])
            if chosen is True and not isinstance(namespace, Unknown):
                certain.append(workload)
                found.of_workload.setdefault(id(workload), []).append(budget)
                if budget.selector_secret or any(is_secret(value) for value in labels_of[id(workload)].values()):
                    found.secret.add((id(budget), id(workload)))
            elif isinstance(chosen, Unknown):
                unknown = unknown or chosen
                found.unknown_of.setdefault(id(workload), chosen)
        for workload, labels in loose:
            chosen = selection(budget, labels)
            if chosen is not False:
                late = chosen if isinstance(chosen, Unknown) else labels if isinstance(labels, Unknown) \
                    else workload.namespace
                unknown = unknown or late
                found.unknown_of.setdefault(id(workload), late)
        if isinstance(namespace, Unknown):
            unknown = unknown or namespace
        found.selected[id(budget)] = certain
        if unknown is not None:
            found.unknown[id(budget)] = unknown
        if not certain and unknown is None:
            others = stack.workloads if first is None else anywhere.get(first, [])
            unknown = _elsewhere(stack, budget, others, labels_of) or _operated(stack, budget)
            if unknown is not None:
                found.unknown[id(budget)] = unknown
            else:
                near = _near(budget, scope, whole, labels_of)
                if near is not None:
                    found.near[id(budget)] = near
    return found


def _operated(stack: Stack, budget: Budget) -> Unknown | None:
    """A custom resource of the budget's namespace whose operator may create the Pods it is for."""
    namespace = _namespace(budget.namespace)
    spaces = [(resource, child(child(resource.props, "metadata"), "namespace")) for resource in stack.operated]
    same = [resource for resource, theirs in spaces if theirs == namespace]
    maybe = [resource for resource, theirs in spaces if not isinstance(theirs, str) or namespace is None]
    for resource in same or maybe[:1]:
        kind = resource.type.rsplit(":", 1)[-1]
        # the budget is not named: which one selects nothing may follow from a secret label of a workload
        return undetermined("a PodDisruptionBudget selects no workload of the stack, and the Pods it is for may be "
                            f"those an operator creates for {kind} '{resource.name}'")
    return None


def _first_pair(selector: Any) -> tuple[str, Any] | None:
    """A matchLabels pair every Pod the selector matches carries (None: it has none to look up by)."""
    match_labels = selector.get("matchLabels") if is_mapping(selector) else None
    if not is_mapping(match_labels):
        return None
    for key in sorted(match_labels):
        value = match_labels[key]
        if isinstance(value, str):
            return key, value
    return None


def _elsewhere(stack: Stack, budget: Budget, workloads: list[Workload], labels_of: Mapping[int, Any]
               ) -> Unknown | None:
    """A budget that selects no workload of its own cluster and namespace for certain may still select one the pack
    cannot place with it: one on a provider whose namespace is not written (the provider's may be the budget's),
    or on another provider that may target the same cluster. What says it may (never a finding then)."""
    namespace = _namespace(budget.namespace)
    for workload in workloads:
        labels = labels_of.get(id(workload))
        if labels is None or isinstance(labels, Unknown):
            continue
        theirs = _namespace(workload.namespace)
        if theirs != namespace and theirs is not None and namespace is not None:
            continue
        if stack.scope(workload.urn) == stack.scope(budget.urn) and theirs == namespace:
            continue  # judged already
        if selection(budget, labels) is True:  # (which budget and workload: the labels may be secret)
            return undetermined("a PodDisruptionBudget selects the Pods of a workload whose cluster or namespace may "
                                "not be its own")
    return None


def _near(budget: Budget, scope: tuple[str, str | None], whole: Mapping[tuple[str, str | None], list[Workload]],
          labels_of: Mapping[int, Any]) -> tuple[str, Workload] | None:
    """A workload of its namespace whose Pods it would select if one of its matchLabels values (or keys) were
    spelled as theirs: the label it likely meant, and the workload."""
    match_labels = budget.selector.get("matchLabels") if is_mapping(budget.selector) else None
    if not is_mapping(match_labels) or not match_labels or budget.selector_secret:
        return None  # (a hint from a secret value would tell how close it is to a workload's label)
    for workload in whole.get(scope, []):
        labels = labels_of[id(workload)]
        missing = [(key, value) for key, value in match_labels.items() if labels.get(key) != value]
        if len(missing) != 1 or not isinstance(missing[0][1], str):
            continue
        key, value = missing[0]
        theirs = labels.get(key)
        if any(is_secret(item) for item in labels.values()):
            continue  # a hint from a secret label would tell how close it is to the budget's
        if isinstance(theirs, str) and difflib.get_close_matches(value, [theirs], n=1, cutoff=0.75):
            if selection(Budget(budget.urn, budget.name, budget.namespace,
                                {**budget.selector, "matchLabels": {**match_labels, key: theirs}},
                                budget.empty_selects_all, None, None), labels) is True:
                return f"{key}={theirs}", workload
        close = difflib.get_close_matches(key, [name for name in labels if labels.get(name) == value], n=1,
                                          cutoff=0.75)
        if close:
            return f"{close[0]}={value}", workload
    return None


__all__ = ["Amount", "Budget", "Protection", "drained", "parse_budget", "pod_labels", "protection", "selection"]
