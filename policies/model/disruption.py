"""Which of a stack's workloads each PodDisruptionBudget protects (SPEC section 15), derived once per stack: the
budgets that certainly select each workload, those that may, and what each budget selects. The budgets themselves,
their amounts and their selector's match against a Pod's labels are policies/model/budgets.py's.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .budgets import NOT_DRAINED, Amount, Budget, parse_budget, pod_labels, selection
from .memo import PerStack
from .stack import Place, Stack
from .values import Unknown, about, child, is_list, is_mapping, is_secret, plain, undetermined
from .workloads import Workload

# --- the stack's budgets and the workloads they protect -------------------------------------------------------

@dataclass
class Protection:
    """Every budget's workloads, and every workload's budgets, decided once per stack."""

    # (a workload and a budget hash by identity: each is one resource of the stack)
    of_workload: dict[Workload, list[Budget]] = field(default_factory=dict)  # budgets that certainly select it
    unknown_of: dict[Workload, Unknown] = field(default_factory=dict)  # a workload some budget may select
    selected: dict[Budget, list[Workload]] = field(default_factory=dict)  # what a budget certainly selects
    unknown: dict[Budget, Unknown] = field(default_factory=dict)  # a budget that may select more
    near: dict[Budget, tuple[str, Workload]] = field(default_factory=dict)  # a label one edit away
    # (budget, workload) whose match a secret decides: a secret selector value or Pod label (SPEC section 4: which
    # budget selects which Pods is then secret too)
    secret: set[tuple[Budget, Workload]] = field(default_factory=set)

    def hidden(self, budget: Budget, workload: Workload) -> bool:
        return (budget, workload) in self.secret


def drained(workload: Workload) -> bool:
    """Its Pods are evicted by a drain: not a DaemonSet's, not a Patch's, with a pod spec."""
    return workload.kind not in NOT_DRAINED and not workload.patch and workload.has_pod_spec


def protection(stack: Stack) -> Protection:
    """Which workloads each budget selects, computed the first time a policy asks."""
    return _PROTECTION.of(stack)


def _protection(stack: Stack) -> Protection:
    found = Protection()
    if not stack.budgets:
        return found
    # the workloads by where they run (Stack.place: a cluster, or a provider, and a namespace, or a provider's one
    # namespace while its name is not known yet) and by each label their Pods carry: a budget looks up the workloads
    # that carry its first matchLabels pair, not every workload of the stack
    by_label: dict[tuple[Place, str, Any], list[Workload]] = {}
    anywhere: dict[tuple[str, Any], list[Workload]] = {}  # by label alone, whatever their cluster and namespace
    whole: dict[Place, list[Workload]] = {}
    loose: list[tuple[Workload, Any]] = []  # namespace or labels not known: they may be anywhere
    labels_of: dict[Workload, Any] = {}
    place_of: dict[Workload, Place] = {}
    for workload in stack.workloads:
        if not drained(workload):
            continue
        labels = labels_of[workload] = pod_labels(workload)
        place = place_of[workload] = stack.place(workload.urn, workload.namespace)
        if isinstance(labels, Unknown) or not place.known:
            loose.append((workload, labels))
            continue
        whole.setdefault(place, []).append(workload)
        for key, value in labels.items():
            if isinstance(value, str):
                by_label.setdefault((place, key, value), []).append(workload)
                anywhere.setdefault((key, value), []).append(workload)
        if any(isinstance(value, Unknown) for value in labels.values()):
            loose.append((workload, labels))  # (a label not known yet: looked up by no value of it)
    for budget in stack.budgets:
        place = stack.place(budget.urn, budget.namespace)
        first = _first_pair(budget.selector)
        candidates = [] if not place.known else whole.get(place, []) if first is None else \
            by_label.get((place, *first), [])
        certain: list[Workload] = []
        unknown: Unknown | None = budget.unknown
        for workload in candidates:
            chosen = selection(budget, labels_of[workload])
            if chosen is True:
                certain.append(workload)
                found.of_workload.setdefault(workload, []).append(budget)
                if budget.selector_secret or any(is_secret(value) for value in labels_of[workload].values()):
                    found.secret.add((budget, workload))
            elif isinstance(chosen, Unknown):
                unknown = unknown or chosen
                found.unknown_of.setdefault(workload, chosen)
        for workload, labels in loose:
            if workload in certain:
                continue
            chosen = selection(budget, labels)
            if chosen is True and place.known and place.meets(place_of[workload]):  # (by a label that is known)
                certain.append(workload)
                found.of_workload.setdefault(workload, []).append(budget)
                if budget.selector_secret or any(is_secret(value) for value in labels.values()):
                    found.secret.add((budget, workload))
            elif chosen is not False:
                late = chosen if isinstance(chosen, Unknown) else labels if isinstance(labels, Unknown) \
                    else place_of[workload].late
                unknown = unknown or late
                found.unknown_of.setdefault(workload, late or undetermined("its namespace is not known"))
        if place.late is not None:
            unknown = unknown or about(budget.subject, place.late)
        else:
            # a workload the pack cannot place with it for certain (a namespace not known yet on one side, a provider
            # that may target the same cluster) that it selects: it may select those Pods too
            for workload in stack.workloads if first is None else anywhere.get(first, []):
                theirs = place_of.get(workload)
                if theirs is None or place.meets(theirs) is not None or isinstance(labels_of[workload], Unknown):
                    continue  # (judged already, certainly elsewhere, or loose)
                if selection(budget, labels_of[workload]) is True:  # (which budget and workload: labels may be secret)
                    late = undetermined("a PodDisruptionBudget selects the Pods of a workload whose cluster or "
                                        "namespace may not be its own")
                    unknown = unknown or late
                    found.unknown_of.setdefault(workload, late)
        found.selected[budget] = certain
        if unknown is None and not certain:
            unknown = _operated(stack, budget)
        if unknown is not None:
            found.unknown[budget] = unknown
        elif not certain:
            near = _near(budget, place, whole, labels_of)
            if near is not None:
                found.near[budget] = near
    return found


def _operated(stack: Stack, budget: Budget) -> Unknown | None:
    """A custom resource of the budget's namespace whose operator may create the Pods it is for."""
    place = stack.place(budget.urn, budget.namespace)
    spaces = [(resource, place.meets(stack.place(resource.urn))) for resource in stack.operated]
    same = [resource for resource, meets in spaces if meets]
    maybe = [resource for resource, meets in spaces if meets is None]
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


