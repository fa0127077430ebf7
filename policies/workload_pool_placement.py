"""workload-pool-placement: every container and daemon workload lands on exactly one ComputeCluster pool.

The ``compute.alien.dev/cluster`` and ``compute.alien.dev/pool`` labels (on the workload or its pod
template) name them; with a single ComputeCluster they may be left out when it has a ``general``
pool or only one pool (policies/model/placement.py resolves it). A label that names nothing, or two
places that disagree, would leave the Pods on whatever nodes the scheduler picks.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed, quoted
from .adapters.templates import Context, Policy, moved_setting
from .model.placement import (
    UNRESOLVED,
    ClusterNotChosen,
    DuplicateClusterId,
    MissingCluster,
    MissingPool,
    PoolWithoutCluster,
    Unresolved,
    placement_of,
)
from .model.stack import Stack
from .model.values import Unknown
from .model.workloads import CLUSTER_KEY, POOL_KEY, LabelProblem, LabelsDisagree, NotAString
from .words import LISTED


def workload_pool_placement(stack: Stack) -> list[Finding]:
    """Every container and daemon workload resolves to exactly one cluster and pool.

    (A Helm v3 Release hides its workloads from every policy: helm-release-unchecked shows it.)
    """
    findings: list[Finding] = []
    for workload in stack.workloads:
        findings.extend(Violation(f"{workload.subject}: {label_problem(problem)}", workload.urn)
                        for problem in workload.problems)
        if workload.patch or workload.role not in ("container", "daemon"):
            if isinstance(workload.role, Unknown):
                findings.append(workload.role)
            continue
        placement = placement_of(stack, workload)
        if isinstance(placement, Unknown):
            findings.append(placement)
        elif isinstance(placement, UNRESOLVED):
            findings.append(Violation(f"{workload.subject}: {unresolved(placement)}", workload.urn))
    return findings


def label_problem(problem: LabelProblem) -> str:
    if isinstance(problem, NotAString):
        return f"{problem.where}['{problem.key}'] must be a string, not {problem.type_name}"
    if isinstance(problem, LabelsDisagree):
        spots = listed(f"{where} says '{value}'" for where, value in problem.found)
        return f"'{problem.key}' disagrees between its labels and annotations ({spots}); set one value everywhere"
    return f"'{problem.key}' must be one of {listed(problem.roles)}"


def unresolved(outcome: Unresolved) -> str:
    """Why the workload resolves to no pool, and the fix."""
    if isinstance(outcome, DuplicateClusterId):
        return (f"'{CLUSTER_KEY}' names ComputeCluster '{outcome.cluster_id}', but more than one ComputeCluster has "
                "that id; give each ComputeCluster a unique id")
    if isinstance(outcome, MissingCluster):
        known = quoted(outcome.known, LISTED) or "there is none"
        return (f"'{CLUSTER_KEY}' references missing ComputeCluster '{outcome.cluster_id}'; use the id of a "
                f"ComputeCluster in this stack ({known})")
    if isinstance(outcome, PoolWithoutCluster):
        return (f"'{POOL_KEY}' selects pool '{outcome.pool_id}' without a ComputeCluster; declare a ComputeCluster "
                "or remove the label")
    if isinstance(outcome, ClusterNotChosen):
        return (f"the stack declares {len(outcome.known)} ComputeClusters ({quoted(outcome.known, LISTED)}); "
                f"select one explicitly with the label '{CLUSTER_KEY}'")
    assert isinstance(outcome, MissingPool)  # the dynamic outcomes are dynamic-container-pool's
    return (f"references missing or ambiguous pool '{outcome.pool_id}' in ComputeCluster '{outcome.cluster}' (its "
            f"pools: {quoted(outcome.pools, LISTED) or 'none'}); set the label '{POOL_KEY}' to one of them")


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
    dependents=True,
    check=_check,
    placement=True,
)
