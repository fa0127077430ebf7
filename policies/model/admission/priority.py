"""The Priority admission plugin (SPEC 21): a Pod's ``priorityClassName`` must name a PriorityClass that exists, else
the API server refuses it; ``system-cluster-critical`` and ``system-node-critical`` exist in every cluster
(kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption). namespace-admits-workload words the refusal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..values import Unknown

PRIORITY_CLASS = re.compile(r"^kubernetes:scheduling\.k8s\.io/v1(beta1|alpha1)?:PriorityClass$")
SYSTEM_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")


@dataclass(frozen=True)
class Missing:
    """A workload whose Pods name a priorityClassName no PriorityClass of the stack (or of a stack it reads) has, and
    not a system one: the Priority plugin refuses them, unless ``late`` (a PriorityClass whose name is not known yet)
    or one of ``unseen`` (Helm Releases, which may declare it) is it."""

    workload: Any
    name: str
    late: Unknown | None = None
    unseen: tuple[str, ...] = ()


def missing(stack: Any) -> list[Missing]:
    """Each of the stack's own workloads whose PriorityClass the Priority plugin finds none of."""
    declared = {name for name in stack.priority_classes if isinstance(name, str)}
    late = next((name for name in stack.priority_classes if isinstance(name, Unknown)), None)
    unseen = tuple(release.name for release in stack.helm_releases)
    found: list[Missing] = []
    for workload in stack.workloads:
        name = workload.priority_class
        if workload.patch or not isinstance(name, str) or name in declared or name in SYSTEM_PRIORITY_CLASSES:
            continue
        found.append(Missing(workload, name, late, unseen))
    return found
