"""What is placed on each pool: its DaemonSets (one Pod per node) and its other workloads (replicas), and each pool's
nodes. Computed once per stack and platform from each workload's landing (policies/model/landing.py), and shared by
workload-fits-pool, pool-capacity and the placement report (SPEC sections 11 and 14.3).

* A ComputeCluster pool holds what the compute.alien.dev labels place on it (policy 6's resolution; dynamic
  workloads on the dynamic container pool); workers and Patches are on no pool.
* A pool a platform declares holds the DaemonSets the scheduler's rules certainly place on it, and counts the
  workloads only it can take (any other is ``shared``: the report draws it, pool-capacity does not count it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from ..platforms.architectures import node_label
from ..platforms.catalog import UNSUPPORTED_GPUS, Machine, family_of, general_purpose, machines
from ..platforms.quantity import CPU, MEMORY, PODS
from .clusters import KubeCluster
from .fit import CHECKED, Fit, Room, fit, packing, room
from .labels import ARCH, ARCH_BETA, LINUX, OS, OS_BETA, WINDOWS
from .landing import Landing, PoolVerdict, landing
from .memo import PerStack
from .nodes import Node, node_of, override
from .pods import DEVICES, PodRequest, Replicas
from .pool import Option, Pool, machine_hardware
from .stack import Place, Stack
from .values import REDACTED, Unknown, is_secret, undetermined
from .workloads import Autoscaler, Workload


@dataclass(frozen=True, slots=True)
class Placed:
    """A workload on a pool, with one Pod's request and how many Pods it runs."""

    workload: Workload
    request: PodRequest
    replicas: Replicas
    autoscaler: Autoscaler | None = None  # the HPA whose minReplicas raised the count
    repels: bool = False  # its Pods may not share a node (required anti-affinity on the hostname)
    named: bool = False  # on the pool its compute.alien.dev labels name (landing.py), not by the scheduler's rules
    # an HPA that may keep more of its Pods than ``count`` (its namespace, target or minReplicas not known yet): the
    # count stays the certain one, and what the HPA may add is said (maybe_scaling)
    maybe: Unknown | None = None

    @property
    def count(self) -> int | Unknown | None:
        own = self.replicas.count
        if self.autoscaler is not None and isinstance(own, int) and isinstance(self.autoscaler.min_replicas, int):
            return max(own, self.autoscaler.min_replicas)
        return own

    @property
    def secret(self) -> bool:
        """Its Pod count comes from a secret value: its replicas, or the minReplicas of the HPA that raised it, or
        the target that makes that HPA this workload's (SPEC section 4: a count a secret decides is secret)."""
        return self.replicas.secret or self.autoscaler_secret or (
            self.autoscaler is not None and is_secret(self.autoscaler.min_replicas))

    @property
    def autoscaler_secret(self) -> bool:
        """Which workload its HPA scales comes from a secret value (its target's kind, name or namespace)."""
        found = self.autoscaler
        return found is not None and any(is_secret(value)
                                         for value in (found.target_kind, found.target_name, found.namespace))


