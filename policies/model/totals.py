"""A pool's totals at its maxSize, as data: what pool-capacity judges and workload-rollout-fits adds one Pod to, and
what both say a fix needs (issue 57: each summed on its own, and pool-capacity's "raise maxSize to at least 11" came
from the total of cores where the packing needs 20 nodes: one 1-CPU Pod fits a t3.medium node).

Per resource (CPU, memory, ephemeral storage, GPUs and Pod slots), on the pool's node that has the most of it: maxSize
x its allocatable against the workloads the totals count (their replicas x one Pod's request) and maxSize x what the
DaemonSets take of every node (SPEC 11: a necessary condition). Per workload, its packing: one node holds at most
floor(what it has left after the DaemonSets / one Pod's request) of its identical Pods (fit.py), so its Pods need
ceil(replicas / that) nodes however the others pack. The nodes the Pods need are at least the largest of those, and
that is the number a fix names.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from typing import Any

from ..platforms.quantity import CPU, PODS
from .devices import claim_users
from .fit import CHECKED, Fit
from .loads import Placed, PoolLoad, counted, pool_nodes
from .memo import PerStack
from .network import Limit, address_limit
from .nodes import Node
from .pool import Option, Pool
from .stack import Stack
from .values import Unknown


def _ceiling(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


@dataclass(frozen=True, slots=True)
class Row:
    """One resource of the pool at maxSize."""

    resource: str
    node: Node  # the pool's node with the most of it (each node has at most its allocatable)
    allocatable: Decimal  # a node's
    daemons: Decimal  # what the DaemonSets request of every node together (a Pod slot each)
    demand: Decimal  # what the counted workloads' replicas request together
    consumers: tuple[tuple[Decimal, Placed, int], ...]  # each counted workload's share, largest first
    secret: bool  # a secret is in the arithmetic
    size: int
    # of a DRA class: the devices of the shared ResourceClaims whose every Pod is counted here (in ``demand``, once
    # each: a shared claim is allocated once, on the node of every Pod that names it), and their names
    shared: Decimal = Decimal(0)
    shared_claims: tuple[str, ...] = ()

    @property
    def supply(self) -> Decimal:
        return self.size * self.allocatable

    @property
    def used(self) -> Decimal:
        return self.demand + self.size * self.daemons

    @property
    def free(self) -> Decimal:
        """What a node has left after its DaemonSets."""
        return self.allocatable - self.daemons

    @property
    def full(self) -> bool:
        """What is placed on the pool does not fit its maxSize nodes."""
        return self.used > self.supply

    @property
    def overflows(self) -> bool:
        """The DaemonSets alone request more than a node has (workload-fits-pool reports it on each of them)."""
        return self.daemons > self.allocatable

    @property
    def needed(self) -> int | None:
        """The nodes this resource's demand needs at least; None when a node has nothing left for it."""
        return _ceiling(self.demand / self.free) if self.free > 0 else None


@dataclass(frozen=True, slots=True)
class Packed:
    """One counted workload's identical Pods on the pool's node that holds the most of them."""

    placed: Placed
    count: int
    fit: Fit  # its fit on that node: ``most`` Pods at most, bound by ``bound``, which has ``free`` left

    @property
    def most(self) -> int:
        return self.fit.most or 0

    @property
    def needed(self) -> int | None:
        """The nodes its Pods need, however the others pack; None when no node holds one (fits-pool's)."""
        return -(-self.count // self.most) if self.most > 0 else None


@dataclass(frozen=True)
class Totals:
    """A pool at maxSize: its nodes, the workloads the totals count and those they leave out (a Pod that fits no node
    of the pool: workload-fits-pool's finding), each resource's row, each workload's packing, and the first value not
    known that keeps a resource from being judged."""

    pool: Pool
    size: int
    nodes: list[tuple[Option, Node]]
    counted: list[tuple[Placed, int]]
    left_out: list[Placed]
    rows: list[Row]
    packed: list[Packed]
    unknown: list[Unknown]  # per resource not judged, the value not known (a request, an allocatable, a DaemonSet's)
    limited: str = ""  # why ``size`` is fewer nodes than its maxSize (its addresses hold no more: network.Limit)
    limit_fix: str = ""  # what lets it have more, as a clause (network.Limit.fix)

    @functools.cached_property
    def kept(self) -> set[int]:
        """The ids of the Placed the totals count (asked once per workload of the pool: made once)."""
        return {id(placed) for placed, _count in self.counted}

    @property
    def full(self) -> bool:
        return any(row.full for row in self.rows)

    @property
    def needed_secret(self) -> bool:
        """Whether a secret is in the arithmetic of :attr:`needed` (a row's, or a packing's request, replicas, node)."""
        return any(row.secret for row in self.rows if row.needed is not None and not row.overflows) or any(
            packed.placed.secret or packed.fit.bound in packed.placed.request.secret
            or (packed.fit.node is not None and packed.fit.bound in packed.fit.node.secret)
            for packed in self.packed if packed.needed is not None)

    @property
    def needed(self) -> int:
        """The nodes the counted Pods need at least: by every resource's total, and by each workload's packing."""
        found = [row.needed for row in self.rows if row.needed is not None and not row.overflows]
        found += [packed.needed for packed in self.packed if packed.needed is not None]
        return max(found, default=0)


# each load's totals, per stack: (the load, its totals) by the load's identity, the platform and the allocatable
# setting (the load is kept, so that its identity is never another's)
_TOTALS: PerStack[Stack, dict[tuple[int, str, str], tuple[PoolLoad, Totals | Unknown | None]]] = PerStack(
    lambda stack: {})


def pool_totals(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any]) -> Totals | Unknown | None:
    """The pool's totals at the nodes it can have (its maxSize, or the fewer its addresses hold: network.py), once per
    stack and load: pool-capacity, workload-rollout-fits and the report read the same object, and a workload's
    rollout room is a lookup in it, never a recount (issue 67: rollout counted a pool at maxSize where capacity
    counted the nodes its addresses hold)."""
    setting = settings.get("allocatable") if isinstance(settings, Mapping) else None
    key = (id(load), platform, json.dumps(setting, sort_keys=True, default=str))
    cache = _TOTALS.of(stack)
    found = cache.get(key)
    if found is None or found[0] is not load:
        found = cache[key] = (load, totals(stack, load, platform, settings, node_limit(stack, load.pool)))
    return found[1]


