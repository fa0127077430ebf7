"""workload-fits-pool: one Pod of every workload fits one empty node of the pool it is placed on.

A pool fixes the machine its workloads' Pods land on, so a Pod that asks for more CPU, memory,
ephemeral storage, GPUs or Pod slots than one node of that pool can give, once the pool's
DaemonSets have taken theirs, can never be scheduled: it would sit Pending with "Insufficient cpu"
and the autoscaler would never add a node for it. The node is the pool's profile, else its
machine's catalog facts; allocatable follows the platform's documented reservations
(policies/model/nodes.py). Both are upper bounds of a real node's, so what this rejects can never run.

A request the API server would refuse (a malformed quantity) is reported here too, naming its field.
"""

from __future__ import annotations

from decimal import Decimal

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.loads import CHECKED, Placed, PoolLoad, daemonset_totals, loads, platform_node, pool_node
from .model.nodes import ALLOCATABLE_SCHEMA, PARTS, Node
from .model.placement import Stack, on_platform_pools, schedule_of
from .model.platform_pools import PoolVerdict
from .model.pods import GPU_RESOURCES, BadQuantity, PodRequest
from .model.values import REDACTED, Unknown
from .platforms.platform import PLATFORMS
from .platforms.quantity import CPU, MEMORY, PODS, STORAGE, amount, exact

WHAT = {CPU: "CPU", MEMORY: "memory", STORAGE: "ephemeral storage", PODS: "Pod slots",
        **{resource: resource for resource in GPU_RESOURCES}}
_PROBLEMS = {"malformed": "is not a Kubernetes quantity such as 500m, 0.5, 128Mi or 1G",
             "negative": "is negative", "fraction": "is not a whole number of devices",
             "too large": "is larger than Kubernetes can count (2^63 - 1 in its base unit)"}


def show(resource: str, value: Decimal, secret: bool) -> str:
    return REDACTED if secret else amount(resource, value)


def where(load: PoolLoad) -> str:
    return f"{load.pool.label} of ComputeCluster '{load.entry.label}'"


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


def daemonset_list(daemonsets: list[Placed], resource: str) -> str:
    parts = []
    for placed in daemonsets:
        if resource == PODS:
            parts.append(f"'{placed.workload.name}'")
        elif placed.request.get(resource) > 0:
            value = show(resource, placed.request.get(resource), resource in placed.request.secret)
            parts.append(f"'{placed.workload.name}' {value}")
    return listed(parts)


def bad_quantity(subject: str, bad: BadQuantity) -> str:
    value = f" '{bad.value}'" if bad.value is not None else ""
    return (f"{subject}: {bad.field}{value} {_PROBLEMS[bad.problem]}; the API server refuses it, so fix the "
            "quantity")


def workload_fits_pool(stack: Stack, platform: str, settings: dict) -> list[Finding]:
    """One Pod of each workload fits one empty node of its pool, after the pool's DaemonSets."""
    load = loads(stack)
    findings: list[Finding] = []
    for workload, request in load.requests:
        findings.extend(Violation(bad_quantity(workload.subject, bad), workload.urn) for bad in request.bad)
    findings.extend(load.unknown)
    for pool_load in load.pools:
        if not pool_load.workloads and not pool_load.daemonsets:
            continue
        node = pool_node(stack, pool_load, platform, settings)
        if node is None:
            continue
        if isinstance(node, Unknown):
            findings.append(node)
            continue
        findings.extend(_pool(pool_load, node))
    findings.extend(_platform_pools(stack))
    return findings


def _platform_pools(stack: Stack) -> list[Finding]:
    """On pools the platforms declare (SPEC 14): one Pod fits one node of some machine of some pool that can take
    it by the scheduler's rules (workload-schedulable reports a workload no pool takes). A Karpenter NodePool
    starts whichever of its machines fits the Pod, so the Pod must fit one of them."""
    findings: list[Finding] = []
    for workload in stack.workloads:
        if on_platform_pools(stack, workload) is not True or workload.request is None:
            continue
        schedule = schedule_of(stack, workload)
        taking = schedule.taking
        if not taking or schedule.unknown is not None or any(not verdict.machines for verdict in taking):
            continue  # no pool takes it (another policy's), or some pool might and its machines are not known
        request = workload.request
        unknown = next(iter(request.unknown.values()), None)
        if unknown is not None:
            findings.append(unknown)
            continue
        per_pool = [_largest(stack, verdict, request) for verdict in taking]
        if any(text is None for text in per_pool):
            continue
        asked = listed([f"{show(resource, request.get(resource), resource in request.secret)} of {WHAT[resource]}"
                        for resource in CHECKED if request.get(resource) > 0], " and ") or "nothing"
        findings.append(Violation(
            f"{workload.subject}: one Pod requests {asked}, more than any node of the pools that can take it: "
            f"{listed([text for text in per_pool if text], '; ')}; it can never be scheduled: lower its requests or "
            "allow larger instance types", workload.urn))
    return findings


