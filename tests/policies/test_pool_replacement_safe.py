"""pool-replacement-safe: a preview that replaces a pool deletes it first only where another pool takes its
workloads, and never replaces a cluster under workloads (SPEC 19, policy 25), through the providers' own SDKs: the
previous deployment is the program before the change, exported as `pulumi stack export` writes it (its inputs with
the `__defaults` a bridged provider's Check records, which the test kit writes as the bridge does)."""

from __future__ import annotations

import json
import re

import pulumi
import pulumi_aws as aws
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
import pytest
from builders import exported

from compute_guard.policies.model.replacement import Change, _Compared
from compute_guard.policies.model.sources import replacing_of
from compute_guard.policies.model.sources.aks import REPLACES as AKS
from compute_guard.policies.model.sources.eks import REPLACES as EKS
from compute_guard.policies.model.sources.eks_self_managed import REPLACES as SELF_MANAGED
from compute_guard.policies.model.sources.gke import REPLACES as GKE
from compute_guard.testkit import evaluate, export_program

POLICY = "pool-replacement-safe"
ROLE = "arn:aws:iam::123456789012:role/eks"
AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}
GCP = {"compute:platform": "gcp", "gcp:project": "p", "gcp:zone": "us-central1-a"}




def judge(before, after, tmp_path, config=AWS):
    baseline = exported(before, tmp_path / "export.json", config)
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


def gke_inline(node_count=2, subnetwork="apps", machine="e2-standard-4"):
    """A GKE cluster whose pool is an inline nodePools entry, as many programs write it."""
    def program():
        cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", subnetwork=subnetwork,
                                        node_pools=[{"name": "apps", "node_count": node_count,
                                                     "node_config": {"machine_type": machine}}])
        api(cluster)
    return program


@pytest.mark.parametrize("change, words", [
    ({"node_count": 3}, "its nodePools changes"),
    ({"subnetwork": "other"}, "its subnetwork changes from 'apps' to 'other'"),
])
def test_a_gke_clusters_own_replacing_inputs_replace_it_under_its_workloads(tmp_path, change, words):
    """Issue 66's table audit, from the Google provider's resource_container_cluster.go: an inline nodePools entry is
    changed only by recreating the whole cluster ("node pools defined inside a cluster can't be changed (or
    added/removed) after cluster creation without deleting and recreating the entire cluster"), and so is its
    subnetwork. Both passed: the cluster's table held its name, location, project and nodeConfig only."""
    (found,) = judge(gke_inline(), gke_inline(**change), tmp_path, GCP).findings(POLICY)
    assert found.startswith(f"GKE cluster 'gke': {words}"), found
    assert "which the Google Cloud provider cannot apply in place: it replaces the whole cluster, and Deployment " \
           "'api' run on it" in found
    assert judge(gke_inline(), gke_inline(), tmp_path, GCP).findings(POLICY) == []


def test_the_same_verdicts_twice_in_one_process(tmp_path):
    first = judge(eks("m7i.large"), eks("m7i.xlarge"), tmp_path).findings(POLICY)
    assert first == judge(eks("m7i.large"), eks("m7i.xlarge"), tmp_path).findings(POLICY) != []


