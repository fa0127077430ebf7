"""pool-capacity: at its maxSize, each pool can hold every Pod placed on it.

Per resource, the replicas of the pool's workloads times their Pod's request, plus maxSize times its
DaemonSets' requests, must not exceed maxSize times a node's allocatable; Pods must not exceed
maxSize times maxPods; a workload whose Pods repel each other on ``kubernetes.io/hostname`` needs a
node per replica. Replicas are ``spec.replicas`` (default 1), a Job's parallelism, one for a Pod,
and a HorizontalPodAutoscaler's minReplicas when it asks for more (an HPA that may be the workload's, its
namespace, target or minReplicas not known yet in a first preview, is said, the count left at the certain one).
These are necessary conditions:
bin-packing can still leave Pods Pending when they hold, and the rule never claims otherwise; what
it rejects can never all run. One workload's identical Pods also fit at most
floor(what a node has left / one Pod's request) to a node, which is certain too. GPUs claimed through Dynamic
Resource Allocation count as requests (SPEC 24): a ResourceClaimTemplate's per Pod, a ResourceClaim the Pods share once
(it is allocated once, on one node), where every workload that names it is counted on the pool.

On pools a platform declares (SPEC 14.3) the same arithmetic holds for the workloads only that pool can take, by the
scheduler's rules: their DaemonSets take their room and a Pod slot on every node, Pod slots are maxSize x maxPods,
and each node has at most its largest machine's allocatable. A Karpenter NodePool has no node count: its
``spec.limits`` caps what all its nodes may have together.

A cluster that caps all its nodes together (SPEC 22: GKE's ``clusterAutoscaling.resourceLimits``, for declared pools
and auto-provisioned ones alike, kubernetes/k8s.io#2003) is refused when its workloads request more CPU or memory
than the cap (and than its pools' minimum nodes) lets its nodes have (memory's maximum, in gigabytes, read in GiB: the
larger unit); a declared pool on it is counted at the nodes the cap allows, the CPU cap less what the other pools take
at their minimum size, with the arithmetic. GPU limits are not read yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.clusters import KubeCluster
from .model.loads import Placed, PoolLoad, counted, loads, placed_of, pool_nodes
from .model.nodes import ALLOCATABLE_SCHEMA, Node
from .model.pool import Option, Pool, stack_named
from .model.stack import Stack
from .model.totals import Row, Totals, demand, machine_capacities, node_limit, pool_totals
from .model.values import REDACTED, Unknown, more, undetermined
from .platforms.platform import PLATFORMS
from .platforms.quantity import CPU, MEMORY, PODS, exact
from .words import (
    WHAT,
    allocatable_sum,
    consumer,
    counted_nodes,
    instead,
    its_cluster,
    machine,
    more_nodes,
    pool_name,
    pool_subject,
    replicas_shown,
    shared_claims,
    show,
    size_unknown,
    which_cluster,
)

LARGEST = 3  # consumers named in a message


def pool_capacity(stack: Stack, platform: str, settings: dict) -> list[Finding]:
    """Every pool holds, at its maxSize, everything placed on it."""
    load = loads(stack, platform)
    findings: list[Finding] = list(load.unknown)
    several = stack.several_clusters
    for pool_load in load.pools:
        theirs = stack.foreign.get(pool_load.pool.urn)
        if theirs is not None:  # another stack's pool (SPEC 18): judged for this stack's workloads on it
            findings.extend(_foreign(stack, pool_load, platform, settings, several, theirs))
            continue
        if pool_load.workloads:
            findings.extend(_limits(pool_load, several))
            findings.extend(_pool(stack, pool_load, platform, settings, several))
        if pool_load.elsewhere:
            findings.extend(_elsewhere(stack, pool_load, platform, settings, several))
        if pool_load.maybe or pool_load.maybe_daemonsets:
            findings.extend(_which_cluster(stack, pool_load, platform, settings, several))
    findings.extend(_cluster_caps(stack))
    return findings


def _declared(stack: Stack, cluster: str, resource: str) -> Decimal | Pool:
    """The CPU or memory the cluster's pools keep at their minimum size, on their largest machines (nodes that exist
    whatever its cap); a pool whose minimum or machine is not known, where one is."""
    total = Decimal(0)
    for pool in stack.platform_pools:
        if (joined := stack.cluster_for(pool)) is None or joined.urn != cluster:
            continue
        found = machine_capacities(pool, resource)
        if not isinstance(pool.min_size, int) or not found:
            return pool
        total += pool.min_size * max(found)
    return total


def _kept(resource: str, floor: Decimal | Pool, cap: Decimal) -> str:
    """What the cluster's pools keep at their minimum sizes, where that is more than its cap (those nodes exist
    whatever the cap), as a clause."""
    if not isinstance(floor, Decimal) or floor <= cap:
        return ""
    return f" or the {show(resource, floor, False)} its pools keep at their minimum sizes"


# what a cluster's cap on each resource is called, and what the cluster autoscaler says when it stops there (GKE's
# scale-up event, as users meet it: "pod didn't trigger scale-up: max cluster cpu, memory limit reached")
_CAPPED = {CPU: ("CPU", "cpu", "max cluster cpu limit reached", ""),
           MEMORY: ("memory", "memory", "max cluster cpu, memory limit reached",
                    "; its maximum read in GiB, the larger of the gigabytes GKE counts in and GiB")}


def _cluster_caps(stack: Stack) -> list[Finding]:
    """A cluster whose platform caps all its nodes' CPU or memory together (SPEC 22: GKE's clusterAutoscaling.
    resourceLimits, declared pools and auto-provisioned ones alike): the Pods its workloads run request more than the
    cap lets all its nodes have (and a node's allocatable is less than its capacity), so some never schedule, whatever
    pools the platform adds. Counted: the workloads the stack certainly places on that cluster, at their replicas."""
    findings: list[Finding] = []
    for cluster in stack.kube_clusters:
        if cluster.urn in stack.foreign:
            continue
        for resource, cap in cluster.provisioning.caps if cluster.provisioning is not None else ():
            findings.extend(_over_cap(stack, cluster, resource, cap))
    return findings


def _over_cap(stack: Stack, cluster: KubeCluster, resource: str, cap: Decimal) -> list[Finding]:
    what, field, event, unit = _CAPPED[resource]
    chosen = []
    for workload in stack.workloads:
        if workload.kind == "DaemonSet" or workload.patch or not workload.has_pod_spec:
            continue
        if stack.cluster_for(workload.urn) is not cluster:
            continue
        placed = placed_of(stack, workload)
        if isinstance(placed.count, int) and placed.count > 0:
            chosen.append((placed, placed.count))
    summed = demand(chosen, resource)
    total, consumers, secret = summed.total, summed.consumers, summed.secret
    floor = _declared(stack, cluster.urn, resource)
    if total <= cap or (isinstance(floor, Decimal) and total <= floor):
        return []  # (nodes its pools keep at their minimum size exist whatever the cap)
    largest = listed(consumer(placed, resource, secret) for _, placed, _ in consumers[:LARGEST])
    message = (f"{cluster.kind} '{cluster.name}': its workloads request {show(resource, total, secret)} of {what} "
               f"(largest: {largest}{more(consumers, LARGEST)}), more than the {show(resource, cap, False)} its "
               "clusterAutoscaling.resourceLimits let all its nodes have together (declared pools and "
               f"auto-provisioned ones alike{unit}){_kept(resource, floor, cap)}, so at least "
               f"{show(resource, total - max(cap, floor if isinstance(floor, Decimal) else cap), secret)} of Pods "
               f"never schedule (\"{event}\"): raise the {field} maximum, or run fewer replicas")
    if not isinstance(floor, Decimal):  # its minimum nodes exist whatever the cap, and they are not known
        which = pool_name(floor, stack.several_clusters)
        return [undetermined(f"{message}; but the minimum size or machine of {which} is not known, and its minimum "
                             "nodes exist whatever the cap: this is not judged")]
    return [Violation(message, cluster.urn)]


def _foreign(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any], several: bool,
             theirs: str) -> list[Finding]:
    """Another stack's pool, holding this stack's workloads beside its own stack's workloads and DaemonSets: what does
    not fit is reported once, on the one of this stack's workloads there that requests the most (never on the pool, a
    resource of another stack), naming them all and saying that other app stacks' Pods there are not counted (what
    does not fit already is certain)."""
    own = [placed for placed in load.workloads if placed.workload in stack.own]
    if not own:
        return []  # the other stack's own affair
    found = [*_limits(load, several), *_pool(stack, load, platform, settings, several)]
    whose = f"stack {stack.name}'s" if stack.name else "this stack's"
    named = sorted(own, key=lambda placed: placed.workload.name)
    workloads = listed(placed.workload.subject for placed in named[:LARGEST]) + more(named, LARGEST)
    target = max(own, key=_weight).workload.urn
    return [Violation(f"{finding.message} ({whose} {workloads} beside {stack_named(theirs)}'s own; other app stacks' "
                      "Pods on it are not counted)", target) if isinstance(finding, Violation) else finding
            for finding in found]


def _weight(placed: Placed) -> tuple[Decimal, Decimal]:
    """What a workload's Pods request together, memory before CPU (a count or request not known counts nothing)."""
    count = placed.count
    if not isinstance(count, int):
        return Decimal(0), Decimal(0)
    request = placed.request

    def total(resource: str) -> Decimal:
        return count * request.get(resource) if resource not in request.unknown else Decimal(0)
    return total("memory"), total("cpu")


