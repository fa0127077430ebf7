"""Each pool source's fields as the stack reads them (SPEC 14.1), whole: kind, name, cluster, machines, labels,
taints, sizes and zones of every pool, and what the pack could not read, with its words. A source that misreads
one field (a zone list, a minimum size, an Unread's reason, the cluster a name claims) fails here even when no
policy's verdict turns on it yet (the mutation sample of issue 37's sources: survivors in every source's read)."""

from __future__ import annotations

import dataclasses
from typing import Any

from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment


def stack_of(*resources: Resource, platform: str = "aws") -> Any:
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        analyzer = Analyzer()
        analyzer.run(list(resources))
    return analyzer.state.last_stack()


def facts(pool: Any) -> dict[str, Any]:
    return {"kind": pool.kind, "name": pool.name, "cluster": (pool.cluster.key.rsplit("::", 1)[-1], pool.cluster.name,
                                                              pool.cluster.kind),
            "machines": tuple(option.hardware.name for option in pool.options)[:3], "min": pool.min_size,
            "max": pool.max_size, "zones": pool.zones,
            "taints": tuple(taint.text for taint in pool.taints)}


def unread(stack: Any) -> list[tuple[str, str, str, str]]:
    return [(item.urn.rsplit("::", 1)[-1], item.name, item.kind, item.why) for item in stack.unread]


def test_an_aks_node_pool_resource_and_the_inline_pools_of_its_clusters():
    pool = Resource.of("azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool", "user", {
        "name": "userpool", "kubernetesClusterId": "/subscriptions/s/resourceGroups/rg/providers/"
        "Microsoft.ContainerService/managedClusters/aks", "vmSize": "Standard_D8s_v5", "zones": ["1", "2"],
        "nodeLabels": {"team": "a"}, "nodeTaints": ["dedicated=batch:NoSchedule"], "autoScalingEnabled": True,
        "minCount": 2, "maxCount": 7})
    cluster = Resource.of("azure:containerservice/kubernetesCluster:KubernetesCluster", "aks", {
        "name": "aks", "location": "westeurope", "defaultNodePool": {
            "name": "system", "vmSize": "Standard_D4s_v5", "nodeCount": 3, "zones": ["3"],
            "onlyCriticalAddonsEnabled": True}})
    stack = stack_of(cluster, pool, platform="azure")
    by_name = {found.name: facts(found) for found in stack.pools}
    assert by_name["userpool"] == {
        "kind": "KubernetesClusterNodePool", "name": "userpool", "cluster": ("aks", "aks", "AKS cluster"),
        "machines": ("Standard_D8s_v5",), "min": 2, "max": 7, "zones": ("westeurope-1", "westeurope-2"),  # its cluster's region (issue 45)
        "taints": ("dedicated=batch:NoSchedule",)}
    assert by_name["system"]["zones"] == ("westeurope-3",) and by_name["system"]["max"] == 3
    assert by_name["system"]["taints"] == ("CriticalAddonsOnly=true:NoSchedule",)
    (user,) = [found for found in stack.pools if found.name == "userpool"]
    assert user.labels["team"] == frozenset({"a"}) and user.labels["kubernetes.io/os"] == frozenset({"linux"})
    # its region is its cluster's, known when it joins it (issue 45: the zones AKS names)
    assert user.labels["topology.kubernetes.io/zone"] == frozenset({"westeurope-1", "westeurope-2"})
    assert user.labels["kubernetes.azure.com/agentpool"] == frozenset({"userpool"})


def test_what_an_aks_cluster_does_not_let_the_pack_read_is_said_with_its_reason():
    native = Resource.of("azure-native:containerservice:ManagedCluster", "native", {
        "resourceName": "native", "location": "westeurope", "agentPoolProfiles": [UNKNOWN_STRING_VALUE]})
    classic = Resource.of("azure:containerservice/kubernetesCluster:KubernetesCluster", "classic", {
        "name": "classic", "location": "westeurope", "defaultNodePool": UNKNOWN_STRING_VALUE})
    assert unread(stack_of(native, classic, platform="azure")) == [
        ("native", "native", "AKS cluster", "has agentPoolProfiles[0], which is not known yet"),
        ("classic", "classic", "AKS cluster", "has a defaultNodePool that is not known yet")]


