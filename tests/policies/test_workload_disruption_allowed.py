"""workload-disruption-allowed: a drain can evict the workload's Pods (SPEC section 15, policy 17)."""

import json

import pytest
from google.protobuf import json_format

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

POLICY = "workload-disruption-allowed"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
CLUSTER = "aws:eks/cluster:Cluster"


def deployment(name="api", replicas=3, labels=None, **more):
    template_labels = {"app": name, **(labels or {})}
    spec = {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": template_labels},
                         "spec": {"containers": [{"name": name, "image": f"example.test/{name}:1"}], **more}}}
    return Resource.of("kubernetes:apps/v1:Deployment", name, {"metadata": {"name": name}, "spec": spec})


def budget(name, selector=None, *, namespace=None, **spec):
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return Resource.of("kubernetes:policy/v1:PodDisruptionBudget", name, {
        "metadata": metadata, "spec": {"selector": selector or {"matchLabels": {"app": "api"}}, **spec}})


def node_group(name="general", instance_types=("t3.medium",), ami_type="AL2023_x86_64_STANDARD", template=None):
    props = {"clusterName": "fleet", "nodeGroupName": name, "instanceTypes": list(instance_types),
             "amiType": ami_type, "scalingConfig": {"minSize": 1, "maxSize": 3, "desiredSize": 1},
             "nodeRoleArn": "arn:aws:iam::123456789012:role/nodes", "subnetIds": ["subnet-1"]}
    if template is not None:
        props["launchTemplate"] = template
    return Resource.of(NODE_GROUP, name, props)


def eks_cluster():
    return Resource.of(CLUSTER, "fleet", {"name": "fleet", "roleArn": "arn:aws:iam::123456789012:role/eks"})


def export(*resources):
    entries = [{"urn": resource.urn, "custom": True, "type": resource.type,
                "inputs": json_format.MessageToDict(resource.inputs), "outputs": {}} for resource in resources]
    return {"version": 3, "deployment": {"resources": entries}}


def judge(*resources, previous=None, tmp_path=None, config=None):
    policy_config = {POLICY: dict(config or {})}
    if previous is not None:
        path = tmp_path / "baseline.json"
        path.write_text(json.dumps(export(*previous)))
        policy_config[POLICY]["baseline"] = str(path)
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        return Analyzer(policy_config).run(list(resources))


def test_two_budgets_on_one_workload_block_every_drain():
    result = judge(eks_cluster(), node_group(), deployment(),
                   budget("api-a", maxUnavailable=1), budget("api-b", {"matchLabels": {"app": "api", "tier": "web"}},
                                                              minAvailable=1),
                   deployment("web", labels={"app": "web"}), budget("web", {"matchLabels": {"app": "web"}},
                                                                    maxUnavailable=1))
    assert result.findings(POLICY) == []  # api-b asks for tier=web, which api's Pods do not carry
    result = judge(eks_cluster(), node_group(), deployment(labels={"tier": "web"}),
                   budget("api-a", maxUnavailable=1), budget("api-b", {"matchLabels": {"app": "api", "tier": "web"}},
                                                              minAvailable=1))
    assert result.findings(POLICY) == [
        "Deployment 'api': its Pods are selected by 2 PodDisruptionBudgets ('api-a', 'api-b'); the eviction API "
        "refuses to evict a Pod that more than one budget selects, so no drain (a node upgrade, a machine change) can "
        "ever move them: keep one budget for these Pods"]


