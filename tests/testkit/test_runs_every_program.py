"""The test kit runs every valid program as the engine would (issue 45, SPEC 14.4): the engine's URNs, components
whose children their provider builds, a Helm v3 Chart rendered from rendered=, provider-style auto-names, list inputs
as the SDK's types expect them, a second evaluate in one process, a program that hangs, and the test kit's own
failures named as such."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from compute_guard.testkit import capture_program, evaluate

# --- the engine's URNs -------------------------------------------------------------------------------------------

NESTED = '''
import pulumi
import pulumi_kubernetes as k8s


class Web(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("acme:index:Web", name, {}, opts)
        k8s.apps.v1.Deployment(name, spec={
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"nodeSelector": {"kubernetes.io/arch": "amd64"},
                                  "containers": [{"name": "web", "image": "nginx"}]}}},
            opts=pulumi.ResourceOptions(parent=self))


class App(pulumi.ComponentResource):
    def __init__(self, name):
        super().__init__("acme:index:App", name, {})
        Web("web", opts=pulumi.ResourceOptions(parent=self))


App("shop")
'''


def _project(tmp_path: Path, program: str, name: str = "shop") -> Path:
    root = tmp_path / name
    root.mkdir(parents=True)
    (root / "Pulumi.yaml").write_text(f"name: {name}\nruntime: python\n")
    (root / "__main__.py").write_text(textwrap.dedent(program))
    return root


def test_urns_are_the_engines_with_the_whole_parent_chain(tmp_path):
    """pkg/resource/urn.go NewURN: the parent's whole qualified type, and none for a child of the stack; the SDK's
    mocks wrote 'pulumi:pulumi:Stack$' before every type and only the last parent's."""
    urns = {r.type: r.urn for r in capture_program(_project(tmp_path, NESTED), project="shop", stack="dev")}
    assert urns["acme:index:App"] == "urn:pulumi:dev::shop::acme:index:App::shop"
    assert urns["acme:index:Web"] == "urn:pulumi:dev::shop::acme:index:App$acme:index:Web::web"
    assert urns["kubernetes:apps/v1:Deployment"] == (
        "urn:pulumi:dev::shop::acme:index:App$acme:index:Web$kubernetes:apps/v1:Deployment::web")
    assert urns["pulumi:providers:kubernetes"] == "urn:pulumi:dev::shop::pulumi:providers:kubernetes::default_4_34_2"


def test_an_exemption_written_from_a_real_previews_urn_matches_under_the_test_kit(tmp_path):
    urn = "urn:pulumi:dev::shop::acme:index:App$acme:index:Web$kubernetes:apps/v1:Deployment::web"
    config = {"compute:platform": "kubernetes"}
    exempt = {"workload-node-architecture": {"exemptions": [
        {"resource": urn, "reason": "OPS-1", "expires": "2027-01-31"}]}}
    project = _project(tmp_path, NESTED.replace('"amd64"', '"arm64"') + textwrap.dedent('''
        from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs, MachineProfile
        ComputeCluster("compute", ComputeClusterArgs(id="shop", capacity_groups=[CapacityGroup(
            group_id="general", min_size=1, max_size=2, profile=MachineProfile(
                cpu="2", memory_bytes=8 << 30, ephemeral_storage_bytes=20 << 30, architecture="x86_64"))]))
        '''))
    plain = evaluate(project, stack="dev", stack_config=config)
    assert [v.urn for v in plain.of("workload-node-architecture")] == [urn]
    exempted = evaluate(project, stack="dev", stack_config=config, policy_config=exempt)
    assert exempted.of("workload-node-architecture") == []
    assert [(v.urn, v.finding.split(":", 1)[0]) for v in exempted.of("exemptions-in-force")] == [
        (urn, "workload-node-architecture")]  # exempt, shown; not 'matches no resource of this stack'
    assert "[exempt until 2027-01-31: OPS-1]" in exempted.of("exemptions-in-force")[0].finding


# --- components whose children their provider builds ---------------------------------------------------------

AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}
EKS_TWO_GROUPS = '''
import pulumi
import pulumi_eks as eks
import pulumi_kubernetes as k8s

ROLE = "arn:aws:iam::123456789012:role/nodes"
cluster = eks.Cluster("cluster", skip_default_node_group=True)
eks.NodeGroupV2("arm", cluster=cluster, instance_type="t4g.medium", min_size=1, max_size=3)
eks.ManagedNodeGroup("amd", cluster=cluster, node_group_name="amd", instance_types=["m7i.large"], node_role_arn=ROLE,
                     scaling_config={"desired_size": 1, "min_size": 1, "max_size": 2})
provider = k8s.Provider("k8s", kubeconfig=cluster.kubeconfig)
labels = {"app": "big"}
k8s.apps.v1.Deployment("big", spec={"selector": {"match_labels": labels}, "template": {
    "metadata": {"labels": labels}, "spec": {"containers": [{
        "name": "big", "image": "nginx", "resources": {"requests": {"memory": "16Gi"}}}]}}},
    opts=pulumi.ResourceOptions(provider=provider))
pulumi.export("cluster_name", cluster.eks_cluster.name)
'''


def test_pulumi_eks_components_are_built_into_what_pulumi_eks_registers(tmp_path):
    """The real pulumi_eks SDK: its components are remote (its Node.js provider builds their children), so under
    the mocks the program's workloads met no pool and got no word; the test kit builds them as pulumi-eks does."""
    resources = capture_program(_project(tmp_path, EKS_TWO_GROUPS, "eks"), project="eks", stack="dev")
    children = sorted((r.type, r.urn) for r in resources if r.parent and "::eks:index:" in r.parent)
    role = "urn:pulumi:dev::eks::eks:index:Cluster$eks:index:ServiceRole"
    assert children == [
        ("aws:autoscaling/group:Group", "urn:pulumi:dev::eks::eks:index:NodeGroupV2$aws:autoscaling/group:Group::arm"),
        ("aws:ec2/launchTemplate:LaunchTemplate",
         "urn:pulumi:dev::eks::eks:index:NodeGroupV2$aws:ec2/launchTemplate:LaunchTemplate::arm-launchTemplate"),
        ("aws:eks/cluster:Cluster", "urn:pulumi:dev::eks::eks:index:Cluster$aws:eks/cluster:Cluster::cluster-eksCluster"),
        ("aws:eks/nodeGroup:NodeGroup", "urn:pulumi:dev::eks::eks:index:ManagedNodeGroup$aws:eks/nodeGroup:NodeGroup::amd"),
        # the cluster's service role (createCore), a ServiceRole component and its Role; no instance role (the
        # program skips the default node group and sets no createInstanceRole)
        ("aws:iam/role:Role", f"{role}$aws:iam/role:Role::cluster-eksRole-role"),
        ("eks:index:ServiceRole", f"{role}::cluster-eksRole")]
    cluster = next(r for r in resources if r.type == "aws:eks/cluster:Cluster")
    assert cluster.property_dependencies["roleArn"] == (f"{role}$aws:iam/role:Role::cluster-eksRole-role",)
    group = next(r for r in resources if r.type == "aws:eks/nodeGroup:NodeGroup")
    cluster_urn = "urn:pulumi:dev::eks::eks:index:Cluster$aws:eks/cluster:Cluster::cluster-eksCluster"
    assert group.property_dependencies["clusterName"] == (cluster_urn,)
    assert group.inputs["scalingConfig"]["maxSize"] == 2 and list(group.inputs["instanceTypes"]) == ["m7i.large"]


