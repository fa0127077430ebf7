"""A new user's trial of pool-replacement-safe (issue 65): Pulumi's `pulumi new` GKE and AKS templates
(tests/testkit/programs/templates) and an EKS cluster as pulumi/examples' aws-py-eks writes one with pulumi-aws
(tests/cli/programs/oracle-eks, the program the engine oracle runs), extended with node pools a team adds, named by the
program and left to the provider, deployed (export_program), then changed and previewed against that deployment as
`pulumi preview` of a deployed stack does (evaluate(..., deployed=)). (The EKS template itself builds its cluster with
pulumi-eks over awsx's VPC, a component the test kit does not run: its subnets are not known even against a
deployment, so a managed group's replacement there is a note, never a pass: tests/testkit/test_templates.py.) Every fault replaces a pool whose old self is deleted first under workloads no other pool
takes, or changes what the platform cannot change in place, and is refused; every valid change is not. Before issue 65
each fault of a bridged pool was a note in a real preview (the engine sends no __defaults), and the test kit's first
preview knew no output of the resources the pools are fed from (EKS nodeRoleArn, GKE serviceAccount: "not known
yet")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compute_guard.testkit import evaluate, export_program

TEMPLATES = Path(__file__).resolve().parent / "programs" / "templates"
POLICY = "pool-replacement-safe"

DEPLOY = '''
import pulumi_kubernetes as _k8s


def _deploy(name, provider, selector):
    labels = {"app": name}
    _k8s.apps.v1.Deployment(name, metadata={"name": name}, spec={"replicas": 2, "selector": {"matchLabels": labels},
        "template": {"metadata": {"labels": labels}, "spec": {"nodeSelector": selector, "containers": [{
            "name": name, "image": "nginx", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}},
        opts=pulumi.ResourceOptions(provider=provider))
'''
EKS = '''
_provider = _k8s.Provider("k8s", kubeconfig=cluster.endpoint)
aws.eks.NodeGroup("apps", cluster_name=cluster.name, node_group_name={name}, node_role_arn=role.arn,
                  subnet_ids=["subnet-1", "subnet-2"], instance_types=["{machine}"], ami_type="{ami}",
                  scaling_config={{"min_size": 1, "max_size": 3, "desired_size": 1}})
{second}
_deploy("web", _provider, {pinned})
'''
EKS_SECOND = '''aws.eks.NodeGroup("more", cluster_name=cluster.name, node_group_name="more", node_role_arn=role.arn,
                  subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                  scaling_config={"min_size": 1, "max_size": 3, "desired_size": 1})'''
# aws-py-eks's shape with pulumi-aws: a role the node groups take, the cluster (tests/cli/programs/oracle-eks without
# its own groups and workloads)
EKS_BASE = '''"""An EKS cluster with pulumi-aws, as pulumi/examples' aws-py-eks writes one."""
import json

import pulumi
import pulumi_aws as aws

