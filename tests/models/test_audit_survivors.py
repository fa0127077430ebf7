"""The survivors of issue 46's planted-bug audit (realistic one-line bugs the fast tests let through), each pinned by
a fast test named after what it holds. Each fact is worked out here from the platforms' documentation, not read
back from the pack."""

from __future__ import annotations

import dataclasses
from typing import Any

from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from compute_guard.policies.model.loads import pool_nodes
from compute_guard.policies.platforms.catalog import machines
from compute_guard.policies.platforms.quantity import PODS
from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment


def run(*resources: Resource, platform: str) -> tuple[Any, Any]:
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        analyzer = Analyzer()
        result = analyzer.run(list(resources))
    return result, analyzer.state.last_stack()


def names(pool: Any) -> set[str]:
    return {option.hardware.name for option in pool.options}


def test_an_empty_instance_types_list_is_eks_default_t3_medium():
    """CreateNodegroup: "If you don't specify an instance type ... the default is t3.medium"; [] specifies none."""
    group = Resource.of("aws:eks/nodeGroup:NodeGroup", "g", {
        "clusterName": "fleet", "nodeGroupName": "g", "instanceTypes": [], "amiType": "AL2023_x86_64_STANDARD",
        "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": 2}})
    _result, stack = run(group, platform="aws")
    (pool,) = stack.platform_pools
    assert names(pool) == {"t3.medium"}


def test_eks_auto_modes_built_in_pools_allow_generation_5_and_newer():
    """set-builtin-node-pools.html: the built-in NodePools take C, M and R instances of generation 5 or newer
    (instance-generation Gt 4): m5.large is one of them, m4.large is not."""
    cluster = Resource.of("aws:eks/cluster:Cluster", "auto", {"name": "auto", "computeConfig": {
        "enabled": True, "nodePools": ["general-purpose"]}})
    _result, stack = run(cluster, platform="aws")
    (pool,) = stack.platform_pools
    allowed = names(pool)
    assert "m5.large" in allowed and "c5.xlarge" in allowed and "m4.large" not in allowed
    assert not {name for name in allowed if name.startswith(("t3.", "m4.", "c4.", "r4."))}


