"""cluster-version-skew: node pools run Kubernetes versions their control plane supports, and a control plane moves
one minor version at a time (SPEC 19, policy 26).

Kubernetes' version skew policy (kubernetes.io/releases/version-skew-policy, "kubelet"): a kubelet "must not be
newer than kube-apiserver, and may be up to three minor versions older (if kube-apiserver is 1.28 or newer) or two
(before 1.28)". The platforms hold node pools to it: EKS refuses a node group newer than its cluster
(docs.aws.amazon.com/eks/latest/userguide/update-managed-node-group.html, "the node group version can't be later than
the cluster's"), AKS a node pool newer than its control plane (learn.microsoft.com/azure/aks/upgrade-aks-cluster), GKE
nodes newer than their control plane (cloud.google.com/kubernetes-engine/versioning, "Version skew"). And a control
plane upgrade goes one minor version at a time and never back: EKS ("you can update only one minor version at a
time", docs.aws.amazon.com/eks/latest/userguide/update-cluster.html), AKS ("you can't skip ... minor versions",
learn.microsoft.com/azure/aks/upgrade-aks-cluster), neither downgrades a control plane.

Each pool's version is its source's fact (``Pool.version``: EKS ``version`` or ``releaseVersion``, GKE ``version`` /
a cluster's ``nodeVersion``, AKS ``orchestratorVersion``), each cluster's its control plane's (``KubeCluster.version``:
EKS ``version``, GKE ``minMasterVersion``, AKS ``kubernetesVersion``). A pool that sets none runs its control plane's.
GKE's ``minMasterVersion`` is a minimum GKE upgrades past, and so is an AKS version on the stable or rapid upgrade
channel: there only "too old" is certain. Karpenter's nodes run the version their EC2NodeClass's AMI selector names
where it names one (an EKS optimized AMI's SSM parameter or name); an alias names an AMI release for the cluster's own
version: nothing to judge.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_policy import Severity

from .adapters.baseline import Snapshot
from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.clusters import KubeCluster
from .model.pool import Pool
from .model.replacement import previous_clusters
from .model.stack import Stack
from .model.values import derived, undetermined
from .model.versions import Version, release

Previous = Snapshot | None  # the previous deployment (None: the policy template says why there is none)

# the skew policy's kubelet window: three minors behind since 1.28, two before (kubernetes.io/releases/
# version-skew-policy; KEP-3935 widened it in 1.28)
WIDER_SINCE = (1, 28)


def allowed_behind(plane: tuple[int, int]) -> int:
    """How many minor versions a kubelet may be behind an API server of this version."""
    return 3 if plane >= WIDER_SINCE else 2


def cluster_version_skew(stack: Stack, previous: Callable[[], Previous]) -> list[Finding]:
    """Each pool against its cluster's control plane, and each cluster's control plane against the previous
    deployment's (``previous`` is asked for only when a cluster names its version)."""
    findings: list[Finding] = []
    for pool in stack.platform_pools:
        cluster = stack.cluster_for(pool)  # a NodePool joins its provider's cluster: the stack's one, when it has one
        if pool.urn in stack.foreign or cluster is None or cluster.version is None or pool.version is None:
            continue
        finding = _pool(pool, pool.version, cluster, cluster.version)
        if finding is not None:
            findings.append(finding)
    own = [cluster for cluster in stack.kube_clusters if cluster.urn not in stack.foreign
           and cluster.version is not None and cluster.version.minor is not None and not cluster.version.least]
    if own:
        found = previous()
        before = previous_clusters(found.inputs, found.types) if found is not None else {}
        index = stack.index
        for cluster in own:
            # (a cluster component's version is its cluster resource's: pulumi-eks's Cluster)
            old = next((before[urn] for urn in (cluster.urn, *(index.members(cluster.urn) if index else ()))
                        if urn in before and before[urn].version is not None), None)
            if old is not None and old.version is not None and not old.version.least and cluster.version:
                finding = _moved(cluster, old.version, cluster.version)
                if finding is not None:
                    findings.append(finding)
    return findings


def _platform(cluster: KubeCluster) -> str:
    return cluster.kind.split(" ", 1)[0]


