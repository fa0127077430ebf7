"""PodDisruptionBudgets as the API server reads them (SPEC section 15): their amounts, their selector against a Pod's
labels, and how many of their Pods the eviction API lets a drain take at once. Which of a stack's workloads each
budget selects is derived above the stack, in policies/model/disruption.py.

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

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .selectors import label_selector
from .values import SecretInt, Unknown, as_int, child, is_list, is_mapping, is_secret, plain

if TYPE_CHECKING:
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


@dataclass(frozen=True, slots=True, eq=False)  # one per resource: it hashes by identity, a key of what is derived
class Budget:
    urn: str
    name: str
    namespace: Any  # str, None (the provider's namespace: Stack.namespace_of gives it) or Unknown
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
        """What of it is not known yet (its namespace's is where it is compared: Stack.place)."""
        for value in (self.min_available, self.max_unavailable, self.selector):
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
    not known yet (selectors.label_selector; an empty selector selects as the budget's API version says)."""
    return label_selector(budget.selector, labels, budget.empty_selects_all)