def test_karpenter_gte_and_lte_bound_the_machines_inclusively():
    """Karpenter's Gte and Lte (karpenter.sh/v1 NodePool requirements): instance-cpu Gte 16 allows machines of 16
    vCPUs or more, Lte 2 of 2 or fewer; the catalog's vCPUs decide, worked out here."""
    def nodepool(name: str, operator: str, bound: str) -> Resource:
        return Resource.of("kubernetes:karpenter.sh/v1:NodePool", name, {"metadata": {"name": name}, "spec": {
            "template": {"spec": {"requirements": [
                {"key": "karpenter.k8s.aws/instance-cpu", "operator": operator, "values": [bound]},
                {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m5"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}})
    _result, stack = run(nodepool("big", "Gte", "16"), nodepool("small", "Lte", "2"), platform="aws")
    pools = {pool.name: pool for pool in stack.platform_pools}
    m5 = {machine.name: machine.vcpus for machine in machines("aws") if machine.name.startswith("m5.")}
    assert names(pools["big"]) == {name for name, vcpus in m5.items() if vcpus is not None and vcpus >= 16}
    assert names(pools["small"]) == {name for name, vcpus in m5.items() if vcpus is not None and vcpus <= 2}
    assert "m5.4xlarge" in names(pools["big"]) and names(pools["small"]) == {"m5.large"}


def test_gke_default_max_pods_per_node_gives_the_default_pools_pod_slots():
    """GKE: a cluster's defaultMaxPodsPerNode is the default pool's maxPodsPerNode (the node's Pod slots)."""
    cluster = Resource.of("gcp:container/cluster:Cluster", "gke", {
        "name": "gke", "location": "europe-west1-b", "initialNodeCount": 1, "defaultMaxPodsPerNode": 8,
        "nodeConfig": {"machineType": "e2-standard-4"}})
    _result, stack = run(cluster, platform="gcp")
    (pool,) = stack.platform_pools
    nodes = pool_nodes(stack, pool, "gcp", {})
    assert isinstance(nodes, list) and [node.allocatable(PODS) for _option, node in nodes] == [8]


def test_an_autopilot_or_default_pool_setting_not_known_yet_is_a_note_not_a_pool():
    """enableAutopilot or removeDefaultNodePool unknown in a preview: whether the default pool exists is not known,
    so no pool is read from it, and the cluster is said."""
    autopilot = Resource.of("gcp:container/cluster:Cluster", "maybe-autopilot", {
        "name": "maybe-autopilot", "location": "europe-west1-b", "enableAutopilot": UNKNOWN_STRING_VALUE})
    removed = Resource.of("gcp:container/cluster:Cluster", "maybe-removed", {
        "name": "maybe-removed", "location": "europe-west1-b", "removeDefaultNodePool": UNKNOWN_STRING_VALUE})
    _result, stack = run(autopilot, removed, platform="gcp")
    assert stack.platform_pools == []
    assert sorted((item.name, item.why) for item in stack.unread) == [
        ("maybe-autopilot", "may be an Autopilot cluster (enableAutopilot is not known yet), so its pools are not "
                            "known"),
        ("maybe-removed", "has node pools that are not known yet")]


def test_a_kubeconfig_two_hops_from_its_cluster_links_the_workload_to_it():
    """A provider's kubeconfig from a credentials resource built from the cluster (two hops) targets that cluster:
    a Pod too big for it is refused, not a which-cluster note."""
    def cluster(name: str, size: str) -> Resource:
        return Resource.of("azure-native:containerservice:ManagedCluster", name, {"agentPoolProfiles": [
            {"name": "agentpool", "mode": "System", "vmSize": size, "count": 2}]})
    east, west = cluster("east", "Standard_D2s_v5"), cluster("west", "Standard_D8s_v5")
    creds = dataclasses.replace(Resource.of("random:index/randomPet:RandomPet", "creds", {"prefix": "x"}),
                                dependencies=(east.urn,))
    provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", "k8s-east", {"kubeconfig": "k"}),
                                   property_dependencies={"kubeconfig": (creds.urn,)})
    api = dataclasses.replace(Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"},
        "spec": {"selector": {"matchLabels": {"app": "api"}}, "template": {"metadata": {"labels": {"app": "api"}},
        "spec": {"containers": [{"name": "a", "image": "i", "resources": {"requests": {"memory": "16Gi"}}}]}}}}),
        provider=provider.urn)
    result, _stack = run(east, west, creds, provider, api, platform="azure")
    assert [(finding.policy, finding.level) for finding in result.violations] == [("workload-fits-pool", "mandatory")]


def _group(name: str, cluster: str, **extra: Any) -> Resource:
    return Resource.of("aws:eks/nodeGroup:NodeGroup", name, {
        "clusterName": cluster, "nodeGroupName": name, "instanceTypes": ["m5.large"],
        "amiType": "AL2023_x86_64_STANDARD", "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": 2}, **extra})


def _deployment(name: str, spec: dict[str, Any], provider: str = "") -> Resource:
    found = Resource.of("kubernetes:apps/v1:Deployment", name, {"metadata": {"name": name}, "spec": {
        "selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": {
            "containers": [{"name": "a", "image": "i"}], **spec}}}})
    return dataclasses.replace(found, provider=provider)


def test_a_pod_refused_by_a_declared_and_an_undeclared_clusters_pools_is_a_note():
    """Its cluster cannot be told (the default provider): cluster 'a' is declared with all its pools, cluster 'b'
    only by a node group, so 'b' may have pools this stack does not show, where the Pod may run: a note, never a
    violation, though every pool shown refuses it."""
    declared = Resource.of("aws:eks/cluster:Cluster", "a", {"name": "a"})
    result, _stack = run(declared, _group("g1", "a"), _group("g2", "b"),
                         _deployment("api", {"nodeSelector": {"team": "none"}}), platform="aws")
    assert result.violations == []
    (note,) = [n.finding for n in result.notes if n.policy == "workload-schedulable"]
    assert "no pool this stack declares can run its Pods" in note and note.endswith(
        "but cluster 'b' may have pools this stack does not declare, so this is not judged")


def test_a_nodepool_of_one_clusters_provider_is_no_pool_of_another():
    """A Karpenter NodePool is deployed to the cluster its Kubernetes provider targets ('east'); a Pod on 'west',
    whose only node group taints its nodes, has no pool there: refused. (Resolving the NodePool to every cluster
    let it take the Pod on 'west'.)"""
    east, west = (Resource.of("aws:eks/cluster:Cluster", name, {"name": name}) for name in ("east", "west"))
    providers = {cluster.name: dataclasses.replace(
        Resource.of("pulumi:providers:kubernetes", f"k8s-{cluster.name}", {"kubeconfig": "k"}),
        property_dependencies={"kubeconfig": (cluster.urn,)}) for cluster in (east, west)}
    nodepool = dataclasses.replace(Resource.of("kubernetes:karpenter.sh/v1:NodePool", "general", {
        "metadata": {"name": "general"}, "spec": {"template": {"spec": {"requirements": [
            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}),
        provider=providers["east"].urn)
    tainted = _group("batch", "west", taints=[{"key": "dedicated", "value": "batch", "effect": "NO_SCHEDULE"}])
    result, _stack = run(east, west, *providers.values(), nodepool, tainted,
                         _deployment("api", {}, providers["west"].urn), platform="aws")
    assert [(v.policy, v.finding.split(": ", 1)[1].split(". They")[0]) for v in result.violations] == [
        ("workload-schedulable", "no pool can run its Pods: pool 'batch' (NodeGroup) of EKS cluster 'west' has taint "
                                 "dedicated=batch:NoSchedule that it does not tolerate")]


def test_an_empty_budget_selector_selects_every_pod_in_policy_v1_and_none_in_v1beta1():
    """policy/v1: "An empty selector matches all pods"; policy/v1beta1: an empty selector matches none (the
    PodDisruptionBudget API's documented change); a selector left out matches none in both."""
    from compute_guard.policies.model.budgets import parse_budget, selection

    def selects(version: str, spec: dict[str, Any]) -> Any:
        budget = parse_budget(f"kubernetes:policy/{version}:PodDisruptionBudget", {"spec": {**spec,
                              "maxUnavailable": 1}}, "urn", "b")
        assert budget is not None
        return selection(budget, {"app": "web"})

    assert [selects(version, spec) for version in ("v1", "v1beta1") for spec in ({"selector": {}}, {})] == [
        True, False, False, False]


def test_the_allocatable_layers_are_the_platform_then_the_pools_own_kubelet_then_the_settings_pool_entry():
    """What a pool's nodes reserve, field by field: the setting's platform entry, under a node class's own kubelet
    (an EC2NodeClass's kubeReserved is what its nodes run with), under the setting's entry for that pool."""
    from compute_guard.policies.model.nodes import override

    settings = {"allocatable": {"aws": {"kubeReserved": {"memory": "1Gi", "cpu": "100m"}, "maxPods": 50},
                                "pools": {"general": {"maxPods": 20}}}}
    own = {"kubeReserved": {"memory": "2Gi"}, "maxPods": 30}
    assert override(settings, "aws", ("general",), own) == {"kubeReserved": {"memory": "2Gi", "cpu": "100m"},
                                                            "maxPods": 20}
    assert override(settings, "aws", ("other",), own) == {"kubeReserved": {"memory": "2Gi", "cpu": "100m"},
                                                          "maxPods": 30}


def _daemonset(name: str, memory: str) -> Resource:
    return Resource.of("kubernetes:apps/v1:DaemonSet", name, {"metadata": {"name": name}, "spec": {
        "selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": {
            "containers": [{"name": "a", "image": "i", "resources": {"requests": {"cpu": "10m", "memory": memory}}}]}}}})


def test_the_smallest_machine_suggested_has_a_pod_slot_left_after_the_daemonsets():
    """Four DaemonSets take four Pod slots on every node. A 300 MiB Pod fits no t3.nano; t3.micro has the memory
    (1 GiB - 255 MiB - 11 MiB x 4 Pods kube-reserved - 100 MiB eviction = 625 MiB, 4 MiB of it the DaemonSets') but
    EKS gives it 4 Pods (eni-max-pods), all the DaemonSets': t3.small (11 Pods) is the smallest that holds it."""
    group = _group("tiny", "fleet", instanceTypes=["t3.nano"])
    api = _deployment("api", {"containers": [{"name": "a", "image": "i", "resources": {
        "requests": {"memory": "300Mi"}}}]})
    result, _stack = run(Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"}), group,
                         *(_daemonset(f"d{index}", "1Mi") for index in range(4)), api, platform="aws")
    (message,) = [v.finding for v in result.violations if v.policy == "workload-fits-pool"]
    assert message.endswith("(the smallest AWS machine of its family whose node holds one Pod: t3.small, 2 vCPUs, "
                            "2 GiB)")


def test_a_daemonset_counts_only_on_the_pools_that_certainly_take_it():
    """A DaemonSet selecting team=a requests 10 GiB on every node of pool 'big' (m5.4xlarge, team=a). Pool 'small'
    (m5.large, 7518 MiB allocatable) has labels not known yet: it may or may not carry team=a, so neither the
    DaemonSet (which would not fit it) nor a 4 GiB Pod selecting m5.large is refused there; counted on every pool
    that may take it, both were (a false violation each)."""
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

    agent = Resource.of("kubernetes:apps/v1:DaemonSet", "agent", {"metadata": {"name": "agent"}, "spec": {
        "selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {
            "nodeSelector": {"team": "a"}, "containers": [{"name": "a", "image": "i", "resources": {
                "requests": {"memory": "10Gi"}}}]}}}})
    api = _deployment("api", {"nodeSelector": {"node.kubernetes.io/instance-type": "m5.large"}, "containers": [{
        "name": "a", "image": "i", "resources": {"requests": {"memory": "4Gi"}}}]})
    result, _stack = run(Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"}),
                         _group("big", "fleet", instanceTypes=["m5.4xlarge"], labels={"team": "a"}),
                         _group("small", "fleet", labels=UNKNOWN_STRING_VALUE), agent, api, platform="aws")
    assert result.violations == []
    assert [n.policy for n in result.notes] == ["workload-schedulable"]  # the labels not known yet, said


def test_an_autoscaling_group_names_its_launch_configuration_by_string():
    """aws.autoscaling.Group(launch_configuration=lc.name): a string, not a reference; the configuration of that
    name is the group's, its instanceType the pool's machine."""
    configuration = Resource.of("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", {
        "name": "nodes-lc", "imageId": "ami-1", "instanceType": "c5.xlarge"})
    group = Resource.of("aws:autoscaling/group:Group", "nodes", {
        "name": "nodes-asg", "minSize": 1, "maxSize": 4, "launchConfiguration": "nodes-lc",
        "tags": [{"key": "kubernetes.io/cluster/eks", "value": "owned", "propagateAtLaunch": True}]})
    _result, stack = run(Resource.of("aws:eks/cluster:Cluster", "eks", {"name": "eks"}), configuration, group,
                         platform="aws")
    (pool,) = stack.platform_pools
    assert (pool.name, names(pool), pool.max_size) == ("nodes-asg", {"c5.xlarge"}, 4)


def test_a_multi_architecture_affinity_on_a_gke_arm_pool_gets_gkes_toleration():
    """GKE adds the toleration of its Arm nodes' kubernetes.io/arch=arm64:NoSchedule taint to a Pod whose
    nodeSelector or required node affinity selects arm64, an In [amd64, arm64] expression included
    (prepare-arm-workloads-for-deployment, "Overview"): such a Pod lands on an Arm-only cluster."""
    cluster = Resource.of("gcp:container/cluster:Cluster", "gke", {
        "name": "gke", "location": "europe-west1-b", "initialNodeCount": 1,
        "nodeConfig": {"machineType": "t2a-standard-2"}})
    either = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]}]}]}}}}
    result, _stack = run(cluster, _deployment("api", either), platform="gcp")
    assert result.mandatory == []
    unpinned, _stack = run(cluster, _deployment("api", {}), platform="gcp")
    assert [v.policy for v in unpinned.mandatory] == ["workload-schedulable"]


