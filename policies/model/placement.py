"""Where each workload's Pods must land by the compute.alien.dev labels (SPEC section 2, seed K): a workload's
ComputeCluster and pool, the dynamic container pool, and the architecture its Pods need.

The resolutions here are shared: a workload's cluster and pool (workload-pool-placement, workload-node-architecture),
the dynamic container pool (dynamic-container-pool), the architecture its Pods need (workload-node-architecture,
workload-architecture-pin). Where a workload lands by the scheduler's rules instead is policies/model/landing.py's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from .cluster import CapacityGroup, Cluster, ClusterEntry
from .memo import PerStack
from .pool import Machines, Pool
from .stack import Stack
from .values import Unknown, is_secret
from .workloads import CLUSTER_KEY, POOL_KEY, Workload

# --- architecture the stack's images are built for -------------------------------------------

MIXED = "mixed"


@dataclass(frozen=True, slots=True)
class DeclaredArchitectures:
    """The architectures the stack's pools run (declared by a profile, or provided by a machine)."""

    architectures: tuple[str, ...]  # the known ones, sorted
    unknown: Unknown | None
    platform: str | None = None  # the platform they were derived on (policies/model/sources/compute_cluster.py)
    provided: bool = False  # some pool's architecture is its machine's, not declared by its profile

    @property
    def single(self) -> str | Unknown | None:
        """The one architecture, None when no pool has one, MIXED, or Unknown."""
        if len(self.architectures) > 1:
            return MIXED
        if self.unknown is not None:
            return self.unknown
        return next(iter(self.architectures), None)


def declared_architectures(stack: Stack, platform: str | None) -> DeclaredArchitectures:
    """Every ComputeCluster pool's architecture (policies/model/sources/compute_cluster.py), derived once per stack
    and platform."""
    kept = _ARCHITECTURES.of(stack)
    cached = kept.get(platform)
    if cached is not None:
        return cached
    declared: dict[str, str] = {}  # architecture -> as found; a secret one wins, so it stays secret
    unknown: Unknown | None = None
    provided = False
    by_entry: dict[int, list[Pool]] = {}
    for pool in stack.pools:
        if pool.owner is not None:  # a ComputeCluster's pool
            by_entry.setdefault(id(pool.owner), []).append(pool)
    for entry in stack.clusters:
        cluster = entry.cluster
        pools = cluster.pools if isinstance(cluster, Cluster) else cluster
        if isinstance(pools, Unknown):
            unknown = unknown or pools
            continue
        for pool in by_entry.get(id(entry), ()):
            found = pool.machines_on(platform)
            architecture = found.architecture
            if isinstance(architecture, Unknown):
                unknown = unknown or architecture
            elif architecture is not None:
                provided = provided or found.provided
                if is_secret(architecture) or str(architecture) not in declared:
                    declared[str(architecture)] = architecture
    result = DeclaredArchitectures(tuple(declared[name] for name in sorted(declared)), unknown, platform, provided)
    kept[platform] = result
    return result


# --- placement ----------------------------------------------------------------------------------
# The resolvers say why a workload does not resolve as typed outcomes, with no words: the policy that
# reports it writes the message (workload-pool-placement, dynamic-container-pool).

@dataclass(frozen=True, slots=True)
class DuplicateClusterId:
    """The cluster label names an id that more than one ComputeCluster has."""

    cluster_id: str


@dataclass(frozen=True, slots=True)
class MissingCluster:
    """The cluster label names no ComputeCluster of the stack."""

    cluster_id: str
    known: tuple[str, ...]  # the stack's ComputeClusters, as labelled


@dataclass(frozen=True, slots=True)
class PoolWithoutCluster:
    """A pool label in a stack with no ComputeCluster."""

    pool_id: str


@dataclass(frozen=True, slots=True)
class ClusterNotChosen:
    """Several ComputeClusters, and no cluster label."""

    known: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MissingPool:
    """The pool wanted (the label's, else 'general') is not a pool of the cluster."""

    pool_id: str
    cluster: str
    pools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DynamicNeedsOneCluster:
    known: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NoDynamicPool:
    """The dynamic container pool (its setting's, else 'general') is not a pool of the one cluster."""

    pool_id: str
    cluster: str
    source: Literal["setting", "default"]
    pools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LabelContradicts:
    """A dynamic workload's cluster or pool label names another place than the dynamic container pool."""

    key: str  # CLUSTER_KEY or POOL_KEY
    named: str
    cluster: str
    pool_id: str