@dataclass
class PoolLoad:
    pool: Pool
    daemonsets: list[Placed] = field(default_factory=list)
    workloads: list[Placed] = field(default_factory=list)  # what it counts: placed on it, or only it takes
    shared: list[Placed] = field(default_factory=list)  # workloads other pools may take too (drawn, not counted)
    # workloads only it takes of the pools the stack shows, on a cluster that may have others (SPEC 14.2: a note), or
    # only it takes certainly, beside pools that may take them too (``instead``, by id of the Placed: a pool whose
    # labels are not known yet): counted by neither the fit nor the capacity, and said in their notes
    elsewhere: list[Placed] = field(default_factory=list)
    instead: dict[int, tuple[PoolVerdict, ...]] = field(default_factory=dict)
    # of a workload whose cluster the pack cannot tell (SPEC 14.4): only this pool of one candidate cluster takes
    # it (``maybe``), or, a DaemonSet, it runs on every node of this pool if it runs on this cluster
    # (``maybe_daemonsets``): counted by neither the fit nor the capacity, and said in pool-capacity's note
    maybe: list[Placed] = field(default_factory=list)
    maybe_daemonsets: list[Placed] = field(default_factory=list)
    _left: dict[int, tuple[Node, dict[str, Decimal]]] = field(default_factory=dict, repr=False)  # by id(node)
    # each Pod's fit by node and request (most workloads of a stack share one PodRequest: pods.pod_request)
    _fits: dict[tuple[int, int], tuple[Node, PodRequest, Fit]] = field(default_factory=dict, repr=False)
    _taken: dict[str, tuple[Decimal, bool, Unknown | None]] = field(default_factory=dict, repr=False)

    @property
    def used(self) -> bool:
        """Some workload or DaemonSet is placed on it, counted or not."""
        return bool(self.workloads or self.daemonsets or self.shared or self.elsewhere or self.maybe
                    or self.maybe_daemonsets)

    def counting(self, workloads: Sequence[Placed], daemonsets: Sequence[Placed] = ()) -> PoolLoad:
        """This pool's load with more workloads and DaemonSets counted (what it holds if the Pods the pack cannot place
        for certain, ``elsewhere`` or ``maybe``, run on it), for a note's arithmetic."""
        return replace(self, workloads=[*self.workloads, *workloads], daemonsets=[*self.daemonsets, *daemonsets],
                       elsewhere=[], instead={}, maybe=[], maybe_daemonsets=[], _left={}, _taken={}, _fits={})

    @property
    def entry(self) -> Any:
        """A ComputeCluster pool's cluster entry."""
        return self.pool.owner

    def fit(self, node: Node, request: PodRequest) -> Fit:
        """One Pod with ``request`` on a node of the pool, after its DaemonSets (fit.py)."""
        key = (id(node), id(request))
        found = self._fits.get(key)
        if found is not None and found[0] is node and found[1] is request:  # it holds both: the ids are theirs
            return found[2]
        result = fit(request, node, self.left(node))
        self._fits[key] = (node, request, result)
        return result

    def left(self, node: Node) -> Mapping[str, Decimal]:
        """What a node of the pool has left for other Pods after its DaemonSets, per resource that is known (Pod slots
        among them); once per node."""
        left = self._left.get(id(node))
        if left is None or left[0] is not node:
            left = self._left[id(node)] = (node, self._room_per_node(node))
        return left[1]

    def _room_per_node(self, node: Node) -> dict[str, Decimal]:
        """What a node has left for other Pods after the DaemonSets, per resource that is known."""
        left = {}
        for resource in (*CHECKED, PODS):
            allocatable = node.allocatable(resource)
            daemons, _secret, unknown = self.taken(resource)
            if allocatable is not None and unknown is None:
                left[resource] = allocatable - daemons
        return left

    def packing(self, nodes: Sequence[tuple[Option, Node]], request: PodRequest) -> Fit | None:
        """The fit of the pool's node that holds the most of a workload's identical Pods (fit.py, packing)."""
        return packing(self.fit(node, request) for _option, node in nodes)

    def taken(self, resource: str) -> tuple[Decimal, bool, Unknown | None]:
        """What the pool's DaemonSets request of each node together: amount, secret, first unknown (once per
        resource)."""
        found = self._taken.get(resource)
        if found is None:
            found = self._taken[resource] = daemonset_totals(self.daemonsets, resource)
        return found

    def room(self, nodes: Sequence[tuple[Option, Node]], resource: str) -> Room | Unknown | None:
        """The resource on the pool's node with the most of it, after its DaemonSets (fit.py, room)."""
        return room((node for _option, node in nodes), resource, self.taken(resource))

    def taken_known(self) -> dict[str, Decimal]:
        """What the DaemonSets take of each node, per resource whose amount is known."""
        return {resource: found[0] for resource in (*CHECKED, PODS) if (found := self.taken(resource))[2] is None}


@dataclass
class Loads:
    pools: list[PoolLoad]  # every pool, in the stack's order
    requests: list[tuple[Workload, PodRequest]]  # every workload with a pod spec, Patches included
    unknown: list[Unknown]  # workloads whose pool is not known yet


def loads(stack: Stack, platform: str | None = None) -> Loads:
    """The pools' loads, computed the first time a policy asks for them in this stack."""
    kept = _LOADS.of(stack)
    cached = kept.get(platform)
    if cached is None:
        cached = kept[platform] = _loads(stack)
    return cached


