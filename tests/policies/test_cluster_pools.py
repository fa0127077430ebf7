"""A cluster's own pools (SPEC 14.1), which cluster a workload runs on (14.2) and every platform pool's node (14.3),
in process: the twins of tests/engine/test_platform_pools.py's scenarios (so that mutation testing sees them), and
each source's fields case by case, through the providers' own Python SDKs."""

import base64

import pytest
from builders import (
    AMD64,
    ARM64,
    auto_mode_cluster,
    besides_no_pool,
    classic_aks_cluster,
    cluster_resource,
    deployment,
    gke_cluster,
    kubernetes_provider,
    managed_cluster,
    node_group,
    run,
    self_managed_group,
    workload,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from compute_guard.policies.model.sources import pools_of
from compute_guard.policies.model.sources.common import API_EFFECTS, KUBERNETES_EFFECTS, object_taint
from compute_guard.policies.model.sources.eks_self_managed import kubelet_flags, labels_and_taints
from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment

# what a filler Pod requests where a test counts Pods, not their CPU or memory (workload-requests-declared names a Pod
# that requests neither); hundreds of them fit a node's CPU and memory
TINY = {"cpu": "1m", "memory": "1Mi"}
FITS, SCHEDULABLE, CAPACITY, ARCH = "workload-fits-pool", "workload-schedulable", "pool-capacity", \
    "workload-node-architecture"


def verdicts(result):
    return sorted((v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations)


def notes(result, policy=SCHEDULABLE):
    return [note.finding for note in result.notes if note.policy == policy]


# --- the engine scenarios' twins -----------------------------------------------------------------------------

def test_gke_default_pool_n1_standard_1_holds_2780_mib_and_330_pods():
    def canary(memory, replicas=1):
        return deployment("canary", requests={"memory": memory}, spec={"replicas": replicas})

    assert run(gke_cluster("gke"), canary("2780Mi"), platform="gcp").violations == []
    (message,) = run(gke_cluster("gke"), canary("2781Mi"), platform="gcp").findings(FITS)
    assert message.startswith(
        "Deployment 'canary': one Pod requests 2781 MiB of memory, more than any node of the pools that can take "
        "it: pool 'default-pool' of GKE cluster 'gke' has at most 3840 MiB capacity - 960 MiB kube-reserved - 100 MiB "
        "eviction threshold = 2780 MiB allocatable of memory (n1-standard-1)")
    assert run(gke_cluster("gke"), canary("1Mi", 330), platform="gcp").violations == []
    (capacity,) = run(gke_cluster("gke"), canary("1Mi", 331), platform="gcp").findings(CAPACITY)
    assert capacity.startswith("GKE cluster 'gke' pool 'default-pool': at its maxSize of 3 nodes (machine "
                               "n1-standard-1) it has room for 3 x 110 = 330 Pods")


def test_gke_arm_taint_and_the_toleration_gke_grants():
    arm = gke_cluster("gke", "t2a-standard-2")
    (message,) = run(arm, deployment("api"), platform="gcp").findings(SCHEDULABLE)
    assert "has taint kubernetes.io/arch=arm64:NoSchedule that it does not tolerate" in message
    assert run(arm, deployment("api", requests=TINY, node_selector=ARM64), platform="gcp").violations == []
    in_affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]}]}}}
    assert run(arm, deployment("api", requests=TINY, affinity=in_affinity), platform="gcp").violations == []
    # an amd64 pool has no Arm taint; an Arm pool with architectureTaintBehavior NONE has none either
    assert run(gke_cluster("gke", "e2-standard-2"), deployment("api", requests=TINY), platform="gcp").violations == []


def test_aks_managed_cluster_standard_ds2_v2_holds_5276_mib_and_runs_amd64():
    assert run(managed_cluster("aks"), deployment("api", requests={"memory": "5276Mi"}), platform="azure").violations \
        == []
    assert verdicts(run(managed_cluster("aks"), deployment("api", requests={"memory": "5277Mi"}), platform="azure")) \
        == [(FITS, "api")]
    (message,) = run(managed_cluster("aks"), deployment("api", node_selector=ARM64), platform="azure").findings(
        SCHEDULABLE)
    assert "pool 'agentpool' of AKS cluster 'aks' runs amd64 nodes, not arm64" in message


