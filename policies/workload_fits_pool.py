"""workload-fits-pool: one Pod of every workload fits one empty node of the pool it is placed on.

A pool fixes the machine its workloads' Pods land on, so a Pod that asks for more CPU, memory,
ephemeral storage, GPUs or Pod slots than one node of that pool can give, once the pool's
DaemonSets have taken theirs, can never be scheduled: it would sit Pending with "Insufficient cpu"
and the autoscaler would never add a node for it. The node is the pool's profile, else its
machine's catalog facts; allocatable follows the platform's documented reservations
(policies/model/nodes.py). Both are upper bounds of a real node's, so what this rejects can never run.

On pools a platform declares (SPEC 14.3), one Pod must fit one node of some pool that may take it by the scheduler's
rules, after the DaemonSets that pool runs: a Karpenter NodePool starts whichever of its machines fits, so the Pod
must fit one of them. It is judged only where the workload's cluster's pools are all known. A message names the
smallest machine of the platform's catalog, of an architecture the Pod allows, whose node would hold one Pod.

GPUs a Pod claims through Dynamic Resource Allocation (SPEC 24) are counted with the rest of its request: the
devices of NVIDIA's DRA driver's classes (gpu.nvidia.com, one per GPU; mig.nvidia.com, at most seven per GPU that MIG
splits) that its ResourceClaimTemplates ask exactly (a firstAvailable list of one class: the fewest of its
subrequests), against the most a node of the pool's machine can publish (policies/model/devices.py); a claim of more
than the 32 devices the allocator gives one, or a request that takes every device of a class (allocationMode All)
beside another of that class, fits no node, nor does a request whose CEL selectors no device of its class matches
whatever the values that differ per GPU are (policies/model/cel.py). A ResourceClaim Pods share is reserved for at
most 256 of them, and one of a GPU class is allocated once, on one node, the node of every Pod that names it: its
devices are there beside each Pod's own, and all the Pods that share it and keep running (every replica of every
Deployment, StatefulSet or ReplicaSet that names it, or another claim one of them names; a Job's Pods wait for each
other to complete) run on that node together, so their requests and the claims' devices must fit one node of their
pools, after its DaemonSets; those beyond it are never scheduled. A DaemonSet's Pods, one bound to each node, that
name such a claim run on its node only: refused where its pools keep two nodes or more. What it cannot count (a
firstAvailable list of several classes, another DeviceClass, adminAccess, a template not in the stack) and, where the
Pod fits, what it does not check (CEL selectors over what differs per GPU, constraints over what differs between a
node's devices, how many devices All takes, a driver whose release the stack does not show, and what the autoscalers
do not do for DRA Pods: Karpenter's machine picked without their claims, cluster-autoscaler's scale-up from zero) is
said, naming the workload.

A request the API server would refuse (a malformed quantity) is reported here too, naming its field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.devices import DRIVER_CHARTS, RESERVED_FOR, claim_users, sharing_groups
from .model.fit import Room
from .model.landing import Landing, PoolVerdict, landing
from .model.loads import (
    CHECKED,
    Loads,
    Placed,
    PoolLoad,
    loads,
    placed_of,
    pool_nodes,
    provisioned,
    smallest_machine,
)
from .model.nodes import ALLOCATABLE_SCHEMA, Node
from .model.pods import DEVICE_CLASSES, DEVICES, MIG_CLASS, BadQuantity, PodRequest
from .model.pool import ClusterRef, Option, Pool
from .model.stack import Stack
from .model.values import REDACTED, Unknown, about, is_secret, undetermined
from .platforms.architectures import node_label
from .platforms.catalog import MACHINE_KINDS
from .platforms.managed import managed
from .platforms.platform import PLATFORMS
from .platforms.quantity import MEMORY, PODS, STORAGE, amount, exact
from .words import (
    LISTED,
    WHAT,
    allocatable_sum,
    machine,
    pool_name,
    reason,
    replicas_shown,
    shared_claims,
    show,
    suggestion,
    unknown_cluster,
    unshown,
    unsure,
)

_PROBLEMS = {"malformed": "is not a Kubernetes quantity such as 500m, 0.5, 128Mi or 1G",
             "negative": "is negative", "fraction": "is not a whole number of devices",
             "too large": "is larger than Kubernetes can count (2^63 - 1 in its base unit)"}


def _named_device(resource: str) -> str:
    """A device a machine must have, as a fix names it: a device plugin's resource by its name, a DRA class's devices
    by the GPUs that give them."""
    if resource not in DEVICE_CLASSES:
        return resource
    return f"{DEVICES[resource].upper()} GPUs{' that MIG splits' if resource == MIG_CLASS else ''}"


def _defaulted(request: PodRequest) -> str:
    """The clause that says a request includes its namespace's LimitRange defaults (SPEC 21)."""
    if not request.defaulted:
        return ""
    return f" (its namespace's LimitRange default request for {listed(sorted(request.defaulted))} included)"


@dataclass(frozen=True)
class Misfit:
    """Why one Pod fits no node of one pool (kube-scheduler's Insufficient..., per pool): ``slots``, the only thing
    short is a Pod slot its DaemonSets take; ``text``, the clause messages give for it."""

    text: str
    slots: bool = False


def daemonset_list(daemonsets: list[Placed], resource: str) -> str:
    """The DaemonSets that take some of the resource, with what each takes: ten, and how many more (a pool may run
    hundreds, and every one of them is told the same)."""
    parts: list[str] = []
    more = 0
    for placed in daemonsets:
        if resource != PODS and not placed.request.get(resource) > 0:
            continue
        if len(parts) == LISTED:
            more += 1
        elif resource == PODS:
            parts.append(f"'{placed.workload.name}'")
        else:
            value = show(resource, placed.request.get(resource), resource in placed.request.secret)
            parts.append(f"'{placed.workload.name}' {value}")
    return listed(parts) + (f" and {more:,} more" if more else "")