def _loads(stack: Stack) -> Loads:
    by_pool = {pool: PoolLoad(pool) for pool in stack.pools}  # a Pool hashes by identity
    autoscalers = autoscaling(stack)
    requests: list[tuple[Workload, PodRequest]] = []
    unknown: list[Unknown] = []
    # other stacks' workloads and DaemonSets take room on their pools too (SPEC 18), and are never reported on: they
    # count only on the pools this stack's own workloads use and on its own pools (an app stack over a platform of
    # thousands of workloads reads the requests of those that share its pools, not of them all: issue 67)
    touched: set[Pool] | None = None
    for workload in (*stack.workloads, *stack.foreign_workloads):
        own = workload in stack.own
        if not own and touched is None:  # the own workloads come first: their pools are known now
            touched = {load.pool for load in by_pool.values() if load.used} | {
                pool for pool in stack.pools if pool.urn not in stack.foreign}
        request = workload.request if own else None
        if own:
            if request is None:
                continue
            requests.append((workload, request))
        if workload.patch:
            continue
        landed = landing(stack, workload)
        if not own:
            if touched is not None and not (any(pool in touched for pool in landed.pools) or (
                    landed.named is not None and landed.named.pool in touched)):
                continue
            request = workload.request
        if request is None:
            continue
        daemon = workload.kind == "DaemonSet"
        named = landed.named
        placed = _placed(workload, request, autoscalers, named is not None, stack) if not daemon else \
            Placed(workload, request, Replicas(None), named=named is not None)
        if isinstance(landed.placement, Unknown):  # its role or its labels' pool is not known yet
            if workload in stack.own:
                unknown.append(landed.placement)
        elif named is not None:  # on the pool its labels name
            target = by_pool[named.pool]
            (target.daemonsets if daemon else target.workloads).append(placed)
        if not landed.scheduled:
            continue
        if named is not None:  # placed on its ComputeCluster pool, and on the platform pools by the scheduler's rules
            placed = replace(placed, named=False)
        taking = landed.taking
        if landed.unknown_cluster:
            _maybe(landed, placed, daemon, by_pool)
            continue
        if daemon:
            for verdict in taking:  # a DaemonSet's Pods run on every node of every pool that takes them
                by_pool[verdict.pool].daemonsets.append(placed)
            continue
        possible = landed.possible
        if len(possible) == 1 and landed.complete:  # if its Pods run at all, they run there
            by_pool[possible[0].pool].workloads.append(placed)
        elif len(possible) == 1:  # there, or on pools the stack does not show
            by_pool[possible[0].pool].elsewhere.append(placed)
        else:
            others = tuple(verdict for verdict in possible if len(taking) == 1 and verdict is not taking[0])
            if others and all(verdict.unknown is not None for verdict in others):
                # there, or on pools that may take it (their labels are not known yet): what fails there is a note
                load = by_pool[taking[0].pool]
                load.elsewhere.append(placed)
                load.instead[id(placed)] = others
            for verdict in taking:
                by_pool[verdict.pool].shared.append(placed)
    return Loads(list(by_pool.values()), requests, unknown)


def _maybe(landed: Landing, placed: Placed, daemon: bool, by_pool: Mapping[Pool, PoolLoad]) -> None:
    """A workload whose cluster the pack cannot tell: on each candidate cluster, what it would place on its pools
    there (a DaemonSet on every pool that takes it; another workload on the one pool that may take it there); drawn
    as shared wherever it may run."""
    seen: set[Pool] = set()  # a pool whose cluster the pack cannot tell is every candidate's
    for candidate in landed.candidates:
        possible = landed.possible_in(candidate)
        pools = [verdict.pool for verdict in possible if verdict.takes] if daemon else \
            [possible[0].pool] if len(possible) == 1 and candidate.complete else []
        for pool in pools:
            if pool not in seen:
                seen.add(pool)
                load = by_pool[pool]
                (load.maybe_daemonsets if daemon else load.maybe).append(placed)
    for verdict in landed.taking:
        by_pool[verdict.pool].shared.append(placed)


Scaled = Mapping[tuple[Place, Any, str | None], Autoscaler]  # an HPA by where its target is (Stack.place), kind, name