def test_a_gke_node_pool_its_sizes_zones_and_a_cluster_whose_pools_are_not_known():
    pool = Resource.of("gcp:container/nodePool:NodePool", "np", {
        "cluster": "projects/p/locations/europe-west1/clusters/gke", "name": "np", "location": "europe-west1",
        "nodeLocations": ["europe-west1-b", "europe-west1-c"],
        "autoscaling": {"minNodeCount": 1, "maxNodeCount": 4},
        "nodeConfig": {"machineType": "t2a-standard-4", "taints": [
            {"key": "dedicated", "value": "batch", "effect": "NO_EXECUTE"}]}})
    cluster = Resource.of("gcp:container/cluster:Cluster", "gke", {"name": "gke", "location": "europe-west1",
                                                                   "removeDefaultNodePool": True, "initialNodeCount": 1})
    stack = stack_of(cluster, pool, platform="gcp")
    (found,) = stack.pools
    assert facts(found) == {
        "kind": "GKE NodePool", "name": "np", "cluster": ("gke", "gke", "GKE cluster"), "machines": ("t2a-standard-4",),
        "min": found.min_size, "max": 8, "zones": ("europe-west1-b", "europe-west1-c"),
        "taints": ("dedicated=batch:NoExecute", "kubernetes.io/arch=arm64:NoSchedule")}
    assert found.per_zone is None  # its own zones: its size is known (per zone only while zones may change)
    zonal = Resource.of("gcp:container/cluster:Cluster", "gke", {"name": "gke", "location": "europe-west1-b",
                                                                 "removeDefaultNodePool": True})
    inherits = Resource.of("gcp:container/nodePool:NodePool", "np", {
        k: v for k, v in _props(pool).items() if k != "nodeLocations"})
    (found_there,) = stack_of(zonal, inherits, platform="gcp").pools
    assert (found_there.max_size, found_there.per_zone, found_there.zones) == (4, 4, ("europe-west1-b",))
    # GKE's Arm taint is not there when the pool asks for none (taintConfig.architectureTaintBehavior NONE)
    no_taint = Resource.of("gcp:container/nodePool:NodePool", "np", {
        **_props(pool), "nodeConfig": {"machineType": "t2a-standard-4",
                                       "taintConfig": {"architectureTaintBehavior": "NONE"}}})
    (quiet,) = stack_of(cluster, no_taint, platform="gcp").pools
    assert quiet.taints == ()
    # without autoscaling: nodeCount per zone (initialNodeCount when it is not set)
    fixed = Resource.of("gcp:container/nodePool:NodePool", "np", {**{k: v for k, v in _props(pool).items()
                                                                   if k != "autoscaling"}, "initialNodeCount": 3})
    (counted,) = stack_of(cluster, fixed, platform="gcp").pools
    assert (counted.max_size, counted.per_zone) == (6, None)  # 3 a zone in its own two zones
    unknown = Resource.of("gcp:container/cluster:Cluster", "later", {"name": "later", "location": "europe-west1-b",
                                                                     "nodePools": [UNKNOWN_STRING_VALUE]})
    assert unread(stack_of(unknown, platform="gcp")) == [
        ("later", "later", "GKE cluster", "has nodePools[0], which is not known yet")]
    pending = Resource.of("gcp:container/cluster:Cluster", "pending", {"name": "pending", "location": "europe-west1-b",
                                                                       "nodePools": UNKNOWN_STRING_VALUE})
    assert unread(stack_of(pending, platform="gcp")) == [
        ("pending", "pending", "GKE cluster", "has node pools that are not known yet")]


def _props(resource: Resource) -> dict[str, Any]:
    from google.protobuf import json_format

    return json_format.MessageToDict(resource.inputs)