def _largest(stack: Stack, verdict: PoolVerdict, request: PodRequest) -> str | None:
    """None when some machine of the pool fits one Pod; else what the pool's largest machines have."""
    best: dict[str, Node] = {}
    for candidate in verdict.machines:
        node = platform_node(stack, verdict.pool, candidate)
        if not isinstance(node, Node):
            return None  # a node that is not known: it might fit
        if all(node.allocatable(resource) is None or request.get(resource) <= (node.allocatable(resource) or 0)
               for resource in CHECKED) and (node.allocatable(PODS) or 0) >= 1:
            return None
        for resource in CHECKED:
            allocatable = node.allocatable(resource)
            if allocatable is not None and (resource not in best or allocatable > (best[resource].allocatable(
                    resource) or 0)):
                best[resource] = node
    short = [resource for resource in CHECKED if resource in best
             and request.get(resource) > (best[resource].allocatable(resource) or 0)]
    if not short:
        return (f"{verdict.pool.label} has machines with enough of each resource, but none with all of them "
                "together")
    most = listed([f"at most {allocatable_sum(best[resource], resource)} of {WHAT[resource]} "
                   f"({best[resource].machine})" for resource in short], " and ")
    return f"{verdict.pool.label} has {most}"


def _pool(load: PoolLoad, node: Node) -> list[Finding]:
    findings: list[Finding] = []
    left: dict[str, Decimal | None] = {}
    daemons_fit: dict[str, bool] = {}
    for resource in (*CHECKED, PODS):
        allocatable = node.allocatable(resource)
        total, secret, unknown = daemonset_totals(load.daemonsets, resource)
        if allocatable is None:
            left[resource] = None
            if resource in node.unknown and (load.daemonsets or load.workloads):
                findings.append(node.unknown[resource])
            continue
        if unknown is not None:
            findings.append(unknown)
            left[resource] = None
            continue
        daemons_fit[resource] = total <= allocatable
        left[resource] = allocatable - total if daemons_fit[resource] else allocatable
        if not daemons_fit[resource]:
            findings.extend(_daemonsets_overflow(load, node, resource, total, secret))
    for placed in load.workloads:
        findings.extend(_workload(load, node, placed, left, daemons_fit))
    return findings


def _daemonsets_overflow(load: PoolLoad, node: Node, resource: str, total: Decimal,
                         secret: bool) -> list[Finding]:
    hidden = secret or resource in node.secret
    if resource == PODS:
        pods = node.capacity[PODS]
        text = (f"the {len(load.daemonsets)} DaemonSets of {where(load)} ({daemonset_list(load.daemonsets, PODS)}) "
                f"need one Pod slot each on every node, but a node of it ({machine(node)}) holds at most "
                f"{amount(PODS, pods)} Pods ({node.max_pods_source}); some of them can never run there: move "
                "DaemonSets to other pools or raise the node's maxPods")
    else:
        text = (f"the DaemonSets of {where(load)} request {show(resource, total, hidden)} of {WHAT[resource]} "
                f"on every node together ({daemonset_list(load.daemonsets, resource)}), more than a node of it "
                f"({machine(node)}) has: {allocatable_sum(node, resource)}; they can never all run on one node: "
                "lower their requests or use larger machines")
    return [Violation(f"{placed.workload.subject}: {text}", placed.workload.urn) for placed in load.daemonsets]


def _workload(load: PoolLoad, node: Node, placed: Placed, left: dict[str, Decimal | None],
              daemons_fit: dict[str, bool]) -> list[Finding]:
    findings: list[Finding] = []
    request = placed.request
    subject = placed.workload.subject
    for resource in CHECKED:
        wanted = request.unknown.get(resource)
        free = left.get(resource)
        if wanted is not None:
            if free is not None:
                findings.append(wanted)
            continue
        asked = request.get(resource)
        if free is None or asked <= free:
            continue
        hidden = resource in request.secret or resource in node.secret
        if resource in GPU_RESOURCES and node.capacity[resource] == 0:
            has = f"GPUs '{node.gpu_type}'" if node.gpu_type else "no GPU"
            findings.append(Violation(
                f"{subject}: its Pods request {show(resource, asked, hidden)} {resource}, but the machines of "
                f"{where(load)} ({machine(node)}) have {has}; they can never be scheduled there: place the "
                f"workload on a pool whose machines have {GPU_RESOURCES[resource].upper()} GPUs", placed.workload.urn))
            continue
        daemons = ""
        # what is left after the DaemonSets is derived from their requests: secret when one of them is
        left_hidden = hidden or daemonset_totals(load.daemonsets, resource)[1]
        if load.daemonsets and daemons_fit.get(resource) and free != node.allocatable(resource):
            taken = (node.allocatable(resource) or Decimal(0)) - free
            daemons = (f", - {show(resource, taken, left_hidden)} for DaemonSets "
                       f"({daemonset_list(load.daemonsets, resource)}) = {show(resource, free, left_hidden)} left")
        fix = (f"request at most {show(resource, free, left_hidden)}, or place the workload on a pool of larger "
               "machines" if free > 0 else "place the workload on a pool of larger machines")
        findings.append(Violation(
            f"{subject}: one Pod requests {show(resource, asked, hidden)} of {WHAT[resource]}, more than a node of "
            f"{where(load)} ({machine(node)}) can give it: {allocatable_sum(node, resource)}{daemons}; it can never "
            f"be scheduled there: {fix}", placed.workload.urn))
    free_pods = left.get(PODS)
    if free_pods is not None and free_pods < 1 and daemons_fit.get(PODS):
        findings.append(Violation(
            f"{subject}: a node of {where(load)} ({machine(node)}) holds at most {amount(PODS, node.capacity[PODS])} "
            f"Pods ({node.max_pods_source}) and its DaemonSets ({daemonset_list(load.daemonsets, PODS)}) take every "
            "slot; its Pods can never be scheduled there: move DaemonSets to other pools or raise the node's maxPods",
            placed.workload.urn))
    return findings


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
    check=_check,
)