def _placed(workload: Workload, request: PodRequest, autoscalers: Scaled, named: bool = False,
            stack: Stack | None = None) -> Placed:
    autoscaler = autoscalers.get((stack.place(workload.urn, workload.namespace), workload.kind,
                                  _text(workload.metadata_name))) if autoscalers and stack is not None else None
    count = workload.replicas
    if autoscaler is not None and not (isinstance(count.count, int) and isinstance(autoscaler.min_replicas, int)
                                       and autoscaler.min_replicas > count.count):
        autoscaler = None
    found = Placed(workload, request, count, autoscaler, workload.repels, named)
    maybe = _maybe_scaled(stack, found) if stack is not None else None
    return replace(found, maybe=maybe) if maybe is not None else found


def _maybe_scaled(stack: Stack, placed: Placed) -> Unknown | None:
    """An HPA that may keep more of the workload's Pods than it counts, in words: one the pack cannot tell is its own
    or not (its namespace or target not known yet, or the workload's namespace) or whose minReplicas is not known yet;
    None when none may (the count stands, as a lower bound either way)."""
    maybe = _MAYBE_SCALING.of(stack)
    own = placed.count
    workload = placed.workload
    if not maybe or not isinstance(own, int):
        return None
    name = _text(workload.metadata_name)
    here: Place | None = None
    for autoscaler, certain, there in (*maybe.get(name, ()), *(maybe.get(None, ()) if name is not None else ())):
        kind = autoscaler.target_kind
        if isinstance(kind, str) and kind != workload.kind:
            continue
        least = autoscaler.min_replicas
        if isinstance(least, int) and least <= own:
            continue
        here = here or stack.place(workload.urn, workload.namespace)
        meets = there.meets(here)
        if (certain and here.known) or meets is False:
            continue  # (autoscaling() decides, or certainly another workload's)
        why = ("its namespace is not known yet" if not there.known else
               "the workload's namespace is not known yet" if not here.known else
               "its scaleTargetRef is not known yet" if not isinstance(kind, str) or not isinstance(
                   autoscaler.target_name, str) else
               "whether it is on the workload's cluster is not known" if not meets else
               "its minReplicas is not known yet")
        many = REDACTED if is_secret(least) else "more" if isinstance(least, Unknown) else f"{least:,}"
        counted = REDACTED if placed.secret else f"{own:,}"
        return undetermined(f"HorizontalPodAutoscaler '{autoscaler.name}' may keep {many} Pods of "
                            f"{workload.subject}, which is counted at {counted} ({why}), so the Pods beyond those "
                            "are not counted")
    return None


def _maybe_autoscalers(stack: Stack) -> dict[str | None, list[tuple[Autoscaler, bool, Place]]]:
    """The HPAs by their target's name (None: not known yet), each with whether autoscaling() places it (its
    namespace, target and minReplicas known: it decides for a workload whose namespace is known) and its place."""
    found: dict[str | None, list[tuple[Autoscaler, bool, Place]]] = {}
    for autoscaler in stack.autoscalers:
        if autoscaler.min_replicas is None:
            continue  # (a minReplicas the API server refuses)
        place = stack.place(autoscaler.urn, autoscaler.namespace)
        certain = isinstance(autoscaler.target_name, str) and isinstance(autoscaler.target_kind, str) and isinstance(
            autoscaler.min_replicas, int) and place.known
        found.setdefault(_text(autoscaler.target_name), []).append((autoscaler, certain, place))
    return found


def placed_of(stack: Stack, workload: Workload) -> Placed:
    """A workload's Pods as policy 12 counts them (its replicas, its HPA's minReplicas when that asks for more), on
    no particular pool: what a disruption budget or a rollout counts."""
    request = workload.request or PodRequest({})
    return _placed(workload, request, autoscaling(stack), stack=stack)


def pods_of(stack: Stack, workloads: list[Workload]) -> tuple[int, bool] | Unknown | None:
    """The Pods of these workloads together, as policy 12 counts them (what a disruption budget over them counts),
    and whether a secret is in the count; None when a count cannot be read (the API server refuses it)."""
    total, secret = 0, False
    for workload in workloads:
        placed = placed_of(stack, workload)
        count = placed.count
        if isinstance(count, Unknown):
            return count
        if placed.maybe is not None:
            return placed.maybe  # (more Pods than counted may keep a budget's evictions possible)
        if not isinstance(count, int):
            return None
        total += count
        secret = secret or placed.secret or is_secret(count)
    return total, secret