def _violations(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any],
                several: bool) -> list[Violation]:
    return [finding for finding in _pool(stack, load, platform, settings, several) + _limits(load, several)
            if isinstance(finding, Violation)]


def _which_cluster(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any],
                   several: bool) -> list[Finding]:
    """Workloads whose cluster the pack cannot tell (SPEC 14.4) and that this pool would hold if they run on its
    cluster: what would not fit with them is a note naming them and the fix, never a violation."""
    whole = load.counting(load.maybe, load.maybe_daemonsets)
    found = _violations(stack, whole, platform, settings, several)
    if not found and isinstance(nodes := pool_nodes(stack, load.pool, platform, settings), list):
        before = {id(placed) for placed in counted(load, nodes)[1]}
        squeezed = [placed for placed in counted(whole, nodes)[1] if id(placed) not in before]
        found = [Violation(f"{pool_subject(load.pool, several)}: one Pod of "
                           f"{listed(placed.workload.subject for placed in squeezed)} fits no node of it with the "
                           "DaemonSets this counts", load.pool.urn)] if squeezed else []
    if not found or _violations(stack, load, platform, settings, several):
        return []
    maybe = [*load.maybe_daemonsets, *load.maybe]
    who, fix = which_cluster(stack, maybe[0].workload)
    if len(maybe) > 1:
        who = "their Kubernetes providers target"
    else:
        who = f"{who} targets"
    where = its_cluster(load.pool.cluster)
    return [undetermined(f"{found[0].message}; but this counts {listed(placed.workload.subject for placed in maybe)} "
                         f"on {where}, and which cluster {who} is not known, so this is not judged: {fix}")]