def test_a_rollout_whose_replicas_exceed_max_size_is_capacitys_finding_alone():
    """Three replicas that may not share a node on a group of at most 2 nodes: one of them never runs, which is
    pool-capacity's finding; the rollout's room is not the question then, so workload-rollout-fits says nothing.
    With 2 replicas the rollout's extra Pod has no node: its finding, and capacity's none."""
    repel = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}

    def web(replicas: int) -> Resource:
        return Resource.of("kubernetes:apps/v1:Deployment", "web", {"metadata": {"name": "web"}, "spec": {
            "replicas": replicas, "strategy": {"rollingUpdate": {"maxUnavailable": 0}},
            "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "affinity": repel, "containers": [{"name": "a", "image": "i"}]}}}})

    cluster = Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"})
    group = _group("general", "fleet")
    verdicts = {}
    for replicas in (2, 3):
        result, _stack = run(cluster, group, web(replicas), platform="aws")
        verdicts[replicas] = sorted(v.policy for v in result.mandatory)
    assert verdicts == {2: ["workload-rollout-fits"], 3: ["pool-capacity"]}


def test_a_labels_unknown_pool_of_a_machine_the_catalog_lacks_is_a_note():
    """A node group whose labels are not known during preview, of a machine the catalog does not know: nothing the
    pack knows refuses a Pod that selects a label, and nothing says it lands: a note, never a silent pass (the
    machine itself is cloud-machine-catalog's violation)."""
    declared = Resource.of("aws:eks/cluster:Cluster", "a", {"name": "a"})
    group = _group("g1", "a", instanceTypes=["zz9.huge"], labels={"team": UNKNOWN_STRING_VALUE})
    result, _stack = run(declared, group, _deployment("api", {"nodeSelector": {"team": "x"}}), platform="aws")
    assert [v.policy for v in result.violations] == ["cloud-machine-catalog"]
    (note,) = [n.finding for n in result.notes if n.policy == "workload-schedulable"]
    assert note.endswith("string value at .labels.team can't be known during preview")


def test_a_provider_targeting_a_declared_cluster_with_no_pools_is_a_note_not_an_empty_refusal():
    """The provider targets EKS cluster 'east', of which the stack declares no node group ('west' has one): the
    Pods' pools are not in the stack, so nothing refuses them; the note says so once (a violation listing no
    pool's reason came out before)."""
    east, west = (Resource.of("aws:eks/cluster:Cluster", name, {"name": name}) for name in ("east", "west"))
    provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", "k8s-east", {"kubeconfig": "k"}),
                                   property_dependencies={"kubeconfig": (east.urn,)})
    result, _stack = run(east, west, _group("g1", "west"), provider, _deployment("api", {}, provider.urn),
                         platform="aws")
    assert result.violations == []
    # (the second note was hidden behind the first until one note listed every check the policy could not make)
    assert [reason for n in result.notes if n.policy == "workload-schedulable" for reason in n.reasons] == [
        "the stack declares no pool of 'east', so the placement of workloads on it is not judged",
        "Deployment 'api': no pool this stack declares can run its Pods (the stack shows none), but EKS cluster 'east' "
        "may have pools this stack does not declare, so this is not judged"]


# --- issue 57's audit: what the fast suite let through in the OS, GPU, capacity, selector, baseline and test kit code

GKE = Resource.of("gcp:container/cluster:Cluster", "gke", {"name": "gke", "location": "europe-west1-b",
                                                          "initialNodeCount": 1, "removeDefaultNodePool": True})
EKS = Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"})


def _gke(name: str, config: dict[str, Any], cluster: str = "gke") -> Resource:
    return Resource.of("gcp:container/nodePool:NodePool", name, {
        "name": name, "cluster": cluster, "location": "europe-west1-b", "nodeCount": 1, "nodeConfig": config})


def _pod(name: str, spec: dict[str, Any], requests: dict[str, Any] | None = None, **labels: str) -> Resource:
    container: dict[str, Any] = {"name": name, "image": "i"}
    if requests is not None:
        container["resources"] = {"requests": requests}
    return Resource.of("kubernetes:core/v1:Pod", name, {"metadata": {"name": name, "labels": labels},
                                                        "spec": {"containers": [container], **spec}})


def test_gke_grants_its_windows_toleration_to_pods_that_select_windows_by_required_affinity():
    """GKE adds the toleration for node.kubernetes.io/os=windows:NoSchedule to Pods that select windows, by
    nodeSelector or by required node affinity alike (creating-a-cluster-windows): such a Pod lands on the Windows
    pool; one that does not select windows does not."""
    windows = _gke("win", {"machineType": "n2-standard-4", "imageType": "WINDOWS_LTSC_CONTAINERD"})
    affinity = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["windows"]}]}]}}}}
    result, _stack = run(GKE, windows, _pod("iis", affinity), platform="gcp")
    assert result.of("workload-schedulable") == []
    result, _stack = run(GKE, windows, _pod("plain", {}), platform="gcp")
    assert len(result.of("workload-schedulable")) == 1


