"""What nodes run (SPEC 16), through the engine's door: the engine-started pack judges each source's operating
system, GPUs and capacity type at both sides of each rule, as issue 48 lists them. Each scenario's in-process twin,
which mutation testing sees, is named beside it; the arithmetic is worked out here.

* AKS: a Linux system pool (Standard_D4s_v5) and a Windows pool ``win`` (osType Windows, as Azure's Windows guide
  writes it); a Spot pool (scaleSetPriority Spot), which AKS labels and taints
  kubernetes.azure.com/scalesetpriority=spot:NoSchedule.
* GKE: a Windows Server pool (WINDOWS_LTSC_CONTAINERD, tainted node.kubernetes.io/os=windows:NoSchedule by GKE, which
  tolerates it for Pods that select windows) beside a Linux one; a GPU pool (n1-standard-4 with a T4 in
  guestAccelerators) made after its cluster's own pool of e2-medium, which GKE taints nvidia.com/gpu=present:NoSchedule
  and whose taint the ExtendedResourceToleration admission tolerates for Pods that request nvidia.com/gpu.
* EKS: g5.xlarge (one A10G) with a standard AMI type (no NVIDIA driver: no nvidia.com/gpu) and with
  AL2023_x86_64_NVIDIA.
* Karpenter: a NodePool of spot capacity only."""

from typing import Any

import pulumi_gcp as gcp
from builders import (
    arch_requirement,
    budget,
    cluster_resource,
    deployment,
    dra_parts,
    exact_request,
    gke_cluster,
    managed_cluster,
    node_class,
    node_group,
    nodepool,
    workload,
)
from test_engine_protocol import engine_run

TINY = {"cpu": "100m", "memory": "128Mi"}
LINUX = {"kubernetes.io/os": "linux"}
WINDOWS = {"kubernetes.io/os": "windows"}
GPU = {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}


def verdicts(result: Any) -> list[tuple[str, str]]:
    return sorted((found.policy, found.urn.rsplit("::", 1)[-1]) for found in result.violations)


def aks(*pools: dict[str, Any]) -> Any:
    system = {"count": 1, "mode": "System", "name": "system", "os_type": "Linux", "type": "VirtualMachineScaleSets",
              "vm_size": "Standard_D4s_v5"}
    return managed_cluster("aks", [system, *pools])


WIN = {"count": 1, "mode": "User", "name": "win", "os_type": "Windows", "type": "VirtualMachineScaleSets",
       "vm_size": "Standard_D4s_v5"}
SPOT = {"count": 1, "mode": "User", "name": "spot", "os_type": "Linux", "type": "VirtualMachineScaleSets",
        "vm_size": "Standard_D4s_v5", "scale_set_priority": "Spot", "eviction_policy": "Delete"}


def test_aks_linux_and_windows_pools_at_both_sides():
    """An unpinned Deployment may land on either OS: refused; pinned to linux: clean; an unpinned DaemonSet runs on
    both: refused; spec.os.name windows pinned to linux: the kubelet rejects it (in-process twin:
    tests/policies/test_workload_node_os.py)."""
    assert verdicts(engine_run([aks(WIN), deployment("api", requests=TINY)], "azure")) == [
        ("workload-node-os", "api")]
    assert engine_run([aks(WIN), deployment("api", requests=TINY, node_selector=LINUX)], "azure").violations == []
    assert verdicts(engine_run([aks(WIN), workload("DaemonSet", "agent", requests=TINY)], "azure")) == [
        ("workload-node-os", "agent")]
    refused = engine_run([aks(WIN), deployment("api", requests=TINY, node_selector=LINUX,
                                               pod={"os": {"name": "windows"}})], "azure")
    assert verdicts(refused) == [("workload-node-os", "api")]
    assert "its Pods declare spec.os.name 'windows', but the pools that can take them run linux nodes" in \
        refused.violations[0].finding


