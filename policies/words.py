"""Words several policies write alike: how a pool, a node and an amount are named in a message, and the arithmetic
of allocatable. Each policy still writes its own sentences (a layout test keeps Violation in policy modules); these
are the phrases they share, so that one pool reads the same in every message and in the report.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from .model.clusters import Unwritten
from .model.labels import ARCH_LABELS, OS
from .model.landing import Landing, PoolVerdict
from .model.loads import Placed, PoolLoad
from .model.nodes import PARTS, Node
from .model.placement import Need
from .model.pods import DEVICE_CLASSES, GPU_RESOURCES
from .model.pool import THIS_STACK, ClusterRef, Pool
from .model.scheduling import LabelMismatch
from .model.stack import Stack
from .model.totals import Totals
from .model.values import REDACTED, Unknown, listed, more, undetermined
from .model.workloads import Workload
from .platforms.catalog import PLATFORM_NAMES, Machine
from .platforms.managed import managed
from .platforms.quantity import CPU, MEMORY, PODS, STORAGE, amount

WHAT = {CPU: "CPU", MEMORY: "memory", STORAGE: "ephemeral storage", PODS: "Pod slots",
        **{resource: resource for resource in GPU_RESOURCES},
        **{name: f"DRA {name} devices" for name in DEVICE_CLASSES}}
LISTED = 10  # how many names a message lists before "and N more" (a cluster may have thousands of pools)


def show(resource: str, value: Decimal, secret: bool) -> str:
    return REDACTED if secret else amount(resource, value)


def replicas_shown(placed: Placed) -> str:
    """A workload's Pod count as policy 12 counts it, naming the HPA whose minReplicas raised it."""
    count = placed.count
    shown = REDACTED if placed.secret else str(count)
    if placed.autoscaler is not None and not placed.autoscaler_secret:  # naming it would tell the secret target
        return f"{shown} (HorizontalPodAutoscaler '{placed.autoscaler.name}' minReplicas)"
    return shown


def consumer(placed: Placed, resource: str, secret: bool) -> str:
    """A workload's share of a resource: its replicas, times one Pod's request."""
    if resource == PODS:
        return f"{placed.workload.subject} {replicas_shown(placed)}"
    each = show(resource, placed.request.get(resource), secret)
    return f"{placed.workload.subject} {replicas_shown(placed)} x {each}"


def pool_name(pool: Pool, several: bool = False) -> str:
    """How a message names a pool: pool 'apps' of ComputeCluster 'compute'; pool 'batch' (NodePool); pool
    'default-pool' of GKE cluster 'gke'; with ``several`` clusters in the stack, every platform pool with its own."""
    if pool.member:  # one of the pools its cluster declares
        return f"{pool.member} of {pool.cluster.label}"
    if (several or pool.cluster.stack) and pool.cluster.name:  # another stack's pool: with its cluster and stack
        return f"{pool.label} of {pool.cluster.label}"
    return pool.label


def pool_subject(pool: Pool, several: bool = False) -> str:
    """A pool as the subject of a finding reported on it: ComputeCluster 'compute' pool 'apps'; NodeGroup 'general'."""
    if pool.member:
        return f"{pool.cluster.label} {pool.member}"
    if (several or pool.cluster.stack) and pool.cluster.name:
        return f"{pool.kind} '{pool.name}' of {pool.cluster.label}"
    return f"{pool.kind} '{pool.name}'"


def subjects(workloads: list[Workload]) -> str:
    """The first LISTED workloads as messages name them (Pod 'a', Deployment 'b'), and how many more."""
    return listed(workload.subject for workload in workloads[:LISTED]) + more(workloads, LISTED)


def namespace_named(namespace: object) -> str:
    """A namespace as messages name it: namespace 'team'; or, while the name its provider gives what names none is not
    known yet (clusters.Unwritten), which one it is."""
    if isinstance(namespace, Unwritten):
        return f"the namespace provider '{namespace.provider_name}' gives what names none (its name not known yet)"
    return f"namespace '{namespace}'"


def machine(node: Node) -> str:
    return f"machine {node.machine}" if node.machine else "its profile"


def allocatable_sum(node: Node, resource: str) -> str:
    """capacity - each reservation = allocatable, in the resource's unit."""
    hidden = resource in node.secret
    capacity = node.capacity[resource]
    text = f"{show(resource, capacity, hidden)} capacity"
    for part in PARTS:
        reserved = node.reserved.get(resource, {}).get(part)
        if reserved:
            label = part if f"{resource} {part}" not in node.overridden else f"{part} (as configured)"
            text += f" - {show(resource, reserved, hidden)} {label}"
    allocatable = node.allocatable(resource)
    assert allocatable is not None
    if text.endswith(" capacity"):
        return f"{show(resource, allocatable, hidden)} allocatable"
    return f"{text} = {show(resource, allocatable, hidden)} allocatable"