def bad_quantity(subject: str, bad: BadQuantity) -> str:
    value = f" '{bad.value}'" if bad.value is not None else ""
    return (f"{subject}: {bad.field}{value} {_PROBLEMS[bad.problem]}; the API server refuses it, so fix the "
            "quantity")


def workload_fits_pool(stack: Stack, platform: str, settings: dict) -> list[Finding]:
    """One Pod of each workload fits one empty node of its pool, after the pool's DaemonSets."""
    load = loads(stack, platform)
    findings: list[Finding] = []
    for workload, request in load.requests:
        findings.extend(Violation(bad_quantity(workload.subject, bad), workload.urn) for bad in request.bad)
    findings.extend(load.unknown)
    several = stack.several_clusters
    for pool_load in load.pools:
        if not pool_load.workloads and not pool_load.daemonsets:
            continue
        nodes = pool_nodes(stack, pool_load.pool, platform, settings)
        if nodes is None:
            continue
        if isinstance(nodes, Unknown):
            findings.append(nodes)
            continue
        findings.extend(_pool(stack, pool_load, nodes, platform, settings, several))
    findings.extend(_platform_pools(stack, load, platform, settings, several))
    refused = {finding.urn or "" for finding in findings if isinstance(finding, Violation)}
    beside: set[str] = set()  # workloads whose shared devices beside their own are said (or refused) already
    findings.extend(_device_claims(stack, refused, settings, several, beside))
    refused = {finding.urn or "" for finding in findings if isinstance(finding, Violation)}
    findings.extend(_together(stack, load, refused | beside, settings, several))
    findings.extend(_on_every_node(stack, load, refused | beside, several))
    return findings


def _device_claims(stack: Stack, refused: set[str], settings: Mapping[str, Any], several: bool,
                   beside: set[str]) -> list[Finding]:
    """Pods that claim devices through Dynamic Resource Allocation on pools of the stack (SPEC 24): the devices the
    pack counts are judged with the rest of one Pod's request; what it cannot count, and, for a Pod it does not refuse,
    what decides whether the counted devices are there that it does not check (the autoscalers' gaps among them), said
    once per workload."""
    findings: list[Finding] = []
    for workload in stack.workloads:
        claims = workload.claims
        if claims is not None and claims.unknown is not None:
            findings.append(claims.unknown)  # (whether, and what, its Pods claim is not known: not judged)
            continue
        if claims is None or not landing(stack, workload).scheduled:
            continue
        if claims.impossible is not None:
            why, fix = claims.impossible
            findings.append(Violation(f"{workload.subject}: {why}: no node can ever hold its claims, so its Pods are "
                                      f"never scheduled: {fix}", workload.urn))
            refused = refused | {workload.urn}
        need = {device_class: claims.amounts.get(device_class, Decimal(0)) + claims.shared.get(device_class, Decimal(0))
                for device_class in {*claims.amounts, *claims.shared}}
        if claims.shared and workload.urn not in refused:
            too_many = _beside_shared(stack, workload, need, settings, several)
            if too_many is not None:
                findings.append(_refused(stack, workload, too_many))
                refused = refused | {workload.urn}
                beside.add(workload.urn)
        said = []
        if claims.uncounted:
            said.append(f"the devices of its Pods' {listed(list(claims.uncounted))} are not counted (the pack counts "
                        f"what a claim asks exactly of DeviceClass {listed(DEVICE_CLASSES, ' and ')})")
        unchecked = list(claims.unchecked)
        if need and not claims.driver and not _runs_driver(stack, workload):
            unchecked.append("whether NVIDIA's DRA driver runs on its nodes (no release of its chart "
                             f"{listed(sorted(DRIVER_CHARTS), ' or ')} is in the stack)")
        if unchecked and workload.urn not in refused:
            said.append(f"its claims' devices fit a node of its pools by count; not checked: {listed(unchecked)}")
        if need and workload.urn not in refused:
            said.extend(_autoscaled(stack, workload, need, settings, several))
        if said:
            findings.append(undetermined(f"{workload.subject}: {listed(said, '; ')}"))
    return findings


def _beside_shared(stack: Stack, workload: Any, need: Mapping[str, Decimal], settings: Mapping[str, Any],
                   several: bool) -> str | None:
    """A Pod whose own claims and the shared ResourceClaims it names ask more devices of a class than any node of its
    pools publishes: a shared claim is allocated on one node, the node of every Pod that names it, so the Pod's own
    devices and the shared ones are all on its node (the structured allocator gives each device once). In words, with
    the most each pool's nodes have; None where some node holds them or its pools are not all known."""
    most: list[str] = []
    for verdict in landing(stack, workload).possible:
        allowed = _allowed(stack, verdict, settings)
        if allowed is None:
            return None
        nodes = [node for _option, node in allowed]
        if any(_holds(node, need) for node in nodes):
            return None
        for device_class in need:
            top = max(nodes, key=lambda node: node.capacity.get(device_class, Decimal(0)), default=None)
            if top is not None:
                has = amount(device_class, top.capacity.get(device_class, Decimal(0)))
                most.append(f"{pool_name(verdict.pool, several)} has at most {has} of {WHAT[device_class]} "
                            f"({top.machine})")
    if not most:
        return None
    hidden = workload.claims.secret
    asked = listed([f"{show(device_class, value, device_class in hidden)} of {WHAT[device_class]}"
                    for device_class, value in need.items()])
    return (f"{workload.subject}: one Pod's claims ask {asked} of its node, the shared ResourceClaims its Pods name "
            f"among them (a shared claim is allocated on the node of every Pod that names it, beside the Pod's own), "
            f"more than any node of the pools that can take it: {listed(most, '; ')}; it can never be scheduled: ask "
            "fewer devices, or allow machines with more GPUs")


