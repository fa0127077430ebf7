"""workload-node-architecture: every workload's Pods are pinned to the architecture their pool needs.

In a cluster with nodes of both architectures, Pods without a ``kubernetes.io/arch`` constraint can
be scheduled where their image cannot run. The architecture comes from the workload's pool (declared
by its profile, or provided by its machine: policies/model/pools.py), else from the stack's single one
(policies/model/placement.py, needed_architecture); a constraint that excludes it is wrong, one that merely
allows others is not a pin.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.architecture import node_architecture
from .model.placement import Need, Stack, declared_architectures, needed_architecture, on_platform_pools, schedule_of
from .model.values import Unknown


def workload_node_architecture(stack: Stack, platform: str | None = None) -> list[Finding]:
    """Every workload's Pods are pinned to the architecture its placement needs."""
    findings: list[Finding] = []
    declared = declared_architectures(stack, platform)
    for workload in stack.workloads:
        needed = needed_architecture(stack, declared, workload)
        if needed is None:
            continue
        if isinstance(needed, Unknown):
            findings.append(needed)
            continue
        why = because(needed)
        node_arch = node_architecture(needed.architecture)
        constraint = workload.constraint
        fix = f"set {workload.pod_spec_path}.nodeSelector['kubernetes.io/arch'] to '{node_arch}'"
        if node_arch not in constraint.allowed:
            allowed = listed(sorted(constraint.allowed)) or "no architecture"
            findings.append(Violation(
                f"{workload.subject}: its Pods need {node_arch} nodes ({why}), but its architecture constraints "
                f"exclude {node_arch} (they allow {allowed}); {fix}", workload.urn))
        elif constraint.unknown is not None:
            findings.append(constraint.unknown)
        elif not workload.patch and constraint.allowed != {node_arch}:
            findings.append(Violation(
                f"{workload.subject}: its Pods need {node_arch} nodes ({why}), but nothing pins them there and "
                f"they could be scheduled on another architecture in a mixed cluster; {fix}", workload.urn))
    findings.extend(_platform_pools(stack))
    return findings


def _platform_pools(stack: Stack) -> list[Finding]:
    """On pools the platforms declare (SPEC 14): the pools that can take a workload's Pods run one architecture
    among the machines its constraints allow, else its Pods land on either."""
    findings: list[Finding] = []
    for workload in stack.workloads:
        if on_platform_pools(stack, workload) is not True:
            continue
        schedule = schedule_of(stack, workload)
        if schedule.unknown is not None or not schedule.taking:
            continue
        runs = {verdict.pool.label: sorted({_ARCHITECTURES.get(machine.architecture, machine.architecture)
                                            for machine in verdict.machines}) for verdict in schedule.taking}
        every = sorted({architecture for architectures in runs.values() for architecture in architectures})
        if len(every) > 1:
            pools = listed([f"{label} runs {listed(architectures, ' and ')}" for label, architectures in runs.items()])
            findings.append(Violation(
                f"{workload.subject}: its Pods may land on {listed(every, ' and ')} nodes ({pools}), but nothing "
                f"pins them to one architecture; set {workload.pod_spec_path}.nodeSelector['kubernetes.io/arch'] to "
                "the one its images are built for", workload.urn))
    return findings


_ARCHITECTURES = {"x86_64": "amd64", "arm64": "arm64"}  # a catalog machine's architecture as its nodes' label


def because(need: Need) -> str:
    """What says the Pods need their architecture (workload-architecture-pin says it the same way)."""
    if need.pool is not None and need.entry is not None:
        where = f"{need.pool.label} of ComputeCluster '{need.entry.label}'"
        if need.machine is not None:
            return f"{where} runs {need.machine.name}, an {need.architecture} machine"
        return f"{where} declares {need.architecture}"
    return f"the stack's compute pools {'run' if need.provided else 'declare'} {need.architecture}"


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_node_architecture(stack, context.platform)


POLICY = Policy(
    name="workload-node-architecture",
    subject="stack",
    description="Every workload's Pods are pinned to the CPU architecture its compute pool (declared, or provided "
                "by its machine; else the stack's single pool architecture) needs, so they cannot land on "
                "incompatible nodes.",
    severity=Severity.HIGH,
    remediation_steps="Add nodeSelector kubernetes.io/arch: amd64 (for x86_64 pools) or arm64 (for arm64 pools) "
                      "to the workload's pod template, and remove constraints that exclude it.",
    check=_check,
    reads_platform=True,
)
