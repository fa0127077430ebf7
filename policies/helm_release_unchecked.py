"""helm-release-unchecked: a Helm v3 Release installs workloads that no policy of the pack can see.

``kubernetes:helm.sh/v3:Release`` runs Helm inside the Kubernetes provider: the engine never sees
the Deployments and DaemonSets of its chart, so their pool placement, CPU architecture and fit go
unchecked. This policy makes that visible in every preview. It is advisory by default (a Release is
not wrong, only opaque); an organisation that wants no unchecked workloads sets it to mandatory.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.placement import Stack


def helm_release_unchecked(stack: Stack) -> list[Finding]:
    """Each Helm v3 Release of the stack, on its own URN."""
    findings: list[Finding] = []
    for release in stack.helm_releases:
        chart = f"chart '{release.chart}'" if release.chart else "its chart"
        findings.append(Violation(
            f"Release '{release.name}' installs {chart} through Helm inside the Kubernetes provider, so no policy "
            "sees its workloads: their pool placement and CPU architecture go unchecked; deploy the chart with "
            "kubernetes:helm.sh/v4:Chart (same chart and values) to have them checked", release.urn))
    return findings


def _check(stack: Stack, context: Context) -> list[Finding]:
    return helm_release_unchecked(stack)


POLICY = Policy(
    name="helm-release-unchecked",
    subject="stack",
    level=EnforcementLevel.ADVISORY,
    description="A kubernetes:helm.sh/v3:Release installs workloads no policy can see: their placement, CPU "
                "architecture and fit go unchecked (advisory by default; set it to mandatory to refuse them).",
    severity=Severity.MEDIUM,
    remediation_steps="Deploy the chart with kubernetes:helm.sh/v4:Chart (same chart and values), whose workloads "
                      "the policies see, rather than kubernetes:helm.sh/v3:Release.",
    check=_check,
)
