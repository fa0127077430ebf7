"""The whole stack: clusters, workloads, and where each workload's Pods must land.

:func:`parse_stack` reads the stack policies' resources once, in one pass. The resolutions here are
shared: a workload's cluster and pool (workload-pool-placement, workload-node-architecture), the
dynamic container pool (dynamic-container-pool), the architecture its Pods need
(workload-node-architecture, workload-architecture-pin).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .cluster import Cluster, Pool, is_compute_cluster, parse_cluster
from .platform_pools import PlatformPool, Schedule
from .pools import PoolMachine, pool_machine
from .sources import karpenter, parse_platform_pool
from .values import Unknown, is_mapping, is_secret, undetermined
from .workloads import (
    CLUSTER_KEY,
    POOL_KEY,
    Autoscaler,
    HelmRelease,
    Workload,
    parse_autoscaler,
    parse_helm_release,
    parse_workload,
)


@dataclass(frozen=True)
class ClusterEntry:
    urn: str
    name: str
    cluster: Cluster | Unknown

    @property
    def label(self) -> str:
        if isinstance(self.cluster, Cluster):
            return self.cluster.label
        return self.name


@dataclass
class Stack:
    clusters: list[ClusterEntry] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    helm_releases: list[HelmRelease] = field(default_factory=list)
    autoscalers: list[Autoscaler] = field(default_factory=list)
    by_id: dict[str, list[ClusterEntry]] = field(default_factory=dict)
    unknown_id: Unknown | None = None
    platform_pools: list[PlatformPool] = field(default_factory=list)  # pools the platforms declare (SPEC 14)
    derived: dict[Any, Any] = field(default_factory=dict)  # what several stack policies compute from it, once

    def add_cluster(self, entry: ClusterEntry) -> None:
        self.clusters.append(entry)
        cluster_id = entry.cluster.id if isinstance(entry.cluster, Cluster) else entry.cluster
        if isinstance(cluster_id, Unknown):
            self.unknown_id = self.unknown_id or cluster_id
        elif isinstance(cluster_id, str):
            self.by_id.setdefault(cluster_id, []).append(entry)


def _has_key(props: Any, *keys: str) -> bool:
    """``key in props`` without reading the value (which raises when it is unknown)."""
    return is_mapping(props) and any(key in keys for key in props)


def cluster_configuration(props: Any, urn: str, name: str, seen_inputs: Mapping[str, Cluster]) -> Cluster | Unknown:
    """A ComputeCluster's configuration: its outputs when they hold it, else its inputs as Analyze saw them."""
    if _has_key(props, "capacityGroups", "capacity_groups"):
        return parse_cluster(props, name).model
    seen = seen_inputs.get(urn)
    if seen is not None:
        return seen
    return undetermined(f"the configuration of ComputeCluster '{name}' is not available: its outputs "
                        "hold no capacityGroups and its inputs were not analyzed in this run")


def parse_stack(resources: Iterable[Any], seen_inputs: Mapping[str, Cluster]) -> Stack:
    """The stack policies' resources read in one pass (PackState.stack parses once per request)."""
    stack = Stack()
    nodepools: list[Any] = []
    node_classes: dict[str, Any] = {}
    for resource in resources:
        resource_type = resource.resource_type
        if karpenter.is_nodepool(resource_type):
            nodepools.append(resource)
            continue
        pool = None if karpenter.is_nodepool(resource_type) else \
            parse_platform_pool(resource_type, resource.props, resource.urn, resource.name)
        if pool is not None:  # a node group (NodePools wait for the node classes they reference)
            stack.platform_pools.append(pool)
            continue
        if karpenter.is_node_class(resource_type):
            class_name = karpenter.node_class_name(resource.props)
            if class_name is not None:
                node_classes[class_name] = resource.props
            continue
        if is_compute_cluster(resource_type):
            config = cluster_configuration(resource.props, resource.urn, resource.name, seen_inputs)
            stack.add_cluster(ClusterEntry(resource.urn, resource.name, config))
            continue
        workload = parse_workload(resource_type, resource.props, resource.urn, resource.name)
        if workload is not None:
            stack.workloads.append(workload)
            continue
        release = parse_helm_release(resource_type, resource.props, resource.urn, resource.name)
        if release is not None:
            stack.helm_releases.append(release)
            continue
        autoscaler = parse_autoscaler(resource_type, resource.props, resource.urn, resource.name)
        if autoscaler is not None:
            stack.autoscalers.append(autoscaler)
    stack.platform_pools.extend(karpenter.parse_nodepool(resource.props, resource.urn, resource.name, node_classes)
                                for resource in nodepools)
    # by name: the engine registers a ConfigGroup's children in no fixed order, and messages list the pools
    stack.platform_pools.sort(key=lambda pool: (pool.name, pool.urn))
    return stack


