"""The guard every policy runs behind: an internal error fails closed with one violation that says
it is a bug in the pack, and never fails the preview; the test suite runs with it raising instead."""

import pytest
from builders import DECLARED, cluster, deployment, placed, run

import compute_guard.policies.adapters.state
import compute_guard.policies.adapters.templates
import compute_guard.policies.workload_architecture_pin
from compute_guard.policies import ALL
from compute_guard.policies.adapters.findings import INTERNAL_ERROR, STRICT

BUG = ("compute-guard could not evaluate this (RuntimeError); this is a bug in the policy pack, please report it "
       "with the resource's shape")


def crash(*args, **kwargs):
    raise RuntimeError("planted")


@pytest.fixture
def guarded(monkeypatch):
    """The guard as users run it: internal errors reported, not raised."""
    monkeypatch.delenv(STRICT)


def test_the_message_users_see():
    assert INTERNAL_ERROR.format("RuntimeError") == BUG


def test_a_resource_policy_that_crashes_fails_closed_on_its_resource(guarded, monkeypatch):
    monkeypatch.setattr(compute_guard.policies.adapters.templates, "parse_workload", crash)
    result = run(cluster(), deployment("api", labels=placed(), node_selector={"kubernetes.io/arch": "amd64"},
                                       requests=DECLARED))
    # the workload policy judges workloads (the SDK shim hands it no other resource; the SDK alone would hand it
    # the ComputeCluster too, where it would crash the same way), so it fails closed on the Deployment
    assert sorted((v.policy, v.level, v.finding, v.urn.split("::", 2)[-1]) for v in result.violations) == [
        ("workload-architecture-selector-valid", "mandatory", BUG, "kubernetes:apps/v1:Deployment::api")]


def test_the_cluster_policies_that_crash_each_fail_closed(guarded, monkeypatch):
    monkeypatch.setattr(compute_guard.policies.adapters.state, "parse_cluster", crash)
    result = run(cluster(), platform="aws")
    assert sorted((v.policy, v.finding) for v in result.violations) == [
        ("cloud-machine-catalog", BUG), ("cloud-machine-new-family", BUG), ("compute-cluster-safe-update", BUG),
        ("compute-cluster-valid", BUG), ("kubernetes-compute-enforceable", BUG)]  # each parses the cluster first
    assert all(v.urn.endswith("compute:index:ComputeCluster::compute") for v in result.violations)


def test_a_stack_policy_that_crashes_fails_closed_once(guarded, monkeypatch):
    monkeypatch.setattr(compute_guard.policies.adapters.state, "parse_stack", crash)
    result = run(cluster(), deployment("api", labels=placed(), node_selector={"kubernetes.io/arch": "amd64"}))
    # every stack policy, each at its own level (the pack's one list: SPEC 21 asks the tests to derive theirs)
    assert sorted((v.policy, v.level) for v in result.violations) == sorted(
        (policy.name, policy.level.value) for policy in ALL if policy.subject == "stack")
    assert {v.finding for v in result.violations} == {BUG}
    assert {v.urn for v in result.violations} == {""}  # no resource to blame: the stack


def test_a_remediation_that_crashes_changes_nothing_and_the_workload_is_still_reported(guarded, monkeypatch):
    monkeypatch.setattr(compute_guard.policies.workload_architecture_pin, "pin_architecture", crash)
    result = run(deployment("api", labels=placed(), after=cluster(), requests=DECLARED),
                 policy_config={"workload-architecture-pin": "remediate"})
    assert result.remediations == []
    assert sorted((v.policy, v.level) for v in result.violations) == [
        ("workload-architecture-pin", "mandatory"), ("workload-node-architecture", "mandatory")]


def test_under_test_an_internal_error_is_raised_not_reported(monkeypatch):
    monkeypatch.setattr(compute_guard.policies.adapters.templates, "parse_workload", crash)
    with pytest.raises(RuntimeError, match="planted"):
        run(deployment("api"))


def test_under_test_a_remediation_error_is_raised_not_swallowed(monkeypatch):
    monkeypatch.setattr(compute_guard.policies.workload_architecture_pin, "pin_architecture", crash)
    with pytest.raises(RuntimeError, match="planted"):
        run(deployment("api", labels=placed(), after=cluster()), policy_config={"workload-architecture-pin": "remediate"})
