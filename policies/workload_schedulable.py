"""workload-schedulable: some pool the platform declares can take the workload's Pods, by the scheduler's rules.

A Pod the stack's pools cannot take sits Pending: "0/3 nodes are available: 3 node(s) had untolerated taint",
"didn't match Pod's node affinity/selector", or Karpenter's "incompatible with nodepool". For pools the platforms
declare (SPEC section 14: Karpenter NodePools, EKS, GKE and AKS node pools), a workload without compute.alien.dev
placement is matched the way the scheduler matches it (policies/model/scheduling.py): its nodeSelector and
required node affinity against each pool's node labels, its tolerations against each pool's NoSchedule and
NoExecute taints. It fails only when every pool certainly refuses it; a pool or a Pod not known yet during
preview is possible, and said so. DaemonSets are left out: their Pods are only created where they can run.

A workload is judged on the pools of the cluster its Kubernetes provider targets (SPEC 14.2), or, when the pack cannot
tell which, on every cluster's (it fails only where every one refuses it). Where that cluster may have pools the stack
does not show (a cluster of another stack, an Autopilot cluster, a Fargate profile), "no pool can run it" is a note,
never a violation; and a cluster or pool resource whose pools the pack cannot read is said once.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.landing import Landing, landing
from .model.loads import held_by_defaults, provisioned
from .model.stack import Stack
from .model.values import Unknown, quoted, undetermined
from .model.workloads import Workload
from .words import reason, subjects, unknown_cluster, unshown


def workload_schedulable(stack: Stack) -> list[Finding]:
    findings: list[Finding] = _unread(stack) if stack.workloads else _dependents(stack)
    several = stack.several_clusters
    for workload in stack.workloads:
        if workload.kind == "DaemonSet":
            continue
        landed = landing(stack, workload)
        if isinstance(landed.gate, Unknown):
            findings.append(landed.gate)
            continue
        if not landed.scheduled:
            continue
        if landed.nowhere:
            reasons = listed([reason(verdict, several) for verdict in landed.verdicts], "; ")
            # where the platform adds pools of its own, why none of them takes the Pods either
            for cluster, why in landed.declared_only:
                reasons = f"{reasons}; {cluster.label}'s {why}"
            findings.append(Violation(
                f"{workload.subject}: no pool can run its Pods: {reasons}. They would stay Pending: change its "
                "nodeSelector, node affinity or tolerations to match a pool, or declare a pool that takes them",
                workload.urn))
        elif (landed.refuses_everywhere() or (not landed.taking and landed.unknown is not None)) \
                and provisioned(stack, landed, {}):
            continue  # its platform adds a node that holds it (GKE's default machines within the caps)
        elif landed.refuses_everywhere():
            findings.append(_elsewhere(stack, landed, several))
        elif landed.unknown_cluster and any(landed.refused_by(candidate) for candidate in landed.candidates):
            findings.append(_which_cluster(stack, landed, several))
        elif not landed.taking and landed.unknown is not None:
            findings.append(landed.unknown)
    return findings


def _which_cluster(stack: Stack, landed: Landing, several: bool) -> Unknown:
    """The cluster cannot be told, and some candidate's pools all refuse the Pods while another's may take them."""
    verdicts = []
    for candidate in landed.candidates:
        if landed.refused_by(candidate):
            reasons = listed([reason(verdict, True) for verdict in landed.verdicts
                              if candidate in landed.candidates_of(verdict.pool)], "; ")
            verdicts.append((candidate.cluster, f"no pool can run its Pods ({reasons})"))
        else:
            verdicts.append((candidate.cluster, "a pool can run them"))
    return undetermined(unknown_cluster(stack, landed.workload, verdicts))


def _elsewhere(stack: Stack, landed: Landing, several: bool) -> Unknown:
    """Every pool the stack shows refuses the Pods, but their cluster may have pools it does not show: a note, saying
    why (what the pack does not read of that cluster)."""
    clusters = [candidate.cluster for candidate in landed.candidates if not candidate.complete]
    reasons = listed([reason(verdict, several) for verdict in landed.verdicts], "; ") or "the stack shows none"
    return undetermined(f"{landed.workload.subject}: no pool this stack declares can run its Pods ({reasons}), but "
                        f"{unshown(stack, clusters)}, so this is not judged")


def _unread(stack: Stack) -> list[Finding]:
    """One note per pool resource whose pools the pack cannot read, per cluster whose platform adds nodes the stack does
    not show (naming the workloads on it this leaves unjudged: one the scheduler's rules judge on its declared pools
    says what it leaves unjudged itself), and per declared cluster of which the stack declares no pool."""
    notes: list[Finding] = []
    for item in stack.unread:
        unjudged = _unjudged(stack, item.urn)
        if unjudged is None:
            notes.append(undetermined(f"{item.kind} '{item.name}' {item.why}; the placement of workloads on it is not "
                                      "judged"))
        elif unjudged:
            notes.append(undetermined(f"{item.kind} '{item.name}' {item.why}; the placement of {subjects(unjudged)} "
                                      "on it is not judged"))
    seen = {item.urn for item in stack.unread} | stack.pooled
    empty = [cluster.name for cluster in stack.kube_clusters if cluster.urn not in seen and not cluster.component]
    if empty:
        notes.append(undetermined(f"the stack declares no pool of {quoted(empty)}, so the placement of workloads on "
                                  f"{'it' if len(empty) == 1 else 'them'} is not judged"))
    placed = [workload for workload in stack.workloads if workload.has_pod_spec and not workload.patch]
    own = {cluster.urn for cluster in stack.kube_clusters}
    # the workloads that may run on another stack's cluster: those on no cluster of this stack
    elsewhere = [workload for workload in placed if stack.target(workload.urn).key not in own]
    for found in stack.referenced:  # the other stacks whose clusters its workloads may run on (SPEC 18)
        if found.error:
            which = subjects(elsewhere) if elsewhere else "workloads"
            notes.append(undetermined(f"stack {found.name} cannot be read ({found.error}), so the placement, fit and "
                                      f"capacity of {which} on its clusters are not judged"))
        elif not any(cluster.stack == found.name for cluster in stack.kube_clusters):
            notes.append(undetermined(f"stack {found.name} holds no cluster, so no workload is judged on its pools"))
    if stack.stacks_problem:
        notes.append(undetermined(stack.stacks_problem))
    notes.extend(_dependents(stack))
    if not stack.pools and not stack.clusters and not stack.kube_clusters and not stack.unread and not stack.referenced:
        if placed:  # the usual app stack: its cluster is another stack's (SPEC 18), or its kubeconfig comes from config
            notes.append(undetermined(
                f"the stack declares no cluster and no pool, and names no stack that does, so the placement, fit and "
                f"capacity of {subjects(placed)} are not judged: name the stack that holds their cluster in the stack "
                "config compute:stacks (a JSON list of org/project/stack names, or of names to `pulumi stack export` "
                "files)"))
    return notes


def _unjudged(stack: Stack, urn: str) -> list[Workload] | None:
    """The workloads whose placement on the cluster ``urn`` this policy leaves unjudged: those that may run on it and
    that no declared pool is judged for (the stack declares none the scheduler's rules place them on); None when
    ``urn`` is not a cluster of the stack (a pool resource whose pools are not read: said whole)."""
    cluster = next((found for found in stack.kube_clusters if found.urn == urn), None)
    if cluster is None:
        return None
    return [workload for workload in stack.workloads if workload.kind != "DaemonSet" and workload.has_pod_spec
            and not workload.patch and cluster in stack.clusters_of(workload.urn)
            and not landing(stack, workload).scheduled and landing(stack, workload).named is None
            and not held_by_defaults(stack, workload, cluster, {})]


def _dependents(stack: Stack) -> list[Finding]:
    """One note per app stack compute:dependents names that cannot be read (SPEC 18)."""
    return [undetermined(f"stack {found.name} cannot be read ({found.error}), so what this change does to its "
                         "workloads on this stack's pools is not judged") for found in stack.dependents if found.error]


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_schedulable(stack)


POLICY = Policy(
    name="workload-schedulable",
    subject="stack",
    description="Some platform pool of the stack (a Karpenter NodePool, an EKS, GKE or AKS pool) takes the "
                "workload's Pods by the scheduler's rules: node labels, node affinity, taints and tolerations.",
    severity=Severity.HIGH,
    remediation_steps="Make the workload's nodeSelector and required node affinity match the labels of a pool's "
                      "nodes and tolerate that pool's NoSchedule and NoExecute taints, or declare a pool that "
                      "takes it.",
    dependents=True,
    check=_check,
)
