"""disruption-budget-useful: every PodDisruptionBudget protects Pods and lets a drain move them.

A budget exists so that voluntary disruptions (drains for node upgrades, machine changes, Karpenter consolidation)
take its Pods a few at a time. Two budgets defeat that purpose (SPEC section 15):

* one that allows no eviction at its workloads' replicas (maxUnavailable 0, or a minAvailable that keeps every Pod:
  an integer at least the replicas, or a percentage that rounds up to all of them): every future drain of a node
  its Pods run on is blocked, as their platform says: EKS fails the update, AKS stops the upgrade, GKE waits an hour
  and evicts them anyway, Karpenter never finishes (policies/words.py);
* one whose selector matches the Pods of no workload of its namespace in the stack: it protects nothing, usually
  because of a typo in a label (a label one edit away is named).

Replicas are counted as pool-capacity counts them (an HPA's minReplicas when it asks for more; one that may be
the workload's, not known yet, makes the count, and the budget's verdict, a note); percentages are
rounded as the disruption controller rounds them (policies/model/disruption.py). Advisory by default: a budget that
blocks drains on purpose (a singleton that must never be moved by a drain) is a choice an organisation can make.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.budgets import Budget
from .model.disruption import protection
from .model.landing import landing
from .model.loads import pods_of
from .model.pool import Pool
from .model.stack import Stack
from .model.values import REDACTED, Unknown, undetermined
from .model.workloads import Workload
from .words import drain_events, drain_fails, subjects


def disruption_budget_useful(stack: Stack) -> list[Finding]:
    findings: list[Finding] = []
    protected = protection(stack)
    for budget in stack.budgets:
        if not budget.readable:
            continue  # the API server refuses it: the deploy says so
        selected = protected.selected.get(budget, [])
        unknown = protected.unknown.get(budget)
        if not selected:
            if unknown is not None:
                findings.append(unknown)
            elif stack.helm_releases:
                # not named: which budget selects nothing may follow from a secret label of a workload
                findings.append(undetermined("a PodDisruptionBudget selects no workload the pack sees, and Helm v3 "
                                             "Releases install workloads it cannot see"))
            else:
                findings.append(_protects_nothing(budget, protected.near.get(budget)))
            continue
        finding = _blocks(stack, budget, selected, unknown,
                          any(protected.hidden(budget, workload) for workload in selected))
        if finding is not None:
            findings.append(finding)
    return findings


def _protects_nothing(budget: Budget, near: tuple[str, Workload] | None) -> Violation:
    namespace = budget.namespace if isinstance(budget.namespace, str) else None
    where = f"namespace '{namespace}'" if namespace is not None else "its namespace"
    hint = f" (did you mean {near[0]}, a label of the Pods of {near[1].subject}?)" if near is not None else ""
    return Violation(
        f"{budget.subject}: its selector matches the Pods of no workload of {where} in the stack, so it protects "
        f"nothing: make its selector match the labels of the Pods it is for{hint}, or remove it", budget.urn)


def _blocks(stack: Stack, budget: Budget, selected: list[Workload], unknown: Unknown | None,
            hidden: bool) -> Finding | None:
    """A budget that allows no eviction of the Pods it selects (``hidden``: which Pods it selects is decided by a
    secret, and its message names none of them)."""
    ordered = sorted(selected, key=lambda workload: (workload.name, workload.urn))
    names = subjects(ordered)
    if hidden:
        names = REDACTED
    pools = _pools(stack, selected)
    drains = f"every drain of a node they run on ({drain_events(pools)}) is blocked: {drain_fails(pools)}"
    if budget.never_allows:
        return Violation(
            f"{budget.subject}: it selects the Pods of {names}, and maxUnavailable {budget.max_unavailable} allows no "
            f"eviction at any number of replicas: {drains}: allow one (maxUnavailable: 1)", budget.urn)
    if unknown is not None:
        return unknown  # it may select more Pods, which may let it allow an eviction
    counted = pods_of(stack, selected)
    if not isinstance(counted, tuple):
        return counted
    total, secret = counted
    secret = secret or hidden
    if total == 0 or budget.allowed(total) != 0:
        return None
    shown = "[secret]" if secret else str(total)
    numbers = "[secret]" if secret else budget.arithmetic(total)
    fix = f"lower minAvailable to at most {'[secret]' if secret else total - 1}" if budget.min_available is not None \
        else "allow one"
    return Violation(
        f"{budget.subject}: it selects the {shown} Pods of {names}, and {numbers} keeps all {shown} of them: it "
        f"allows no eviction, so {drains}: {fix}, use maxUnavailable: 1, or add replicas", budget.urn)


def _pools(stack: Stack, selected: list[Workload]) -> list[Pool]:
    """The pools the selected workloads' Pods may run on, as the scheduler places them (none known: none)."""
    return list({id(verdict.pool): verdict.pool for workload in selected
                 for verdict in landing(stack, workload).possible}.values())


def _check(stack: Stack, context: Context) -> list[Finding]:
    return disruption_budget_useful(stack)


POLICY = Policy(
    name="disruption-budget-useful",
    subject="stack",
    description="Every PodDisruptionBudget selects Pods of the stack's workloads and allows at least one eviction "
                "at their replicas, so drains can move them a few at a time.",
    severity=Severity.MEDIUM,
    level=EnforcementLevel.ADVISORY,
    remediation_steps="Make the budget's selector match the labels of the Pods it is for; let it allow an eviction "
                      "(maxUnavailable: 1, or a minAvailable below the replicas) or add replicas.",
    check=_check,
)