Unresolved = (DuplicateClusterId | MissingCluster | PoolWithoutCluster | ClusterNotChosen | MissingPool
              | DynamicNeedsOneCluster | NoDynamicPool | LabelContradicts)
Placement = tuple[ClusterEntry, CapacityGroup] | Unresolved | Unknown | None
UNRESOLVED = (DuplicateClusterId, MissingCluster, PoolWithoutCluster, ClusterNotChosen, MissingPool,
              DynamicNeedsOneCluster, NoDynamicPool, LabelContradicts)


def _labels(stack: Stack) -> tuple[str, ...]:
    return tuple(entry.label for entry in stack.clusters)


def _pool_ids(pools: tuple[CapacityGroup, ...]) -> tuple[str, ...]:
    return tuple(pool.group_id for pool in pools if isinstance(pool.group_id, str))


def resolve_placement(stack: Stack, workload: Workload) -> Placement:
    """The cluster and pool a workload lands on: the one its labels name, else the only cluster's
    'general' pool or its only pool.

    None means default scheduling: the workload selects nothing, and the stack declares no ComputeCluster or the
    workload's Kubernetes provider targets a cluster resource of the stack (its own pools take it, SPEC 14.2).
    """
    cluster_ref, pool_ref = workload.cluster, workload.pool
    if isinstance(cluster_ref, Unknown):
        return cluster_ref
    if cluster_ref is not None:
        matches = stack.by_id.get(cluster_ref, [])
        if len(matches) > 1:
            return DuplicateClusterId(cluster_ref)
        if not matches:
            if stack.unknown_id is not None:
                return stack.unknown_id
            return MissingCluster(cluster_ref, _labels(stack))
        entry = matches[0]
    elif not stack.clusters:
        if isinstance(pool_ref, Unknown):
            return pool_ref
        if pool_ref is not None:
            return PoolWithoutCluster(pool_ref)
        return None
    elif pool_ref is None and stack.target(workload.urn).declared:
        return None  # no label, and its provider targets a cluster of the stack: its pools take it (SPEC 14.2)
    elif len(stack.clusters) > 1:
        return ClusterNotChosen(_labels(stack))
    else:
        entry = stack.clusters[0]
    cluster = entry.cluster
    if isinstance(cluster, Unknown):
        return cluster
    if isinstance(cluster.pools, Unknown):
        return cluster.pools
    if isinstance(pool_ref, Unknown):
        return pool_ref
    pools = cluster.pools
    wanted = pool_ref if pool_ref is not None else "general"
    named = _groups_by_id(stack, cluster).get(wanted)
    if named is not None:
        return entry, named
    if pool_ref is None and len(pools) == 1:
        return entry, pools[0]
    unknown_pool = next((p.group_id for p in pools if isinstance(p.group_id, Unknown)), None)
    if unknown_pool is not None:
        return unknown_pool
    return MissingPool(wanted, cluster.label, _pool_ids(pools))


# --- dynamic containers ----------------------------------------------------------------------

def resolve_dynamic_pool(stack: Stack, workload: Workload) -> Placement:
    """The pool dynamic containers land in: the dynamic container pool (else 'general') of the
    stack's one ComputeCluster, which the workload's labels may repeat but never contradict."""
    if not stack.clusters:
        return None
    if len(stack.clusters) > 1:
        return DynamicNeedsOneCluster(_labels(stack))
    entry = stack.clusters[0]
    cluster = entry.cluster
    if isinstance(cluster, Unknown):
        return cluster
    name = cluster.dynamic_container_pool
    if isinstance(name, Unknown):
        return name
    if isinstance(cluster.pools, Unknown):
        return cluster.pools
    wanted = name if name is not None else "general"
    pool = next((pool for pool in cluster.pools if pool.group_id == wanted), None)
    if pool is None:
        unknown_pool = next((p.group_id for p in cluster.pools if isinstance(p.group_id, Unknown)), None)
        if unknown_pool is not None:
            return unknown_pool
        return NoDynamicPool(wanted, cluster.label, "setting" if name is not None else "default",
                             _pool_ids(cluster.pools))
    if isinstance(workload.cluster, str) and workload.cluster != cluster.id:
        return LabelContradicts(CLUSTER_KEY, workload.cluster, cluster.label, wanted)
    if isinstance(workload.pool, str) and workload.pool != wanted:
        return LabelContradicts(POOL_KEY, workload.pool, cluster.label, wanted)
    return entry, pool


# --- placement, resolved once ------------------------------------------------------------------