def test_an_eks_node_group_its_sizes_and_a_fargate_profile():
    group = Resource.of("aws:eks/nodeGroup:NodeGroup", "ng", {
        "clusterName": "eks", "nodeGroupName": "general", "instanceTypes": ["m7g.large"], "amiType": "CUSTOM",
        "scalingConfig": {"minSize": 2, "maxSize": 5, "desiredSize": 2}})
    cluster = Resource.of("aws:eks/cluster:Cluster", "eks", {"name": "eks"})
    fargate = Resource.of("aws:eks/fargateProfile:FargateProfile", "fp", {"clusterName": "eks"})
    stack = stack_of(cluster, group)
    (found,) = stack.pools
    assert facts(found) == {"kind": "NodeGroup", "name": "general", "cluster": ("eks", "eks", "EKS cluster"),
                            "machines": ("m7g.large",), "min": 2, "max": 5, "zones": found.zones, "taints": ()}
    assert found.architectures() == ("arm64",)
    with_fargate = stack_of(cluster, group, fargate)
    assert [cluster.pools_known for cluster in with_fargate.kube_clusters] == [False]
    assert unread(with_fargate) == [
        ("eks", "eks", "EKS cluster", "has a Fargate profile, whose Pods run on Fargate nodes no pool of the stack shows")]


def test_self_managed_groups_find_their_template_by_id_or_name_and_keep_their_sizes():
    """An autoscaling Group of a cluster (its kubernetes.io/cluster/<name> tag) names its launch template by id, by
    name, or through a mixed instances policy; its name, sizes and machines are the pool's; one whose template is
    not a resource of the stack is said."""
    template = Resource.of("aws:ec2/launchTemplate:LaunchTemplate", "lt", {
        "name": "nodes-lt", "id": "lt-0123", "instanceType": "m7i.large"})
    cluster = Resource.of("aws:eks/cluster:Cluster", "eks", {"name": "eks"})
    tags = [{"key": "kubernetes.io/cluster/eks", "value": "owned", "propagateAtLaunch": True}]

    def group(name, **reference):
        return Resource.of("aws:autoscaling/group:Group", name, {"name": f"{name}-asg", "minSize": 1, "maxSize": 6,
                                                                 "tags": tags, **reference})

    stack = stack_of(cluster, template, group("by-id", launchTemplate={"id": "lt-0123"}),
                     group("by-name", launchTemplate={"name": "nodes-lt"}),
                     group("mixed", mixedInstancesPolicy={"launchTemplate": {
                         "launchTemplateSpecification": {"launchTemplateId": "lt-0123"},
                         "overrides": [{"instanceType": "c7i.xlarge"}, {"instanceType": "m7i.xlarge"}]}}),
                     group("elsewhere", launchTemplate={"id": "lt-other"}))
    assert sorted(facts(pool)["name"] for pool in stack.pools) == ["by-id-asg", "by-name-asg", "mixed-asg"]
    by_name = {pool.name: facts(pool) for pool in stack.pools}
    assert by_name["by-id-asg"] == {"kind": "autoscaling Group", "name": "by-id-asg",
                                    "cluster": ("eks", "eks", "EKS cluster"), "machines": ("m7i.large",), "min": 1,
                                    "max": 6, "zones": None, "taints": ()}
    assert by_name["mixed-asg"]["machines"] == ("c7i.xlarge", "m7i.xlarge")
    assert unread(stack) == [("elsewhere", "elsewhere", "autoscaling Group",
                              "joins a cluster, but its launch template is not a resource of the stack")]


def test_a_v1_node_group_is_its_cloudformation_stack_and_its_launch_configuration():
    """pulumi-eks's v1 NodeGroup (createNodeGroup): a LaunchConfiguration and a CloudFormation Stack whose template,
    which holds the configuration's id, declares the group's sizes. Kubelet flags the pack cannot read make its
    labels and taints not known, with the template named."""
    configuration = Resource.of("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", {
        "instanceType": "c7g.large",
        "userData": "#!/bin/bash\n/etc/eks/bootstrap.sh eks --kubelet-extra-args '--register-with-taints=broken'"})
    body = "Resources:\n  NodeGroup:\n    Properties:\n      MinSize: 2\n      MaxSize: '9'\n"
    cluster = Resource.of("eks:index:Cluster", "eks", {})
    cfn = dataclasses.replace(Resource.of("aws:cloudformation/stack:Stack", "ng-stack", {"templateBody": body},
                                          parent_type="eks:index:Cluster"),
                              parent=cluster.urn, property_dependencies={"templateBody": (configuration.urn,)})
    (found,) = stack_of(cluster, configuration, cfn).pools
    assert facts(found) == {"kind": "CloudFormation Stack", "name": "ng-stack", "cluster": ("eks", "eks", "EKS cluster"),
                            "machines": ("c7g.large",), "min": 2, "max": 9, "zones": None, "taints": ()}
    assert found.unknown is not None
    assert found.unknown.error.message == "the kubelet flags in the user data of 'lc' cannot be read"


