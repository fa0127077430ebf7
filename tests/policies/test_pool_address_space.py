"""pool-address-space (issue 60, SPEC 20, policy 28): a pool that can never reach its maximum size for want of
addresses, with the platform's own arithmetic written out here.

AKS, Azure CNI (node subnet): a node takes maxPods + 1 addresses of its subnet when it starts, for maxCount + maxSurge
nodes (learn.microsoft.com/azure/aks/concepts-network-legacy-cni, "Plan IP addressing"); Azure keeps 5 addresses of
every subnet (virtual-networks-faq). A /24 has 256 - 5 = 251: floor(251 / 31) = 8 nodes of maxPods 30.
"""

import pulumi_azure_native as azure_native
from builders import aks_on_subnet, eks_on_subnets, gke_on_range, run, subnet_pool

POLICY = "pool-address-space"
SUBNET_ID = ("/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/"
             "aks-nodes")


def profile(name="nodes", **more):
    return subnet_pool(name, **more)


def aks(*profiles, literal=False, **more):
    return aks_on_subnet(*profiles, subnet_id=SUBNET_ID if literal else None, **more)


def findings(*parts):
    return run(*parts, platform="azure").findings(POLICY)


def test_azure_cni_node_subnet_one_node_short_and_enough():
    """(7 + 1) x 31 = 248 of 251: enough; (8 + 1) x 31 = 279: one node more than the /24 holds."""
    assert findings(aks(profile(max_count=7))) == []
    (message,) = findings(aks(profile(max_count=8)))
    assert message == (
        "AKS cluster 'aks' pool 'nodes': at its maxSize of 8 nodes + 1 while it upgrades (AKS's default maxSurge) its "
        "nodes take 9 x 31 = 279 addresses (maxPods 30 + 1 a node: Azure CNI gives a node its Pods' addresses when "
        "it starts) of subnet 'aks-nodes' (10.0.1.0/24), which has 256 - 5 reserved by Azure = 251 addresses: room "
        "for 8 nodes, so it can never reach 8: use a larger subnet, a lower maxPods, or Azure CNI Overlay (a node "
        "then takes one address), or lower maxCount to at most 7")


def test_by_a_literal_subnet_id_as_by_dependency():
    assert findings(aks(profile(max_count=7), literal=True)) == []
    assert len(findings(aks(profile(max_count=8), literal=True))) == 1


def test_max_surge_counts_as_aks_rounds_it():
    """maxSurge '50%' of 6 is 3: (6 + 3) x 31 = 279 > 251; '2' of 6: 8 x 31 = 248."""
    (message,) = findings(aks(profile(max_count=6, upgrade_settings={"max_surge": "50%"})))
    assert "at its maxSize of 6 nodes + 3 while it upgrades (maxSurge 50% of 6, rounded up)" in message
    assert findings(aks(profile(max_count=6, upgrade_settings={"max_surge": "2"}))) == []


def test_a_lower_max_pods_fits_more_nodes():
    """maxPods 10: floor(251 / 11) = 22 nodes: 21 + 1 fit, 22 + 1 do not."""
    assert findings(aks(profile(max_count=21, max_pods=10))) == []
    assert len(findings(aks(profile(max_count=22, max_pods=10)))) == 1


def test_overlay_and_kubenet_nodes_take_one_address_and_a_24_of_the_pod_cidr():
    """Overlay: one address a node of the /24 (251 nodes), and a /24 of podCidr (10.244.0.0/16 by default: 256)."""
    assert findings(aks(profile(max_count=250, max_pods=250), mode="overlay")) == []
    (message,) = findings(aks(profile(max_count=251, max_pods=250), mode="overlay"))
    assert "its nodes take 252 x 1 = 252 addresses (one a node: its Pods' addresses are not the subnet's)" in message
    (small,) = findings(aks(profile(max_count=16), plugin="kubenet", pod_cidr="10.244.0.0/20", cidr="10.0.0.0/16"))
    assert small.startswith(
        "AKS cluster 'aks' pool 'nodes': at its maxSize of 16 nodes + 1 while it upgrades (AKS's default maxSurge) its "
        "nodes take 17 x 256 = 4352 addresses (a /24 a node) of the podCidr of AKS cluster 'aks' "
        "(10.244.0.0/20), which has 4096 addresses: room for 16 nodes")
    assert findings(aks(profile(max_count=15), plugin="kubenet", pod_cidr="10.244.0.0/20", cidr="10.0.0.0/16")) == []