def suggestion(found: Machine | None, platform: str | None, same_family: bool) -> str:
    """The smallest machine that would hold one Pod, as a message's last clause (empty when none is known)."""
    if found is None or platform not in PLATFORM_NAMES:
        return ""
    memory = f", {amount(MEMORY, Decimal(found.memory_mib) * 1024 * 1024)}" if found.memory_mib is not None else ""
    where = "of its family " if same_family else ""
    return (f" (the smallest {PLATFORM_NAMES[platform]} machine {where}whose node holds one Pod: "
            f"{found.name}, {found.vcpus} vCPUs{memory})")


def because(need: Need) -> str:
    """What says the Pods need their architecture (workload-node-architecture and workload-architecture-pin)."""
    if need.pool is not None and need.entry is not None:
        where = f"{need.pool.label} of ComputeCluster '{need.entry.label}'"
        if need.machine is not None:
            return f"{where} runs {need.machine.named}, an {need.architecture} machine"
        return f"{where} declares {need.architecture}"
    return f"the stack's compute pools {'run' if need.provided else 'declare'} {need.architecture}"


def which_cluster(stack: Stack, workload: Workload) -> tuple[str, str]:
    """Who decides a workload's cluster, and the fix, when the pack cannot tell which it is (SPEC 14.4)."""
    resource = stack.resources.get(workload.urn)
    provider = resource.provider if resource is not None else None
    if provider and "::pulumi:providers:kubernetes::" in provider and not provider.rsplit("::", 1)[-1].startswith(
            "default"):
        who = f"the Kubernetes provider '{provider.rsplit('::', 1)[-1]}' it is deployed with"
        if any(name != THIS_STACK for name in stack.foreign.values()):  # an app stack over its platform stacks
            return (who, "give that Provider the kubeconfig of one cluster of its platform stack (the pack matches its "
                         "clusters' and contexts' names, its server and an exec plugin's --cluster-name to the "
                         "platform's clusters, and this one names none of them, or more than one)")
        # (an output invoke whose arguments are not known yet drops its dependencies: the platform's usual one)
        invokes = {managed(pool.platform).kubeconfig_invoke for pool in stack.platform_pools} - {""}
        example = f", such as {next(iter(invokes))}" if len(invokes) == 1 else ""
        return (who, "give the Provider opts=ResourceOptions(depends_on=[<its cluster>]) (its kubeconfig depends on "
                     f"no cluster resource: an output invoke whose arguments are not known yet{example} in a first "
                     "preview, drops its dependencies)")
    return ("the default Kubernetes provider it is deployed with",
            "deploy it with an explicit Kubernetes provider whose kubeconfig comes from its cluster, or "
            "opts=ResourceOptions(depends_on=[<its cluster>]) on that Provider")


def unknown_cluster(stack: Stack, workload: Workload, verdicts: Iterable[tuple[ClusterRef, str]]) -> str:
    """A note's words for a workload whose cluster the pack cannot tell and whose verdict differs between the
    candidates (SPEC 14.4): what holds on each, and the fix. ``verdicts``: each candidate and what holds there."""
    who, fix = which_cluster(stack, workload)
    said = listed((f"on {cluster.label}: {what}" for cluster, what in verdicts), "; ")
    return (f"{workload.subject}: which cluster {who} targets is not known, and its verdict differs between the "
            f"clusters it may run on ({said}), so it is not judged: {fix}")


def its_cluster(cluster: ClusterRef) -> str:
    """A pool's cluster in a note: its label, or "its cluster" when its name is not known."""
    return cluster.label if cluster.name else "its cluster"


def unshown(stack: Stack, clusters: list[ClusterRef]) -> str:
    """Why these clusters may have pools the stack does not declare (the clause after "but"), in the words of what
    the pack does not read of each (its source's Unread: GKE's node auto-provisioning, a Fargate profile, ...), else
    that they may."""
    whys = {item.urn: f"{item.kind} '{item.name}' {item.why}" for item in stack.unread}
    said = [whys.get(cluster.key) or f"{its_cluster(cluster)} may have pools this stack does not declare"
            for cluster in clusters]
    return listed(dict.fromkeys(said), "; and ")


