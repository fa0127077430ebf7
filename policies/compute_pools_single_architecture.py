"""compute-pools-single-architecture: every compute pool of the stack declares the same CPU architecture.

A stack builds its images once; a pool of another architecture would run them under emulation or
not at all. Reported on each ComputeCluster that declares an architecture, naming its pools.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .cluster import Cluster
from .findings import Finding, Violation, listed
from .placement import Stack, declared_architectures
from .templates import Context, Policy


def compute_pools_single_architecture(stack: Stack) -> list[Finding]:
    """All declared pool architectures agree: one image build cannot serve two."""
    declared = declared_architectures(stack)
    if len(declared.architectures) <= 1:
        return [declared.unknown] if declared.unknown is not None else []
    found = listed(declared.architectures, " and ")
    findings: list[Finding] = []
    for entry in stack.clusters:
        pools = entry.cluster.pools if isinstance(entry.cluster, Cluster) else ()
        mine = [f"{pool.label} {pool.architecture}" for pool in (pools if isinstance(pools, tuple) else ())
                if isinstance(pool.architecture, str)]
        if mine:
            findings.append(Violation(
                f"ComputeCluster '{entry.label}' declares {listed(mine)}, but the stack's pools declare "
                f"{found}: one image build cannot serve both; declare the same profile.architecture on every "
                "pool", entry.urn))
    return findings


def _check(stack: Stack, context: Context) -> list[Finding]:
    return compute_pools_single_architecture(stack)


POLICY = Policy(
    name="compute-pools-single-architecture",
    subject="stack",
    description="All compute pools of the stack declare the same CPU architecture: one image build cannot serve "
                "both arm64 and x86_64.",
    severity=Severity.HIGH,
    remediation_steps="Give every pool's profile.architecture the same value, or split the pools into stacks "
                      "that build images for one architecture each.",
    check=_check,
)
