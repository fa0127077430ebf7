"""Pools as the platforms declare them (SPEC 14), through the engine's door: the engine-started pack judges Karpenter
NodePools and EKS node groups (pulumi-aws) at both sides of each boundary, as tests/policies/ judge them in process
(test_workload_schedulable.py, test_workload_fits_pool.py, test_pool_capacity.py, test_cloud_machine_catalog.py).
The numbers are SPEC 11's EKS reservations: t4g.medium 4096 - (11 x 17 + 255) - 100 = 3554 MiB; m7i.large
8192 - (11 x 29 + 255) - 100 = 7518 MiB."""

from builders import (
    AMD64,
    ARM64,
    DECLARED,
    arch_requirement,
    deployment,
    dra_parts,
    exact_request,
    instance_types,
    node_class,
    node_group,
    nodepool,
    workload,
)
from test_engine_protocol import engine_run

TAINT = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
TOLERATES = {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]}


def verdicts(result):
    return sorted((v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations)


def test_karpenter_taints_labels_and_fit_at_both_sides():
    batch = nodepool("batch", [instance_types("t4g.medium")], taints=TAINT)

    def api(memory, pod=None):
        return workload("Deployment", "api", node_selector=ARM64, requests={"memory": memory}, pod=pod)

    assert engine_run([node_class(), batch, api("3554Mi", TOLERATES)], "aws").violations == []
    assert verdicts(engine_run([node_class(), batch, api("3555Mi", TOLERATES)], "aws")) == [
        ("workload-fits-pool", "api")]
    refused = engine_run([node_class(), batch, api("1Gi")], "aws")
    assert verdicts(refused) == [("workload-schedulable", "api")]
    assert "pool 'batch' (NodePool) has taint dedicated=batch:NoSchedule that it does not tolerate" in \
        refused.violations[0].finding


def test_karpenter_limits_and_requirements_at_both_sides():
    capped = nodepool("capped", [arch_requirement("amd64")], limits={"cpu": "4"})

    def api(replicas):
        return workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "2"}, spec={"replicas": replicas})

    assert engine_run([node_class(), capped, api(2)], "aws").violations == []
    assert verdicts(engine_run([node_class(), capped, api(3)], "aws")) == [("pool-capacity", "capped")]
    none = nodepool("none", [instance_types("m7g.large"), arch_requirement("amd64")])
    assert verdicts(engine_run([node_class(), none], "aws")) == [("cloud-machine-catalog", "none")]


def test_eks_node_groups_at_both_sides():
    general = node_group("general", ["m7i.large"], labels={"tier": "general"})
    assert engine_run([general, deployment("api", node_selector={"tier": "general", **AMD64},
                                           requests={"memory": "7518Mi"})], "aws").violations == []
    assert verdicts(engine_run([general, deployment("api", node_selector=AMD64, requests={"memory": "7519Mi"})],
                               "aws")) == [("workload-fits-pool", "api")]
    assert verdicts(engine_run([general, deployment("api", node_selector={"tier": "batch"})], "aws")) == [
        ("workload-schedulable", "api")]
    mixed = node_group("mixed", ["m7g.large", "m7i.large"], ami_type="AL2023_ARM_64_STANDARD")
    assert verdicts(engine_run([mixed], "aws")) == [("cloud-machine-catalog", "mixed")]


