"""One Pod on one node of its pool, after the pool's DaemonSets: what kube-scheduler's NodeResourcesFit decides over
the pack's node model (issue 47: "does one Pod fit a node" and "how many fit" were worked out in four places).

From pkg/scheduler/framework/plugins/noderesources/fit.go (fitsRequest): a Pod fits a node when, for every resource
it requests, the request is at most the node's allocatable less what the Pods already on it request; one Pod slot
of the node's ``pods`` besides. What does not fit is an ``InsufficientResource`` (resource, requested, used,
capacity): here :class:`Short`, the used being what the pool's DaemonSets take of every node. A resource whose
amount is not known (the Pod's request, the node's allocatable or a DaemonSet's) is not judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from ..platforms.quantity import CPU, MEMORY, PODS, STORAGE
from .nodes import Node
from .pods import DEVICES, PodRequest
from .values import Unknown

CHECKED = (CPU, MEMORY, STORAGE, *DEVICES)  # the resources a Pod requests (and Pod slots besides)


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


def packing(fits: Iterable[Fit]) -> Fit | None:
    """Of one workload's fits on each machine's node of a pool, the node that holds the most of its identical Pods
    (the first such): every node of the pool holds at most that many. None when there is no node, or when nothing
    bounds some node (it holds any number of them, as far as is known)."""
    best: Fit | None = None
    for found in fits:
        if found.most is None:
            return None
        if best is None or found.most > (best.most or 0):
            best = found
    return best


@dataclass(frozen=True, slots=True)
class Room:
    """One resource on the node of a pool that has the most of it, and what the pool's DaemonSets take of it on every
    node: each node of the pool has at most ``free`` of it for other Pods."""

    resource: str
    node: Node
    allocatable: Decimal
    daemons: Decimal  # what the DaemonSets request of every node together (one Pod slot each)
    secret: bool  # that total comes from a secret value

    @property
    def overflows(self) -> bool:
        """The DaemonSets alone request more than a node has."""
        return self.daemons > self.allocatable

    @property
    def free(self) -> Decimal:
        return self.allocatable - self.daemons


def largest(nodes: Iterable[Node], resource: str) -> Node | None:
    """The node with the most of a resource allocatable (the first such): each node of its pool has at most that;
    None when some node's allocatable of it is not known, or there is no node."""
    best: tuple[Decimal, Node] | None = None
    for node in nodes:
        allocatable = node.allocatable(resource)
        if allocatable is None:
            return None
        if best is None or allocatable > best[0]:
            best = (allocatable, node)
    return best[1] if best is not None else None


def room(nodes: Iterable[Node], resource: str, taken: tuple[Decimal, bool, Unknown | None]) -> Room | Unknown | None:
    """The resource's room on the pool's largest node for it, after ``taken`` (what its DaemonSets request: amount,
    secret, the first unknown); None when some node's allocatable of it is not known (or there is no node),
    Unknown when a DaemonSet's request is not."""
    node = largest(nodes, resource)
    if node is None:
        return None
    allocatable = node.allocatable(resource)
    assert allocatable is not None
    daemons, secret, unknown = taken
    if unknown is not None:
        return unknown
    return Room(resource, node, allocatable, daemons, secret)
