"""Which Kubernetes cluster a pool joins and a workload runs on (SPEC 14.2).

A workload runs on the cluster its Kubernetes provider targets: the provider's ``kubeconfig`` depends (the engine's
property dependencies, which also flow through output invokes such as a cluster's credentials) on one cluster
resource of the stack. A pool joins the cluster its own inputs name or depend on (``clusterName``, ``cluster``,
``kubernetesClusterId``, ``resourceName``, an autoscaling group's ``kubernetes.io/cluster/<name>`` tag, its parent
component), an inline pool its cluster. A Karpenter NodePool joins its provider's cluster.

A provider whose kubeconfig depends on nothing (the SDK drops the dependencies of an output invoke whose arguments are
not known yet) joins the cluster its explicit ``dependsOn`` names. Where the pack cannot tell (the default provider, a
kubeconfig that depends on no cluster of the stack) the answer
is :data:`~policies.model.pool.PROVIDERS_CLUSTER`: every cluster is a candidate. A pool that names a cluster the
stack does not declare joins a cluster whose other pools are not known (:attr:`ClusterRef.complete` is false), and
so does one whose reference is not known yet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import yaml

from .addresses import Space
from .platform_admission import Admission
from .pool import PROVIDERS_CLUSTER, ClusterRef, Lifetime
from .resources import StackResource, type_of_urn
from .values import Unknown, child
from .versions import Version

PROVIDER_TYPE = "pulumi:providers:kubernetes"
MAX_HOPS = 4  # how far a kubeconfig's dependencies are followed to find the cluster it was built from


@dataclass(frozen=True)
class Provisioning:
    """What a cluster's platform provisions on its own for Pods no pool of the stack holds, as its source reads it
    (GKE node auto-provisioning: sources/gke.py)."""

    # the most of a resource all its nodes together may have (SPEC 22: clusterAutoscaling.resourceLimits maximums:
    # cpu in millicores, memory in bytes), by resource
    caps: tuple[tuple[str, Decimal], ...] = ()
    # the machines it adds for a Pod that asks for nothing in particular, each within the caps (GKE's E2 series); a
    # Pod one of them holds is scheduled there (SPEC 22)
    defaults: tuple[str, ...] = ()
    # the image of every pool it creates, at its control plane's version (autoProvisioningDefaults.imageType):
    # (field, image) as Pool.image; None: not written (SPEC 23)
    image: tuple[str, Any] | None = None


@dataclass(frozen=True)
class KubeCluster:
    """A cluster resource of the stack."""

    urn: str
    name: str  # its resource name, as messages name it
    kind: str  # EKS cluster, GKE cluster, AKS cluster
    names: frozenset[str] = frozenset()  # the names other resources may give it (its declared name)
    pools_known: bool = True  # False: its platform provisions nodes the stack does not declare (GKE Autopilot)
    component: bool = False  # a component (pulumi-eks's Cluster): the cluster is among its children
    zones: tuple[str, ...] | Unknown | None = None  # where its nodes are, when the cluster says (GKE)
    zone_count: int | None = None  # how many zones its nodes are in, when their names are not known (regional GKE)
    region: str | None = None  # its region, which names its pools' zones (AKS: <region>-<zone>)
    # the hosts of its API server (EKS and GKE endpoint, AKS fqdn), which a kubeconfig's server names
    endpoints: frozenset[str] = frozenset()
    stack: str = ""  # another stack's cluster (SPEC 18), by that stack's name; "" the stack's own
    # its pools' maxPods where they set none (AKS: its network plugin's default), for the pools that join it
    max_pods: int | Unknown | None = None
    version: Version | None = None  # its control plane's Kubernetes version, as its input sets it (SPEC 19)
    # how its Pods get addresses (AKS: its network plugin, "azure", "overlay", "kubenet", "none"), and the range every
    # node takes a block of (a GKE cluster's Pod range, an AKS overlay or kubenet podCidr): SPEC 20
    plugin: str | Unknown | None = None
    pod_range: Space | Unknown | None = None
    # what runs Pods on nodes of the platform's own, with its admission (SPEC 21, platform-admits-workload), as its
    # source reads it: EKS Fargate profiles, GKE Autopilot; None: only the nodes of its pools
    admission: Admission | None = None
    # what its platform does once its version leaves standard support, as its input says (EKS
    # upgradePolicy.supportType: EXTENDED, the default, or STANDARD; AKS supportPlan: KubernetesOfficial, the default,
    # or AKSLongTermSupport); None: the input is not set
    support: Any = None
    platform: str | None = None  # whose cluster it is (aws, gcp, azure), as its source says
    # what its platform provisions on its own for Pods no pool holds (GKE node auto-provisioning); None: nothing
    provisioning: Provisioning | None = None
    pool_label: str = ""  # the label that names a node's pool, unique in the cluster (ClusterRef.pool_label)
    class_label: str = ""  # the label that names the ComputeClass a node is for (ClusterRef.class_label)
    unprovisioned: tuple[tuple[str, str], ...] = ()  # what the nodes its platform adds never offer (ClusterRef's)
    # the RuntimeClasses its platform creates whose scheduling the pack models (GKE Sandbox's gvisor: the toleration
    # its admission gives, platform_admission.grants): a Pod that names one is judged as it is written
    runtime_classes: frozenset[str] = frozenset()
    # how its platform replaces the nodes of the pools that join it, where the cluster says (AKS's upgrade channels:
    # its source's ``join`` gives it to them); SPEC 23
    lifetime: Lifetime | None = None

    @property
    def ref(self) -> ClusterRef:
        return ClusterRef(self.urn, self.name, self.kind, declared=True, pools_known=self.pools_known,
                          stack=self.stack, pool_label=self.pool_label, class_label=self.class_label,
                          unprovisioned=self.unprovisioned)


@dataclass(frozen=True)
class ComputeClass:
    """A GKE ComputeClass of the stack (SPEC 22), as far as where its Pods run goes: its name, and why the nodes it may
    make are not all read ("" when they are: it auto-creates no node pool, so its Pods run on the pools labelled for
    it, or it makes nodes only of the machines its priorities name, read as its pool)."""

    urn: str
    name: str | Unknown | None  # metadata.name: None when it cannot be read
    open: str = ""  # why its nodes are not all known, as a clause after its name ("writes no whenUnsatisfiable ...")
    # the (major, minor) from which they are all known after all, where ``open`` depends on its cluster's version
    # (an unwritten whenUnsatisfiable: DoNotScaleUp from GKE 1.33)
    bounded_from: tuple[int, int] | None = None


@dataclass(frozen=True)
class Claim:
    """How a pool says which cluster its nodes join, before the stack resolves it."""

    resource: StackResource | None = None  # its own resource (its parent chain, its provider)
    inline: str | None = None  # the URN of the cluster resource that declares it
    depends: tuple[str, ...] = ()  # the resources its cluster reference depends on
    name: str | Unknown | None = None  # the cluster's name or id as written; None: it names none
    via_provider: bool = False  # a Kubernetes resource: the cluster its provider targets


def host(value: Any) -> str | None:
    """The host of an API server's address (https://ABC.gr7.us-west-2.eks.amazonaws.com:443/x -> abc...): a cluster's
    endpoint or FQDN as a kubeconfig's server names it; None when not a known string."""
    if not isinstance(value, str) or not value:
        return None
    found = value.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1]
    found = found[1:].split("]", 1)[0] if found.startswith("[") else found.split(":", 1)[0]
    return found.lower() or None