def test_pools_sharing_a_subnet_count_the_others_nodes_at_their_minimum():
    """'base' holds 5 x 31 = 155 at its minimum; 'burst' at 3 + 1 takes 124: 279 > 251. At 'base' minCount 4, 248."""
    def two(base_min):
        return aks(profile("base", min_count=base_min, max_count=5), profile("burst", min_count=0, max_count=3,
                                                                              mode="User"))
    assert findings(two(4)) == []
    (message,) = findings(two(5))
    assert message.startswith("AKS cluster 'aks' pool 'burst': at its maxSize of 3 nodes + 1 while it upgrades")
    assert ("and the pools beside it hold 155 of them at their minimum (pool 'base' of AKS cluster 'aks' 5 x 31): room "
            "for 3 nodes, so it can never reach 3") in message


def test_the_aks_template_without_a_subnet_of_its_own_takes_none_the_stack_shows():
    """The kubernetes-azure-python template: Azure CNI, no vnetSubnetID (AKS makes its own network)."""
    assert findings(aks(profile(max_count=100))) != []  # with the subnet: 101 x 31 > 251
    def template():
        azure_native.containerservice.ManagedCluster(
            "aks", resource_group_name="rg", location="westeurope", dns_prefix="aks",
            agent_pool_profiles=[profile(max_count=100)], network_profile={"network_plugin": "azure"})
    assert findings(template) == []


def test_a_subnet_range_not_known_yet_is_said_once_and_a_known_one_judged():
    """A first preview where the subnet's range comes from another resource's output: a note naming the pool."""
    import dataclasses

    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

    from compute_guard.testkit import Analyzer, Resource
    from compute_guard.testkit.analyzer import stack_environment

    def resources(cidr):
        made = Resource.of("azure-native:network:Subnet", "aks-nodes", {"subnetName": "aks-nodes",
                                                                          "virtualNetworkName": "vnet",
                                                                          "addressPrefix": cidr})
        cluster = Resource.of("azure-native:containerservice:ManagedCluster", "aks", {
            "resourceGroupName": "rg", "dnsPrefix": "aks", "networkProfile": {"networkPlugin": "azure"},
            "agentPoolProfiles": [{"name": "nodes", "mode": "System", "vmSize": "Standard_D4s_v5", "count": 1,
                                   "enableAutoScaling": True, "minCount": 1, "maxCount": 8, "maxPods": 30,
                                   "vnetSubnetID": UNKNOWN_STRING_VALUE}]})
        return [made, dataclasses.replace(cluster, property_dependencies={"agentPoolProfiles": (made.urn,)})]

    with stack_environment({"compute:platform": "azure"}, "project", "stack", True):
        late = Analyzer().run(resources(UNKNOWN_STRING_VALUE))
        known = Analyzer().run(resources("10.0.1.0/24"))
    assert late.findings(POLICY) == [] and [note.policy for note in late.notes] == [POLICY]
    assert "AKS cluster 'aks' pool 'nodes': whether its network has addresses for its nodes is not judged" in str(
        late.notes[0])
    assert "the address range of subnet 'aks-nodes' is not known yet" in str(late.notes[0])
    assert len(known.findings(POLICY)) == 1 and known.notes == []


# GKE: a node takes the smallest aligned block holding twice its maxPods of the cluster's Pod range
# (cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr): 110 Pods, 220, a /24 of 256; 32 Pods, a /26.

def gke(*pools, **more):
    return gke_on_range(*pools, **more)


def gke_findings(*parts):
    return run(*parts, platform="gcp").findings(POLICY)


def test_a_gke_pool_takes_a_24_a_node_of_the_clusters_pod_range():
    """/22: 1024 addresses, 4 blocks of /24: 4 nodes of 110 Pods fit, 5 do not."""
    assert gke_findings(gke(("apps", 4, None))) == []
    (message,) = gke_findings(gke(("apps", 5, None)))
    assert message == (
        "GKE NodePool 'apps': at its maxSize of 5 nodes its nodes take 5 x 256 = 1280 "
        "addresses (a /24 a node: the smallest block of twice its 110 Pods) of the Pod range of GKE cluster 'gke' "
        "(/22), which has 1024 addresses: room for 4 nodes, so it can never reach 5: use a larger Pod range "
        "(ipAllocationPolicy.clusterIpv4CidrBlock), a lower maxPodsPerNode, or a Pod range of the pool's own "
        "(networkConfig.podRange), or lower autoscaling.maxNodeCount to at most 4")


