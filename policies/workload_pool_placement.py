"""workload-pool-placement: every container and daemon workload lands on exactly one ComputeCluster pool.

The ``compute.alien.dev/cluster`` and ``compute.alien.dev/pool`` labels (on the workload or its pod
template) name them; with a single ComputeCluster they may be left out when it has a ``general``
pool or only one pool (policies/placement.py resolves it). A label that names nothing, or two
places that disagree, would leave the Pods on whatever nodes the scheduler picks.
"""

from __future__ import annotations

from collections.abc import Iterable

from pulumi_policy import Severity

from .findings import Finding, Violation, advisory_setting, enforced_if
from .placement import Stack, resolve_placement
from .templates import Context, Policy
from .values import Unknown
from .workloads import HelmRelease


def workload_pool_placement(stack: Stack) -> list[Finding]:
    """Every container and daemon workload resolves to exactly one cluster and pool.

    A Helm v3 Release hides its workloads from every policy; it is reported (advisory) so that
    what goes unchecked is visible in the preview.
    """
    findings: list[Finding] = [hidden_workloads(release) for release in stack.helm_releases]
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


def hidden_workloads(release: HelmRelease) -> Violation:
    chart = f"chart '{release.chart}'" if release.chart else "its chart"
    return Violation(
        f"Release '{release.name}' installs {chart} through Helm inside the Kubernetes provider, so no policy "
        "sees its workloads: their pool placement and CPU architecture go unchecked; deploy the chart with "
        "kubernetes:helm.sh/v4:Chart (same chart and values) to have them checked", release.urn, advisory=True)


def _with_urn(findings: Iterable[Finding], urn: str) -> list[Finding]:
    return [Violation(f.message, urn) if isinstance(f, Violation) else f for f in findings]


def _check(stack: Stack, context: Context) -> list[Finding]:
    return enforced_if(context.config.get("helmReleases"), workload_pool_placement(stack))


POLICY = Policy(
    name="workload-pool-placement",
    subject="stack",
    description="Every container and daemon workload resolves to exactly one ComputeCluster and pool through the "
                "compute.alien.dev/cluster and compute.alien.dev/pool labels.",
    severity=Severity.HIGH,
    settings={"helmReleases": advisory_setting("a kubernetes:helm.sh/v3:Release, whose workloads no policy can see,")},
    remediation_steps="Label the workload (or its pod template) with compute.alien.dev/cluster set to a "
                      "ComputeCluster's id and compute.alien.dev/pool set to one of its pools; with a single "
                      "ComputeCluster the labels may be omitted when it has a 'general' pool or only one pool. "
                      "Deploy Helm charts with kubernetes:helm.sh/v4:Chart, whose workloads the policies see, "
                      "rather than kubernetes:helm.sh/v3:Release.",
    check=_check,
)
