"""What is placed on each pool: its DaemonSets (one Pod per node) and its other workloads (replicas).

Placement is policy 6's (workload-pool-placement), and dynamic workloads land on the dynamic
container pool (dynamic-container-pool); workers and Patches are on no pool. Computed once per stack
and shared by workload-fits-pool and pool-capacity (and the placement report).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..platforms.catalog import Machine
from ..platforms.quantity import CPU, MEMORY, PODS, STORAGE
from .cluster import Pool
from .nodes import Node, node_of
from .placement import ClusterEntry, Stack, placement_of
from .platform_pools import PlatformPool
from .pods import GPU_RESOURCES, PodRequest, Replicas
from .values import Unknown, is_secret
from .workloads import Autoscaler, Workload


@dataclass(frozen=True)
class Placed:
    """A workload on a pool, with one Pod's request and how many Pods it runs."""

    workload: Workload
    request: PodRequest
    replicas: Replicas
    autoscaler: Autoscaler | None = None  # the HPA whose minReplicas raised the count
    repels: bool = False  # its Pods may not share a node (required anti-affinity on the hostname)

    @property
    def count(self) -> int | Unknown | None:
        own = self.replicas.count
        if self.autoscaler is not None and isinstance(own, int) and isinstance(self.autoscaler.min_replicas, int):
            return max(own, self.autoscaler.min_replicas)
        return own

    @property
    def secret(self) -> bool:
        """Its Pod count comes from a secret value: its replicas, or the minReplicas of the HPA that raised it."""
        return self.replicas.secret or (self.autoscaler is not None and is_secret(self.autoscaler.min_replicas))


@dataclass
class PoolLoad:
    entry: ClusterEntry
    pool: Pool
    daemonsets: list[Placed] = field(default_factory=list)
    workloads: list[Placed] = field(default_factory=list)


@dataclass
class Loads:
    pools: list[PoolLoad]  # every pool of every readable ComputeCluster, in declaration order
    requests: list[tuple[Workload, PodRequest]]  # every workload with a pod spec, Patches included
    unknown: list[Unknown]  # workloads whose pool is not known yet


def loads(stack: Stack) -> Loads:
    """The pools' loads, computed the first time a policy asks for them in this stack."""
    cached = stack.derived.get("loads")
    if isinstance(cached, Loads):
        return cached
    result = _loads(stack)
    stack.derived["loads"] = result
    return result


def _loads(stack: Stack) -> Loads:
    by_pool: dict[tuple[str, int], PoolLoad] = {}
    ordered: list[PoolLoad] = []
    for entry in stack.clusters:
        pools = entry.cluster.pools if not isinstance(entry.cluster, Unknown) else entry.cluster
        if isinstance(pools, Unknown):
            continue
        for pool in pools:
            load = PoolLoad(entry, pool)
            by_pool[(entry.urn, pool.index)] = load
            ordered.append(load)

    autoscalers = _autoscalers(stack.autoscalers)
    requests: list[tuple[Workload, PodRequest]] = []
    unknown: list[Unknown] = []
    for workload in stack.workloads:
        request = workload.request
        if request is None:
            continue
        requests.append((workload, request))
        if workload.patch or workload.role in ("worker", None):
            continue
        if isinstance(workload.role, Unknown):
            unknown.append(workload.role)
            continue
        placement = placement_of(stack, workload)
        if isinstance(placement, Unknown):
            unknown.append(placement)
            continue
        if not isinstance(placement, tuple):
            continue
        entry, pool = placement
        target = by_pool.get((entry.urn, pool.index))
        if target is None:
            continue
        if workload.kind == "DaemonSet":
            target.daemonsets.append(Placed(workload, request, Replicas(None)))  # one Pod per node
            continue
        autoscaler = autoscalers.get((_text(workload.namespace), workload.kind, _text(workload.metadata_name))) \
            if autoscalers else None
        count = workload.replicas
        if autoscaler is not None and not (isinstance(count.count, int) and isinstance(autoscaler.min_replicas, int)
                                           and autoscaler.min_replicas > count.count):
            autoscaler = None
        target.workloads.append(Placed(workload, request, count, autoscaler, workload.repels))
    return Loads(ordered, requests, unknown)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _autoscalers(autoscalers: list[Autoscaler]) -> Mapping[tuple[str | None, Any, str | None], Autoscaler]:
    """(namespace, kind, name) of the target -> the HPA that keeps the most replicas of it."""
    found: dict[tuple[str | None, Any, str | None], Autoscaler] = {}
    for autoscaler in autoscalers:
        if not isinstance(autoscaler.target_name, str) or not isinstance(autoscaler.target_kind, str):
            continue
        if not isinstance(autoscaler.min_replicas, int):
            continue
        key = (_text(autoscaler.namespace), autoscaler.target_kind, autoscaler.target_name)
        other = found.get(key)
        if other is None or (isinstance(other.min_replicas, int) and autoscaler.min_replicas > other.min_replicas):
            found[key] = autoscaler
    return found


