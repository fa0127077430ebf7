"""cluster-version-skew: node pools within Kubernetes' version skew of their control plane, and control planes moved
one minor version at a time (SPEC 19, policy 26), at each source through the providers' own SDKs; the previous
deployment is the program before the change, exported as `pulumi stack export` writes it.

The oracle is the skew policy written out here (kubernetes.io/releases/version-skew-policy): a kubelet is never newer
than its API server, and at most three minor versions older from 1.28 on, two before."""

from __future__ import annotations

import pulumi_aws as aws
import pulumi_azure as azure_classic
import pulumi_gcp as gcp
import pytest
from builders import exported
from pulumi_azure_native import containerservice

from compute_guard.testkit import evaluate

POLICY = "cluster-version-skew"
ROLE = "arn:aws:iam::123456789012:role/eks"


def within_skew(plane: tuple[int, int], node: tuple[int, int]) -> bool:
    """The skew policy, written out: never newer, at most 3 minors older since 1.28 (2 before)."""
    behind = plane[1] - node[1]
    return 0 <= behind <= (3 if plane[1] >= 28 else 2)


def eks(plane: str | None, node: str | None = None, release: str | None = None):
    def program():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version=plane,
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=["m7i.large"], version=node,
                          release_version=release,
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
    return program


def aws_config():
    return {"compute:platform": "aws", "aws:region": "us-west-2"}




@pytest.mark.parametrize("plane,node", [((1, 30), (1, 31)), ((1, 30), (1, 30)), ((1, 30), (1, 27)),
                                        ((1, 30), (1, 26)), ((1, 28), (1, 25)), ((1, 27), (1, 25)),
                                        ((1, 27), (1, 24)), ((1, 29), (1, 30))])
def test_an_eks_node_group_is_judged_by_the_skew_policy(plane, node):
    result = evaluate(eks(f"{plane[0]}.{plane[1]}", f"{node[0]}.{node[1]}"), stack_config=aws_config())
    assert (result.findings(POLICY) == []) == within_skew(plane, node)


@pytest.mark.parametrize("plane,node", [("1.30", "1.31"), ("1.34", "1.35")])
def test_a_node_group_newer_than_its_control_plane_is_refused_with_the_fix(plane, node):
    """At 1.34 and 1.35: the engine scenario's in-process twin (tests/engine/test_engine_protocol.py)."""
    result = evaluate(eks(plane, node), stack_config=aws_config())
    assert result.findings(POLICY) == [
        f"pool 'general' (NodeGroup): its nodes would run Kubernetes {node}, newer than the control plane of its EKS "
        f"cluster 'fleet' ({plane}): a kubelet may never be newer than its API server (Kubernetes' version skew "
        f"policy), and EKS refuses the pool; upgrade the control plane to {node} first, or set the pool's version to "
        f"{plane}"]
    assert [v.level for v in result.of(POLICY)] == ["mandatory"]
    assert result.of(POLICY)[0].urn.endswith("::aws:eks/nodeGroup:NodeGroup::general")


def test_a_node_group_too_far_behind_says_how_far_and_the_oldest_it_may_run():
    assert evaluate(eks("1.31", "1.27"), stack_config=aws_config()).findings(POLICY) == [
        "pool 'general' (NodeGroup): its nodes would run Kubernetes 1.27, 4 minor versions behind the control plane "
        "of its EKS cluster 'fleet' (1.31), where a kubelet may be at most 3 behind an API server of 1.31 (Kubernetes' "
        "version skew policy); set the pool's version to 1.28 or later"]
    # before 1.28 the window was two minors
    assert evaluate(eks("1.27", "1.24"), stack_config=aws_config()).findings(POLICY)[0].endswith(
        "where a kubelet may be at most 2 behind an API server of 1.27 (Kubernetes' version skew policy); set the "
        "pool's version to 1.25 or later")


def test_a_release_version_names_the_node_groups_kubernetes_version():
    assert evaluate(eks("1.30", release="1.31.0-20240817"), stack_config=aws_config()).findings(POLICY) == [
        "pool 'general' (NodeGroup): its nodes would run Kubernetes 1.31 (releaseVersion '1.31.0-20240817'), newer "
        "than the control plane of its EKS cluster 'fleet' (1.30): a kubelet may never be newer than its API server "
        "(Kubernetes' version skew policy), and EKS refuses the pool; upgrade the control plane to 1.31 first, or set "
        "the pool's releaseVersion to 1.30"]


