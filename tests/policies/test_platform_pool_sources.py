"""The platform pool sources (policies/model/sources/), case by case: what each reads from its resource decides a
verdict (tests for the mutation sample's survivors of this round; the policies' own tests are beside them)."""

from builders import (
    AMD64,
    ARM64,
    aks_node_pool,
    arch_requirement,
    deployment,
    digitalocean,
    instance_types,
    node_class,
    node_group,
    nodepool,
    run,
    workload,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from compute_guard.policies.model.nodes import node_of, override
from compute_guard.policies.model.sources import pools_of
from compute_guard.policies.platforms.quantity import PODS
from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment

FITS, SCHEDULABLE = "workload-fits-pool", "workload-schedulable"


def parse_platform_pool(kind, props, urn, name):
    """The one pool a node-pool resource declares, read alone (as a resource policy reads it)."""
    (pool,) = pools_of(kind, props, urn, name)
    return pool


def first_node(pool):
    """A node of the pool's first machine, with its own kubelet settings (maxPods) and the platform's defaults."""
    return node_of(pool.options[0].hardware, pool.platform, override({}, pool.platform, (), pool.kubelet))


def raw(resources, platform="aws"):
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        return Analyzer().run(resources)


def raw_nodepool(name, template):
    return Resource.of("kubernetes:karpenter.sh/v1:NodePool", name, {"metadata": {"name": name}, "spec": {
        "template": template}})


def raw_deployment(spec):
    return Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {"template": {
        "spec": {"containers": [{"name": "a", "image": "i"}], **spec}}}})


def test_a_nodepool_of_machines_the_catalog_lacks_may_carry_its_platforms_labels():
    pool = nodepool("new", [instance_types("c7gx.large")])
    hypervisor = {"karpenter.k8s.aws/instance-hypervisor": "nitro"}
    assert run(node_class(), pool, deployment("api", node_selector=hypervisor), platform="aws").findings(
        SCHEDULABLE) == []


def test_a_value_not_known_deep_in_the_pods_affinity_makes_every_pool_possible():
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "team", "operator": "In", "values": ["a"]},
                              {"key": "tier", "operator": "In", "values": [UNKNOWN_STRING_VALUE]}]}]}}}
    pool = raw_nodepool("p", {"spec": {"requirements": [], "nodeClassRef": {"name": "default"}}})
    result = raw([pool, raw_deployment({"affinity": affinity})])
    assert result.of(SCHEDULABLE) == [] and SCHEDULABLE in {note.policy for note in result.notes}


def test_a_term_of_match_fields_only_can_be_met():
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}}
    assert run(node_class(), nodepool("p", []), deployment("api", affinity=affinity), platform="aws").findings(
        SCHEDULABLE) == []


def test_an_aks_pools_size_is_max_count_when_it_autoscales_else_its_count():
    for native, autoscale in ((False, "autoScalingEnabled"), (True, "enableAutoScaling")):
        kind = "azure-native:containerservice:AgentPool" if native else \
            "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool"
        count = "count" if native else "nodeCount"
        fixed = parse_platform_pool(kind, {"vmSize": "Standard_D4s_v5", count: 2, "maxCount": 9}, "urn", "p")
        scaling = parse_platform_pool(kind, {"vmSize": "Standard_D4s_v5", count: 2, "maxCount": 9, autoscale: True},
                                      "urn", "p")
        assert fixed is not None and scaling is not None
        assert (fixed.max_size, scaling.max_size) == (2, 9), kind


def test_an_aks_pools_vm_size_is_checked_and_its_max_pods_decides_allocatable():
    (typo,) = run(aks_node_pool("apps", "Standard_D2sv_v5"), platform="azure").findings("cloud-machine-catalog")
    assert typo.startswith("KubernetesClusterNodePool 'apps': VM size 'Standard_D2sv_v5' is not a machine type on "
                           "Azure")
    pool = parse_platform_pool("azure-native:containerservice:AgentPool",
                               {"vmSize": "Standard_D4s_v5", "maxPods": 30}, "urn", "apps")
    assert pool is not None
    node = first_node(pool)
    assert node.capacity[PODS] == 30  # and AKS reserves 20 MB x 30 + 50 MB = 650 MB of memory, not 4 GiB
    assert node.reserved["memory"]["kube-reserved"] == 650 * 1000**2
    odd = parse_platform_pool("azure-native:containerservice:AgentPool", {"vmSize": 5}, "urn", "apps")
    assert odd is not None and odd.named_types == () and odd.options == ()


def test_a_gke_pools_max_pods_per_node_is_its_nodes_pod_slots():
    pool = parse_platform_pool("gcp:container/nodePool:NodePool", {"name": "p", "maxPodsPerNode": 32}, "urn", "p")
    assert pool is not None and first_node(pool).capacity[PODS] == 32


