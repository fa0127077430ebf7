"""workload-pool-placement: every container and daemon workload lands on exactly one ComputeCluster pool.

The ``compute.alien.dev/cluster`` and ``compute.alien.dev/pool`` labels (on the workload or its pod
template) name them; with a single ComputeCluster they may be left out when it has a ``general``
pool or only one pool (policies/placement.py resolves it). A label that names nothing, or two
places that disagree, would leave the Pods on whatever nodes the scheduler picks.
"""

from __future__ import annotations

from collections.abc import Iterable

from pulumi_policy import Severity

from .findings import Finding, Violation
from .placement import Stack, resolve_placement
from .templates import Context, Policy, moved_setting
from .values import Unknown


def workload_pool_placement(stack: Stack) -> list[Finding]:
    """Every container and daemon workload resolves to exactly one cluster and pool.

    (A Helm v3 Release hides its workloads from every policy: helm-release-unchecked shows it.)
    """
    findings: list[Finding] = []
    for workload in stack.workloads:
        findings.extend(_with_urn(workload.problems, workload.urn))
        if workload.patch or workload.role not in ("container", "daemon"):
            if isinstance(workload.role, Unknown):
                findings.append(workload.role)
            continue
        placement = resolve_placement(stack, workload)
        if isinstance(placement, (Violation, Unknown)):
            findings.append(placement)
    return findings


def _with_urn(findings: Iterable[Finding], urn: str) -> list[Finding]:
    return [Violation(f.message, urn) if isinstance(f, Violation) else f for f in findings]


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_pool_placement(stack)


POLICY = Policy(
    name="workload-pool-placement",
    subject="stack",
    description="Every container and daemon workload resolves to exactly one ComputeCluster and pool through the "
                "compute.alien.dev/cluster and compute.alien.dev/pool labels.",
    severity=Severity.HIGH,
    settings={"helmReleases": moved_setting("helm-release-unchecked")},
    remediation_steps="Label the workload (or its pod template) with compute.alien.dev/cluster set to a "
                      "ComputeCluster's id and compute.alien.dev/pool set to one of its pools; with a single "
                      "ComputeCluster the labels may be omitted when it has a 'general' pool or only one pool.",
    check=_check,
)