def _near(budget: Budget, scope: Place, whole: Mapping[Place, list[Workload]],
          labels_of: Mapping[Workload, Any]) -> tuple[str, Workload] | None:
    """A workload of its namespace whose Pods it would select if one of its matchLabels values (or keys) were
    spelled as theirs: the label it likely meant, and the workload."""
    match_labels = budget.selector.get("matchLabels") if is_mapping(budget.selector) else None
    if not is_mapping(match_labels) or not match_labels or budget.selector_secret:
        return None  # (a hint from a secret value would tell how close it is to a workload's label)
    for workload in whole.get(scope, []):
        labels = labels_of[workload]
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


_PROTECTION: PerStack[Stack, Protection] = PerStack(_protection)


def disruption_ignored(workload: Workload) -> bool:
    """A Job's (a CronJob's Jobs') podFailurePolicy has a rule that ignores the DisruptionTarget condition: a Pod a
    node's removal kills is started again without counting against its backoffLimit (kubernetes.io/docs/concepts/
    workloads/controllers/job/, "Pod failure policy")."""
    spec = child(workload.props, "spec")
    if workload.kind == "CronJob":
        spec = child(child(spec, "jobTemplate"), "spec")
    rules = plain(child(child(spec, "podFailurePolicy"), "rules"))
    return is_list(rules) and any(
        is_mapping(rule) and rule.get("action") == "Ignore" and is_list(rule.get("onPodConditions")) and any(
            is_mapping(condition) and condition.get("type") == "DisruptionTarget"
            and condition.get("status", "True") == "True" for condition in rule["onPodConditions"])
        for rule in rules)
