"""The stack policies: single architecture, pool placement, node architecture, dynamic pool."""

import pulumi
import pulumi_kubernetes as k8s
from builders import (
    AMD64,
    ARM64,
    apps_pool,
    cluster,
    deployment,
    placed,
    raw_cluster,
    role,
    run,
    seed_cluster_args,
    seed_stack,
    valid_cluster_props,
    workload,
)

from compute_cluster import CapacityGroup, ComputeClusterArgs
from testkit import Analyzer, Resource
from testkit.analyzer import stack_environment


def arm_pool(group_id="arm"):
    pool = apps_pool(group_id=group_id)
    pool.profile.architecture = "arm64"
    return pool


def bare_pool(group_id):
    return CapacityGroup(group_id=group_id, min_size=0, max_size=1)


def names(violations):
    return sorted(v.urn.rsplit("::", 1)[-1] for v in violations)


# 5: compute-pools-single-architecture ----------------------------------------------------------

def test_mixed_architectures_are_reported_on_every_cluster_that_declares_one():
    other = ComputeClusterArgs(id="edge", capacity_groups=[arm_pool("general")])
    plain_one = ComputeClusterArgs(id="plain", capacity_groups=[bare_pool("general")])
    result = run(cluster(), cluster(other, name="edge"), cluster(plain_one, name="plain"))
    found = result.of("compute-pools-single-architecture")
    assert names(found) == ["compute", "edge"]
    assert all("arm64 and x86_64" in v.finding for v in found)
    assert any(v.finding.startswith("ComputeCluster 'edge' declares pool 'general' arm64") for v in found)


def test_mixed_pools_of_one_cluster_are_one_violation():
    args = seed_cluster_args(capacity_groups=[apps_pool(), arm_pool()])
    (violation,) = run(cluster(args)).of("compute-pools-single-architecture")
    assert "pool 'apps' x86_64, pool 'arm' arm64" in violation.finding


def test_one_architecture_and_unspecified_pools_agree():
    args = seed_cluster_args(capacity_groups=[apps_pool(), bare_pool("other")])
    assert run(cluster(args), cluster(seed_cluster_args(id="two"), name="two")).of(
        "compute-pools-single-architecture") == []


# 6: workload-pool-placement --------------------------------------------------------------------

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
    assert "selects pool 'apps' without a ComputeCluster" in finding


def test_missing_or_ambiguous_pool():
    (finding,) = placement(cluster(), deployment("api", labels=placed(pool="gpu")))
    assert "references missing or ambiguous pool 'gpu' in ComputeCluster 'compute' (its pools: 'apps')" in finding
    two_pools = seed_cluster_args(capacity_groups=[apps_pool(), apps_pool(group_id="batch")])
    (finding,) = placement(cluster(two_pools), deployment("api"))
    assert "missing or ambiguous pool 'general'" in finding


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


# 7: workload-node-architecture -----------------------------------------------------------------

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
             deployment("worker", labels=role("worker"))]
    result = run(*parts)
    assert names(result.of("workload-node-architecture")) == ["on-arm", "on-x86"]
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


# 8: dynamic-container-pool ---------------------------------------------------------------------

def dynamic(*parts):
    return run(*parts).findings("dynamic-container-pool")


def test_dynamic_workloads_land_in_the_dynamic_pool():
    assert dynamic(cluster(), deployment("jobs", labels=role("dynamic"), node_selector=AMD64)) == []


def test_dynamic_workloads_need_exactly_one_cluster():
    two = cluster(seed_cluster_args(id="two"), name="two")
    found = run(cluster(), two, deployment("a", labels=role("dynamic")), deployment("b", labels=role("dynamic")))
    violations = found.of("dynamic-container-pool")
    assert names(violations) == ["a", "b"]
    assert all("need exactly one ComputeCluster, but the stack declares 2" in v.finding for v in violations)
    assert dynamic(deployment("jobs", labels=role("dynamic"))) == []  # none: default scheduling