def test_gpus_claimed_through_dra_at_both_sides():
    """issue 78 through the engine's door (tests/policies/test_workload_fits_pool.py's twins): a ResourceClaimTemplate
    of one gpu.nvidia.com device fits a g5.xlarge (one A10G), of two never does."""
    one = engine_run(dra_parts("g5.xlarge", [exact_request(count=1)]), "aws")
    assert verdicts(one) == [("helm-release-unchecked", "nvidia-dra-driver")] and one.notes == []
    assert verdicts(engine_run(dra_parts("g5.xlarge", [exact_request(count=2)]), "aws")) == [
        ("helm-release-unchecked", "nvidia-dra-driver"), ("workload-fits-pool", "train")]
    # CEL selectors, by cel-python in the engine-started pack: a gpu.nvidia.com request for MIG instances never fits;
    # one for what every GPU device is fits (test_selectors_decided_over_what_every_device_of_the_class_publishes)
    for kind, refused in (("mig", [("workload-fits-pool", "train")]), ("gpu", [])):
        selectors = [{"cel": {"expression": f"device.attributes['gpu.nvidia.com'].type == '{kind}'"}}]
        run = engine_run(dra_parts("g5.xlarge", [exact_request(selectors=selectors)]), "aws")
        assert verdicts(run) == [("helm-release-unchecked", "nvidia-dra-driver"), *refused] and run.notes == [], kind


def test_pods_that_share_a_gpu_claim_on_one_node_at_both_sides():
    """A shared ResourceClaim puts every Pod that names it on its node: four Pods of 980m hold a g5.xlarge's 3920m
    beside its GPU, four of 981m never do (test_the_pods_that_share_a_claim_run_together_on_its_node's twins)."""
    parts = dra_parts("g5.xlarge", [exact_request()], shared=True)
    shared = {"resourceClaims": [{"name": "gpus", "resourceClaimName": "gpus"}]}
    for cpu, refused in (("980m", []), ("981m", [("workload-fits-pool", "train")])):
        run = engine_run([parts[0], parts[1], deployment("train", spec={"replicas": 4}, requests={"cpu": cpu},
                                                         pod=shared)], "aws")
        assert verdicts(run) == [("helm-release-unchecked", "nvidia-dra-driver"), *refused] and run.notes == [], cpu


def test_a_daemonset_that_names_a_shared_gpu_claim_at_both_sides():
    """A DaemonSet's Pods, one per node, naming a claim allocated on one node: refused on a group of at least two
    nodes, clean on a group of one (test_a_daemonset_that_names_a_shared_claim_runs_on_one_node_only's twins)."""
    shared = {"resourceClaims": [{"name": "gpus", "resourceClaimName": "gpus"}]}
    claim = dra_parts("g5.xlarge", [exact_request()], shared=True)[1]
    for least, most, refused in ((2, 3, [("workload-fits-pool", "agent")]), (1, 1, [])):
        group = node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", min_size=least, max_size=most)
        run = engine_run([group, claim, workload("DaemonSet", "agent", requests={"cpu": "10m"}, pod=shared)], "aws")
        assert verdicts(run) == [("helm-release-unchecked", "nvidia-dra-driver"), *refused] and run.notes == [], least


def test_gke_and_aks_node_pools_at_both_sides():
    from builders import aks_node_pool, gke_node_pool

    def api(memory, **more):
        return deployment("api", node_selector=AMD64, requests={"memory": memory}, **more)

    assert engine_run([gke_node_pool("general"), api("2972Mi")], "gcp").violations == []
    assert verdicts(engine_run([gke_node_pool("general"), api("2973Mi")], "gcp")) == [("workload-fits-pool", "api")]
    tainted = aks_node_pool("apps", "Standard_D4s_v5", taints=["sku=gpu:NoSchedule"], native=True)
    tolerates = {"tolerations": [{"key": "sku", "operator": "Exists"}]}
    # its one node is full: a rolling update's second Pod never fits (workload-rollout-fits, issue 38)
    assert verdicts(engine_run([tainted, api("12188Mi", pod=tolerates)], "azure")) == [("workload-rollout-fits", "api")]
    assert verdicts(engine_run([tainted, api("1Gi")], "azure")) == [("workload-schedulable", "api")]


# --- A cluster's own pools (SPEC 14.1), each source at both sides of SPEC 11's numbers, through the engine's door ---

