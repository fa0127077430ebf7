"""pool-replacement-safe: a preview that replaces a pool deletes it first only where another pool takes its
workloads, and never replaces a cluster under workloads (SPEC 19, policy 25), through the providers' own SDKs: the
previous deployment is the program before the change, exported as `pulumi stack export` writes it (its inputs with
the `__defaults` a bridged provider's Check records, which the test kit writes as the bridge does)."""

from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pulumi_aws as aws
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
import pytest
from google.protobuf import json_format

from compute_guard.policies.model.replacement import Change, _changes
from compute_guard.policies.model.sources import replacing_of
from compute_guard.policies.model.sources.eks import REPLACES as EKS
from compute_guard.policies.model.sources.gke import REPLACES as GKE
from compute_guard.testkit import capture_program, evaluate

POLICY = "pool-replacement-safe"
ROLE = "arn:aws:iam::123456789012:role/eks"
AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}
GCP = {"compute:platform": "gcp", "gcp:project": "p", "gcp:zone": "us-central1-a"}


def export(program, path: Path, config) -> Path:
    resources = capture_program(program, stack_config=config)
    path.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": r.urn, "type": r.type, "custom": bool(r.provider), "inputs": json_format.MessageToDict(r.inputs),
         "outputs": json_format.MessageToDict(r.outputs)} for r in resources]}}))
    return path


def judge(before, after, tmp_path, config=AWS):
    baseline = export(before, tmp_path / "export.json", config)
    return evaluate(after, stack_config=config, policy_config={POLICY: {"baseline": str(baseline)}})


def api(cluster, selector=None):
    provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
    labels = {"app": "api"}
    k8s.apps.v1.Deployment("api", spec={"replicas": 2, "selector": {"match_labels": labels}, "template": {
        "metadata": {"labels": labels}, "spec": {"node_selector": selector, "containers": [{
            "name": "api", "image": "nginx", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}},
        opts=pulumi.ResourceOptions(provider=provider))


def eks(machine="m7i.large", name="general", role=ROLE, second=False, workloads=True, max_size=3, selector=None):
    def program():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=role,
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name=name, node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=[machine], ami_type="AL2023_x86_64_STANDARD",
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                           max_size=max_size))
        if second:
            aws.eks.NodeGroup("spare", cluster_name=cluster.name, node_group_name="spare", node_role_arn=ROLE,
                              subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                              ami_type="AL2023_x86_64_STANDARD",
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
        if workloads:
            api(cluster, selector)
    return program


def test_a_fixed_name_node_group_replaced_under_its_only_workloads_is_refused(tmp_path):
    result = judge(eks("m7i.large"), eks("m7i.xlarge"), tmp_path)
    assert result.findings(POLICY) == [
        "pool 'general' (NodeGroup): its instanceTypes changes from 'm7i.large' to 'm7i.xlarge', which the AWS "
        "provider cannot apply in place: it replaces the pool. Its nodeGroupName 'general' is set by the program, so "
        "the replacement cannot be created while the old pool holds the name: the old pool is deleted first (Pulumi "
        "deletes before replacing a resource whose name the program set), and Deployment 'api' run on no other pool "
        "of its cluster: every Pod of them is down until the new nodes join; add a second pool that takes them "
        "first, or leave nodeGroupName unset so the new pool is created before the old one goes"]
    assert [v.level for v in result.of(POLICY)] == ["mandatory"]
    assert result.of(POLICY)[0].urn.endswith("::aws:eks/nodeGroup:NodeGroup::general")


def test_an_auto_named_node_group_is_created_before_the_old_one_goes(tmp_path):
    assert judge(eks("m7i.large", name=None), eks("m7i.xlarge", name=None), tmp_path).findings(POLICY) == []


def test_a_second_pool_that_takes_the_workloads_makes_the_replacement_safe(tmp_path):
    assert judge(eks("m7i.large", second=True), eks("m7i.xlarge", second=True), tmp_path).findings(POLICY) == []
    # ... unless the workloads are pinned to the replaced group by its name
    pinned = {"eks.amazonaws.com/nodegroup": "general"}
    assert judge(eks("m7i.large", second=True, selector=pinned), eks("m7i.xlarge", second=True, selector=pinned),
                 tmp_path).findings(POLICY) != []


def test_an_in_place_change_or_no_workloads_passes(tmp_path):
    assert judge(eks(max_size=3), eks(max_size=6), tmp_path).findings(POLICY) == []
    assert judge(eks("m7i.large", workloads=False), eks("m7i.xlarge", workloads=False), tmp_path).findings(
        POLICY) == []


def test_a_cluster_replaced_under_workloads_is_refused(tmp_path):
    found = judge(eks(), eks(role="arn:aws:iam::123456789012:role/eks-2"), tmp_path).findings(POLICY)
    assert found == [
        "EKS cluster 'fleet': its roleArn changes from 'arn:aws:iam::123456789012:role/eks' to "
        "'arn:aws:iam::123456789012:role/eks-2', which the AWS provider cannot apply in place: it replaces the whole "
        "cluster, and Deployment 'api' run on it: every Pod, and everything else on the cluster, goes with the old "
        "one; keep the input, or create the new cluster beside it and move the workloads there first"]
    assert judge(eks(workloads=False), eks(role="arn:aws:iam::123456789012:role/eks-2", workloads=False),
                 tmp_path).findings(POLICY) == []


def gke(spot=False, machine="e2-standard-4", name="apps"):
    def program():
        cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", initial_node_count=1,
                                        remove_default_node_pool=True)
        gcp.container.NodePool("apps", name=name, cluster=cluster.name, location="us-central1-a", node_count=2,
                               node_config=gcp.container.NodePoolNodeConfigArgs(machine_type=machine, spot=spot))
        api(cluster)
    return program


def test_a_gke_pool_moved_to_spot_is_replaced_and_gke_drains_it_at_most_an_hour(tmp_path):
    found = judge(gke(spot=False), gke(spot=True), tmp_path, GCP).findings(POLICY)
    assert len(found) == 1
    assert found[0].startswith("pool 'apps' (GKE NodePool): its nodeConfig.spot changes from false to true, which "
                               "the Google Cloud provider cannot apply in place: it replaces the pool. Its name 'apps' "
                               "is set by the program")
    assert "(GKE waits at most an hour on PodDisruptionBudgets when it deletes a pool's nodes" in found[0]


def test_a_gke_machine_type_change_is_made_in_place(tmp_path):
    assert judge(gke(machine="e2-standard-4"), gke(machine="e2-standard-8"), tmp_path, GCP).findings(POLICY) == []


def test_the_same_verdicts_twice_in_one_process(tmp_path):
    first = judge(eks("m7i.large"), eks("m7i.xlarge"), tmp_path).findings(POLICY)
    assert first == judge(eks("m7i.large"), eks("m7i.xlarge"), tmp_path).findings(POLICY) != []


@pytest.mark.parametrize(("kind", "path"), [(kind, path) for table in (EKS, GKE) for kind, rule in table.items()
                                            for path in rule.inputs])
def test_every_replacing_input_is_a_change_that_replaces(kind, path):
    """Each entry of each source's list: a change to it alone replaces the resource; the same value does not."""
    rule = replacing_of(kind)
    assert rule is not None

    def nested(value):
        found = value
        for key in reversed(path.split(".")):
            found = {key: found}
        return found

    assert _changes(rule, nested("old"), nested("new")) == [Change(path, "'old'", "'new'")]
    assert _changes(rule, nested("same"), nested("same")) == []
    assert _changes(rule, nested("old"), {}) == []  # set on one side only: compared with nothing
