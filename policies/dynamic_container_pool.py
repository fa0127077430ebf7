"""dynamic-container-pool: dynamic workloads land in the dynamic container pool of the one ComputeCluster.

Dynamic containers are started at run time by the platform, which only knows one place to put
them: the pool named by ``dynamicContainerPool`` (else ``general``) of the stack's single
ComputeCluster. Labels on the workload may repeat that place, never name another.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, quoted
from .adapters.templates import Context, Policy
from .model.placement import (
    UNRESOLVED,
    DynamicNeedsOneCluster,
    LabelContradicts,
    NoDynamicPool,
    Unresolved,
    placement_of,
)
from .model.stack import Stack
from .model.values import Unknown
from .model.workloads import CLUSTER_KEY
from .words import LISTED


def dynamic_container_pool(stack: Stack) -> list[Finding]:
    """Dynamic workloads land in the one ComputeCluster's dynamic container pool."""
    findings: list[Finding] = []
    for workload in stack.workloads:
        if workload.patch or workload.role != "dynamic":
            continue
        placement = placement_of(stack, workload)
        if isinstance(placement, Unknown):
            findings.append(placement)
        elif isinstance(placement, UNRESOLVED):
            findings.append(Violation(f"{workload.subject}: {unresolved(placement)}", workload.urn))
    return findings


def unresolved(outcome: Unresolved) -> str:
    """Why the dynamic workload has no dynamic container pool, and the fix."""
    if isinstance(outcome, DynamicNeedsOneCluster):
        return (f"dynamic containers need exactly one ComputeCluster, but the stack declares {len(outcome.known)} "
                f"({quoted(outcome.known, LISTED)}); keep one ComputeCluster or give this workload another role")
    if isinstance(outcome, NoDynamicPool):
        source = "its dynamicContainerPool" if outcome.source == "setting" else "the default 'general'"
        return (f"ComputeCluster '{outcome.cluster}' has no dynamic container pool '{outcome.pool_id}' ({source}); "
                "add that pool or set dynamicContainerPool to one of its pools "
                f"({quoted(outcome.pools, LISTED) or 'none'})")
    assert isinstance(outcome, LabelContradicts)  # resolve_dynamic_pool returns no other
    if outcome.key == CLUSTER_KEY:
        return (f"'{CLUSTER_KEY}' names '{outcome.named}', but dynamic containers land on ComputeCluster "
                f"'{outcome.cluster}'; remove the label or set it to that id")
    return (f"'{outcome.key}' names pool '{outcome.named}', but dynamic containers land in the dynamic container "
            f"pool '{outcome.pool_id}'; remove the label or set it to '{outcome.pool_id}'")


def _check(stack: Stack, context: Context) -> list[Finding]:
    return dynamic_container_pool(stack)


POLICY = Policy(
    name="dynamic-container-pool",
    subject="stack",
    description="Dynamic workloads land in the dynamic container pool of the stack's one ComputeCluster.",
    severity=Severity.MEDIUM,
    remediation_steps="Keep exactly one ComputeCluster in a stack with dynamic workloads, and give it the pool "
                      "named by dynamicContainerPool (or a 'general' pool).",
    check=_check,
    placement=True,
)