def test_an_a2_machines_own_gpus_are_not_counted_twice():
    """a2-highgpu-1g has one A100 of its own; its guestAccelerators name that one (compute/docs/gpus: A2 machines
    come with their GPUs attached): a node advertises 1, so a Pod of 2 GPUs never fits and a Pod of 1 does."""
    pool = _gke("a2", {"machineType": "a2-highgpu-1g", "guestAccelerators": [
        {"type": "nvidia-tesla-a100", "count": 1}]})
    toleration = [{"key": "nvidia.com/gpu", "operator": "Exists"}]
    result, _stack = run(GKE, pool, _pod("one", {"tolerations": toleration}, {"nvidia.com/gpu": "1"}), platform="gcp")
    assert result.of("workload-fits-pool") == []
    result, _stack = run(GKE, pool, _pod("two", {"tolerations": toleration}, {"nvidia.com/gpu": "2"}), platform="gcp")
    assert len(result.of("workload-fits-pool")) == 1


def test_mig_partitions_make_a_node_advertise_more_than_its_cards_so_gpus_are_not_checked():
    """With gpuPartitionSize (MIG) a node advertises one nvidia.com/gpu per partition (how-to/gpus-multi): seven
    partitions of one A100 are seven devices; the pack does not count them, and says so, never refusing."""
    pool = _gke("mig", {"machineType": "a2-highgpu-1g", "guestAccelerators": [
        {"type": "nvidia-tesla-a100", "count": 1, "gpuPartitionSize": "1g.5gb"}]})
    toleration = [{"key": "nvidia.com/gpu", "operator": "Exists"}]
    result, _stack = run(GKE, pool, _pod("seven", {"tolerations": toleration}, {"nvidia.com/gpu": "7"}), platform="gcp")
    assert result.of("workload-fits-pool") == []
    assert any("not checked" in reason for note in result.notes for reason in note.reasons)