def _pool(pool: Pool, node: Version, cluster: KubeCluster, plane: Version) -> Finding | None:
    if node.value is None:
        return None  # it runs its control plane's version
    if node.unknown is not None or plane.unknown is not None:
        return undetermined(f"{pool.label}: its Kubernetes version ({node.field}) or that of its {cluster.kind} "
                            f"'{cluster.name}' ({plane.field}) is not known yet, so whether they are within "
                            "Kubernetes' version skew is not judged")
    ours, theirs = node.minor, plane.minor
    if ours is None:
        return None  # a value that names no release (GKE's "latest"): the platform resolves it
    if theirs is None:
        if plane.value is None:
            return undetermined(f"{pool.label}: its nodes run Kubernetes {node.shown()}, and its {cluster.kind} "
                                f"'{cluster.name}' sets no {plane.field}, so {_platform(cluster)} picks its default "
                                "version: whether they are within Kubernetes' version skew is not judged; set "
                                f"{plane.field}")
        return None
    if ours[0] != theirs[0]:
        return None
    where = cluster.ref.label
    both = (node.value, plane.value)  # what a message computes from them is secret when either is
    if ours > theirs and not plane.least:
        refuses = "" if pool.karpenter else f", and {_platform(cluster)} refuses the pool"
        return Violation(
            f"{pool.label}: its nodes would run Kubernetes {node.shown()}, newer than the control plane of its {where} "
            f"({plane.shown()}): a kubelet may never be newer than its API server (Kubernetes' version skew "
            f"policy){refuses}; upgrade the control plane to {release(ours, *both)} first, or "
            f"{_set(node, release(theirs, *both))}", pool.urn)
    behind, most = theirs[1] - ours[1], allowed_behind(theirs)
    if behind > most:
        floor = release((theirs[0], theirs[1] - most), *both)
        least = "at least " if plane.least else ""
        return Violation(
            f"{pool.label}: its nodes would run Kubernetes {node.shown()}, {derived(str(behind), *both)} minor "
            f"versions behind the control plane of its {where} ({least}{plane.shown()}), where a kubelet may be at "
            f"most {derived(str(most), plane.value)} behind an API server of {release(theirs, plane.value)} "
            f"(Kubernetes' version skew policy); {_set(node, floor)} or later", pool.urn)
    return None


def _set(node: Version, version: str) -> str:
    """The fix that gives a pool's nodes this version."""
    if node.field == "amiSelectorTerms":  # a Karpenter EC2NodeClass's
        return f"select AMIs built for {version} in its EC2NodeClass's amiSelectorTerms"
    return f"set the pool's {node.field} to {version}"


def _moved(cluster: KubeCluster, old: Version, new: Version) -> Finding | None:
    before, after = old.minor, new.minor
    if before is None or after is None or before[0] != after[0] or before == after:
        return None
    where, platform = f"{cluster.kind} '{cluster.name}'", _platform(cluster)
    both = (old.value, new.value)  # what a message computes from them is secret when either is
    if after < before:
        return Violation(
            f"{where}: its control plane would move back from Kubernetes {old.shown()} to {new.shown()}: a control "
            f"plane is never downgraded ({platform} refuses it); keep {new.field} at {release(before, *both)} or "
            "later", cluster.urn)
    if after[1] - before[1] > 1:
        step = release((before[0], before[1] + 1), *both)
        skipped = after[1] - before[1] - 1
        return Violation(
            f"{where}: its control plane would move from Kubernetes {old.shown()} to {new.shown()}, skipping "
            f"{derived(str(skipped), *both)} minor version{derived('s' if skipped > 1 else '', *both)}: {platform} "
            f"upgrades a control plane one minor version at a time; set {new.field} to {step}, deploy, and go on one "
            "minor at a time (its node pools with it)", cluster.urn)
    return None


def _check(stack: Stack, context: Context) -> list[Finding]:
    return cluster_version_skew(stack, context.previous)


POLICY = Policy(
    name="cluster-version-skew",
    subject="stack",
    description="Node pools run Kubernetes versions their control plane serves (never newer, at most 3 minors older; "
                "2 before 1.28), and control planes move one minor at a time, never back.",
    severity=Severity.HIGH,
    previous="whether a control plane moves more than one minor version at a time, or back",
    remediation_steps="Upgrade the control plane first, one minor version at a time, then its node pools; keep every "
                      "pool within three minor versions of its control plane (two before 1.28).",
    check=_check,
)