def test_a_pool_that_sets_no_version_follows_its_control_plane():
    assert evaluate(eks("1.30"), stack_config=aws_config()).findings(POLICY) == []
    assert evaluate(eks(None), stack_config=aws_config()).notes == []


def test_a_pinned_pool_on_a_cluster_that_sets_no_version_is_a_note():
    result = evaluate(eks(None, "1.29"), stack_config=aws_config())
    assert result.findings(POLICY) == []
    assert [note.finding.split(" during preview: ", 1)[1] for note in result.notes if note.policy == POLICY] == [
        "pool 'general' (NodeGroup): its nodes run Kubernetes 1.29, and its EKS cluster 'fleet' sets no version, so "
        "EKS picks its default version: whether they are within Kubernetes' version skew is not judged; set version"]


def test_a_version_not_known_yet_is_a_note():
    def program():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version="1.30",
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                          version=cluster.arn.apply(lambda _: "1.31"),  # an output: not known in a first preview
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
    result = evaluate(program, stack_config=aws_config())
    assert result.findings(POLICY) == []
    assert any(note.policy == POLICY and "is not known yet" in note.finding for note in result.notes)


def gke(master: str, pool: str | None = None, default: str | None = None):
    def program():
        cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", initial_node_count=1,
                                        min_master_version=master, node_version=default)
        if pool is not None:
            gcp.container.NodePool("apps", name="apps", cluster=cluster.name, location="us-central1-a", node_count=1,
                                   version=pool, node_config=gcp.container.NodePoolNodeConfigArgs(
                                       machine_type="e2-standard-4"))
    return program


def gcp_config():
    return {"compute:platform": "gcp", "gcp:project": "p", "gcp:zone": "us-central1-a"}


def test_a_gke_pool_newer_than_min_master_version_is_not_refused_gke_upgrades_past_it():
    assert evaluate(gke("1.30", "1.31.1-gke.1146000"), stack_config=gcp_config()).findings(POLICY) == []


def test_a_gke_pool_too_far_behind_its_minimum_master_version_is_refused():
    assert evaluate(gke("1.31", "1.27.16-gke.100"), stack_config=gcp_config()).findings(POLICY) == [
        "pool 'apps' (GKE NodePool): its nodes would run Kubernetes 1.27 (version '1.27.16-gke.100'), 4 minor "
        "versions behind the control plane of its GKE cluster 'gke' (at least 1.31), where a kubelet may be at most 3 "
        "behind an API server of 1.31 (Kubernetes' version skew policy); set the pool's version to 1.28 or later"]


def test_a_gke_default_pool_runs_its_clusters_node_version():
    found = evaluate(gke("1.31", default="1.26"), stack_config=gcp_config()).findings(POLICY)
    assert [finding.split(": its nodes")[0] for finding in found] == ["pool 'default-pool' (GKE Cluster)"]
    assert "set the pool's nodeVersion to 1.28 or later" in found[0]


def aks_native(plane: str, node: str, channel: str | None = None, pool_resource: str | None = None):
    def program():
        cluster = containerservice.ManagedCluster(
            "aks", resource_group_name="rg", resource_name_="aks", location="westeurope", dns_prefix="aks",
            kubernetes_version=plane,
            auto_upgrade_profile={"upgrade_channel": channel} if channel else None,
            agent_pool_profiles=[{"name": "system", "mode": "System", "vm_size": "Standard_D4s_v5", "count": 1,
                                  "orchestrator_version": node}])
        if pool_resource is not None:
            containerservice.AgentPool("user", resource_group_name="rg", resource_name_=cluster.name,
                                       agent_pool_name="user", vm_size="Standard_D4s_v5", count=1,
                                       orchestrator_version=pool_resource)
    return program


def azure_config():
    return {"compute:platform": "azure", "azure-native:location": "westeurope"}


