"""workload-interruption-tolerant: a workload that can run only on capacity the provider reclaims, or on nodes replaced
on a schedule, can lose a Pod without going down.

Spot and preemptible nodes are taken back at the provider's word: about two minutes' notice on AWS
(docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html), 30 seconds on GCP
(cloud.google.com/compute/docs/instances/spot, "Preemption process") and on Azure (learn.microsoft.com/azure/virtual-
machines/spot-vms, "Eviction policy"). Each pool's capacity is its source's fact (SPEC 16: EKS ``capacityType: SPOT``,
GKE ``spot`` / ``preemptible``, AKS ``scaleSetPriority: Spot``, a Karpenter NodePool whose ``karpenter.sh/capacity-
type`` requirement allows spot only). A workload whose Pods the scheduler can place on such pools only, where its
cluster's pools are all known, and which cannot lose a Pod without downtime (one replica, a StatefulSet of one
included, or a PodDisruptionBudget that allows no eviction of its Pods), goes down at the first reclaim. Advisory:
running one replica on spot capacity may be a choice.

Node lifetimes (SPEC 23) are forced disruptions on a schedule the stack declares (``Pool.lifetime``): a Karpenter
NodePool's ``expireAfter`` replaces each node after that long, and with ``terminationGracePeriod`` its drain deletes
the Pods past their budgets once the grace runs out (the karpenter.sh/v1 NodePool CRD); a NodePool that writes its
consolidation policy (WhenEmptyOrUnderutilized, Balanced) has Karpenter remove the nodes it finds underused; EKS Auto
Mode replaces every node within 21 days whatever the budgets; GKE upgrades a pool's nodes on its own
(management.autoUpgrade, true by default) and drains them past a budget after an hour; an AKS cluster that writes an
upgrade channel (or the NodeImage node OS channel) has AKS drain and replace every node on AKS's schedule (a blocking
budget stops the upgrade instead). A workload that may land only on such pools, with one replica (where the schedule
is written or forced), or with a budget that allows no eviction (where the drain is forced), goes down on that
schedule. A NodePool that writes no expireAfter (Karpenter's 720h default), or a GKE pool that does not write
autoUpgrade, is not judged for one replica: every pool's nodes are drained now and then, and the policy speaks of
schedules the stack declares.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.disruption import disruption_ignored, drained, protection
from .model.landing import PoolVerdict, interruption, landing
from .model.loads import placed_of, pods_of
from .model.pool import Lifetime
from .model.stack import Stack
from .model.values import is_secret, undetermined
from .model.workloads import Workload
from .words import pool_name, unsure


def workload_interruption_tolerant(stack: Stack) -> list[Finding]:
    """Each workload that runs on reclaimable capacity only can lose one of its Pods."""
    findings: list[Finding] = []
    several = stack.several_clusters
    for workload in stack.workloads:
        if not drained(workload):
            continue  # a DaemonSet's Pods are per node; a Patch's are another workload's
        landed = landing(stack, workload)
        if not landed.scheduled or landed.unknown_cluster or not landed.complete:
            continue
        possible = landed.possible
        kinds = [interruption(verdict, workload.scheduling) for verdict in possible]
        if possible and all(kinds):  # every pool that may take it is reclaimed: certain
            why = _fragile(stack, workload)
            if why is not None:
                findings.append(Violation(_message(workload, possible, kinds, why, several), workload.urn))
            continue
        expiring = _expiring(stack, workload, possible, several)
        if expiring is not None:
            findings.append(Violation(expiring, workload.urn))
            continue
        if landed.unknown is None:
            continue  # some pool that takes it is not reclaimed (or not known to be)
        taking = landed.taking
        taken = [interruption(verdict, workload.scheduling) for verdict in taking]
        if taking and all(taken) and (why := _fragile(stack, workload)) is not None:
            # reclaimed unless a pool that may take it does, which is not known: said, never passed
            findings.append(undetermined(f"{_message(workload, taking, taken, why, several)}; but "
                                         f"{unsure(landed, several)}, so this is not judged"))
    return findings


NOTICE = "spot nodes are taken back at two minutes' notice on AWS, 30 seconds on GCP and Azure"
# A Job's Pod killed by a node's removal gets the DisruptionTarget condition, and counts against the Job's backoffLimit
# unless a podFailurePolicy rule ignores that condition (kubernetes.io/docs/concepts/workloads/controllers/job/,
# "Pod failure policy"; pkg/controller/job's DisruptionTarget handling)
JOBS = ("Job", "CronJob")


def _message(workload: Workload, verdicts: tuple[PoolVerdict, ...], kinds: list[str | None], why: str,
             several: bool) -> str:
    pools = listed([f"{pool_name(verdict.pool, several)} ({kind})" for verdict, kind in zip(verdicts, kinds,
                                                                                          strict=True)])
    if workload.kind in JOBS:
        return (f"{workload.subject}: its Pods can run only on capacity the provider reclaims ({pools}), and {why}: "
                f"a reclaim ({NOTICE}) kills the Pod it runs, whose work starts over, and the Job counts it against "
                "its backoffLimit: give the Job a podFailurePolicy rule that ignores the DisruptionTarget condition "
                "(action: Ignore), make its work resumable, or give it a pool of on-demand nodes")
    return (f"{workload.subject}: its Pods can run only on capacity the provider reclaims ({pools}), and {why}: the "
            f"first reclaim takes it down ({NOTICE}): run at least two replicas with a budget that allows one "
            "eviction, or give it a pool of on-demand nodes")


def _expiring(stack: Stack, workload: Workload, possible: tuple[PoolVerdict, ...], several: bool) -> str | None:
    """Node lifetimes (SPEC 23): every pool that may take it replaces its nodes on a schedule the stack declares, and
    it cannot lose a Pod: one replica goes down at each replacement where the schedule is written or forced; a budget
    that allows no eviction holds only where the drain never deletes Pods past it (no grace, no platform limit)."""
    if not possible or workload.kind in JOBS:
        return None
    lifetimes = [verdict.pool.lifetime for verdict in possible]
    if any(lifetime is None for lifetime in lifetimes):
        return None  # (before the workload's count and budgets: most pools declare no lifetime)
    why = _fragile(stack, workload)
    if why is None:
        return None
    budget = why != ONE_REPLICA
    # one replica: where the stack chose the schedule (wrote it, or a forced one); a budget: where the drain is forced
    if not all(lifetime is not None and (lifetime.forced if budget else
                                         (lifetime.forced or bool(lifetime.field)) and not lifetime.default)
               for lifetime in lifetimes):
        return None
    pools = listed([f"{pool_name(verdict.pool, several)} ({_schedule(lifetime)})"
                    for verdict, lifetime in zip(possible, lifetimes, strict=True) if lifetime is not None], "; ")
    if budget:
        return (f"{workload.subject}: its Pods run only on pools whose nodes are replaced on a schedule ({pools}), "
                f"and {why}: each replacement's drain waits on the budget only until its grace runs out, then deletes "
                "the Pods anyway, and the workload goes down on that schedule: let the budget allow one eviction "
                "with at least two replicas, or give it a pool whose nodes do not expire")
    return (f"{workload.subject}: its Pods run only on pools whose nodes are replaced on a schedule ({pools}), and "
            f"{why}: each replacement evicts it and it is down until its Pod starts again: run at least two replicas "
            "with a budget that allows one eviction, or give it a pool whose nodes do not expire")


def _schedule(lifetime: Lifetime) -> str:
    """How a pool's nodes are replaced, as a clause."""
    written = f" ({lifetime.field})" if lifetime.field else ""
    grace = f" ({lifetime.grace_field})" if lifetime.grace_field else ""
    forced = (f", and deletes their Pods {lifetime.grace} into the drain whatever their budgets{grace}"
              if lifetime.grace else
              ", whatever their budgets" if lifetime.limit and lifetime.limit == lifetime.every else
              f", and within {lifetime.limit} whatever their budgets" if lifetime.limit else "")
    when = f"after {lifetime.every}" if lifetime.every[:1].isdigit() else lifetime.every
    return f"{lifetime.platform} replaces each node {when}{written}{forced}"