def node_limit(stack: Stack, pool: Pool) -> Limit | None:
    """The fewest nodes below its maxSize a pool can have: what its addresses hold (network.py) or its cluster's cap
    allows (cluster_cap), whichever is fewer; None when it can have its maxSize."""
    limits = [limit for limit in (address_limit(stack, pool), cluster_cap(stack, pool)) if limit is not None]
    return min(limits, key=lambda limit: limit.nodes) if limits else None


def cluster_cap(stack: Stack, pool: Pool) -> Limit | None:
    """The fewer nodes than its maxSize a pool can have under its cluster's cap on all its nodes' CPU (GKE's
    clusterAutoscaling.resourceLimits, sources/gke.py): the cap less what the cluster's other pools take at their
    minimum size (on their smallest machine), over the cores of this pool's smallest machine. None when the cap allows
    its maxSize, or a size or machine is not known."""
    cluster = stack.cluster_for(pool)
    caps = dict(cluster.provisioning.caps) if cluster is not None and cluster.provisioning else {}
    cap, size = caps.get(CPU), pool.max_size
    if cap is None or cluster is None or not isinstance(size, int):
        return None
    each = _least_cpu(pool)
    if each is None or each <= 0:
        return None
    others = Decimal(0)
    for other in stack.platform_pools:
        if other is pool or stack.cluster_for(other) is not cluster or not isinstance(other.min_size, int):
            continue
        least = _least_cpu(other)
        others += other.min_size * least if least is not None else 0
    room = max(cap - others, Decimal(0))
    nodes = int(room // each)
    if nodes >= size:
        return None
    taken = f" - {_cores(others)} the other pools' minimum nodes take = {_cores(room)}" if others else ""
    return Limit(nodes, f"its {cluster.kind} '{cluster.name}' allows under its cpu limit (clusterAutoscaling."
                        f"resourceLimits: {_cores(cap)}{taken} / {_cores(each)} a node)",
                 fix=f"raise the cpu maximum of {cluster.kind} '{cluster.name}''s clusterAutoscaling.resourceLimits "
                     "(it caps every node of the cluster together)")


def machine_capacities(pool: Pool, resource: str = CPU) -> list[Decimal] | None:
    """The capacity of each of the pool's machines of a resource (CPU in millicores, memory in bytes), None when one is
    not known (or it has none)."""
    found = [option.hardware.capacity.get(resource) for option in pool.options]
    known = [value for value in found if value is not None]
    return known if found and len(known) == len(found) else None


def _least_cpu(pool: Pool) -> Decimal | None:
    """The CPU of the pool's smallest machine (millicores), None when one is not known."""
    found = machine_capacities(pool)
    return min(found) if found else None


def _cores(millicores: Decimal) -> str:
    cores = millicores / 1000
    return f"{cores.normalize():f} core{'' if cores == 1 else 's'}"


def totals(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any],
           limit: Limit | None = None) -> Totals | Unknown | None:
    """The pool's totals at maxSize, over the workloads it counts (``load.workloads`` with a known count above 0):
    Unknown when its size or machine is not known yet, None when it has no size or no machine the catalog knows.
    ``limit``: the fewer nodes its addresses hold (pool-capacity's count)."""
    size = load.pool.max_size
    if not isinstance(size, int):
        return size if isinstance(size, Unknown) else None
    if limit is not None and limit.nodes < size:
        size = limit.nodes
    nodes = pool_nodes(stack, load.pool, platform, settings)
    if nodes is None or isinstance(nodes, Unknown):
        return nodes
    kept, left_out = counted(load, nodes)
    fitting = {id(placed) for placed in kept}
    unknown: list[Unknown] = []
    chosen: list[tuple[Placed, int]] = []
    for placed in load.workloads:
        count = placed.count
        if isinstance(count, Unknown):
            unknown.append(count)
        elif isinstance(count, int) and count > 0 and id(placed) in fitting:
            chosen.append((placed, count))
        if placed.maybe is not None and id(placed) in fitting:
            unknown.append(placed.maybe)  # (an HPA may keep more of its Pods than counted)
    rows: list[Row] = []
    shared = _shared_claims(stack, chosen)
    for resource in (*CHECKED, PODS):
        row = _row(load, nodes, resource, size, chosen, shared.get(resource))
        if isinstance(row, Unknown):
            unknown.append(row)
        elif row is not None:
            rows.append(row)
    packed = []
    for placed, count in chosen:
        best = load.packing(nodes, placed.request)
        if best is not None and best.most is not None and best.bound is not None and best.free is not None:
            packed.append(Packed(placed, count, best))
    limiting = limit is not None and limit.nodes == size
    return Totals(load.pool, size, nodes, chosen, left_out, rows, packed, unknown,
                  limit.why if limit is not None and limiting else "", limit.fix if limit is not None and limiting
                  else "")


