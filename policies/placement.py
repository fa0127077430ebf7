"""The whole stack: clusters, workloads, and where each workload's Pods must land.

:func:`parse_stack` reads the stack policies' resources once, in one pass. The resolutions here are
shared: a workload's cluster and pool (workload-pool-placement, workload-node-architecture), the
dynamic container pool (dynamic-container-pool), the architecture its Pods need
(workload-node-architecture, workload-architecture-pin).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cluster import Cluster, Pool, is_compute_cluster, parse_cluster
from .findings import Violation
from .values import Unknown, is_secret, undetermined
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
    derived: dict[str, Any] = field(default_factory=dict)  # what several stack policies compute from it, once

    def add_cluster(self, entry: ClusterEntry) -> None:
        self.clusters.append(entry)
        cluster_id = entry.cluster.id if isinstance(entry.cluster, Cluster) else entry.cluster
        if isinstance(cluster_id, Unknown):
            self.unknown_id = self.unknown_id or cluster_id
        elif isinstance(cluster_id, str):
            self.by_id.setdefault(cluster_id, []).append(entry)


def _has_key(props: Any, *keys: str) -> bool:
    """``key in props`` without reading the value (which raises when it is unknown)."""
    return isinstance(props, Mapping) and any(key in keys for key in props)


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
    for resource in resources:
        resource_type = resource.resource_type
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
    return stack


# --- architecture the stack's images are built for -------------------------------------------

MIXED = "mixed"


@dataclass(frozen=True)
class DeclaredArchitectures:
    architectures: tuple[str, ...]  # the known ones the pools declare, sorted
    unknown: Unknown | None

    @property
    def single(self) -> str | Unknown | None:
        """The one declared architecture, None when none is declared, MIXED, or Unknown."""
        if len(self.architectures) > 1:
            return MIXED
        if self.unknown is not None:
            return self.unknown
        return next(iter(self.architectures), None)


def declared_architectures(stack: Stack) -> DeclaredArchitectures:
    declared: dict[str, str] = {}  # architecture -> as declared; a secret declaration wins, so it stays secret
    unknown: Unknown | None = None
    for entry in stack.clusters:
        cluster = entry.cluster
        pools = cluster.pools if isinstance(cluster, Cluster) else cluster
        if isinstance(pools, Unknown):
            unknown = unknown or pools
            continue
        for pool in pools:
            if isinstance(pool.architecture, Unknown):
                unknown = unknown or pool.architecture
            elif pool.architecture is not None and (is_secret(pool.architecture)
                                                    or str(pool.architecture) not in declared):
                declared[str(pool.architecture)] = pool.architecture
    return DeclaredArchitectures(tuple(declared[name] for name in sorted(declared)), unknown)


# --- placement -------------------------------------------------------------------------------

Placement = tuple[ClusterEntry, Pool] | Violation | Unknown | None


def _ids(stack: Stack) -> str:
    return ", ".join(f"'{entry.label}'" for entry in stack.clusters)


def _pool_ids(pools: tuple[Pool, ...]) -> str:
    return ", ".join(f"'{pool.group_id}'" for pool in pools if isinstance(pool.group_id, str)) or "none"


def resolve_placement(stack: Stack, workload: Workload) -> Placement:
    """The cluster and pool a workload lands on: the one its labels name, else the only cluster's
    'general' pool or its only pool.

    None means default scheduling (the stack declares no ComputeCluster and the workload
    selects nothing).
    """
    subject, cluster_ref, pool_ref = workload.subject, workload.cluster, workload.pool
    if isinstance(cluster_ref, Unknown):
        return cluster_ref
    if cluster_ref is not None:
        matches = stack.by_id.get(cluster_ref, [])
        if len(matches) > 1:
            return Violation(f"{subject}: '{CLUSTER_KEY}' names ComputeCluster '{cluster_ref}', but more than one "
                             "ComputeCluster has that id; give each ComputeCluster a unique id", workload.urn)
        if not matches:
            if stack.unknown_id is not None:
                return stack.unknown_id
            return Violation(f"{subject}: '{CLUSTER_KEY}' references missing ComputeCluster '{cluster_ref}'; "
                             f"use the id of a ComputeCluster in this stack ({_ids(stack) or 'there is none'})",
                             workload.urn)
        entry = matches[0]
    elif not stack.clusters:
        if isinstance(pool_ref, Unknown):
            return pool_ref
        if pool_ref is not None:
            return Violation(f"{subject}: '{POOL_KEY}' selects pool '{pool_ref}' without a ComputeCluster; "
                             "declare a ComputeCluster or remove the label", workload.urn)
        return None
    elif len(stack.clusters) > 1:
        return Violation(f"{subject}: the stack declares {len(stack.clusters)} ComputeClusters ({_ids(stack)}); "
                         f"select one explicitly with the label '{CLUSTER_KEY}'", workload.urn)
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
    return Violation(f"{subject}: references missing or ambiguous pool '{wanted}' in ComputeCluster "
                     f"'{cluster.label}' (its pools: {_pool_ids(pools)}); set the label '{POOL_KEY}' to one "
                     "of them", workload.urn)


# --- dynamic containers ----------------------------------------------------------------------

def resolve_dynamic_pool(stack: Stack, workload: Workload) -> Placement:
    """The pool dynamic containers land in: the dynamic container pool (else 'general') of the
    stack's one ComputeCluster, which the workload's labels may repeat but never contradict."""
    subject = workload.subject
    if not stack.clusters:
        return None
    if len(stack.clusters) > 1:
        return Violation(f"{subject}: dynamic containers need exactly one ComputeCluster, but the stack declares "
                         f"{len(stack.clusters)} ({_ids(stack)}); keep one ComputeCluster or give this workload "
                         "another role", workload.urn)
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
        source = "its dynamicContainerPool" if name is not None else "the default 'general'"
        return Violation(f"{subject}: ComputeCluster '{cluster.label}' has no dynamic container pool '{wanted}' "
                         f"({source}); add that pool or set dynamicContainerPool to one of its pools "
                         f"({_pool_ids(cluster.pools)})", workload.urn)
    if isinstance(workload.cluster, str) and workload.cluster != cluster.id:
        return Violation(f"{subject}: '{CLUSTER_KEY}' names '{workload.cluster}', but dynamic containers land on "
                         f"ComputeCluster '{cluster.label}'; remove the label or set it to that id", workload.urn)
    if isinstance(workload.pool, str) and workload.pool != wanted:
        return Violation(f"{subject}: '{POOL_KEY}' names pool '{workload.pool}', but dynamic containers land in "
                         f"the dynamic container pool '{wanted}'; remove the label or set it to '{wanted}'",
                         workload.urn)
    return entry, pool


# --- node architecture -----------------------------------------------------------------------

def needed_architecture(stack: Stack, declared: DeclaredArchitectures,
                        workload: Workload) -> tuple[str, str] | Unknown | None:
    """(architecture, why) the workload's Pods need.

    Its pool's declared architecture, else the stack's single declared one (also for workers
    and for workloads whose placement failed); with several declared, only a pool's own.
    """
    single = declared.single
    if single is None:
        return None
    if isinstance(single, str) and single != MIXED:
        return single, f"the stack's compute pools declare {single}"
    if isinstance(workload.role, Unknown):
        return workload.role
    placement: Placement = None
    if workload.role == "dynamic":
        placement = resolve_dynamic_pool(stack, workload)
    elif workload.role in ("container", "daemon"):
        placement = resolve_placement(stack, workload)
    if isinstance(placement, tuple):
        entry, pool = placement
        if isinstance(pool.architecture, Unknown):
            return pool.architecture
        if pool.architecture is not None:
            return pool.architecture, f"{pool.label} of ComputeCluster '{entry.label}' declares {pool.architecture}"
    if isinstance(single, Unknown):
        return single
    if isinstance(placement, Unknown):
        return placement
    return None  # several architectures declared, and no pool of its own says which
