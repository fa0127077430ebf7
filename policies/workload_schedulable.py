"""workload-schedulable: some pool the platform declares can take the workload's Pods, by the scheduler's rules.

A Pod the stack's pools cannot take sits Pending: "0/3 nodes are available: 3 node(s) had untolerated taint",
"didn't match Pod's node affinity/selector", or Karpenter's "incompatible with nodepool". For pools the platforms
declare (SPEC section 14: Karpenter NodePools, EKS, GKE and AKS node pools), a workload without compute.alien.dev
placement is matched the way the scheduler matches it (policies/model/scheduling.py): its nodeSelector and
required node affinity against each pool's node labels, its tolerations against each pool's NoSchedule and
NoExecute taints. It fails only when every pool certainly refuses it; a pool or a Pod not known yet during
preview is possible, and said so. DaemonSets are left out: their Pods are only created where they can run.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.architecture import ARCH_LABELS
from .model.placement import Stack, on_platform_pools, schedule_of
from .model.platform_pools import PoolVerdict
from .model.scheduling import LabelMismatch
from .model.values import Unknown


def reason(verdict: PoolVerdict) -> str:
    """Why one pool refuses the Pods, in the scheduler's terms."""
    parts = []
    if verdict.untolerated:
        taints = listed([taint.text for taint in verdict.untolerated])
        parts.append(f"has {'taint' if len(verdict.untolerated) == 1 else 'taints'} {taints} that it does not "
                     "tolerate")
    if verdict.mismatch is not None:
        parts.append(label_reason(verdict, verdict.mismatch))
    return f"{verdict.pool.label} {listed(parts, ' and ')}"


def label_reason(verdict: PoolVerdict, mismatch: LabelMismatch) -> str:
    if mismatch.failure == "selector" and mismatch.key in ARCH_LABELS:
        runs = listed(sorted({found[mismatch.key] for _, found in verdict.pool.machines if mismatch.key in found}))
        return f"runs {runs or 'no'} nodes, not {mismatch.value} (its nodeSelector's {mismatch.key})"
    if mismatch.failure == "selector":
        return f"does not have label {mismatch.key}={mismatch.value}"
    if mismatch.key is not None:
        return f"has no node its required node affinity on {mismatch.key} matches"
    return "has no node any term of its required node affinity matches"


def workload_schedulable(stack: Stack) -> list[Finding]:
    findings: list[Finding] = []
    for workload in stack.workloads:
        judged = on_platform_pools(stack, workload)
        if isinstance(judged, Unknown):
            findings.append(judged)
            continue
        if not judged:
            continue
        schedule = schedule_of(stack, workload)
        if schedule.nowhere:
            reasons = listed([reason(verdict) for verdict in schedule.verdicts], "; ")
            findings.append(Violation(
                f"{workload.subject}: no pool can run its Pods: {reasons}. They would stay Pending: change its "
                "nodeSelector, node affinity or tolerations to match a pool, or declare a pool that takes them",
                workload.urn))
        elif not schedule.taking and schedule.unknown is not None:
            findings.append(schedule.unknown)
    return findings


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_schedulable(stack)


POLICY = Policy(
    name="workload-schedulable",
    subject="stack",
    description="Some pool the stack declares through its platform (a Karpenter NodePool, an EKS, GKE or AKS node "
                "pool) can take the workload's Pods by the scheduler's rules: node labels against its nodeSelector "
                "and required node affinity, taints against its tolerations.",
    severity=Severity.HIGH,
    remediation_steps="Make the workload's nodeSelector and required node affinity match the labels of a pool's "
                      "nodes and tolerate that pool's NoSchedule and NoExecute taints, or declare a pool that "
                      "takes it.",
    check=_check,
)