def test_budgets_of_another_namespace_or_a_daemonset_do_not_count():
    result = judge(deployment(), budget("api-a", maxUnavailable=1),
                   budget("api-b", namespace="other", maxUnavailable=1))
    assert result.findings(POLICY) == []
    daemon = Resource.of("kubernetes:apps/v1:DaemonSet", "agent", {"metadata": {"name": "agent"}, "spec": {
        "selector": {"matchLabels": {"app": "api"}},
        "template": {"metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{"name": "a", "image": "a"}]}}}})
    assert judge(daemon, budget("api-a", maxUnavailable=1), budget("api-b", maxUnavailable=1)).findings(POLICY) == []


@pytest.mark.parametrize(("before", "after", "change"), [
    ({"ami_type": "AL2023_x86_64_STANDARD"}, {"ami_type": "BOTTLEROCKET_x86_64"},
     "its AMI type changes from 'AL2023_x86_64_STANDARD' to 'BOTTLEROCKET_x86_64'"),
    ({"instance_types": ("t3.medium",)}, {"instance_types": ("t3.large",)},
     "its machine changes from 't3.medium' to 't3.large'"),
    ({"template": {"name": "nodes", "version": "1"}}, {"template": {"name": "nodes", "version": "2"}},
     "its launch template changes from 'nodes' version 1 to 'nodes' version 2"),
])
def test_a_blocking_budget_on_a_pool_this_preview_replaces(tmp_path, before, after, change):
    blocking = budget("api", maxUnavailable=0)
    result = judge(eks_cluster(), node_group(**after), deployment(), blocking,
                   previous=[eks_cluster(), node_group(**before)], tmp_path=tmp_path)
    assert result.findings(POLICY) == [
        "Deployment 'api': its PodDisruptionBudget 'api' allows no eviction (maxUnavailable 0 keeps all 3 of its "
        f"Pods), and this preview replaces the nodes its Pods run on (pool 'general' (NodeGroup): {change}): the "
        "replacement drains every node and the budget lets none of them go (EKS fails the update with "
        "PodEvictionFailure): allow an eviction (maxUnavailable: 1, or a minAvailable below its replicas) or add "
        "replicas before the pool changes"]
    # one eviction allowed: the drain moves the Pods one at a time
    allowing = budget("api", maxUnavailable=1)
    assert judge(eks_cluster(), node_group(**after), deployment(), allowing,
                 previous=[eks_cluster(), node_group(**before)], tmp_path=tmp_path).findings(POLICY) == []
    # nothing replaced: the same pool
    assert judge(eks_cluster(), node_group(**before), deployment(), blocking,
                 previous=[eks_cluster(), node_group(**before)], tmp_path=tmp_path).findings(POLICY) == []


def test_min_available_percentages_round_up(tmp_path):
    previous = [eks_cluster(), node_group(instance_types=("t3.medium",))]
    new = [eks_cluster(), node_group(instance_types=("t3.large",))]
    # 90% of 3 = 2.7, rounded up to 3: all of them
    (message,) = judge(*new, deployment(replicas=3), budget("api", minAvailable="90%"), previous=previous,
                       tmp_path=tmp_path).findings(POLICY)
    assert "(minAvailable 90% of 3 = 3 (rounded up) keeps all 3 of its Pods)" in message
    # 50% of 5 = 2.5, rounded up to 3: two may go
    assert judge(*new, deployment(replicas=5), budget("api", minAvailable="50%"), previous=previous,
                 tmp_path=tmp_path).findings(POLICY) == []
    # an HPA's minReplicas raises the count: minAvailable 3 of 4 Pods lets one go
    hpa = Resource.of("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "api", {
        "metadata": {"name": "api"}, "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "api"},
                                              "minReplicas": 4, "maxReplicas": 8}})
    assert judge(*new, deployment(replicas=3), hpa, budget("api", minAvailable=3), previous=previous,
                 tmp_path=tmp_path).findings(POLICY) == []
    assert len(judge(*new, deployment(replicas=3), budget("api", minAvailable=3), previous=previous,
                     tmp_path=tmp_path).findings(POLICY)) == 1


def test_a_pool_that_is_new_or_a_pod_that_may_run_elsewhere_is_not_judged(tmp_path):
    blocking = budget("api", maxUnavailable=0)
    # no previous node group: a new pool has nothing to drain
    assert judge(eks_cluster(), node_group(), deployment(), blocking, previous=[eks_cluster()],
                 tmp_path=tmp_path).findings(POLICY) == []
    # two pools take the Pods, and only one is replaced: they may all be on the other
    other = Resource.of(NODE_GROUP, "spare", {"clusterName": "fleet", "nodeGroupName": "spare",
                                              "instanceTypes": ["t3.medium"], "scalingConfig": {"maxSize": 2}})
    assert judge(eks_cluster(), node_group(instance_types=("t3.large",)), other, deployment(), blocking,
                 previous=[eks_cluster(), node_group(), other], tmp_path=tmp_path).findings(POLICY) == []


def test_without_a_previous_deployment_a_blocking_budget_is_a_note(tmp_path, monkeypatch):
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path))
    # as compute-cluster-safe-update: the engine shows why it did not apply, when it has nothing else to say
    result = judge(eks_cluster(), node_group(), deployment(), budget("api", maxUnavailable=0))
    assert result.findings(POLICY) == []
    assert [n.reason for n in result.not_applicable if n.policy == POLICY] == [
        "whether this preview replaces the nodes of Pods a PodDisruptionBudget lets none go is not judged: "
        "no previous deployment to compare with: set this policy's 'baseline' config to the output of `pulumi stack "
        "export --file <path>` taken before the preview, or use a local (file://) backend"]
    # ... and with a finding besides, a note saying what it could not check
    web = {"matchLabels": {"app": "web"}}
    result = judge(eks_cluster(), node_group(), deployment(), budget("api", maxUnavailable=0),
                   deployment("web"), budget("web-a", web, maxUnavailable=1), budget("web-b", web, maxUnavailable=1))
    assert len(result.findings(POLICY)) == 1
    assert [note.finding for note in result.notes if note.policy == POLICY] == [
        f"can't run policy '{POLICY}' from policy pack 'compute-guard@v0.2.0' during preview: whether this preview "
        "replaces the nodes of Pods a PodDisruptionBudget lets none go is not judged: no previous deployment to compare with: set this policy's 'baseline' config to the output of "
        "`pulumi stack export --file <path>` taken before the preview, or use a local (file://) backend"]
    # a budget that allows evictions needs no previous deployment at all
    result = judge(eks_cluster(), node_group(), deployment(), budget("api", maxUnavailable=1))
    assert [note for note in result.notes if note.policy == POLICY] == []