def test_max_pods_per_node_decides_the_block_and_the_cluster_default_is_the_pools():
    """32 Pods: a /26 (64) a node, 16 of them in a /22; the cluster's defaultMaxPodsPerNode for a pool that sets
    none."""
    assert gke_findings(gke(("apps", 16, 32))) == []
    assert len(gke_findings(gke(("apps", 17, 32)))) == 1
    assert gke_findings(gke(("apps", 16, None), default_max_pods=32)) == []
    assert len(gke_findings(gke(("apps", 17, None), default_max_pods=32))) == 1


def test_the_pod_range_a_secondary_range_of_the_subnetwork_names():
    assert gke_findings(gke(("apps", 4, None), secondary="10.4.0.0/22")) == []
    (message,) = gke_findings(gke(("apps", 5, None), secondary="10.4.0.0/22"))
    assert "of the Pod range of GKE cluster 'gke' (10.4.0.0/22), which has 1024 addresses: room for 4 nodes" in message


def test_the_gke_templates_14_range_is_far_from_full():
    """The kubernetes-gcp-python template's shape: a /14 range, 1024 nodes of 110 Pods."""
    assert gke_findings(gke(("apps", 1024, None), cidr="/14")) == []
    assert len(gke_findings(gke(("apps", 1025, None), cidr="/14"))) == 1


# EKS: under the VPC CNI's defaults a node takes its first network interface's every address when it starts (m5.large:
# 10, EKS's table), with prefix delegation its primary address and a /28 (17); AWS keeps 5 of every subnet
# (docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html). A /26: 64 - 5 = 59, floor(59 / 10) = 5 nodes.

def eks(max_size, *cidrs, **more):
    return eks_on_subnets(max_size, *cidrs, **more)


def eks_findings(*parts):
    result = run(*parts, platform="aws")
    return result.findings(POLICY), [note for note in result.notes if note.policy == POLICY]


def test_an_eks_node_group_takes_its_first_interfaces_addresses_a_node():
    assert eks_findings(eks(5)) == ([], [])
    (message,), _ = eks_findings(eks(6))
    assert message == (
        "NodeGroup 'nodes': at its maxSize of 6 nodes its nodes take 6 x 10 = 60 addresses (m5.large: every "
        "address of a node's first network interface, which the VPC CNI takes when it starts) of subnet "
        "'nodes-0' (10.0.1.0/26), which has 64 - 5 reserved by AWS = 59 addresses: room for 5 nodes, so it can never "
        "reach 6: use larger subnets, or lower scalingConfig.maxSize to at most 5")


def test_each_node_in_one_of_its_subnets():
    """Two /26: 5 nodes each, 10 in all."""
    assert eks_findings(eks(10, "10.0.1.0/26", "10.0.2.0/26")) == ([], [])
    (message,), _ = eks_findings(eks(11, "10.0.1.0/26", "10.0.2.0/26"))
    assert ("of its subnets subnet 'nodes-0' (10.0.1.0/26), subnet 'nodes-1' (10.0.2.0/26), which has 118 usable "
            "addresses (64 - 5 reserved by AWS = 59 addresses; 64 - 5 reserved by AWS = 59 addresses): room for 10 "
            "nodes") in message


def test_prefix_delegation_takes_a_28_and_the_primary_address_and_warm_targets_are_said():
    """floor(59 / 17) = 3 nodes with prefix delegation; WARM_IP_TARGET changes what a node takes: a note."""
    on = {"ENABLE_PREFIX_DELEGATION": "true"}
    assert eks_findings(eks(3, cni=on)) == ([], [])
    (message,), _ = eks_findings(eks(4, cni=on))
    assert "its nodes take 4 x 17 = 68 addresses (its primary address and one /28 of 16 a node: prefix delegation)" \
        in message
    found, (note,) = eks_findings(eks(6, cni={"WARM_IP_TARGET": "2"}))
    assert found == [] and "NodeGroup 'nodes': whether its network has addresses for its nodes is not judged: its " \
        "cluster's vpc-cni add-on sets WARM_IP_TARGET, which decide how many addresses a node takes" in str(note)


def test_a_self_managed_group_in_its_vpc_zone_identifiers():
    """t3.medium: 6 addresses an interface (EKS's table): floor(59 / 6) = 9 nodes."""
    assert eks_findings(eks(9, instance_type="t3.medium", self_managed=True)) == ([], [])
    (message,), _ = eks_findings(eks(10, instance_type="t3.medium", self_managed=True))
    assert message.startswith("autoscaling Group 'nodes-5a15793': at its maxSize of 10 nodes its nodes take 10 x 6 = 60")


