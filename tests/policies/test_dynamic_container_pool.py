"""dynamic-container-pool: dynamic workloads land in the one ComputeCluster's dynamic container pool."""

from builders import (
    AMD64,
    apps_pool,
    cluster,
    deployment,
    names,
    role,
    run,
    seed_cluster_args,
)


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
    (violation,) = run(cluster(args), deployment("jobs", labels=role("dynamic"))).of("dynamic-container-pool")
    assert names([violation]) == ["jobs"]  # reported on the workload, not the cluster
    assert violation.finding == (
        "Deployment 'jobs': ComputeCluster 'compute' has no dynamic container pool 'general' (the default "
        "'general'); add that pool or set dynamicContainerPool to one of its pools ('apps')")
    with_general = seed_cluster_args(dynamic_container_pool=None,
                                     capacity_groups=[apps_pool(), apps_pool(group_id="general")])
    assert dynamic(cluster(with_general), deployment("jobs", labels=role("dynamic"))) == []


def test_dynamic_workloads_may_not_pick_another_pool():
    args = seed_cluster_args(capacity_groups=[apps_pool(), apps_pool(group_id="batch")])
    (finding,) = dynamic(cluster(args), deployment("jobs", labels={**role("dynamic"), "compute.alien.dev/pool": "batch"}))
    assert "names pool 'batch', but dynamic containers land in the dynamic container pool 'apps'" in finding


def test_a_named_dynamic_pool_that_does_not_exist_says_where_the_name_came_from():
    from builders import raw_cluster, valid_cluster_props

    (violation,) = run(raw_cluster(valid_cluster_props(dynamicContainerPool="gone")),
                       deployment("jobs", labels=role("dynamic"))).of("dynamic-container-pool")
    assert violation.finding == (
        "Deployment 'jobs': ComputeCluster 'compute' has no dynamic container pool 'gone' (its dynamicContainerPool); "
        "add that pool or set dynamicContainerPool to one of its pools ('apps')")


def test_a_dynamic_workload_naming_another_cluster_is_reported_on_itself():
    labels = {**role("dynamic"), "compute.alien.dev/cluster": "other"}
    (violation,) = run(cluster(), deployment("jobs", labels=labels)).of("dynamic-container-pool")
    assert names([violation]) == ["jobs"]
    assert violation.finding == (
        "Deployment 'jobs': 'compute.alien.dev/cluster' names 'other', but dynamic containers land on ComputeCluster "
        "'compute'; remove the label or set it to that id")