def test_an_aks_pool_newer_than_its_control_plane_is_refused_at_both_native_sources():
    found = evaluate(aks_native("1.30.3", "1.31.1", pool_resource="1.31.1"), stack_config=azure_config()).findings(
        POLICY)
    assert [finding.split(": its nodes")[0] for finding in found] == [
        "pool 'system' (ManagedCluster)", "pool 'user' (AgentPool)"]
    assert found[0].endswith("upgrade the control plane to 1.31 first, or set the pool's orchestratorVersion to 1.30")
    assert "(1.31 (orchestratorVersion '1.31.1')" not in found[0]
    assert "Kubernetes 1.31 (orchestratorVersion '1.31.1'), newer than the control plane of its AKS cluster 'aks' (1.30 " \
           "(kubernetesVersion '1.30.3'))" in found[0]


def test_an_aks_cluster_on_the_stable_channel_may_run_a_later_minor():
    assert evaluate(aks_native("1.30", "1.31", channel="stable"), stack_config=azure_config()).findings(POLICY) == []
    assert evaluate(aks_native("1.30", "1.31", channel="patch"), stack_config=azure_config()).findings(POLICY) != []


def test_a_classic_aks_default_node_pool_is_judged():
    def program():
        azure_classic.containerservice.KubernetesCluster(
            "aks", name="aks", resource_group_name="rg", location="westeurope", dns_prefix="aks",
            kubernetes_version="1.31",
            default_node_pool={"name": "system", "vm_size": "Standard_D4s_v5", "node_count": 1,
                               "orchestrator_version": "1.26"})
    found = evaluate(program, stack_config={"compute:platform": "azure"}).findings(POLICY)
    assert [finding.split(": its nodes")[0] for finding in found] == ["pool 'system' (KubernetesCluster)"]
    assert found[0].endswith("set the pool's orchestratorVersion to 1.28 or later")


def judge_move(before, after, tmp_path, config):
    baseline = exported(before, tmp_path / "export.json", config)
    return evaluate(after, stack_config=config, policy_config={POLICY: {"baseline": str(baseline)}})


def test_a_control_plane_moved_by_two_minors_is_refused(tmp_path):
    assert judge_move(eks("1.29"), eks("1.31"), tmp_path, aws_config()).findings(POLICY) == [
        "EKS cluster 'fleet': its control plane would move from Kubernetes 1.29 to 1.31, skipping 1 minor version: "
        "EKS upgrades a control plane one minor version at a time; set version to 1.30, deploy, and go on one minor "
        "at a time (its node pools with it)"]


def test_a_control_plane_moved_back_is_refused(tmp_path):
    assert judge_move(eks("1.30"), eks("1.29"), tmp_path, aws_config()).findings(POLICY) == [
        "EKS cluster 'fleet': its control plane would move back from Kubernetes 1.30 to 1.29: a control plane is "
        "never downgraded (EKS refuses it); keep version at 1.30 or later"]


def test_a_control_plane_moved_one_minor_or_a_patch_is_safe(tmp_path):
    assert judge_move(eks("1.29"), eks("1.30"), tmp_path, aws_config()).findings(POLICY) == []
    assert judge_move(aks_native("1.30.3", "1.30.3"), aks_native("1.30.9", "1.30.3"), tmp_path,
                      azure_config()).findings(POLICY) == []


def test_an_aks_control_plane_moved_by_two_minors_is_refused(tmp_path):
    found = judge_move(aks_native("1.29.4", "1.29.4"), aks_native("1.31.1", "1.29.4"), tmp_path,
                       azure_config()).findings(POLICY)
    assert found == [
        "AKS cluster 'aks': its control plane would move from Kubernetes 1.29 (kubernetesVersion '1.29.4') to 1.31 "
        "(kubernetesVersion '1.31.1'), skipping 1 minor version: AKS upgrades a control plane one minor version at a "
        "time; set kubernetesVersion to 1.30, deploy, and go on one minor at a time (its node pools with it)"]


def test_a_gke_minimum_master_version_moved_is_not_judged(tmp_path):
    assert judge_move(gke("1.29"), gke("1.31"), tmp_path, gcp_config()).findings(POLICY) == []