def test_the_test_kit_an_eks_node_group_whose_ami_type_changes_from_a_stack_export(tmp_path):
    """Issue 38 under the test kit: a program's node group (pulumi-aws) moves from AL2023 to Bottlerocket against a
    `pulumi stack export` of the deployed program, with a blocking budget on the Deployment it runs."""
    from builders import budget as program_budget
    from builders import deployment as program_deployment
    from builders import node_group as program_node_group
    from builders import run

    from compute_guard.testkit import capture_program

    old = capture_program(program_node_group("general", ["m7i.large"], ami_type="AL2023_x86_64_STANDARD"))
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": r.urn, "type": r.type, "custom": True, "inputs": json_format.MessageToDict(r.inputs)} for r in old]}}))
    config = {POLICY: {"baseline": str(path)}}
    new = program_node_group("general", ["m7i.large"], ami_type="BOTTLEROCKET_x86_64")
    api = program_deployment("api", spec={"replicas": 2})
    result = run(new, api, program_budget("api", maxUnavailable=0), platform="aws", policy_config=config)
    assert result.findings(POLICY) == [
        "Deployment 'api': its PodDisruptionBudget 'api' allows no eviction (maxUnavailable 0 keeps all 2 of its "
        "Pods), and this preview replaces the nodes its Pods run on (pool 'general' (NodeGroup): its AMI type changes "
        "from 'AL2023_x86_64_STANDARD' to 'BOTTLEROCKET_x86_64'): the replacement drains every node and the budget "
        "lets none of them go (EKS fails the update with PodEvictionFailure): allow an eviction (maxUnavailable: 1, "
        "or a minAvailable below its replicas) or add replicas before the pool changes"]
    assert run(new, api, program_budget("api", maxUnavailable=1), platform="aws",
               policy_config=config).findings(POLICY) == []


