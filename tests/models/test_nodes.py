"""A pool's node and its allocatable, per platform, against numbers worked out by hand here.

EKS: maxPods = ENIs x (IPv4 per ENI - 1) + 2; kube-reserved memory 11 MiB x maxPods + 255 MiB, CPU
60m + 10m + 5m + 5m + 2.5m per further core; eviction 100 MiB; storage 1 GiB.
GKE: memory 25% of the first 4 GiB, 20% of the next 4, ...; CPU as EKS; eviction 100 MiB.
AKS: CPU 60m, 100m, 140m, 180m, 260m, 420m, 740m at 1..64 cores; memory min(20 MB x 250 + 50 MB, 25%).

The numbers are the platforms' documented ones, read there, not from the pack: EKS's max Pods from
../shared/third_party/eks-instance-info/ (EKS's own eni-max-pods table) and its reservations from awslabs/amazon-eks-ami
(nodeadm internal/kubelet: getMemoryMebibytesToReserve, getCPUMillicoresToReserve); GKE's from
cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes ("Memory and CPU reservations"); AKS's from
learn.microsoft.com/azure/aks/node-resource-reservations and .../concepts-network-azure-cni-overlay ("Pods per node");
the eviction threshold from kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction.
"""

import json
from decimal import Decimal

import pytest
from builders import SHARED
from builders import group_node as node_of

from compute_guard.policies.model.cluster import CapacityGroup as Pool
from compute_guard.policies.model.cluster import Gpu, Profile
from compute_guard.policies.model.nodes import default_reservations
from compute_guard.policies.model.values import SecretInt, undetermined
from compute_guard.policies.platforms.catalog import find_machine, machines

MI = 1024**2
GI = 1024**3


def machine_pool(instance_type, **changes):
    return Pool(0, "apps", instance_type, None, None, None, 3, 1, label="pool 'apps'", **changes)


def profile_pool(cpu_millis, memory, storage, gpu=None):
    return Pool(0, "apps", None, None, gpu, None, 3, 1, label="pool 'apps'",
                profile=Profile(Decimal(cpu_millis), memory, storage))


def allocatable(node):
    return {resource: node.allocatable(resource) for resource in node.capacity}


@pytest.mark.parametrize(("machine", "max_pods", "cpu", "memory_mib"), [
    ("t4g.small", 11, 2000 - 70, 2048 - (11 * 11 + 255) - 100),  # 3 ENIs x 4 IPs: 3 x 3 + 2
    ("t4g.medium", 17, 2000 - 70, 4096 - (11 * 17 + 255) - 100),  # 3 ENIs x 6 IPs
    ("m7g.large", 29, 2000 - 70, 8192 - (11 * 29 + 255) - 100),  # 3 ENIs x 10 IPs
    ("g5.xlarge", 58, 4000 - 80, 16384 - (11 * 58 + 255) - 100),  # 4 ENIs x 15 IPs; 60 + 10 + 5 + 5
])
def test_eks_nodes(machine, max_pods, cpu, memory_mib):
    node = node_of(machine_pool(machine), "aws", {}, "compute")
    assert node.machine == machine and node.max_pods_source == f"EKS's maximum for {machine}"
    values = allocatable(node)
    assert values["pods"] == max_pods and values["cpu"] == cpu and values["memory"] == memory_mib * MI
    assert "ephemeral-storage" not in values  # a machine's disk is not one of its facts: not checked
    assert values["nvidia.com/gpu"] == (1 if machine == "g5.xlarge" else 0) and values["amd.com/gpu"] == 0


def test_eks_max_pods_come_from_eks_own_table():
    table = {}
    for line in (SHARED / "third_party" / "eks-instance-info" / "instance-info.jsonl").read_text().splitlines():
        item = json.loads(line)
        table[item["instanceType"]] = item["defaultMaxENIs"] * (item["ipv4AddressesPerInterface"] - 1) + 2
    catalogued = {m.name: m.max_pods for m in machines("aws")}
    assert {name: pods for name, pods in catalogued.items() if pods is not None} == {
        name: pods for name, pods in table.items() if name in catalogued}
    unlisted = [name for name, pods in catalogued.items() if pods is None]
    assert len(unlisted) < 100 and all(name not in table for name in unlisted)
    assert node_of(machine_pool(unlisted[0]), "aws", {}, "c").capacity["pods"] == 110


