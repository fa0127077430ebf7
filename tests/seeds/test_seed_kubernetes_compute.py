"""Seed 000 (kubernetes_compute.rs): each of its tests, expressed on Pulumi resources."""

from builders import (
    AMD64,
    ARM64,
    DECLARED,
    apps_pool,
    cluster,
    deployment,
    placed,
    role,
    run,
    seed_cluster_args,
    seed_stack,
    workload,
)

from compute_guard.policies.model.placement import resolve_dynamic_pool, resolve_placement
from compute_guard.policies.model.stack import parse_stack
from compute_guard.testkit import capture_program


def model(*parts):
    """The stack model the stack policies build, from what the SDKs registered."""

    def program():
        for part in parts:
            part()

    resources = capture_program(program)
    from google.protobuf import json_format

    class Outputs:
        def __init__(self, r):
            self.resource_type, self.urn, self.name = r.type, r.urn, r.name
            self.props = json_format.MessageToDict(r.outputs)

    return parse_stack((Outputs(r) for r in resources), {})


def test_portable_pool_preserves_placement_and_dynamic_admission():
    result = run(*seed_stack())
    assert result.violations == []
    stack = model(*seed_stack(), deployment("jobs", labels=role("dynamic")))
    dynamic = next(w for w in stack.workloads if w.role == "dynamic")
    _, pool = resolve_dynamic_pool(stack, dynamic)
    assert pool.group_id == "apps"
    assert pool.architecture == "x86_64"
    # and through the policies: a dynamic workload pinned to amd64 is admitted, one on arm64 is not
    assert run(*seed_stack(), deployment("jobs", labels=role("dynamic"), node_selector=AMD64,
                                         requests=DECLARED)).violations == []
    wrong = run(*seed_stack(), deployment("jobs", labels=role("dynamic"), node_selector=ARM64, requests=DECLARED))
    assert [v.policy for v in wrong.violations] == ["workload-node-architecture"]
    assert "need amd64" in wrong.violations[0].finding


def test_rejects_execution_requirements_and_invalid_references():
    args = seed_cluster_args(capacity_groups=[apps_pool(nested_virtualization=True)],
                             dynamic_container_pool="missing")
    result = run(*seed_stack(args))
    assert any("nested virtualization" in f for f in result.findings("kubernetes-compute-enforceable"))
    assert any("dynamicContainerPool names pool 'missing'" in f for f in result.findings("compute-cluster-valid"))

    renamed = seed_cluster_args(capacity_groups=[apps_pool(group_id="other")], dynamic_container_pool="other")
    result = run(*seed_stack(renamed))
    placement = result.findings("workload-pool-placement")
    assert len(placement) == 1 and "pool 'apps'" in placement[0]


def test_implicit_placement_uses_the_declared_pool_architecture():
    stack = model(cluster(), deployment("api"))
    placement = resolve_placement(stack, stack.workloads[0])
    _, pool = placement
    assert pool.group_id == "apps" and pool.architecture == "x86_64"
    assert run(cluster(), deployment("api", node_selector=AMD64, requests=DECLARED)).violations == []
    unpinned = run(cluster(), deployment("api", requests=DECLARED))
    assert [v.policy for v in unpinned.violations] == ["workload-node-architecture"]


def test_unspecified_pool_and_unpooled_worker_use_the_build_architecture():
    unspecified = apps_pool(group_id="other")
    unspecified.profile.architecture = None
    args = seed_cluster_args(capacity_groups=[apps_pool(), unspecified])
    on_other = deployment("other", labels=placed(pool="other"), requests=DECLARED)
    worker = deployment("worker", labels=role("worker"), requests=DECLARED)
    result = run(cluster(args), on_other, worker)
    findings = result.findings("workload-node-architecture")
    assert len(findings) == 2
    assert all("need amd64" in f for f in findings)
    assert sorted(v.urn.rsplit("::", 1)[-1] for v in result.violations) == ["other", "worker"]
    pinned = run(cluster(args), deployment("other", labels=placed(pool="other"), node_selector=AMD64, requests=DECLARED),
                 deployment("worker", labels=role("worker"), node_selector=AMD64, requests=DECLARED))
    assert pinned.violations == []


def test_legacy_stack_keeps_default_placement():
    result = run(deployment("api"), deployment("jobs", labels=role("dynamic")), workload("DaemonSet", "agent"))
    assert result.violations == []
    stack = model(deployment("jobs", labels=role("dynamic")))
    assert resolve_dynamic_pool(stack, stack.workloads[0]) is None
    assert resolve_placement(stack, stack.workloads[0]) is None


def test_the_seed_stack_is_clean_under_every_policy():
    assert run(*seed_stack()).violations == []
    assert run(*seed_stack(), platform="aws").violations == []