def test_pulumi_eks_defaults_are_its_own(tmp_path):
    """What pulumi-eks fills in, as its code does (nodes/nodegroup.ts createManagedNodeGroup: scalingConfig 2 / 1 / 2
    when none is given; determineAmiType: operatingSystem AL2023 with gpu on x86_64 instance types is
    AL2023_x86_64_NVIDIA, on Graviton AL2023_ARM_64_NVIDIA; createNodeGroupV2: minSize 1, maxSize 2, t3.medium), each
    through the test kit's expansion (issue 57: a planted change of each passed the suite)."""
    program = '''
import pulumi_eks as eks

ROLE = "arn:aws:iam::123456789012:role/nodes"
cluster = eks.Cluster("cluster", skip_default_node_group=True)
eks.ManagedNodeGroup("plain", cluster=cluster, node_group_name="plain", instance_types=["m7i.large"],
                     node_role_arn=ROLE)
eks.ManagedNodeGroup("gpu", cluster=cluster, node_group_name="gpu", instance_types=["g5.xlarge"], node_role_arn=ROLE,
                     operating_system="AL2023", gpu=True)
eks.ManagedNodeGroup("rocket", cluster=cluster, node_group_name="rocket", instance_types=["g5g.xlarge"],
                     node_role_arn=ROLE,
                     operating_system="Bottlerocket", gpu=True)
eks.ManagedNodeGroup("std", cluster=cluster, node_group_name="std", instance_types=["m7i.large"], node_role_arn=ROLE,
                     operating_system="AL2023")
eks.NodeGroupV2("self", cluster=cluster)
'''
    resources = capture_program(_project(tmp_path, program, "eks"), project="eks", stack="dev")
    groups = {r.inputs["nodeGroupName"]: r.inputs for r in resources if r.type == "aws:eks/nodeGroup:NodeGroup"}
    assert {key: value for key, value in groups["plain"]["scalingConfig"].items() if not key.startswith("__")} == {
        "desiredSize": 2, "minSize": 1, "maxSize": 2}  # (with the __defaults the AWS provider's Check adds)
    assert "amiType" not in groups["plain"]  # no operatingSystem: EKS picks the AMI type
    assert {name: groups[name]["amiType"] for name in ("gpu", "rocket", "std")} == {
        "gpu": "AL2023_x86_64_NVIDIA", "rocket": "BOTTLEROCKET_ARM_64_NVIDIA", "std": "AL2023_x86_64_STANDARD"}
    (group,) = [r.inputs for r in resources if r.type == "aws:autoscaling/group:Group"]
    (template,) = [r.inputs for r in resources if r.type == "aws:ec2/launchTemplate:LaunchTemplate"]
    assert (group["minSize"], group["maxSize"], template["instanceType"]) == (1, 2, "t3.medium")
    # pulumi-eks 4.3 has no AL2023 AMI type with GPUs on Graviton: its getAmiType throws, and so does the program
    from compute_guard.testkit import ProgramError
    arm = "import pulumi_eks as eks\ncluster = eks.Cluster('c', skip_default_node_group=True)\n" \
          "eks.ManagedNodeGroup('g', cluster=cluster, instance_types=['g5g.xlarge'], operating_system='AL2023', " \
          "gpu=True,\n                     node_role_arn='arn:aws:iam::123456789012:role/nodes')\n"
    with pytest.raises(ProgramError, match="No AMI type found for OS: AL2023, GPU support: true, architecture: arm64"):
        capture_program(_project(tmp_path / "arm", arm, "eks"))
    # and a managed node group without a role (nodes/nodegroup.ts: "An IAM role, or role ARN must be provided")
    bare = "import pulumi_eks as eks\ncluster = eks.Cluster('c', skip_default_node_group=True)\n" \
           "eks.ManagedNodeGroup('g', cluster=cluster, instance_types=['m7i.large'])\n"
    with pytest.raises(ProgramError, match="An IAM role, or role ARN must be provided to create a managed node group"):
        capture_program(_project(tmp_path / "bare", bare, "eks"))


def test_a_program_with_two_pulumi_eks_node_groups_gets_its_workloads_judged(tmp_path):
    result = evaluate(_project(tmp_path, EKS_TWO_GROUPS, "eks"), stack="dev", stack_config=AWS)
    assert sorted((pool.source, pool.name, pool.cluster, pool.machines, pool.max_size) for pool in result.pools) == [
        ("NodeGroup", "amd", "EKS cluster 'cluster'", ("m7i.large",), 2),
        ("autoscaling Group", "arm-6e2c0a7", "EKS cluster 'cluster'", ("t4g.medium",), 3)]
    assert [v.finding.split(":", 1)[0] for v in result.of("workload-fits-pool")] == ["Deployment 'big'"]
    assert "16 GiB of memory, more than any node of the pools that can take it" in \
        result.of("workload-fits-pool")[0].finding


