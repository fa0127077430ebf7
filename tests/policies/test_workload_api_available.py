"""workload-api-available: workloads, budgets and autoscalers at API versions their cluster still serves (SPEC 19,
policy 27), through pulumi-kubernetes' own SDK classes of the removed versions on a cluster of each platform's SDK.

The oracle is Kubernetes' deprecation guide written out here (kubernetes.io/docs/reference/using-api/
deprecation-guide); tests/oracle/test_removed_apis_oracle.py holds the pack's table to k8s.io/api itself."""

from __future__ import annotations

import pulumi_aws as aws
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
import pytest

from compute_guard.testkit import evaluate

POLICY = "workload-api-available"
ROLE = "arn:aws:iam::123456789012:role/eks"
LABELS = {"app": "api"}
TEMPLATE = {"metadata": {"labels": LABELS}, "spec": {"containers": [{"name": "api", "image": "nginx"}]}}

# the deprecation guide: (resource, removed in)
GUIDE = {"pdb": (1, 25), "cronjob": (1, 25), "hpa-v2beta2": (1, 26), "hpa-v2beta1": (1, 25), "deployment": (1, 16)}


def declare(what: str, opts) -> None:
    if what == "pdb":
        k8s.policy.v1beta1.PodDisruptionBudget("api", spec={"min_available": 1, "selector": {"match_labels": LABELS}},
                                               opts=opts)
    elif what == "cronjob":
        k8s.batch.v1beta1.CronJob("nightly", spec={"schedule": "0 0 * * *", "job_template": {"spec": {
            "template": {**TEMPLATE, "spec": {**TEMPLATE["spec"], "restart_policy": "Never"}}}}}, opts=opts)
    elif what == "hpa-v2beta2":
        k8s.autoscaling.v2beta2.HorizontalPodAutoscaler("api", spec={
            "scale_target_ref": {"api_version": "apps/v1", "kind": "Deployment", "name": "api"},
            "min_replicas": 1, "max_replicas": 3}, opts=opts)
    elif what == "hpa-v2beta1":
        k8s.autoscaling.v2beta1.HorizontalPodAutoscaler("api", spec={
            "scale_target_ref": {"api_version": "apps/v1", "kind": "Deployment", "name": "api"},
            "min_replicas": 1, "max_replicas": 3}, opts=opts)
    elif what == "deployment":
        k8s.extensions.v1beta1.Deployment("api", spec={"selector": {"match_labels": LABELS}, "template": TEMPLATE},
                                          opts=opts)
    else:  # served by every release: policy/v1
        k8s.policy.v1.PodDisruptionBudget("api", spec={"min_available": 1, "selector": {"match_labels": LABELS}},
                                          opts=opts)


def eks(version: str | None, what: str):
    def program():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version=version,
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
        kubeconfig = cluster.endpoint.apply(lambda endpoint: f"clusters:\n- name: fleet\n  cluster:\n    server: "
                                                             f"{endpoint}\n")
        provider = k8s.Provider("k8s", kubeconfig=kubeconfig)
        declare(what, __import__("pulumi").ResourceOptions(provider=provider))
    return program


CONFIG = {"compute:platform": "aws", "aws:region": "us-west-2"}


@pytest.mark.parametrize("what", sorted(GUIDE))
@pytest.mark.parametrize("minor", [15, 16, 24, 25, 26, 31])
def test_each_removed_version_is_refused_from_its_release_on(what, minor):
    found = evaluate(eks(f"1.{minor}", what), stack_config=CONFIG).findings(POLICY)
    assert (found != []) == ((1, minor) >= GUIDE[what])


def test_a_budget_at_policy_v1beta1_on_1_25_is_refused_with_the_version_to_use():
    result = evaluate(eks("1.25", "pdb"), stack_config=CONFIG)
    assert result.findings(POLICY) == [
        "PodDisruptionBudget 'api': its apiVersion policy/v1beta1 is removed in Kubernetes 1.25, and EKS cluster "
        "'fleet' runs 1.25: the API server no longer serves it, so it fails to apply; use apiVersion policy/v1"]
    assert [v.level for v in result.of(POLICY)] == ["mandatory"]
    assert result.of(POLICY)[0].urn.endswith("::kubernetes:policy/v1beta1:PodDisruptionBudget::api")


@pytest.mark.parametrize("version", ["1.26", "1.34"])
def test_an_autoscaler_at_autoscaling_v2beta2_on_1_26_is_refused(version):
    """At 1.34: the engine scenario's in-process twin (tests/engine/test_engine_protocol.py)."""
    assert evaluate(eks(version, "hpa-v2beta2"), stack_config=CONFIG).findings(POLICY) == [
        "HorizontalPodAutoscaler 'api': its apiVersion autoscaling/v2beta2 is removed in Kubernetes 1.26, and EKS "
        f"cluster 'fleet' runs {version}: the API server no longer serves it, so it fails to apply; use apiVersion "
        "autoscaling/v2"]


def test_a_served_version_passes_and_says_nothing():
    result = evaluate(eks("1.31", "served"), stack_config=CONFIG)
    assert result.findings(POLICY) == []
    assert [note for note in result.notes if note.policy == POLICY] == []


def test_a_cluster_that_sets_no_version_is_a_note_naming_the_removal():
    result = evaluate(eks(None, "hpa-v2beta2"), stack_config=CONFIG)
    assert result.findings(POLICY) == []
    assert [note.finding.split(" during preview: ", 1)[1] for note in result.notes if note.policy == POLICY] == [
        "HorizontalPodAutoscaler 'api': its apiVersion autoscaling/v2beta2 is removed in Kubernetes 1.26, and EKS "
        "cluster 'fleet' sets no version, so its platform picks the version: whether its cluster still serves it is "
        "not judged; use apiVersion autoscaling/v2"]


def test_a_stack_without_a_cluster_says_its_version_is_not_known():
    def program():
        declare("cronjob", None)
    result = evaluate(program, stack_config={"compute:platform": "kubernetes"})
    assert result.findings(POLICY) == []
    assert [note.finding.split(" during preview: ", 1)[1] for note in result.notes if note.policy == POLICY] == [
        "CronJob 'nightly': its apiVersion batch/v1beta1 is removed in Kubernetes 1.25, and the cluster it is applied "
        "to is not one the stack declares, so its version is not known: whether its cluster still serves it is not "
        "judged; use apiVersion batch/v1"]


def test_gke_runs_at_least_its_minimum_master_version():
    def program():
        cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", initial_node_count=1,
                                        min_master_version="1.24")
        provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
        declare("pdb", __import__("pulumi").ResourceOptions(provider=provider))
    config = {"compute:platform": "gcp", "gcp:project": "p", "gcp:zone": "us-central1-a"}
    result = evaluate(program, stack_config=config)
    assert result.findings(POLICY) == []  # 1.24 serves it, but GKE may have moved the cluster past 1.25
    assert [note.finding.split(" during preview: ", 1)[1] for note in result.notes if note.policy == POLICY] == [
        "PodDisruptionBudget 'api': its apiVersion policy/v1beta1 is removed in Kubernetes 1.25, and GKE cluster "
        "'gke' runs at least 1.24 (its minMasterVersion), maybe later: whether its cluster still serves it is not "
        "judged; use apiVersion policy/v1"]
