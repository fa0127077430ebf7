"""A pool's machine and architecture (SPEC section 2, policies/model/pools.py): on aws, gcp and azure a catalogued
instanceType provides the pool's architecture and node; a profile beside it is a requirement that must not claim
more than the machine; on kubernetes the pool is its profile only; an unknown machine provides nothing.

Each case is the one a new user met (issue "One model of the stack"), judged in process here and through the
engine in tests/engine/test_machine_scenarios.py."""

import json
from decimal import Decimal

import pytest
from builders import AMD64, ARM64, GIB, cluster, deployment, run
from builders import group_node as node_of
from hypothesis import given, settings
from hypothesis import strategies as st

from compute_guard.component import CapacityGroup, ComputeClusterArgs, MachineProfile
from compute_guard.policies.model.cluster import CapacityGroup as Pool
from compute_guard.policies.model.cluster import Gpu, Profile
from compute_guard.policies.model.sources.compute_cluster import pool_machines as pool_machine
from compute_guard.policies.model.values import SecretText, Unknown, undetermined
from compute_guard.policies.platforms.catalog import CLOUD_PLATFORMS, DATA, machines

ARCH = "workload-node-architecture"
SINGLE = "compute-pools-single-architecture"
CATALOG = "cloud-machine-catalog"
FITS = "workload-fits-pool"
MIB = 1 << 20


def machine_cluster(*pools, cluster_id="compute"):
    return cluster(ComputeClusterArgs(id=cluster_id, capacity_groups=list(pools)), name=cluster_id)


def machine_pool(machine, group="general", profile=None, max_size=3):
    return CapacityGroup(group_id=group, min_size=1, max_size=max_size, instance_type=machine, profile=profile)