# --- architecture the stack's images are built for -------------------------------------------

MIXED = "mixed"


@dataclass(frozen=True)
class DeclaredArchitectures:
    """The architectures the stack's pools run (declared by a profile, or provided by a machine)."""

    architectures: tuple[str, ...]  # the known ones, sorted
    unknown: Unknown | None
    platform: str | None = None  # the platform they were derived on (policies/model/pools.py)
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
    """Every pool's architecture (policies/model/pools.py), derived once per stack and platform."""
    key = ("architectures", platform)
    cached = stack.derived.get(key)
    if isinstance(cached, DeclaredArchitectures):
        return cached
    declared: dict[str, str] = {}  # architecture -> as found; a secret one wins, so it stays secret
    unknown: Unknown | None = None
    provided = False
    for entry in stack.clusters:
        cluster = entry.cluster
        pools = cluster.pools if isinstance(cluster, Cluster) else cluster
        if isinstance(pools, Unknown):
            unknown = unknown or pools
            continue
        for pool in pools:
            found = pool_machine(pool, platform)
            architecture = found.architecture
            if isinstance(architecture, Unknown):
                unknown = unknown or architecture
            elif architecture is not None:
                provided = provided or found.provided
                if is_secret(architecture) or str(architecture) not in declared:
                    declared[str(architecture)] = architecture
    result = DeclaredArchitectures(tuple(declared[name] for name in sorted(declared)), unknown, platform, provided)
    stack.derived[key] = result
    return result


# --- placement ----------------------------------------------------------------------------------
# The resolvers say why a workload does not resolve as typed outcomes, with no words: the policy that
# reports it writes the message (workload-pool-placement, dynamic-container-pool).

@dataclass(frozen=True)
class DuplicateClusterId:
    """The cluster label names an id that more than one ComputeCluster has."""

    cluster_id: str


@dataclass(frozen=True)
class MissingCluster:
    """The cluster label names no ComputeCluster of the stack."""

    cluster_id: str
    known: tuple[str, ...]  # the stack's ComputeClusters, as labelled


@dataclass(frozen=True)
class PoolWithoutCluster:
    """A pool label in a stack with no ComputeCluster."""

    pool_id: str


@dataclass(frozen=True)
class ClusterNotChosen:
    """Several ComputeClusters, and no cluster label."""

    known: tuple[str, ...]


@dataclass(frozen=True)
class MissingPool:
    """The pool wanted (the label's, else 'general') is not a pool of the cluster."""

    pool_id: str
    cluster: str
    pools: tuple[str, ...]


@dataclass(frozen=True)
class DynamicNeedsOneCluster:
    known: tuple[str, ...]


@dataclass(frozen=True)
class NoDynamicPool:
    """The dynamic container pool (its setting's, else 'general') is not a pool of the one cluster."""

    pool_id: str
    cluster: str
    source: Literal["setting", "default"]
    pools: tuple[str, ...]


@dataclass(frozen=True)
class LabelContradicts:
    """A dynamic workload's cluster or pool label names another place than the dynamic container pool."""

    key: str  # CLUSTER_KEY or POOL_KEY
    named: str
    cluster: str
    pool_id: str