def _elsewhere(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any],
               several: bool) -> list[Finding]:
    """The workloads only this pool takes of those the stack shows, on a cluster that may have pools it does not
    show (SPEC 14.2): what would not fit is a note, never a violation."""
    whole = load.counting(load.elsewhere)
    found = [finding for finding in _pool(stack, whole, platform, settings, several)
             + _limits(whole, several) if isinstance(finding, Violation)]
    if not found or [f for f in _pool(stack, load, platform, settings, several) if isinstance(f, Violation)]:
        return []
    nodes = pool_nodes(stack, load.pool, platform, settings)
    kept = {id(placed) for placed in counted(whole, nodes)[0]} if isinstance(nodes, list) else set()
    moving = [placed for placed in load.elsewhere if id(placed) in kept] or load.elsewhere
    return [undetermined(f"{found[0].message}; but {instead(load, moving, several)}, so this is not judged")]


def _limits(load: PoolLoad, several: bool) -> list[Finding]:
    """A NodePool's spec.limits caps its nodes' capacity: Karpenter launches no node past them."""
    findings: list[Finding] = []
    pool = load.pool
    for resource, limit in pool.limits.items():
        if isinstance(limit, Unknown):
            findings.append(limit)
            continue
        summed = demand([(placed, placed.count) for placed in load.workloads
                         if isinstance(placed.count, int) and placed.count != 0], resource)
        total, consumers, hidden = summed.total, summed.consumers, summed.secret
        if total > limit:
            needed = show(resource, total, hidden)
            findings.append(Violation(
                f"{pool_subject(pool, several)}: its spec.limits.{resource} allows {show(resource, limit, False)} of "
                f"{WHAT[resource]} on all its nodes together, but the workloads only it can take request {needed} "
                f"({_largest(consumers, resource)}); Karpenter launches no node past its limits, so some of their "
                f"Pods would stay Pending: raise spec.limits.{resource} to at least {needed} or let another pool "
                "take some of them", pool.urn))
    return findings


