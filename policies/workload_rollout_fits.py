"""workload-rollout-fits: a Deployment's rolling update can finish on its pool.

With ``maxUnavailable`` 0 (written, or 25% of fewer than four replicas rounded down) the Deployment controller
removes an old Pod only once a new one is available, so its rollout needs room for at least one Pod more than its
replicas at once (up to replicas + maxSurge; policies/model/rollout.py). When the pool it runs on can never give that
room the rollout never finishes, and every change of the pod template hangs (SPEC section 15):

* its Pods repel each other on ``kubernetes.io/hostname`` (required pod anti-affinity) and the pool has at most as
  many nodes (maxSize) as it has replicas: the extra Pod has no node;
* or, by pool-capacity's very totals (model/totals.py pool_totals: the nodes it counts, maxSize or the fewer its
  addresses hold, x a node's allocatable, the DaemonSets on every node, the workloads only that pool can take), the
  pool holds what is placed on it but not one more of its Pods.

Judged on the one pool the Deployment certainly runs on (its ComputeCluster pool, or the only platform pool that can
take it in a cluster whose pools are all known); a pool already too small is pool-capacity's finding.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.loads import Placed, PoolLoad, loads
from .model.nodes import ALLOCATABLE_SCHEMA, Node
from .model.pool import Option
from .model.rollout import Rollout
from .model.stack import Stack
from .model.totals import Totals, pool_totals
from .model.values import REDACTED, Unknown, undetermined
from .platforms.platform import PLATFORMS
from .platforms.quantity import PODS, exact
from .words import (
    WHAT,
    counted_nodes,
    instead,
    machine,
    more_nodes,
    pool_subject,
    show,
    size_unknown,
    which_cluster,
)


def workload_rollout_fits(stack: Stack, platform: str, settings: Mapping[str, Any]) -> list[Finding]:
    findings: list[Finding] = []
    several = stack.several_clusters
    for load in loads(stack, platform).pools:
        findings.extend(_rollouts(stack, load, load.workloads, platform, settings, several))
        whole = load.counting(load.elsewhere) if load.elsewhere else load  # counted once (its totals: one lookup)
        for placed in load.elsewhere:  # it may run elsewhere (SPEC 14.2, or a pool not known yet): notes
            found = _rollouts(stack, whole, [placed], platform, settings, several)
            findings.extend(_noted(found, f"but {instead(load, [placed], several, named=False)}"))
        for together in _together(stack, load.maybe):  # whose cluster the pack cannot tell (SPEC 14.4): notes
            whole = load.counting(together, load.maybe_daemonsets)  # (its totals: one lookup for them all)
            for placed in together:
                who, fix = which_cluster(stack, placed.workload)
                found = _rollouts(stack, whole, [placed], platform, settings, several)
                findings.extend(_noted(found, f"but which cluster {who} targets is not known", fix))
    return findings


def _together(stack: Stack, maybe: list[Placed]) -> list[list[Placed]]:
    """The workloads whose cluster the pack cannot tell, by their Kubernetes provider: whatever cluster it targets,
    they all run there together (SPEC 14.2), so the pool holds them all if it holds one of them."""
    groups: dict[str, list[Placed]] = {}
    for placed in maybe:
        resource = stack.resources.get(placed.workload.urn)
        provider = resource.provider if resource is not None else None
        groups.setdefault(provider or placed.workload.urn, []).append(placed)
    return list(groups.values())


def _noted(findings: list[Finding], but: str, fix: str = "") -> list[Finding]:
    """What would fail, as notes: the pack cannot tell that those Pods run on this pool."""
    tail = f": {fix}" if fix else ""
    return [undetermined(f"{finding.message}; {but}, so this is not judged{tail}")
            if isinstance(finding, Violation) else finding for finding in findings]


def _rollouts(stack: Stack, load: PoolLoad, judged: list[Placed], platform: str, settings: Mapping[str, Any],
              several: bool) -> list[Finding]:
    """The rollouts of ``judged`` (Deployments the pool's totals count) on the pool."""
    findings: list[Finding] = []
    room: Totals | Unknown | None | bool = False  # the pool's totals, computed once, when a Deployment asks
    for placed in judged:
        count = placed.count
        if placed.workload.kind != "Deployment" or not isinstance(count, int) or count == 0:
            continue
        rolling = placed.workload.rollout(count)
        if isinstance(rolling, Unknown):
            findings.append(rolling)
            continue
        if rolling is None or rolling.max_unavailable > 0:
            continue
        if room is False:
            room = _room(stack, load, platform, settings)
        finding = _fits(load, room, placed, count, rolling, several)
        if finding is not None:
            findings.append(finding)
    return findings


def _room(stack: Stack, load: PoolLoad, platform: str, settings: Mapping[str, Any]) -> Totals | Unknown | None:
    """The pool at the nodes it can have, pool-capacity's very totals (model/totals.py); a value not known yet in it:
    not judged."""
    found = pool_totals(stack, load, platform, settings)
    if isinstance(found, Totals) and found.unknown:
        return found.unknown[0]
    return found


def _needs(placed: Placed, count: int, rolling: Rollout) -> str:
    hidden = placed.secret or rolling.secret
    replicas = REDACTED if hidden else str(count)
    peak = REDACTED if hidden else str(count + rolling.max_surge)
    keeps = "its one Pod" if count == 1 and not hidden else f"all {replicas} Pods"
    return (f"{placed.workload.subject}: it rolls out {replicas} replica{'' if count == 1 and not hidden else 's'} "
            f"with {rolling.arithmetic(count)}: it keeps {keeps} until a new one is available, so it needs room for "
            f"{replicas} + 1 Pods at once (up to {peak})")


def _nodes(count: int) -> str:
    return f"{count} node{'' if count == 1 else 's'}"


def _fits(load: PoolLoad, room: Totals | Unknown | None | bool, placed: Placed, count: int, rolling: Rollout,
          several: bool) -> Finding | None:
    pool = load.pool
    size = pool.max_size
    if isinstance(size, Unknown):
        return size
    if size is None:
        return size_unknown(pool, several, f"has room for the rollout of {placed.workload.subject}") if pool.size_note \
            else None
    subject = pool_subject(pool, several)
    if placed.workload.repels_revisions:
        if count != size:
            return None  # more replicas than nodes is pool-capacity's; fewer leave a node for the new Pod
        larger = more_nodes(pool, count + 1, placed.secret)
        larger = f", or {larger[:-2]}" if larger else ""
        return Violation(
            f"{_needs(placed, count, rolling)}, but its Pods may not share a node (required pod anti-affinity on "
            f"{placed.workload.repel_key}, old and new Pods alike) and {subject} has at most {size} nodes (maxSize): "
            f"the new Pod never schedules and the rollout never finishes: allow maxUnavailable: 1{larger}",
            placed.workload.urn)
    if not isinstance(room, Totals):
        return room if isinstance(room, Unknown) else None
    if room.full or id(placed) not in room.kept:
        return None  # the pool is too small already (pool-capacity's), or its one Pod fits no node (fits-pool's)
    size = room.size  # the nodes pool-capacity counts: maxSize, or the fewer its addresses hold
    packed = _per_node(load, room.nodes, placed)
    if packed is not None and packed[0] * size < count:
        return None  # its Pods alone need more nodes than it can have: pool-capacity's
    for row in room.rows:
        resource, allocatable, supply, used, secret = row.resource, row.allocatable, row.supply, row.used, row.secret
        if resource != PODS and resource in placed.request.unknown:
            return placed.request.unknown[resource]
        each = Decimal(1) if resource == PODS else placed.request.get(resource)
        hidden = secret or (resource != PODS and resource in placed.request.secret)
        if each > 0 and supply < used + each:
            return Violation(
                f"{_needs(placed, count, rolling)}, but {subject} at {counted_nodes(room)} has {size} x "
                f"{show(resource, allocatable, hidden)} = {show(resource, supply, hidden)} of {WHAT[resource]} "
                f"allocatable and what is placed on it takes {show(resource, used, hidden)}, leaving "
                f"{show(resource, supply - used, hidden)}, less than one more Pod's {show(resource, each, hidden)}: "
                "the new Pod never schedules and the rollout never finishes: allow maxUnavailable: 1, or give the "
                "pool more room (maxSize, larger machines)", placed.workload.urn)
    if packed is None or packed[0] * size != count:
        return None  # room for one more
    per_node, resource, node, free, each = packed
    most = per_node * size
    hidden = placed.secret or resource in node.secret or resource in placed.request.secret
    shown = (lambda value: REDACTED if hidden else str(value))  # noqa: E731
    return Violation(
        f"{_needs(placed, count, rolling)}, but a node of {subject} ({machine(node)}) holds at most {shown(per_node)} "
        f"of its Pods ({show(resource, free, hidden)} of {WHAT[resource]} left after its DaemonSets / "
        f"{show(resource, each, hidden)} per Pod) and the pool has at most {_nodes(size)} "
        f"({'maxSize' if not room.limited else room.limited}): "
        f"{shown(per_node)} x {size} = {shown(most)} Pods, no room for one more: the new Pod never schedules and the "
        "rollout never finishes: allow maxUnavailable: 1, or give the pool more room (maxSize, larger machines)",
        placed.workload.urn)


def _per_node(load: PoolLoad, nodes: list[tuple[Option, Node]], placed: Placed
              ) -> tuple[int, str, Node, Decimal, Decimal] | None:
    """How many of its identical Pods one node holds at most: floor(what it has left after its DaemonSets / one Pod's
    request), on its best machine; with the resource that bounds it. None when nothing bounds it."""
    best = load.packing(nodes, placed.request)
    if best is None or best.bound is None or best.free is None or best.most is None:
        return None
    return best.most, best.bound, best.node, best.free, placed.request.get(best.bound)


def _check(stack: Stack, context: Context) -> list[Finding]:
    assert context.platform is not None
    with exact():
        return workload_rollout_fits(stack, context.platform, dict(context.config))


POLICY = Policy(
    name="workload-rollout-fits",
    subject="stack",
    description="A Deployment whose rolling update keeps every Pod available (maxUnavailable 0) has room on its "
                "pool for one Pod more than its replicas, so its rollout can finish.",
    severity=Severity.MEDIUM,
    settings={"allocatable": ALLOCATABLE_SCHEMA},
    platforms=PLATFORMS,
    platforms_label="a known platform",
    remediation_steps="Allow maxUnavailable: 1 in the Deployment's rollingUpdate strategy, or raise the pool's "
                      "maxSize (or use larger machines) so that one more Pod fits.",
    dependents=True,
    check=_check,
)
