"""Issue 'One model of the stack': the README shows, exactly, what a new user's cloud program meets: a pool given by
its machine alone, a machine change to the other architecture, a profile that claims more than its machine. Each
message is derived here from a program and must be in the README as written."""

from pathlib import Path

from builders import AMD64, ARM64, GIB, cluster, deployment, run

from compute_guard.component import CapacityGroup, ComputeClusterArgs, MachineProfile

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def on(machine, **changes):
    return cluster(ComputeClusterArgs(id="compute", capacity_groups=[
        CapacityGroup(group_id="general", min_size=1, max_size=3, instance_type=machine, **changes)]))


def shown(result, policy):
    return [f"{policy}: {message}" for message in result.findings(policy)]


def test_a_t4g_pool_alone_and_its_unpinned_and_amd64_pinned_workloads():
    result = run(on("t4g.medium"), deployment("api"), deployment("legacy", node_selector=AMD64), platform="aws")
    lines = shown(result, "workload-node-architecture")
    assert len(lines) == 2
    for line in lines:
        assert line in README


def test_a_profile_that_claims_more_than_its_machine():
    claims = MachineProfile(cpu="8", memory_bytes=64 * GIB, ephemeral_storage_bytes=0)
    result = run(on("t4g.medium", profile=claims),
                 deployment("api", node_selector=ARM64, requests={"cpu": "3", "memory": "8Gi"}), platform="aws")
    catalog = shown(result, "cloud-machine-catalog")
    assert catalog[0] in README  # the CPU claim (the memory claim reads alike)
    fits = [line for line in shown(result, "workload-fits-pool") if "of memory" in line]
    assert fits and fits[0] in README


def test_an_amd64_pinned_workload_after_its_pool_moved_to_an_arm64_machine():
    result = run(on("m7g.xlarge"), deployment("api", node_selector=AMD64), platform="aws")
    (line,) = shown(result, "workload-node-architecture")
    assert line in README
    assert ("compute-cluster-safe-update: ComputeCluster 'compute' pool 'general': can't change machine from "
            "'m7i.xlarge' (x86_64) to 'm7g.xlarge' (arm64)") in README  # its message: tests/engine/test_machine_scenarios.py