def test_gke_cluster_default_pool_of_n1_standard_1_at_both_sides():
    """gcp-py-gke's default pool: n1-standard-1 has 3.75 GB = 3840 MiB; GKE reserves 25% of it (960 MiB) and the
    100 MiB eviction threshold: 3840 - 960 - 100 = 2780 MiB allocatable. 3 nodes (initialNodeCount 3 in one zone)
    of 110 Pods each: 330 Pods."""
    from builders import gke_cluster

    def canary(memory, replicas=1):
        return deployment("canary", requests={"memory": memory}, spec={"replicas": replicas})

    assert engine_run([gke_cluster("gke"), canary("2780Mi")], "gcp").violations == []
    assert verdicts(engine_run([gke_cluster("gke"), canary("2781Mi")], "gcp")) == [("workload-fits-pool", "canary")]
    assert engine_run([gke_cluster("gke"), canary("1Mi", 330)], "gcp").violations == []
    assert verdicts(engine_run([gke_cluster("gke"), canary("1Mi", 331)], "gcp")) == [("pool-capacity", "gke")]


def test_gke_arm_pools_are_tainted_and_pods_that_select_arm64_tolerate_it():
    """GKE taints every Arm node kubernetes.io/arch=arm64:NoSchedule and adds the toleration to Pods that select
    arm64 (prepare-arm-workloads-for-deployment): an unpinned Pod cannot land on a cluster whose only pool is Arm."""
    from builders import gke_cluster

    arm = gke_cluster("gke", "t2a-standard-2")
    refused = engine_run([arm, deployment("api")], "gcp")
    assert verdicts(refused) == [("workload-schedulable", "api")]
    assert "pool 'default-pool' of GKE cluster 'gke' has taint kubernetes.io/arch=arm64:NoSchedule that it does " \
           "not tolerate" in refused.violations[0].finding
    assert engine_run([arm, deployment("api", node_selector=ARM64, requests=DECLARED)], "gcp").violations == []


def test_aks_managed_cluster_inline_pool_of_standard_ds2_v2_at_both_sides():
    """azure-py-aks's agentpool: Standard_DS2_v2 has 7 GiB = 7168 MiB; AKS reserves the lesser of 20 MB x 110 Pods +
    50 MB (2250 MB = 2145 MiB) and 25% (1792 MiB), and 100 MiB: 7168 - 1792 - 100 = 5276 MiB allocatable; it runs
    amd64, so an arm64 pin is refused."""
    from builders import managed_cluster

    assert engine_run([managed_cluster("aks"), deployment("api", requests={"memory": "5276Mi"})],
                      "azure").violations == []
    assert verdicts(engine_run([managed_cluster("aks"), deployment("api", requests={"memory": "5277Mi"})],
                               "azure")) == [("workload-fits-pool", "api")]
    assert verdicts(engine_run([managed_cluster("aks"), deployment("api", node_selector=ARM64)], "azure")) == [
        ("workload-schedulable", "api")]


def test_eks_self_managed_nodes_of_t3_medium_at_both_sides():
    """pulumi-eks's default node group: t3.medium, 4096 - (11 x 17 + 255) - 100 = 3554 MiB allocatable and 17 Pods
    a node (3 ENIs x (6 addresses - 1) + 2); maxSize 2: 34 Pods."""
    from builders import self_managed_group

    assert engine_run([self_managed_group("nodes"), deployment("api", requests={"memory": "3554Mi"})],
                      "aws").violations == []
    assert verdicts(engine_run([self_managed_group("nodes"), deployment("api", requests={"memory": "3555Mi"})],
                               "aws")) == [("workload-fits-pool", "api")]
    assert engine_run([self_managed_group("nodes"), deployment("api", spec={"replicas": 34}, requests=DECLARED)],
                      "aws").violations == []
    assert verdicts(engine_run([self_managed_group("nodes"), deployment("api", spec={"replicas": 35}, requests=DECLARED)],
                               "aws")) == [
        ("pool-capacity", "nodes")]