def _refused(stack: Stack, workload: Any, message: str) -> Finding:
    """A refusal where the workload's cluster's pools are all in the stack; a note where its cluster may have pools
    the stack does not show (SPEC 14.2), which might hold what no pool it shows does."""
    landed = landing(stack, workload)
    elsewhere = [candidate.cluster for candidate in landed.candidates if not candidate.complete]
    if elsewhere:
        return undetermined(f"{message}; but {unshown(stack, elsewhere)}, so this is not judged")
    return Violation(message, workload.urn)


def _together(stack: Stack, load: Loads, refused: set[str], settings: Mapping[str, Any],
              several: bool) -> list[Finding]:
    """Pods that share ResourceClaims: a claim is reserved for at most RESERVED_FOR Pods (the others never start), and
    one of a GPU class is allocated on one node, so every Pod that names it (every replica of each workload that does,
    and of those that name another such claim one of them names) runs on that node: where no node of their pools
    holds their requests and the claims' devices together, after its DaemonSets, those beyond what one holds are never
    scheduled. Judged for workloads not refused already, whose Pods run on pools the stack shows."""
    findings: list[Finding] = []
    users = claim_users(stack.workloads)
    over: set[str] = set()
    for (_place, name), naming in users.items():
        # (a refused workload's Pods are never scheduled, so never reserved on the claim)
        placed = [placed_of(stack, workload) for workload in naming if workload.urn not in refused]
        counts = [found.count for found in placed]
        if not placed or not all(isinstance(count, int) for count in counts):
            continue  # (a count not known yet is said by pool-capacity)
        total = sum(count for count in counts if isinstance(count, int))
        if total <= RESERVED_FOR:
            continue
        whose = _whose(placed, REDACTED if any(found.secret for found in placed) else f"{total:,}")
        for found in placed:
            over.add(found.workload.urn)
            findings.append(Violation(
                f"{found.workload.subject}: {whose} name the shared ResourceClaim '{name}', more than the "
                f"{RESERVED_FOR} Pods a claim can be reserved for (ResourceClaimStatus.reservedFor, "
                "resource.k8s.io/v1), so the Pods beyond them are never started: give each Pod its own claim (a "
                "ResourceClaimTemplate), or split them across claims", found.workload.urn))
    by_pool = {pool_load.pool: pool_load for pool_load in load.pools}
    for members, claims in sharing_groups(users):
        if any(member.urn in refused or member.urn in over or member.request is None
               or not landing(stack, member).scheduled for member in members):
            continue
        together = _sharing(stack, members, claims, by_pool, settings, several)
        if together is None:
            continue
        if any(not landing(stack, member).complete for member in members):
            findings.append(_refused(stack, members[0], f"{members[0].subject}: {together}"))  # (a note)
        else:
            findings.extend(Violation(f"{member.subject}: {together}", member.urn) for member in members)
    return findings


def _sharing(stack: Stack, members: tuple[Any, ...], claims: Mapping[Any, Mapping[str, Decimal]],
             by_pool: Mapping[Pool, PoolLoad], settings: Mapping[str, Any], several: bool) -> str | None:
    """Why the Pods of ``members``, which share the ``claims`` of node-local devices, never all run on one node: what
    they request together and what each pool's nodes have at most; None where some node of their pools may hold them
    (or what decides it is not known)."""
    placed = [placed_of(stack, member) for member in members]
    counts = [found.count for found in placed]
    if not all(isinstance(count, int) for count in counts):
        return None  # (a count not known yet is said by pool-capacity)
    pods = sum(count for count in counts if isinstance(count, int))
    totals: dict[str, Decimal] = {}
    parts: dict[str, list[str]] = {}
    secret: set[str] = set()
    for found, count in zip(placed, counts, strict=True):
        assert isinstance(count, int)
        request = found.request
        for resource in CHECKED:
            if resource in request.unknown or request.get(resource) <= 0:
                continue  # (a request not known yet is said with the Pod's fit)
            totals[resource] = totals.get(resource, Decimal(0)) + count * request.get(resource)
            each = show(resource, request.get(resource), resource in request.secret)
            parts.setdefault(resource, []).append(f"{replicas_shown(found)} x {each}")
            if found.secret or resource in request.secret:
                secret.add(resource)
    per_pod = set(parts)
    hidden = {device_class for member in members for device_class in member.claims.secret}
    for (_place, name), amounts in claims.items():
        for device_class, value in amounts.items():
            totals[device_class] = totals.get(device_class, Decimal(0)) + value
            parts.setdefault(device_class, []).append(
                f"{show(device_class, value, device_class in hidden)} (ResourceClaim '{name}')")
            if device_class in hidden:
                secret.add(device_class)
    candidates: dict[tuple[int, int], tuple[PoolLoad, tuple[Option, Node]]] = {}
    for member in members:
        for verdict in landing(stack, member).possible:
            allowed = _allowed(stack, verdict, settings)
            if allowed is None or not verdict.options or len(allowed) != len({id(each) for each in verdict.options}):
                return None  # a pool (or a machine of it) whose nodes are not known: they might hold them
            for option, node in allowed:
                candidates[(id(verdict.pool), id(node))] = (by_pool[verdict.pool], (option, node))
    if not candidates or any(_holds_all(pool_load.left(node), totals, pods)
                             for pool_load, (_option, node) in candidates.values()):
        return None
    most: list[str] = []
    for pool_load in {id(pool_load): pool_load for pool_load, _node in candidates.values()}.values():
        nodes = [pair for each, pair in candidates.values() if each is pool_load]
        short: list[str] = []
        for resource in (*totals, PODS):
            most_of = pool_load.room(nodes, resource)
            if isinstance(most_of, Room) and (pods if resource == PODS else totals[resource]) > most_of.free:
                short.append(f"at most {allocatable_sum(most_of.node, resource)}{_after(pool_load, most_of)} of "
                             f"{WHAT[resource]} ({most_of.node.machine})")
        where = pool_name(pool_load.pool, several)
        most.append(f"{where} has {listed(short, ' and ')}" if short else
                    f"{where} has machines with enough of each, but none with all of them together")
    single = pods == 1 and not placed[0].secret  # one Pod, beside the claim's devices
    claimed = "the shared claim's" if len(claims) == 1 else "the shared claims'"
    asked = []
    for resource, total in totals.items():
        text = listed(parts[resource], " + ")
        whole = show(resource, total, resource in secret)
        alone = len(parts[resource]) == 1
        asked.append(f"{whole} of {WHAT[resource]} ({claimed})" if alone and resource not in per_pod else
                     f"{whole} of {WHAT[resource]}" if alone and single else f"{text} = {whole} of {WHAT[resource]}")
    claim = shared_claims(name for _place, name in claims)
    where = listed(most, "; ")
    if single:
        return (f"its one Pod names {claim}, so it runs on the node the claim's devices are allocated on, beside "
                f"them: it requests {listed(asked, ', ')} of that node, more than any node of the pools that can take "
                f"it: {where}; it can never be scheduled: lower its requests, or allow machines that have the devices "
                "and the room for it")
    slots = REDACTED if any(found.secret for found in placed) else f"{pods:,}"
    return (f"{_whose(placed, slots)} name {claim}, allocated on one node for every Pod that names "
            f"{'them' if len(claims) > 1 else 'it'}, so they all run on that node: together they request "
            f"{listed(asked, ', ')} and {slots} Pod slots, more than any node of the pools that can take them: "
            f"{where}; the Pods beyond what one node holds are never scheduled: give each Pod its own claim (a "
            "ResourceClaimTemplate), run fewer replicas, or allow larger machines")


