"""A new user's trial of pool-replacement-safe (issue 65): Pulumi's `pulumi new` GKE and AKS templates
(tests/testkit/programs/templates) and an EKS cluster as pulumi/examples' aws-py-eks writes one with pulumi-aws
(tests/cli/programs/oracle-eks, the program the engine oracle runs), extended with node pools a team adds, named by the
program and left to the provider, deployed (export_program), then changed and previewed against that deployment as
`pulumi preview` of a deployed stack does (evaluate(..., deployed=)); and the EKS template itself (pulumi-eks over
awsx's VPC, whose children's deployed outputs the test kit gives as a deployment holds them: below). Every fault replaces a pool whose old self is deleted first under workloads no other pool
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


# --- Pulumi's EKS template itself: pulumi-eks over awsx's VPC (issue 76) ----------------------------------------
# Before issue 76 the children of the components the test kit builds were exported with null outputs (pulumi-eks's
# cluster role, its instance role, awsx's subnets), which an update preview read as not known yet: every fault below
# was "an input that replaces the cluster is not known yet (string value at .roleArn ...)", and a program that reads
# cluster.instance_roles[0] failed to export. A real update preview reads those outputs as deployed.
TEMPLATE_EKS = '''
_provider = _k8s.Provider("k8s", kubeconfig=cluster.kubeconfig_json)
eks.ManagedNodeGroup("apps", cluster=cluster, {name}instance_types=["{machine}"], ami_type="{ami}",
                     node_role=cluster.instance_roles[0], labels={{"pool": "apps"}},
                     scaling_config={{"min_size": 1, "max_size": 3, "desired_size": 1}})
_deploy("web", _provider, {{"pool": "apps"}})
'''


def template_eks(named: bool = True, machine: str = "m6i.xlarge", ami: str = "AL2023_x86_64_STANDARD") -> str:
    return TEMPLATE_EKS.format(name='node_group_name="apps", ' if named else "", machine=machine, ami=ami)


TEMPLATE_FAULTS = [
    ("a named group's machines change", template_eks(), template_eks(machine="m6i.2xlarge")),
    ("a named group's AMI type changes", template_eks(), template_eks(ami="BOTTLEROCKET_x86_64")),
]
TEMPLATE_VALID = [
    ("an auto-named group's machines change", template_eks(named=False),
     template_eks(named=False, machine="m6i.2xlarge")),
    ("an auto-named group's AMI type changes", template_eks(named=False),
     template_eks(named=False, ami="BOTTLEROCKET_x86_64")),
    ("the named group unchanged", template_eks(), template_eks()),
]


@pytest.mark.parametrize("fault, before, after", TEMPLATE_FAULTS, ids=[case[0] for case in TEMPLATE_FAULTS])
def test_the_eks_templates_replacement_faults_are_refused_against_its_deployment(tmp_path, fault, before, after):
    found = judged(tmp_path, "kubernetes-aws-python", before, after, AWS)
    assert len(found) == 1, found
    assert found[0].startswith("pool 'apps' (NodeGroup): its ") and "it replaces the pool" in found[0] \
        and "the old pool is deleted first" in found[0], found[0]


@pytest.mark.parametrize("case, before, after", TEMPLATE_VALID, ids=[case[0] for case in TEMPLATE_VALID])
def test_the_eks_templates_valid_changes_are_clean_against_its_deployment(tmp_path, case, before, after):
    assert judged(tmp_path, "kubernetes-aws-python", before, after, AWS) == []


def test_the_eks_templates_deployment_holds_what_the_cloud_filled_in(tmp_path):
    """The export holds the component children's outputs a deployment holds: the cluster's role ARN (its ServiceRole's
    Role), awsx's subnets on the cluster and the group, the group's node role (the cluster's instance role)."""
    from compute_guard.testkit import previous_deployment

    deployed = previous_deployment(export_program(project(tmp_path, "kubernetes-aws-python", template_eks()),
                                                  tmp_path / "deployed.json", stack_config=AWS))
    by_type = {entry["type"]: entry for entry in deployed.values()}
    roles = {entry["urn"].rsplit("::", 1)[1]: entry["outputs"]["arn"] for entry in deployed.values()
             if entry["type"] == "aws:iam/role:Role"}
    assert sorted(roles) == ["eks-cluster-eksRole-role", "eks-cluster-instanceRole-role"]
    cluster, group = by_type["aws:eks/cluster:Cluster"]["inputs"], by_type["aws:eks/nodeGroup:NodeGroup"]["inputs"]
    assert cluster["roleArn"] == roles["eks-cluster-eksRole-role"] and \
        roles["eks-cluster-eksRole-role"].startswith("arn:aws:iam::123456789012:role/eks-cluster-eksRole-role-")
    assert group["nodeRoleArn"] == roles["eks-cluster-instanceRole-role"]
    subnets = cluster["vpcConfig"]["subnetIds"]
    assert len(subnets) == 6 and all(subnet.startswith("subnet-") for subnet in subnets)  # 3 zones, public + private
    assert group["subnetIds"] == subnets


AUTO_MODE = (("    instance_type=instance_type,\n    desired_capacity=desired,\n    min_size=min_size,\n"
              "    max_size=max_size,\n", "    auto_mode={\"enabled\": True},\n"),)
AUTO_MODE_WORKLOAD = '''
_provider = _k8s.Provider("k8s", kubeconfig=cluster.kubeconfig_json)
_deploy("web", _provider, {{"kubernetes.io/arch": "{arch}"}})
'''


def test_the_eks_template_on_auto_mode_is_judged_against_its_deployment(tmp_path):
    """eks.Cluster(auto_mode={"enabled": True}): its computeConfig waits on the node role pulumi-eks creates, not known
    in a first preview (a note, as a real one) and known against the deployment, where a Deployment pinned to arm64 on
    Auto Mode's amd64 general-purpose pool is refused and its amd64 twin is clean."""
    def run(arch: str, deployed: Path | None) -> object:
        code = AUTO_MODE_WORKLOAD.format(arch=arch)
        work = project(tmp_path / arch / str(bool(deployed)), "kubernetes-aws-python", code)
        main = work / "__main__.py"
        main.write_text(main.read_text().replace(*AUTO_MODE[0]))
        return evaluate(work, stack_config=AWS, deployed=deployed)

    amd = project(tmp_path / "deployed", "kubernetes-aws-python", AUTO_MODE_WORKLOAD.format(arch="amd64"))
    (amd / "__main__.py").write_text((amd / "__main__.py").read_text().replace(*AUTO_MODE[0]))
    deployed = export_program(amd, tmp_path / "deployed.json", stack_config=AWS)
    refused = run("arm64", deployed)
    assert [(v.policy, v.finding.split(":", 1)[0]) for v in refused.violations] == [
        ("workload-schedulable", "Deployment 'web'")]
    assert "pool 'general-purpose' of EKS cluster 'eks-cluster' runs amd64 nodes, not arm64" in \
        refused.violations[0].finding
    clean = run("amd64", deployed)
    assert clean.violations == [] and clean.notes == []
    first = run("arm64", None)
    assert first.violations == []
    assert [reason for note in first.notes for reason in note.reasons if "Auto Mode" in reason] == [
        "EKS cluster 'eks-cluster-eksCluster' has an Auto Mode computeConfig that is not known yet, so its built-in "
        "NodePools are not; the placement of workloads on it is not judged"]