def test_eks_auto_mode_built_in_nodepools_take_amd64_only_outside_the_system_pool():
    """EKS Auto Mode's general-purpose NodePool runs amd64 only; its system NodePool is tainted CriticalAddonsOnly."""
    from builders import auto_mode_cluster

    # (two replicas: one would not survive Auto Mode's node lifetime, workload-interruption-tolerant's advisory)
    assert engine_run([auto_mode_cluster("auto"), deployment("api", node_selector=AMD64, requests=DECLARED,
                                                             spec={"replicas": 2})], "aws").violations == []
    assert verdicts(engine_run([auto_mode_cluster("auto"), deployment("api", node_selector=ARM64)], "aws")) == [
        ("workload-schedulable", "api")]


def test_compute_cluster_pools_and_platform_pools_in_one_stack():
    """A ComputeCluster's pools are placed by the compute.alien.dev labels (t4g.medium: 3554 MiB), the platform's by
    the scheduler's rules (m7g.large: 8192 - (11 x 29 + 255) - 100 = 7518 MiB): each workload is judged on its own
    (both arm64: the ComputeCluster's one architecture is every workload's, SPEC section 3, policy 7)."""
    from builders import CapacityGroup, ComputeClusterArgs, cluster, placed, role

    compute = cluster(ComputeClusterArgs(id="compute", capacity_groups=[CapacityGroup(
        group_id="apps", min_size=1, max_size=3, instance_type="t4g.medium")]))
    group = node_group("general", ["m7g.large"], labels={"tier": "general"}, ami_type="AL2023_ARM_64_STANDARD")
    labelled = deployment("labelled", labels=placed(), node_selector=ARM64, requests={"memory": "3554Mi"})
    # a worker (its placement labels ignored, seed K) lands by the scheduler's rules only, not on the sole pool
    scheduled = deployment("scheduled", labels=role("worker"), node_selector={"tier": "general", **ARM64},
                           requests={"memory": "7518Mi"})
    assert engine_run([compute, group, labelled, scheduled], "aws").violations == []
    too_big = deployment("labelled", labels=placed(), node_selector=ARM64, requests={"memory": "3555Mi"})
    assert verdicts(engine_run([compute, group, too_big, scheduled], "aws")) == [("workload-fits-pool", "labelled")]


def test_two_aks_clusters_each_workload_judged_on_its_own_clusters_pools():
    """Two clusters in one stack (classic-azure-py-aks-multicluster), each with a Kubernetes provider of its own: a
    Pod of 16 GiB fits Standard_D8s_v5 (west) and no node of Standard_D2s_v5 (east). On east's provider it is
    refused; on west's it is not; on the default provider every cluster is a candidate and it may run on west."""
    from builders import classic_aks_cluster, kubernetes_provider

    east = kubernetes_provider("east", classic_aks_cluster("aksCluster-east", "Standard_D2s_v5", location="eastus"))
    west = kubernetes_provider("west", classic_aks_cluster("aksCluster-west", "Standard_D8s_v5", location="westus"))

    def big(provider=None):
        return deployment("big", requests={"memory": "16Gi"}, provider=provider)

    refused = engine_run([east, west, big("east")], "azure")
    assert verdicts(refused) == [("workload-fits-pool", "big")]
    assert "pool 'aksagentpool' of AKS cluster 'aksCluster-east' has at most" in refused.violations[0].finding
    assert engine_run([east, west, big("west")], "azure").violations == []
    assert engine_run([east, west, big()], "azure").violations == []


def test_unread_platforms_a_digitalocean_cluster_is_a_note_through_the_engine():
    """The in-process twin: tests/policies/test_platform_pool_sources.py
    (test_unread_platforms_a_digitalocean_cluster_is_said_its_workloads_not_judged)."""
    from builders import digitalocean

    result = engine_run([digitalocean("64Gi")], "kubernetes")
    assert result.violations == []
    assert [note.finding.split("during preview: ", 1)[1].split(" is of a platform")[0] for note in result.notes
            if note.policy == "workload-schedulable"] == ["DigitalOcean cluster 'do'"]
    assert [n for n in engine_run([digitalocean("64Gi", with_cluster=False)], "kubernetes").notes
            if "DigitalOcean" in n.finding] == []


