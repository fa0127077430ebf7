"""platform-admits-workload: the platform that runs a workload's Pods on nodes of its own admits them (SPEC 21,
policy 30).

Each platform's admission lives with its source (policies/model/sources/), which sets it on the cluster
(``KubeCluster.admission``, platform_admission.Admission): EKS Fargate (a Pod its Fargate profiles select runs on
Fargate, which runs no privileged containers, no Pods on the host's network or with host ports, no GPUs and no
DaemonSets; a Pod no profile selects, on a cluster with no node group of the stack, stays Pending), GKE Autopilot
(privileged containers, the host's namespaces, hostPath outside /var/log/), AKS Automatic (the baseline Pod Security
Standard its Deployment Safeguards enforce, in every namespace not excluded: the exclusions are set outside the stack,
so its refusals are said, never certain). Each workload is judged on the cluster its
Kubernetes provider targets (SPEC 14.2); where the pack cannot tell which, nothing is assumed. A value not known yet is
said.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.budgets import pod_labels
from .model.clusters import KubeCluster
from .model.platform_admission import AdmittedPod, Refused, Whichever
from .model.pods import GPU_RESOURCES
from .model.stack import Stack
from .model.values import Unknown, about, listed, undetermined
from .model.workloads import Workload
from .words import namespace_named


def platform_admits_workload(stack: Stack) -> list[Finding]:
    findings: list[Finding] = []
    for workload in stack.workloads:
        if workload.patch or not workload.has_pod_spec:
            continue
        cluster = stack.cluster_for(workload.urn)
        if cluster is None or cluster.admission is None:
            continue
        # a pool whose cluster the pack cannot tell (a Karpenter NodePool joins its provider's cluster) may be on any
        # (Karpenter's controller on Fargate beside its NodePools)
        finding = _judged(workload, cluster, cluster.urn in stack.pooled)
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(workload: Workload, cluster: KubeCluster, pooled: bool) -> Finding | None:
    host = workload.host
    if isinstance(host, Unknown) or cluster.admission is None:
        return about(workload.subject, host) if isinstance(host, Unknown) else None
    request = workload.request
    gpus = request is not None and any(resource not in request.unknown and request.get(resource) > 0
                                       for resource in GPU_RESOURCES)
    namespace = workload.namespace
    verdict = cluster.admission.judge(AdmittedPod(workload.kind, host, namespace, pod_labels(workload), gpus, pooled,
                                                  workload.pod_security))
    if verdict is None:
        return None
    if isinstance(verdict, Unknown):
        return about(workload.subject, verdict)
    where = f"{cluster.kind} '{cluster.name}'"
    if isinstance(verdict, Whichever):
        return _whichever(workload, where, verdict)
    if not isinstance(verdict, Refused):
        return Violation(f"{workload.subject}: its Pods (namespace '{namespace}') match no {verdict.runner} of "
                         f"{where}, and {verdict.why}; {verdict.fix}", workload.urn)
    message = f"{workload.subject}: on {where}, {verdict.what}: {listed(verdict.reasons, '; ')}; {verdict.fix}"
    if verdict.unsure:
        return undetermined(f"{message}; but {verdict.unsure}, so this is not judged")
    return Violation(message, workload.urn)


def _whichever(workload: Workload, where: str, verdict: Whichever) -> Finding:
    """Its namespace is its provider's, not known yet: the verdict in each namespace it may be (SPEC 14.2)."""
    parts = []
    if verdict.refused is not None:
        parts.append(f"where {verdict.refused.what.replace('its Pods may match', 'they match', 1)}: "
                     f"{listed(verdict.refused.reasons, '; ')}")
    else:
        parts.append("where a Fargate profile selects them, Fargate runs them")
    if verdict.unmatched is not None:
        parts.append(f"where they match no {verdict.unmatched.runner}, {verdict.unmatched.why}")
    else:
        parts.append("where they match no Fargate profile, the cluster's node groups run them")
    said = f"{workload.subject}: on {where}, its Pods are created in {namespace_named(verdict.namespace)}"
    if not verdict.certain:
        return undetermined(f"{said}: {listed(parts, '; ')}: whether they run is not judged")
    return Violation(f"{said}, and in every namespace that may be, nothing runs them: {listed(parts, '; ')}; drop "
                     "what Fargate refuses, or add a node group to run them", workload.urn)


def _check(stack: Stack, context: Context) -> list[Finding]:
    return platform_admits_workload(stack)


POLICY = Policy(
    name="platform-admits-workload",
    subject="stack",
    description="EKS Fargate, GKE Autopilot and AKS Automatic admit the Pods they run; no Pod waits for a Fargate "
                "profile.",
    severity=Severity.HIGH,
    remediation_steps="Drop what the platform refuses (privileged containers, the host's network or ports, hostPath, "
                      "GPUs on Fargate), run the workload on a node group, or add a Fargate profile selector for it.",
    dependents=True,
    check=_check,
)
