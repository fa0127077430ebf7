"""The RuntimeClass admission plugin (SPEC 21): a Pod that names a RuntimeClass gets that class's scheduling, its
nodeSelector merged into the Pod's (a conflict rejects the Pod) and its tolerations added, before the scheduler sees it
(kubernetes.io/docs/concepts/containers/runtime-class, "Scheduling"). A RuntimeClass is its cluster's: two clusters may
each declare kata.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..resources import PROVIDER_SCOPE
from ..values import Unknown, child, is_list, is_mapping, plain, quoted, undetermined
from .namespace import object_name
from .written import runtime_class_name

RUNTIME_CLASS = re.compile(r"^kubernetes:node\.k8s\.io/v1(beta1|alpha1)?:RuntimeClass$")



@dataclass(frozen=True)
class RuntimeScheduling:
    """What a RuntimeClass gives the Pods that name it: its scheduling's nodeSelector, merged into theirs, and its
    tolerations, added to theirs, by the RuntimeClass admission plugin before the scheduler sees them
    (kubernetes.io/docs/concepts/containers/runtime-class, "Scheduling"). Plain values, or Unknown."""

    node_selector: Any = None
    tolerations: Any = None


def parse_runtime_class(props: Any) -> tuple[str | Unknown | None, RuntimeScheduling]:
    """A RuntimeClass's name and scheduling."""
    scheduling = child(props, "scheduling")
    if isinstance(scheduling, Unknown):
        return object_name(props), RuntimeScheduling(scheduling, scheduling)
    return object_name(props), RuntimeScheduling(plain(child(scheduling, "nodeSelector")),
                                                         plain(child(scheduling, "tolerations")))


def add(stack: Any, resource: Any) -> None:
    """A RuntimeClass of the stack (or of a stack it reads), by name (None: one whose name is not known yet)."""
    name, scheduling = parse_runtime_class(resource.props)
    stack.runtime_classes.setdefault(name if isinstance(name, str) else None, []).append((resource.urn, scheduling))


def with_runtime(selector: Any, tolerations: Any, runtime: RuntimeScheduling,
                 subject: str) -> tuple[Any, Any] | Unknown:
    """A Pod's nodeSelector and tolerations with its RuntimeClass's scheduling merged in (the class's nodeSelector is
    merged with the Pod's, a conflict rejects the Pod; its tolerations are added to the Pod's). Unknown when a part is
    not known yet, or when they conflict."""
    extra_selector, extra_tolerations = runtime.node_selector, runtime.tolerations
    for value in (extra_selector, extra_tolerations):
        if isinstance(value, Unknown):
            return value
    if is_mapping(extra_selector) and extra_selector:
        if selector is not None and not is_mapping(selector):
            return selector  # (not readable: the pod_placement of the Pod's own says so)
        own = dict(selector or {})
        clash = sorted(key for key, value in extra_selector.items() if key in own and own[key] != value)
        if clash:
            return undetermined(f"{subject}: its nodeSelector and its RuntimeClass's disagree on {quoted(clash)}: "
                                "the RuntimeClass admission plugin rejects such a Pod, so where it runs is not judged")
        selector = {**own, **extra_selector}
    if is_list(extra_tolerations) and extra_tolerations and (tolerations is None or is_list(tolerations)):
        tolerations = merge_tolerations([*(tolerations or []), *extra_tolerations])
    return selector, tolerations


def _fields(toleration: Any) -> tuple[Any, ...]:
    """A toleration as the API compares two (a field not written is its zero value)."""
    return tuple(toleration.get(key) or ("" if key != "tolerationSeconds" else None)
                 for key in ("key", "operator", "value", "effect", "tolerationSeconds")) \
        if is_mapping(toleration) else (toleration,)


def _superset(wide: Any, narrow: Any) -> bool:
    """``wide`` tolerates every taint ``narrow`` does (pkg/util/tolerations isSuperset)."""
    (key, operator, value, effect, seconds), (t_key, t_operator, t_value, t_effect, t_seconds) = \
        _fields(wide), _fields(narrow)
    if (key, operator, value, effect, seconds) == (t_key, t_operator, t_value, t_effect, t_seconds):
        return True
    if t_key != key and (key != "" or operator != "Exists"):
        return False
    if t_effect != effect and effect != "":
        return False
    if effect == "NoExecute" and seconds is not None and (t_seconds is None or t_seconds > seconds):
        return False
    if operator in ("Equal", ""):
        return t_operator == "Equal" and t_value == value
    return operator == "Exists"


def merge_tolerations(every: list[Any]) -> list[Any]:
    """The Pod's tolerations and its RuntimeClass's as the plugin merges them (k8s.io/kubernetes pkg/util/tolerations
    MergeTolerations): a toleration another one tolerates a superset of is dropped, the first of equal ones kept."""
    if not all(is_mapping(item) and len(_fields(item)) == 5 for item in every):
        return every
    merged: list[Any] = []
    for index, item in enumerate(every):
        if any(_superset(kept, item) for kept in merged):
            continue
        if any(_fields(item) != _fields(later) and _superset(later, item) for later in every[index + 1:]):
            continue
        merged.append(item)
    return merged


def prepare(stack: Any) -> Any:
    """Each workload whose Pods name a RuntimeClass, with what that class gives them: the scheduling of the RuntimeClass
    of that name on its cluster (Stack.scope: the stack's, or a stack's it reads); nothing for a class its cluster's
    platform creates and models (GKE Sandbox's gvisor: KubeCluster.runtime_classes); else not known, since a class the
    stack does not show may add tolerations (a Pod refused for a taint would be a false violation)."""

    def admit(workload: Any) -> Any:
        name = runtime_class_name(workload.pod_spec)
        if not isinstance(name, str):
            return workload  # (none; one not known yet is the Pod's own unknown: scheduling.pod_placement)
        scope = stack.scope(workload.urn)
        declared = stack.runtime_classes.get(name, [])
        here: list[RuntimeScheduling] = []
        for urn, scheduling in declared:
            if stack.scope(urn) == scope and scheduling not in here:  # (equal schedulings are one)
                here.append(scheduling)
        runtime: Any = here[0] if len(here) == 1 else None
        if runtime is None:
            cluster = stack.cluster_for(workload.urn)
            if not declared and cluster is not None and name in cluster.runtime_classes:
                return workload
            elsewhere = not any(stack.scope(urn).startswith(PROVIDER_SCOPE) for urn, _ in declared) and \
                not scope.startswith(PROVIDER_SCOPE)
            which = "is declared twice on its cluster, differently" if here else \
                "is declared only on other clusters of the stack" if declared and elsewhere else \
                "is declared on a cluster the pack cannot tell is its own" if declared else \
                "may be one whose name is not known yet" if None in stack.runtime_classes else \
                "is not in the stack"
            runtime = undetermined(
                f"{workload.subject}: its Pods' RuntimeClass '{name}' {which}, so the node selector and "
                "tolerations it gives them (RuntimeClass scheduling) are not known and where they can run is not "
                "judged")
        return replace(workload, runtime=runtime)

    return admit
