"""pool-capacity: at its maxSize, each pool can hold every Pod placed on it.

Per resource, the replicas of the pool's workloads times their Pod's request, plus maxSize times its
DaemonSets' requests, must not exceed maxSize times a node's allocatable; Pods must not exceed
maxSize times maxPods; a workload whose Pods repel each other on ``kubernetes.io/hostname`` needs a
node per replica. Replicas are ``spec.replicas`` (default 1), a Job's parallelism, one for a Pod,
and a HorizontalPodAutoscaler's minReplicas when it asks for more. These are necessary conditions:
bin-packing can still leave Pods Pending when they hold, and the rule never claims otherwise; what
it rejects can never all run. One workload's identical Pods also fit at most
floor(what a node has left / one Pod's request) to a node, which is certain too.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.cluster import MAX_POOL_SIZE
from .model.loads import (
    CHECKED,
    Placed,
    PoolLoad,
    counted,
    daemonset_totals,
    loads,
    platform_node,
    pool_node,
    room_per_node,
)
from .model.nodes import ALLOCATABLE_SCHEMA, Node
from .model.placement import Stack, on_platform_pools, schedule_of
from .model.platform_pools import PlatformPool
from .model.values import REDACTED, Unknown
from .model.workloads import Workload
from .platforms.platform import PLATFORMS
from .platforms.quantity import PODS, exact
from .workload_fits_pool import WHAT, allocatable_sum, machine, show

LARGEST = 3  # consumers named in a message


def pool_capacity(stack: Stack, platform: str, settings: dict) -> list[Finding]:
    """Every pool holds, at its maxSize, everything placed on it."""
    load = loads(stack)
    findings: list[Finding] = list(load.unknown)
    for pool_load in load.pools:
        if pool_load.workloads:
            findings.extend(_pool(stack, pool_load, platform, settings))
    findings.extend(_platform_pools(stack))
    return findings


def _platform_pools(stack: Stack) -> list[Finding]:
    """Pools the platforms declare (SPEC 14), against what is certainly theirs: the workloads a pool alone can take,
    by the scheduler's rules. A NodePool's spec.limits caps its nodes' capacity (Karpenter launches no node past
    them); a node group's maxSize caps its nodes, each at most its largest machine's allocatable."""
    only: dict[int, list[Workload]] = {}
    for workload in stack.workloads:
        if on_platform_pools(stack, workload) is not True or workload.request is None:
            continue
        schedule = schedule_of(stack, workload)
        taking = schedule.taking
        if schedule.unknown is None and len(taking) == 1:
            only.setdefault(id(taking[0].pool), []).append(workload)
    findings: list[Finding] = []
    for pool in stack.platform_pools:
        workloads = only.get(id(pool), [])
        if not workloads:
            continue
        for resource, limit in pool.limits.items():
            if isinstance(limit, Unknown):
                findings.append(limit)
                continue
            total, consumers, hidden = _demand(workloads, resource)
            if total > limit:
                needed = show(resource, total, hidden)
                findings.append(Violation(
                    f"{pool.source} '{pool.name}': its spec.limits.{resource} allows {show(resource, limit, False)} of "
                    f"{WHAT[resource]} on all its nodes together, but the workloads only it can take request {needed} "
                    f"({_largest(consumers, resource)}); Karpenter launches no node past its limits, so some of their "
                    f"Pods would stay Pending: raise spec.limits.{resource} to at least {needed} or let another pool "
                    "take some of them", pool.urn))
        if isinstance(pool.max_size, Unknown):
            findings.append(pool.max_size)
        elif isinstance(pool.max_size, int) and pool.machines:
            findings.extend(_max_size(stack, pool, pool.max_size, workloads))
    return findings


def _demand(workloads: list[Workload], resource: str) -> tuple[Decimal, list[tuple[Decimal, Workload, int, bool]],
                                                                 bool]:
    """What the workloads' replicas request of a resource together (a count or request not known is counted as
    nothing, so the total is never overstated), the consumers largest first, and whether a secret is in it."""
    consumers = []
    for workload in workloads:
        request, count = workload.request, workload.replicas.count
        if request is None or resource in request.unknown or not isinstance(count, int) or count == 0:
            continue
        consumers.append((count * request.get(resource), workload, count,
                          workload.replicas.secret or resource in request.secret))
    consumers.sort(key=lambda item: -item[0])
    return sum((item[0] for item in consumers), Decimal(0)), consumers, any(item[3] for item in consumers)


def _largest(consumers: list[tuple[Decimal, Workload, int, bool]], resource: str) -> str:
    largest = listed(f"{workload.subject} {REDACTED if secret else count} x {show(resource, amount / count, secret)}"
                     for amount, workload, count, secret in consumers[:LARGEST])
    more = f" and {len(consumers) - LARGEST} more" if len(consumers) > LARGEST else ""
    return f"largest: {largest}{more}"


def _max_size(stack: Stack, pool: PlatformPool, size: int, workloads: list[Workload]) -> list[Finding]:
    nodes = [platform_node(stack, pool, machine) for machine, _labels in pool.machines]
    if not all(isinstance(node, Node) for node in nodes):
        return []  # a node that is not known: it might hold them
    findings: list[Finding] = []
    for resource in CHECKED:
        sized = [(node.allocatable(resource), node) for node in nodes if isinstance(node, Node)]
        if any(allocatable is None for allocatable, _ in sized):
            continue
        each, node = max(sized, key=lambda item: item[0] or 0)
        assert each is not None and isinstance(node, Node)
        total, consumers, hidden = _demand(workloads, resource)
        if total <= size * each:
            continue
        room = show(resource, size * each, hidden or resource in node.secret)
        needed = (total / each).to_integral_value(rounding=ROUND_CEILING) if each > 0 else None
        raise_to = f"raise its maxSize to at least {needed}" if needed is not None and needed <= MAX_POOL_SIZE * 100 \
            else "use larger instance types"
        findings.append(Violation(
            f"{pool.source} '{pool.name}': at its maxSize of {size} nodes it has room for {size} x "
            f"{show(resource, each, hidden or resource in node.secret)} = {room} of {WHAT[resource]} allocatable (its "
            f"largest machine {node.machine}: {allocatable_sum(node, resource)}); the workloads only it can take "
            f"request {show(resource, total, hidden)} ({_largest(consumers, resource)}), more than it has: {raise_to}, "
            "or let another pool take some of them", pool.urn))
    return findings

def _subject(load: PoolLoad) -> str:
    return f"ComputeCluster '{load.entry.label}' {load.pool.label}"


def _replicas(placed: Placed) -> str:
    count = placed.count
    shown = REDACTED if placed.secret else str(count)
    if placed.autoscaler is not None:
        return f"{shown} (HorizontalPodAutoscaler '{placed.autoscaler.name}' minReplicas)"
    return shown


def _pool(stack: Stack, load: PoolLoad, platform: str, settings: dict) -> list[Finding]:
    findings: list[Finding] = []
    size = load.pool.max_size
    if isinstance(size, Unknown):
        return [size]
    if size is None:
        return []
    totals: list[tuple[Placed, int]] = []
    for placed in load.workloads:
        count = placed.count
        if isinstance(count, Unknown):
            findings.append(count)
        elif isinstance(count, int) and count > 0:
            totals.append((placed, count))
    urn = load.entry.urn
    for placed, count in totals:
        hidden = placed.secret
        if placed.repels and count > size:
            findings.append(Violation(
                f"{_subject(load)}: {placed.workload.subject} runs {_replicas(placed)} Pods that may not share a node "
                f"(required pod anti-affinity on kubernetes.io/hostname), but the pool has at most {size} nodes "
                f"(maxSize); {REDACTED if hidden else count - size} of them can never be scheduled: "
                f"{_more_nodes(count, hidden)}or run fewer replicas",
                urn))
    if not totals:
        return findings
    node = pool_node(stack, load, platform, settings)
    if isinstance(node, Unknown):
        return [*findings, node]
    if node is None:
        return findings
    # A Pod that fits no node is workload-fits-pool's finding; the totals stay a lower bound without it, and
    # say so (the report leaves out the same workloads: policies/model/loads.py, counted).
    kept, left_out = counted(load, node)
    room = room_per_node(node, load.daemonsets)
    fitting = {id(placed) for placed in kept}
    totals = [(placed, count) for placed, count in totals if id(placed) in fitting]
    totals_failed = False
    for resource in (*CHECKED, PODS):
        finding = _total(load, node, resource, size, totals, left_out)
        if finding is not None:
            findings.append(finding)
            totals_failed = totals_failed or isinstance(finding, Violation)
    if not totals_failed:
        findings.extend(_packing(load, node, size, totals, room))
    return findings


def _nodes(count: int) -> str:
    return f"{count} node{'' if count == 1 else 's'}"


def _more_nodes(needed: int, hidden: bool = False) -> str:
    """The maxSize to ask for, when a pool may have that many (a number derived from a secret reads so)."""
    if needed > MAX_POOL_SIZE:
        return ""
    return f"raise maxSize to at least {REDACTED if hidden else needed}, "


def _total(load: PoolLoad, node: Node, resource: str, size: int, counted: list[tuple[Placed, int]],
           left_out: list[Placed]) -> Finding | None:
    allocatable = node.allocatable(resource)
    if allocatable is None:
        return node.unknown.get(resource)
    daemons, daemons_secret, unknown = daemonset_totals(load.daemonsets, resource)
    if unknown is not None:
        return unknown
    if daemons > allocatable:
        return None  # the DaemonSets alone overflow a node: workload-fits-pool reports it on each of them
    demand = Decimal(0)
    consumers: list[tuple[Decimal, Placed, int]] = []
    secret = daemons_secret or resource in node.secret
    for placed, count in counted:
        if resource != PODS and resource in placed.request.unknown:
            return placed.request.unknown[resource]
        each = Decimal(1) if resource == PODS else placed.request.get(resource)
        if each > 0:
            demand += count * each
            consumers.append((count * each, placed, count))
            secret = secret or resource in placed.request.secret or placed.secret
    supply = size * allocatable
    used = demand + size * daemons
    if used <= supply:
        return None
    consumers.sort(key=lambda item: (-item[0], item[1].workload.name))
    largest = listed(_consumer(placed, resource, secret) for _, placed, _count in consumers[:LARGEST])
    more = f" and {len(consumers) - LARGEST} more" if len(consumers) > LARGEST else ""
    what = "Pods" if resource == PODS else f"of {WHAT[resource]} allocatable"
    daemon_text = (f"its DaemonSets take {size} x {show(resource, daemons, secret)} = "
                   f"{show(resource, size * daemons, secret)} and " if daemons > 0 else "")
    verb = "run" if resource == PODS else "request"
    per_node = allocatable - daemons
    fix = "use larger machines or move workloads to another pool"
    if per_node > 0:
        needed = int((demand / per_node).to_integral_value(rounding=ROUND_CEILING))
        fix = f"{_more_nodes(needed, secret)}{fix}" if needed > size else fix
    reserved = any(node.reserved.get(resource, {}).values())
    arithmetic = f" (a node: {allocatable_sum(node, resource)})" if reserved and resource != PODS else ""
    return Violation(
        f"{_subject(load)}: at its maxSize of {_nodes(size)} ({machine(node)}) it has room for {size} x "
        f"{show(resource, allocatable, secret)} = {show(resource, supply, secret)} {what}{arithmetic}; {daemon_text}"
        f"its workloads {verb} {show(resource, demand, secret)} (largest: {largest}{more}), "
        f"{show(resource, used, secret)} in all, more than it has: {fix}{_not_counted(left_out)}", load.entry.urn)


def _not_counted(left_out: list[Placed]) -> str:
    """What the totals leave out, and why (the report says the same)."""
    if not left_out:
        return ""
    return (f" (not counted: {listed(placed.workload.subject for placed in left_out)}, whose one Pod fits no node of "
            "the pool: workload-fits-pool reports it)")


def _consumer(placed: Placed, resource: str, secret: bool) -> str:
    """A workload's share: its replicas, times one Pod's request."""
    if resource == PODS:
        return f"{placed.workload.subject} {_replicas(placed)}"
    return f"{placed.workload.subject} {_replicas(placed)} x {show(resource, placed.request.get(resource), secret)}"


def _packing(load: PoolLoad, node: Node, size: int, counted: list[tuple[Placed, int]],
             free: dict[str, Decimal]) -> list[Finding]:
    """A workload whose identical Pods alone need more nodes than maxSize."""
    findings: list[Finding] = []
    for placed, count in counted:
        fits: list[tuple[int, str]] = []
        for resource, left in free.items():
            # Pod slots are left out: for one workload the Pod total above already decides exactly.
            if resource == PODS or resource in placed.request.unknown:
                continue
            each = placed.request.get(resource)
            if each > 0:
                fits.append((int(left // each), resource))
        if not fits:
            continue
        per_node, resource = min(fits)  # at least 1: Pods that fit no node were left out
        needed = -(-count // per_node)
        if needed <= size:
            continue
        hidden = resource in node.secret or resource in placed.request.secret or placed.secret
        each = placed.request.get(resource)
        limit = (f"{show(resource, free[resource], hidden)} of {WHAT[resource]} left on a node after its DaemonSets "
                 f"/ {show(resource, each, hidden)} per Pod")
        findings.append(Violation(
            f"{_subject(load)}: {placed.workload.subject} runs {_replicas(placed)} Pods and a node ({machine(node)}) "
            f"holds at most {REDACTED if hidden else per_node} of them ({limit}), so they need "
            f"{REDACTED if hidden else _nodes(needed)}, more than its maxSize of {size}: {_more_nodes(needed, hidden)}"
            "use larger machines or run fewer replicas", load.entry.urn))
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
    check=_check,
)