def test_eks_self_managed_t3_medium_holds_3554_mib_and_17_pods_a_node():
    assert run(self_managed_group("nodes"), deployment("api", requests={"memory": "3554Mi"}),
               platform="aws").violations == []
    assert verdicts(run(self_managed_group("nodes"), deployment("api", requests={"memory": "3555Mi"}),
                        platform="aws")) == [(FITS, "api")]
    assert run(self_managed_group("nodes"), deployment("api", requests=TINY, spec={"replicas": 34}),
               platform="aws").violations == []
    (message,) = run(self_managed_group("nodes"), deployment("api", requests=TINY, spec={"replicas": 35}),
                     platform="aws").findings(
        CAPACITY)
    assert message == ("autoscaling Group 'nodes-5a15793': at its maxSize of 2 nodes (machine t3.medium) it has room for "
                       "2 x 17 "
                       "= 34 Pods; the workloads only it can take run 35 (largest: Deployment 'api' 35), 35 in all, "
                       "more than it has: raise maxSize to at least 3, use larger machines or move workloads to "
                       "another pool")


def test_eks_auto_mode_general_purpose_runs_amd64_only():
    """(Two replicas: Auto Mode replaces its nodes on a schedule, which one replica does not survive:
    workload-interruption-tolerant, tests/policies/test_workload_interruption_tolerant.py.)"""
    two = {"replicas": 2}
    assert run(auto_mode_cluster("auto"), deployment("api", requests=TINY, node_selector=AMD64, spec=two),
               platform="aws").violations == []
    (message,) = run(auto_mode_cluster("auto"), deployment("api", node_selector=ARM64), platform="aws").findings(
        SCHEDULABLE)
    assert message == (
        "Deployment 'api': no pool can run its Pods: pool 'general-purpose' of EKS cluster 'auto' runs amd64 nodes, not "
        "arm64 (its nodeSelector's kubernetes.io/arch); pool 'system' of EKS cluster 'auto' has taint "
        "CriticalAddonsOnly:NoSchedule that it does not tolerate. They would stay Pending: change its nodeSelector, "
        "node affinity or tolerations to match a pool, or declare a pool that takes them")
    system_only = auto_mode_cluster("auto", ["system"])
    tolerates = {"tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}]}
    assert run(system_only, deployment("api", requests=TINY, node_selector=ARM64, pod=tolerates, spec=two),
               platform="aws").violations == []


def test_two_clusters_each_workload_on_its_own_clusters_pools():
    east = kubernetes_provider("east", classic_aks_cluster("aksCluster-east", "Standard_D2s_v5", location="eastus"))
    west = kubernetes_provider("west", classic_aks_cluster("aksCluster-west", "Standard_D8s_v5", location="westus"))

    def big(provider=None):
        return deployment("big", requests={"memory": "16Gi"}, provider=provider)

    (message,) = run(east, west, big("east"), platform="azure").findings(FITS)
    assert "pool 'aksagentpool' of AKS cluster 'aksCluster-east' has at most" in message
    assert "aksCluster-west" not in message
    assert run(east, west, big("west"), platform="azure").violations == []
    assert run(east, west, big(), platform="azure").violations == []  # the default provider: either cluster


def test_a_workload_on_a_cluster_of_the_stack_is_not_placed_on_its_computecluster():
    """SPEC 14.2 in a stack that also declares a ComputeCluster: a workload with no compute.alien.dev label whose
    provider targets an AKS cluster of the stack runs there, judged on that cluster's pools; it was resolved to the
    ComputeCluster's 'general' pool too, and refused by workload-pool-placement when it had none (a false
    violation). On the default provider the pack cannot tell, and the ComputeCluster's rule stands."""
    from builders import apps_pool, cluster, seed_cluster_args

    compute = cluster(seed_cluster_args(capacity_groups=[apps_pool(), apps_pool(group_id="batch")]))
    aks = kubernetes_provider("aks", managed_cluster("aks"))

    def web(memory, provider=None):
        return deployment("web", requests={"memory": memory}, provider=provider, node_selector=AMD64)

    assert run(compute, aks, web("1Gi", "aks"), platform="azure").violations == []
    (message,) = run(compute, aks, web("8Gi", "aks"), platform="azure").findings(FITS)
    assert "pool 'agentpool' of AKS cluster 'aks' has at most 7 GiB capacity" in message
    assert verdicts(run(compute, aks, web("1Gi"), platform="azure")) == [("workload-pool-placement", "web")]


def test_a_computecluster_of_many_pools_lists_ten_in_a_message_and_how_many_more():
    """A message that lists a cluster's pools stays short however many it has (the growth benchmark's 2,500 pools
    made each unplaced workload's message list all of them: the stack's cost grew with workloads x pools)."""
    from builders import apps_pool, cluster, seed_cluster_args

    groups = [apps_pool(group_id=f"pool-{index:02}") for index in range(12)]
    compute = cluster(seed_cluster_args(capacity_groups=groups, dynamic_container_pool="pool-00"))
    (message,) = run(compute, deployment("web")).findings("workload-pool-placement")
    listed = ", ".join(f"'pool-{index:02}'" for index in range(10))
    assert message == (f"Deployment 'web': references missing or ambiguous pool 'general' in ComputeCluster 'compute' "
                       f"(its pools: {listed} and 2 more); set the label 'compute.alien.dev/pool' to one of them")


# --- a cluster the stack does not declare (SPEC 14.2) ---------------------------------------------------------

def test_a_pool_of_a_cluster_the_stack_does_not_declare_gives_a_note_never_a_violation():
    """An AKS AgentPool with a taint, whose cluster (and its system pool) another stack declares: a clean Deployment
    is not refused (the system pool takes it); the note names the pools seen."""
    from builders import aks_node_pool

    tainted = aks_node_pool("userpool", "Standard_D4s_v5", taints=["sku=gpu:NoSchedule"], native=True,
                            cluster="prod", declare_cluster=False)
    result = run(tainted, deployment("api"), platform="azure")
    assert result.violations == []
    (note,) = notes(result)
    assert note.endswith("Deployment 'api': no pool this stack declares can run its Pods (pool 'userpool' (AgentPool) "
                         "has taint sku=gpu:NoSchedule that it does not tolerate), but cluster 'prod' may have pools "
                         "this stack does not declare, so this is not judged")
    declared = run(tainted, cluster_resource("azure", "prod"), deployment("api"), platform="azure")
    assert verdicts(declared) == [(SCHEDULABLE, "api")]


def test_a_cluster_the_stack_declares_with_no_pool_and_an_autopilot_cluster_are_said_once():
    empty = run(cluster_resource("aws", "fleet"), deployment("api"), platform="aws")
    assert empty.violations == []  # no pool at all: nothing is judged by the scheduler's rules, and that is said
    assert any("the stack declares no pool of 'fleet'" in note for note in notes(empty))
    autopilot = run(gke_cluster("auto", autopilot=True), deployment("api", requests={"memory": "64Gi"}),
                    platform="gcp")
    assert autopilot.violations == []
    assert any("GKE cluster 'auto' is an Autopilot cluster: Google provisions nodes for each Pod, so no pool is known"
               in note for note in notes(autopilot))


def test_node_auto_provisioning_adds_pools_the_stack_does_not_show_so_nothing_is_refused_on_them_and_that_is_said():
    """GKE with clusterAutoscaling.enabled, AKS with nodeProvisioningProfile.mode Auto: the platform creates a pool
    (of a larger machine, with GPUs, on Spot) for a Pod its declared pools cannot take. A Pod of 64 GiB beside a
    pool of n1-standard-1 was refused (workload-fits-pool), a false violation; now, on GKE, the cluster's note says
    why it is not judged, and on AKS it is judged on the default NodePools AKS creates, where a D-family size holds it.
    Without auto-provisioning it is refused as before."""
    import pulumi_azure_native as azure_native
    import pulumi_gcp as gcp
    from builders import gke_node_pool

    big = deployment("api", requests={"memory": "64Gi"})

    def gke(enabled: bool) -> object:
        return gcp.container.Cluster("fleet", name="fleet", location="europe-west1-b", remove_default_node_pool=True,
                                     initial_node_count=1, cluster_autoscaling=gcp.container.ClusterClusterAutoscalingArgs(
                                         enabled=enabled))

    pool = gke_node_pool("small", "n1-standard-1", declare_cluster=False)
    for platform, cluster, fixed in (
            ("gcp", lambda: gke(True), lambda: gke(False)),
            ("azure", cluster_resource("azure", "fleet", node_provisioning_profile=azure_native.containerservice.
                                       ManagedClusterNodeProvisioningProfileArgs(mode="Auto")),
             cluster_resource("azure", "fleet", node_provisioning_profile=azure_native.containerservice.
                              ManagedClusterNodeProvisioningProfileArgs(mode="Manual")))):
        from builders import aks_node_pool

        declared = pool if platform == "gcp" else aks_node_pool("small", "Standard_B2s", native=True,
                                                                 declare_cluster=False)
        result = run(cluster, declared, big, platform=platform)
        assert result.violations == [], platform
        if platform == "gcp":  # (issue 75: said of the workload it leaves unjudged, why included)
            assert any("Deployment 'api': one Pod requests 64 GiB of memory" in note and "but GKE cluster 'fleet' has "
                       "node auto-provisioning" in note for note in notes(result, FITS)), notes(result, FITS)
            assert notes(result) == []  # no note on the whole cluster
        else:  # AKS's default NodePools are read (test_self_provisioning_clusters): the Pod fits a D-family size
            assert notes(result) == [], notes(result)
        assert verdicts(run(fixed, declared, big, platform=platform)) == [(FITS, "api")], platform


# --- every platform pool's node (SPEC 14.3) -------------------------------------------------------------------

def test_a_daemonset_takes_its_room_on_a_node_groups_nodes():
    """t4g.medium: 3554 MiB allocatable; a DaemonSet of 1 GiB leaves 2530 MiB."""
    group = node_group("general", ["t4g.medium"], ami_type="AL2023_ARM_64_STANDARD")
    daemon = workload("DaemonSet", "logs", requests={"memory": "1Gi"})
    assert run(group, daemon, deployment("api", node_selector=ARM64, requests={"memory": "2530Mi"}),
               platform="aws").violations == []
    (message,) = run(group, daemon, deployment("api", node_selector=ARM64, requests={"memory": "2531Mi"}),
                     platform="aws").findings(FITS)
    assert "3554 MiB allocatable, - 1 GiB for DaemonSets ('logs' 1 GiB) of memory (t4g.medium)" in message


def test_the_allocatable_setting_applies_to_a_node_group_by_platform_and_by_name():
    group = node_group("general", ["t4g.medium"], ami_type="AL2023_ARM_64_STANDARD")
    api = deployment("api", node_selector=ARM64, requests={"memory": "3700Mi"})
    assert verdicts(run(group, api, platform="aws")) == [(FITS, "api")]
    lighter = {"kubeReserved": {"memory": "200Mi"}}
    for setting in ({"aws": lighter}, {"pools": {"general": lighter}}, {"pools": {"fleet/general": lighter}}):
        config = {FITS: {"allocatable": setting}}
        assert run(group, api, platform="aws", policy_config=config).findings(FITS) == [], setting
    other = {FITS: {"allocatable": {"pools": {"other/general": lighter}}}}
    assert verdicts(run(group, api, platform="aws", policy_config=other)) == [(FITS, "api")]


def test_a_pod_that_fits_no_node_is_left_out_of_a_platform_pools_capacity():
    group = node_group("general", ["t3.medium"], max_size=2)
    huge = deployment("huge", requests={"memory": "8Gi"}, spec={"replicas": 40})
    small = deployment("small", requests=TINY, spec={"replicas": 10})
    result = run(group, huge, small, platform="aws")
    assert verdicts(result) == [(FITS, "huge")]  # 40 Pods that can never run: not 50 Pods against 34 slots


def test_a_machine_whose_memory_the_catalog_lacks_is_a_note():
    group = node_group("general", ["g7.2xlarge"])
    result = run(group, deployment("api", node_selector=AMD64, requests={"memory": "512Gi"}), platform="aws")
    assert result.of(FITS) == []
    assert any("the machine catalog has no memory for g7.2xlarge" in note for note in notes(result, FITS))


# --- the sources, field by field ------------------------------------------------------------------------------

def test_kubelet_flags_are_read_from_the_bootstrap_script_and_from_nodeadm():
    script = ("#!/bin/bash\n/etc/eks/bootstrap.sh fleet --kubelet-extra-args '--node-labels=tier=web,team=a "
              "--register-with-taints=dedicated=web:NoSchedule,spot:PreferNoSchedule'")
    flags = kubelet_flags(script)
    assert labels_and_taints(flags) == ({"tier": "web", "team": "a"}, (
        labels_and_taints(["--register-with-taints=dedicated=web:NoSchedule"])[1][0],
        labels_and_taints(["--register-with-taints=spot:PreferNoSchedule"])[1][0]))
    nodeadm = ("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n--BOUNDARY\n"
               "Content-Type: application/node.eks.aws\n\n---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
               "spec:\n  kubelet:\n    flags:\n    - --node-labels=tier=batch\n\n--BOUNDARY--\n")
    assert labels_and_taints(kubelet_flags(base64.b64encode(nodeadm.encode()).decode())) == ({"tier": "batch"}, ())
    # a MIME part whose document has no '---' of its own: its headers end at the blank line, the NodeConfig follows
    bare = nodeadm.replace("\n\n---\napiVersion", "\n\napiVersion")
    assert labels_and_taints(kubelet_flags(bare)) == ({"tier": "batch"}, ())
    assert kubelet_flags("#!/bin/bash\necho hello") is None
    assert labels_and_taints(["--register-with-taints=broken"]) is None


def test_a_taint_object_is_read_only_when_its_key_value_and_effect_are_text_and_its_effect_is_the_platforms():
    """Kubernetes' Taint has string key, value and effect (core/v1 Taint); a number where the value goes is refused
    by the API server, so the pool's taints cannot be read (a note), never a taint the pack made up."""
    assert object_taint({"key": "gpu", "value": "a100", "effect": "NoSchedule"}, KUBERNETES_EFFECTS).text == \
        "gpu=a100:NoSchedule"
    assert object_taint({"key": "gpu", "effect": "NO_EXECUTE"}, API_EFFECTS).text == "gpu:NoExecute"
    assert object_taint({"key": "gpu", "value": 1, "effect": "NoSchedule"}, KUBERNETES_EFFECTS) is None
    assert object_taint({"key": 7, "value": "a", "effect": "NoSchedule"}, KUBERNETES_EFFECTS) is None
    assert object_taint({"key": "gpu", "value": "a", "effect": None}, KUBERNETES_EFFECTS) is None
    assert object_taint({"key": "gpu", "value": "a", "effect": "NO_SCHEDULE"}, KUBERNETES_EFFECTS) is None
    assert object_taint(["gpu", "a", "NoSchedule"], KUBERNETES_EFFECTS) is None


def test_self_managed_labels_and_taints_decide_where_pods_land():
    script = ("#!/bin/bash\n/etc/eks/bootstrap.sh fleet --kubelet-extra-args '--node-labels=tier=web "
              "--register-with-taints=dedicated=web:NoSchedule'")
    group = self_managed_group("nodes", user_data=script)
    (message,) = run(group, deployment("api"), platform="aws").findings(SCHEDULABLE)
    assert "pool 'nodes-5a15793' (autoscaling Group) has taint dedicated=web:NoSchedule that it does not tolerate" in message
    tolerates = {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}]}
    assert run(group, deployment("api", requests=TINY, node_selector={"tier": "web"}, pod=tolerates),
               platform="aws").violations == []


