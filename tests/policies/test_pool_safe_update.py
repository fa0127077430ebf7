"""pool-safe-update: a deployed platform pool keeps its nodes' CPU architecture and moves between catalog machines
(SPEC 14.4, policy 22), at each source, through the providers' own SDKs: the previous deployment is the program
before the change, exported as `pulumi stack export` writes it; each architecture is worked out here from the
catalog's entry of the machine (and the AMI type's, on EKS)."""

from __future__ import annotations

import json

import pulumi_aws as aws
import pulumi_azure as azure_classic
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
from builders import exported
from pulumi_azure_native import containerservice

from compute_guard.policies.platforms.catalog import find_machine, machines
from compute_guard.testkit import evaluate

POLICY = "pool-safe-update"
KUBE = {"x86_64": "amd64", "arm64": "arm64"}


def arch(platform: str, machine: str) -> str:
    """The kubernetes.io/arch of a machine's nodes, from the catalog (the oracle of this test)."""
    found = find_machine(platform, machine)
    assert found is not None, machine
    return KUBE[found.architecture]




def judge(before, after, tmp_path, platform):
    config = {"compute:platform": platform, "aws:region": "us-west-2"}
    baseline = exported(before, tmp_path / "export.json", config)
    return evaluate(after, stack_config=config, policy_config={POLICY: {"baseline": str(baseline)}})


def eks(instance_types, ami_type=None):
    def program():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="arn:aws:iam::123456789012:role/eks",
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general",
                          node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
                          instance_types=list(instance_types), ami_type=ami_type,
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
    return program


def test_an_eks_node_group_moved_to_another_architecture_is_refused_with_its_ami_type_following(tmp_path):
    result = judge(eks(["t3.medium"], "AL2023_x86_64_STANDARD"), eks(["t4g.medium"], "AL2023_ARM_64_STANDARD"),
                   tmp_path, "aws")
    old, new = arch("aws", "t3.medium"), arch("aws", "t4g.medium")
    assert (old, new) == ("amd64", "arm64")
    assert result.findings(POLICY) == [
        f"pool 'general' (NodeGroup): can't change its machines from 't3.medium' ({old}, AMI type "
        f"'AL2023_x86_64_STANDARD') to 't4g.medium' ({new}, AMI type 'AL2023_ARM_64_STANDARD'): its nodes would run "
        f"{new} where they ran {old}, and the platform replaces every node, so the Pods that ran there come back on "
        f"{new} nodes, where images built for {old} fail to start; keep {old} machines, or add a pool with the new "
        "machines, move the workloads there (pinned to its architecture), then remove this one"]
    assert [v.level for v in result.of(POLICY)] == ["mandatory"]
    assert result.of(POLICY)[0].urn.endswith("::aws:eks/nodeGroup:NodeGroup::general")


def test_an_eks_node_group_without_an_ami_type_takes_its_machines_architecture(tmp_path):
    result = judge(eks(["t3.medium"]), eks(["t4g.medium"]), tmp_path, "aws")
    assert [finding.split(": its nodes would run ")[0] for finding in result.findings(POLICY)] == [
        "pool 'general' (NodeGroup): can't change its machines from 't3.medium' (amd64) to 't4g.medium' (arm64)"]


def test_a_machine_of_the_same_architecture_or_no_change_is_safe(tmp_path):
    assert arch("aws", "m7i.large") == arch("aws", "t3.medium")
    assert judge(eks(["t3.medium"]), eks(["m7i.large", "t3.large"]), tmp_path, "aws").findings(POLICY) == []
    assert judge(eks(["t4g.medium"]), eks(["t4g.large"]), tmp_path, "aws").findings(POLICY) == []
    assert judge(eks(["t3.medium"]), eks(["t3.medium"]), tmp_path, "aws").findings(POLICY) == []


def test_a_change_to_a_machine_the_catalog_does_not_know_is_refused(tmp_path):
    assert find_machine("aws", "t3.mediun") is None
    assert judge(eks(["t3.medium"]), eks(["t3.mediun"]), tmp_path, "aws").findings(POLICY) == [
        "pool 'general' (NodeGroup): can't change its machines from 't3.medium' (amd64) to 't3.mediun', which the AWS "
        "catalog does not know: it provides no CPU architecture, so the change cannot be shown to keep its nodes' "
        "(amd64); use a machine of the catalog"]


def test_a_pool_new_in_this_preview_or_without_a_baseline_entry_needs_nothing(tmp_path):
    def nothing():
        pass
    assert judge(nothing, eks(["t4g.medium"]), tmp_path, "aws").findings(POLICY) == []


def aks(vm_size):
    def program():
        containerservice.ManagedCluster("aks", resource_group_name="rg", dns_prefix="aks", agent_pool_profiles=[
            {"name": "agentpool", "mode": "System", "vm_size": vm_size, "count": 3}])
    return program


