"""workload-node-architecture: every workload's Pods are pinned to the architecture their pool needs.

In a cluster with nodes of both architectures, Pods without a ``kubernetes.io/arch`` constraint can
be scheduled where their image cannot run. The architecture comes from the workload's pool (declared
by its profile, or provided by its machine: policies/model/sources/compute_cluster.py), else from the stack's single one
(policies/model/placement.py, needed_architecture); a constraint that excludes it is wrong, one that merely
allows others is not a pin.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.architecture import node_architecture
from .model.labels import ARCH
from .model.landing import Candidate, Landing, PoolVerdict, landing
from .model.placement import declared_architectures, needed_architecture
from .model.stack import Stack
from .model.values import Unknown, undetermined
from .model.workloads import Workload
from .words import because, pool_name, unsure


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
        fix = f"set {workload.pod_spec_path}.nodeSelector['{ARCH}'] to '{node_arch}'"
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
    among the machines its constraints allow, else its Pods land on either. Where the pack cannot tell the
    workload's cluster, only when that holds on every candidate cluster."""
    findings: list[Finding] = []
    several = stack.several_clusters
    for workload in stack.workloads:
        if workload.kind == "DaemonSet" or workload.constraint.pinned is not None:
            continue  # pinned: the pools take its Pods on nodes of that architecture only
        landed = landing(stack, workload)
        if not landed.scheduled:
            continue
        mixed = _mixed(landed, landed.taking_in, several)  # the pools that certainly take its Pods
        if mixed is not None:
            findings.append(Violation(_unpinned(workload, *mixed), workload.urn))
        elif landed.unknown is not None and (maybe := _mixed(landed, landed.possible_in, several)) is not None:
            # mixed only with pools that may take its Pods: what fails if they do is said, never passed
            findings.append(undetermined(f"{_unpinned(workload, *maybe)}; but {unsure(landed, several)}, so this is "
                                         "not judged"))
    return findings


def _mixed(landed: Landing, pools_in: Callable[[Candidate], tuple[PoolVerdict, ...]],
           several: bool) -> tuple[list[str], str] | None:
    """The architectures and the pools of each when ``pools_in`` of every candidate cluster run more than one."""
    per_candidate = []
    for candidate in landed.candidates:
        runs = {pool_name(verdict.pool, several): sorted({architecture for option in verdict.options
                                                          if (architecture := option.node_architecture)})
                for verdict in pools_in(candidate)}
        per_candidate.append(runs)
    if not per_candidate or not all(len({arch for archs in runs.values() for arch in archs}) > 1
                                    for runs in per_candidate):
        return None
    runs = {label: archs for found in per_candidate for label, archs in found.items()}
    every = sorted({architecture for architectures in runs.values() for architecture in architectures})
    return every, listed([f"{label} runs {listed(architectures, ' and ')}" for label, architectures in runs.items()])


def _unpinned(workload: Workload, every: list[str], pools: str) -> str:
    return (f"{workload.subject}: its Pods may land on {listed(every, ' and ')} nodes ({pools}), but nothing pins them "
            f"to one architecture; set {workload.pod_spec_path}.nodeSelector['{ARCH}'] to the one its images are built "
            "for")


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
    dependents=True,
    check=_check,
    reads_platform=True,
    placement=True,
)