def verdicts(result, *policies):
    return sorted((v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations if v.policy in policies)


# --- 1. a t4g.medium pool declares no architecture: its machine's (arm64) is the pool's ------------

def test_an_instance_type_alone_gives_the_pool_its_machines_architecture():
    result = run(machine_cluster(machine_pool("t4g.medium")), deployment("unpinned"),
                 deployment("amd", node_selector=AMD64), deployment("arm", node_selector=ARM64), platform="aws")
    assert verdicts(result, ARCH) == [(ARCH, "amd"), (ARCH, "unpinned")]
    messages = {v.urn.rsplit("::", 1)[-1]: v.finding for v in result.of(ARCH)}
    assert messages["amd"] == (
        "Deployment 'amd': its Pods need arm64 nodes (the stack's compute pools run arm64), but its architecture "
        "constraints exclude arm64 (they allow amd64); set spec.template.spec.nodeSelector['kubernetes.io/arch'] "
        "to 'arm64'")
    assert messages["unpinned"].startswith("Deployment 'unpinned': its Pods need arm64 nodes (the stack's compute "
                                           "pools run arm64), but nothing pins them there")


def test_on_kubernetes_and_without_a_platform_an_instance_type_provides_nothing():
    # kubernetes-compute-enforceable rejects the instanceType there; no architecture is guessed from it
    for platform in ("kubernetes", None):
        result = run(machine_cluster(machine_pool("t4g.medium")), deployment("amd", node_selector=AMD64),
                     platform=platform)
        assert result.of(ARCH) == [] and result.of(SINGLE) == [], platform


def test_a_machine_the_catalog_does_not_know_provides_nothing():
    result = run(machine_cluster(machine_pool("t4g.mediun")), deployment("amd", node_selector=AMD64), platform="aws")
    assert result.of(ARCH) == []
    assert "did you mean 't4g.medium'?" in result.of(CATALOG)[0].finding


def test_a_declared_architecture_is_the_pools_even_beside_a_machine():
    """profile.architecture first ('required or provided'); the disagreement is cloud-machine-catalog's."""
    arm = MachineProfile(cpu="1", memory_bytes=GIB, ephemeral_storage_bytes=20 * GIB, architecture="x86_64")
    result = run(machine_cluster(machine_pool("t4g.medium", profile=arm)), deployment("amd", node_selector=AMD64),
                 platform="aws")
    assert result.of(ARCH) == []
    assert "profile.architecture is x86_64 but 't4g.medium' is an arm64 machine" in result.of(CATALOG)[0].finding


# --- 2. two pools of two machines' architectures ------------------------------------------------

def test_two_machines_of_two_architectures_differ_and_each_workload_is_judged_on_its_own_pool():
    pools = machine_cluster(machine_pool("t4g.medium", "arm"), machine_pool("m7i.xlarge", "intel"))
    on = {"compute.alien.dev/cluster": "compute"}
    result = run(pools, deployment("api", labels={**on, "compute.alien.dev/pool": "arm"}, node_selector=ARM64),
                 deployment("db", labels={**on, "compute.alien.dev/pool": "intel"}, node_selector=AMD64),
                 deployment("wrong", labels={**on, "compute.alien.dev/pool": "intel"}, node_selector=ARM64),
                 platform="aws")
    assert verdicts(result, ARCH) == [(ARCH, "wrong")]
    assert result.of(ARCH)[0].finding.startswith(
        "Deployment 'wrong': its Pods need amd64 nodes (pool 'intel' of ComputeCluster 'compute' runs m7i.xlarge, "
        "an x86_64 machine), but its architecture constraints exclude amd64")
    (mixed,) = result.of(SINGLE)
    assert mixed.finding == (
        "ComputeCluster 'compute' has pool 'arm' arm64 (its machine t4g.medium), pool 'intel' x86_64 (its machine "
        "m7i.xlarge), but the stack's pools run arm64 and x86_64: one image build cannot serve both; use machines of "
        "one architecture (and the same profile.architecture, where one is declared) on every pool")


def test_a_gcp_arm_machine_provides_arm64_too():
    result = run(machine_cluster(machine_pool("t2a-standard-4")), deployment("amd", node_selector=AMD64),
                 deployment("arm", node_selector=ARM64), platform="gcp")
    assert verdicts(result, ARCH) == [(ARCH, "amd")]


# --- 3. a profile that claims more than its machine ---------------------------------------------

def test_a_profile_claiming_more_than_its_machine_is_refused_and_fit_uses_the_machine():
    """t4g.medium: 2 vCPUs, 4 GiB; EKS keeps 2000 - 70 = 1930m and 4096 - (11 x 17 + 255) - 100 = 3554 MiB."""
    big = MachineProfile(cpu="8", memory_bytes=64 * GIB, ephemeral_storage_bytes=20 * GIB)
    pod = deployment("api", requests={"cpu": "3", "memory": "8Gi"}, node_selector=ARM64)
    result = run(machine_cluster(machine_pool("t4g.medium", profile=big)), pod, platform="aws")
    assert [v.finding for v in result.of(CATALOG)] == [
        "ComputeCluster 'compute' pool 'general': profile.cpu is 8 cores but 't4g.medium' has 2 vCPUs; the machine "
        "provides the pool's nodes, so claim at most 2 cores or pick a larger machine",
        "ComputeCluster 'compute' pool 'general': profile.memoryBytes is 64 GiB but 't4g.medium' has 4 GiB; the "
        "machine provides the pool's nodes, so claim at most 4 GiB or pick a larger machine"]
    cpu, memory = sorted(v.finding for v in result.of(FITS))
    assert "one Pod requests 3 cores of CPU" in cpu and "2 cores capacity - 70m kube-reserved = 1930m allocatable" in cpu
    assert "(machine t4g.medium)" in cpu
    assert "4 GiB capacity - 442 MiB kube-reserved - 100 MiB eviction threshold = 3554 MiB allocatable" in memory


def test_a_profile_within_its_machine_passes_and_a_secret_machine_shows_no_size():
    fits = MachineProfile(cpu="2", memory_bytes=4 * GIB, ephemeral_storage_bytes=20 * GIB)
    assert run(machine_cluster(machine_pool("t4g.medium", profile=fits)), platform="aws").of(CATALOG) == []
    props = {"id": "compute", "capacityGroups": [{"groupId": "general", "minSize": 1, "maxSize": 1,
                                                  "instanceType": {"4dabf18193072939515e22adb298388d":
                                                                   "1b47061264138c4ac30d75fd1eb44270",
                                                                   "value": "t4g.medium"},
                                                  "profile": {"cpu": "8", "memoryBytes": 4 * GIB,
                                                              "ephemeralStorageBytes": 0}}]}
    from builders import cluster_findings
    (finding,) = cluster_findings(props, CATALOG, platform="aws")
    assert finding == ("ComputeCluster 'compute' pool 'general': profile.cpu is 8 cores but '[secret]' has [secret]; "
                       "the machine provides the pool's nodes, so claim at most [secret] or pick a larger machine")


# --- the derivation itself, against the catalog file read here (an independent oracle) ----------

CATALOG_FILE = json.loads(DATA.read_text())["machines"]
EVERY = [(m["platform"], m["name"], m["architecture"], m["vcpus"], m["memoryMiB"]) for m in CATALOG_FILE]


def _pool(instance_type, profile=None, architecture=None):
    return Pool(0, "general", instance_type, architecture, None, None, 3, 1, profile=profile)


@pytest.mark.parametrize("platform", CLOUD_PLATFORMS)
def test_every_catalogued_machine_provides_its_own_architecture_and_node(platform):
    for cloud, name, architecture, vcpus, memory in (row for row in EVERY if row[0] == platform):
        found = pool_machine(_pool(name), cloud)
        assert (found.architecture, found.source, found.named) == (architecture, "machine", name)
        node = node_of(_pool(name), cloud, {}, "compute")
        assert node.machine == name
        assert node.capacity.get("cpu") == (None if vcpus is None else Decimal(vcpus * 1000))
        assert node.capacity.get("memory") == (None if memory is None else Decimal(memory * MIB))
    assert all(pool_machine(_pool(name), "kubernetes").architecture is None for _, name, *_ in EVERY[:50])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([row for row in EVERY if row[3] is not None and row[4] is not None]))