def _on_every_node(stack: Stack, load: Loads, refused: set[str], several: bool) -> list[Finding]:
    """A DaemonSet whose Pods name a shared ResourceClaim of node-local devices: the claim is allocated on one node,
    and each of its Pods is bound to a node of its own (the DaemonSet controller's node affinity), so on every other
    node its Pod is never scheduled (the DynamicResources plugin's filter: the claim's allocation selects one node).
    Refused where the pools it certainly runs on keep two nodes or more (their minimum sizes); said where they may
    start a second one (a larger maximum, a size not known, or pools of its cluster the stack does not show)."""
    findings: list[Finding] = []
    for workload in stack.workloads:
        claims = workload.claims
        if workload.kind != "DaemonSet" or workload.urn in refused or claims is None or claims.unknown is not None:
            continue
        names = [name for (_place, name), asked in claims.sharing.items() if asked]
        if not names:
            continue  # (no claim of node-local devices)
        pools = [pool_load.pool for pool_load in load.pools
                 if any(placed.workload is workload for placed in pool_load.daemonsets)]
        if not pools:
            continue  # (no pool it certainly runs on)
        least = [(pool, pool.min_size) for pool in pools if isinstance(pool.min_size, int) and pool.min_size > 0]
        nodes = sum(count for _pool, count in least)
        claim = f"{shared_claims(names)}, {'each ' if len(names) > 1 else ''}allocated on one node"
        fix = "give each Pod its own claim (a ResourceClaimTemplate), or run one Pod (a Deployment of one replica)"
        if nodes >= 2:
            counted = listed([f"{pool_name(pool, several)} at least {count}" for pool, count in least], " + ")
            findings.append(Violation(
                f"{workload.subject}: its Pods run one on every node of the pools it runs on ({counted} = {nodes} "
                f"nodes), and each names {claim}: the Pods on every other node are never scheduled: {fix}",
                workload.urn))
            continue
        most = [pool.max_size for pool in pools]
        complete = landing(stack, workload).complete
        if complete and all(isinstance(count, int) for count in most) and \
                sum(count for count in most if isinstance(count, int)) <= 1:
            continue  # one node at most: its one Pod runs beside the claim's devices
        findings.append(undetermined(
            f"{workload.subject}: its Pods run one on every node of the pools it runs on "
            f"({listed([pool_name(pool, several) for pool in pools])}), and each names {claim}: once a second node "
            f"runs, its Pod there is never scheduled: {fix}"))
    return findings


def _whose(placed: list[Placed], total: str) -> str:
    """The Pods of workloads that share a claim, in words: its 4 Pods; the 5 Pods of Deployment 'a' (2) and ..."""
    if len(placed) == 1:
        return f"its {total} Pods"
    each = [f"{found.workload.subject} ({replicas_shown(found)})" for found in placed]
    return f"the {total} Pods of {listed(each, ' and ')}"


def _holds_all(left: Mapping[str, Decimal], totals: Mapping[str, Decimal], pods: int) -> bool:
    """A node with ``left`` of each resource after its DaemonSets holds these totals and that many Pods (a resource
    whose room is not known might hold them)."""
    return all(total <= left[resource] for resource, total in totals.items() if resource in left) and \
        (PODS not in left or pods <= left[PODS])


def _allowed(stack: Stack, verdict: PoolVerdict, settings: Mapping[str, Any]) -> list[tuple[Option, Node]] | None:
    """The nodes of the pool's machines that its Pods' labels allow (verdict.options); None when the pool's nodes are
    not known."""
    found = pool_nodes(stack, verdict.pool, verdict.pool.platform, settings)
    if not isinstance(found, list):
        return None
    wanted = {id(option) for option in verdict.options}
    return [(option, node) for option, node in found if id(option) in wanted]


