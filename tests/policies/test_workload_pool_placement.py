"""workload-pool-placement: container and daemon workloads resolve to exactly one ComputeCluster and pool."""

import pulumi_kubernetes as k8s
from builders import (
    AMD64,
    apps_pool,
    cluster,
    deployment,
    placed,
    role,
    run,
    seed_cluster_args,
    workload,
)


def placement(*parts):
    return run(*parts).findings("workload-pool-placement")


def test_missing_cluster_is_named():
    (finding,) = placement(cluster(), deployment("api", labels=placed("nope"), node_selector=AMD64))
    assert finding == ("Deployment 'api': 'compute.alien.dev/cluster' references missing ComputeCluster 'nope'; "
                       "use the id of a ComputeCluster in this stack ('compute')")


def test_the_cluster_label_is_the_id_input_not_the_pulumi_name():
    args = seed_cluster_args(id="compute")
    assert placement(cluster(args, name="pulumi-name"), deployment("api", labels=placed("compute"))) == []
    assert len(placement(cluster(args, name="pulumi-name"), deployment("api", labels=placed("pulumi-name")))) == 1


def test_several_clusters_need_an_explicit_choice():
    two = cluster(seed_cluster_args(id="two"), name="two")
    (finding,) = placement(cluster(), two, deployment("api"))
    assert "the stack declares 2 ComputeClusters ('compute', 'two'); select one explicitly" in finding
    assert placement(cluster(), two, deployment("api", labels=placed("two"))) == []


def test_a_pool_without_a_cluster():
    (finding,) = placement(deployment("api", labels={"compute.alien.dev/pool": "apps"}))
    assert finding == ("Deployment 'api': 'compute.alien.dev/pool' selects pool 'apps' without a ComputeCluster; "
                       "declare a ComputeCluster or remove the label")


def test_missing_or_ambiguous_pool():
    (finding,) = placement(cluster(), deployment("api", labels=placed(pool="gpu")))
    assert "references missing or ambiguous pool 'gpu' in ComputeCluster 'compute' (its pools: 'apps')" in finding
    two_pools = seed_cluster_args(capacity_groups=[apps_pool(), apps_pool(group_id="batch")])
    (finding,) = placement(cluster(two_pools), deployment("api"))
    assert "missing or ambiguous pool 'general'" in finding
    no_pools = seed_cluster_args(capacity_groups=[], dynamic_container_pool=None)
    (finding,) = placement(cluster(no_pools), deployment("api", labels=placed(pool="gpu")))
    assert "references missing or ambiguous pool 'gpu' in ComputeCluster 'compute' (its pools: none)" in finding


def test_general_or_sole_pool_by_default():
    with_general = seed_cluster_args(capacity_groups=[apps_pool(), apps_pool(group_id="general")])
    assert placement(cluster(with_general), deployment("api"), workload("DaemonSet", "agent")) == []
    assert placement(cluster(), deployment("api")) == []


def test_labels_may_sit_on_the_workload_or_its_template_but_must_agree():
    on_template = deployment("api", template_labels=placed())
    on_annotations = deployment("api", annotations=placed(), template_annotations=placed())
    assert placement(cluster(), on_template) == []
    assert placement(cluster(), on_annotations) == []
    disagree = deployment("api", labels=placed(), template_annotations={"compute.alien.dev/pool": "other"})
    (finding,) = placement(cluster(), disagree)
    assert finding.startswith("Deployment 'api': 'compute.alien.dev/pool' disagrees between its labels and "
                              "annotations (metadata.labels says 'apps', spec.template.metadata.annotations says "
                              "'other')")


def test_the_cluster_and_role_labels_must_agree_too():
    disagree = deployment("api", labels=placed(), template_labels={"compute.alien.dev/cluster": "other"})
    assert placement(cluster(), disagree) == [
        "Deployment 'api': 'compute.alien.dev/cluster' disagrees between its labels and annotations "
        "(metadata.labels says 'compute', spec.template.metadata.labels says 'other'); set one value everywhere"]
    roles = deployment("api", labels=role("container"), annotations=role("worker"))
    assert placement(cluster(), roles) == [
        "Deployment 'api': 'compute.alien.dev/workload' disagrees between its labels and annotations "
        "(metadata.labels says 'container', metadata.annotations says 'worker'); set one value everywhere"]