def endpoints(*values: Any) -> frozenset[str]:
    """The hosts of a cluster's API server its props give (EKS and GKE endpoint, AKS fqdn and privateFQDN)."""
    return frozenset(found for value in values if (found := host(value)) is not None)


DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True, eq=False)
class Unwritten(Unknown):
    """The namespace a Kubernetes provider gives what names none, while it is not known yet (a first preview: the
    provider's kubeconfig, or its ``namespace``, is built from outputs not known yet). Its name is not known, but it is
    one namespace: every resource of that provider that names none is created in it, whatever the kubeconfig says (SPEC
    14.2, 21). So it equals the same provider's (a workload and its budgets, quotas and LimitRanges match there), and
    only a match against a namespace's name (another provider's, a written one, a Fargate profile's selector, a
    Namespace's labels) is not known."""

    provider: str = ""  # the provider's URN
    provider_name: str = ""  # its resource name, as messages name it

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unwritten) and other.provider == self.provider

    def __hash__(self) -> int:
        return hash((Unwritten, self.provider))

    @property
    def words(self) -> str:
        return (f"its namespace is the one its provider '{self.provider_name}' gives what names none, which is not "
                f"known yet ({super().words})")


def provider_namespace(props: Any, urn: str = "", name: str = "") -> str | Unknown:
    """The namespace a Kubernetes provider creates an object in that names none (SPEC 21): its ``namespace``, else its
    kubeconfig's current context's namespace, else ``default`` (pulumi-kubernetes' provider docs: "If not present, the
    namespace of the current context is used", and the API server's default). ``props``: the provider's inputs; None
    for the ambient kubeconfig, whose context the pack cannot read (``default``). Not known yet, it is
    :class:`Unwritten`: the provider (``urn``, ``name``)'s one namespace."""
    given = child(props, "namespace") if props is not None else None
    if isinstance(given, Unknown):
        return Unwritten(given.error, provider=urn, provider_name=name)
    if isinstance(given, str) and given:
        return given
    kubeconfig = child(props, "kubeconfig") if props is not None else None
    if isinstance(kubeconfig, Unknown):
        return Unwritten(kubeconfig.error, provider=urn, provider_name=name)
    document = kubeconfig
    if isinstance(kubeconfig, str):
        try:
            document = yaml.safe_load(kubeconfig)
        except yaml.YAMLError:
            document = None
    if isinstance(document, Mapping):
        current = document.get("current-context")
        for item in document.get("contexts") or ():
            context = item.get("context") if isinstance(item, Mapping) else None
            if isinstance(context, Mapping) and item.get("name") == current and isinstance(
                    context.get("namespace"), str) and context["namespace"]:
                return str(context["namespace"])
    return DEFAULT_NAMESPACE


