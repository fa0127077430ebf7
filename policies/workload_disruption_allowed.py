"""workload-disruption-allowed: a drain can evict the workload's Pods.

Every machine change compute-cluster-safe-update allows replaces a pool's nodes, and so do AMI and version upgrades,
Karpenter consolidation and drift: each node is drained first, through the eviction API, which honours
PodDisruptionBudgets. Two things block that drain (SPEC section 15):

* a Pod that two or more budgets select: the eviction API refuses to evict it at all ("This pod has more than one
  PodDisruptionBudget, which the eviction subresource does not support"), so no drain ever moves it;
* a budget that allows no eviction (maxUnavailable 0, or minAvailable at least the Pods it counts) on a pool whose
  nodes this preview replaces (its machine, machines, AMI type or launch template changes against the previous
  deployment, read as compute-cluster-safe-update reads it): EKS fails the node group update with
  PodEvictionFailure, AKS fails the upgrade, a ComputeCluster's rollout waits.

Budgets select the Pods of their namespace on their own cluster (policies/model/disruption.py); replicas are counted
as pool-capacity counts them (an HPA's minReplicas when it asks for more; one that may be
the workload's, not known yet, makes the count, and the budget's verdict, a note). A drain leaves DaemonSet Pods, so
DaemonSets are not judged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pulumi_policy import Severity

from .adapters.baseline import Snapshot
from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.budgets import Budget
from .model.disruption import drained, protection
from .model.landing import landing
from .model.loads import pods_of
from .model.pool import Pool
from .model.replacement import Change, replaced
from .model.stack import Stack
from .model.values import REDACTED, Unknown, listed, quoted, undetermined
from .model.workloads import Workload
from .words import LISTED, drain_events, drain_fails, pool_name

Previous = Snapshot | None  # the previous deployment (None: the policy template says why there is none)


def workload_disruption_allowed(stack: Stack, previous: Callable[[], Previous],
                                remembered: Mapping[str, Any] | None = None) -> list[Finding]:
    """``previous``: the previous deployment's inputs and types by URN (or why there are none), asked for only when a
    workload's budget allows no eviction; ``remembered``: what Analyze saw of each resource (its checked inputs)."""
    findings: list[Finding] = []
    protected = protection(stack)
    blocked: list[tuple[Workload, Budget, int, bool]] = []
    for workload in stack.workloads:
        if not drained(workload):
            continue
        budgets = protected.of_workload.get(workload, [])
        if len(budgets) >= 2:
            hidden = any(protected.hidden(budget, workload) for budget in budgets)  # the match a secret decides
            names = REDACTED if hidden else quoted(sorted(budget.name for budget in budgets), LISTED)
            findings.append(Violation(
                f"{workload.subject}: its Pods are selected by {REDACTED if hidden else len(budgets)} "
                f"PodDisruptionBudgets ({names}); the eviction API refuses to evict a Pod that more than one budget "
                f"selects, so no drain ({drain_events(_pools(stack, workload))}) can ever move them: keep one budget "
                "for these Pods", workload.urn))
            continue
        maybe = protected.unknown_of.get(workload)
        if maybe is not None and budgets:
            findings.append(maybe)  # a second budget may select it
        if len(budgets) != 1:
            continue
        budget = budgets[0]
        selected = protected.selected.get(budget, [])
        total = pods_of(stack, selected)
        if not isinstance(total, tuple):
            if budget.never_allows:
                blocked.append((workload, budget, 0, False))
            elif total is not None:
                findings.append(total)
            continue
        count, secret = total
        secret = secret or any(protected.hidden(budget, other) for other in selected)
        if count > 0 and budget.allowed(count) == 0:
            blocked.append((workload, budget, count, secret))
    if not blocked:
        return findings
    found = previous()
    if found is None:  # the policy template says what is not judged (SPEC 5)
        return findings
    foreign = found.foreign(stack.resources)
    if foreign is not None:  # another stack's state: no pool of this one is in it, so none would read as replaced
        return [*findings, undetermined(foreign)]
    changed, maybe_changed = replaced(stack.pools, found.inputs, found.types, stack.resources, found.outputs,
                                      remembered or {})
    for workload, budget, count, secret in blocked:
        pools = landing(stack, workload).runs_on()
        if isinstance(pools, Unknown):
            findings.append(pools)
            continue
        if not pools:
            continue
        late = next((maybe_changed[pool] for pool in pools if pool in maybe_changed), None)
        if any(pool not in changed for pool in pools):
            if late is not None:
                findings.append(late)
            continue  # its Pods may run on a pool this preview keeps
        several = stack.several_clusters
        how = listed((f"{pool_name(pool, several)}: {_changes(changed[pool])}" for pool in pools), "; ")
        kept = "its one Pod" if count == 1 else f"all {count} of its Pods"
        numbers = "it keeps all [secret] of its Pods" if secret else \
            f"{budget.arithmetic(count)} keeps {kept}" if count else budget.arithmetic(count)
        name = REDACTED if protected.hidden(budget, workload) else budget.name
        findings.append(Violation(
            f"{workload.subject}: its PodDisruptionBudget '{name}' allows no eviction ({numbers}), and this "
            f"preview replaces the nodes its Pods run on ({how}): the replacement drains every node and the budget "
            f"lets none of them go ({drain_fails(pools)}): allow an eviction (maxUnavailable: 1, or a minAvailable "
            "below its replicas) or add replicas before the pool changes", workload.urn))
    return findings


def _pools(stack: Stack, workload: Workload) -> list[Pool]:
    return [verdict.pool for verdict in landing(stack, workload).possible]


def _changes(changes: tuple[Change, ...]) -> str:
    return listed(changes)


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_disruption_allowed(stack, context.previous, context.state.remembered)


POLICY = Policy(
    name="workload-disruption-allowed",
    subject="stack",
    description="A drain can evict every workload's Pods: no Pod is selected by two PodDisruptionBudgets, and no "
                "budget that allows no eviction covers Pods on a pool whose nodes this preview replaces.",
    severity=Severity.HIGH,
    # neither is named: which budget selects which Pods may follow from secret labels
    previous="whether this preview replaces the nodes of Pods a PodDisruptionBudget lets none go",
    remediation_steps="Keep one PodDisruptionBudget per set of Pods. Before a change that replaces a pool's nodes "
                      "(its machine, AMI type or launch template), let the budget allow an eviction "
                      "(maxUnavailable: 1, or minAvailable below the replicas) or add replicas.",
    dependents=True,
    check=_check,
)