@pytest.mark.parametrize(("kind", "path"), [(kind, path) for table in (EKS, GKE, SELF_MANAGED)
                                            for kind, rule in table.items()
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

    assert _Compared(rule.inputs, nested("old"), nested("new"), False).found == [Change(path, "'old'", "'new'")]
    assert _Compared(rule.inputs, nested("same"), nested("same"), False).found == []
    assert _Compared(rule.inputs, nested("old"), {}, False).found == []  # set on one side only: compared with nothing


AZURE = {"compute:platform": "azure", "azure-native:location": "westeurope"}


def aks_native(vm_size="Standard_D4s_v5", system_size="Standard_D4s_v5", plugin="azure", pool=True, workloads=True):
    from pulumi_azure_native import containerservice

    def program():
        cluster = containerservice.ManagedCluster(
            "aks", resource_group_name="rg", resource_name_="aks", location="westeurope", dns_prefix="aks",
            network_profile={"network_plugin": plugin},
            agent_pool_profiles=[{"name": "system", "mode": "System", "vm_size": system_size, "count": 1,
                                  "node_taints": ["CriticalAddonsOnly=true:NoSchedule"]}])
        if pool:
            containerservice.AgentPool("user", resource_group_name="rg", resource_name_="aks",
                                       agent_pool_name="user", vm_size=vm_size, count=2, mode="User")
        if workloads:
            provider = k8s.Provider("k8s", kubeconfig=cluster.fqdn)
            labels = {"app": "api"}
            k8s.apps.v1.Deployment("api", spec={"replicas": 2, "selector": {"match_labels": labels}, "template": {
                "metadata": {"labels": labels}, "spec": {"containers": [{"name": "api", "image": "nginx", "resources": {
                    "requests": {"cpu": "100m", "memory": "128Mi"}}}]}}},
                opts=pulumi.ResourceOptions(provider=provider))
    return program


def test_an_aks_agent_pool_replaced_under_its_only_workloads_is_refused(tmp_path):
    """pulumi-azure-native replaces an AgentPool on vmSize (its forceNewMap) and deletes it first unless its Check named
    it itself, which the state records as __createBeforeDelete (provider.go Diff): agentPoolName 'user' is the
    program's, so the pool is gone before its replacement exists. Before issue 65 this was a note ("no __defaults")."""
    result = judge(aks_native("Standard_D4s_v5"), aks_native("Standard_D8s_v5"), tmp_path, AZURE)
    assert result.findings(POLICY) == [
        "pool 'user' (AgentPool): its vmSize changes from 'Standard_D4s_v5' to 'Standard_D8s_v5', which the Azure "
        "Native provider cannot apply in place: it replaces the pool. Its agentPoolName 'user' is not one the provider "
        "made up, so the replacement cannot be created while the old pool holds the name: the old pool is deleted first "
        "(pulumi-azure-native deletes a resource before replacing it unless it named the resource itself), and "
        "Deployment 'api' run on no other pool of its cluster: every Pod of them is down until the new nodes join; "
        "add a second pool that takes them first"]
    assert [note for note in result.notes if note.policy == POLICY] == []


def test_an_aks_agent_pool_the_provider_named_is_created_before_the_old_one_goes(tmp_path):
    """The same change when the previous deployment's inputs hold __createBeforeDelete: true (the provider named the
    pool with a random name): created first, nothing to say."""
    baseline = exported(aks_native("Standard_D4s_v5"), tmp_path / "export.json", AZURE)
    state = json.loads(baseline.read_text())
    for entry in state["deployment"]["resources"]:
        if entry["type"] == "azure-native:containerservice:AgentPool":
            entry["inputs"]["__createBeforeDelete"] = True
    baseline.write_text(json.dumps(state))
    result = evaluate(aks_native("Standard_D8s_v5"), stack_config=AZURE,
                      policy_config={POLICY: {"baseline": str(baseline)}})
    assert result.findings(POLICY) == []
    assert [note for note in result.notes if note.policy == POLICY] == []


def test_an_inline_agent_pools_vm_size_change_fails_in_place(tmp_path):
    found = judge(aks_native(system_size="Standard_D2s_v5"), aks_native(system_size="Standard_D4s_v5"), tmp_path,
                  AZURE).findings(POLICY)
    assert found == [
        "AKS cluster 'aks': its agentPoolProfiles['system'].vmSize changes from 'Standard_D2s_v5' to "
        "'Standard_D4s_v5': AKS does not change a node pool's VM size in place (learn.microsoft.com/azure/aks/"
        "manage-node-pools, \"Limitations\"), and pulumi-azure-native updates the cluster's agentPoolProfiles in "
        "place, so the update fails; add an agent pool of the new size, move the workloads there, then remove this "
        "one"]


def test_a_managed_cluster_replaced_by_its_network_plugin_under_workloads(tmp_path):
    found = judge(aks_native(plugin="kubenet"), aks_native(plugin="azure"), tmp_path, AZURE).findings(POLICY)
    assert [finding.split(", which")[0] for finding in found] == [
        "AKS cluster 'aks': its networkProfile.networkPlugin changes from 'kubenet' to 'azure'"]
    assert judge(aks_native(plugin="kubenet", workloads=False), aks_native(plugin="azure", workloads=False),
                 tmp_path, AZURE).findings(POLICY) == []


def classic(vm_size="Standard_D4s_v5", rotation=None, default_size="Standard_D2s_v5", default_rotation=None):
    import pulumi_azure as azure_classic

    def program():
        cluster = azure_classic.containerservice.KubernetesCluster(
            "aks", name="aks", resource_group_name="rg", location="westeurope", dns_prefix="aks",
            default_node_pool={"name": "system", "vm_size": default_size, "node_count": 1,
                               "temporary_name_for_rotation": default_rotation})
        azure_classic.containerservice.KubernetesClusterNodePool(
            "user", name="user", kubernetes_cluster_id=cluster.id, vm_size=vm_size, node_count=2,
            temporary_name_for_rotation=rotation)
    return program


def test_a_classic_node_pool_rotated_without_a_temporary_name_fails(tmp_path):
    config = {"compute:platform": "azure"}
    assert judge(classic(), classic("Standard_D8s_v5"), tmp_path, config).findings(POLICY) == [
        "pool 'user' (KubernetesClusterNodePool): its vmSize changes from 'Standard_D4s_v5' to 'Standard_D8s_v5', "
        "which the Azure provider changes only by rotating the pool through a temporary one that "
        "temporaryNameForRotation names; it is not set, so the update fails (\"`temporary_name_for_rotation` must be "
        "specified when updating any of the following properties\"): set temporaryNameForRotation to an unused pool "
        "name"]
    assert judge(classic(), classic("Standard_D8s_v5", rotation="usertmp"), tmp_path, config).findings(POLICY) == []


def test_a_classic_default_pool_rotated_without_a_temporary_name_fails(tmp_path):
    config = {"compute:platform": "azure"}
    found = judge(classic(), classic(default_size="Standard_D4s_v5"), tmp_path, config).findings(POLICY)
    assert [finding.split(": its ")[0] for finding in found] == ["pool 'system' (KubernetesCluster)"]
    assert "set defaultNodePool.temporaryNameForRotation to an unused pool name" in found[0]
    assert judge(classic(), classic(default_size="Standard_D4s_v5", default_rotation="systmp"), tmp_path,
                 config).findings(POLICY) == []


@pytest.mark.parametrize(("kind", "path"), [(kind, path) for kind, rule in AKS.items()
                                            for path in (*rule.inputs, *rule.rotated)])
def test_every_aks_input_that_replaces_or_rotates_is_a_change(kind, path):
    rule = replacing_of(kind)
    assert rule is not None

    def nested(value):
        found = value
        for key in reversed(path.split(".")):
            found = {key: found}
        return found

    paths = rule.inputs if path in rule.inputs else rule.rotated
    assert _Compared(paths, nested("old"), nested("new"), False).found == [Change(path, "'old'", "'new'")]
    assert _Compared(paths, nested("same"), nested("same"), False).found == []


def test_a_replacing_input_not_known_yet_is_said_where_it_decides(tmp_path):
    def later():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=[cluster.arn.apply(lambda _: "m7i.xlarge")],
                          ami_type="AL2023_x86_64_STANDARD",
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
        api(cluster)
    result = judge(eks("m7i.large"), later, tmp_path)
    assert result.findings(POLICY) == []
    notes = [note.finding.split(" during preview: ", 1)[1] for note in result.notes if note.policy == POLICY]
    assert len(notes) == 1 and notes[0].startswith("pool 'general' (NodeGroup): an input that replaces the pool is "
                                                   "not known yet (")
    # its own machines are not known: whether it takes the Deployment is not either ("may run on it only" before)
    assert notes[0].endswith("and Deployment 'api' may have no other pool (which pools take them is not known yet), "
                             "so whether this preview replaces it under them is not judged")


def test_a_workload_whose_other_pools_are_not_known_is_said(tmp_path):
    """The replacement is certain and deletes first; whether the Deployment's Pods have another pool depends on a
    nodeSelector value not known yet: a note naming it, never a pass."""
    def program(machine):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                              subnet_ids=["subnet-1"], instance_types=[machine], ami_type="AL2023_x86_64_STANDARD",
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                               max_size=3))
            api(cluster, {"tier": cluster.arn.apply(lambda _: "a")})
        return declare
    result = judge(program("m7i.large"), program("m7i.xlarge"), tmp_path)
    assert result.findings(POLICY) == []
    assert [note.finding.split(" during preview: ", 1)[1] for note in result.notes if note.policy == POLICY] == [
        "pool 'general' (NodeGroup): its instanceTypes changes from 'm7i.large' to 'm7i.xlarge', which replaces it, "
        "and its nodeGroupName 'general' is set by the program, so the old pool is deleted before its replacement "
        "exists; whether another pool of its cluster takes Deployment 'api' is not known yet, so this is not judged"]