def test_gke_windows_pool_beside_a_linux_pool():
    """GKE's Windows taint keeps an unpinned Linux Pod on the Linux pool (nothing mixes: clean); a Pod selecting
    windows is tolerated there and lands (clean); a Pod that tolerates every taint and pins nothing may land on both:
    refused (in-process twin: tests/policies/test_workload_node_os.py)."""
    pools = gke_cluster("fleet", "e2-standard-2", node_pools=[
        {"name": "linux", "node_count": 1, "node_config": {"machine_type": "e2-standard-2"}},
        {"name": "windows", "node_count": 1, "node_config": {"machine_type": "e2-standard-2",
                                                              "image_type": "WINDOWS_LTSC_CONTAINERD"}}])
    assert engine_run([pools, deployment("api", requests=TINY)], "gcp").violations == []
    assert engine_run([pools, deployment("win", requests=TINY, node_selector=WINDOWS)], "gcp").violations == []
    everything = {"tolerations": [{"operator": "Exists"}]}
    assert verdicts(engine_run([pools, deployment("api", requests=TINY, pod=everything)], "gcp")) == [
        ("workload-node-os", "api")]


def test_eks_g5_with_a_standard_and_an_accelerated_ami_type():
    """g5.xlarge has one A10G; AL2023_x86_64_STANDARD installs no NVIDIA driver, so its nodes advertise no
    nvidia.com/gpu: a Pod requesting one is refused with the reason; with AL2023_x86_64_NVIDIA it fits (in-process
    twin: tests/policies/test_workload_fits_pool.py)."""
    pinned = {"kubernetes.io/arch": "amd64"}
    refused = engine_run([node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_STANDARD"),
                          deployment("train", node_selector=pinned, requests=GPU)], "aws")
    assert verdicts(refused) == [("workload-fits-pool", "train")]
    assert "whose GPUs its AMI type AL2023_x86_64_STANDARD does not advertise" in refused.violations[0].finding
    assert engine_run([node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA"),
                       deployment("train", node_selector=pinned, requests=GPU)], "aws").violations == []


def _gpu_pool() -> Any:
    return gcp.container.NodePool("gpu", name="gpu", cluster="fleet", location="europe-west1-b", node_count=1,
                                  node_config=gcp.container.NodePoolNodeConfigArgs(
                                      machine_type="n1-standard-4", guest_accelerators=[
                                          gcp.container.NodePoolNodeConfigGuestAcceleratorArgs(
                                              type="nvidia-tesla-t4", count=1)]))


def test_gke_gpu_pool_beside_a_cpu_pool():
    """The cluster's own pool of e2-medium (4 GiB: 2972 MiB allocatable) and a GPU NodePool made after it, which GKE
    taints: a Pod asking 6 GiB and a GPU lands on the GPU pool (n1-standard-4: 15 GB) with the admission's toleration
    (clean); asking 6 GiB and no GPU it cannot reach the GPU nodes and fits no other: refused on the CPU pool alone
    (in-process twin: tests/policies/test_workload_fits_pool.py)."""
    cpu = gke_cluster("fleet", "e2-medium", initial_node_count=1)
    assert engine_run([cpu, _gpu_pool, deployment("train", requests={**GPU, "memory": "6Gi"})],
                      "gcp").violations == []
    refused = engine_run([cpu, _gpu_pool, deployment("big", requests={"cpu": "500m", "memory": "6Gi"})], "gcp")
    assert verdicts(refused) == [("workload-fits-pool", "big")]
    assert "pool 'default-pool' of GKE cluster 'fleet' has at most" in refused.violations[0].finding
    assert "'gpu'" not in refused.violations[0].finding


def _dra_setup_pool() -> Any:
    """GKE's DRA setup as .../how-to/set-up-dra writes it: no driver installed by GKE, its device plugin kept off."""
    cluster_resource("gcp")()
    return gcp.container.NodePool("gpu", name="gpu", cluster="fleet", location="europe-west1-b", node_count=1,
                                  node_config=gcp.container.NodePoolNodeConfigArgs(
                                      machine_type="n1-standard-4",
                                      labels={"gke-no-default-nvidia-gpu-device-plugin": "true",
                                              "nvidia.com/gpu.present": "true"},
                                      guest_accelerators=[gcp.container.NodePoolNodeConfigGuestAcceleratorArgs(
                                          type="nvidia-tesla-t4", count=1,
                                          gpu_driver_installation_config={
                                              "gpu_driver_version": "INSTALLATION_DISABLED"})]))