def test_a_pod_whose_requests_are_not_known_may_be_admitted_past_an_extended_resource_taint():
    """ExtendedResourceToleration tolerates a NoSchedule taint keyed by a resource the Pod requests: while its
    requests are not known yet it may request that one, so the tainted pool is possible, never refused."""
    gpu = Resource.of("aws:eks/nodeGroup:NodeGroup", "gpu", {
        "clusterName": "fleet", "nodeGroupName": "gpu", "instanceTypes": ["g5.xlarge"], "amiType":
        "AL2023_x86_64_NVIDIA", "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
        "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": 2}})
    pod = Resource.of("kubernetes:core/v1:Pod", "train", {"metadata": {"name": "train"}, "spec": {"containers": [
        {"name": "train", "image": "i", "resources": UNKNOWN_STRING_VALUE}]}})
    result, _stack = run(EKS, gpu, pod, platform="aws")
    assert result.of("workload-schedulable") == []
    known = Resource.of("kubernetes:core/v1:Pod", "web", {"metadata": {"name": "web"}, "spec": {"containers": [
        {"name": "web", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}})
    result, _stack = run(EKS, gpu, known, platform="aws")
    assert len(result.of("workload-schedulable")) == 1


def test_a_budget_whose_selector_value_is_not_known_may_select_the_workload():
    """A PodDisruptionBudget matchLabels value not known yet may match the workload's labels: never 'selects no Pods'
    (disruption-budget-useful), a note instead."""
    budget = Resource.of("kubernetes:policy/v1:PodDisruptionBudget", "api", {
        "metadata": {"name": "api"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {
            "app": UNKNOWN_STRING_VALUE}}}})
    api = Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {
        "replicas": 2, "selector": {"matchLabels": {"app": "api"}}, "template": {
            "metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{"name": "api", "image": "i"}]}}}})
    result, _stack = run(budget, api, platform="kubernetes")
    assert result.of("disruption-budget-useful") == []
    assert any(note.policy == "disruption-budget-useful" for note in result.notes)


def test_workload_node_os_refuses_only_what_mixes_on_every_candidate_cluster():
    """A workload whose cluster the pack cannot tell (the default provider, two AKS clusters): one cluster runs Linux
    and Windows pools, the other Linux only. On the second it is fine, so it is not refused (a note may say so)."""
    def cluster(name: str, windows: bool) -> Resource:
        pools = [{"name": "system", "vmSize": "Standard_D4s_v5", "count": 1, "osType": "Linux"}]
        if windows:
            pools.append({"name": "npwin", "vmSize": "Standard_D4s_v5", "count": 1, "osType": "Windows"})
        return Resource.of("azure-native:containerservice:ManagedCluster", name, {
            "resourceName": name, "location": "westeurope", "agentPoolProfiles": pools})
    web = Resource.of("kubernetes:apps/v1:Deployment", "web", {"metadata": {"name": "web"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}}, "template": {
            "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "i"}]}}}})
    result, _stack = run(cluster("east", True), cluster("west", False), web, platform="azure")
    assert result.of("workload-node-os") == []
    result, _stack = run(cluster("east", True), cluster("west", True), web, platform="azure")
    assert len(result.of("workload-node-os")) == 1


def test_an_organisation_qualified_stack_names_the_baselines_urns_by_its_stack_alone(monkeypatch):
    """The engine may pass PULUMI_STACK as org/project/stack: a URN holds the stack's name alone
    (urn:pulumi:<stack>::<project>::...), so a baseline of this stack is never taken for another's."""
    from compute_guard.policies.adapters.baseline import Snapshot

    snapshot = Snapshot(urns=frozenset({"urn:pulumi:dev::shop::aws:eks/nodeGroup:NodeGroup::general"}))
    monkeypatch.setenv("PULUMI_PROJECT", "shop")
    for stack in ("dev", "acme/shop/dev"):
        monkeypatch.setenv("PULUMI_STACK", stack)
        assert snapshot.foreign() is None, stack
    monkeypatch.setenv("PULUMI_STACK", "acme/shop/prod")
    assert snapshot.foreign() is not None