def test_self_managed_mixed_instances_overrides_are_its_machines():
    group = self_managed_group("nodes", overrides=["m7i.large", "m7i.xlarge"])
    assert run(group, deployment("api", requests={"memory": "10Gi"}), platform="aws").violations == []
    assert verdicts(run(group, deployment("api", requests={"memory": "16Gi"}), platform="aws")) == [(FITS, "api")]


def test_an_autoscaling_group_of_no_cluster_is_no_pool():
    import pulumi_aws as aws

    def web():
        template = aws.ec2.LaunchTemplate("web", image_id="ami-1", instance_type="t3.micro")
        aws.autoscaling.Group("web", min_size=1, max_size=2,
                              launch_template=aws.autoscaling.GroupLaunchTemplateArgs(id=template.id))

    result = run(web, deployment("api", requests={"memory": "8Gi"}), platform="aws")
    assert result.violations == [] and besides_no_pool(result.notes) == []


def test_a_cloudformation_node_group_of_pulumi_eks_v1():
    def v1():
        import pulumi
        import pulumi_aws as aws

        configuration = aws.ec2.LaunchConfiguration("ng-nodeLaunchConfiguration", image_id="ami-1",
                                                    instance_type="t3.medium")
        body = configuration.id.apply(lambda ident: (
            "Resources:\n  NodeGroup:\n    Type: AWS::AutoScaling::AutoScalingGroup\n    Properties:\n"
            f"      LaunchConfigurationName: {ident}\n      MinSize: 1\n      MaxSize: 2\n"))
        aws.cloudformation.Stack("ng-nodes", template_body=body, opts=pulumi.ResourceOptions(depends_on=[configuration]))

    assert verdicts(run(v1, deployment("api", requests={"memory": "3555Mi"}), platform="aws")) == [(FITS, "api")]
    assert verdicts(run(v1, deployment("api", requests=TINY, spec={"replicas": 35}),
                        platform="aws")) == [(CAPACITY, "ng-nodes")]