def autoscaling(stack: Stack) -> Scaled:
    """The stack's HPAs by their target, once per stack: an HPA scales the workload of its name and kind in its own
    namespace of its own cluster (Stack.place: a namespace not known yet matches none, a provider's one namespace the
    same provider's)."""
    return _AUTOSCALING.of(stack)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _autoscalers(stack: Stack) -> Scaled:
    """(where, kind, name) of the target -> the HPA that keeps the most replicas of it."""
    found: dict[tuple[Place, Any, str | None], Autoscaler] = {}
    for autoscaler in stack.autoscalers:
        if not isinstance(autoscaler.target_name, str) or not isinstance(autoscaler.target_kind, str):
            continue
        if not isinstance(autoscaler.min_replicas, int):
            continue
        place = stack.place(autoscaler.urn, autoscaler.namespace)
        if not place.known:
            continue
        key = (place, autoscaler.target_kind, autoscaler.target_name)
        other = found.get(key)
        if other is None or (isinstance(other.min_replicas, int) and autoscaler.min_replicas > other.min_replicas):
            found[key] = autoscaler
    return found


# --- nodes -----------------------------------------------------------------------------------------------

def pool_nodes(stack: Stack, pool: Pool, platform: str | None, settings: Mapping[str, Any]
               ) -> list[tuple[Option, Node]] | Unknown | None:
    """Each machine's node of the pool on ``platform`` with a policy's ``allocatable`` setting: built once per
    stack and setting, and read by workload-fits-pool, pool-capacity and the report. Unknown when its machine is
    not known yet; None when no machine of it is known."""
    key = (id(pool), platform, id(settings))
    cache = _POOL_NODES.of(stack)
    kept = cache.get(key)
    if kept is not None and kept[0] is pool and kept[1] is settings:  # it holds both: their ids are theirs
        return kept[2]
    found = _pool_nodes(stack, pool, platform, settings)
    cache[key] = (pool, settings, found)
    return found


def _pool_nodes(stack: Stack, pool: Pool, platform: str | None, settings: Mapping[str, Any]
                ) -> list[tuple[Option, Node]] | Unknown | None:
    machines = pool.machines_on(platform)
    if machines.unknown is not None:
        return machines.unknown
    on = pool.platform or platform
    if on is None:
        return None
    if pool.labels.get(OS) == frozenset({WINDOWS}):
        # a Windows Server node reserves and holds Pods as its platform does for Windows (other reservations, other
        # Pod slots: SPEC 16), which nodes.py does not model: what its nodes hold is not judged, and said so (a pool
        # that may start Linux nodes too is judged as its Linux nodes are)
        return undetermined(f"the allocatable of {pool.label}'s Windows nodes is not modelled (each platform reserves "
                            "and counts Pod slots on Windows otherwise), so what fits there is not checked")
    # the pool's reservations over the platform's defaults, once per pool: its machines' nodes differ only in
    # their hardware, and a node of the same hardware with the same reservations is the same node in any pool
    # (a Karpenter NodePool allows hundreds of machines, often the same as its neighbours')
    wanted = override(settings, on, pool.setting_keys, pool.kubelet)
    reservations = json.dumps(wanted, sort_keys=True, default=str)
    found = []
    for option in machines.options:
        node = option_node(stack, option, on, wanted, reservations)
        if isinstance(node, Node):
            found.append((option, node))
    return found or None


def option_node(stack: Stack, option: Option, on: str, wanted: Mapping[str, Any], reservations: str) -> Node | None:
    """One machine's node on platform ``on``, with the reservations ``wanted`` (:func:`override`: the platform's
    entry of the allocatable setting, the pool's own kubelet settings, the setting's entries for the pool), kept
    per stack by the hardware and the reservations (``reservations``: ``wanted`` as text)."""
    hardware = option.hardware
    key = (id(hardware), on, reservations)
    cache = _NODES.of(stack)
    kept = cache.get(key)
    if kept is None:
        kept = cache[key] = (hardware, node_of(hardware, on, wanted))
    assert kept[0] is hardware  # the cache holds the hardware for as long as it lives: its id is its own
    node = kept[1]
    return node if isinstance(node, Node) else None