def test_an_aks_agent_pool_moved_to_an_arm_size_is_refused(tmp_path):
    old, new = arch("azure", "Standard_DS2_v2"), arch("azure", "Standard_D2ps_v5")
    assert (old, new) == ("amd64", "arm64")
    result = judge(aks("Standard_DS2_v2"), aks("Standard_D2ps_v5"), tmp_path, "azure")
    assert [finding.split(": its nodes")[0] for finding in result.findings(POLICY)] == [
        f"pool 'agentpool' (ManagedCluster): can't change its machines from 'Standard_DS2_v2' ({old}) to "
        f"'Standard_D2ps_v5' ({new})"]
    assert judge(aks("Standard_DS2_v2"), aks("Standard_D4s_v5"), tmp_path, "azure").findings(POLICY) == []


def classic_aks(vm_size):
    def program():
        azure_classic.containerservice.KubernetesCluster(
            "aks", resource_group_name="rg", location="eastus", dns_prefix="aks",
            identity={"type": "SystemAssigned"},
            default_node_pool={"name": "default", "vm_size": vm_size, "node_count": 2})
    return program


def test_a_classic_aks_default_node_pool_moved_to_an_arm_size_is_refused(tmp_path):
    result = judge(classic_aks("Standard_D2s_v5"), classic_aks("Standard_D2ps_v5"), tmp_path, "azure")
    assert [finding.split(": its nodes")[0] for finding in result.findings(POLICY)] == [
        "pool 'default' (KubernetesCluster): can't change its machines from 'Standard_D2s_v5' (amd64) to "
        "'Standard_D2ps_v5' (arm64)"]


def gke(machine, default_pool=False):
    def program():
        cluster = gcp.container.Cluster("gke", location="us-central1-a", initial_node_count=1,
                                        remove_default_node_pool=not default_pool,
                                        node_config={"machine_type": machine} if default_pool else None)
        if not default_pool:
            gcp.container.NodePool("general", cluster=cluster.name, location="us-central1-a", node_count=2,
                                   node_config={"machine_type": machine})
    return program


def test_a_gke_node_pool_and_a_clusters_default_pool_moved_to_arm_are_refused(tmp_path):
    assert (arch("gcp", "e2-standard-2"), arch("gcp", "t2a-standard-2")) == ("amd64", "arm64")
    result = judge(gke("e2-standard-2"), gke("t2a-standard-2"), tmp_path, "gcp")
    assert [finding.split(": its nodes")[0] for finding in result.findings(POLICY)] == [
        "pool 'general-b04fc67' (GKE NodePool): can't change its machines from 'e2-standard-2' (amd64) to 't2a-standard-2' "
        "(arm64)"]
    result = judge(gke("e2-standard-2", True), gke("t2a-standard-2", True), tmp_path, "gcp")
    assert [finding.split(": its nodes")[0] for finding in result.findings(POLICY)] == [
        "pool 'default-pool' (GKE Cluster): can't change its machines from 'e2-standard-2' (amd64) to "
        "'t2a-standard-2' (arm64)"]
    assert judge(gke("e2-standard-2"), gke("n2-standard-4"), tmp_path, "gcp").findings(POLICY) == []