def test_the_same_program_runs_twice_in_one_process(tmp_path):
    """The real pulumi_eks program crashed or hung in about half the runs, and always on a second evaluate
    ('RuntimeError ... attached to a different loop': the mock monitor deserialized the node group's cluster=
    reference on its own thread's event loop)."""
    project = _project(tmp_path, EKS_TWO_GROUPS, "eks")
    first, second = (evaluate(project, stack="dev", stack_config=AWS) for _ in range(2))
    assert [v.finding for v in first.violations] == [v.finding for v in second.violations]
    assert first.pools == second.pools and len(first.pools) == 2


def test_a_remote_component_no_builder_knows_is_not_checked_and_a_networking_one_is_listed(tmp_path):
    program = '''
        import pulumi
        pulumi.ComponentResource("acme:index:Fleet", "fleet", {"size": 3}, remote=True)
        pulumi.ComponentResource("awsx:ec2:Vpc", "vpc", {}, remote=True)
        '''
    from compute_guard.testkit import NotChecked

    project = _project(tmp_path, program, "remote")
    with pytest.raises(NotChecked, match=r"acme:index:Fleet 'fleet' \(a component of the 'acme' component provider, "
                                         r"which builds its children and does not run under the test kit's mocks\)"):
        evaluate(project, stack_config={"compute:platform": "kubernetes"})
    result = evaluate(project, stack_config={"compute:platform": "kubernetes"}, unchecked=["fleet"])
    assert [(item.type, item.refused) for item in result.unchecked] == [
        ("acme:index:Fleet", True), ("awsx:ec2:Vpc", False)]
    assert "(a VPC: no pool or workload)" in result.unchecked[1].reason


# --- what the provider would fill in ---------------------------------------------------------------------------

