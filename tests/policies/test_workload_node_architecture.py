"""workload-node-architecture: every workload's Pods are pinned to the architecture its pool needs."""

import pulumi_kubernetes as k8s
from builders import (
    AMD64,
    ARM64,
    apps_pool,
    arm_pool,
    bare_pool,
    cluster,
    deployment,
    names,
    placed,
    role,
    run,
    seed_cluster_args,
    seed_stack,
    workload,
)


def node_arch(*parts):
    return run(*parts).findings("workload-node-architecture")


def test_pinned_by_selector_beta_label_or_required_affinity():
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}]}}}
    for pinned in (dict(node_selector=AMD64), dict(node_selector={"beta.kubernetes.io/arch": "amd64"}),
                   dict(affinity=affinity)):
        assert node_arch(*seed_stack(**pinned)) == [], pinned


def test_unpinned_and_excluded_have_their_own_messages():
    (unpinned,) = node_arch(*seed_stack(node_selector=None))
    assert unpinned == ("Deployment 'api': its Pods need amd64 nodes (the stack's compute pools declare x86_64), "
                        "but nothing pins them there and they could be scheduled on another architecture in a mixed "
                        "cluster; set spec.template.spec.nodeSelector['kubernetes.io/arch'] to 'amd64'")
    (excluded,) = node_arch(*seed_stack(node_selector=ARM64))
    assert "but its architecture constraints exclude amd64 (they allow arm64)" in excluded


def test_preferred_affinity_never_pins():
    preferred = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchExpressions": [
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}}]}}
    assert len(node_arch(*seed_stack(node_selector=None, affinity=preferred))) == 1


def test_arm64_pools_need_arm64():
    args = seed_cluster_args(capacity_groups=[arm_pool("apps")])
    assert node_arch(cluster(args), deployment("api", node_selector=ARM64)) == []
    assert "need arm64" in node_arch(cluster(args), deployment("api", node_selector=AMD64))[0]


def test_failed_placement_still_gets_the_stack_architecture():
    result = run(cluster(), deployment("api", labels=placed("nope")))
    (placement,) = result.findings("workload-pool-placement")
    assert "references missing ComputeCluster 'nope'" in placement
    (architecture,) = result.findings("workload-node-architecture")
    assert "its Pods need amd64 nodes (the stack's compute pools declare x86_64)" in architecture


def test_with_several_architectures_only_pool_declarations_are_enforced():
    args = seed_cluster_args(capacity_groups=[apps_pool(), arm_pool(), bare_pool("general")])
    parts = [cluster(args),
             deployment("on-x86", labels=placed(pool="apps")),
             deployment("on-arm", labels=placed(pool="arm"), node_selector=AMD64),
             deployment("on-general"),
             deployment("worker", labels=role("worker")),
             workload("DaemonSet", "agent-on-arm", labels=placed(pool="arm"), node_selector=AMD64),
             workload("DaemonSet", "agent-pinned", labels=placed(pool="arm"), node_selector=ARM64),
             deployment("jobs-on-arm", labels=role("dynamic"), node_selector=ARM64),  # the dynamic pool is x86_64
             deployment("jobs-pinned", labels=role("dynamic"), node_selector=AMD64)]
    result = run(*parts)
    assert names(result.of("workload-node-architecture")) == ["agent-on-arm", "jobs-on-arm", "on-arm", "on-x86"]
    assert names(result.of("compute-pools-single-architecture")) == ["compute"]


def test_no_declared_architecture_means_no_constraint():
    args = seed_cluster_args(capacity_groups=[bare_pool("general")], dynamic_container_pool=None)
    assert run(cluster(args), deployment("api"), workload("DaemonSet", "agent")).violations == []


def test_patches_are_reported_only_when_they_exclude_the_architecture():
    def patch(selector):
        return lambda: k8s.apps.v1.DeploymentPatch(f"api-{len(selector)}", metadata={"name": "api"}, spec={
            "template": {"spec": {"nodeSelector": selector}}})

    assert node_arch(cluster(), patch({})) == []
    assert node_arch(cluster(), patch({"disktype": "ssd"})) == []
    (finding,) = node_arch(cluster(), patch(ARM64))
    assert finding.startswith("DeploymentPatch 'api-1': its Pods need amd64 nodes")


