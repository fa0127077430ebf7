"""A pool's machine provides its architecture (SPEC section 2), through the engine's door: the engine-started pack
judges what tests/models/test_pools.py judges in process, at both sides of each case."""

import json

from builders import AMD64, ARM64, DECLARED, cluster, deployment
from test_engine_protocol import engine_run

from compute_guard.component import CapacityGroup, ComputeClusterArgs

ARCH = "workload-node-architecture"
SAFE = "compute-cluster-safe-update"
URN = "urn:pulumi:stack::project::compute:index:ComputeCluster::compute"  # as the engine names it


def on(machine, group="general"):
    return cluster(ComputeClusterArgs(id="compute", capacity_groups=[
        CapacityGroup(group_id=group, min_size=1, max_size=3, instance_type=machine)]))


def verdicts(result):
    return sorted((v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations)


def test_a_t4g_pool_needs_arm64_pins():
    result = engine_run([on("t4g.medium"), deployment("unpinned", requests=DECLARED), deployment("amd", node_selector=AMD64, requests=DECLARED),
                         deployment("arm", node_selector=ARM64, requests=DECLARED)], "aws")
    assert verdicts(result) == [(ARCH, "amd"), (ARCH, "unpinned")]
    assert result.notes == []


def baseline(tmp_path, machine):
    props = {"id": "compute", "capacityGroups": [{"groupId": "general", "minSize": 1, "maxSize": 3,
                                                  "instanceType": machine}]}
    document = {"version": 3, "deployment": {"resources": [
        {"urn": URN, "type": "compute:index:ComputeCluster", "custom": False, "inputs": props, "outputs": props}]}}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    return {SAFE: {"baseline": str(path)}}


def test_an_x86_pool_moved_to_an_arm_machine_fails_its_amd64_pins_and_the_update(tmp_path):
    amd = deployment("api", node_selector=AMD64, requests=DECLARED)
    stays = engine_run([on("m7i.2xlarge"), amd], "aws", baseline(tmp_path, "m7i.xlarge"))
    assert stays.violations == []  # same architecture: the pins hold and the update is safe
    moved = engine_run([on("m7g.xlarge"), amd], "aws", baseline(tmp_path, "m7i.xlarge"))
    assert verdicts(moved) == [(SAFE, "compute"), (ARCH, "api")]
    by_policy = {v.policy: v.finding for v in moved.violations}
    assert by_policy[SAFE].startswith("ComputeCluster 'compute' pool 'general': can't change machine from "
                                      "'m7i.xlarge' (x86_64) to 'm7g.xlarge' (arm64): only an AWS machine")
    assert by_policy[ARCH].startswith("Deployment 'api': its Pods need arm64 nodes (the stack's compute pools run "
                                      "arm64), but its architecture constraints exclude arm64 (they allow amd64)")


def test_gcp_t2a_is_arm64_too(tmp_path):
    amd = deployment("api", node_selector=AMD64, requests=DECLARED)
    assert engine_run([on("n2-standard-4"), amd], "gcp", baseline(tmp_path, "n2-standard-2")).of(ARCH) == []
    moved = engine_run([on("t2a-standard-4"), amd], "gcp", baseline(tmp_path, "n2-standard-4"))
    assert verdicts(moved) == [(SAFE, "compute"), (ARCH, "api")]
    assert "from 'n2-standard-4' (x86_64) to 't2a-standard-4' (arm64)" in moved.of(SAFE)[0].finding


def test_two_pools_of_two_machines_each_workload_pinned_to_its_own():
    two = cluster(ComputeClusterArgs(id="compute", capacity_groups=[
        CapacityGroup(group_id="arm", min_size=1, max_size=3, instance_type="m7g.large"),
        CapacityGroup(group_id="intel", min_size=1, max_size=3, instance_type="m7i.large")]))
    labels = {"compute.alien.dev/cluster": "compute"}
    result = engine_run([two, deployment("api", labels={**labels, "compute.alien.dev/pool": "arm"}, node_selector=ARM64,
                                    requests=DECLARED),
                         deployment("db", labels={**labels, "compute.alien.dev/pool": "intel"}, node_selector=AMD64,
                                    requests=DECLARED)],
                        "aws")
    # the pins hold; the pools' machines differ, which the single-architecture policy reports on the cluster
    assert verdicts(result) == [("compute-pools-single-architecture", "compute")]
