"""SPEC 19 through the engine's door (the pack started as the engine starts it), the previous deployment discovered as a
user's preview finds it: the stack's checkpoint in a local (file://) backend, no configuration. The cloud providers
cannot run here, so the program runs under the test kit's mocks, written as pulumi/examples write an EKS cluster with a
managed node group (aws-py-eks), and its resources are sent as the engine sends them (Analyze with each resource's
checked inputs, then AnalyzeStack). In-process twins: tests/policies/test_pool_replacement_safe.py,
test_cluster_version_skew.py."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from compute_guard.testkit import export_program, previous_deployment
from compute_guard.testkit.engine import EnginePack
from compute_guard.testkit.program import capture

PROGRAM = '''
import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="arn:aws:iam::123456789012:role/eks", version="{version}",
                          vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1", "subnet-2"]))
aws.eks.NodeGroup("general", cluster_name=cluster.name, {name}node_role_arn="arn:aws:iam::123456789012:role/nodes",
                  subnet_ids=["subnet-1", "subnet-2"], instance_types=["{machine}"],
                  scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=2, min_size=1, max_size=4){opts})
{second}
provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
labels = {{"app": "api"}}
k8s.apps.v1.Deployment("api", spec={{"replicas": 2, "selector": {{"match_labels": labels}}, "template": {{
    "metadata": {{"labels": labels}}, "spec": {{"containers": [{{"name": "api", "image": "nginx", "resources": {{
        "requests": {{"cpu": "100m", "memory": "128Mi"}}}}}}]}}}}}}, opts=pulumi.ResourceOptions(provider=provider))
'''
SECOND = '''aws.eks.NodeGroup("spare", cluster_name=cluster.name, node_group_name="spare",
                  node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
                  instance_types=["m7i.large"],
                  scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=4))'''
CONFIG = {"compute:platform": "aws", "aws:region": "us-west-2"}


def program(root: Path, machine: str, named: bool = True, second: bool = False, version: str = "1.31",
            option: bool = False) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "Pulumi.yaml").write_text("name: fleet\nruntime: python\n")
    (root / "__main__.py").write_text(textwrap.dedent(PROGRAM.format(
        machine=machine, name='node_group_name="general", ' if named else "", second=SECOND if second else "",
        version=version, opts=",\n                  opts=pulumi.ResourceOptions(delete_before_replace=True)" if option else "")))
    return root


def deployed(tmp_path: Path, path: Path) -> dict[str, str]:
    """The program as deployed, its checkpoint in a local backend: the environment that finds it (the pack's previous
    deployment, and the test kit's: an update preview, in which what does not change has its deployed outputs)."""
    root = tmp_path / "backend"
    (root / ".pulumi" / "stacks" / "fleet").mkdir(parents=True, exist_ok=True)
    export = json.loads(export_program(path, tmp_path / "deployed.json", stack_config=CONFIG, project="fleet",
                                       stack="dev").read_text())
    (root / ".pulumi" / "stacks" / "fleet" / "dev.json").write_text(json.dumps(
        {"version": 3, "checkpoint": {"latest": export["deployment"]}}))
    return {"PULUMI_BACKEND_URL": f"file://{root}"}


def previewed(tmp_path: Path, before: Path, after: Path, policy: str) -> list[list[tuple[str, str]]]:
    env = deployed(tmp_path, before)
    previous = previous_deployment(Path(env["PULUMI_BACKEND_URL"][len("file://"):]) / ".pulumi" / "stacks" / "fleet" / "dev.json")
    captured = capture(after, stack_config=CONFIG, project="fleet", stack="dev", previous=previous)
    resources = [captured.stack, *captured.resources]
    found = []
    for shim in ({}, {"COMPUTE_GUARD_SDK_SHIM": "off"}):
        with EnginePack(CONFIG, project="fleet", stack="dev", env={**env, **shim}) as pack:
            result = pack.run(resources)
        found.append([(v.urn.rsplit("::", 1)[-1], v.finding) for v in result.violations if v.policy == policy])
    assert found[0] == found[1]  # the SDK shim changes no result
    return found


REPLACED = ("pool 'general' (NodeGroup): its instanceTypes changes from 'm7i.large' to 'm7i.xlarge', which the AWS "
            "provider cannot apply in place: it replaces the pool. Its nodeGroupName 'general' is set by the program, "
            "so the replacement cannot be created while the old pool holds the name: the old pool is deleted first "
            "(Pulumi deletes before replacing a resource whose name the program set), and Deployment 'api' run on no "
            "other pool of its cluster: every Pod of them is down until the new nodes join; add a second pool that "
            "takes them first, or leave nodeGroupName unset so the new pool is created before the old one goes")


@pytest.mark.parametrize(("named", "second", "refused"), [(True, False, True), (False, False, False),
                                                          (True, True, False)])
def test_a_node_group_replaced_under_its_only_workloads(tmp_path, named, second, refused):
    before = program(tmp_path / "before", "m7i.large", named, second)
    after = program(tmp_path / "after", "m7i.xlarge", named, second)
    found = previewed(tmp_path, before, after, "pool-replacement-safe")[0]
    assert found == ([("general", REPLACED)] if refused else [])


def test_the_delete_before_replace_option_reaches_the_pack(tmp_path):
    """The resource option the engine sends with each resource (AnalyzerResource.options), read by the SDK shim and
    on the SDK's own path alike: an auto-named group with deleteBeforeReplace is deleted before its replacement."""
    before = program(tmp_path / "before", "m7i.large", named=False, option=True)
    after = program(tmp_path / "after", "m7i.xlarge", named=False, option=True)
    (found,) = previewed(tmp_path, before, after, "pool-replacement-safe")[0]
    assert found[0] == "general" and "Its deleteBeforeReplace resource option deletes the old pool before its " \
        "replacement is created, and Deployment 'api' run on no other pool of its cluster" in found[1]


def test_a_control_plane_moved_two_minors_through_the_engine(tmp_path):
    before = program(tmp_path / "before", "m7i.large", version="1.29")
    after = program(tmp_path / "after", "m7i.large", version="1.31")
    assert previewed(tmp_path, before, after, "cluster-version-skew")[0] == [("fleet", (
        "EKS cluster 'fleet': its control plane would move from Kubernetes 1.29 to 1.31, skipping 1 minor version: EKS "
        "upgrades a control plane one minor version at a time; set version to 1.30, deploy, and go on one minor at a "
        "time (its node pools with it)"))]