def unsure(landed: Landing, several: bool) -> str:
    """Why a workload's verdict is not known (the clause after "but"): the pools that may take its Pods and whose
    verdict is not known, and the first reason; or its own constraints, when they are not known yet."""
    own = landed.workload.scheduling.unknown
    if own is not None:
        return f"its nodeSelector, node affinity or tolerations are not known yet ({own.words})"
    verdicts = [verdict for verdict in landed.possible if verdict.unknown is not None]
    pools = listed(pool_name(verdict.pool, several) for verdict in verdicts[:LISTED]) + more(verdicts, LISTED)
    first = verdicts[0].unknown if verdicts else landed.unknown
    reason = f" ({first.words})" if first is not None else ""
    verb = "takes" if len(verdicts) == 1 else "take"
    return f"whether {pools or 'its pools'} {verb} its Pods is not known{reason}"


def instead(load: PoolLoad, moving: list[Placed], several: bool, named: bool = True) -> str:
    """Where the workloads a pool would hold may run instead, so that what fails with them is a note (the clause after
    "but"): pools that may take them, whose labels are not known yet (``load.instead``), or pools of their cluster the
    stack does not show (SPEC 14.2). ``named``: the message does not name the one workload already."""
    by_pools: dict[tuple[int, ...], list[Placed]] = {}
    unseen: list[Placed] = []
    for placed in moving:
        others = load.instead.get(id(placed))
        if others:
            by_pools.setdefault(tuple(id(verdict.pool) for verdict in others), []).append(placed)
        else:
            unseen.append(placed)
    clauses = []
    for group in by_pools.values():
        others = load.instead[id(group[0])]
        who = listed(placed.workload.subject for placed in group) if named else "it"
        pools = listed(pool_name(verdict.pool, several) for verdict in others)
        reason = others[0].unknown.words if others[0].unknown is not None else ""
        clauses.append(f"{who} may run on {pools} instead, which may take {'it' if len(group) == 1 else 'them'} "
                       f"({reason})")
    if unseen:
        where = its_cluster(load.pool.cluster)
        who = f", where {listed(placed.workload.subject for placed in unseen)} may run instead" if named else ""
        clauses.append(f"{where} may have pools this stack does not declare{who}")
    return listed(clauses, "; and ")


def counted_nodes(found: Totals) -> str:
    """The nodes a pool's totals count: its maxSize, or the fewer its addresses hold (pool-capacity and
    workload-rollout-fits say the one count the same way)."""
    maximum = found.pool.max_size
    if found.limited and isinstance(maximum, int):
        return f"the {found.size} node{'' if found.size == 1 else 's'} of its maxSize {maximum} that {found.limited}"
    return f"its maxSize of {nodes(found.pool, found.size)}"


def nodes(pool: Pool, count: int) -> str:
    """Its maxSize in nodes, with the arithmetic where its source counts nodes per zone: "3 nodes (nodeCount 1 x 3
    zones)"."""
    text = f"{count} node{'' if count == 1 else 's'}"
    zones = pool.size_zones
    if zones and zones > 1 and count % zones == 0:
        text += f" ({pool.size_field} {count // zones} x {zones} zones)"
    return text