def test_outputs_that_hold_more_than_the_inputs_set_are_no_change():
    """A provider's outputs hold values its inputs never set (GKE adds disable-legacy-endpoints to a pool's metadata):
    the previous deployment's inputs are compared with the checked inputs Analyze saw, and where those were not kept,
    objects of the outputs are not compared."""
    from compute_guard.policies.model.replacement import replacements
    from compute_guard.policies.model.resources import StackResource
    from compute_guard.policies.model.sources import checked_inputs

    kind = "gcp:container/nodePool:NodePool"
    urn = f"urn:pulumi:stack::project::{kind}::apps"
    inputs = {"name": "apps", "cluster": "gke", "nodeConfig": {"machineType": "e2-standard-4", "metadata": {"a": "b"}},
              "__defaults": []}
    outputs = {**inputs, "nodeConfig": {"machineType": "e2-standard-4", "spot": False,
                                        "metadata": {"a": "b", "disable-legacy-endpoints": "true"}}}
    resource = StackResource(kind, urn, "apps", outputs)
    old, types = {urn: inputs}, {urn: kind}
    assert replacements({urn: resource}, old, types, {urn: checked_inputs(kind, inputs)}, {}) == []
    assert replacements({urn: resource}, old, types, {}, {}) == []  # no checked inputs: objects not compared
    moved = {**inputs, "nodeConfig": {**inputs["nodeConfig"], "metadata": {"a": "c"}}}
    (found,) = replacements({urn: resource}, old, types, {urn: checked_inputs(kind, moved)}, {})
    assert [str(change) for change in found.changes] == [
        "its nodeConfig.metadata changes from {\"a\": \"b\"} to {\"a\": \"c\"}"]
    assert found.fixed is True  # its name is not among the provider's __defaults