def test_a_previous_deployment_of_another_stack_is_a_note_not_a_silent_pass(tmp_path):
    """Issue 45: a baseline none of whose URNs is a resource of this stack (another stack's export, or URNs written
    otherwise) compared nothing and said nothing; the change of AMI type below would read as 'no pool replaced'."""
    old = [eks_cluster(), node_group()]
    document = export(*old)
    for entry in document["deployment"]["resources"]:
        entry["urn"] = entry["urn"].replace("urn:pulumi:stack::project::", "urn:pulumi:prod::shop::")
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(document))
    policy_config = {POLICY: {"baseline": str(path)}}
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        result = Analyzer(policy_config).run([eks_cluster(), node_group(ami_type="BOTTLEROCKET_x86_64"), deployment(),
                                              budget("api", maxUnavailable=0)])
    assert result.findings(POLICY) == []
    assert [note.finding.split("during preview: ")[1] for note in result.notes if note.policy == POLICY] == [
        "the previous deployment matches no resource of this stack: it holds 'urn:pulumi:prod::shop::"
        "aws:eks/cluster:Cluster::fleet' and 1 more, this stack has 'urn:pulumi:stack::project::"
        "aws:eks/cluster:Cluster::fleet' (another stack's or project's state, or URNs written otherwise), so nothing "
        "was compared with it: set 'baseline' to this stack's `pulumi stack export`"]
    same = judge(eks_cluster(), node_group(ami_type="BOTTLEROCKET_x86_64"), deployment(),
                 budget("api", maxUnavailable=0), previous=old, tmp_path=tmp_path)
    assert len(same.findings(POLICY)) == 1 and [n for n in same.notes if n.policy == POLICY] == []


def test_an_aks_pool_replaced_under_a_blocking_budget_says_what_aks_does(tmp_path):
    """Issue 45: an AKS upgrade stopped by the budget was reported with EKS's PodEvictionFailure."""
    def pool(size):
        return Resource.of("azure-native:containerservice:ManagedCluster", "aks", {
            "resourceName": "aks", "agentPoolProfiles": [{"name": "agentpool", "vmSize": size, "count": 3,
                                                          "mode": "System"}]})
    result = judge(pool("Standard_D4s_v5"), deployment(), budget("api", maxUnavailable=0),
                   previous=[pool("Standard_D2s_v5")], tmp_path=tmp_path)
    (finding,) = result.findings(POLICY)
    assert "(pool 'agentpool' of AKS cluster 'aks': its machine changes from 'Standard_D2s_v5' to 'Standard_D4s_v5'): " \
           "the replacement drains every node and the budget lets none of them go (AKS stops the upgrade on the " \
           "blocking budget): allow an eviction" in finding
    assert "EKS" not in finding and "PodEvictionFailure" not in finding


def test_a_secret_pod_label_that_decides_a_second_budget_hides_both_names():
    """SPEC section 4, issue 46's audit: a Pod label from a secret decides that budget 'shop-b' selects Deployment
    'checkout' too; the finding stands (two budgets), but names neither the budgets nor their number (what
    that label decides) nor the label's value."""
    secret = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "shop"}
    result = judge(eks_cluster(), node_group(), deployment("checkout", labels={"tier": secret}),
                   budget("shop-a", {"matchLabels": {"app": "checkout"}}, maxUnavailable=1),
                   budget("shop-b", {"matchLabels": {"tier": "shop"}}, minAvailable=1))
    (message,) = result.findings(POLICY)
    assert message.startswith("Deployment 'checkout': its Pods are selected by [secret] PodDisruptionBudgets "
                              "([secret]); the eviction API refuses")
    assert "shop-b" not in message and "'shop'" not in message