def kubeconfig_names(value: Any) -> frozenset[str]:
    """What a kubeconfig says of the cluster it targets: its clusters' and contexts' names, its servers' hosts, and an
    exec plugin's --cluster-name (aws eks get-token): each a cluster's name or endpoint to match (a secret kubeconfig
    is matched, never shown). Empty when it is not known or cannot be read."""
    document = value
    if isinstance(value, str):
        try:
            document = yaml.safe_load(value)
        except yaml.YAMLError:
            return frozenset()
    if not isinstance(document, Mapping):
        return frozenset()
    found: set[str] = set()
    for item in document.get("clusters") or ():
        if isinstance(item, Mapping):
            if isinstance(item.get("name"), str):
                found.add(item["name"])
            server = host((item.get("cluster") or {}).get("server") if isinstance(item.get("cluster"), Mapping)
                          else None)
            if server:
                found.add(server)
    for item in document.get("contexts") or ():
        if isinstance(item, Mapping):
            context = item.get("context")
            cluster = context.get("cluster") if isinstance(context, Mapping) else None
            found.update(name for name in (item.get("name"), cluster) if isinstance(name, str))
    for item in document.get("users") or ():
        user = item.get("user") if isinstance(item, Mapping) else None
        run = user.get("exec") if isinstance(user, Mapping) else None
        args = [arg for arg in (run.get("args") or () if isinstance(run, Mapping) else ()) if isinstance(arg, str)]
        for index, arg in enumerate(args):
            if arg in ("--cluster-name", "-i") and index + 1 < len(args):
                found.add(args[index + 1])
            elif arg.startswith("--cluster-name="):
                found.add(arg.split("=", 1)[1])
    return frozenset(name for name in found if name)


def _merged(component: KubeCluster, resource: KubeCluster) -> KubeCluster:
    """A cluster component with what its cluster resource says of the cluster, where the component says nothing."""
    facts = {key: getattr(resource, key) for key in ("zones", "zone_count", "region", "max_pods", "version",
                                                      "plugin", "pod_range", "admission", "support",
                                                      "platform")
             if getattr(component, key) is None and getattr(resource, key) is not None}
    if component.provisioning is None and resource.provisioning is not None:
        facts["provisioning"] = resource.provisioning
    return dataclasses.replace(component, names=component.names | resource.names,
                               endpoints=component.endpoints | resource.endpoints,
                               pools_known=component.pools_known and resource.pools_known, **facts)


def last_segment(name: str) -> str:
    """A cluster's name from a name or an id (.../managedClusters/<name>, projects/p/locations/l/clusters/<name>)."""
    return name.rstrip("/").rsplit("/", 1)[-1]


