"""dynamic-container-pool: dynamic workloads land in the dynamic container pool of the one ComputeCluster.

Dynamic containers are started at run time by the platform, which only knows one place to put
them: the pool named by ``dynamicContainerPool`` (else ``general``) of the stack's single
ComputeCluster. Labels on the workload may repeat that place, never name another.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .findings import Finding, Violation
from .placement import Stack, resolve_dynamic_pool
from .templates import Context, Policy
from .values import Unknown


def dynamic_container_pool(stack: Stack) -> list[Finding]:
    """Dynamic workloads land in the one ComputeCluster's dynamic container pool."""
    findings: list[Finding] = []
    for workload in stack.workloads:
        if workload.patch or workload.role != "dynamic":
            continue
        placement = resolve_dynamic_pool(stack, workload)
        if isinstance(placement, (Violation, Unknown)):
            findings.append(placement)
    return findings


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
)