def _gke_pool(disk: int | None, image: str | None = None):
    """A GKE cluster and its NodePool 'data' of two n2-standard-4 nodes (its boot disk ``disk`` GB, its image
    ``image``, each unwritten when None), and a StatefulSet there whose budget allows no eviction."""
    import pulumi
    import pulumi_gcp as gcp
    import pulumi_kubernetes as k8s

    def program():
        cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", initial_node_count=1,
                                        remove_default_node_pool=True)
        config = {"machine_type": "n2-standard-4", **({"disk_size_gb": disk} if disk else {}),
                  **({"image_type": image} if image else {})}
        gcp.container.NodePool("data", name="data", cluster=cluster.name, location="us-central1-a", node_count=2,
                               node_config=config)
        opts = pulumi.ResourceOptions(provider=k8s.Provider("gke", kubeconfig=cluster.endpoint))
        labels = {"app": "db"}
        k8s.apps.v1.StatefulSet("db", metadata={"name": "db"}, spec={
            "replicas": 2, "serviceName": "db", "selector": {"matchLabels": labels}, "template": {
                "metadata": {"labels": labels}, "spec": {"containers": [{
                    "name": "db", "image": "db", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}},
            opts=opts)
        k8s.policy.v1.PodDisruptionBudget("db", metadata={"name": "db"}, spec={
            "minAvailable": 2, "selector": {"matchLabels": labels}}, opts=opts)
    return program


def test_a_gke_update_that_recreates_every_node_is_a_drain(tmp_path):
    """Issue 75: GKE applies a node pool's boot disk size, disk type and image type in place by recreating every node
    with its upgrade strategy (cloud.google.com/kubernetes-engine/docs/how-to/node-pools, "Vertically scale the nodes
    in a node pool"), each drained as in an upgrade: a budget that allows no eviction blocks it as a machine change
    would (on main only disruption-budget-useful's advisory said anything). Both sides, against the program's own
    deployment: unchanged, and a change the provider and GKE make without touching the nodes (the node count), are
    clean; a disk the program never wrote (GKE's 100 GB, in the deployment's outputs) written as 100 is no change."""
    from builders import exported

    from compute_guard.testkit import evaluate

    gcp_config = {"compute:platform": "gcp", "gcp:project": "acme", "gcp:region": "us-central1"}
    deployed = exported(_gke_pool(100), tmp_path / "disk.json", gcp_config)
    for _ in range(2):
        (finding,) = evaluate(_gke_pool(200), stack_config=gcp_config, deployed=deployed).findings(POLICY)
        assert finding.startswith(
            "StatefulSet 'db': its PodDisruptionBudget 'db' allows no eviction (minAvailable 2 keeps all 2 of its "
            "Pods), and this preview replaces the nodes its Pods run on (pool 'data' (GKE NodePool): its "
            "nodeConfig.diskSizeGb changes from 100 to 200): the replacement drains every node and the budget lets "
            "none of them go (GKE waits up to an hour on the budget, then evicts them anyway)"), finding
        assert evaluate(_gke_pool(100), stack_config=gcp_config, deployed=deployed).findings(POLICY) == []
    cos = exported(_gke_pool(100, "COS_CONTAINERD"), tmp_path / "cos.json", gcp_config)
    (finding,) = evaluate(_gke_pool(100, "UBUNTU_CONTAINERD"), stack_config=gcp_config, deployed=cos).findings(POLICY)
    assert "(pool 'data' (GKE NodePool): its nodeConfig.imageType changes from 'COS_CONTAINERD' to " \
           "'UBUNTU_CONTAINERD')" in finding, finding
    # GKE's own default disk, which the deployment's outputs hold (the program never wrote it)
    unwritten = exported(_gke_pool(None), tmp_path / "unwritten.json", gcp_config)
    document = json.loads(unwritten.read_text())
    for entry in document["deployment"]["resources"]:
        if entry["type"] == "gcp:container/nodePool:NodePool":
            entry["outputs"]["nodeConfig"]["diskSizeGb"] = 100
    unwritten.write_text(json.dumps(document))
    assert evaluate(_gke_pool(100), stack_config=gcp_config, deployed=unwritten).findings(POLICY) == []
    (finding,) = evaluate(_gke_pool(200), stack_config=gcp_config, deployed=unwritten).findings(POLICY)
    assert "its nodeConfig.diskSizeGb changes from 100 to 200" in finding