def _largest(consumers: tuple[tuple[Decimal, Placed, int], ...], resource: str) -> str:
    largest = listed(consumer(placed, resource, placed.secret or resource in placed.request.secret)
                     for _amount, placed, _count in consumers[:LARGEST])
    return f"largest: {largest}{more(consumers, LARGEST)}"


def _pool(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any], several: bool) -> list[Finding]:
    findings: list[Finding] = []
    pool = load.pool
    size = pool.max_size
    if isinstance(size, Unknown):
        return [size]
    if size is None:
        return [size_unknown(pool, several, "holds the Pods placed on it")] if pool.size_note else []
    subject = pool_subject(pool, several)
    limit = node_limit(stack, pool)  # fewer nodes than maxSize its addresses or its cluster's cap allow
    most, why = (limit.nodes, f"of its maxSize {size}, {limit.why}") if limit is not None else (size, "maxSize")
    for placed in load.workloads:
        count = placed.count
        hidden = placed.secret
        if placed.repels and isinstance(count, int) and count > most:
            findings.append(Violation(
                f"{subject}: {placed.workload.subject} runs {replicas_shown(placed)} Pods that may not share a node "
                f"(required pod anti-affinity on {placed.workload.repel_key}), but the pool has at most {most} nodes "
                f"({why}); {REDACTED if hidden else count - most} of them can never be scheduled: "
                f"{_more(pool, count, hidden, limit.fix if limit is not None else '')}or run fewer replicas",
                pool.urn))
    if not any(isinstance(placed.count, Unknown) or (isinstance(placed.count, int) and placed.count > 0)
               for placed in load.workloads):
        return findings
    found = pool_totals(stack, load, platform, settings)
    if found is None:
        return findings
    if isinstance(found, Unknown):
        return [*findings, found]
    findings.extend(found.unknown)
    # A Pod that fits no node is workload-fits-pool's finding; the totals stay a lower bound without it, and
    # say so (the report leaves out the same workloads: policies/model/loads.py, counted).
    if not found.counted:
        return findings
    failed = [_total(found, row, subject) for row in found.rows if row.full and not row.overflows]
    findings.extend(failed)
    if not failed:
        findings.extend(_packing(found, subject))
    return findings


def _more(pool: Pool, needed: int, hidden: bool, limit_fix: str) -> str:
    """The fix's clause for more nodes: a larger maxSize, or, where fewer nodes are all it can have, what lets it have
    more (addresses, its cluster's cap: ``limit_fix``)."""
    if limit_fix:
        return f"{limit_fix}, "
    return more_nodes(pool, needed, hidden)


def _nodes(count: int) -> str:
    return f"{count} node{'' if count == 1 else 's'}"


def _holder(nodes: list[tuple[Option, Node]], node: Node) -> str:
    """The machine whose node holds the most of a workload's Pods."""
    return machine(node) if len(nodes) == 1 else f"its machine that holds the most of them, {node.machine}"


def _machine(nodes: list[tuple[Option, Node]], node: Node) -> str:
    return machine(node) if len(nodes) == 1 else f"its largest machine {node.machine}"


