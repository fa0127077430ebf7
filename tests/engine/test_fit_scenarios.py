"""workload-fits-pool and pool-capacity through the engine's door, per platform, at both sides of each
boundary. Every allocatable number is worked out here by hand from the platform's documented
reservations (docs/allocatable.md), not taken from the pack."""

import pytest
from builders import GIB, cluster, deployment, workload
from test_engine_protocol import engine_run

from compute_guard.component import CapacityGroup, ComputeClusterArgs, MachineProfile

MIB = 1 << 20
# Each machine provides its pool's architecture (SPEC section 2), so these workloads are pinned to it.
PINS = {machine: {"node_selector": {"kubernetes.io/arch": arch}} for machine, arch in (
    ("t4g.small", "arm64"), ("t4g.medium", "arm64"), ("m7g.large", "arm64"), ("g5.xlarge", "amd64"),
    ("n2-standard-2", "amd64"), ("Standard_D2s_v5", "amd64"))}

# platform, machine, allocatable CPU (millicores), allocatable memory (bytes)
NODES = [
    ("aws", "t4g.small", 2000 - 70, (2048 - (11 * 11 + 255) - 100) * MIB),
    ("aws", "t4g.medium", 2000 - 70, (4096 - (11 * 17 + 255) - 100) * MIB),
    ("aws", "m7g.large", 2000 - 70, (8192 - (11 * 29 + 255) - 100) * MIB),
    ("aws", "g5.xlarge", 4000 - 80, (16384 - (11 * 58 + 255) - 100) * MIB),
    # GKE: 25% of the first 4 GiB + 20% of the next 4 = 1843.2 MiB, rounded down to a byte
    ("gcp", "n2-standard-2", 2000 - 70, 8 * GIB - int(4 * GIB * 0.25 + 4 * GIB * 0.2) - 100 * MIB),
    # AKS: 100m for 2 cores; min(20 MB x 250 + 50 MB, 25% of 8 GiB) = 2 GiB
    ("azure", "Standard_D2s_v5", 2000 - 100, 8 * GIB - 2 * GIB - 100 * MIB),
]


def pool_of(machine=None, profile=None, max_size=2):
    return cluster(ComputeClusterArgs(id="compute", capacity_groups=[
        CapacityGroup(group_id="general", min_size=1, max_size=max_size, instance_type=machine, profile=profile)]))


def boundary(cpu, memory, **more):
    """Four workloads: exactly the node's allocatable CPU, one millicore more, exactly its memory,
    one byte more."""
    return [deployment("cpu-fits", requests={"cpu": f"{cpu}m"}, **more),
            deployment("cpu-over", requests={"cpu": f"{cpu + 1}m"}, **more),
            deployment("memory-fits", requests={"memory": str(memory)}, **more),
            deployment("memory-over", requests={"memory": str(memory + 1)}, **more)]


def fit_verdicts(result):
    return sorted((v.policy, v.urn.rsplit("::", 1)[-1], v.level) for v in result.violations)


@pytest.mark.parametrize(("platform", "machine", "cpu", "memory"), NODES, ids=[n[1] for n in NODES])
def test_each_platforms_node_at_both_sides_of_its_allocatable(platform, machine, cpu, memory):
    result = engine_run([pool_of(machine), *boundary(cpu, memory, **PINS[machine])], platform)
    assert fit_verdicts(result) == [("workload-fits-pool", "cpu-over", "mandatory"),
                                    ("workload-fits-pool", "memory-over", "mandatory")]
    assert result.notes == []
    over = {v.urn.rsplit("::", 1)[-1]: v.finding for v in result.violations}
    assert f"(machine {machine})" in over["cpu-over"] and f"(machine {machine})" in over["memory-over"]


