"""The stack as typed facts, read once per AnalyzeStack request: its ComputeClusters, its clusters and every pool
whatever declares it (``policies/model/sources/``), its workloads, Helm v3 Releases and autoscalers, and which
cluster each pool joins (policies/model/clusters.py).

It holds the parsed facts and nothing derived from them: where each workload lands, each pool's load and node, the
stack's architectures, which budgets protect what and what a preview replaces are computed the first time a policy
asks, by the module that owns each (placement.py, landing.py, loads.py, disruption.py, replacement.py), and kept there
for this stack (memo.PerStack), so
every policy, the remediation and the report read the same answer. No module below those imports them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import admission, devices
from .admission import runtime_class
from .admission.limit_ranger import LIMIT_RANGE, LimitRange, parse_limit_range
from .admission.namespace import NAMESPACE, Namespace, object_name, parse_namespace
from .admission.priority import PRIORITY_CLASS
from .admission.resource_quota import RESOURCE_QUOTA, Quota, parse_quota
from .admission.runtime_class import RUNTIME_CLASS, RuntimeScheduling
from .budgets import Budget, may_make_pods, parse_budget
from .cluster import Cluster, ClusterEntry
from .clusters import ClusterIndex, ComputeClass, KubeCluster, Unwritten, provider_namespace
from .devices import Claim, DeviceClass
from .labels import ZONE_KEYS
from .pool import PROVIDERS_CLUSTER, ClusterRef, Pool, stamped
from .resources import PROVIDER_SCOPE, StackResource, type_of_urn
from .scheduling import ANY
from .sources import Context, Unread, compute_cluster, source_of, sources
from .values import Unknown, child
from .workloads import Autoscaler, HelmRelease, Workload, parse_autoscaler, parse_helm_release, parse_workload


@dataclass(frozen=True)
class Place:
    """Where a namespaced resource is (Stack.place): its scope (the cluster its provider targets, or the provider
    itself when the pack cannot tell which cluster: Stack.scope) and its namespace: a name, the provider's one namespace
    while its name is not known yet (clusters.Unwritten), or None with ``late`` when it is not known at all."""

    scope: str
    namespace: str | Unwritten | None
    late: Unknown | None = None

    @property
    def known(self) -> bool:
        """Whether it can be compared at all (its namespace is a name or its provider's one namespace)."""
        return self.namespace is not None

    def meets(self, other: Place) -> bool | None:
        """True: the two are certainly in one namespace of one cluster; False: certainly not; None: they may be (a
        namespace not known yet against another, or a scope the pack cannot tell from the other's)."""
        if self.known and self == other:
            return True
        if not self.known or not other.known:
            return None
        if isinstance(self.namespace, str) and isinstance(other.namespace, str) and self.namespace != other.namespace:
            return False
        if self.scope != other.scope and not (self.scope.startswith(PROVIDER_SCOPE) or other.scope.startswith(
                PROVIDER_SCOPE)):
            return False  # two clusters the pack tells apart
        return None


@dataclass(eq=False)  # one stack is one analysis: its derivations are kept by it (memo.PerStack)
class Stack:
    clusters: list[ClusterEntry] = field(default_factory=list)  # the ComputeClusters
    workloads: list[Workload] = field(default_factory=list)
    helm_releases: list[HelmRelease] = field(default_factory=list)
    autoscalers: list[Autoscaler] = field(default_factory=list)
    budgets: list[Budget] = field(default_factory=list)  # PodDisruptionBudgets (policies/model/budgets.py)
    operated: list[StackResource] = field(default_factory=list)  # custom resources an operator may make Pods for
    by_id: dict[str, list[ClusterEntry]] = field(default_factory=dict)
    unknown_id: Unknown | None = None
    pools: list[Pool] = field(default_factory=list)  # every pool: the ComputeClusters' first, then the platforms'
    platform_pools: list[Pool] = field(default_factory=list)  # those placed by the scheduler's rules (SPEC 14)
    kube_clusters: list[KubeCluster] = field(default_factory=list)  # the cluster resources of the stack
    unread: list[Unread] = field(default_factory=list)  # what declares pools the pack cannot read
    resources: Mapping[str, StackResource] = field(default_factory=dict)  # by URN
    index: ClusterIndex | None = None
    own: set[Workload] = field(default_factory=set)  # the stack's own workloads (a workload hashes by identity)
    # other stacks' (SPEC 18: the platform stacks named or referenced): their workloads and DaemonSets, which take room
    # on their pools and are never reported on, and each of their resources' stack, by URN
    foreign_workloads: list[Workload] = field(default_factory=list)
    foreign: dict[str, str] = field(default_factory=dict)
    referenced: list[Any] = field(default_factory=list)  # each stack read (or not: its error), adapters/stacks.py
    stacks_problem: str = ""  # why the stack config that names them cannot be read
    # whose workloads are its own: "" this stack's; a dependent app stack's name in the view of it a platform stack's
    # preview judges (adapters/dependents.py), where this stack's resources are the foreign ones
    name: str = ""
    dependents: list[Any] = field(default_factory=list)  # the app stacks compute:dependents names, each read or not
    # what decides whether a namespace admits a Pod (SPEC 21, policies/model/admission/): the stack's ResourceQuotas
    # and LimitRanges, and the PriorityClasses it (or a stack it reads) declares
    quotas: list[Quota] = field(default_factory=list)
    limit_ranges: list[LimitRange] = field(default_factory=list)
    priority_classes: list[str | Unknown | None] = field(default_factory=list)
    # the RuntimeClasses it (or a stack it reads) declares, by name (None: one whose name is not known yet), each with
    # its URN: a RuntimeClass is its cluster's (two clusters may each declare kata)
    runtime_classes: dict[str | None, list[tuple[str, RuntimeScheduling]]] = field(default_factory=dict)
    compute_classes: list[ComputeClass] = field(default_factory=list)  # GKE's (it or a stack it reads declares)
    # those whose labels enforce a Pod Security Standard or give Pods a default GKE ComputeClass
    namespaces: list[Namespace] = field(default_factory=list)
    # Dynamic Resource Allocation (SPEC 24, devices.py): its ResourceClaims and templates, its DeviceClasses
    claims: list[Claim] = field(default_factory=list)
    device_classes: list[DeviceClass] = field(default_factory=list)
    foreign_charts: set[str] = field(default_factory=set)  # the charts the stacks it reads install (a DRA driver's)
    _provider_namespaces: dict[str, str | Unknown] = field(default_factory=dict)  # namespace_of's, by provider URN

    def add_compute_cluster(self, entry: ClusterEntry) -> None:
        """A ComputeCluster and its pools (policies/model/sources/compute_cluster.py)."""
        self.add_cluster(entry)
        self.pools.extend(compute_cluster.pools(entry))

    def add_cluster(self, entry: ClusterEntry) -> None:
        self.clusters.append(entry)
        cluster_id = entry.cluster.id if isinstance(entry.cluster, Cluster) else entry.cluster
        if isinstance(cluster_id, Unknown):
            self.unknown_id = self.unknown_id or cluster_id
        elif isinstance(cluster_id, str):
            self.by_id.setdefault(cluster_id, []).append(entry)

    # Which cluster a resource is on: the one answer every rule reads (SPEC 14.2; issue 67). A pool joins the cluster
    # its claim resolves to when the stack is parsed (ClusterIndex.resolve); a Kubernetes resource is applied to the
    # cluster its provider targets (ClusterIndex.provider). Where the pack cannot tell (the default provider, a
    # kubeconfig that depends on no cluster of the stack), every cluster of the stack is a candidate.

    def target(self, subject: Pool | str) -> ClusterRef:
        """The cluster a pool joins, or a Kubernetes resource's (by URN) provider targets; PROVIDERS_CLUSTER when the
        pack cannot tell which."""
        if isinstance(subject, Pool):
            return subject.cluster
        resource = self.resources.get(subject)
        if self.index is None or resource is None:
            return PROVIDERS_CLUSTER
        return self.index.provider(resource.provider)

    def clusters_of(self, subject: Pool | str) -> tuple[KubeCluster, ...]:
        """The clusters of the stack it may be on: the one it targets; every one where the pack cannot tell which; none
        when it targets a cluster the stack does not declare (another stack's, one named only)."""
        ref = self.target(subject)
        if not ref.key:
            return tuple(self.kube_clusters)
        found = self.index.clusters.get(ref.key) if self.index is not None else None
        return (found,) if found is not None else ()

    def cluster_for(self, subject: Pool | str) -> KubeCluster | None:
        """The one cluster of the stack it is on: the one it targets, or the stack's only cluster when the pack cannot
        tell which (what holds on every candidate holds on that one); None when that is not one cluster."""
        found = self.clusters_of(subject)
        return found[0] if len(found) == 1 else None

    def namespace_of(self, urn: str) -> Any:
        """The namespace a namespaced Kubernetes resource (by URN) is created in, as the API server decides it (SPEC
        21): its metadata.namespace, else its provider's namespace, else its kubeconfig's current context's, else
        default (clusters.provider_namespace); the one answer every rule reads (a workload's, Workload.namespace,
        is this one)."""
        resource = self.resources.get(urn)
        written = child(child(resource.props, "metadata"), "namespace") if resource is not None else None
        if written is not None:
            return written
        provider = resource.provider or "" if resource is not None else ""
        found = self._provider_namespaces.get(provider)
        if found is None:
            declared = self.resources.get(provider)
            found = self._provider_namespaces[provider] = provider_namespace(
                declared.props if declared is not None else None, provider, declared.name if declared else "")
        return found

    def place(self, urn: str, namespace: Any = None) -> Place:
        """Where a namespaced Kubernetes resource (by URN) is, as two such resources are compared (SPEC 14.2, 21): its
        scope and its namespace (``namespace``: the one the resource's reader holds, else namespace_of's). Two places
        are certainly one when they are equal; see :meth:`Place.meets`."""
        found = self.namespace_of(urn) if namespace is None else namespace
        key = found if isinstance(found, (str, Unwritten)) else None
        return Place(self.scope(urn), key, found if isinstance(found, Unknown) and key is None else None)

    def owner(self, urn: str) -> KubeCluster | None:
        """The cluster a resource is, or is part of (a cluster resource; what a cluster component such as pulumi-eks's
        Cluster registers, its cluster resource included)."""
        return self.index.owner(urn) if self.index is not None else None

    @functools.cached_property
    def pooled(self) -> frozenset[str]:
        """The clusters (by URN) a platform pool of the stack may be on: a pool whose cluster the pack cannot tell (a
        Karpenter NodePool on the default provider) may be on any."""
        return frozenset(cluster.urn for pool in self.platform_pools for cluster in self.clusters_of(pool))

    def scope(self, urn: str) -> str:
        """Where a Kubernetes resource is applied, as far as the pack can tell: the cluster its provider targets, or
        its provider itself when the pack cannot tell which cluster that is (two resources of one scope are
        certainly on one cluster)."""
        resource = self.resources.get(urn)
        if resource is None:
            return PROVIDER_SCOPE
        return self.target(urn).key or f"{PROVIDER_SCOPE}{resource.provider or ''}"

    @property
    def several_clusters(self) -> bool:
        """The platform pools join more than one cluster the pack can tell apart: messages name each pool's."""
        return len({pool.cluster.key for pool in self.platform_pools if pool.cluster.key}) > 1


def parse_stack(resources: Iterable[Any], seen_inputs: Mapping[str, Cluster],
                remembered: Mapping[str, Any] | None = None,
                foreign: Iterable[tuple[str, Iterable[StackResource]]] = ()) -> Stack:
    """The stack policies' resources read in one pass (PackState.stack parses once per request); each pool source
    then reads the resources of its types, and each pool's claim on a cluster is resolved. ``foreign``: other stacks'
    resources (SPEC 18), by stack: their clusters, pools, workloads and DaemonSets are read as the stack's own are,
    and marked as theirs."""
    stack = Stack()
    by_urn: dict[str, StackResource] = {}
    by_source: dict[Any, list[StackResource]] = {}

    def taken(resource: StackResource) -> bool | Workload:
        """The resource kept by URN: True when a pool source reads it, its workload when it is one, else False."""
        by_urn[resource.urn] = resource
        source = source_of(resource.type)
        if source is not None:
            by_source.setdefault(source, []).append(resource)
            return True
        return parse_workload(resource.type, resource.props, resource.urn, resource.name) or False

    for name, theirs in foreign:
        for resource in theirs:
            if resource.urn in by_urn:
                continue
            stack.foreign[resource.urn] = name
            if isinstance(workload := taken(resource), Workload):
                stack.foreign_workloads.append(workload)
            elif PRIORITY_CLASS.match(resource.type):
                stack.priority_classes.append(object_name(resource.props))
            elif RUNTIME_CLASS.match(resource.type):
                runtime_class.add(stack, resource)
            elif (dra := devices.parse(resource.type, resource.urn, resource.props)) is not None:
                (stack.device_classes if isinstance(dra, DeviceClass) else stack.claims).append(dra)  # type: ignore[arg-type]
            elif (release := parse_helm_release(resource.type, resource.props, resource.urn, resource.name)):
                stack.foreign_charts.add(release.chart or "")
    for raw in resources:
        resource = StackResource.of(raw)
        workload = taken(resource)
        if workload is True:
            continue
        if isinstance(workload, Workload):
            stack.workloads.append(workload)
            continue
        release = parse_helm_release(resource.type, resource.props, resource.urn, resource.name)
        if release is not None:
            stack.helm_releases.append(release)
            continue
        autoscaler = parse_autoscaler(resource.type, resource.props, resource.urn, resource.name)
        if autoscaler is not None:
            stack.autoscalers.append(autoscaler)
            continue
        budget = parse_budget(resource.type, resource.props, resource.urn, resource.name)
        if budget is not None:
            stack.budgets.append(budget)
        elif resource.type == RESOURCE_QUOTA:
            stack.quotas.append(parse_quota(resource.urn, resource.name, resource.props, resource.provider or ""))
        elif resource.type == LIMIT_RANGE:
            stack.limit_ranges.append(parse_limit_range(resource.urn, resource.name, resource.props,
                                                        resource.provider or ""))
        elif PRIORITY_CLASS.match(resource.type):
            stack.priority_classes.append(object_name(resource.props))
        elif RUNTIME_CLASS.match(resource.type):
            runtime_class.add(stack, resource)
        elif resource.type == NAMESPACE:
            namespace = parse_namespace(resource.urn, resource.props, resource.provider or "")
            if namespace.enforce is not None or namespace.compute_class is not None:
                stack.namespaces.append(namespace)
        elif (dra := devices.parse(resource.type, resource.urn, resource.props)) is not None:
            (stack.device_classes if isinstance(dra, DeviceClass) else stack.claims).append(dra)  # type: ignore[arg-type]
        elif may_make_pods(resource.type):
            stack.operated.append(resource)
    stack.resources = by_urn
    context = Context(by_urn, seen_inputs, remembered or {})
    reads = [(source, source.read(found, context)) for source, found in by_source.items()]
    clusters = [dataclasses.replace(cluster, stack=stack.foreign[cluster.urn]) if cluster.urn in stack.foreign
                else cluster for _, read in reads for cluster in read.clusters]
    index = stack.index = ClusterIndex(clusters, by_urn)
    stack.kube_clusters = index.own
    stack.own = set(stack.workloads)
    platform: list[Pool] = []
    for source, read in reads:
        for entry in read.entries:  # another stack's ComputeClusters too: its workloads' labels may name them
            stack.add_cluster(entry)
        stack.unread.extend(item for item in read.unread if item.urn not in stack.foreign)
        stack.compute_classes.extend(read.classes)
        joined: list[Pool] = []
        for pool, claim in read.pools:
            if pool.group is not None:  # a ComputeCluster's pool: its cluster is its ComputeCluster
                stack.pools.append(pool)
            else:
                joined.append(_joined(stamped(pool), index.resolve(claim), index))
        platform.extend(source.settle(joined, context) if source.settle is not None and joined else joined)
    # by name: the engine registers a ConfigGroup's children in no fixed order, and messages list the pools
    platform.sort(key=lambda pool: (pool.name, pool.urn))
    stack.pools.extend(platform)
    stack.platform_pools = platform
    # each workload as the API server admits its Pods (policies/model/admission/), once its cluster can be told
    admission.admit(stack, [source.admission for source in sources() if source.admission is not None])
    return stack


def _joined(pool: Pool, ref: ClusterRef, index: ClusterIndex) -> Pool:
    """The pool on its cluster: a pool resource of its own that sets no maxPods has its cluster's default for its pools
    (KubeCluster.max_pods: AKS's by network plugin, GKE's defaultMaxPodsPerNode), and what the cluster's platform gives
    the pools that join it (its source's ``join``: AKS's zone names, GKE's zones and sizes per zone)."""
    cluster = index.clusters.get(ref.key)
    network = cluster.max_pods if cluster is not None else None
    if network is not None and "maxPods" not in pool.kubelet and pool.member == "" and pool.unknown is None:
        pool = dataclasses.replace(pool, kubelet={**pool.kubelet, "maxPods": network}) \
            if isinstance(network, int) else dataclasses.replace(pool, unknown=network)
    source = source_of(type_of_urn(cluster.urn)) if cluster is not None else None
    if cluster is not None and source is not None and source.join is not None:
        pool = source.join(pool, ref, cluster)
    if ref == pool.cluster:
        return pool
    if pool.zones is None and cluster is not None and isinstance(cluster.zones, Unknown):
        labels = {**pool.labels, **dict.fromkeys(ZONE_KEYS, ANY)}
        return dataclasses.replace(pool, cluster=ref, zones=cluster.zones, labels=labels)
    return dataclasses.replace(pool, cluster=ref)