def test_gke_pool_set_up_for_dra_at_both_sides():
    """GKE's DRA setup: the DRA driver publishes one device per attached T4, so one claimed fits and two never do
    (test_gpus_claimed_through_dra_on_a_gke_pool_set_up_for_dra's twin); a Pod asking nvidia.com/gpu there is said,
    never refused nor passed silently, as no device plugin of GKE's runs
    (test_a_gke_gpu_pool_without_gkes_device_plugin_may_advertise_no_gpu's twin)."""
    selected = {"nodeSelector": {"nvidia.com/gpu.present": "true"}}
    for count, refused in ((1, []), (2, [("workload-fits-pool", "train")])):
        parts = dra_parts("n1-standard-4", [exact_request(count=count)], pool=_dra_setup_pool)
        run = engine_run(parts, "gcp")
        assert verdicts(run) == [("helm-release-unchecked", "nvidia-dra-driver"), *refused], count
    said = engine_run([_dra_setup_pool, deployment("train", requests={**GPU, "memory": "1Gi"}, pod=selected)], "gcp")
    assert said.violations == [] and any("runs no GPU device plugin of GKE's" in note.finding
                                         for note in said.notes), said.notes


def test_a_dra_pod_and_gkes_gpu_taint_at_both_sides():
    """GKE taints a GPU pool made after the cluster's own pool, and no admission tolerates it for a Pod that claims its
    GPU through DRA: refused on the e2-medium pool, naming the GPU pool's taint; tolerating it, clean
    (test_a_dra_pod_kept_off_the_gpu_pools_by_their_taint_is_told_why's twin)."""
    cpu = gke_cluster("fleet", "e2-medium", initial_node_count=1)
    claim = dra_parts("n1-standard-4", [exact_request()])[1]
    claims = {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpus"}]}
    tolerates = {**claims, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
    refused = engine_run([cpu, _gpu_pool, claim, deployment("train", requests=TINY, pod=claims)], "gcp")
    assert verdicts(refused) == [("helm-release-unchecked", "nvidia-dra-driver"), ("workload-fits-pool", "train")]
    (message,) = [found.finding for found in refused.violations if found.policy == "workload-fits-pool"]
    assert "pool 'gpu' (GKE NodePool) has taint nvidia.com/gpu=present:NoSchedule that it does not tolerate" \
        in message, message
    clean = engine_run([cpu, _gpu_pool, claim, deployment("train", requests=TINY, pod=tolerates)], "gcp")
    assert verdicts(clean) == [("helm-release-unchecked", "nvidia-dra-driver")]


def test_aks_spot_pool_and_a_pod_that_does_not_tolerate_it():
    """The system pool is CriticalAddonsOnly, so the Spot pool is the only one left for the Deployment, and AKS's
    Spot taint keeps an untolerating Pod off it: refused by workload-schedulable; tolerating it (two replicas, a budget
    allowing one eviction), it lands (in-process twin: tests/policies/test_workload_schedulable.py)."""
    system = {"count": 1, "mode": "System", "name": "system", "os_type": "Linux", "type": "VirtualMachineScaleSets",
              "vm_size": "Standard_D4s_v5", "node_taints": ["CriticalAddonsOnly=true:NoSchedule"]}
    cluster = managed_cluster("aks", [system, SPOT])
    refused = engine_run([cluster, deployment("api", requests=TINY)], "azure")
    assert verdicts(refused) == [("workload-schedulable", "api")]
    assert "has taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule that it does not tolerate" in \
        refused.violations[0].finding
    tolerates = {"tolerations": [{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal",
                                  "value": "spot", "effect": "NoSchedule"}]}
    assert engine_run([cluster, deployment("api", requests=TINY, pod=tolerates, spec={"replicas": 2}),
                       budget("api", maxUnavailable=1)], "azure").violations == []


def test_spot_only_capacity_one_replica_and_three_with_a_budget():
    """A NodePool of spot capacity only: one replica goes down at the first reclaim (advisory); three replicas with
    a budget that allows one eviction lose one Pod at a time (clean) (in-process twin:
    tests/policies/test_workload_interruption_tolerant.py)."""
    spot = nodepool("spot", [arch_requirement("amd64"), {"key": "karpenter.sh/capacity-type", "operator": "In",
                                                         "values": ["spot"]}])
    one = engine_run([node_class(), spot, deployment("api", requests={"cpu": "100m"})], "aws")
    assert [(found.policy, found.level) for found in one.violations] == [
        ("workload-interruption-tolerant", "advisory")]
    assert engine_run([node_class(), spot, deployment("api", requests={"cpu": "100m"}, spec={"replicas": 3}),
                       budget("api", maxUnavailable=1)], "aws").violations == []