@pytest.mark.parametrize(("before", "after", "config", "expected"), [
    (lambda: eks("m7i.large"), lambda: eks("m7i.xlarge"), AWS, "pool 'general' (NodeGroup): its instanceTypes"),
    (lambda: gke(spot=False), lambda: gke(spot=True), GCP, "pool 'apps' (GKE NodePool): its nodeConfig.spot"),
    (lambda: aks_native(system_size="Standard_D2s_v5"), lambda: aks_native(system_size="Standard_D4s_v5"), AZURE,
     "AKS cluster 'aks': its agentPoolProfiles['system'].vmSize"),
], ids=["eks", "gke", "aks"])
def test_each_platform_twice_in_one_process(tmp_path, before, after, config, expected):
    """The same verdict twice in one process at each platform (nothing kept between runs changes it)."""
    first = judge(before(), after(), tmp_path, config).findings(POLICY)
    second = judge(before(), after(), tmp_path, config).findings(POLICY)
    assert first == second and len(first) == 1 and first[0].startswith(expected)


def test_every_pool_of_a_cluster_removed_under_its_workloads_is_refused(tmp_path):
    """A pool removed from the program is gone too: where it was the cluster's last pool the stack declared, the
    workloads on the cluster lose every node (workload-schedulable only notes a cluster with no pool declared)."""
    def removed(workloads=True):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            if workloads:
                api(cluster)
        return declare

    assert judge(eks(), removed(), tmp_path).findings(POLICY) == [
        "EKS cluster 'fleet': this preview removes pool 'general' (NodeGroup), every pool of it the stack declared, "
        "and Deployment 'api' run on it: their Pods lose every node and stay Pending; keep a pool that takes them (or "
        "add its replacement first), or remove the workloads with it"]
    assert judge(eks(workloads=False), removed(False), tmp_path).findings(POLICY) == []
    # one of two removed: the other is judged by workload-schedulable, not here
    assert judge(eks(second=True), eks(second=False), tmp_path).findings(POLICY) == []


def test_the_delete_before_replace_option_deletes_first_whatever_the_name(tmp_path):
    """The resource option the engine sends a policy: an auto-named group with deleteBeforeReplace is deleted before
    its replacement exists, and an AKS AgentPool with it too (whose name's origin its inputs do not say)."""
    def option(machine):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup("general", cluster_name=cluster.name, node_role_arn=ROLE, subnet_ids=["subnet-1"],
                              instance_types=[machine], ami_type="AL2023_x86_64_STANDARD",
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                               max_size=3),
                              opts=pulumi.ResourceOptions(delete_before_replace=True))
            api(cluster)
        return declare

    found = judge(option("m7i.large"), option("m7i.xlarge"), tmp_path).findings(POLICY)
    assert len(found) == 1
    assert re.match(  # the provider's name for it: the resource name and a random suffix
        r"pool 'general-[0-9a-f]{7}' \(NodeGroup\): its instanceTypes changes from 'm7i.large' to 'm7i.xlarge', which "
        r"the AWS provider cannot apply in place: it replaces the pool. Its deleteBeforeReplace resource option "
        r"deletes the old pool before its replacement is created, and Deployment 'api' run on no other pool of its "
        r"cluster", found[0]), found[0]
    assert found[0].endswith("add a second pool that takes them first, or drop the deleteBeforeReplace option so "
                             "the new pool is created before the old one goes")
    # without the option, the auto-named group is created before the old one goes
    assert judge(eks("m7i.large", name=None), eks("m7i.xlarge", name=None), tmp_path).findings(POLICY) == []