def test_a_windows_pool_and_only_critical_addons():
    windows = managed_cluster("aks", [{"name": "win", "vm_size": "Standard_D4s_v5", "count": 2, "os_type": "Windows",
                                       "mode": "User"}])
    linux_pod = deployment("api", node_selector={"kubernetes.io/os": "linux"})
    assert verdicts(run(windows, linux_pod, platform="azure")) == [(SCHEDULABLE, "api")]
    critical = classic_aks_cluster("aks", "Standard_D2s_v5", critical_only=True)
    (message,) = run(critical, deployment("api"), platform="azure").findings(SCHEDULABLE)
    assert "has taint CriticalAddonsOnly=true:NoSchedule that it does not tolerate" in message


def test_gke_pools_zones_sizes_and_a_removed_default_pool():
    removed = gke_cluster("gke", remove_default=True)
    assert run(removed, deployment("api", requests={"memory": "64Gi"}), platform="gcp").violations == []
    inline = gke_cluster("gke", node_pools=[{"name": "big", "node_count": 1, "node_config": {
        "machine_type": "n2-standard-8"}}])
    # its one node holds one 20 GiB Pod: a rolling update's second Pod never fits beside it (workload-rollout-fits)
    assert verdicts(run(inline, deployment("api", requests={"memory": "20Gi"}), platform="gcp")) == [
        ("workload-rollout-fits", "api")]
    two_zones = gke_cluster("gke", initial_node_count=2, node_locations=["europe-west1-b", "europe-west1-c"])
    assert run(two_zones, deployment("api", requests=TINY, spec={"replicas": 440}), platform="gcp").violations == []
    assert verdicts(run(two_zones, deployment("api", requests=TINY, spec={"replicas": 441}),
                        platform="gcp")) == [(CAPACITY, "gke")]
    # a region, no nodeLocations: GKE runs the pool in three of its zones (3 x 3 nodes x 110 Pods = 990 Pods), which
    # it picks (issue 57: before, "zones not known", and no capacity was judged)
    regional = gke_cluster("gke", location="europe-west1")
    assert run(regional, deployment("api", requests=TINY, spec={"replicas": 990}),
               platform="gcp").findings(CAPACITY) == []
    (message,) = run(regional, deployment("api", requests=TINY, spec={"replicas": 991}), platform="gcp").findings(
        CAPACITY)
    assert message.startswith("GKE cluster 'gke' pool 'default-pool': at its maxSize of 9 nodes (initialNodeCount 3 "
                              "x 3 zones) (machine n1-standard-1) it has room for 9 x 110 = 990 Pods"), message
    assert message.endswith("raise initialNodeCount to at least 4 (4 x 3 zones = 12 nodes), use larger machines or "
                            "move workloads to another pool"), message