# --- the fit arithmetic workload-fits-pool, pool-capacity and the report share --------------------------

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


def counted(load: PoolLoad, nodes: list[tuple[Option, Node]]) -> tuple[list[Placed], list[Placed]]:
    """The pool's workloads its totals count, and those they leave out: a workload whose one Pod fits no node of
    the pool is workload-fits-pool's finding, and never runs there, so pool-capacity and the report both leave it
    out of what the pool must hold (and both say so)."""
    kept: list[Placed] = []
    left: list[Placed] = []
    for placed in load.workloads:
        (kept if any(load.fit(node, placed.request).fits for _option, node in nodes) else left).append(placed)
    return kept, left


def _catalog_nodes(stack: Stack, platform: str, settings: Mapping[str, Any]) -> list[tuple[Machine, str, Node]]:
    """Every machine of the platform's catalog whose facts are known, with its node (default reservations and the
    allocatable setting for the platform), computed once per stack, platform and setting."""
    setting = settings.get("allocatable") if isinstance(settings, Mapping) else None
    key = ("catalog", platform, json.dumps(setting, sort_keys=True, default=str))
    cache = _CATALOG_NODES.of(stack)
    found = cache.get(key)
    if found is None:
        wanted = override(settings, platform)
        found = cache[key] = [
            (machine, node_label(machine.architecture), node_of(machine_hardware(machine), platform, wanted))
            for machine in machines(platform) if machine.vcpus is not None and machine.memory_mib is not None]
    return found


# what a Pod may select and still ask nothing in particular of a node the platform adds for it
_PLAIN = frozenset({(ARCH, "amd64"), (ARCH_BETA, "amd64"), (OS, LINUX), (OS_BETA, LINUX)})


def held_by_defaults(stack: Stack, workload: Workload, cluster: KubeCluster, settings: Mapping[str, Any]) -> bool:
    """The workload's Pods ask nothing in particular of a node (no node selector but amd64 Linux, no required node
    affinity, no RuntimeClass, no extended resource), and a machine the cluster's platform adds for such a Pod
    (Provisioning.defaults: GKE node auto-provisioning's E2 series within its caps) holds one of them after every
    DaemonSet that may run on the cluster: the platform schedules them there, whatever the pools the stack declares
    (SPEC 22: no note for a Pod the documented default machines hold within the caps)."""
    provisioning = cluster.provisioning
    if provisioning is None or not provisioning.defaults or cluster.platform is None or workload.kind == "DaemonSet":
        return False
    placement = workload.scheduling
    if placement.unknown is not None or placement.terms is not None or placement.runtime_class is not None \
            or placement.requested != frozenset() or not set(placement.selector) <= _PLAIN \
            or isinstance(workload.compute_class, Unknown):
        return False
    request = workload.request
    if request is None or request.unknown:
        return False
    taken = {CPU: Decimal(0), MEMORY: Decimal(0), PODS: Decimal(0)}
    for daemonset in (*stack.workloads, *stack.foreign_workloads):
        if daemonset.kind != "DaemonSet" or cluster not in stack.clusters_of(daemonset.urn):
            continue
        each = daemonset.request
        if each is None or each.unknown:
            return False
        taken = {CPU: taken[CPU] + each.get(CPU), MEMORY: taken[MEMORY] + each.get(MEMORY), PODS: taken[PODS] + 1}
    defaults = frozenset(provisioning.defaults)
    return any(machine.name in defaults and architecture == "amd64"
               and all(request.get(resource) + taken[resource] <= (node.allocatable(resource) or Decimal(0))
                       for resource in (CPU, MEMORY))
               and (node.allocatable(PODS) or 0) >= taken[PODS] + 1
               for machine, architecture, node in _catalog_nodes(stack, cluster.platform, settings))


def provisioned(stack: Stack, landed: Landing, settings: Mapping[str, Any]) -> bool:
    """Every cluster the workload's Pods may land on whose pools the stack does not all show adds a node for them that
    holds one (held_by_defaults): they are scheduled whatever the declared pools do."""
    found = [candidate.cluster for candidate in landed.candidates if not candidate.complete]
    clusters = stack.index.clusters if stack.index is not None else {}
    return bool(found) and all((cluster := clusters.get(ref.key)) is not None
                               and held_by_defaults(stack, landed.workload, cluster, settings) for ref in found)