class ClusterIndex:
    """The stack's clusters, and the links that say which one a resource is of. Built once per stack; a resolved
    provider is kept (most workloads share one)."""

    def __init__(self, clusters: Iterable[KubeCluster], resources: Mapping[str, StackResource]) -> None:
        self.clusters = {cluster.urn: cluster for cluster in clusters}
        self.resources = resources
        self._owners: dict[str, KubeCluster | None] = {}
        for urn, cluster in list(self.clusters.items()):
            # a cluster component (pulumi-eks's Cluster) is the cluster its cluster resource is: one cluster, with what
            # that resource says of it (its version, names, endpoint, Fargate profiles)
            owner = self.owner(urn)
            if owner is not None and owner is not cluster and owner.component:
                self.clusters[owner.urn] = _merged(self.clusters[owner.urn], cluster)
                self._owners = {}
        self._by_name: dict[str, list[KubeCluster]] = {}
        for cluster in self.clusters.values():
            for name in cluster.names:
                self._by_name.setdefault(name, []).append(cluster)
        self._providers: dict[str, ClusterRef] = {}

    def owner(self, urn: str) -> KubeCluster | None:
        """The cluster a resource is, or is part of: a cluster resource, or a cluster component (pulumi-eks's
        Cluster) above it, which is the cluster of everything it registers, its own cluster resource included."""
        if urn in self._owners:
            return self._owners[urn]
        found = self.clusters.get(urn)
        seen = 0
        parent = self.resources[urn].parent if urn in self.resources else None
        while parent is not None and seen < 32:
            candidate = self.clusters.get(parent)
            if candidate is not None and candidate.component:
                found = candidate
                break
            parent = self.resources[parent].parent if parent in self.resources else None
            seen += 1
        self._owners[urn] = found
        return found

    def members(self, urn: str) -> list[str]:
        """The cluster resources a cluster (a component's: pulumi-eks's Cluster) is, besides itself."""
        return [other for other in self.clusters if other != urn and self.owner(other) is self.clusters.get(urn)]

    @property
    def own(self) -> list[KubeCluster]:
        """The clusters of the stack, each once: a cluster resource a cluster component registers is that
        component's."""
        return [cluster for cluster in self.clusters.values() if self.owner(cluster.urn) is cluster]

    def _one(self, urns: Iterable[str]) -> KubeCluster | None | bool:
        """The one cluster these resources are of; None when none is; False when several are."""
        found = {cluster.urn: cluster for cluster in (self.owner(urn) for urn in urns) if cluster is not None}
        if len(found) > 1:
            return False
        return next(iter(found.values()), None)

    def resolve(self, claim: Claim) -> ClusterRef:
        """The cluster a pool's claim names."""
        if claim.inline is not None and claim.inline in self.clusters:
            inline = self.owner(claim.inline) or self.clusters[claim.inline]
            return inline.ref
        one = self._one(claim.depends)
        if isinstance(one, KubeCluster):
            return one.ref
        name = claim.name
        if isinstance(name, str) and name:
            named = [self.owner(found.urn) or found for found in self._by_name.get(last_segment(name), [])]
            matches = list({found.urn: found for found in named}.values())
            if len(matches) == 1:
                return matches[0].ref
            if not matches and one is None:
                return ClusterRef(f"name:{last_segment(name)}", last_segment(name))
        if claim.resource is not None:
            parent = claim.resource.parent
            above = self.owner(parent) if parent is not None else None
            if above is not None:
                return above.ref
        if isinstance(name, Unknown) and one is None:
            urn = claim.resource.urn if claim.resource is not None else ""
            return ClusterRef(f"unknown:{urn}", "")
        if claim.via_provider and claim.resource is not None:
            return self.provider(claim.resource.provider)
        return PROVIDERS_CLUSTER

    def named_by(self, kubeconfig: Any) -> KubeCluster | None:
        """The one cluster a kubeconfig names (its server's host, its cluster, context or exec plugin's cluster name
        against each cluster's endpoints and names), or None."""
        said = kubeconfig_names(kubeconfig)
        if not said:
            return None
        lowered = {name.lower() for name in said}
        found = {owner.urn: owner for cluster in self.clusters.values()
                 if (cluster.names & said or cluster.endpoints & lowered)
                 and (owner := self.owner(cluster.urn) or cluster) is not None}
        return next(iter(found.values())) if len(found) == 1 else None

    def provider(self, urn: str | None) -> ClusterRef:
        """The cluster a Kubernetes provider targets: the one cluster its kubeconfig depends on, following the
        dependencies of what it depends on a few steps; else the one its kubeconfig names (a kubeconfig from another
        stack's output depends on nothing here: SPEC 18); else the provider's cluster, which the pack cannot tell."""
        if urn is None or type_of_urn(urn) != PROVIDER_TYPE:
            return PROVIDERS_CLUSTER
        if urn in self._providers:
            return self._providers[urn]
        found = PROVIDERS_CLUSTER
        provider = self.resources.get(urn)
        if provider is not None and self.clusters:
            # its kubeconfig's property dependencies; where the SDK dropped them (an output invoke whose arguments
            # are not known yet returns unknown without them: pulumi/runtime/invoke.py), the resources its own
            # dependsOn names (opts=ResourceOptions(depends_on=[cluster]))
            frontier = list(provider.depends("kubeconfig", "cluster", "context") or provider.dependencies)
            seen = set(frontier)
            for _hop in range(MAX_HOPS):
                one = self._one(frontier)
                if one is not None:
                    found = one.ref if isinstance(one, KubeCluster) else PROVIDERS_CLUSTER
                    break
                following = []
                for dependency in frontier:
                    resource = self.resources.get(dependency)
                    for more in resource.depends_all if resource is not None else ():
                        if more not in seen:
                            seen.add(more)
                            following.append(more)
                if not following:
                    break
                frontier = following
            if found is PROVIDERS_CLUSTER:
                named = self.named_by(child(provider.props, "kubeconfig"))
                if named is not None:
                    found = named.ref
        self._providers[urn] = found
        return found