def _holds(node: Node, devices: Mapping[str, Decimal]) -> bool:
    """A node of the machine has at least that many devices of each DRA class."""
    return all(node.capacity.get(device_class, Decimal(0)) >= amount for device_class, amount in devices.items())


def _runs_driver(stack: Stack, workload: Any) -> bool:
    """Every pool its Pods may land on runs NVIDIA's DRA driver itself at its cluster's version (Pool.dra_driver_from:
    EKS Auto Mode from 1.36)."""
    possible = landing(stack, workload).possible
    return bool(possible) and all(_driver_built_in(stack, verdict.pool) for verdict in possible)


def _driver_built_in(stack: Stack, pool: Pool) -> bool:
    cluster = stack.cluster_for(pool)
    minor = cluster.version.minor if cluster is not None and cluster.version is not None else None
    return pool.dra_driver_from is not None and minor is not None and minor >= pool.dra_driver_from


AUTOSCALER_CHART = "cluster-autoscaler"  # kubernetes/autoscaler's chart (charts/cluster-autoscaler)


def _autoscaled(stack: Stack, workload: Any, amounts: Mapping[str, Decimal], settings: Mapping[str, Any],
                several: bool) -> list[str]:
    """What the autoscalers do not do for Pods with DRA claims, where it decides whether a node with their devices
    comes. Karpenter picks a machine without the claims unless it is set to reason about DRA (its ignoreDRARequests
    setting, on by default; kubernetes-sigs/karpenter#3228, DRA's integration, open), so a NodePool of machines with
    and without the devices may start one without them; cluster-autoscaler does not scale a group up from zero nodes
    for Pods with DRA claims (kubernetes/autoscaler#10199), so Pods whose devices only node groups of minSize 0 hold
    may wait for a node that never comes, where it runs: GKE's and AKS's autoscaling pools (their minimum is the
    autoscaler's), an EKS group where the stack shows cluster-autoscaler's chart (nothing else shrinks it)."""
    said: list[str] = []
    holding: list[Pool] = []  # the pools some machine of which holds the devices
    for verdict in landing(stack, workload).possible:
        pool = verdict.pool
        allowed = _allowed(stack, verdict, settings)
        if allowed is None:
            return said  # (what its pools are is said elsewhere)
        nodes = [node for _option, node in allowed]
        without = [node for node in nodes if not _holds(node, amounts)]
        if len(without) < len(nodes):
            holding.append(pool)
        if pool.karpenter and without and not _driver_built_in(stack, pool):
            said.append(f"Karpenter may start a node without the devices its Pods claim for them on "
                        f"{pool_name(pool, several)} ({without[0].machine}, say): it picks their machine without "
                        "their DRA claims unless it is set to reason about DRA (its ignoreDRARequests setting, on by "
                        "default; kubernetes-sigs/karpenter#3228), so keep the NodePool's requirements to machines "
                        "that hold them")
    charts = {release.chart for release in stack.helm_releases} | stack.foreign_charts
    if holding and all(pool.min_size == 0 and not pool.karpenter and (
            managed(pool.platform).autoscaler_built_in or AUTOSCALER_CHART in charts) for pool in holding):
        names = listed([pool_name(pool, several) for pool in holding])
        said.append(f"the pools whose machines hold its claims ({names}) may have no node: cluster-autoscaler does not "
                    "scale a group up from zero nodes for Pods with DRA claims (kubernetes/autoscaler#10199), so set "
                    "the minimum size of one of them to 1 or more")
    return said