def test_the_dynamic_pool_must_exist():
    args = seed_cluster_args(dynamic_container_pool=None)
    (finding,) = dynamic(cluster(args), deployment("jobs", labels=role("dynamic")))
    assert "ComputeCluster 'compute' has no dynamic container pool 'general' (the default 'general')" in finding
    with_general = seed_cluster_args(dynamic_container_pool=None,
                                     capacity_groups=[apps_pool(), apps_pool(group_id="general")])
    assert dynamic(cluster(with_general), deployment("jobs", labels=role("dynamic"))) == []


def test_dynamic_workloads_may_not_pick_another_pool():
    args = seed_cluster_args(capacity_groups=[apps_pool(), apps_pool(group_id="batch")])
    (finding,) = dynamic(cluster(args), deployment("jobs", labels={**role("dynamic"), "compute.alien.dev/pool": "batch"}))
    assert "names pool 'batch', but dynamic containers land in the dynamic container pool 'apps'" in finding


# a component that registered no outputs ---------------------------------------------------------

def test_a_user_component_without_outputs_is_read_from_its_analyzed_inputs():
    mixed = valid_cluster_props()
    mixed["capacityGroups"].append(dict(mixed["capacityGroups"][0], groupId="arm",
                                        profile=dict(mixed["capacityGroups"][0]["profile"], architecture="arm64")))
    result = run(raw_cluster(mixed, register_outputs=False))
    (violation,) = result.of("compute-pools-single-architecture")
    assert violation.urn.endswith("acme:infra:ComputeCluster::compute")


def test_without_outputs_or_inputs_the_stack_policies_say_they_cannot_run():
    resource = Resource.of("acme:infra:ComputeCluster", "compute", valid_cluster_props(), outputs={})
    api = Resource.of("kubernetes:apps/v1:Deployment", "api", {"spec": {"template": {"spec": {}}}})
    with stack_environment({}, "project", "stack", True):
        result = Analyzer().analyze_stack([resource, api])
    assert result.violations == []
    assert {n.policy for n in result.notes} == {"compute-pools-single-architecture", "workload-pool-placement",
                                                "workload-node-architecture"}
    assert all("its outputs hold no capacityGroups" in n.message for n in result.notes)


def test_the_seed_stack_is_clean_under_every_policy():
    assert run(*seed_stack()).violations == []
    assert run(*seed_stack(), platform="aws").violations == []


# A Helm v3 Release hides its workloads ------------------------------------------------------------

def helm_release(name="ingress", chart="gateway"):
    return lambda: k8s.helm.v3.Release(name, chart=chart, namespace="istio-ingress")


RELEASE_FINDING = (
    "Release 'ingress' installs chart 'gateway' through Helm inside the Kubernetes provider, so no policy sees "
    "its workloads: their pool placement and CPU architecture go unchecked; deploy the chart with "
    "kubernetes:helm.sh/v4:Chart (same chart and values) to have them checked")


def test_a_helm_v3_release_is_shown_without_failing_the_preview():
    result = run(cluster(), helm_release())
    (violation,) = result.violations
    assert (violation.policy, violation.level, violation.finding) == (
        "workload-pool-placement", "advisory", RELEASE_FINDING)
    assert names([violation]) == ["ingress"] and violation.urn.split("::")[-2].endswith("helm.sh/v3:Release")
    assert result.mandatory == []


def test_a_helm_v3_release_can_be_enforced_and_keeps_a_secret_chart_name_out():
    enforce = {"workload-pool-placement": {"helmReleases": "enforce"}}
    (violation,) = run(cluster(), helm_release(), policy_config=enforce).violations
    assert (violation.level, violation.finding) == ("mandatory", RELEASE_FINDING)
    hidden = run(helm_release(chart=pulumi.Output.secret("private-chart"))).violations
    assert [v.finding.split(" through")[0] for v in hidden] == ["Release 'ingress' installs its chart"]
    assert run(helm_release(), policy_config={"workload-pool-placement": "disabled"}).violations == []