def test_pulumi_eks_default_node_group_removed_under_its_workloads(tmp_path):
    """The EKS template's cluster as it ships (pulumi-eks's default node group: self-managed nodes), then
    skipDefaultNodeGroup: its only pool is gone under the Deployment on it."""
    import pulumi_eks as eks_component

    def program(skip):
        def declare():
            cluster = eks_component.Cluster("cluster", skip_default_node_group=skip)
            provider = k8s.Provider("k8s", kubeconfig=cluster.kubeconfig)
            labels = {"app": "api"}
            k8s.apps.v1.Deployment("api", spec={"replicas": 2, "selector": {"match_labels": labels}, "template": {
                "metadata": {"labels": labels}, "spec": {"containers": [{"name": "api", "image": "nginx"}]}}},
                opts=pulumi.ResourceOptions(provider=provider))
        return declare

    from compute_guard.testkit import export_program

    baseline = export_program(program(False), tmp_path / "deployed.json", stack_config=AWS)  # as `pulumi up` left it
    result = evaluate(program(True), stack_config=AWS, policy_config={POLICY: {"baseline": str(baseline)}})
    found = result.findings(POLICY)
    assert len(found) == 1 and found[0].startswith("EKS cluster 'cluster': this preview removes pool ")
    assert "every pool of it the stack declared, and Deployment 'api' run on it" in found[0]


def test_azure_native_names_what_the_program_leaves_unnamed_as_its_check_does(tmp_path):
    """azure-native's auto-naming (pulumi/pulumi-azure-native#519): a top-level resource gets a random name and
    __createBeforeDelete in its state's inputs; a child resource such as an agent pool is named its resource name, so
    its replacement still deletes it first: an AgentPool the program names none, moved to another VM size under its
    only workloads, is refused as one it names."""
    from pulumi_azure_native import containerservice

    def program(vm_size):
        def declare():
            cluster = containerservice.ManagedCluster(
                "aks", resource_group_name="rg", location="westeurope", dns_prefix="aks",
                agent_pool_profiles=[{"name": "system", "mode": "System", "vm_size": "Standard_D4s_v5", "count": 1,
                                      "node_taints": ["CriticalAddonsOnly=true:NoSchedule"]}])
            containerservice.AgentPool("user", resource_group_name="rg", resource_name_=cluster.name,
                                       vm_size=vm_size, count=2, mode="User")
            provider = k8s.Provider("k8s", kubeconfig=cluster.fqdn)
            labels = {"app": "api"}
            k8s.apps.v1.Deployment("api", spec={"replicas": 2, "selector": {"match_labels": labels}, "template": {
                "metadata": {"labels": labels}, "spec": {"containers": [{"name": "api", "image": "nginx"}]}}},
                opts=pulumi.ResourceOptions(provider=provider))
        return declare

    baseline = export_program(program("Standard_D4s_v5"), tmp_path / "export.json", stack_config=AZURE)
    inputs = {entry["type"].rsplit(":", 1)[-1]: entry.get("inputs")
              for entry in json.loads(baseline.read_text())["deployment"]["resources"]}
    assert inputs["ManagedCluster"]["__createBeforeDelete"] is True
    assert inputs["ManagedCluster"]["resourceName"].startswith("aks")
    assert len(inputs["ManagedCluster"]["resourceName"]) == len("aks") + 8
    assert inputs["AgentPool"]["agentPoolName"] == "user" and "__createBeforeDelete" not in inputs["AgentPool"]
    result = evaluate(program("Standard_D8s_v5"), stack_config=AZURE, policy_config={POLICY: {"baseline": str(baseline)}})
    (found,) = result.findings(POLICY)
    assert found.startswith("pool 'user' (AgentPool): its vmSize changes from 'Standard_D4s_v5' to 'Standard_D8s_v5'")
    assert "the old pool is deleted first (pulumi-azure-native deletes a resource before replacing it unless it " \
        "named the resource itself)" in found


def test_a_replacing_input_the_program_never_wrote_is_compared_with_what_the_provider_set(tmp_path):
    """Issue 66: adding capacityType SPOT to an EKS group that never wrote it, and spot to a GKE pool whose program
    never wrote a nodeConfig, replace them: the previous deployment's outputs hold what the provider set (ON_DEMAND,
    false). Compared input by input where both sides set it, each passed silently."""
    def group(capacity=None):
        def program():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                              subnet_ids=["subnet-1"], instance_types=["m7i.large"], capacity_type=capacity,
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                               max_size=3))
            api(cluster)
        return program

    def pool(spot=None):
        def program():
            cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", initial_node_count=1,
                                            remove_default_node_pool=True)
            gcp.container.NodePool("apps", name="apps", cluster=cluster.name, location="us-central1-a", node_count=2,
                                   node_config=None if spot is None else {"spot": spot})
            api(cluster)
        return program

    for before, after, config, change in (
            (group(), group("SPOT"), AWS, "its capacityType changes from 'ON_DEMAND' to 'SPOT'"),
            (pool(), pool(True), GCP, "its nodeConfig.spot changes from false to true")):
        deployed = export_program(before, tmp_path / "deployed.json", stack_config=config)
        (found,) = evaluate(after, stack_config=config, deployed=deployed).findings(POLICY)
        assert f"): {change}, which" in found and "it replaces the pool" in found, found
        assert evaluate(before, stack_config=config, deployed=deployed).findings(POLICY) == []


