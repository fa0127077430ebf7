"""platform-admits-workload: the platform that runs a workload's Pods on nodes of its own admits them (SPEC 21,
policy 30).

Each platform's admission lives with its source (policies/model/sources/): EKS Fargate (``eks.fargate_refusals``: a
Pod its Fargate profiles select runs on Fargate, which runs no privileged containers, no Pods on the host's network
or with host ports, no GPUs and no DaemonSets; a Pod no profile selects, on a cluster with no node group of the stack,
stays Pending), GKE Autopilot (``gke.autopilot_refusals``: privileged containers, the host's namespaces, hostPath
outside /var/log/). Each workload is judged on the cluster its Kubernetes provider targets (SPEC 14.2); where the
pack cannot tell which, nothing is assumed. A value not known yet is said.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.budgets import pod_labels
from .model.clusters import KubeCluster
from .model.pods import GPU_RESOURCES
from .model.sources.eks import fargate_refusals, on_fargate
from .model.sources.gke import allowlists, autopilot_refusals
from .model.stack import Stack
from .model.values import Unknown, about, listed, quoted, undetermined
from .model.workloads import Workload


def platform_admits_workload(stack: Stack) -> list[Finding]:
    findings: list[Finding] = []
    clusters = stack.index.clusters if stack.index is not None else {}
    only = stack.kube_clusters[0] if len(stack.kube_clusters) == 1 else None
    # the clusters a pool of the stack may be on: its own; a pool whose cluster the pack cannot tell (a Karpenter
    # NodePool joins its provider's cluster, "") may be on any (Karpenter's controller on Fargate beside its NodePools)
    pooled = {pool.cluster.key for pool in stack.platform_pools}
    anywhere = "" in pooled
    allowlisted = allowlists({resource.type for resource in stack.resources.values()}) \
        if any(cluster.autopilot for cluster in stack.kube_clusters) else False
    for workload in stack.workloads:
        if workload.patch or not workload.has_pod_spec:
            continue
        key = stack.cluster_of(workload).key
        cluster = clusters.get(key) if key else only
        if cluster is None or (not cluster.autopilot and cluster.fargate == ()):
            continue
        finding = _judged(stack, workload, cluster, cluster.urn in pooled or anywhere, allowlisted)
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(stack: Stack, workload: Workload, cluster: KubeCluster, pooled: bool,
            allowlisted: bool = False) -> Finding | None:
    host = workload.host
    if isinstance(host, Unknown):
        return about(workload.subject, host)
    where = f"{cluster.kind} '{cluster.name}'"
    if cluster.autopilot:
        reasons = autopilot_refusals(host)
        if not reasons:
            return None
        found = _refused(workload, where, reasons, "GKE Autopilot's admission refuses its Pods", "run it on a GKE "
                         "Standard cluster's node pool, or drop what Autopilot refuses")
        if allowlisted:  # a partner allowlist may admit it
            return undetermined(f"{found.message}; but the stack installs Autopilot partner allowlists "
                                "(AllowlistSynchronizer), which may admit it, so this is not judged")
        return found
    selectors = cluster.fargate
    if isinstance(selectors, Unknown):
        return about(workload.subject, selectors)
    namespace, labels = workload.namespace, pod_labels(workload)
    for value in (namespace, labels):
        if isinstance(value, Unknown):
            return about(workload.subject, value)
    if not isinstance(namespace, str):
        return None
    profiles = on_fargate(selectors, namespace, labels)
    if not profiles:
        if pooled:
            return None  # a node group of the stack may run it
        return Violation(
            f"{workload.subject}: its Pods (namespace '{namespace}') match no Fargate profile of {where}, and the "
            "cluster has no node group in the stack: no node ever runs them, and they stay Pending; add a Fargate "
            "profile selector for them, or a node group", workload.urn)
    request = workload.request
    gpus = request is not None and any(resource not in request.unknown and request.get(resource) > 0
                                       for resource in GPU_RESOURCES)
    reasons = fargate_refusals(host, workload.kind, gpus, not pooled)
    matched = quoted(profile.rsplit("::", 1)[-1] for profile in profiles)
    return _refused(workload, where, reasons,
                    f"its Pods match Fargate profile {matched}, and Fargate does not run them",
                    "run it on a node group (a selector its Pods do not match), or drop what Fargate refuses") \
        if reasons else None


def _refused(workload: Workload, where: str, reasons: list[str], what: str, fix: str) -> Violation:
    return Violation(f"{workload.subject}: on {where}, {what}: {listed(reasons, '; ')}; {fix}", workload.urn)


def _check(stack: Stack, context: Context) -> list[Finding]:
    return platform_admits_workload(stack)


POLICY = Policy(
    name="platform-admits-workload",
    subject="stack",
    description="EKS Fargate and GKE Autopilot admit the workloads placed on them; no Pod waits for a Fargate "
                "profile.",
    severity=Severity.HIGH,
    remediation_steps="Drop what the platform refuses (privileged containers, the host's network or ports, hostPath, "
                      "GPUs on Fargate), run the workload on a node group, or add a Fargate profile selector for it.",
    dependents=True,
    check=_check,
)