def _platform_pools(stack: Stack, load: Any, platform: str, settings: Mapping[str, Any],
                    several: bool) -> list[Finding]:
    """On pools the platforms declare (SPEC 14): one Pod fits one node of some machine of some pool that may take it
    by the scheduler's rules (workload-schedulable reports a workload no pool takes), where the workload's cluster's
    pools are all known."""
    by_pool = {pool_load.pool: pool_load for pool_load in load.pools}
    findings: list[Finding] = []
    for workload in stack.workloads:
        if workload.kind == "DaemonSet" or workload.request is None:
            continue
        landed = landing(stack, workload)
        if not landed.scheduled:
            continue  # no pool of the stack
        elsewhere = [candidate.cluster for candidate in landed.candidates if not candidate.complete]
        possible = landed.possible
        if not possible:
            continue  # no pool takes it (workload-schedulable's)
        if any(not verdict.options for verdict in possible):
            # some pool's machines are not known yet (said), or not in the catalog (cloud-machine-new-family's)
            if any(not verdict.options and verdict.unknown for verdict in possible):
                findings.append(undetermined(f"{workload.subject}: whether one Pod fits a node of the pools that may "
                                             f"take it is not judged: {unsure(landed, several)}"))
            continue
        request = workload.request
        unknown = next(iter(request.unknown.values()), None)
        if unknown is not None:
            findings.append(about(workload.subject, unknown))
            continue
        per_pool = [_largest(stack, verdict, request, by_pool[verdict.pool], settings, several)
                    for verdict in possible]
        if landed.unknown_cluster and any(misfit is None for misfit in per_pool):
            split = _by_cluster(landed, possible, per_pool)
            if split is not None:
                findings.append(undetermined(unknown_cluster(stack, workload, split)))
                continue
        if any(misfit is None for misfit in per_pool):
            maybe = [verdict.unknown for verdict, misfit in zip(possible, per_pool, strict=True) if misfit is None]
            # it fits only pools that may not take it (a taint the platform may set), beside pools that certainly
            # take it (without one, workload-schedulable says what is not known)
            if all(maybe) and landed.taking:
                findings.append(undetermined(
                    f"{workload.subject}: one Pod fits no node of the pools that certainly take it, only of pools that "
                    f"may: {unsure(landed, several)}, so whether it can be scheduled is not judged"))
            elif request.get(MEMORY) > 0:
                blind = [(verdict, nodes) for verdict in possible
                         if isinstance(nodes := pool_nodes(stack, verdict.pool, verdict.pool.platform, settings), list)
                         and any(not node.knows(MEMORY) for _option, node in nodes)]
                # said where it fits only machines whose memory the catalog does not know
                if blind and not _fits_known(stack, possible, request, by_pool, settings):
                    findings.append(_no_memory(blind[0][1], pool_name(blind[0][0].pool, several)))
            continue
        asked = listed([f"{show(resource, request.get(resource), resource in request.secret)} of {WHAT[resource]}"
                        for resource in CHECKED if request.get(resource) > 0], " and ") or "nothing"
        first = possible[0]
        family = first.options[0].hardware.family if first.options else None
        # a machine of the architectures its pools run (and its Pods allow): never an arm64 one for an amd64 cluster
        running = {architecture for verdict in possible for option in verdict.options
                   if (architecture := option.node_architecture) is not None}
        allowed = workload.constraint.allowed & running if running else workload.constraint.allowed
        daemonsets = by_pool[first.pool].daemonsets
        found, same = smallest_machine(stack, first.pool.platform or platform, request, allowed, family, settings,
                                       by_pool[first.pool].taken_known())
        if _from_secrets(request, daemonsets, allowed, first.options[0].hardware.name if first.options else None):
            found = None  # which machine holds the Pod would tell what the secret is
        images = sorted({image for verdict in possible for image in _driverless(stack, verdict, settings)})
        # GPUs asked of pools whose machines have none of them: machines with those GPUs, not larger ones
        without = [resource for resource in DEVICES if request.get(resource) > 0 and all(
            option.hardware.capacity.get(resource, 0) == 0 for verdict in possible for option in verdict.options)]
        kinds = MACHINE_KINDS.get(first.pool.platform or platform, "machines")
        wanted = f"{kinds} with {listed([_named_device(resource) for resource in without], ' and ')}" if without \
            else f"larger {kinds}"
        # the pools of its cluster whose machines have those devices and that do not take its Pods (a taint, a label):
        # why, in the scheduler's terms (a Pod that claims GPUs through DRA requests no extended resource, so no
        # admission tolerates a GPU pool's nvidia.com/gpu taint for it)
        kept_off = [reason(verdict, several) for verdict in landed.verdicts if verdict.refuses and any(
            option.hardware.capacity.get(resource, 0) > 0 for option in verdict.pool.options for resource in without)]
        fix = ("use an accelerated AMI type (AL2023_x86_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA), or lower its "
               "requests" if images and any(request.get(resource) > 0 for resource in DEVICES) else
               "let its Pods onto a pool that has them (the tolerations or labels it needs), or lower its requests"
               if kept_off else
               f"lower its requests or allow {wanted}{suggestion(found, first.pool.platform or platform, same)}")
        # where the platform adds pools of its own, why none of them takes the Pods either
        only = listed([f"{cluster.label}'s {why}" for cluster, why in landed.declared_only], "; ")
        only = f"; {only}" if only else ""
        if kept_off:
            only += f"; the pools whose machines have them do not take it: {listed(kept_off, '; ')}"
        message = (
            f"{workload.subject}: one Pod requests {asked}{_defaulted(request)}, more than any node of the pools that "
            "can take it: "
            f"{listed([misfit.text for misfit in per_pool if misfit], '; ')}{only}; it can never be scheduled: {fix}")
        if all(misfit is not None and misfit.slots for misfit in per_pool):
            message = (f"{workload.subject}: no node of the pools that can take it has a Pod slot left: "
                       f"{listed([misfit.text for misfit in per_pool if misfit], '; ')}; its Pods can never be "
                       "scheduled: move "
                       "DaemonSets to other pools or raise the nodes' maxPods")
        if elsewhere and provisioned(stack, landed, settings):
            continue  # its platform adds a node that holds it (GKE's default machines within the caps: SPEC 22)
        if elsewhere:  # its cluster may have pools the stack does not show (SPEC 14.2): a note naming those seen
            findings.append(undetermined(f"{message}; but {unshown(stack, elsewhere)}, so this is not judged"))
        else:
            findings.append(Violation(message, workload.urn))
    return findings


def _by_cluster(landed: Landing, possible: tuple[PoolVerdict, ...],
                per_pool: list[Misfit | None]) -> list[tuple[ClusterRef, str]] | None:
    """What holds on each candidate cluster, when one Pod fits no node of one candidate's pools and fits another's;
    None when the candidates agree."""
    said: list[tuple[ClusterRef, str]] = []
    fails = fits = False
    for candidate in landed.candidates:
        misfits = [misfit for verdict, misfit in zip(possible, per_pool, strict=True)
                   if candidate in landed.candidates_of(verdict.pool)]
        if not misfits:
            continue
        if all(misfit is not None for misfit in misfits):
            fails = True
            said.append((candidate.cluster,
                         f"one Pod fits no node ({listed([misfit.text for misfit in misfits if misfit], '; ')})"))
        else:
            fits = True
            said.append((candidate.cluster, "one Pod fits a node"))
    return said if fails and fits else None


def _asks(load: PoolLoad, resource: str) -> bool:
    """Some Pod whose room on the pool's nodes ``_pool`` checks requests some of the resource: a DaemonSet's, or one a
    ComputeCluster's labels place there (a Pod the scheduler places is checked by ``_platform_pools``, which says what
    it does not check)."""
    return any(resource not in placed.request.unknown and placed.request.get(resource) > 0
               for placed in (*(placed for placed in load.workloads if placed.named), *load.daemonsets))