def test_lists_compare_as_sets_named_entries_by_name_and_objects_on_the_keys_both_set():
    """Issue 66's planted-bug audit: a list compared in order, or [] entries matched by position, passed every fast
    test. A provider may store a list in any order; entries with names are matched by name; what the previous side
    holds that the program never wrote (an inline pool's computed taints, its internal keys) is no change."""
    subnets = ("subnetIds",)
    assert _Compared(subnets, {"subnetIds": ["a", "b"]}, {"subnetIds": ["b", "a"]}, False).found == []
    assert _Compared(subnets, {"subnetIds": ["a", "b"]}, {"subnetIds": ["a", "c"]}, False).found != []
    pools = ("nodePools",)
    old = {"nodePools": [{"name": "a", "nodeCount": 1, "taints": [], "__defaults": []}, {"name": "b", "nodeCount": 2}]}
    swapped = {"nodePools": [{"name": "b", "nodeCount": 2}, {"name": "a", "nodeCount": 1, "__defaults": ["x"]}]}
    assert _Compared(pools, old, swapped, False).found == []
    resized = {"nodePools": [{"name": "b", "nodeCount": 2}, {"name": "a", "nodeCount": 3}]}
    assert [change.what for change in _Compared(pools, old, resized, False).found] == ["nodePools"]
    renamed = {"nodePools": [{"name": "c", "nodeCount": 1}, {"name": "b", "nodeCount": 2}]}
    assert _Compared(pools, old, renamed, False).found != []
    by_name = ("agentPoolProfiles[].vmSize",)
    before = {"agentPoolProfiles": [{"name": "system", "vmSize": "D2"}, {"name": "user", "vmSize": "D4"}]}
    after = {"agentPoolProfiles": [{"name": "user", "vmSize": "D4"}, {"name": "system", "vmSize": "D2"}]}
    assert _Compared(by_name, before, after, False).found == []


def test_a_whole_number_is_the_same_as_the_state_and_the_wire_write_it():
    """Under the real CLI (tests/cli/test_engine_oracle.py) a GKE cluster's initialNodeCount "changed from 1 to 1": the
    state writes 1, the engine sends 1.0."""
    assert _Compared(("initialNodeCount",), {"initialNodeCount": 1}, {"initialNodeCount": 1.0}, False).found == []
    assert _Compared(("diskSize",), {"diskSize": 20}, {"diskSize": 20.0}, False).found == []
    assert _Compared(("diskSize",), {"diskSize": 20}, {"diskSize": 20.5}, False).found != []


def test_a_secret_of_this_preview_never_reaches_a_replacement_message(tmp_path):
    """The secret sweep reaches pool-replacement-safe's own lists (issue 66's audit: a list of names joined with
    str.join printed a secret in clear): a secret new machine, and a secret name of the replaced group, are refused
    as in plain text and never printed."""
    def secret_group(machine, name):
        def program():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name=pulumi.Output.secret(name),
                              node_role_arn=ROLE, subnet_ids=["subnet-1"],
                              instance_types=[pulumi.Output.secret(machine)], ami_type="AL2023_x86_64_STANDARD",
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                               max_size=3))
            api(cluster)
        return program
    found = judge(secret_group("m7i.large", "general-secret"), secret_group("m7i.xlarge", "general-secret"),
                  tmp_path).findings(POLICY)
    assert len(found) == 1 and "[secret]" in found[0], found
    assert not any(text in found[0] for text in ("m7i.large", "m7i.xlarge", "general-secret")), found


def _sealed(path, monkeypatch):
    """The export as a local backend keeps it: the node group's nodeRoleArn encrypted by the passphrase secrets
    provider (AES-256-GCM under PBKDF2-SHA256 of the passphrase and the state's salt, as compute_guard/testkit/
    secrets.py reads it), the passphrase in the environment as the CLI takes it."""
    import base64
    import hashlib
    import os

    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "compute-guard")
    salt = os.urandom(8)
    key = hashlib.pbkdf2_hmac("sha256", b"compute-guard", salt, 1_000_000, 32)

    def sealed(text: str) -> str:
        nonce = os.urandom(12)
        opaque = AESGCM(key).encrypt(nonce, text.encode(), None)
        return f"v1:{base64.b64encode(nonce).decode()}:{base64.b64encode(opaque).decode()}"

    document = json.loads(path.read_text())
    deployment = document["deployment"]
    deployment["secrets_providers"] = {"type": "passphrase", "state": {
        "salt": f"v1:{base64.b64encode(salt).decode()}:{sealed('pulumi')[3:]}"}}
    for entry in deployment["resources"]:
        if entry["type"] == "aws:eks/nodeGroup:NodeGroup":
            entry["id"] = entry["outputs"]["id"] = "fleet:general"  # (the provider's ID: cluster:group)
            for kept in (entry["inputs"], entry["outputs"]):
                kept["nodeRoleArn"] = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
                                       "ciphertext": sealed(ROLE)}
    path.write_text(json.dumps(document))
    return path