def karpenter(*architectures):
    def program():
        k8s.apiextensions.CustomResource("general", api_version="karpenter.sh/v1", kind="NodePool",
                                         metadata={"name": "general"}, spec={"template": {"spec": {
                                             "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                              "name": "default"},
                                             "requirements": [
                                                 {"key": "kubernetes.io/arch", "operator": "In",
                                                  "values": list(architectures)},
                                                 {"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                                  "values": ["m7i", "m7g"]}]}}})
    return program


def test_a_nodepool_whose_architecture_requirement_moves_is_refused_and_one_that_narrows_is_not(tmp_path):
    # the catalog's m7i (amd64) and m7g (arm64) sizes, each allowed by its architecture
    m7i, m7g = (sum(1 for machine in machines("aws") if machine.name.split(".")[0] == family) for family in
                ("m7i", "m7g"))
    assert {arch("aws", "m7i.large"), arch("aws", "m7g.large")} == {"amd64", "arm64"}
    moved = judge(karpenter("amd64"), karpenter("arm64"), tmp_path, "aws").findings(POLICY)
    assert [finding.split(": its nodes")[0] for finding in moved] == [
        f"pool 'general' (NodePool): can't change its machines from the {m7i} instance types its requirements allow "
        f"(amd64) to the {m7g} instance types its requirements allow (arm64)"]
    widened = judge(karpenter("amd64"), karpenter("amd64", "arm64"), tmp_path, "aws").findings(POLICY)
    assert [finding.split(", and the platform")[0].split(": its ")[1] for finding in widened] == [
        "nodes would run arm64 where they ran amd64"]
    assert judge(karpenter("amd64", "arm64"), karpenter("amd64"), tmp_path, "aws").findings(POLICY) == []


def self_managed(instance_type):
    def program():
        template = aws.ec2.LaunchTemplate("nodes", image_id="ami-0123456789abcdef0", instance_type=instance_type)
        aws.autoscaling.Group("nodes", min_size=1, max_size=3, launch_template={"id": template.id},
                              tags=[{"key": "kubernetes.io/cluster/fleet", "value": "owned",
                                     "propagate_at_launch": True}])
    return program


def test_a_self_managed_launch_template_moved_to_another_architecture_is_refused(tmp_path):
    result = judge(self_managed("t3.medium"), self_managed("t4g.medium"), tmp_path, "aws")
    assert [(v.urn.rsplit("::", 2)[-2], v.finding.split(": its nodes")[0]) for v in result.of(POLICY)] == [
        ("aws:ec2/launchTemplate:LaunchTemplate",
         "LaunchTemplate 'nodes' (the machines of the autoscaling groups that run it): can't change its machines from "
         "'t3.medium' (amd64) to 't4g.medium' (arm64)")]


def test_a_baseline_of_another_stack_is_said_once(tmp_path):
    config = {"compute:platform": "aws", "aws:region": "us-west-2"}
    baseline = exported(eks(["t3.medium"]), tmp_path / "export.json", config)
    document = json.loads(baseline.read_text())
    for entry in document["deployment"]["resources"]:
        entry["urn"] = entry["urn"].replace("urn:pulumi:stack::", "urn:pulumi:prod::")
    baseline.write_text(json.dumps(document))

    def two_groups():
        eks(["t4g.medium"])()
        aws.eks.NodeGroup("batch", cluster_name="fleet", node_group_name="batch", instance_types=["t4g.large"],
                          node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))

    result = evaluate(two_groups, stack_config=config, policy_config={POLICY: {"baseline": str(baseline)}})
    assert result.findings(POLICY) == []  # nothing compared: the baseline is prod's
    notes = [note.finding for note in result.notes if note.policy == POLICY]
    assert len(notes) == 1
    assert notes[0].endswith(
        "the previous deployment matches no resource of this stack: it holds 'urn:pulumi:prod::project::"
        "aws:eks/cluster:Cluster::fleet' and 2 more, this stack has 'urn:pulumi:stack::project::...' (another "
        "stack's or project's state, or URNs written otherwise), so nothing was compared with it: set 'baseline' to "
        "this stack's `pulumi stack export`")


def test_a_compute_cluster_is_left_to_compute_cluster_safe_update(tmp_path):
    """A ComputeCluster's pools follow the seed's rule (policy 9), which reports the same change once."""
    from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs

    def cluster(machine):
        def program():
            ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
                CapacityGroup(group_id="general", min_size=1, max_size=3, instance_type=machine)]))
        return program

    config = {"compute:platform": "aws"}
    baseline = str(exported(cluster("t3.medium"), tmp_path / "export.json", config))
    result = evaluate(cluster("t4g.medium"), stack_config=config, policy_config={
        POLICY: {"baseline": baseline}, "compute-cluster-safe-update": {"baseline": baseline}})
    assert result.findings(POLICY) == []
    assert [finding.split(": only")[0] for finding in result.findings("compute-cluster-safe-update")] == [
        "ComputeCluster 'compute' pool 'general': can't change machine from 't3.medium' (x86_64) to 't4g.medium' "
        "(arm64)"]


def gke_pool(machine_type):
    def program():
        gcp.container.NodePool("general", name="general", cluster="gke", location="us-central1-a", node_count=1,
                               node_config={"machine_type": machine_type})
    return program


def test_a_gke_pool_moved_to_arm_keeps_its_pods_pending_behind_gkes_arm_taint(tmp_path):
    """Issue 66: GKE taints every Arm node kubernetes.io/arch=arm64:NoSchedule (and tolerates it for the Pods that
    select arm64), so the Pods that ran on the pool stay Pending; they do not "fail to start", as EKS's do (the same
    run's workload-schedulable says Pending too)."""
    old, new = arch("gcp", "e2-standard-4"), arch("gcp", "t2a-standard-4")
    assert (old, new) == ("amd64", "arm64")
    assert judge(gke_pool("e2-standard-4"), gke_pool("t2a-standard-4"), tmp_path, "gcp").findings(POLICY) == [
        f"pool 'general' (GKE NodePool): can't change its machines from 'e2-standard-4' ({old}) to 't2a-standard-4' "
        f"({new}): its nodes would run {new} where they ran {old}, and the platform replaces every node, so the Pods "
        f"that ran there and do not select {new} stay Pending: its {new} nodes carry taint kubernetes.io/arch=arm64:"
        f"NoSchedule; keep {old} machines, or add a pool with the new machines, move the workloads there (pinned to "
        "its architecture), then remove this one"]


def test_pools_whose_machines_are_not_known_yet_are_each_named(tmp_path):
    """Issue 66: a run with five pools whose machines were not known yet said five identical "not judged" lines, none
    naming its pool."""
    def program(late):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="arn:aws:iam::123456789012:role/eks",
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            for name in ("general", "batch"):
                machine = cluster.arn.apply(lambda _: "m7i.large") if late else "m7i.large"
                aws.eks.NodeGroup(name, cluster_name=cluster.name, node_group_name=name,
                                  node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
                                  instance_types=[machine],
                                  scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                                   max_size=3))
        return declare
    result = judge(program(False), program(True), tmp_path, "aws")
    said = sorted(reason for note in result.notes if note.policy == POLICY for reason in note.reasons)
    assert [reason.split(":")[0] for reason in said] == ["pool 'batch' (NodeGroup)", "pool 'general' (NodeGroup)"], said