Unresolved = (DuplicateClusterId | MissingCluster | PoolWithoutCluster | ClusterNotChosen | MissingPool
              | DynamicNeedsOneCluster | NoDynamicPool | LabelContradicts)
Placement = tuple[ClusterEntry, Pool] | Unresolved | Unknown | None
UNRESOLVED = (DuplicateClusterId, MissingCluster, PoolWithoutCluster, ClusterNotChosen, MissingPool,
              DynamicNeedsOneCluster, NoDynamicPool, LabelContradicts)


def _labels(stack: Stack) -> tuple[str, ...]:
    return tuple(entry.label for entry in stack.clusters)


def _pool_ids(pools: tuple[Pool, ...]) -> tuple[str, ...]:
    return tuple(pool.group_id for pool in pools if isinstance(pool.group_id, str))


def resolve_placement(stack: Stack, workload: Workload) -> Placement:
    """The cluster and pool a workload lands on: the one its labels name, else the only cluster's
    'general' pool or its only pool.

    None means default scheduling (the stack declares no ComputeCluster and the workload
    selects nothing).
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
    for pool in pools:
        if pool.group_id == wanted:
            return entry, pool
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
    held = stack.derived.get("held")
    if held is None or len(held) != len(stack.workloads):
        # by identity, for the stack's own workloads only: the stack keeps them alive, so no other object has
        # their id (a workload analyzed alone against the ComputeClusters seen so far is resolved, not kept)
        held = stack.derived["held"] = {id(own) for own in stack.workloads}
    if id(workload) not in held:
        return _resolve(stack, workload)
    resolved = stack.derived.setdefault("resolved", {})
    if id(workload) not in resolved:
        resolved[id(workload)] = _resolve(stack, workload)
    result: Placement = resolved[id(workload)]
    return result


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

@dataclass(frozen=True)
class Need:
    """The architecture a workload's Pods need, and what says so: its pool (``pool`` and ``entry``), else
    the stack's single declared architecture (both None)."""

    architecture: str
    pool: Pool | None = None
    entry: ClusterEntry | None = None
    machine: PoolMachine | None = None  # the pool's machine, when its architecture is the machine's
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
        entry, pool = placement
        found = pool_machine(pool, declared.platform)
        if isinstance(found.architecture, Unknown):
            return found.architecture
        if found.architecture is not None:
            return Need(found.architecture, pool, entry, found if found.provided else None)
    if isinstance(single, Unknown):
        return single
    if isinstance(placement, Unknown):
        return placement
    return None  # several architectures declared, and no pool of its own says which


# --- pools the platforms declare ------------------------------------------------------------------

def on_platform_pools(stack: Stack, workload: Workload) -> bool | Unknown:
    """Whether the scheduler's rules place the workload's Pods on the stack's platform pools (SPEC 14): the stack
    declares some, and the workload carries no compute.alien.dev placement, runs Pods that wait for a node
    (a DaemonSet's only go where they fit) and leaves them to the default scheduler."""
    if not stack.platform_pools or workload.patch or workload.kind == "DaemonSet" or not workload.has_pod_spec:
        return False
    for label in (workload.cluster, workload.pool):
        if isinstance(label, Unknown):
            return label
        if label is not None:
            return False
    bypassed = workload.scheduler_bypassed
    if isinstance(bypassed, Unknown):
        return bypassed
    return not bypassed


def schedule_of(stack: Stack, workload: Workload) -> Schedule:
    """The workload's Pods against every platform pool of the stack, judged once per stack and workload."""
    schedules = stack.derived.setdefault("schedules", {})
    found = schedules.get(id(workload))
    if found is None or found[0] is not workload:
        found = schedules[id(workload)] = (workload, Schedule(tuple(stack.platform_pools), workload.scheduling))
    schedule: Schedule = found[1]
    return schedule
