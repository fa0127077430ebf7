"""compute-pools-single-architecture: every pool of the stack declares the same CPU architecture, read from
the ComputeClusters' outputs or, for a component that registered none, from its analyzed inputs."""

from builders import (
    apps_pool,
    arm_pool,
    bare_pool,
    cluster,
    names,
    raw_cluster,
    run,
    seed_cluster_args,
    valid_cluster_props,
)

from compute_guard.component import ComputeClusterArgs
from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment


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