def test_a_secret_range_is_neither_shown_nor_judged_and_is_said():
    """Its size would tell the secret: no arithmetic, a note (SPEC 4)."""
    import pulumi

    def declare():
        made = azure_native.network.Subnet("aks-nodes", subnet_name="aks-nodes", resource_group_name="rg",
                                           virtual_network_name="vnet",
                                           address_prefix=pulumi.Output.secret("10.0.1.0/28"))
        azure_native.containerservice.ManagedCluster(
            "aks", resource_group_name="rg", location="westeurope", dns_prefix="aks",
            agent_pool_profiles=[{**profile(max_count=8), "vnet_subnet_id": made.id}],
            network_profile={"network_plugin": "azure"})
    result = run(declare, platform="azure")
    assert result.findings(POLICY) == []
    (note,) = [note for note in result.notes if note.policy == POLICY]
    assert "the address range of subnet 'aks-nodes' is secret, so what it holds is neither shown nor judged" in str(
        note) and "10.0.1.0" not in str(note)


def test_pool_capacity_counts_the_nodes_the_addresses_hold_when_fewer_than_max_size():
    """maxCount 10 in a /24 of Azure CNI (maxPods 30): the subnet holds floor(251 / 31) = 8 nodes. 8 nodes of
    Standard_D4s_v5 hold Pods of 1 CPU at three a node, 24; 25 need a ninth node its addresses never give."""
    from builders import AMD64, workload

    def api(replicas):
        return workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "1"}, spec={"replicas": replicas})

    cluster = aks(profile(max_count=10))
    assert run(cluster, api(24), platform="azure").findings("pool-capacity") == []
    (message,) = run(cluster, api(25), platform="azure").findings("pool-capacity")
    assert message.startswith(
        "AKS cluster 'aks' pool 'nodes': Deployment 'api' runs 25 Pods and a node (machine Standard_D4s_v5) holds at "
        "most 3 of them")
    assert message.endswith(
        "so they need 9 nodes, more than 8 (the 8 nodes of its maxSize 10 that subnet 'aks-nodes' (10.0.1.0/24) "
        "addresses 8 of them (251 addresses / 31 a node)): give its nodes more addresses (pool-address-space says "
        "how), use larger machines or run fewer replicas")
    # with a subnet that holds them all, the maxSize counts: 30 fit
    assert run(aks(profile(max_count=10), cidr="10.0.0.0/22"), api(30), platform="azure").findings(
        "pool-capacity") == []
    many = workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "1200m"}, spec={"replicas": 26})
    (total,) = run(cluster, many, platform="azure").findings("pool-capacity")
    assert total.startswith(
        "AKS cluster 'aks' pool 'nodes': at the 8 nodes of its maxSize 10 that subnet 'aks-nodes' (10.0.1.0/24) "
        "addresses 8 of them (251 addresses / 31 a node) (machine Standard_D4s_v5) it has room for 8 x 3860m = 30.88 "
        "cores of CPU allocatable")


def test_a_pod_subnet_in_static_block_mode_gives_each_node_its_blocks():
    """An AgentPool of maxPods 250 with a pod subnet in StaticBlock mode: ceil(250 / 16) = 16 /28 blocks, 256
    addresses a node; a /20 pod subnet has 4096 - 5 = 4091: 15 nodes. The node subnet takes one a node. In the
    default DynamicIndividual mode nothing of the pod subnet is counted."""
    def pool(max_count, mode="StaticBlock"):
        def declare():
            cluster = azure_native.containerservice.ManagedCluster(
                "aks", resource_group_name="rg", location="westeurope", dns_prefix="aks",
                agent_pool_profiles=[profile("system", max_count=1)], network_profile={"network_plugin": "azure"})
            nodes = azure_native.network.Subnet("nodes", subnet_name="nodes", resource_group_name="rg",
                                                virtual_network_name="vnet", address_prefix="10.0.0.0/24")
            pods = azure_native.network.Subnet("pods", subnet_name="pods", resource_group_name="rg",
                                               virtual_network_name="vnet", address_prefix="10.1.0.0/20")
            azure_native.containerservice.AgentPool(
                "apps", agent_pool_name="apps", resource_name_=cluster.name, resource_group_name="rg",
                vm_size="Standard_D4s_v5", count=1, enable_auto_scaling=True, min_count=1, max_count=max_count,
                max_pods=250, vnet_subnet_id=nodes.id, pod_subnet_id=pods.id, pod_ip_allocation_mode=mode)
        return declare

    assert findings(pool(15)) == []
    (message,) = findings(pool(16))
    assert message == (
        "AgentPool 'apps': at its maxSize of 16 nodes its nodes take 16 x 256 = 4096 addresses (ceil(maxPods 250 / "
        "16) = 16 /28 blocks a node: its pod subnet's StaticBlock allocation) of subnet 'pods' (10.1.0.0/20), which "
        "has 4096 - 5 reserved by Azure = 4091 addresses: room for 15 nodes, so it can never reach 16: use a larger "
        "pod subnet, or a lower maxPods, or lower maxCount to at most 15")
    assert findings(pool(16, "DynamicIndividual")) == []