def test_eks_self_managed_a_pulumi_eks_default_groups_taint_from_its_inputs_in_a_first_preview():
    """pulumi-eks's default node group in a first preview: its user data is not known, its taint is the component's
    own input, which the engine sends to Analyze (Source.remember keeps it for AnalyzeStack): refused when not
    tolerated, clean when tolerated, with the SDK shim and on the SDK's own path (issue 57; in-process twin:
    tests/testkit/test_pulumi_examples.py test_aws_ts_eks_default_group_with_a_taint_its_options_declare)."""
    import pulumi_eks as eks

    def stack(tolerates: bool):
        def declare() -> None:  # (the default Kubernetes provider: the stack's one cluster is its candidate)
            eks.Cluster("eks", subnet_ids=["subnet-a", "subnet-b"], node_group_options={
                "instance_type": "t3.medium", "min_size": 1, "max_size": 2, "desired_capacity": 1,
                "taints": {"dedicated": {"value": "batch", "effect": "NoSchedule"}}})
            deployment("api", pod=TOLERATES if tolerates else None, requests=DECLARED)()
        return declare

    for env in (None, {"COMPUTE_GUARD_SDK_SHIM": "off"}):
        refused = engine_run([stack(False)], "aws", env=env)
        assert verdicts(refused) == [("workload-schedulable", "api")], env
        assert "pool 'eks-06bed9e' (autoscaling Group) has taint dedicated=batch:NoSchedule that it does not tolerate" in \
            refused.violations[0].finding
        assert engine_run([stack(True)], "aws", env=env).violations == [], env


