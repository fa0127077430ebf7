"""workload-schedulable: some pool the platform declares can take the workload's Pods, by the scheduler's rules."""

from builders import (
    AMD64,
    ARM64,
    arch_requirement,
    deployment,
    from_manifest,
    karpenter_manifests,
    node_class,
    nodepool,
    placed,
    run,
    workload,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment

BATCH_TAINT = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]


def schedulable(*parts, platform="aws"):
    return run(*parts, platform=platform).findings("workload-schedulable")


def two_pools():
    """'batch' tainted dedicated=batch:NoSchedule, 'general' labelled tier=general; both amd64."""
    return (node_class(), nodepool("batch", [arch_requirement("amd64")], taints=BATCH_TAINT),
            nodepool("general", [arch_requirement("amd64")], labels={"tier": "general"}))


def test_each_pool_says_why_it_refuses_in_the_schedulers_terms():
    (message,) = schedulable(*two_pools(), deployment("api", node_selector={"disktype": "ssd"}))
    assert message == (
        "Deployment 'api': no pool can run its Pods: pool 'batch' (NodePool) has taint dedicated=batch:NoSchedule "
        "that it does not tolerate and does not have label disktype=ssd; pool 'general' (NodePool) does not have "
        "label disktype=ssd. They would stay Pending: change its nodeSelector, node affinity or tolerations to "
        "match a pool, or declare a pool that takes them")


def test_a_pod_one_pool_takes_passes():
    assert schedulable(*two_pools(), deployment("api")) == []  # 'general' has no taint
    assert schedulable(*two_pools(), deployment("api", node_selector={"tier": "general"})) == []
    assert schedulable(*two_pools(), deployment("api", node_selector={"karpenter.sh/nodepool": "general"})) == []
    tolerates = {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]}
    assert schedulable(*two_pools(), deployment("api", node_selector={"karpenter.sh/nodepool": "batch"},
                                                pod=tolerates)) == []


def test_tolerations_match_as_the_scheduler_matches_them():
    only_batch = (node_class(), nodepool("batch", [arch_requirement("amd64")], taints=BATCH_TAINT))
    tolerated = [
        {"operator": "Exists"},  # no key: every taint
        {"key": "dedicated", "operator": "Exists"},
        {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "dedicated", "value": "batch"},  # Equal is the default operator; an empty effect matches any
    ]
    for toleration in tolerated:
        assert schedulable(*only_batch, deployment("api", pod={"tolerations": [toleration]})) == [], toleration
    refused = [
        {"key": "dedicated", "value": "other", "effect": "NoSchedule"},
        {"key": "dedicated", "operator": "Exists", "effect": "NoExecute"},
        {"key": "other", "operator": "Exists"},
    ]
    for toleration in refused:
        assert len(schedulable(*only_batch, deployment("api", pod={"tolerations": [toleration]}))) == 1, toleration
    soft = (node_class(), nodepool("soft", [], taints=[{"key": "spot", "value": "yes", "effect": "PreferNoSchedule"}]))
    assert schedulable(*soft, deployment("api")) == []  # PreferNoSchedule only steers


def test_karpenters_own_multiple_arch_example_takes_its_arm64_workload_and_refuses_another_architecture():
    pools = [from_manifest(document) for document in karpenter_manifests("nodepools/multiple-arch.yaml")]
    (arm64,) = karpenter_manifests("workloads/arm64.yaml")
    assert schedulable(*pools, from_manifest(arm64)) == []
    s390x = {**arm64, "spec": {**arm64["spec"], "template": {**arm64["spec"]["template"], "spec": {
        **arm64["spec"]["template"]["spec"], "nodeSelector": {"kubernetes.io/arch": "s390x"}}}}}
    (message,) = schedulable(*pools, from_manifest(s390x))
    assert message.startswith(
        "Deployment 'arm64': no pool can run its Pods: pool 'amd64' (NodePool) runs amd64 nodes, not s390x (its "
        "nodeSelector's kubernetes.io/arch); pool 'arm64' (NodePool) runs arm64 nodes, not s390x (its nodeSelector's "
        "kubernetes.io/arch). They would stay Pending")