def test_a_lone_group_whose_sealed_input_is_unchanged_is_no_note(tmp_path, monkeypatch):
    """Issue 76: the previous deployment holds the group's nodeRoleArn as an encrypted secret (what the pack reads from
    a backend). Previewed unchanged, the lone fixed-name group was said on every preview ("whether this preview
    changes them ... is not known ... not judged"): the engine keeps its deployed ID in the update preview, which it
    does only when it does not replace it, so nothing is unjudged (the real CLI's twin: tests/cli/
    test_engine_oracle.py, test_an_unchanged_secret_input_against_the_encrypted_state). Where the preview does not
    keep its ID, whether the sealed input changed decides: said, as before; and a certain change is still refused."""
    from compute_guard.policies.model.replacement import _kept
    from compute_guard.policies.model.resources import StackResource
    from compute_guard.testkit.program import _UNKNOWN

    deployed = _sealed(exported(eks(), tmp_path / "export.json", AWS), monkeypatch)
    for _ in range(2):
        result = evaluate(eks(), stack_config=AWS, deployed=deployed)
        assert [n for n in result.notes if n.policy == POLICY] == [] and result.findings(POLICY) == []
    found = evaluate(eks("m7i.xlarge"), stack_config=AWS, deployed=deployed).findings(POLICY)
    assert len(found) == 1 and found[0].startswith("pool 'general' (NodeGroup): its instanceTypes changes from "
                                                   "'m7i.large' to 'm7i.xlarge'"), found
    # the rule written out: kept only where this preview's ID is the deployed one
    kept = StackResource("aws:eks/nodeGroup:NodeGroup", "urn:g", "general", {"id": "fleet:general"})
    assert _kept(kept, {"id": "fleet:general"}) is True
    assert _kept(StackResource("aws:eks/nodeGroup:NodeGroup", "urn:g", "general", {"id": _UNKNOWN}),
                 {"id": "fleet:general"}) is False
    assert _kept(kept, {"id": "another"}) is False and _kept(kept, {}) is False


def test_a_change_the_program_ignores_is_no_change(tmp_path):
    """Issue 76, the in-process twin of the oracle's: ignore_changes=["instanceTypes"] on the fixed-name group; its
    machine changed in the program against its deployment is no change (the engine sends the deployed machine); the
    same change without the option is refused."""
    def program(machine: str, ignored: bool):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                              subnet_ids=["subnet-1"], instance_types=[machine],
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                               max_size=3),
                              opts=pulumi.ResourceOptions(ignore_changes=["instanceTypes"] if ignored else None))
            api(cluster)
        return declare

    deployed = exported(program("m7i.large", True), tmp_path / "export.json", AWS)
    for _ in range(2):
        assert evaluate(program("m7i.xlarge", True), stack_config=AWS, deployed=deployed).findings(POLICY) == []
    refused = evaluate(program("m7i.xlarge", False), stack_config=AWS, deployed=deployed).findings(POLICY)
    assert len(refused) == 1 and "its instanceTypes changes from 'm7i.large' to 'm7i.xlarge'" in refused[0]


def test_a_change_the_program_replaces_on_is_a_replacement(tmp_path):
    """Issue 76, the in-process twin of the oracle's: replace_on_changes=["scalingConfig.maxSize"] on the auto-named
    group; a maxSize change its provider updates in place is a replacement for the engine (applyReplaceOnChanges): it
    is checked anew (a fresh auto-name) and planned as a create (its ID not known yet), and the pack does not refuse
    a replacement its provider names anew (created first). Without the option, the same change keeps the group's ID
    and name; with it, a change of another field is an update."""
    from compute_guard.testkit.program import UNKNOWN_ID, capture, previous_deployment

    def program(max_size: int, replace_on: list[str] | None, desired: int = 1):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup("general", cluster_name=cluster.name, node_role_arn=ROLE, subnet_ids=["subnet-1"],
                              instance_types=["m7i.large"],
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=desired, min_size=1,
                                                                               max_size=max_size),
                              opts=pulumi.ResourceOptions(replace_on_changes=replace_on))
            api(cluster)
        return declare

    def group(max_size: int, replace_on: list[str] | None, desired: int = 1) -> tuple[str, str]:
        captured = capture(program(max_size, replace_on, desired), stack_config=AWS, previous=previous)
        (found,) = [r for r in captured.resources if r.type == "aws:eks/nodeGroup:NodeGroup"]
        return found.outputs["id"], found.inputs["nodeGroupName"]

    for option in (["scalingConfig.maxSize"], ["scalingConfig"], ["*"]):
        deployed = export_program(program(3, option), tmp_path / "export.json", stack_config=AWS)
        previous = previous_deployment(deployed)
        (old,) = [entry for entry in previous.values() if entry["type"] == "aws:eks/nodeGroup:NodeGroup"]
        assert group(3, option) == (old["id"], old["inputs"]["nodeGroupName"]), option  # unchanged: kept
        replaced_id, renamed = group(4, option)
        assert replaced_id == UNKNOWN_ID and renamed != old["inputs"]["nodeGroupName"], option
        assert renamed.startswith("general-"), renamed
        assert evaluate(program(4, option), stack_config=AWS, deployed=deployed).findings(POLICY) == []
    assert group(4, None) == (old["id"], old["inputs"]["nodeGroupName"])  # updated in place
    assert group(3, ["scalingConfig.maxSize"], desired=2) == (old["id"], old["inputs"]["nodeGroupName"])