def test_the_beta_architecture_label_is_on_every_node():
    group = node_group("general", ["m7i.large"])
    assert run(group, deployment("api", node_selector={"beta.kubernetes.io/arch": "amd64"}),
               platform="aws").findings(SCHEDULABLE) == []
    assert len(run(group, deployment("api", node_selector={"beta.kubernetes.io/arch": "arm64"}),
                   platform="aws").findings(SCHEDULABLE)) == 1


def test_a_node_groups_labels_not_known_yet_make_it_possible():
    group = Resource.of("aws:eks/nodeGroup:NodeGroup", "general", {
        "nodeGroupName": "general", "instanceTypes": ["m7i.large"], "labels": {"tier": UNKNOWN_STRING_VALUE}})
    result = raw([group, raw_deployment({"nodeSelector": {"tier": "web"}})])
    assert result.of(SCHEDULABLE) == [] and SCHEDULABLE in {note.policy for note in result.notes}
    template = raw_nodepool("p", {"metadata": {"labels": {"tier": UNKNOWN_STRING_VALUE}},
                                  "spec": {"requirements": [], "nodeClassRef": {"name": "default"}}})
    result = raw([template, raw_deployment({"nodeSelector": {"tier": "web"}})])
    assert result.of(SCHEDULABLE) == [] and SCHEDULABLE in {note.policy for note in result.notes}


def test_notin_and_generation_requirements_choose_the_machines():
    """t4g.medium or t4g.large but NotIn t4g.large: the Pod is judged on t4g.medium alone; category t and generation
    above 3 with arm64: the t4g machines, t4g.2xlarge (32 GiB) the largest."""
    small = nodepool("small", [instance_types("t4g.medium", "t4g.large"),
                               {"key": "node.kubernetes.io/instance-type", "operator": "NotIn",
                                "values": ["t4g.large"]}])
    (message,) = run(node_class(), small, workload("Deployment", "api", node_selector=ARM64,
                                                   requests={"memory": "4000Mi"}), platform="aws").findings(FITS)
    assert "(t4g.medium)" in message
    graviton = nodepool("t", [arch_requirement("arm64"),
                              {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["t"]},
                              {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["3"]}])
    (message,) = run(node_class(), graviton, workload("Deployment", "api", node_selector=ARM64,
                                                      requests={"memory": "40Gi"}), platform="aws").findings(FITS)
    assert "(t4g.2xlarge)" in message


def test_the_node_classs_system_reservation_and_eviction_threshold_count():
    """t4g.medium: 4096 - 442 kube-reserved - 100 system-reserved - 200 eviction = 3354 MiB."""
    pool = nodepool("small", [instance_types("t4g.medium")])
    kubelet = {"systemReserved": {"memory": "100Mi"}, "evictionHard": {"memory.available": "200Mi"}}
    fits = workload("Deployment", "api", node_selector=ARM64, requests={"memory": "3354Mi"})
    assert run(node_class(kubelet=kubelet), pool, fits, platform="aws").findings(FITS) == []
    (message,) = run(node_class(kubelet=kubelet), pool, workload("Deployment", "api", node_selector=ARM64,
                                                                 requests={"memory": "3355Mi"}),
                     platform="aws").findings(FITS)
    assert "= 3354 MiB allocatable" in message


def test_a_does_not_exist_requirement_keeps_the_label_off_every_node():
    pool = nodepool("p", [{"key": "team", "operator": "DoesNotExist"}], labels={"team": "a"})
    assert len(run(node_class(), pool, deployment("api", node_selector={"team": "a"}),
                   platform="aws").findings(SCHEDULABLE)) == 1
    assert run(node_class(), pool, deployment("api", node_selector=AMD64), platform="aws").findings(SCHEDULABLE) == []


# --- issue 39's planted bugs: each field a source reads, at the value that decides ----------------------------------

def test_a_karpenter_notin_on_the_instance_family_removes_its_machines():
    """m7i.large (8 GiB) or r7i.large (16 GiB), family NotIn r7i: a Pod of 10 GiB fits no allowed machine."""
    pool = nodepool("p", [instance_types("m7i.large", "r7i.large"),
                          {"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": ["r7i"]}])
    (message,) = run(node_class(), pool, workload("Deployment", "api", node_selector=AMD64,
                                                  requests={"memory": "10Gi"}), platform="aws").findings(FITS)
    assert "(m7i.large)" in message and "r7i" not in message.split("; it can never")[0]