role = aws.iam.Role("nodes", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [{
    "Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}}]}))
cluster = aws.eks.Cluster("fleet", role_arn=role.arn, version="1.33",
                          vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1", "subnet-2"]))
'''
GKE = '''
_provider = _k8s.Provider("k8s", kubeconfig=kubeconfig)
gcp.container.NodePool("apps", cluster=cluster.id, name={name}, node_count=1, node_config={{
    "machine_type": "{machine}", "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"],
    "service_account": account.email{spot}, "labels": {{"pool": "apps"}}}})
_deploy("web", _provider, {{"pool": "apps"}})
'''
AKS = '''
_provider = _k8s.Provider("k8s", kubeconfig=kubeconfig)
containerservice.AgentPool("apps", resource_group_name=group.name, resource_name_=cluster.name,
                           agent_pool_name="apps", vm_size="{machine}", count=1, mode="User",
                           node_labels={{"pool": "apps"}})
_deploy("web", _provider, {{"pool": "apps"}})
'''


def project(tmp_path: Path, template: str, code: str) -> Path:
    work = tmp_path / template
    if work.exists():
        shutil.rmtree(work)
    if template == "aws-py-eks":
        work.mkdir(parents=True)
        (work / "Pulumi.yaml").write_text("name: aws-py-eks\nruntime: python\n")
        (work / "__main__.py").write_text(EKS_BASE)
    else:
        shutil.copytree(TEMPLATES / template, work)
    main = work / "__main__.py"
    text = main.read_text()
    main.write_text(text + DEPLOY + code)
    return work


def judged(tmp_path: Path, template: str, before: str, after: str, config: dict[str, str],
           changed: dict[str, str] | None = None) -> list[str]:
    """pool-replacement-safe's findings on the changed program (``changed``: its stack config besides), previewed
    against the deployed one."""
    deployed = export_program(project(tmp_path / "before", template, before), tmp_path / "deployed.json",
                              stack_config=config)
    result = evaluate(project(tmp_path / "after", template, after), stack_config={**config, **(changed or {})},
                      deployed=deployed)
    assert [note.reasons for note in result.notes if note.policy == POLICY] == []  # decided, never "not judged"
    return result.findings(POLICY)


def eks(name: str | None = '"apps"', machine: str = "m7i.large", ami: str = "AL2023_x86_64_STANDARD",
        second: bool = False, pinned: str = "None") -> str:
    return EKS.format(name=name, machine=machine, ami=ami, second=EKS_SECOND if second else "", pinned=pinned)


def gke(name: str | None = '"apps"', machine: str = "e2-standard-4", spot: bool | None = None) -> str:
    return GKE.format(name=name, machine=machine, spot="" if spot is None else f', "spot": {spot}')


AWS, GCP, AZURE = {"compute:platform": "aws"}, {"compute:platform": "gcp"}, {"compute:platform": "azure"}
FAULTS = [
    ("EKS: a named managed group's machines change", "aws-py-eks", eks(), eks(machine="m7i.xlarge"), AWS),
    ("EKS: a named managed group's AMI type changes", "aws-py-eks", eks(),
     eks(ami="BOTTLEROCKET_x86_64"), AWS),
    ("EKS: a named group beside a second one, the workloads pinned to it", "aws-py-eks",
     eks(second=True, pinned='{"eks.amazonaws.com/nodegroup": "apps"}'),
     eks(machine="m7i.xlarge", second=True, pinned='{"eks.amazonaws.com/nodegroup": "apps"}'), AWS),
    ("GKE: a named pool moved to spot, spot never written", "kubernetes-gcp-python", gke(), gke(spot=True), GCP),
    ("GKE: a named pool's spot written false, then true", "kubernetes-gcp-python", gke(spot=False), gke(spot=True),
     GCP),
    ("AKS: a named agent pool's VM size changes", "kubernetes-azure-python", AKS.format(machine="Standard_D4s_v5"),
     AKS.format(machine="Standard_D8s_v5"), AZURE),
]
VALID = [
    ("EKS: an auto-named managed group's machines change", "aws-py-eks", eks(name=None),
     eks(name=None, machine="m7i.xlarge"), AWS),
    ("EKS: a named group's machines change beside a second group", "aws-py-eks", eks(second=True),
     eks(machine="m7i.xlarge", second=True), AWS),
    ("GKE: an auto-named pool moved to spot", "kubernetes-gcp-python", gke(name=None), gke(name=None, spot=True), GCP),
    ("GKE: a named pool's machine type (changed in place)", "kubernetes-gcp-python", gke(),
     gke(machine="e2-standard-8"), GCP),
    ("AKS: the same agent pool, unchanged", "kubernetes-azure-python", AKS.format(machine="Standard_D4s_v5"),
     AKS.format(machine="Standard_D4s_v5"), AZURE),
]


@pytest.mark.parametrize("fault, template, before, after, config", FAULTS, ids=[case[0] for case in FAULTS])
def test_each_replacement_fault_is_refused(tmp_path, fault, template, before, after, config):
    found = judged(tmp_path, template, before, after, config)
    assert len(found) == 1, found
    assert "it replaces the pool" in found[0] and "the old pool is deleted first" in found[0], found[0]


@pytest.mark.parametrize("case, template, before, after, config", VALID, ids=[case[0] for case in VALID])
def test_no_valid_change_is_refused(tmp_path, case, template, before, after, config):
    assert judged(tmp_path, template, before, after, config) == []


def test_the_aks_templates_system_pool_resized_in_place_is_refused(tmp_path):
    """The template's inline system pool moved to another VM size: azure-native updates agentPoolProfiles in place,
    and AKS refuses a VM size change in place, so the update fails."""
    code = AKS.format(machine="Standard_D4s_v5")
    found = judged(tmp_path, "kubernetes-azure-python", code, code, AZURE,
                   {"aks-template:nodeVmSize": "Standard_D4s_v5"})
    assert len(found) == 1 and "agentPoolProfiles['systempool'].vmSize changes" in found[0], found