UNSEEN = ("pool 'general' (NodeGroup): this preview replaces it (the engine plans a new ID for it), though no input that "
          "the AWS provider replaces it for changes: a replaceOnChanges resource option (which the engine does not "
          "send a policy) replaces what its provider would update in place: it replaces the pool. Its nodeGroupName "
          "'general' is set by the program, so the old pool and its replacement cannot both hold it: either the old "
          "pool is deleted first, and Deployment 'api' run on no other pool of its cluster (every Pod of them is down "
          "until the new nodes join")


def test_a_replacement_only_an_option_makes_is_judged_by_the_id_the_engine_plans(tmp_path):
    """Issue 76: the engine does not send replaceOnChanges to a policy, so a maxSize change the option turns into a
    replacement looked like an update in place to the pack, and a fixed-name group replaced under its only workloads
    passed (deleted first, or its replacement's creation fails on the name: either fails). What the engine sends says
    it: the group's ID is not known yet, which it is only for a resource it creates or replaces. Refused; clean with a
    second group that takes the workloads, clean auto-named (created first), clean where the ID is kept; and the
    previous deployment's ID is what decides (a group it does not hold is new, not replaced)."""
    from compute_guard.policies.model.replacement import _renewed
    from compute_guard.policies.model.resources import StackResource
    from compute_guard.testkit.program import _UNKNOWN

    def program(max_size: int, name: str | None = "general", second: bool = False):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE,
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name=name, node_role_arn=ROLE,
                              subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                               max_size=max_size),
                              opts=pulumi.ResourceOptions(replace_on_changes=["scalingConfig.maxSize"]))
            if second:
                aws.eks.NodeGroup("spare", cluster_name=cluster.name, node_group_name="spare", node_role_arn=ROLE,
                                  subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                                  scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                                   max_size=3))
            api(cluster)
        return declare

    for name, second, refused in (("general", False, True), ("general", True, False), (None, False, False)):
        deployed = export_program(program(3, name, second), tmp_path / f"{name}-{second}.json", stack_config=AWS)
        for _ in range(2):
            found = evaluate(program(4, name, second), stack_config=AWS, deployed=deployed).findings(POLICY)
            assert (found == [] if not refused else len(found) == 1 and found[0].startswith(UNSEEN)), found
            assert evaluate(program(3, name, second), stack_config=AWS, deployed=deployed).findings(POLICY) == []
    assert "drop the replaceOnChanges option, add a second pool that takes them first, or leave nodeGroupName unset" \
        in evaluate(program(4), stack_config=AWS, deployed=tmp_path / "general-False.json").findings(POLICY)[0]
    # the rule written out: replaced where the previous deployment holds an ID and this preview's is not known yet
    from google.protobuf import struct_pb2

    from compute_guard.policies.adapters.props import StructProps

    planned = struct_pb2.Struct()
    planned.update({"id": _UNKNOWN})  # as the engine sends a planned ID (a plain dict's string is no unknown)
    renewed = StackResource("aws:eks/nodeGroup:NodeGroup", "urn:g", "general", StructProps(planned))
    assert _renewed(renewed, {"id": "fleet:general"}) is True
    assert _renewed(renewed, {}) is False and _renewed(renewed, {"id": ""}) is False
    assert _renewed(StackResource("aws:eks/nodeGroup:NodeGroup", "urn:g", "general", {"id": "fleet:general"}),
                    {"id": "fleet:general"}) is False
    assert _renewed(StackResource("aws:eks/nodeGroup:NodeGroup", "urn:g", "general", {}), {"id": "fleet:general"}) \
        is False  # (an unconfigured provider's resource: no ID at all)