ONE_REPLICA = "it runs one replica"


def _fragile(stack: Stack, workload: Workload) -> str | None:
    """Why it cannot lose a Pod without downtime, or None when it can (or the pack cannot tell)."""
    if workload.kind in JOBS:
        count = placed_of(stack, workload).count
        if count == 1 and not is_secret(count) and not disruption_ignored(workload):
            return "it runs one Pod at a time"
        return None
    placed = placed_of(stack, workload)
    count = placed.count
    if placed.maybe is not None:
        return None  # an HPA may keep more of its Pods (pool-capacity says it)
    if count == 1 and not is_secret(count):
        return ONE_REPLICA
    budgets = protection(stack).of_workload.get(workload, [])
    if len(budgets) != 1 or not isinstance(count, int) or count < 1:
        return None  # two budgets refuse every eviction already: workload-disruption-allowed's
    budget = budgets[0]
    total = pods_of(stack, protection(stack).selected.get(budget, []))
    if not isinstance(total, tuple) or total[1] or total[0] < 1:
        return None
    if budget.allowed(total[0]) == 0:
        return f"{budget.subject} allows no eviction of its Pods"
    return None


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_interruption_tolerant(stack)


POLICY = Policy(
    name="workload-interruption-tolerant",
    subject="stack",
    description="A workload that can run only on spot capacity or expiring nodes can lose a Pod: more than one "
                "replica, and no PodDisruptionBudget that allows no eviction.",
    severity=Severity.MEDIUM,
    level=EnforcementLevel.ADVISORY,
    remediation_steps="Run at least two replicas with a PodDisruptionBudget that allows one eviction (a Job: a "
                      "podFailurePolicy rule that ignores the DisruptionTarget condition), or let the workload's Pods "
                      "land on a pool of on-demand nodes too.",
    dependents=True,
    check=_check,
)