def test_gke_sandbox_pools_take_only_gvisor_pods():
    sandbox = gke_cluster("gke", remove_default=True, node_pools=[{"name": "gvisor", "node_count": 1, "node_config": {
        "machine_type": "e2-standard-4", "sandbox_config": {"sandbox_type": "gvisor"}}}])
    (message,) = run(sandbox, deployment("api"), platform="gcp").findings(SCHEDULABLE)
    assert "has taint sandbox.gke.io/runtime=gvisor:NoSchedule that it does not tolerate" in message
    gvisor = {"runtimeClassName": "gvisor"}
    assert run(sandbox, deployment("api", requests=TINY, node_selector={"sandbox.gke.io/runtime": "gvisor"}, pod=gvisor),
               platform="gcp").violations == []


def test_an_auto_mode_compute_config_not_known_yet_makes_its_pools_not_known():
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        cluster = Resource.of("aws:eks/cluster:Cluster", "auto", {"name": "auto", "computeConfig": {
            "enabled": UNKNOWN_STRING_VALUE}})
        api = Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {"template": {
            "spec": {"nodeSelector": ARM64, "containers": [{"name": "a", "image": "i"}]}}}})
        result = Analyzer().run([cluster, api])
    assert result.violations == []
    # (issue 75: the note names the workload it leaves unjudged)
    assert any("EKS cluster 'auto' has an Auto Mode computeConfig that is not known yet, so its built-in NodePools are "
               "not; the placement of Deployment 'api' on it is not judged" in note for note in notes(result))


