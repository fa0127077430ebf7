"""workload-api-available: a workload, budget or autoscaler is declared at an API version its cluster still serves
(SPEC 19, policy 27).

Kubernetes removes beta API versions: ``policy/v1beta1`` PodDisruptionBudget and ``batch/v1beta1`` CronJob at 1.25,
``autoscaling/v2beta2`` HorizontalPodAutoscaler at 1.26, ``extensions/v1beta1`` Deployment at 1.16
(kubernetes.io/docs/reference/using-api/deprecation-guide). A resource declared at a removed version previews and
then fails to apply: the API server no longer serves it, so neither creating it nor reading it back works, and a
control plane upgrade in the same preview takes the served version away under it. Each removal is Kubernetes' own
(``policies/platforms/apis.py``: k8s.io/api's ``APILifecycleRemoved``), judged against the version of the cluster the
resource's Kubernetes provider targets (SPEC 14.2; ``KubeCluster.version``, which GKE and an AKS cluster on an upgrade
channel may run later than they say: at least that version). A cluster whose version is not known, or a resource
whose cluster is not, is a note naming the removal.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.clusters import KubeCluster
from .model.resources import StackResource
from .model.stack import Stack
from .model.values import is_secret, undetermined
from .model.versions import release
from .platforms.apis import Removal, removal_of

# the kinds it judges: those that make Pods, and the budgets and autoscalers over them
KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob",
                   "Pod", "PodDisruptionBudget", "HorizontalPodAutoscaler"})


def workload_api_available(stack: Stack) -> list[Finding]:
    """Each workload, budget and autoscaler of the stack whose API version a release removes, against its cluster."""
    findings: list[Finding] = []
    for resource in stack.resources.values():
        if resource.urn in stack.foreign or resource.type.rsplit(":", 1)[-1] not in KINDS:
            continue
        removal = removal_of(resource.type)
        if removal is not None:
            finding = _judged(stack, resource, removal)
            if finding is not None:
                findings.append(finding)
    return findings


def _candidates(stack: Stack, resource: StackResource) -> list[KubeCluster]:
    """The clusters it may be applied to: its provider's, else every cluster of the stack."""
    return list(stack.clusters_of(resource.urn))


def _judged(stack: Stack, resource: StackResource, removal: Removal) -> Finding | None:
    kind = resource.type.rsplit(":", 1)[-1]
    version = resource.type.split(":", 2)[1]
    subject = f"{kind} '{resource.name}'"
    use = f"use apiVersion {removal.replacement}" if removal.replacement else f"declare it at a version {kind} is " \
        "served at"
    gone = f"its apiVersion {version} is removed in Kubernetes {release(removal.removed)}"
    clusters = _candidates(stack, resource)
    certain = [cluster for cluster in clusters if cluster.version is not None
               and (minor := cluster.version.minor) is not None and minor >= removal.removed]
    if clusters and len(certain) == len(clusters):
        runs = listed([f"{cluster.ref.label} runs {_runs(cluster)}" for cluster in certain])
        return Violation(f"{subject}: {gone}, and {runs}: the API server no longer serves it, so it fails to apply; "
                         f"{use}", resource.urn)
    below = [cluster for cluster in clusters if cluster.version is not None and not cluster.version.least
             and (minor := cluster.version.minor) is not None and minor < removal.removed]
    if clusters and len(below) == len(clusters):
        return None  # every cluster it may target still serves it
    if not clusters:
        why = "the cluster it is applied to is not one the stack declares, so its version is not known"
    else:
        why = listed([_unknown(cluster) for cluster in clusters if cluster not in certain and cluster not in below],
                     "; ") or "which of its clusters it is applied to is not known"
    return undetermined(f"{subject}: {gone}, and {why}: whether its cluster still serves it is not judged; {use}")


def _runs(cluster: KubeCluster) -> str:
    version = cluster.version
    return "" if version is None else f"{'at least ' if version.least else ''}{version.shown()}"


def _unknown(cluster: KubeCluster) -> str:
    version = cluster.version
    where = cluster.ref.label
    if version is None or version.value is None:
        field = version.field if version is not None else "version"
        return f"{where} sets no {field}, so its platform picks the version"
    if version.unknown is not None:
        return f"the {version.field} of {where} is not known yet"
    if version.minor is None:
        return f"the {version.field} '{version.value}' of {where} names no release"
    shown = version.shown() if is_secret(version.value) or version.value != release(version.minor) else \
        f"{version.shown()} (its {version.field})"
    return f"{where} runs at least {shown}, maybe later"


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_api_available(stack)


POLICY = Policy(
    name="workload-api-available",
    subject="stack",
    description="Workloads, budgets and autoscalers use API versions their cluster's Kubernetes release still serves "
                "(policy/v1beta1 is removed at 1.25, autoscaling/v2beta2 at 1.26, ...).",
    severity=Severity.HIGH,
    remediation_steps="Declare the resource at the API version that replaces the removed one (policy/v1, batch/v1, "
                      "autoscaling/v2, apps/v1), or keep the cluster below the release that removes it until it is "
                      "moved.",
    dependents=True,
    check=_check,
)