def test_the_exact_messages_on_eks():
    cpu, memory = NODES[0][2:]
    result = engine_run([pool_of("t4g.small"), *boundary(cpu, memory, **PINS["t4g.small"])], "aws")
    assert sorted(v.finding for v in result.violations) == [
        "Deployment 'cpu-over': one Pod requests 1931m of CPU, more than a node of pool 'general' of ComputeCluster "
        "'compute' (machine t4g.small) can give it: 2 cores capacity - 70m kube-reserved = 1930m allocatable; it can "
        "never be scheduled there: request at most 1930m, or place the workload on a pool of larger machines (the "
        "smallest AWS machine of its family whose node holds one Pod: t4g.xlarge, 4 vCPUs, 16 GiB)",
        "Deployment 'memory-over': one Pod requests 1572 MiB of memory, more than a node of pool 'general' of "
        "ComputeCluster 'compute' (machine t4g.small) can give it: 2 GiB capacity - 376 MiB kube-reserved - 100 MiB "
        "eviction threshold = 1572 MiB allocatable; it can never be scheduled there: request at most 1572 MiB, or "
        "place the workload on a pool of larger machines (the smallest AWS machine of its family whose node holds "
        "one Pod: t4g.medium, 2 vCPUs, 4 GiB)"]


def test_a_profile_pool_on_an_existing_cluster():
    profile = MachineProfile(cpu="2", memory_bytes=4 * GIB, ephemeral_storage_bytes=20 * GIB, architecture="x86_64")
    pin = {"node_selector": {"kubernetes.io/arch": "amd64"}}
    parts = [pool_of(profile=profile), *boundary(2000, 4 * GIB - 100 * MIB, **pin),
             deployment("disk-fits", requests={"ephemeral-storage": "20Gi"}, **pin),
             deployment("disk-over", requests={"ephemeral-storage": str(20 * GIB + 1)}, **pin)]
    result = engine_run(parts, "kubernetes")
    assert fit_verdicts(result) == sorted([("workload-fits-pool", name, "mandatory")
                                           for name in ("cpu-over", "disk-over", "memory-over")] + [
        # their Pods request disk only: no CPU and no memory counted on the pool
        ("workload-requests-declared", name, "advisory") for name in ("disk-fits", "disk-over")])


def test_gpus_on_g5_xlarge():
    pin = PINS["g5.xlarge"]
    parts = [pool_of("g5.xlarge"), deployment("one", requests={"nvidia.com/gpu": "1"}, **pin),
             deployment("two", requests={"nvidia.com/gpu": "2"}, **pin),
             deployment("amd", requests={"amd.com/gpu": "1"}, **pin)]
    result = engine_run(parts, "aws")
    assert fit_verdicts(result) == [("workload-fits-pool", "amd", "mandatory"), ("workload-fits-pool", "two", "mandatory"),
                                    # GPUs only: no CPU and no memory counted on the pool
                                    *[("workload-requests-declared", name, "advisory") for name in ("amd", "one", "two")]]
    messages = {v.urn.rsplit("::", 1)[-1]: v.finding for v in result.of("workload-fits-pool")}
    assert messages["amd"] == (
        "Deployment 'amd': its Pods request 1 amd.com/gpu, but the machines of pool 'general' of ComputeCluster "
        "'compute' (machine g5.xlarge) have GPUs 'nvidia-a10g'; they can never be scheduled there: place the "
        "workload on a pool whose machines have AMD GPUs (the smallest AWS machine whose node holds one Pod: "
        "g4ad.xlarge, 4 vCPUs, 16 GiB)")
    assert "requests 2 of nvidia.com/gpu" in messages["two"] and "1 allocatable" in messages["two"]


def test_pool_capacity_at_both_sides_of_max_size():
    """m7g.large: 1930m allocatable. Three replicas of 1 core need 3 nodes: maxSize 3 holds them, 2 does not (and
    at 3, the rolling update's fourth Pod has no node: workload-rollout-fits, issue 38)."""
    api = workload("Deployment", "api", requests={"cpu": "1"}, spec={"replicas": 3}, **PINS["m7g.large"])
    assert fit_verdicts(engine_run([pool_of("m7g.large", max_size=3), api], "aws")) == [
        ("workload-rollout-fits", "api", "mandatory")]
    result = engine_run([pool_of("m7g.large", max_size=2), api], "aws")
    assert fit_verdicts(result) == [("pool-capacity", "compute", "mandatory")]
    assert result.violations[0].finding == (
        "ComputeCluster 'compute' pool 'general': Deployment 'api' runs 3 Pods and a node (machine m7g.large) holds at "
        "most 1 of them (1930m of CPU left on a node after its DaemonSets / 1 core per Pod), so they need 3 nodes, "
        "more than its maxSize of 2: raise maxSize to at least 3, use larger machines or run fewer replicas")