def test_a_daemonset_is_placed_like_any_container():
    assert placement(cluster(), workload("DaemonSet", "agent", labels=placed(pool="nope"))) == [
        "DaemonSet 'agent': references missing or ambiguous pool 'nope' in ComputeCluster 'compute' (its pools: "
        "'apps'); set the label 'compute.alien.dev/pool' to one of them"]


def test_unknown_role_is_a_violation():
    (finding,) = placement(cluster(), deployment("api", labels=role("service")))
    assert finding == ("Deployment 'api': 'compute.alien.dev/workload' must be one of container, daemon, worker, "
                       "dynamic")


def test_workers_ignore_cluster_and_pool_labels():
    worker = deployment("w", labels={**placed("nope", "nope"), **role("worker")}, node_selector=AMD64)
    assert run(cluster(), worker).violations == []


def test_duplicate_cluster_ids_are_ambiguous():
    (finding,) = placement(cluster(), cluster(name="again"), deployment("api", labels=placed()))
    assert "more than one ComputeCluster has that id" in finding


def test_patches_are_not_asked_for_labels_they_omit():
    def patch():
        k8s.apps.v1.DeploymentPatch("api", metadata={"name": "api"}, spec={"replicas": 3})

    two = cluster(seed_cluster_args(id="two"), name="two")
    assert run(cluster(), two, patch).violations == []


def test_a_cluster_label_in_a_stack_without_clusters():
    assert placement(deployment("api", labels=placed("nope"))) == [
        "Deployment 'api': 'compute.alien.dev/cluster' references missing ComputeCluster 'nope'; use the id of a "
        "ComputeCluster in this stack (there is none)"]


def test_a_patch_is_named_as_one():
    def patch():
        k8s.apps.v1.DeploymentPatch("api", metadata={"name": "api"}, spec={"template": {"spec": {
            "containers": [{"name": "api", "image": "i"}], "nodeSelector": {"kubernetes.io/arch": "x86_64"}}}})

    assert run(cluster(), patch).findings("workload-architecture-selector-valid") == [
        "DeploymentPatch 'api': spec.template.spec.nodeSelector['kubernetes.io/arch'] 'x86_64' is not a Kubernetes "
        "architecture; Kubernetes calls it 'amd64'"]


def test_a_patchs_label_problems_name_it_as_a_patch():
    def patch():
        k8s.apps.v1.DeploymentPatch("api", metadata={"name": "api", "labels": role("service")}, spec={"replicas": 3})

    assert run(cluster(), patch).findings("workload-pool-placement") == [
        "DeploymentPatch 'api': 'compute.alien.dev/workload' must be one of container, daemon, worker, dynamic"]


def test_labels_not_known_yet_wait_instead_of_resolving_the_default_pool():
    """Found by the unknown sweep: a workload's metadata unknown during preview read as 'no labels', so its
    placement fell back to 'general' and failed falsely; now its labels are unknown and the policy waits."""
    from builders import CLUSTER_TYPE, valid_cluster_props
    from pulumi_policy.proxy import UNKNOWN_OBJECT_VALUE

    from compute_guard.testkit import Analyzer, Resource
    from compute_guard.testkit.analyzer import stack_environment

    props = valid_cluster_props()
    props["capacityGroups"].append({"groupId": "batch", "minSize": 0, "maxSize": 1})  # no 'general', no sole pool
    for template in (False, True):
        spec = {"template": {"metadata": UNKNOWN_OBJECT_VALUE if template else {"labels": {}}, "spec": {
            "containers": [{"name": "api", "image": "x"}], "nodeSelector": {"kubernetes.io/arch": "amd64"}}}}
        deployment = {"metadata": {"name": "api", "labels": {}} if template else UNKNOWN_OBJECT_VALUE, "spec": spec}
        with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
            result = Analyzer().run([Resource.of(CLUSTER_TYPE, "compute", props),
                                     Resource.of("kubernetes:apps/v1:Deployment", "api", deployment)])
        assert result.of("workload-pool-placement") == []
        assert "workload-pool-placement" in [note.policy for note in result.notes]