def test_gke_n2_standard_2():
    node = node_of(machine_pool("n2-standard-2"), "gcp", {}, "compute")
    reserved_memory = int(Decimal(4 * GI) * Decimal("0.25") + Decimal(4 * GI) * Decimal("0.20"))  # 1843.2 MiB
    assert allocatable(node)["memory"] == 8 * GI - reserved_memory - 100 * MI
    assert allocatable(node)["cpu"] == 1930 and allocatable(node)["pods"] == 110


def test_gke_reserves_255_mib_below_1_gib_and_tiers_above():
    small = default_reservations("gcp", {"memory": Decimal(614 * MI)}, 110)
    assert small["memory"]["kube-reserved"] == 255 * MI
    big = default_reservations("gcp", {"memory": Decimal(256 * GI)}, 110)
    expected = (4 * GI * Decimal("0.25") + 4 * GI * Decimal("0.20") + 8 * GI * Decimal("0.10")
                + 112 * GI * Decimal("0.06") + 128 * GI * Decimal("0.02"))
    assert big["memory"]["kube-reserved"] == int(expected)


def test_aks_standard_d2s_v5():
    node = node_of(machine_pool("Standard_D2s_v5"), "azure", {}, "compute")
    # 25% of 8 GiB (2 GiB) is less than 20 MB x 250 + 50 MB (5050 MB)
    assert allocatable(node) == {"cpu": 1900, "memory": 8 * GI - 2 * GI - 100 * MI, "pods": 250,
                                 "nvidia.com/gpu": 0, "amd.com/gpu": 0, "gpu.nvidia.com": 0, "mig.nvidia.com": 0}


@pytest.mark.parametrize(("cores", "millicores"), [
    (1, 60), (2, 100), (4, 140), (8, 180), (16, 260), (32, 420), (64, 740), (3, 120), (6, 160)])
def test_aks_cpu_reservations_are_the_documented_table(cores, millicores):
    assert default_reservations("azure", {"cpu": Decimal(cores * 1000)}, 250)["cpu"]["kube-reserved"] == millicores


def test_aks_memory_is_the_lesser_of_the_pod_formula_and_a_quarter():
    big = default_reservations("azure", {"memory": Decimal(64 * GI)}, 250)
    assert big["memory"]["kube-reserved"] == 20 * 10**6 * 250 + 50 * 10**6


@pytest.mark.parametrize(("cores", "millicores"), [(1, 60), (2, 70), (3, 75), (4, 80), (8, 90), (5, 82)])
def test_eks_and_gke_cpu_tiers_round_down(cores, millicores):
    for platform in ("aws", "gcp"):
        assert default_reservations(platform, {"cpu": Decimal(cores * 1000)}, 110)["cpu"]["kube-reserved"] == millicores


def test_a_profile_on_an_existing_cluster_loses_only_the_eviction_threshold():
    node = node_of(profile_pool(2000, 4 * GI, 20 * GI, Gpu("nvidia-t4", 2)), "kubernetes", {}, "compute")
    assert node.machine is None
    # two T4s: two devices for the device plugin or NVIDIA's DRA driver, and no MIG instance (a T4 is not split)
    assert allocatable(node) == {"cpu": 2000, "memory": 4 * GI - 100 * MI, "ephemeral-storage": 20 * GI,
                                 "pods": 110, "nvidia.com/gpu": 2, "amd.com/gpu": 0, "gpu.nvidia.com": 2,
                                 "mig.nvidia.com": 0}