def test_gke_pools_sharing_a_range_count_each_others_minimum():
    """Issue 66: every GKE pool's minimum was None, so pools sharing a Pod range never counted each other. A /22 holds
    4 nodes of 110 Pods: 'apps' may grow to 4 only while 'batch' keeps none; at batch's minimum of 2 it has room for 2."""
    assert gke_findings(gke(("apps", 4, None, 1), ("batch", 2, None, 0))) == []
    found = gke_findings(gke(("apps", 4, None, 1), ("batch", 2, None, 2)))
    assert any(message.startswith("GKE NodePool 'apps': at its maxSize of 4 nodes") and "batch" in message
               for message in found), found


def test_an_inline_gke_pool_runs_its_clusters_default_max_pods():
    """Issue 66: an inline nodePools entry that sets no maxPodsPerNode runs its cluster's defaultMaxPodsPerNode (it
    was taken as 110: a false refusal of 16 nodes at 32 Pods in a /22, which holds 16 /26 blocks)."""
    import pulumi_gcp as gcp

    def inline(nodes, default_max_pods):
        def declare():
            gcp.container.Cluster("gke", name="gke", location="europe-west1-b", default_max_pods_per_node=default_max_pods,
                                  ip_allocation_policy={"cluster_ipv4_cidr_block": "/22"}, node_pools=[{
                                      "name": "apps", "node_count": nodes,
                                      "node_config": {"machine_type": "n2-standard-4"}}])
        return declare
    assert gke_findings(inline(16, 32)) == []
    assert len(gke_findings(inline(17, 32))) == 1
    assert len(gke_findings(inline(5, None))) == 1  # 110 Pods a node: a /24 each, 4 in a /22


def test_capacity_rollout_and_the_report_count_the_same_nodes():
    """Issue 67: one count of a pool's nodes. maxCount 10 in a /24 of Azure CNI (maxPods 30) holds 8 nodes, three
    1-CPU Pods each. 24 Pods fit (pool-capacity says nothing), but a rollout with maxUnavailable 0 needs a 25th:
    workload-rollout-fits counted 10 nodes (30 Pods) and passed, while pool-capacity counted 8. Now both, and the
    report, count the 8 nodes its addresses hold."""
    import json

    from builders import AMD64, workload
    from report_inputs import preview_document

    from compute_guard.report import build, read
    from compute_guard.testkit import capture_program

    api = workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "1"}, spec={
        "replicas": 24, "strategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}})
    cluster = aks(profile(max_count=10))
    result = run(cluster, api, platform="azure")
    assert result.findings("pool-capacity") == []
    (rollout,) = result.findings("workload-rollout-fits")
    assert "a node of AKS cluster 'aks' pool 'nodes' (machine Standard_D4s_v5) holds at most 3 of its Pods" in rollout
    assert "the pool has at most 8 nodes (subnet 'aks-nodes' (10.0.1.0/24) addresses 8 of them (251 addresses / 31 a " \
           "node)): 3 x 8 = 24 Pods, no room for one more" in rollout, rollout

    def program():
        cluster()
        api()
    config = {"compute:platform": "azure"}
    report = build(read(json.dumps(preview_document(capture_program(program, stack_config=config), config)).encode()))
    (view,) = [view for view in report.pools if view.pool == "nodes"]
    assert (view.max_size, view.counted_nodes) == (10, 8)
    assert view.capacity("pods") == 8 * view.allocatable["pods"]
    # with a subnet that holds all ten, the rollout has its room (and the report counts ten)
    roomy = run(aks(profile(max_count=10), cidr="10.0.0.0/22"), api, platform="azure")
    assert roomy.findings("workload-rollout-fits") == []