@pytest.mark.parametrize("kind, props, expected", [
    ("azure-native:containerservice:ManagedCluster", {"agentPoolProfiles": [
        {"name": "a", "vmSize": "Standard_D2s_v5", "count": 2}, {"name": "b", "vmSize": "Standard_D4s_v5",
                                                                 "enableAutoScaling": True, "maxCount": 5}]},
     [("a", 2), ("b", 5)]),
    ("azure:containerservice/kubernetesCluster:KubernetesCluster", {"defaultNodePool": {
        "name": "d", "vmSize": "Standard_D2_v2", "nodeCount": 2}}, [("d", 2)]),
    ("gcp:container/cluster:Cluster", {"location": "europe-west1-b", "initialNodeCount": 3}, [("default-pool", 3)]),
    # a region: three zones GKE picks (sources/gke.py REGIONAL_ZONES)
    ("gcp:container/cluster:Cluster", {"location": "europe-west1", "initialNodeCount": 3}, [("default-pool", 9)]),
    ("gcp:container/cluster:Cluster", {"removeDefaultNodePool": True}, []),
    ("aws:eks/cluster:Cluster", {"computeConfig": {"enabled": True, "nodePools": ["system"]}}, [("system", None)]),
    ("aws:eks/cluster:Cluster", {"computeConfig": {"enabled": False, "nodePools": ["system"]}}, []),
])
def test_each_cluster_resource_declares_its_inline_pools(kind, props, expected):
    pools = pools_of(kind, props, "urn:pulumi:s::p::t::c", "c") or []
    assert [(pool.name, pool.max_size) for pool in pools] == expected
