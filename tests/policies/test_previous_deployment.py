"""The previous deployment: one reader, one behaviour without it (SPEC 5, issue 67).

Every policy that judges a change reads the previous deployment through its context (``Context.previous``) and
declares what it judges with it (``Policy.previous``); the policy template gives the one behaviour SPEC 5 describes
when there is none. Here one program makes all of them ask, and each must answer the same way: a second reader, or a
policy that handles a missing baseline its own way, fails these tests."""

from __future__ import annotations

import ast
from pathlib import Path

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest
from builders import exported

from compute_guard.policies import ALL
from compute_guard.policies.adapters.baseline import HOW_TO
from compute_guard.testkit import evaluate

POLICIES = Path(__file__).resolve().parents[2] / "policies"
ROLE = "arn:aws:iam::123456789012:role/eks"
ASKING = {policy.name: policy for policy in ALL if policy.previous}
AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}


def program(node_version: str = "1.34", budget: int = 0, machine: str = "m7i.large"):
    """An EKS cluster at 1.34 whose node group runs a Deployment that a budget keeps, a node group of Amazon Linux 2
    that sets no version, and a ComputeCluster: every policy that reads the previous deployment asks for it here (a
    cluster naming its version, a pool, a budget that allows no eviction, a pool that follows its control plane at a
    version its image does not run, a ComputeCluster, any stack)."""
    def build() -> None:
        from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs

        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version="1.34",
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=[machine], version=node_version,
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=2, min_size=2, max_size=3))
        aws.eks.NodeGroup("legacy", cluster_name=cluster.name, node_group_name="legacy", node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=[machine], ami_type="AL2_x86_64",
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=1),
                          taints=[aws.eks.NodeGroupTaintArgs(key="legacy", value="true", effect="NO_SCHEDULE")])
        labels = {"app": "api"}
        opts = pulumi.ResourceOptions(depends_on=[cluster])
        k8s.apps.v1.Deployment("api", metadata={"name": "api"}, spec={
            "replicas": 2, "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "api", "image": "api:1"}]}}},
            opts=opts)
        k8s.policy.v1.PodDisruptionBudget("api", metadata={"name": "api"}, spec={
            "maxUnavailable": budget, "selector": {"matchLabels": labels}}, opts=opts)
        ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
            CapacityGroup(group_id="general", min_size=1, max_size=2, instance_type=machine)]))
    return build


@pytest.fixture
def no_backend(monkeypatch, tmp_path):
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    monkeypatch.delenv("PULUMI_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_the_policies_that_judge_a_change_each_declare_it():
    assert sorted(ASKING) == ["cluster-version-skew", "compute-cluster-safe-update", "node-image-supported",
                              "pool-replacement-safe", "pool-safe-update", "workload-disruption-allowed"]
    for policy in ASKING.values():
        assert policy.settings["baseline"]["type"] == "string"  # the template gives them the setting


def test_no_policy_reads_the_previous_deployment_but_through_its_context():
    """One reader: ``state.baseline`` is called by the policy template alone, and a policy that reads the previous
    deployment (context.previous) declares what it judges with it."""
    for path in sorted(POLICIES.rglob("*.py")):
        tree = ast.parse(path.read_text())
        calls = {node.func.attr for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}
        reads = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        if path.name != "templates.py" and path.parent.name != "adapters" or path.name == "dependents.py":
            assert "baseline" not in calls, path
        if path.parent == POLICIES and "previous" in reads and path.stem.replace("_", "-") in {
                policy.name for policy in ALL}:
            assert path.stem.replace("_", "-") in ASKING, path


def test_a_configured_baseline_that_cannot_be_read_is_one_violation_of_each(tmp_path, no_backend):
    missing = tmp_path / "nope.json"
    config = {name: {"baseline": str(missing)} for name in ASKING}
    result = evaluate(program(), stack_config=AWS, policy_config=config)
    for name in ASKING:
        assert result.findings(name)[-1:] == [
            f"{name}: the configured baseline '{missing}' cannot be read: no such file; fix the path or the file"], name


def test_without_a_previous_deployment_each_says_what_it_did_not_judge_and_how_to_give_one(no_backend):
    """No previous deployment the pack can read: the engine's analyzer alone, no backend (the test kit's own first
    preview is a stack never deployed, whose empty state the pack reads: tests below)."""
    from compute_guard.testkit import capture_program
    from compute_guard.testkit.analyzer import Analyzer, stack_environment

    with stack_environment(AWS, "project", "stack", True):
        result = Analyzer().run(capture_program(program(), stack_config=AWS))
    for name, policy in ASKING.items():
        said = f"{policy.previous} is not judged: {HOW_TO}"
        reasons = [n.reason for n in result.not_applicable if n.policy == name]
        notes = [n.finding for n in result.notes if n.policy == name and said in n.finding]
        assert (reasons and set(reasons) == {said}) or len(notes) == 1, (name, reasons, notes)


def test_a_stack_never_deployed_is_every_policys_previous_deployment(no_backend):
    """Issue 75 (SPEC 5): the test kit's first preview is a stack never deployed, as `pulumi stack init` leaves it: the
    pack reads its empty state, so no policy says a previous deployment is missing, nothing is compared as changed,
    and a pool that follows its control plane is created by this preview (node-image-supported refuses the AL2 group
    at 1.34; on main it was a note)."""
    result = evaluate(program(), stack_config=AWS)
    assert [n for n in result.not_applicable if n.policy in ASKING] == []
    assert [n for n in result.notes if n.policy in ASKING and "not judged" in n.finding] == []
    assert [name for name in ASKING if result.findings(name)] == ["node-image-supported"]
    assert result.findings("node-image-supported")[0].startswith(
        "pool 'legacy' (NodeGroup): this preview creates it (the previous deployment does not hold it)")


def test_with_the_previous_deployment_none_says_it_is_missing(tmp_path, no_backend):
    baseline = exported(program(), tmp_path / "export.json", AWS)
    result = evaluate(program(), stack_config=AWS,
                      policy_config={name: {"baseline": str(baseline)} for name in ASKING})
    assert [n for n in result.not_applicable if n.policy in ASKING] == []
    assert [n for n in result.notes if n.policy in ASKING and "not judged" in n.finding] == []
    assert [name for name in ASKING if result.findings(name)] == []  # nothing changed, nothing refused


def test_a_baseline_of_another_stack_is_said_and_compares_nothing(tmp_path, no_backend):
    baseline = exported(program(machine="t4g.large"), tmp_path / "export.json", AWS)
    text = baseline.read_text().replace("urn:pulumi:stack::project::", "urn:pulumi:prod::shop::")
    baseline.write_text(text)
    result = evaluate(program(), stack_config=AWS,
                      policy_config={name: {"baseline": str(baseline)} for name in ASKING})
    for name in ASKING:
        notes = [n.finding for n in result.notes if n.policy == name]
        assert len(notes) == 1 and "the previous deployment matches no resource of this stack" in notes[0], name
        assert [finding for finding in result.findings(name) if "t4g" in finding] == [], name
