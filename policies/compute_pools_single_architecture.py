"""compute-pools-single-architecture: every compute pool of the stack runs the same CPU architecture.

A stack builds its images once; a pool of another architecture would run them under emulation or
not at all. A pool's architecture is its profile's, else its machine's on aws, gcp and azure
(policies/model/sources/compute_cluster.py). Reported on each ComputeCluster that has a pool architecture, naming
its pools and, for one its machine provides, the machine. An organisation whose images are multi-architecture
lowers this policy's level; workload-node-architecture judges the Pods' pins either way.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.placement import declared_architectures
from .model.stack import Stack


def compute_pools_single_architecture(stack: Stack, platform: str | None = None) -> list[Finding]:
    """All pool architectures agree, declared or provided by a pool's machine: one image build cannot serve two."""
    declared = declared_architectures(stack, platform)
    if len(declared.architectures) <= 1:
        return [declared.unknown] if declared.unknown is not None else []
    found = listed(declared.architectures, " and ")
    verb = "run" if declared.provided else "declare"
    fix = ("use machines of one architecture (and the same profile.architecture, where one is declared) on every "
           "pool" if declared.provided else "declare the same profile.architecture on every pool")
    findings: list[Finding] = []
    for entry in stack.clusters:
        mine = []
        for pool in stack.pools:
            if pool.owner is not entry or pool.group is None:
                continue
            machine = pool.machines_on(platform)
            if isinstance(machine.architecture, str):
                mine.append(f"{pool.group.label} {machine.architecture} (its machine {machine.named})"
                            if machine.provided else f"{pool.group.label} {machine.architecture}")
        if mine:
            findings.append(Violation(
                f"ComputeCluster '{entry.label}' {'has' if declared.provided else 'declares'} {listed(mine)}, but "
                f"the stack's pools {verb} {found}: one image build cannot serve both; {fix}", entry.urn))
    return findings


def _check(stack: Stack, context: Context) -> list[Finding]:
    return compute_pools_single_architecture(stack, context.platform)


POLICY = Policy(
    name="compute-pools-single-architecture",
    subject="stack",
    description="All compute pools of the stack run the same CPU architecture, declared by their profile or "
                "provided by their machine: one image build cannot serve both arm64 and x86_64.",
    severity=Severity.HIGH,
    remediation_steps="Give every pool's profile.architecture the same value, or split the pools into stacks "
                      "that build images for one architecture each.",
    check=_check,
    reads_platform=True,
)
