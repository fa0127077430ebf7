"""workload-requests-declared: the Pods the capacity rules count on a pool say what they need.

workload-fits-pool and pool-capacity add up what each Pod requests (SPEC section 12). A Pod whose containers set
neither ``resources.requests`` nor ``resources.limits`` for CPU or memory requests nothing: Kubernetes schedules it as
if it needed nothing, and the capacity rules count it as nothing, so a pool the rules pass may still run out once
those Pods run. This names such workloads where it matters: on a pool whose nodes the capacity rules know (elsewhere
nothing is added up). kube-linter's ``unset-cpu-requirements`` and ``unset-memory-requirements`` are the anchor; a
Pod that requests one of the two is counted, and is not named here (kube-linter names each).

What counts is the Pod's effective request (policies/model/pods.py: a limit stands for a missing request, init
containers and Pod-level requests count as Kubernetes counts them). A request not known yet (a preview's unknown),
taken from a secret, or malformed (workload-fits-pool reports it) is not "none"; a workload that runs no Pods (a
PodTemplate, replicas 0) needs nothing. Advisory by default: a best-effort workload is a choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.loads import Placed, loads, pool_nodes
from .model.stack import Stack
from .model.values import more
from .model.workloads import Workload
from .platforms.platform import PLATFORMS
from .platforms.quantity import CPU, MEMORY, exact
from .words import LISTED, pool_name

DECLARED = (CPU, MEMORY)  # kube-linter's unset-cpu-requirements and unset-memory-requirements
_DEFAULTS: Mapping[str, Any] = {}  # the platforms' reservations (whether a pool's nodes are known does not vary)


def workload_requests_declared(stack: Stack, platform: str) -> list[Finding]:
    """Each workload on a pool whose nodes are known, once, with the pools the rules count it on."""
    several = stack.several_clusters
    undeclared: dict[Workload, tuple[Placed, list[str]]] = {}  # the placed workload, the pools it is counted on
    for pool_load in loads(stack, platform).pools:
        placed_here = [*pool_load.daemonsets, *pool_load.workloads, *pool_load.shared]
        if not placed_here or not isinstance(pool_nodes(stack, pool_load.pool, platform, _DEFAULTS), list):
            continue  # the capacity rules do not add up this pool's requests: its nodes are not known
        for placed in placed_here:
            if _requests_nothing(placed):
                found = undeclared.setdefault(placed.workload, (placed, []))
                where = pool_name(pool_load.pool, several)
                if where not in found[1]:
                    found[1].append(where)
    return [_finding(placed, pools) for placed, pools in undeclared.values()]


def _requests_nothing(placed: Placed) -> bool:
    """Its Pods request no CPU and no memory, certainly: both known, neither secret nor malformed; and it runs Pods."""
    request = placed.request
    if placed.count == 0 and not placed.secret:  # (a secret count of 0 is not told by leaving the workload out)
        return False
    for resource in DECLARED:
        if resource in request.unknown or resource in request.secret or request.get(resource) != 0:
            return False
        if any(bad.resource == resource for bad in request.bad):
            return False  # a malformed quantity counts as nothing too, but it was written: workload-fits-pool's
    return True


def _finding(placed: Placed, pools: list[str]) -> Violation:
    workload = placed.workload
    shown = listed(pools[:LISTED], "; ") + more(pools, LISTED)
    return Violation(
        f"{workload.subject}: its Pods request no CPU and no memory (no container sets a request or a limit for "
        f"either), so workload-fits-pool and pool-capacity count them as needing nothing on {shown}: the pool may "
        "run out once they run: set resources.requests.cpu and resources.requests.memory on its containers",
        workload.urn)


def _check(stack: Stack, context: Context) -> list[Finding]:
    assert context.platform is not None
    with exact():
        return workload_requests_declared(stack, context.platform)


POLICY = Policy(
    name="workload-requests-declared",
    subject="stack",
    description="The workloads on a pool whose capacity the pack checks request the CPU and memory their Pods "
                "need, so that capacity is counted.",
    severity=Severity.LOW,
    level=EnforcementLevel.ADVISORY,
    platforms=PLATFORMS,
    platforms_label="a known platform",
    remediation_steps="Set resources.requests.cpu and resources.requests.memory on every container of the "
                      "workload (a limit alone counts as its request).",
    check=_check,
)