def pool_node(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any]) -> Node | Unknown | None:
    """The node of a pool on ``platform`` with a policy's ``allocatable`` setting, built once per stack and
    setting and read by workload-fits-pool, pool-capacity and the report (which draws pool-capacity's)."""
    setting = settings.get("allocatable") if isinstance(settings, Mapping) else None
    key = ("node", id(load.pool), platform, json.dumps(setting, sort_keys=True, default=str))
    if key not in stack.derived:
        cluster = load.entry.cluster
        stack.derived[key] = (load.pool, node_of(load.pool, platform, settings,
                                                 None if isinstance(cluster, Unknown) else cluster.id))
    pool, node = stack.derived[key]
    assert pool is load.pool  # the stack holds its pools for as long as this cache lives
    result: Node | Unknown | None = node
    return result


def platform_node(stack: Stack, pool: PlatformPool, machine: Machine) -> Node | Unknown | None:
    """A node of one machine of a platform pool (SPEC 14), built once per stack and read by every policy."""
    key = ("platform node", id(pool), machine.name)
    if key not in stack.derived:
        stack.derived[key] = (pool, pool.node(machine))
    held, node = stack.derived[key]
    assert held is pool  # the stack holds its pools for as long as this cache lives
    result: Node | Unknown | None = node
    return result


# --- the fit arithmetic workload-fits-pool, pool-capacity and the report share --------------------------

CHECKED = (CPU, MEMORY, STORAGE, *GPU_RESOURCES)  # the resources a Pod requests (and Pod slots besides)


def daemonset_totals(daemonsets: list[Placed], resource: str) -> tuple[Decimal, bool, Unknown | None]:
    """What the DaemonSets request of one node together: amount, secret, first unknown."""
    total = Decimal(0)
    secret = False
    for placed in daemonsets:
        if resource == PODS:
            total += 1
            continue
        unknown = placed.request.unknown.get(resource)
        if unknown is not None:
            return total, secret, unknown
        total += placed.request.get(resource)
        secret = secret or resource in placed.request.secret
    return total, secret, None


def room_per_node(node: Node, daemonsets: list[Placed]) -> dict[str, Decimal]:
    """What a node has left for other Pods after the DaemonSets, per resource that is known."""
    room = {}
    for resource in (*CHECKED, PODS):
        allocatable = node.allocatable(resource)
        daemons, _secret, unknown = daemonset_totals(daemonsets, resource)
        if allocatable is not None and unknown is None:
            room[resource] = allocatable - daemons
    return room


def fits_one_node(placed: Placed, room: dict[str, Decimal]) -> bool:
    """Whether one Pod of the workload fits what a node has left (room_per_node), as far as is known."""
    for resource, left in room.items():
        if resource in placed.request.unknown:
            continue
        each = Decimal(1) if resource == PODS else placed.request.get(resource)
        if each > left:
            return False
    return True


def counted(load: PoolLoad, node: Node) -> tuple[list[Placed], list[Placed]]:
    """The pool's workloads its totals count, and those they leave out: a workload whose one Pod fits no node
    of the pool is workload-fits-pool's finding, and never runs there, so pool-capacity and the report both
    leave it out of what the pool must hold (and both say so)."""
    room = room_per_node(node, load.daemonsets)
    kept: list[Placed] = []
    left: list[Placed] = []
    for placed in load.workloads:
        (kept if fits_one_node(placed, room) else left).append(placed)
    return kept, left