def test_a_helm_v3_charts_get_resource_works_with_its_rendered_manifests(tmp_path):
    program = '''
        import pulumi
        import pulumi_kubernetes as k8s
        chart = k8s.helm.v3.Chart("web", k8s.helm.v3.ChartOpts(chart="nginx", fetch_opts=k8s.helm.v3.FetchOpts(
            repo="https://charts.example.test")))
        pulumi.export("web", chart.get_resource("apps/v1/Deployment", "web").metadata.name)
        '''
    project = _project(tmp_path, program, "helm")
    manifests = project / "rendered.yaml"
    manifests.write_text(textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: "64"}}}]}
        """))
    from compute_guard.testkit import ProgramError

    with pytest.raises(ProgramError, match=r"the test kit rendered no manifests for Helm v3 Chart 'web'"):
        evaluate(project, stack_config={"compute:platform": "kubernetes"}, unchecked=["web"])
    from compute_guard.testkit import capture

    captured = capture(project, rendered={"web": manifests}, project="helm", stack="dev")
    children = [(r.type, r.urn) for r in captured.resources if r.parent.endswith("::web")]
    assert children == [("kubernetes:apps/v1:Deployment",
                         "urn:pulumi:dev::helm::kubernetes:helm.sh/v3:Chart$kubernetes:apps/v1:Deployment::web")]
    assert captured.unchecked == []  # rendered by the SDK from the invoke the test kit answered, so get_resource works
    result = evaluate(project, stack_config={"compute:platform": "kubernetes"}, rendered={"web": manifests})
    assert [v.urn.rsplit("::", 1)[-1] for v in result.of("workload-requests-declared")] == []


def test_an_auto_named_kubernetes_object_has_its_name_as_the_provider_gives_it(tmp_path):
    program = '''
        import pulumi
        import pulumi_kubernetes as k8s
        config = k8s.core.v1.ConfigMap("settings", data={"a": "b"})
        pulumi.export("name", config.metadata.name)
        '''
    resources = capture_program(_project(tmp_path, program, "names"))
    config_map = next(r for r in resources if r.type == "kubernetes:core/v1:ConfigMap")
    name = config_map.outputs["metadata"]["name"]
    assert name.startswith("settings-") and len(name) == len("settings-") + 8
    assert config_map.inputs["metadata"]["name"] == name  # the checked inputs hold it too
    again = next(r for r in capture_program(_project(tmp_path / "again", program, "names"))
                 if r.type == "kubernetes:core/v1:ConfigMap")
    assert again.outputs["metadata"]["name"] == name  # the same on every run


def test_a_list_input_comes_back_as_the_sdks_output_type_expects(tmp_path):
    """azure-native takes identity.userAssignedIdentities as a list of ids and answers a map keyed by them: the
    mocks echoed the list and the SDK raised an AssertionError inside the program ('the program failed')."""
    program = '''
        import pulumi
        from pulumi_azure_native import containerservice
        ident = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id"
        cluster = containerservice.ManagedCluster("aks", resource_group_name="rg", dns_prefix="aks",
            identity={"type": "UserAssigned", "user_assigned_identities": [ident]},
            agent_pool_profiles=[{"name": "agentpool", "mode": "System", "vm_size": "Standard_DS2_v2",
                                  "count": 3}])
        pulumi.export("identities", cluster.identity.apply(lambda i: sorted(i.user_assigned_identities)))
        '''
    project = _project(tmp_path, program, "aks")
    for preview in (True, False):
        result = evaluate(project, stack_config={"compute:platform": "azure"}, preview=preview)
        assert [(pool.source, pool.name) for pool in result.pools] == [("ManagedCluster", "agentpool")]


# --- a hang, and the test kit's own failures ----------------------------------------------------------------

def test_a_program_that_hangs_is_stopped_with_a_clear_error(tmp_path):
    program = '''
        import asyncio
        import pulumi
        never = asyncio.get_event_loop().create_future()
        pulumi.export("never", pulumi.Output.from_input(never))
        '''
    from compute_guard.testkit import ProgramTimeout

    with pytest.raises(ProgramTimeout, match=r"the program did not finish within 1 s under the test kit"):
        evaluate(_project(tmp_path, program, "hangs"), stack_config={"compute:platform": "kubernetes"}, timeout=1)
    assert evaluate(_project(tmp_path, "import pulumi\n", "after"),
                    stack_config={"compute:platform": "kubernetes"}).violations == []  # the next run is clean


def test_a_failure_of_the_test_kit_is_named_as_its_own_not_the_programs(tmp_path, monkeypatch):
    from compute_guard.testkit import TestKitError, components

    def broken(construct):
        raise KeyError("planted")

    monkeypatch.setitem(components.BUILDERS, "eks:index:Cluster", broken)
    with pytest.raises(TestKitError, match=r"compute-guard's test kit failed while registering eks:index:Cluster "
                                           r"'cluster' \(a bug in the test kit, not in your program") as raised:
        evaluate(_project(tmp_path, EKS_TWO_GROUPS, "eks"), stack_config=AWS)
    assert "the program failed" not in str(raised.value) and "KeyError: 'planted'" in str(raised.value)


def test_an_invoke_the_test_kit_does_not_answer_names_itself_and_how_to_answer_it(tmp_path):
    """A data source no mock answers returns nothing under the test kit, and the program fails on it: the error names
    the invoke and shows the mocks= answer that makes the program run (issue 57)."""
    import pulumi

    from compute_guard.testkit import ProgramError

    program = '''
import pulumi_aws as aws
zone = aws.ec2.get_subnet(id="subnet-1").availability_zone
if zone is None:
    raise ValueError("no zone")
'''
    project = _project(tmp_path, program)
    with pytest.raises(ProgramError) as raised:
        capture_program(project)
    message = str(raised.value)
    assert "ValueError: no zone" in message
    assert "it answered no invoke 'aws:ec2/getSubnet:getSubnet': each returned nothing" in message
    assert "def call(self, args): return {...} if args.token == 'aws:ec2/getSubnet:getSubnet' else None" in message

    class Answers(pulumi.runtime.Mocks):
        def new_resource(self, args):
            return None, {}

        def call(self, args):
            return {"id": "subnet-1", "availabilityZone": "us-west-2a"} if args.token == "aws:ec2/getSubnet:getSubnet" \
                else None

    assert capture_program(project, mocks=Answers()) == []