def test_an_app_stack_on_its_platform_stacks_pool_through_the_engine(tmp_path):
    """SPEC 18 through the engine's door: the app's provider takes its kubeconfig from a StackReference (no dependency
    reaches the pack), the stack config compute:stacks names the platform's export: a Pod too big for the platform's
    node group is refused naming its pool and stack, with the SDK shim and on the SDK's own path (in-process twin:
    tests/testkit/test_stacks.py test_the_same_through_compute_stacks_and_an_export_file)."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "testkit"))
    from test_stacks import PLATFORM, PLATFORM_NAME, app, program

    from compute_guard.testkit import export_program
    from compute_guard.testkit.engine import EnginePack
    from compute_guard.testkit.program import capture

    export = export_program(program(tmp_path / "platform", "platform", PLATFORM), tmp_path / "platform.json")
    outputs = next(entry["outputs"] for entry in json.loads(export.read_text())["deployment"]["resources"]
                   if entry["type"] == "pulumi:pulumi:Stack")
    resources = capture(app(tmp_path, 'deploy("api", "9Gi")\ndeploy("ok", "64Mi")'), project="shop",
                        stacks={PLATFORM_NAME: outputs}).resources
    config = {"compute:platform": "aws", "compute:stacks": json.dumps({PLATFORM_NAME: str(export)})}
    for env in (None, {"COMPUTE_GUARD_SDK_SHIM": "off"}):
        with EnginePack(config, project="shop", env=env) as pack:
            result = pack.run(resources)
        assert verdicts(result) == [("workload-fits-pool", "api")], env
        assert "pool 'general' (NodeGroup) of EKS cluster 'prod' (stack acme/platform/prod)" in \
            result.violations[0].finding


def test_a_platform_change_judged_against_its_dependent_through_the_engine(tmp_path):
    """SPEC 18 "and back" through the engine's door: the platform stack's config compute:dependents names the app
    stack's export, its previous deployment is its local backend's checkpoint; moving its node group to arm64 under
    the app's amd64-pinned Deployment is refused on the node group, naming the app stack, with the SDK shim and on
    the SDK's own path; unchanged, nothing is (in-process twin: tests/testkit/test_dependents.py
    test_through_compute_dependents_and_an_export_file)."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "testkit"))
    from test_dependents import APP_NAME, ARM, app
    from test_stacks import PLATFORM, program

    from compute_guard.testkit import export_program
    from compute_guard.testkit.engine import EnginePack
    from compute_guard.testkit.program import capture, previous_deployment

    root = tmp_path / "backend"
    (root / ".pulumi" / "stacks" / "platform").mkdir(parents=True)
    deployed = json.loads(export_program(program(tmp_path / "deployed", "platform", PLATFORM),
                                         tmp_path / "deployed.json").read_text())
    (root / ".pulumi" / "stacks" / "platform" / "stack.json").write_text(json.dumps(
        {"version": 3, "checkpoint": {"latest": deployed["deployment"]}}))
    export = export_program(app(tmp_path, 'deploy("api", "64Mi", {"kubernetes.io/arch": "amd64"})'),
                            tmp_path / "app.json")
    config = {"compute:platform": "aws", "compute:dependents": json.dumps({APP_NAME: str(export)})}
    for text, expected in ((ARM, [("workload-schedulable", "prod-general")]), (PLATFORM, [])):
        # (what the engine sends in a preview of the deployed stack: its unchanged resources keep their IDs; a first
        # preview's requests, every ID not known yet, would be a replacement of each)
        resources = capture(program(tmp_path / "changed", "platform", text), project="platform",
                            previous=previous_deployment(tmp_path / "deployed.json")).resources
        for env in ({"PULUMI_BACKEND_URL": f"file://{root}"},
                    {"PULUMI_BACKEND_URL": f"file://{root}", "COMPUTE_GUARD_SDK_SHIM": "off"}):
            with EnginePack(config, project="platform", env=env) as pack:
                result = pack.run(resources)
            found = [(v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations
                     if v.policy != "pool-safe-update"]
            assert found == expected, env
            assert all(f"stack {APP_NAME} (compute:dependents)" in v.finding for v in result.violations
                       if v.policy != "pool-safe-update")


def test_gke_compute_classes_pods_judged_on_the_machines_their_class_makes_at_both_sides():
    """A GKE ComputeClass (sources/gke_compute_classes.py) as the engine sends it: the N4 series only, DoNotScaleUp,
    node pools auto-created. Its largest machine, n4-highcpu-80, holds 80 cores less GKE's 270m: a Pod of 79.73 cores
    that requests the class fits, one of 79.731 is refused on the class's pool; one that requests a class the stack
    does not declare is said and never refused (in process: tests/policies/test_gke_compute_classes.py)."""
    import pulumi_kubernetes as k8s
    from builders import gke_cluster

    def batch():
        return k8s.apiextensions.CustomResource(
            "batch", api_version="cloud.google.com/v1", kind="ComputeClass", metadata={"name": "batch"},
            spec={"nodePoolAutoCreation": {"enabled": True}, "whenUnsatisfiable": "DoNotScaleUp",
                  "priorities": [{"machineFamily": "n4"}]})

    def api(cpu, name="batch"):
        return deployment("api", node_selector={"cloud.google.com/compute-class": name},
                          requests={"cpu": cpu, "memory": "1Gi"})

    assert engine_run([gke_cluster("gke"), batch, api("79730m")], "gcp").violations == []
    refused = engine_run([gke_cluster("gke"), batch, api("79731m")], "gcp")
    assert verdicts(refused) == [("workload-fits-pool", "api")]
    assert "pool 'batch' (ComputeClass) has at most 80 cores capacity - 270m kube-reserved = 79.73 cores " \
           "allocatable of CPU (n4-highcpu-80)" in refused.violations[0].finding
    other = engine_run([gke_cluster("gke"), batch, api("100", "other")], "gcp")
    assert other.violations == []
    assert any("its Pods request ComputeClass 'other', which is not in the stack" in reason
               for note in other.notes for reason in note.reasons), other.notes