def test_a_nodepools_zones_and_an_auto_mode_nodepools_labels():
    """A NodePool's topology.kubernetes.io/zone requirement is its zones; an EKS Auto Mode NodePool (node class of
    eks.amazonaws.com) carries eks.amazonaws.com/compute-type=auto; requirements its schema refuses are a note."""
    zoned = Resource.of("kubernetes:karpenter.sh/v1:NodePool", "zoned", {
        "metadata": {"name": "zoned"}, "spec": {"template": {"spec": {
            "requirements": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                              "values": ["us-east-1b", "us-east-1a"]},
                             {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.large"]}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}})
    auto = Resource.of("kubernetes:karpenter.sh/v1:NodePool", "auto", {
        "metadata": {"name": "auto"}, "spec": {"template": {"spec": {
            "requirements": [{"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["m"]}],
            "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}}}}})
    refused = Resource.of("kubernetes:karpenter.sh/v1:NodePool", "refused", {
        "metadata": {"name": "refused"}, "spec": {"template": {"spec": {
            "requirements": [{"key": "kubernetes.io/arch", "operator": "Near", "values": ["amd64"]}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}})
    stack = stack_of(zoned, auto, refused)
    pools = {pool.name: pool for pool in stack.pools}
    assert pools["zoned"].zones == ("us-east-1a", "us-east-1b")
    assert pools["auto"].labels["eks.amazonaws.com/compute-type"] == frozenset({"auto"})
    assert "m7i.large" in {option.hardware.name for option in pools["auto"].options}
    assert pools["refused"].unknown is not None
    assert pools["refused"].unknown.error.message == "NodePool 'refused' has requirements or taints its schema refuses"


def test_a_provider_whose_kubeconfig_depends_on_two_clusters_targets_either():
    """SPEC 14.2: the pack cannot tell which of two clusters such a provider targets; a Pod that fits the larger
    cluster's machines only is not refused (it was, when the first cluster found was taken). Its context naming one
    of them decides, as a kubeconfig does."""
    small = Resource.of("azure-native:containerservice:ManagedCluster", "small", {
        "resourceName": "small", "location": "westeurope", "agentPoolProfiles": [
            {"name": "pool", "vmSize": "Standard_D2s_v5", "count": 2, "osType": "Linux", "mode": "System"}]})
    large = Resource.of("azure-native:containerservice:ManagedCluster", "large", {
        "resourceName": "large", "location": "westeurope", "agentPoolProfiles": [
            {"name": "pool", "vmSize": "Standard_D16s_v5", "count": 2, "osType": "Linux", "mode": "System"}]})

    def verdicts(dependencies):
        provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", "k8s", {
            "kubeconfig": "k", "context": "c"}), property_dependencies=dependencies)
        app = dataclasses.replace(Resource.of("kubernetes:apps/v1:Deployment", "app", {
            "metadata": {"name": "app"}, "spec": {"template": {"metadata": {"labels": {"app": "a"}}, "spec": {
                "containers": [{"name": "a", "image": "i", "resources": {"requests": {"memory": "32Gi"}}}],
                "nodeSelector": {"kubernetes.io/arch": "amd64"}}}}}), provider=provider.urn)
        with stack_environment({"compute:platform": "azure"}, "project", "stack", True):
            result = Analyzer().run([small, large, provider, app])
        return sorted(v.policy for v in result.violations)

    assert verdicts({"kubeconfig": (small.urn, large.urn)}) == []
    assert verdicts({"kubeconfig": (small.urn,)}) == ["workload-fits-pool"]
    assert verdicts({"context": (small.urn,)}) == ["workload-fits-pool"]
    assert verdicts({"kubeconfig": (large.urn,)}) == []