def test_a_machine_wins_over_its_profile_which_states_only_the_disk_and_eks_reserves_storage():
    """SPEC section 2: beside a catalogued instanceType the profile is a requirement; the node is the machine's
    (t4g.small: 2 vCPUs, 2 GiB, 11 Pods on EKS), and its disk, which the catalog does not know, the profile's."""
    pool = Pool(0, "apps", "t4g.small", None, None, None, 3, 1, profile=Profile(Decimal(4000), 8 * GI, 50 * GI))
    node = node_of(pool, "aws", {}, "c")
    assert node.machine == "t4g.small" and node.capacity["pods"] == 11 and node.capacity["cpu"] == 2000
    assert allocatable(node)["ephemeral-storage"] == 49 * GI
    assert allocatable(node)["memory"] == 2 * GI - (11 * 11 + 255) * MI - 100 * MI
    profile_only = Pool(0, "apps", None, None, None, None, 3, 1, profile=Profile(Decimal(4000), 8 * GI, 50 * GI))
    node = node_of(profile_only, "aws", {}, "c")
    assert node.machine is None and node.capacity["pods"] == 110  # a profile-only pool: 110
    assert allocatable(node)["memory"] == 8 * GI - (11 * 110 + 255) * MI - 100 * MI
    on_kubernetes = node_of(pool, "kubernetes", {}, "c")  # there the pool is its profile only
    assert on_kubernetes.machine is None and on_kubernetes.capacity["cpu"] == 4000


def test_the_setting_overrides_per_platform_then_per_pool_field_by_field():
    settings = {"allocatable": {
        "aws": {"maxPods": 20.0, "kubeReserved": {"cpu": "100m", "memory": "500Mi"}, "systemReserved": {"memory": "1Gi"}},
        "pools": {"compute/apps": {"kubeReserved": {"memory": "300Mi"}, "evictionHard": {"memory": "0"}},
                  "compute/other": {"maxPods": 5}}}}
    node = node_of(machine_pool("m7g.large"), "aws", settings, "compute")
    assert node.max_pods_source == "the allocatable setting" and node.capacity["pods"] == 20
    assert node.reserved["cpu"] == {"kube-reserved": 100}
    assert node.reserved["memory"] == {"kube-reserved": 300 * MI, "system-reserved": GI, "eviction threshold": 0}
    assert node.overridden >= {"memory kube-reserved", "memory system-reserved", "cpu kube-reserved"}
    other_cluster = node_of(machine_pool("m7g.large"), "aws", settings, "elsewhere")
    assert other_cluster.reserved["memory"]["kube-reserved"] == 500 * MI


def test_missing_and_unknown_facts():
    assert node_of(machine_pool("n2-standard-2"), "kubernetes", {}, "c") is None  # no catalog there
    assert node_of(machine_pool("t4g.smal"), "aws", {}, "c") is None  # not a machine
    assert node_of(Pool(0, "apps", None, None, None, None, 3, 1), "aws", {}, "c") is None  # nothing known
    late = undetermined("later")
    assert node_of(machine_pool(late), "aws", {}, "c") == late
    node = node_of(profile_pool(2000, late, 0), "kubernetes", {}, "c")
    assert node.unknown == {"memory": late} and node.allocatable("memory") is None
    no_memory = next(m for m in machines("gcp") if m.memory_mib is None)
    assert node_of(machine_pool(no_memory.name), "gcp", {}, "c").allocatable("memory") is None
    assert find_machine("gcp", no_memory.name) is not None


def test_secret_profile_facts_are_marked():
    pool = Pool(0, "apps", None, None, None, None, 3, 1,
                profile=Profile(Decimal(2000), SecretInt(4 * GI), 0, frozenset({"memory"})))
    assert node_of(pool, "kubernetes", {}, "c").secret == {"memory"}


def test_gkes_small_machine_rule_stops_below_1_gib():
    """GKE reserves 255 MiB on machines with less than 1 GiB; e2-micro has exactly 1024 MiB, so 25% of it (256 MiB):
    the boundary a '<=' for '<' passed every other test at. f1-micro (614 MiB) gets the 255 MiB."""
    e2_micro = node_of(Pool(0, "apps", "e2-micro", None, None, None, 3, 1), "gcp", {}, "c")
    assert e2_micro.capacity["memory"] == GI and e2_micro.reserved["memory"]["kube-reserved"] == 256 * MI
    f1_micro = node_of(Pool(0, "apps", "f1-micro", None, None, None, 3, 1), "gcp", {}, "c")
    assert f1_micro.capacity["memory"] < GI and f1_micro.reserved["memory"]["kube-reserved"] == 255 * MI