def test_required_node_affinity_is_matched_term_by_term():
    # category c: every such arm64 machine of the catalog has its vCPUs (one without could have any number)
    pools = (node_class(), nodepool("arm", [arch_requirement("arm64"),
                                           {"key": "karpenter.k8s.aws/instance-category", "operator": "In",
                                            "values": ["c"]},
                                           {"key": "karpenter.sh/capacity-type", "operator": "In",
                                            "values": ["spot"]}]))

    def affinity(*terms):
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}

    on_demand = {"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "In",
                                       "values": ["on-demand"]}]}
    spot = {"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "NotIn", "values": ["on-demand"]}]}
    (message,) = schedulable(*pools, deployment("api", affinity=affinity(on_demand)))
    assert "pool 'arm' (NodePool) has no node its required node affinity on karpenter.sh/capacity-type matches" \
        in message
    assert schedulable(*pools, deployment("api", affinity=affinity(on_demand, spot))) == []  # terms are ORed
    big = {"matchExpressions": [{"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["4"]}]}
    assert schedulable(*pools, deployment("api", affinity=affinity(big))) == []  # some arm64 machine has more
    huge = {"matchExpressions": [{"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["100000"]}]}
    assert len(schedulable(*pools, deployment("api", affinity=affinity(huge)))) == 1
    nowhere = {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}
    assert len(schedulable(*pools, deployment("api", affinity=affinity(nowhere)))) == 1


def test_labels_karpenter_does_not_know_are_on_no_node_unless_a_requirement_declares_them():
    """scheduling.md, "User-Defined Labels": a label not well known to Karpenter keeps Pods Pending unless the
    NodePool's requirements name it (Exists); a well-known one it leaves open (the zone) can be met."""
    custom = {"team": "payments"}
    assert len(schedulable(node_class(), nodepool("p", []), deployment("api", node_selector=custom))) == 1
    declared = nodepool("p", [{"key": "team", "operator": "Exists"}])
    assert schedulable(node_class(), declared, deployment("api", node_selector=custom)) == []
    zone = {"topology.kubernetes.io/zone": "us-east-1a"}
    assert schedulable(node_class(), nodepool("p", []), deployment("api", node_selector=zone)) == []
    hypervisor = {"karpenter.k8s.aws/instance-hypervisor": "nitro"}  # an AWS label the pack does not derive
    assert schedulable(node_class(), nodepool("p", []), deployment("api", node_selector=hypervisor)) == []


def test_what_it_leaves_alone():
    tainted = (node_class(), nodepool("batch", [], taints=BATCH_TAINT))
    assert schedulable(*tainted, workload("DaemonSet", "agent")) == []  # its Pods go only where they can run
    assert schedulable(*tainted, deployment("api", labels=placed())) == []  # ComputeCluster placement
    assert schedulable(*tainted, deployment("api", pod={"nodeName": "node-1"})) == []  # no scheduler
    assert schedulable(deployment("api", node_selector=ARM64)) == []  # no platform pool in the stack


def test_a_value_not_known_during_preview_is_a_note_never_a_violation():
    pool = {"metadata": {"name": "p"}, "spec": {"template": {"spec": {
        "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": [UNKNOWN_STRING_VALUE]}],
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
    api = Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {"template": {
        "spec": {"containers": [{"name": "a", "image": "i"}], "nodeSelector": AMD64}}}})
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        result = Analyzer().run([Resource.of("kubernetes:karpenter.sh/v1:NodePool", "p", pool), api])
    assert result.of("workload-schedulable") == []
    assert "workload-schedulable" in {note.policy for note in result.notes}


# --- EKS managed node groups, through pulumi-aws ------------------------------------------------------------

def test_eks_node_groups_refuse_with_the_schedulers_reasons_and_take_what_matches():
    from builders import node_group

    batch = node_group("batch", ["m7g.large"], ami_type="AL2023_ARM_64_STANDARD",
                       taints=[("dedicated", "batch", "NO_SCHEDULE")])
    general = node_group("general", ["m7i.large"], labels={"tier": "general"})
    (message,) = schedulable(batch, general, deployment("api", node_selector={"disktype": "ssd"}))
    assert message == (
        "Deployment 'api': no pool can run its Pods: pool 'batch' (NodeGroup) has taint dedicated=batch:NoSchedule "
        "that it does not tolerate and does not have label disktype=ssd; pool 'general' (NodeGroup) does not have "
        "label disktype=ssd. They would stay Pending: change its nodeSelector, node affinity or tolerations to match "
        "a pool, or declare a pool that takes them")
    assert schedulable(batch, general, deployment("api", node_selector={"tier": "general"})) == []
    by_name = {"eks.amazonaws.com/nodegroup": "batch"}
    tolerates = {"tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]}
    assert schedulable(batch, general, deployment("api", node_selector=by_name, pod=tolerates)) == []
    (arm,) = schedulable(batch, general, deployment("api", node_selector={**by_name, **AMD64}, pod=tolerates))
    assert "pool 'batch' (NodeGroup) runs arm64 nodes, not amd64 (its nodeSelector's kubernetes.io/arch)" in arm


def test_eks_labels_the_pack_does_not_model_may_be_there():
    from builders import node_group

    general = node_group("general", ["m7i.large"])
    for selector in ({"eks.amazonaws.com/nodegroup-image": "ami-1"}, {"topology.kubernetes.io/zone": "eu-west-1a"},
                     {"eks.amazonaws.com/capacityType": "ON_DEMAND"}):
        assert schedulable(general, deployment("api", node_selector=selector)) == [], selector
    assert len(schedulable(general, deployment("api", node_selector={"eks.amazonaws.com/capacityType": "SPOT"}))) == 1
    assert len(schedulable(general, deployment("api", node_selector={"team": "payments"}))) == 1


def test_gke_and_aks_node_pools_taints_and_labels():
    from builders import aks_node_pool, gke_node_pool

    gke = gke_node_pool("web", labels={"tier": "web"}, taints=[("dedicated", "web", "NO_SCHEDULE")])
    tolerates = {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web"}]}
    assert schedulable(gke, deployment("api", pod=tolerates), platform="gcp") == []
    assert schedulable(gke, deployment("api", node_selector={"cloud.google.com/gke-nodepool": "web"}, pod=tolerates),
                       platform="gcp") == []
    (message,) = schedulable(gke, deployment("api", node_selector={"tier": "db"}), platform="gcp")
    assert message.startswith("Deployment 'api': no pool can run its Pods: pool 'web' (GKE NodePool) has taint "
                              "dedicated=web:NoSchedule that it does not tolerate and does not have label tier=db.")
    for native, kind in ((False, "KubernetesClusterNodePool"), (True, "AgentPool")):
        aks = aks_node_pool("gpu", "Standard_D4s_v5", labels={"sku": "gpu"}, taints=["sku=gpu:NoSchedule"],
                            native=native)
        assert schedulable(aks, deployment("api", node_selector={"kubernetes.azure.com/agentpool": "gpu"},
                                           pod={"tolerations": [{"key": "sku", "operator": "Exists"}]}),
                           platform="azure") == []
        (message,) = schedulable(aks, deployment("api"), platform="azure")
        assert f"pool 'gpu' ({kind}) has taint sku=gpu:NoSchedule that it does not tolerate" in message


def test_an_aks_spot_pools_automatic_taint_keeps_untolerating_pods_off_it():
    """AKS labels and taints a Spot pool's nodes kubernetes.azure.com/scalesetpriority=spot:NoSchedule
    (learn.microsoft.com/azure/aks/spot-node-pool), whether the program writes them or not: a Pod that does not
    tolerate it cannot land there, one that does can."""
    from builders import managed_cluster

    def cluster(*pools: dict) -> object:
        return managed_cluster("aks", [{"count": 1, "mode": "System", "name": "system", "os_type": "Linux",
                                        "vm_size": "Standard_D4s_v5", "node_taints": ["CriticalAddonsOnly=true:NoSchedule"]},
                                       *pools])

    spot = {"count": 1, "mode": "User", "name": "spot", "os_type": "Linux", "vm_size": "Standard_D4s_v5",
            "scale_set_priority": "Spot", "eviction_policy": "Delete", "spot_max_price": -1}
    (message,) = run(cluster(spot), deployment("api", requests={"cpu": "100m"}), platform="azure").findings(
        "workload-schedulable")
    assert ("pool 'spot' of AKS cluster 'aks' has taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule that it "
            "does not tolerate") in message
    tolerates = {"tolerations": [{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal",
                                  "value": "spot", "effect": "NoSchedule"}]}
    assert run(cluster(spot), deployment("api", requests={"cpu": "100m"}, pod=tolerates),
               platform="azure").findings("workload-schedulable") == []
    # a regular pool has no such taint
    regular = {key: value for key, value in spot.items() if key not in ("scale_set_priority", "eviction_policy",
                                                                        "spot_max_price")}
    assert run(cluster(regular), deployment("api", requests={"cpu": "100m"}),
               platform="azure").findings("workload-schedulable") == []


def test_a_pod_that_selects_spot_capacity_needs_a_spot_pool_as_the_platforms_label_it():
    """AKS labels Spot nodes kubernetes.azure.com/scalesetpriority=spot and GKE Spot VMs cloud.google.com/gke-spot=true,
    and neither labels other nodes so: a Pod that selects Spot capacity (tolerating AKS's taint, as AKS's guide writes
    it) on a cluster of regular pools waits for ever. Under the platforms' own label domains these passed, silently;
    with a Spot pool it lands."""
    from builders import gke_node_pool, managed_cluster

    spot_pod = {"nodeSelector": {"kubernetes.azure.com/scalesetpriority": "spot"}, "tolerations": [{
        "key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]}
    system = {"count": 1, "mode": "System", "name": "system", "os_type": "Linux", "vm_size": "Standard_D4s_v5"}
    spot = {**system, "mode": "User", "name": "spot", "scale_set_priority": "Spot", "eviction_policy": "Delete"}
    (message,) = run(managed_cluster("aks", [system]), workload("Deployment", "batch", pod=spot_pod),
                     platform="azure").findings("workload-schedulable")
    assert "does not have label kubernetes.azure.com/scalesetpriority=spot" in message, message
    assert run(managed_cluster("aks", [system, spot]), workload("Deployment", "batch", pod=spot_pod),
               platform="azure").findings("workload-schedulable") == []

    import pulumi_gcp as gcp

    def gke_spot() -> object:
        return gcp.container.NodePool("spot", name="spot", cluster="fleet", location="europe-west1-b", node_count=1,
                                      node_config=gcp.container.NodePoolNodeConfigArgs(machine_type="e2-standard-2",
                                                                                      spot=True))

    selects = {"nodeSelector": {"cloud.google.com/gke-spot": "true"}}
    (message,) = run(gke_node_pool("regular", "e2-standard-2"), workload("Deployment", "batch", pod=selects),
                     platform="gcp").findings("workload-schedulable")
    assert "does not have label cloud.google.com/gke-spot=true" in message, message
    assert run(gke_node_pool("regular", "e2-standard-2"), gke_spot, workload("Deployment", "batch", pod=selects),
               platform="gcp").findings("workload-schedulable") == []


def test_the_extended_resource_admission_tolerates_a_resource_taint_for_pods_that_request_it():
    """EKS, GKE and AKS run the ExtendedResourceToleration admission plugin: a Pod that requests (or only limits) an
    extended resource gets the toleration {key: <resource>, operator: Exists, effect: NoSchedule}, so a GPU pool
    tainted nvidia.com/gpu=present:NoSchedule takes it with no toleration written (an EKS g5 group as NVIDIA's and
    AWS's GPU guides taint it was refused: a false violation); a Pod that requests no GPU is still kept off, and so is
    the GPU Pod from a NoExecute taint of that key, or a taint of another resource's key."""
    from builders import deployment, gke_node_pool, node_group, workload

    gpu_pool = gke_node_pool("gpu", "n1-standard-4", taints=[("nvidia.com/gpu", "present", "NO_SCHEDULE")],
                             location="europe-west1-b", accelerator={"type": "nvidia-tesla-t4", "count": 1})
    gpu = {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}
    assert run(gpu_pool, deployment("train", requests=gpu), platform="gcp").findings("workload-schedulable") == []
    (message,) = run(gpu_pool, deployment("web", requests={"cpu": "500m"}), platform="gcp").findings("workload-schedulable")
    assert "nvidia.com/gpu=present:NoSchedule" in message, message

    def eks(effect: str, key: str = "nvidia.com/gpu") -> object:
        return node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", taints=[(key, "present", effect)])

    assert run(eks("NO_SCHEDULE"), deployment("train", requests=gpu), platform="aws").findings(
        "workload-schedulable") == []
    limited = {"containers": [{"name": "a", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}
    assert run(eks("NO_SCHEDULE"), workload("Deployment", "train", pod=limited), platform="aws").findings(
        "workload-schedulable") == []
    for taint, text in ((eks("NO_EXECUTE"), "nvidia.com/gpu=present:NoExecute"),
                        (eks("NO_SCHEDULE", "aws.amazon.com/neuron"), "aws.amazon.com/neuron=present:NoSchedule")):
        (message,) = run(taint, deployment("train", requests=gpu), platform="aws").findings("workload-schedulable")
        assert text in message, message


def test_gke_labels_gpu_nodes_with_their_accelerator_and_no_other_node():
    """GKE labels a GPU node cloud.google.com/gke-accelerator=<its accelerator's type> (the nodeSelector its GPU guide
    gives Pods) and a node without GPUs not at all: a Pod selecting the T4 lands on the T4 pool, silently; one
    selecting an L4, or any accelerator on a cluster without GPU pools, can never be scheduled."""
    from builders import gke_node_pool

    t4_pool = gke_node_pool("gpu", "n1-standard-4", location="europe-west1-b",
                            accelerator={"type": "nvidia-tesla-t4", "count": 1})
    cpu = gke_node_pool("cpu", "e2-standard-2")
    gpu = {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}

    def on(accelerator: str, *pools: object) -> object:
        return run(*pools, deployment("train", requests=gpu,
                                      node_selector={"cloud.google.com/gke-accelerator": accelerator}), platform="gcp")

    result = on("nvidia-tesla-t4", cpu, t4_pool)
    assert result.findings("workload-schedulable") == []
    assert [note.finding for note in result.notes if note.policy == "workload-schedulable"] == []
    (message,) = on("nvidia-l4", cpu, t4_pool).findings("workload-schedulable")
    assert "pool 'gpu' (GKE NodePool) does not have label cloud.google.com/gke-accelerator=nvidia-l4" in message, message
    (message,) = on("nvidia-tesla-t4", cpu).findings("workload-schedulable")
    assert "pool 'cpu' (GKE NodePool) does not have label cloud.google.com/gke-accelerator=nvidia-tesla-t4" in message


def test_a_pod_that_needs_a_label_the_pack_does_not_model_is_a_note_never_silent():
    """A platform sets labels under its own prefixes the pack does not model (GKE's cloud.google.com/machine-family,
    EKS's eks.amazonaws.com/nodegroup-image): a Pod that needs one may or may not land, which is said (a note), never
    passed in silence nor refused; a Pod that only keeps away from a value (NotIn) lands whether or not it is set."""
    from builders import gke_node_pool, node_group

    def notes(result: object) -> list[str]:
        return [note.finding for note in result.notes if note.policy == "workload-schedulable"]  # type: ignore[attr-defined]

    result = run(gke_node_pool("web", "n2-standard-2"),
                 deployment("api", node_selector={"cloud.google.com/machine-family": "n2"}), platform="gcp")
    assert result.findings("workload-schedulable") == []
    (note,) = notes(result)
    assert note.endswith("whether the nodes of pool 'web' (GKE NodePool) carry label cloud.google.com/machine-family "
                         "is not known: its platform sets labels under that prefix that the pack does not model"), note
    general = node_group("general", ["m7i.large"])
    result = run(general, deployment("api", node_selector={"eks.amazonaws.com/nodegroup-image": "ami-1"}), platform="aws")
    assert result.findings("workload-schedulable") == [] and len(notes(result)) == 1
    away = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["fargate"]}]}]}}}}
    result = run(general, workload("Deployment", "api", pod=away), platform="aws")
    assert result.findings("workload-schedulable") == [] and notes(result) == []


def test_gke_taints_a_gpu_pool_made_after_a_cpu_pool_it_depends_on():
    """GKE taints a GPU node pool nvidia.com/gpu=present:NoSchedule when it joins a cluster that already runs a pool
    without GPUs (cloud.google.com/kubernetes-engine/docs/how-to/gpus). Two NodePools made at once may come in either
    order (a note); a GPU pool that depends_on the CPU pool is made after it, so the taint is certain and a Pod that
    asks for no GPU and selects the GPU pool is refused (issue 57: the note advised that very depends_on, and it
    changed nothing)."""
    import pulumi
    import pulumi_gcp as gcp

    def stack(ordered: bool):
        def program() -> None:
            cluster = gcp.container.Cluster("fleet", name="fleet", location="europe-west1-b", initial_node_count=1,
                                            remove_default_node_pool=True)
            cpu = gcp.container.NodePool("cpu", name="cpu", cluster=cluster.name, location="europe-west1-b",
                                         node_count=1, node_config={"machine_type": "n2-standard-4"})
            gcp.container.NodePool("gpu", name="gpu", cluster=cluster.name, location="europe-west1-b", node_count=1,
                                   node_config={"machine_type": "n1-standard-4", "guest_accelerators": [
                                       {"type": "nvidia-tesla-t4", "count": 1}]},
                                   opts=pulumi.ResourceOptions(depends_on=[cpu] if ordered else []))
            deployment("web", node_selector={"cloud.google.com/gke-nodepool": "gpu"}, requests={"cpu": "500m"})()
        return program

    from compute_guard.testkit import evaluate
    unordered = evaluate(stack(False), stack_config={"compute:platform": "gcp"})
    assert unordered.mandatory == []
    assert any("whether one came first" in reason for note in unordered.notes for reason in note.reasons)
    ordered = evaluate(stack(True), stack_config={"compute:platform": "gcp"})
    assert [(v.policy, v.finding) for v in ordered.mandatory] == [("workload-schedulable", (
        "Deployment 'web': no pool can run its Pods: pool 'cpu' (GKE NodePool) does not have label "
        "cloud.google.com/gke-nodepool=gpu; pool 'gpu' (GKE NodePool) has taint nvidia.com/gpu=present:NoSchedule that "
        "it does not tolerate. They would stay Pending: change its nodeSelector, node affinity or tolerations to match "
        "a pool, or declare a pool that takes them"))]
    assert not any("whether one came first" in reason for note in ordered.notes for reason in note.reasons)