def test_a_workload_whose_need_is_not_known_yet_hides_no_other_workloads_finding():
    """Pools of two architectures: 'later' names a pool not known yet (its need is a note); 'wrong', after it,
    is still judged (a mutant stopped at the first unknown)."""
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

    from compute_guard.testkit import Resource
    from compute_guard.testkit.analyzer import Analyzer, stack_environment

    profile = {"cpu": "2", "memoryBytes": 4 << 30, "ephemeralStorageBytes": 0}
    mixed = {"id": "compute", "capacityGroups": [
        {"groupId": "arm", "minSize": 1, "maxSize": 2, "profile": {**profile, "architecture": "arm64"}},
        {"groupId": "intel", "minSize": 1, "maxSize": 2, "profile": {**profile, "architecture": "x86_64"}}]}

    def deployment_on(name, pool, arch):
        return Resource.of("kubernetes:apps/v1:Deployment", name, {
            "metadata": {"name": name, "labels": {"compute.alien.dev/pool": pool}},
            "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "i"}],
                                           "nodeSelector": {"kubernetes.io/arch": arch}}}}})

    resources = [Resource.of("compute:index:ComputeCluster", "compute", mixed),
                 deployment_on("later", UNKNOWN_STRING_VALUE, "amd64"), deployment_on("wrong", "intel", "arm64")]
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        result = Analyzer().run(resources)
    assert [v.urn.rsplit("::", 1)[-1] for v in result.of("workload-node-architecture")] == ["wrong"]
    assert "workload-node-architecture" in {note.policy for note in result.notes}


def test_a_pool_architecture_not_known_yet_leaves_the_stacks_architecture_unknown():
    """One pool arm64, one not known yet during preview: the stack's single architecture is not known either, so an
    amd64-pinned workload on neither pool (its placement fails: there is no 'general') is a note, never a
    violation: the stack may turn out amd64."""
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

    from compute_guard.testkit import Resource
    from compute_guard.testkit.analyzer import Analyzer, stack_environment

    profile = {"cpu": "2", "memoryBytes": 4 << 30, "ephemeralStorageBytes": 0}
    pools = {"id": "compute", "capacityGroups": [
        {"groupId": "arm", "minSize": 1, "maxSize": 2, "profile": {**profile, "architecture": "arm64"}},
        {"groupId": "later", "minSize": 1, "maxSize": 2, "profile": {**profile, "architecture": UNKNOWN_STRING_VALUE}}]}
    api = Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {"template": {
        "spec": {"containers": [{"name": "a", "image": "i"}], "nodeSelector": {"kubernetes.io/arch": "amd64"}}}}})
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        result = Analyzer().run([Resource.of("compute:index:ComputeCluster", "compute", pools), api])
    assert result.of("workload-node-architecture") == []
    assert "workload-node-architecture" in {note.policy for note in result.notes}


# --- Karpenter NodePools (SPEC 14): the pools that take a workload run one architecture, or it is pinned ------

def test_karpenters_multiple_arch_example_needs_its_unpinned_workload_pinned():
    from builders import from_manifest, karpenter_manifests

    pools = [from_manifest(document) for document in karpenter_manifests("nodepools/multiple-arch.yaml")]
    (inflate,) = karpenter_manifests("workloads/inflate.yaml")
    (message,) = run(*pools, from_manifest(inflate), platform="aws").findings("workload-node-architecture")
    assert message == (
        "Deployment 'inflate': its Pods may land on amd64 and arm64 nodes (pool 'amd64' (NodePool) runs amd64, pool "
        "'arm64' (NodePool) runs arm64), but nothing pins them to one architecture; set "
        "spec.template.spec.nodeSelector['kubernetes.io/arch'] to the one its images are built for")
    (arm64,) = karpenter_manifests("workloads/arm64.yaml")  # pinned: only the arm64 pool takes it
    assert run(*pools, from_manifest(arm64), platform="aws").findings("workload-node-architecture") == []


def test_one_nodepool_of_both_architectures_needs_a_pin_and_one_of_one_does_not():
    from builders import arch_requirement, node_class, nodepool

    both = nodepool("any", [arch_requirement("amd64", "arm64")])
    (message,) = run(node_class(), both, deployment("api"), platform="aws").findings("workload-node-architecture")
    assert "(pool 'any' (NodePool) runs amd64 and arm64)" in message
    assert run(node_class(), both, deployment("api", node_selector=ARM64),
               platform="aws").findings("workload-node-architecture") == []
    one = nodepool("graviton", [arch_requirement("arm64")])
    assert run(node_class(), one, deployment("api"), platform="aws").findings("workload-node-architecture") == []