def smallest_machine(stack: Stack, platform: str, request: PodRequest, allowed: frozenset[str],
                     family: str | None, settings: Mapping[str, Any],
                     taken: Mapping[str, Decimal] | None = None) -> tuple[Machine | None, bool]:
    """The smallest machine of the platform's catalog, of an architecture the Pod allows (node labels), whose node
    holds one Pod after what ``taken`` (the DaemonSets) asks of every node; one of ``family`` first. Smallest: by
    vCPUs, then memory, then name. (machine, of the family)."""
    if request.unknown:
        return None, False
    setting = settings.get("allocatable") if isinstance(settings, Mapping) else None
    key = (platform, tuple(request.get(resource) for resource in (CPU, MEMORY, *DEVICES)), allowed, family,
           tuple(sorted((taken or {}).items())), json.dumps(setting, sort_keys=True, default=str))
    cache = _SMALLEST.of(stack)  # the same request, again and again in a stack: one scan of the catalog
    found = cache.get(key)
    if found is None:
        found = cache[key] = _smallest_machine(stack, platform, request, allowed, family, settings, taken)
    return found


def _smallest_machine(stack: Stack, platform: str, request: PodRequest, allowed: frozenset[str],
                      family: str | None, settings: Mapping[str, Any],
                      taken: Mapping[str, Decimal] | None) -> tuple[Machine | None, bool]:
    gpus = any(request.get(resource) > 0 for resource in DEVICES)
    best: tuple[tuple[bool, bool, int, int, str], Machine] | None = None
    for machine, architecture, node in _catalog_nodes(stack, platform, settings):
        if architecture not in allowed or (gpus and machine.gpu_type in UNSUPPORTED_GPUS):
            continue
        if not all(request.get(resource) + (taken or {}).get(resource, Decimal(0)) <= (node.allocatable(resource)
                                                                                       or Decimal(0))
                   for resource in (CPU, MEMORY, *DEVICES) if request.get(resource) > 0):
            continue
        if (node.allocatable(PODS) or 0) < 1 + (taken or {}).get(PODS, Decimal(0)):
            continue
        mine = family is not None and family_of(platform, machine.name) == family
        # the pool's family first, then the platform's general-purpose ones (a Pod that asks for no GPU is not sent
        # to a confidential or HPC size: Standard_B2s's suggestion was Standard_DC1ds_v3); a Pod that asks for GPUs,
        # to whole ones first (g6f.large has an eighth of an L4)
        special = (not general_purpose(platform, machine.name)) if not gpus else machine.gpu_fraction is not None
        rank = (not mine, special, machine.vcpus or 0, machine.memory_mib or 0, machine.name)
        if best is None or rank < best[0]:
            best = (rank, machine)
    if best is None:
        return None, False
    return best[1], not best[0][0]


# what this module derives, per stack (memo.py): the loads by platform, the HPAs by their target, each pool's nodes
# by (id(pool), platform, id(settings)), each hardware's node by (id(hardware), platform, reservations), and the
# catalog's nodes by platform and allocatable setting, the smallest machine that holds a request by the request
_LOADS: PerStack[Stack, dict[str | None, Loads]] = PerStack(lambda stack: {})
_AUTOSCALING: PerStack[Stack, Scaled] = PerStack(_autoscalers)
_MAYBE_SCALING: PerStack[Stack, dict[str | None, list[tuple[Autoscaler, bool, Place]]]] = PerStack(
    _maybe_autoscalers)
_POOL_NODES: PerStack[Stack, dict[tuple[int, str | None, int], tuple[Pool, Any, Any]]] = PerStack(lambda stack: {})
_NODES: PerStack[Stack, dict[tuple[int, str, str], tuple[Any, Node]]] = PerStack(lambda stack: {})
_CATALOG_NODES: PerStack[Stack, dict[tuple[str, ...], list[tuple[Machine, str, Node]]]] = PerStack(lambda stack: {})
_SMALLEST: PerStack[Stack, dict[tuple[Any, ...], tuple[Machine | None, bool]]] = PerStack(lambda stack: {})