def test_startup_taints_keep_no_pod_off_a_nodepools_nodes():
    """Karpenter removes startupTaints before Pods schedule (SPEC 14): only spec.template.spec.taints count."""
    template = {"spec": {"requirements": [arch_requirement("amd64")],
                         "startupTaints": [{"key": "node.cilium.io/agent-not-ready", "effect": "NoExecute"}],
                         "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}
    assert raw([raw_nodepool("p", template), raw_deployment({"nodeSelector": AMD64})]).of(SCHEDULABLE) == []
    template["spec"]["taints"] = template["spec"].pop("startupTaints")
    assert len(raw([raw_nodepool("p", template), raw_deployment({"nodeSelector": AMD64})]).of(SCHEDULABLE)) == 1


def test_a_custom_ami_runs_the_architecture_of_its_instance_types():
    """amiType CUSTOM: the instance types decide (m7g.large: arm64), not x86_64."""
    group = node_group("custom", ["m7g.large"], ami_type="CUSTOM")
    assert run(group, deployment("api", node_selector=ARM64), platform="aws").findings(SCHEDULABLE) == []
    (message,) = run(group, deployment("api", node_selector=AMD64), platform="aws").findings(SCHEDULABLE)
    assert "runs arm64 nodes, not amd64" in message


def test_a_node_groups_no_execute_taint_keeps_pods_off_and_prefer_no_schedule_does_not():
    def verdict(effect):
        group = node_group("g", ["m7i.large"], taints=[("dedicated", "batch", effect)])
        return run(group, deployment("api", node_selector=AMD64), platform="aws").findings(SCHEDULABLE)

    (message,) = verdict("NO_EXECUTE")
    assert "has taint dedicated=batch:NoExecute that it does not tolerate" in message
    assert verdict("PREFER_NO_SCHEDULE") == []


def test_a_gke_pools_total_max_node_count_is_its_size_not_the_per_zone_maximum():
    """totalMaxNodeCount 2 over three zones (maxNodeCount 5 each would be 15): the pool is 2 nodes at most."""
    props = {"cluster": "fleet", "name": "np", "location": "europe-west1",
             "nodeLocations": ["europe-west1-b", "europe-west1-c", "europe-west1-d"],
             "autoscaling": {"totalMinNodeCount": 1, "totalMaxNodeCount": 2, "maxNodeCount": 5},
             "nodeConfig": {"machineType": "e2-standard-4"}}
    pool = parse_platform_pool("gcp:container/nodePool:NodePool", props, "urn:np", "np")
    assert pool.max_size == 2
    del props["autoscaling"]["totalMaxNodeCount"], props["autoscaling"]["totalMinNodeCount"]
    assert parse_platform_pool("gcp:container/nodePool:NodePool", props, "urn:np", "np").max_size == 15


def test_unread_platforms_a_digitalocean_cluster_is_said_its_workloads_not_judged():
    """Issue 45: a DigitalOcean cluster (a platform the pack does not read) with a 64Gi Pod got no pool, no finding and
    no note."""
    from compute_guard.testkit import evaluate

    result = evaluate(digitalocean("64Gi"), stack_config={"compute:platform": "kubernetes"})
    assert result.mandatory == [] and result.pools == []
    assert [note.finding.split("during preview: ", 1)[1] for note in result.notes if note.policy == SCHEDULABLE] == [
        "DigitalOcean cluster 'do' is of a platform whose pools the pack does not read (its machines are not in the "
        "catalog), so the workloads on it are not judged for fit, capacity or placement; the placement of Deployment "
        "'api' on it is not judged"]  # (issue 75: naming the workload it leaves unjudged)
    plain = evaluate(digitalocean("64Gi", with_cluster=False), stack_config={"compute:platform": "kubernetes"})
    assert [note for note in plain.notes if "DigitalOcean" in note.finding] == []


def test_fit_and_capacity_on_a_cluster_the_stack_does_not_declare_are_notes_never_silent():
    """Issue 45 (SPEC 14.2): a node group of a cluster of another stack may share it with groups this stack does not
    show: a Pod too big for its nodes, and more Pods than its maxSize holds, were said nowhere; now a note each,
    with the arithmetic, never a violation. Declared, the same stack is refused."""
    group = node_group("general", ["t3.medium"], max_size=1, declare_cluster=False)
    too_big = workload("Deployment", "too-big", node_selector=AMD64, requests={"memory": "3555Mi"})
    many = workload("Deployment", "many", node_selector=AMD64, requests={"memory": "2Gi"}, spec={"replicas": 3})
    result = run(group, too_big, many, platform="aws")
    assert result.mandatory == []
    notes = {note.policy: note.finding.split("during preview: ", 1)[1] for note in result.notes}
    assert notes[FITS].startswith("Deployment 'too-big': one Pod requests 3555 MiB of memory, more than any node of "
                                  "the pools that can take it: pool 'general' (NodeGroup) has at most 4 GiB capacity")
    assert notes[FITS].endswith("; but cluster 'fleet' may have pools this stack does not declare, so this is not "
                                "judged")
    assert notes["pool-capacity"].startswith("NodeGroup 'general': at its maxSize of 1 node (machine t3.medium)")
    assert notes["pool-capacity"].endswith("; but cluster 'fleet' may have pools this stack does not declare, where "
                                           "Deployment 'many' may run instead, so this is not judged")
    declared = run(node_group("general", ["t3.medium"], max_size=1), too_big, many, platform="aws")
    assert sorted(v.policy for v in declared.mandatory) == ["pool-capacity", FITS]


def test_a_rollout_on_a_cluster_the_stack_does_not_declare_is_a_note_never_silent():
    """Issue 45 (SPEC 14.2): a rollout that cannot finish on a node group of a cluster of another stack (2 replicas
    that repel each other, maxUnavailable 0, maxSize 2) was said nowhere; now a note, declared a violation."""
    repel = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    web = workload("Deployment", "web", node_selector=AMD64, affinity=repel, requests={"memory": "256Mi"},
                   spec={"replicas": 2, "strategy": {"rollingUpdate": {"maxUnavailable": 0}}})
    result = run(node_group("general", ["t3.medium"], max_size=2, declare_cluster=False), web, platform="aws")
    assert result.mandatory == []
    (note,) = [n.finding.split("during preview: ", 1)[1] for n in result.notes if n.policy == "workload-rollout-fits"]
    assert note.startswith("Deployment 'web': it rolls out 2 replicas with ") and note.endswith(
        "and NodeGroup 'general' has at most 2 nodes (maxSize): the new Pod never schedules and the rollout never "
        "finishes: allow maxUnavailable: 1, or raise scalingConfig.maxSize to at least 3; but cluster 'fleet' may have "
        "pools this stack does not declare, so this is not judged")
    declared = run(node_group("general", ["t3.medium"], max_size=2), web, platform="aws")
    assert [v.finding for v in declared.mandatory if v.policy == "workload-rollout-fits"] == [
        note.split("; but cluster")[0]]


def test_an_ordinary_pod_is_sent_to_a_general_purpose_machine_never_a_specialised_one():
    """Issue 45: a Pod too big for Standard_B2s was sent to a confidential-computing size (Standard_DC1ds_v3): the
    suggestion prefers the pool's family, then the platform's general-purpose families."""
    from compute_guard.policies.platforms.catalog import general_purpose

    assert not general_purpose("azure", "Standard_DC1ds_v3") and general_purpose("azure", "Standard_F1amds_v7")
    result = run(aks_node_pool("small", "Standard_B2s"),
                 workload("Deployment", "api", node_selector=AMD64, requests={"memory": "4Gi"}), platform="azure")
    (finding,) = result.findings(FITS)
    suggested = finding.split("whose node holds one Pod: ", 1)[1].split(",")[0]
    assert general_purpose("azure", suggested) and not suggested.startswith(("Standard_DC", "Standard_EC")), finding
    assert (general_purpose("aws", "m7i.large"), general_purpose("aws", "p4d.24xlarge")) == (True, False)
    assert (general_purpose("gcp", "e2-standard-2"), general_purpose("gcp", "a2-highgpu-1g")) == (True, False)


def test_aks_zones_read_as_aks_names_them_with_the_clusters_region_for_every_source():
    """Issue 45: azure-native zones read '1', '2' where classic ones read 'eastus-1': the region is the cluster's
    location, else its resource group's (a resource of the stack), for inline and separate pools alike."""
    from compute_guard.testkit import evaluate

    def program():
        from pulumi_azure_native import containerservice, resources

        group = resources.ResourceGroup("rg", location="eastus")
        cluster = containerservice.ManagedCluster("aks", resource_group_name=group.name, dns_prefix="aks",
                                                  agent_pool_profiles=[{
                                                      "name": "system", "mode": "System", "vm_size": "Standard_D4s_v5",
                                                      "count": 2, "availability_zones": ["1", "2"]}])
        containerservice.AgentPool("user", agent_pool_name="user", resource_group_name=group.name,
                                   resource_name_=cluster.name, vm_size="Standard_D4s_v5", count=3,
                                   availability_zones=["1", "2", "3"])

    def judged(pool, zone):
        api = workload("Deployment", "api", requests={"cpu": "10m"}, pod={
            "nodeSelector": {"topology.kubernetes.io/zone": zone, "kubernetes.azure.com/agentpool": pool}})

        def both():
            program()
            api()
        return evaluate(both, stack_config={"compute:platform": "azure"}).findings(SCHEDULABLE)

    assert judged("system", "eastus-2") == [] and judged("user", "eastus-3") == []  # inline and separate pools
    for pool, zone in (("system", "eastus-3"), ("system", "1"), ("user", "3")):
        (finding,) = judged(pool, zone)
        assert f"does not have label topology.kubernetes.io/zone={zone}" in finding, finding