def test_a_profile_that_agrees_with_its_machine_changes_no_verdict(row):
    """The same stack with the machine alone, and with a profile stating exactly the machine's facts: the same
    node, architecture and findings."""
    platform, name, architecture, vcpus, memory = row
    alone = _pool(name)
    stated = _pool(name, Profile(Decimal(vcpus * 1000), memory * MIB, None), architecture)
    assert node_of(alone, platform, {}, "c") == node_of(stated, platform, {}, "c")
    assert pool_machine(alone, platform).architecture == pool_machine(stated, platform).architecture
    from builders import cluster_findings

    def props(profile):
        group = {"groupId": "general", "minSize": 1, "maxSize": 1, "instanceType": name, **profile}
        return {"id": "compute", "capacityGroups": [group]}

    agreeing = {"profile": {"cpu": str(vcpus), "memoryBytes": memory * MIB, "ephemeralStorageBytes": 0,
                            "architecture": architecture}}
    assert cluster_findings(props(agreeing), CATALOG, platform=platform) == \
        cluster_findings(props({}), CATALOG, platform=platform)


def test_unknowns_and_secrets_keep_their_marks_through_the_derivation():
    later = undetermined("not known yet")
    assert pool_machine(_pool(later), "aws").architecture is later  # the machine that would say is not known
    assert isinstance(node_of(_pool(later, Profile(Decimal(1000), GIB, 0)), "aws", {}, "c"), Unknown)
    hidden = pool_machine(_pool(SecretText("m7g.large")), "aws")
    assert hidden.architecture == "arm64" and isinstance(hidden.architecture, SecretText)
    assert f"{hidden.architecture}" == "[secret]"
    assert pool_machine(_pool("m7g.large", architecture=later), "aws").source == "profile"
    gpu = node_of(Pool(0, "g", "g5.xlarge", None, Gpu("nvidia-t4", 4), None, 1, 1), "aws", {}, "c")
    assert gpu.gpu_type == "nvidia-a10g" and gpu.capacity["nvidia.com/gpu"] == 1  # the machine's GPU, not the profile's
    assert len(list(machines("aws"))) > 900


def test_a_workloads_default_role_is_daemon_for_a_daemonset_and_container_otherwise():
    from compute_guard.policies.model.workloads import parse_workload

    spec = {"spec": {"template": {"spec": {"containers": []}}}}
    roles = {kind: parse_workload(f"kubernetes:apps/v1:{kind}", spec, "urn", "x").role
             for kind in ("DaemonSet", "Deployment", "StatefulSet")}
    assert roles == {"DaemonSet": "daemon", "Deployment": "container", "StatefulSet": "container"}