def more_nodes(pool: Pool, needed: int, hidden: bool = False) -> str:
    """A fix's clause for a pool that needs ``needed`` nodes: its size input raised to give that many (per zone where
    its source counts per zone), or nothing when its source allows no more; a number from a secret reads so."""
    if pool.most_nodes is not None and needed > pool.most_nodes:
        return ""
    if hidden:
        return f"raise {pool.size_field} to at least {REDACTED}, "
    zones = pool.size_zones
    if zones and zones > 1:
        per_zone = -(-needed // zones)
        return (f"raise {pool.size_field} to at least {per_zone} ({per_zone} x {zones} zones = {per_zone * zones} "
                "nodes), ")
    return f"raise {pool.size_field} to at least {needed}, "


def fewer_nodes(pool: Pool, allowed: int) -> str:
    """A fix's clause for a pool that can run at most ``allowed`` nodes: its size input lowered to give no more (per
    zone where its source counts per zone); "" where that is no node."""
    zones = pool.size_zones
    if zones and zones > 1:
        per_zone = allowed // zones
        return f"lower {pool.size_field} to at most {per_zone} ({per_zone} x {zones} zones = {per_zone * zones} " \
               "nodes)" if per_zone > 0 else ""
    return f"lower {pool.size_field} to at most {allowed}" if allowed > 0 else ""


def size_unknown(pool: Pool, several: bool, what: str) -> Unknown:
    """The note of a policy that needs a pool's size and cannot read it, alike in every policy: what is missing."""
    return undetermined(f"{pool_subject(pool, several)}: {pool.size_note}, so whether it {what} is not judged")


def pool_capacity_types(pool: Pool) -> tuple[str, ...] | None:
    """Its nodes' capacity types, as workload-interruption-tolerant reads them: reclaimable (spot, preemptible), the
    ones a NodePool allows (karpenter.sh/capacity-type; on-demand when it names none), else on-demand; None when not
    known."""
    if pool.interruption is None:
        return None
    if pool.interruption:
        return (pool.interruption,)
    domain = pool.labels.get(pool.capacity_label) if pool.capacity_label else None
    if isinstance(domain, frozenset) and domain:
        return tuple(sorted(format(kind) for kind in domain))  # a secret one reads [secret]
    return ("on-demand",)


def pool_systems(pool: Pool) -> tuple[str, ...] | None:
    """The operating systems its nodes run (kubernetes.io/os, as workload-node-os reads it), when its source says."""
    domain = pool.labels.get(OS)
    if not isinstance(domain, frozenset) or not domain:
        return None
    return tuple(sorted(format(system) for system in domain))


def pool_zones(pool: Pool) -> tuple[str, ...] | None:
    """Its zones as the report shows them (a secret one reads [secret])."""
    if not isinstance(pool.zones, tuple):
        return None
    return tuple(format(zone) for zone in pool.zones)


__all__ = ["WHAT", "allocatable_sum", "because", "instead", "its_cluster", "listed", "machine", "more_nodes", "nodes",
           "pool_capacity_types", "pool_name", "pool_subject", "pool_systems", "pool_zones", "show", "size_unknown",
           "suggestion", "unknown_cluster", "unsure", "which_cluster"]


# How each platform's drain meets a budget that allows no eviction, in its own words (platforms/managed.py
# drain_failure); Karpenter never evicts a Pod its budget protects and waits (karpenter.sh/docs/concepts/disruption,
# "Pod-level controls"); kubectl drain retries the eviction until its --timeout, infinite by default.
KARPENTER_WAITS = "Karpenter waits on the budget and never finishes replacing the nodes"
DRAIN_WAITS = "a drain fails, or retries until the budget allows an eviction"


def drain_fails(pools: Iterable[Pool]) -> str:
    """What a drain of these pools' nodes does with Pods no eviction may take, as each platform says it (no pool
    known: what any drain does)."""
    said: list[str] = []
    for pool in pools:
        text = KARPENTER_WAITS if pool.karpenter else managed(pool.platform).drain_failure or DRAIN_WAITS
        if text not in said:
            said.append(text)
    return listed(said, "; ") if said else DRAIN_WAITS


def drain_events(pools: Iterable[Pool]) -> str:
    """What drains these pools' nodes: upgrades and machine changes everywhere, and Karpenter's consolidation where
    Karpenter runs them."""
    karpenter = any(pool.karpenter for pool in pools)
    return f"a node upgrade, a machine change{', Karpenter consolidation' if karpenter else ''}"


def reason(verdict: PoolVerdict, several: bool = False) -> str:
    """Why one pool refuses the Pods, in the scheduler's terms."""
    parts = []
    if verdict.untolerated:
        taints = listed([taint.text for taint in verdict.untolerated])
        parts.append(f"has {'taint' if len(verdict.untolerated) == 1 else 'taints'} {taints} that it does not "
                     "tolerate")
    if verdict.mismatch is not None:
        parts.append(label_reason(verdict, verdict.mismatch))
    return f"{pool_name(verdict.pool, several)} {listed(parts, ' and ')}"


def label_reason(verdict: PoolVerdict, mismatch: LabelMismatch) -> str:
    if mismatch.failure == "selector" and mismatch.key in ARCH_LABELS:
        runs = listed(sorted({found for option in verdict.pool.options
                              if (found := option.labels.get(mismatch.key)) is not None}))
        return f"runs {runs or 'no'} nodes, not {mismatch.value} (its nodeSelector's {mismatch.key})"
    if mismatch.failure == "selector":
        return f"does not have label {mismatch.key}={mismatch.value}"
    if mismatch.key is not None:
        return f"has no node its required node affinity on {mismatch.key} matches"
    return "has no node any term of its required node affinity matches"


def shared_claims(names: Iterable[str]) -> str:
    """The shared ResourceClaims named, in words: the shared ResourceClaim 'gpus'; the shared ResourceClaims 'a',
    'b'."""
    found = list(names)
    quoted = listed([f"'{name}'" for name in found])
    return f"the shared ResourceClaim{'s' if len(found) > 1 else ''} {quoted}"