def _fits_known(stack: Stack, possible: tuple[PoolVerdict, ...], request: PodRequest, by_pool: Mapping[Pool, PoolLoad],
                settings: Mapping[str, Any]) -> bool:
    """One Pod certainly fits a node of some pool that may take it: a machine of its whose memory the catalog knows
    holds it (after the pool's DaemonSets), so a machine whose memory it does not know decides nothing."""
    for verdict in possible:
        allowed = _allowed(stack, verdict, settings)
        if allowed is not None and any(node.knows(MEMORY) and by_pool[verdict.pool].fit(node, request).fits
                                       for _option, node in allowed):
            return True
    return False


def _no_memory(nodes: list[tuple[Option, Node]], where: str) -> Unknown:
    """A machine whose memory the catalog does not know: what fits on it is not checked, and said so."""
    names = listed(sorted({f"{node.machine}" for _option, node in nodes if not node.knows(MEMORY)}))
    return undetermined(f"the machine catalog has no memory for {names}, so the memory the Pods on {where} request "
                        "is not checked")


def _largest(stack: Stack, verdict: PoolVerdict, request: PodRequest, load: PoolLoad,
             settings: Mapping[str, Any], several: bool) -> Misfit | None:
    """None when some machine of the pool fits one Pod (after its DaemonSets); else why not: what its largest machines
    have."""
    nodes = _allowed(stack, verdict, settings)
    if nodes is None:
        return None  # a node that is not known: it might fit
    if len(nodes) != len({id(option) for option in verdict.options}):
        return None  # a machine whose node is not known: it might fit
    if any(load.fit(node, request).fits for _option, node in nodes):
        return None
    rooms = {resource: each for resource in CHECKED if isinstance(each := load.room(nodes, resource), Room)}
    short = [found for found in rooms.values() if request.get(found.resource) > found.free]
    where = pool_name(verdict.pool, several)
    blind = [found for found in short if found.resource in DEVICES and found.node.driverless]
    if blind:  # its machines have the GPUs, and its nodes' image advertises none of them
        node = blind[0].node
        return Misfit(f"{where} runs {node.machine}, whose GPUs its AMI type {node.driverless} does not advertise: "
                      f"it installs no NVIDIA driver, so its nodes have no {blind[0].resource}")
    if not short:
        slots = load.room(nodes, PODS)
        if isinstance(slots, Room) and slots.free < 1:  # every resource is there but a Pod slot
            node = slots.node
            return Misfit(f"{where}: a node ({machine(node)}) holds at most {amount(PODS, node.capacity[PODS])} "
                          f"Pods ({node.max_pods_source}) and its DaemonSets ({daemonset_list(load.daemonsets, PODS)}) "
                          "take every slot", slots=True)
        return Misfit(f"{where} has machines with enough of each resource, but none with all of them together")
    most = listed([f"at most {allocatable_sum(found.node, found.resource)}{_after(load, found)} of "
                   f"{WHAT[found.resource]} ({found.node.machine})" for found in short], " and ")
    return Misfit(f"{where} has {most}")


def _driverless(stack: Stack, verdict: PoolVerdict, settings: Mapping[str, Any]) -> tuple[str, ...]:
    """The node images of a pool that install no driver for its machines' GPUs."""
    nodes = pool_nodes(stack, verdict.pool, verdict.pool.platform, settings)
    return tuple(node.driverless for _option, node in nodes if node.driverless) if isinstance(nodes, list) else ()


def _after(load: PoolLoad, room: Room) -> str:
    """What a pool's DaemonSets take of a node, as a clause of its arithmetic."""
    if room.daemons <= 0:
        return ""
    return (f", - {show(room.resource, room.daemons, room.secret)} for DaemonSets "
            f"({daemonset_list(load.daemonsets, room.resource)})")


def _pool(stack: Stack, load: PoolLoad, nodes: list[tuple[Option, Node]], platform: str,
          settings: Mapping[str, Any], several: bool) -> list[Finding]:
    findings: list[Finding] = []
    rooms: dict[str, Room] = {}
    for resource in (*CHECKED, PODS):
        found = load.room(nodes, resource)
        if found is None:
            first = nodes[0][1]
            if resource in first.unknown and (load.daemonsets or load.workloads):
                findings.append(first.unknown[resource])
            elif resource == MEMORY and _asks(load, MEMORY):
                findings.append(_no_memory(nodes, pool_name(load.pool, several)))
            continue
        if isinstance(found, Unknown):
            findings.append(found)
            continue
        rooms[resource] = found
        if found.overflows:
            findings.extend(_daemonsets_overflow(load, found.node, resource, found.daemons, found.secret, several))
    for placed in load.workloads:  # on a pool its labels name (on one the scheduler takes it to: _platform_pools)
        if placed.named:
            node = nodes[0][1]  # a ComputeCluster pool has one machine
            findings.extend(_workload(stack, load, node, placed, rooms, platform, settings))
    return findings


def _daemonsets_overflow(load: PoolLoad, node: Node, resource: str, total: Decimal,
                         secret: bool, several: bool) -> list[Finding]:
    hidden = secret or resource in node.secret
    where = pool_name(load.pool, several)
    if resource == PODS:
        pods = node.capacity[PODS]
        text = (f"the {len(load.daemonsets)} DaemonSets of {where} ({daemonset_list(load.daemonsets, PODS)}) "
                f"need one Pod slot each on every node, but a node of it ({machine(node)}) holds at most "
                f"{amount(PODS, pods)} Pods ({node.max_pods_source}); some of them can never run there: move "
                "DaemonSets to other pools or raise the node's maxPods")
    else:
        text = (f"the DaemonSets of {where} request {show(resource, total, hidden)} of {WHAT[resource]} "
                f"on every node together ({daemonset_list(load.daemonsets, resource)}), more than a node of it "
                f"({machine(node)}) has: {allocatable_sum(node, resource)}; they can never all run on one node: "
                "lower their requests or use larger machines")
    return [Violation(f"{placed.workload.subject}: {text}", placed.workload.urn) for placed in load.daemonsets]