def _total(found: Totals, row: Row, subject: str) -> Violation:
    """A resource the workloads and DaemonSets placed on the pool request more of than maxSize nodes have."""
    resource, node, size, secret = row.resource, row.node, row.size, row.secret
    largest = listed(consumer(placed, resource, secret) for _, placed, _count in row.consumers[:LARGEST])
    what = "Pods" if resource == PODS else f"of {WHAT[resource]} allocatable"
    daemon_text = (f"its DaemonSets take {size} x {show(resource, row.daemons, secret)} = "
                   f"{show(resource, size * row.daemons, secret)} and " if row.daemons > 0 else "")
    verb = "run" if resource == PODS else "request"
    fix = "use larger machines or move workloads to another pool"
    needed = found.needed  # by the totals and by each workload's packing: the nodes a fix must give
    if needed > size:
        fix = f"{_more(found.pool, needed, secret or found.needed_secret, found.limit_fix)}{fix}"
    reserved = any(node.reserved.get(resource, {}).values())
    arithmetic = f" (a node: {allocatable_sum(node, resource)})" if reserved and resource != PODS else ""
    whose = "its workloads" if all(placed.named for placed, _count in found.counted) else \
        "the workloads only it can take"
    return Violation(
        f"{subject}: at {counted_nodes(found)} ({_machine(found.nodes, node)}) it has room for "
        f"{size} x {show(resource, row.allocatable, secret)} = {show(resource, row.supply, secret)} {what}"
        f"{arithmetic}; "
        f"{daemon_text}{whose} {verb} {show(resource, row.demand, secret)} (largest: {largest}"
        f"{more(row.consumers, LARGEST)}{_shared(row, secret)}), {show(resource, row.used, secret)} in all, more than "
        "it has: "
        f"{fix}{_not_counted(found.left_out)}", found.pool.urn)


def _shared(row: Row, secret: bool) -> str:
    """The shared ResourceClaims' devices in a row's total, as a clause of its list: each claim once."""
    if not row.shared_claims:
        return ""
    return f"; and {shared_claims(row.shared_claims)} {show(row.resource, row.shared, secret)}, once"


def _not_counted(left_out: list[Placed]) -> str:
    """What the totals leave out, and why (the report says the same)."""
    if not left_out:
        return ""
    return (f" (not counted: {listed(placed.workload.subject for placed in left_out)}, whose one Pod fits no node of "
            "the pool: workload-fits-pool reports it)")


def _packing(found: Totals, subject: str) -> list[Finding]:
    """A workload whose identical Pods alone need more nodes than maxSize (each node holds at most what its largest
    machine has room for)."""
    findings: list[Finding] = []
    size = found.size
    for packed in found.packed:
        placed, per_node, needed = packed.placed, packed.most, packed.needed
        if needed is None or needed <= size:
            continue  # fits no node of the best machine (workload-fits-pool's), or its Pods fit maxSize nodes
        resource, node, free = packed.fit.bound, packed.fit.node, packed.fit.free
        assert resource is not None and free is not None
        hidden = resource in node.secret or resource in placed.request.secret or placed.secret
        each = placed.request.get(resource)
        limit = (f"{show(resource, free, hidden)} of {WHAT[resource]} left on a node after its DaemonSets "
                 f"/ {show(resource, each, hidden)} per Pod")
        findings.append(Violation(
            f"{subject}: {placed.workload.subject} runs {replicas_shown(placed)} Pods and a node "
            f"({_holder(found.nodes, node)}) holds at most {REDACTED if hidden else per_node} of them ({limit}), so "
            f"they need {REDACTED if hidden else _nodes(needed)}, more than "
            f"{f'{size} ({counted_nodes(found)})' if found.limited else f'its maxSize of {size}'}: "
            f"{_more(found.pool, needed, hidden, found.limit_fix)}use larger machines or run fewer replicas",
            found.pool.urn))
    return findings


def _check(stack: Stack, context: Context) -> list[Finding]:
    assert context.platform is not None
    with exact():
        return pool_capacity(stack, context.platform, dict(context.config))


POLICY = Policy(
    name="pool-capacity",
    subject="stack",
    description="At its maxSize, each compute pool can hold every Pod placed on it: the workloads' replicas "
                "times their requests plus the DaemonSets on every node, within maxSize nodes' allocatable and "
                "Pod slots; Pods that repel each other need a node each.",
    severity=Severity.MEDIUM,
    settings={"allocatable": ALLOCATABLE_SCHEMA},
    platforms=PLATFORMS,
    platforms_label="a known platform",
    remediation_steps="Raise the pool's maxSize (at most 10), use larger machines, lower requests or replicas, or "
                      "move workloads to another pool. If your nodes reserve less than the platform's default, "
                      "say so with the 'allocatable' setting.",
    dependents=True,
    check=_check,
)
