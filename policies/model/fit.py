"""One Pod on one node of its pool, after the pool's DaemonSets: what kube-scheduler's NodeResourcesFit decides over
the pack's node model (issue 47: "does one Pod fit a node" and "how many fit" were worked out in four places).

From pkg/scheduler/framework/plugins/noderesources/fit.go (fitsRequest): a Pod fits a node when, for every resource
it requests, the request is at most the node's allocatable less what the Pods already on it request; one Pod slot
of the node's ``pods`` besides. What does not fit is an ``InsufficientResource`` (resource, requested, used,
capacity): here :class:`Short`, the used being what the pool's DaemonSets take of every node. A resource whose
amount is not known (the Pod's request, the node's allocatable or a DaemonSet's) is not judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from ..platforms.quantity import CPU, MEMORY, PODS, STORAGE
from .nodes import Node
from .pods import GPU_RESOURCES, PodRequest

CHECKED = (CPU, MEMORY, STORAGE, *GPU_RESOURCES)  # the resources a Pod requests (and Pod slots besides)


@dataclass(frozen=True, slots=True)
class Short:
    """A resource a node has too little of for one more Pod (noderesources' InsufficientResource)."""

    resource: str
    requested: Decimal  # one Pod's request (a Pod slot: 1)
    used: Decimal  # what the pool's DaemonSets take of the node
    capacity: Decimal  # the node's allocatable


@dataclass(frozen=True, slots=True)
class Fit:
    """One Pod of a workload on one node of its pool."""

    node: Node
    short: tuple[Short, ...]  # what does not fit, in CHECKED's order then Pod slots
    most: int | None  # how many of its identical Pods the node holds at most; None: nothing it requests bounds it
    bound: str | None  # the resource that bounds ``most``
    free: Decimal | None  # that resource's room on the node, after the DaemonSets

    @property
    def fits(self) -> bool:
        return not self.short


def fit(request: PodRequest, node: Node, room: Mapping[str, Decimal]) -> Fit:
    """One Pod with ``request`` on ``node``, whose ``room`` is what it has left after its pool's DaemonSets per
    resource that is known (PoolLoad.room)."""
    short: list[Short] = []
    bounds: list[tuple[int, str, Decimal]] = []
    for resource in (*CHECKED, PODS):
        left = room.get(resource)
        if left is None or (resource != PODS and resource in request.unknown):
            continue
        each = Decimal(1) if resource == PODS else request.get(resource)
        if each > left:
            allocatable = node.allocatable(resource)
            assert allocatable is not None  # a resource has room only where its allocatable is known
            short.append(Short(resource, each, allocatable - left, allocatable))
        if resource != PODS and each > 0:  # Pod slots bound a workload's total, not what one node packs of it
            bounds.append((int(left // each), resource, left))
    most, bound, free = min(bounds) if bounds else (None, None, None)
    return Fit(node, tuple(short), most, bound, free)