def placement_of(stack: Stack, workload: Workload) -> Placement:
    """Where the workload's Pods land, resolved once per stack and read by every policy, the remediation and
    the report: a container's or daemon's cluster and pool from its labels (resolve_placement), a dynamic
    workload's dynamic container pool (resolve_dynamic_pool); None for a worker or a role that cannot be read,
    the Unknown when the role is not known yet. (Patches resolve too; the policies that skip them say so.)"""
    # for the stack's own workloads only (a workload analyzed alone against the ComputeClusters seen so far is
    # resolved, not kept)
    if workload not in stack.own:
        return _resolve(stack, workload)
    kept = _PLACEMENTS.of(stack)
    found = kept.get(workload, _MISSING)
    if found is _MISSING:
        found = kept[workload] = _resolve(stack, workload)
    return found  # type: ignore[return-value]


_MISSING = object()
# what this module derives, per stack (memo.py): by platform, by workload (it hashes by identity), the
# ComputeCluster pools by (id(group), id(owner)), and each ComputeCluster's pools by their id
_ARCHITECTURES: PerStack[Stack, dict[str | None, DeclaredArchitectures]] = PerStack(lambda stack: {})
_PLACEMENTS: PerStack[Stack, dict[Workload, Placement]] = PerStack(lambda stack: {})
_POOL_INDEX: PerStack[Stack, dict[tuple[int, int], Pool]] = PerStack(lambda stack: _pool_index(stack))
_GROUPS_BY_ID: PerStack[Stack, dict[int, tuple[Cluster, Mapping[str, CapacityGroup]]]] = PerStack(lambda stack: {})


def pool_of(stack: Stack, placed: tuple[ClusterEntry, CapacityGroup]) -> Pool | None:
    """The pool a resolved placement names (by an index of the stack's pools made once: a scan per workload made
    the stack's cost grow with workloads x pools)."""
    entry, group = placed
    return _POOL_INDEX.of(stack).get((id(group), id(entry)))


def _pool_index(stack: Stack) -> dict[tuple[int, int], Pool]:
    index: dict[tuple[int, int], Pool] = {}
    for pool in stack.pools:  # each pool keeps its group and owner alive: their ids name them
        if pool.group is not None and pool.owner is not None:
            index.setdefault((id(pool.group), id(pool.owner)), pool)
    return index


def _groups_by_id(stack: Stack, cluster: Cluster) -> Mapping[str, CapacityGroup]:
    """A ComputeCluster's pools by their id (the first of a repeated id, as a scan finds it), made once per stack."""
    kept = _GROUPS_BY_ID.of(stack)
    found = kept.get(id(cluster))
    if found is None or found[0] is not cluster:
        index: dict[str, CapacityGroup] = {}
        for group in cluster.pools if isinstance(cluster.pools, tuple) else ():
            if isinstance(group.group_id, str):
                index.setdefault(group.group_id, group)
        found = kept[id(cluster)] = (cluster, index)
    return found[1]


def _resolve(stack: Stack, workload: Workload) -> Placement:
    role = workload.role
    if isinstance(role, Unknown):
        return role
    if role == "dynamic":
        return resolve_dynamic_pool(stack, workload)
    if role in ("container", "daemon"):
        return resolve_placement(stack, workload)
    return None


# --- node architecture -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Need:
    """The architecture a workload's Pods need, and what says so: its pool (``pool`` and ``entry``), else
    the stack's single declared architecture (both None)."""

    architecture: str
    pool: CapacityGroup | None = None
    entry: ClusterEntry | None = None
    machine: Machines | None = None  # the pool's machines, when its architecture is the machine's
    provided: bool = False  # the stack's single architecture comes (at least partly) from machines


def needed_architecture(stack: Stack, declared: DeclaredArchitectures, workload: Workload) -> Need | Unknown | None:
    """The architecture the workload's Pods need.

    Its pool's architecture (declared, or provided by its machine), else the stack's single one (also
    for workers and for workloads whose placement failed); with several, only a pool's own.
    """
    single = declared.single
    if single is None:
        return None
    if isinstance(single, str) and single != MIXED:
        return Need(single, provided=declared.provided)
    placement = placement_of(stack, workload)
    if isinstance(workload.role, Unknown):
        return workload.role
    if isinstance(placement, tuple):
        entry, group = placement
        pool = pool_of(stack, placement)
        found = pool.machines_on(declared.platform) if pool is not None else Machines()
        if isinstance(found.architecture, Unknown):
            return found.architecture
        if found.architecture is not None:
            return Need(found.architecture, group, entry, found if found.provided else None)
    if isinstance(single, Unknown):
        return single
    if isinstance(placement, Unknown):
        return placement
    return None  # several architectures declared, and no pool of its own says which