def _workload(stack: Stack, load: PoolLoad, node: Node, placed: Placed, rooms: Mapping[str, Room], platform: str,
              settings: Mapping[str, Any]) -> list[Finding]:
    findings: list[Finding] = []
    request = placed.request
    subject = placed.workload.subject
    where = pool_name(load.pool)
    for resource in CHECKED:
        wanted = request.unknown.get(resource)
        room = rooms.get(resource)
        if wanted is not None:
            if room is not None:
                findings.append(wanted)
            continue
        asked = request.get(resource)
        # DaemonSets that alone overflow a node are their own finding: the Pod is judged against the whole node
        free = None if room is None else room.allocatable if room.overflows else room.free
        if room is None or free is None or asked <= free:
            continue
        hidden = resource in request.secret or resource in node.secret
        # a GPU request names the smallest machine that has the GPUs, as a CPU or memory one names the one that has
        # the room (SPEC 16)
        suggested = _suggested(stack, load, placed, platform, settings) if not node.secret else ""
        if resource in DEVICES and node.capacity[resource] == 0:
            has = f"GPUs '{node.gpu_type}'" if node.gpu_type else "no GPU"
            findings.append(Violation(
                f"{subject}: its Pods request {show(resource, asked, hidden)} {resource}, but the machines of "
                f"{where} ({machine(node)}) have {has}; they can never be scheduled there: place the "
                f"workload on a pool whose machines have {DEVICES[resource].upper()} GPUs"
                f"{' that MIG splits' if resource == MIG_CLASS else ''}{suggested}",
                placed.workload.urn))
            continue
        daemons = ""
        # what is left after the DaemonSets is derived from their requests: secret when one of them is
        left_hidden = hidden or room.secret
        if load.daemonsets and not room.overflows and room.daemons != 0:
            daemons = (f", - {show(resource, room.daemons, left_hidden)} for DaemonSets "
                       f"({daemonset_list(load.daemonsets, resource)}) = {show(resource, free, left_hidden)} left")
        larger = "machines with more GPUs" if resource in DEVICES else "larger machines"
        fix = (f"request at most {show(resource, free, left_hidden)}, or place the workload on a pool of {larger}"
               if free > 0 else f"place the workload on a pool of {larger}")
        if resource != STORAGE:  # the catalog's machines say nothing of their disks
            fix += suggested
        findings.append(Violation(
            f"{subject}: one Pod requests {show(resource, asked, hidden)} of {WHAT[resource]}{_defaulted(request)}, "
            "more than a node of "
            f"{where} ({machine(node)}) can give it: {allocatable_sum(node, resource)}{daemons}; it can never "
            f"be scheduled there: {fix}", placed.workload.urn))
    pods = rooms.get(PODS)
    if pods is not None and pods.free < 1 and not pods.overflows:
        findings.append(Violation(
            f"{subject}: a node of {where} ({machine(node)}) holds at most {amount(PODS, node.capacity[PODS])} "
            f"Pods ({node.max_pods_source}) and its DaemonSets ({daemonset_list(load.daemonsets, PODS)}) take every "
            "slot; its Pods can never be scheduled there: move DaemonSets to other pools or raise the node's maxPods",
            placed.workload.urn))
    return findings


def _suggested(stack: Stack, load: PoolLoad, placed: Placed, platform: str, settings: Mapping[str, Any]) -> str:
    """The smallest catalog machine of the pool's architecture (and one its Pods allow) that holds one Pod."""
    machines = load.pool.machines_on(platform)
    architecture = machines.architecture
    allowed = placed.workload.constraint.allowed
    if isinstance(architecture, str):
        allowed = allowed & {node_label(architecture)}
    elif architecture is not None:
        return ""
    family = machines.options[0].hardware.family if machines.options else None
    if _from_secrets(placed.request, load.daemonsets, allowed, machines.options[0].hardware.name
                     if machines.options else None):
        return ""  # which machine holds the Pod would tell what the secret is
    found, same = smallest_machine(stack, platform, placed.request, frozenset(allowed), family, settings,
                                   load.taken_known())
    return suggestion(found, platform, same)


def _from_secrets(request: PodRequest, daemonsets: list[Placed], allowed: Iterable[str], machine_name: Any) -> bool:
    """Whether the smallest machine that holds the Pod would be computed from a secret: its requests, the
    DaemonSets' beside it, the architectures it allows or the pool's machine (whose family it prefers)."""
    return (bool(request.secret) or any(placed.request.secret for placed in daemonsets)
            or any(is_secret(name) for name in allowed) or is_secret(machine_name))


def _check(stack: Stack, context: Context) -> list[Finding]:
    assert context.platform is not None
    with exact():
        return workload_fits_pool(stack, context.platform, dict(context.config))


POLICY = Policy(
    name="workload-fits-pool",
    subject="stack",
    description="One Pod of every workload fits one empty node of the compute pool it is placed on, after the "
                "pool's DaemonSets: CPU, memory, ephemeral storage, GPUs and Pod slots against the node's "
                "allocatable (its profile or machine, less the platform's reservations).",
    severity=Severity.HIGH,
    settings={"allocatable": ALLOCATABLE_SCHEMA},
    platforms=PLATFORMS,
    platforms_label="a known platform",
    remediation_steps="Lower the workload's requests (and its DaemonSets'), or place it on a pool whose machines "
                      "are larger (profile or instanceType). If your nodes reserve less than the platform's "
                      "default, say so with the 'allocatable' setting.",
    dependents=True,
    check=_check,
    placement=True,
)