def test_a_karpenter_node_class_that_names_its_amis_kubernetes_version():
    """An EC2NodeClass whose amiSelectorTerms name an EKS optimized AMI's SSM parameter for 1.31 starts 1.31 nodes:
    newer than a 1.30 control plane, refused; an alias names an AMI release for the cluster's own version: nothing."""
    import pulumi_kubernetes as k8s

    def program(terms):
        def declare():
            aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version="1.30",
                            vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            k8s.apiextensions.CustomResource("default", api_version="karpenter.k8s.aws/v1", kind="EC2NodeClass",
                                             metadata={"name": "default"},
                                             spec={"role": "KarpenterNodeRole", "amiSelectorTerms": terms})
            k8s.apiextensions.CustomResource("general", api_version="karpenter.sh/v1", kind="NodePool",
                                             metadata={"name": "general"}, spec={"template": {"spec": {
                                                 "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                                  "name": "default"},
                                                 "requirements": [{"key": "kubernetes.io/arch", "operator": "In",
                                                                   "values": ["amd64"]}]}}})
        return declare

    ssm = [{"ssmParameter": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/"
                            "image_id"}]
    assert evaluate(program(ssm), stack_config=aws_config()).findings(POLICY) == [
        "pool 'general' (NodePool): its nodes would run Kubernetes 1.31, newer than the control plane of its EKS "
        "cluster 'fleet' (1.30): a kubelet may never be newer than its API server (Kubernetes' version skew policy); upgrade the "
        "control plane to 1.31 first, or select AMIs built for 1.30 in its EC2NodeClass's amiSelectorTerms"]
    assert evaluate(program([{"alias": "al2023@v20240807"}]), stack_config=aws_config()).findings(POLICY) == []


def pulumi_eks(plane: str, node: str | None = None, budget: bool = False):
    """An EKS cluster through pulumi-eks (eks.Cluster(version=...)), a managed node group at ``node``: the component
    passes its version to its aws:eks/cluster:Cluster child, which the test kit registers as pulumi-eks does."""
    def program():
        import pulumi
        import pulumi_eks as eks
        import pulumi_kubernetes as k8s

        cluster = eks.Cluster("fleet", version=plane, skip_default_node_group=True)
        eks.ManagedNodeGroup("general", cluster=cluster, node_group_name="general", version=node,
                             instance_types=["m7i.large"], node_role_arn=ROLE,
                             scaling_config={"min_size": 1, "max_size": 3, "desired_size": 1})
        if budget:
            provider = k8s.Provider("k8s", kubeconfig=cluster.kubeconfig_json)
            k8s.policy.v1beta1.PodDisruptionBudget("api", spec={"min_available": 1, "selector": {
                "match_labels": {"app": "api"}}}, opts=pulumi.ResourceOptions(provider=provider))
    return program


def test_a_pulumi_eks_clusters_version_is_its_cluster_resources():
    """Before issue 66 the component was the cluster with no version: a group newer than the control plane, one four
    minors behind and a removed API all passed silently, and the budget got "sets no version"."""
    newer = evaluate(pulumi_eks("1.33", "1.34"), stack_config=aws_config()).findings(POLICY)
    assert len(newer) == 1 and "newer than the control plane of its EKS cluster 'fleet' (1.33)" in newer[0], newer
    behind = evaluate(pulumi_eks("1.33", "1.29"), stack_config=aws_config()).findings(POLICY)
    assert len(behind) == 1 and "4 minor versions behind" in behind[0], behind
    assert evaluate(pulumi_eks("1.33", "1.33"), stack_config=aws_config()).findings(POLICY) == []
    removed = evaluate(pulumi_eks("1.33", budget=True), stack_config=aws_config())
    assert "workload-api-available" in [v.policy for v in removed.violations]
    assert not any("sets no version" in reason for note in removed.notes for reason in note.reasons)


def test_a_pulumi_eks_control_plane_moved_two_minors_is_refused(tmp_path):
    found = judge_move(pulumi_eks("1.31"), pulumi_eks("1.33"), tmp_path, aws_config()).findings(POLICY)
    assert found == [
        "EKS cluster 'fleet': its control plane would move from Kubernetes 1.31 to 1.33, skipping 1 minor version: "
        "EKS upgrades a control plane one minor version at a time; set version to 1.32, deploy, and go on one minor "
        "at a time (its node pools with it)"]