@dataclass(frozen=True)
class Demand:
    """What workloads' replicas request of one resource together: the one sum pool-capacity's totals, a cluster's caps
    and a NodePool's limits read."""

    total: Decimal
    consumers: tuple[tuple[Decimal, Placed, int], ...]  # each workload that requests some: its share, largest first
    secret: bool  # a secret is in it
    unknown: Unknown | None = None  # the first request of it not known yet (counted as nothing)


def demand(chosen: Iterable[tuple[Placed, int]], resource: str) -> Demand:
    """What the workloads (each with the replicas counted) request of ``resource`` together, a Pod slot each for
    PODS; a request not known yet counts nothing and is kept, so the total is never overstated."""
    total, consumers, secret, unknown = Decimal(0), [], False, None
    for placed, count in chosen:
        if resource != PODS and resource in placed.request.unknown:
            unknown = unknown or placed.request.unknown[resource]
            continue
        each = Decimal(1) if resource == PODS else placed.request.get(resource)
        if each > 0:
            total += count * each
            consumers.append((count * each, placed, count))
            secret = secret or placed.secret or (resource != PODS and resource in placed.request.secret)
    consumers.sort(key=lambda item: (-item[0], item[1].workload.name))
    return Demand(total, tuple(consumers), secret, unknown)


# every workload that names each shared ResourceClaim, the stack's and those of the stacks it reads: gathered once per
# stack, not once per pool
_CLAIM_USERS: PerStack[Stack, dict[Any, list[Any]]] = PerStack(
    lambda stack: claim_users((*stack.workloads, *stack.foreign_workloads), running_only=False))


def _shared_claims(stack: Stack, chosen: list[tuple[Placed, int]]) -> dict[str, tuple[Decimal, tuple[str, ...], bool]]:
    """Per DRA class, the devices of the shared ResourceClaims every workload naming which is counted here (``chosen``),
    their names, and whether a secret is in the amount: each claim once, wherever its Pods are many (a claim some
    workload of another pool, or not counted, names is counted by neither: it may be on that pool's node)."""
    counted_ids = {id(placed.workload) for placed, _count in chosen}
    keys = {key for placed, _count in chosen if placed.workload.claims is not None
            for key, asked in placed.workload.claims.sharing.items() if asked}
    if not keys:
        return {}
    users = _CLAIM_USERS.of(stack)
    found: dict[str, tuple[Decimal, tuple[str, ...], bool]] = {}
    for key in sorted(keys, key=lambda key: str(key[1])):
        naming = users.get(key, [])
        if not naming or any(id(workload) not in counted_ids for workload in naming):
            continue
        hidden = {device_class for workload in naming for device_class in workload.claims.secret}
        for device_class, value in naming[0].claims.sharing[key].items():
            total, names, secret = found.get(device_class, (Decimal(0), (), False))
            found[device_class] = (total + value, (*names, key[1]), secret or device_class in hidden)
    return found


def _row(load: PoolLoad, nodes: list[tuple[Option, Node]], resource: str, size: int,
         chosen: list[tuple[Placed, int]], shared: tuple[Decimal, tuple[str, ...], bool] | None = None
         ) -> Row | Unknown | None:
    found = load.room(nodes, resource)
    if found is None:
        return next((node.unknown[resource] for _option, node in nodes if resource in node.unknown), None)
    if isinstance(found, Unknown):
        return found
    summed = demand(chosen, resource)
    if summed.unknown is not None:
        return summed.unknown
    extra, names, hidden = shared if shared is not None else (Decimal(0), (), False)
    return Row(resource, found.node, found.allocatable, found.daemons, summed.total + extra, summed.consumers,
               summed.secret or found.secret or resource in found.node.secret or hidden, size, extra, names)
