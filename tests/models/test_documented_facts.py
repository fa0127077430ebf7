"""Each pool source's node facts held to tables written here from the platforms' documentation, value by value, in
the spellings the providers accept (issue 57: a planted-bug audit of the last round let through AKS osSKU compared
case-sensitively, AL2_x86_64_GPU not counted as accelerated, GKE's WINDOWS_SAC images, Karpenter's windows2025
family, a misspelled preemptible label key, ...: each source was tested on one or two values, so a class of mistake
passed). These tables are not the pack's rules restated: they list every value, each with what the documentation
says of it, and the test reads each through the whole source, as a pool the policies see.

Sources: the EKS API reference (Nodegroup.amiType's valid values, docs.aws.amazon.com/eks/latest/APIReference/
API_Nodegroup.html; the accelerated AMIs, .../userguide/ml-eks-optimized-ami.html), GKE's node images
(cloud.google.com/kubernetes-engine/docs/concepts/node-images; Windows Server images, .../how-to/
creating-a-cluster-windows), the AKS API's OSSKU and OSType (learn.microsoft.com/rest/api/aks/agent-pools),
Karpenter's EC2NodeClass (../shared/third_party/karpenter/crds: amiFamily's enum, the alias families), and the
node labels of each platform's capacity type (GKE .../concepts/spot-vms and .../how-to/preemptible-vms; AKS
.../aks/spot-node-pool; EKS .../managed-node-groups.html; karpenter.sh/capacity-type)."""

from __future__ import annotations

from typing import Any

import pytest

from compute_guard.policies.model.sources import pools_of
from compute_guard.policies.model.sources.karpenter import class_os

ARCH, OS = "kubernetes.io/arch", "kubernetes.io/os"

# amiType: (the architecture its nodes run, their OS, whether it installs NVIDIA's driver and device plugin)
EKS_AMI_TYPES = {
    "AL2_x86_64": ("amd64", "linux", False),
    "AL2_x86_64_GPU": ("amd64", "linux", True),
    "AL2_ARM_64": ("arm64", "linux", False),
    "AL2023_x86_64_STANDARD": ("amd64", "linux", False),
    "AL2023_ARM_64_STANDARD": ("arm64", "linux", False),
    "AL2023_x86_64_NEURON": ("amd64", "linux", False),  # AWS Inferentia/Trainium, no NVIDIA driver
    "AL2023_x86_64_NVIDIA": ("amd64", "linux", True),
    "AL2023_ARM_64_NVIDIA": ("arm64", "linux", True),
    "BOTTLEROCKET_x86_64": ("amd64", "linux", False),
    "BOTTLEROCKET_ARM_64": ("arm64", "linux", False),
    "BOTTLEROCKET_x86_64_FIPS": ("amd64", "linux", False),
    "BOTTLEROCKET_ARM_64_FIPS": ("arm64", "linux", False),
    "BOTTLEROCKET_x86_64_NVIDIA": ("amd64", "linux", True),
    "BOTTLEROCKET_ARM_64_NVIDIA": ("arm64", "linux", True),
    "WINDOWS_CORE_2019_x86_64": ("amd64", "windows", False),
    "WINDOWS_FULL_2019_x86_64": ("amd64", "windows", False),
    "WINDOWS_CORE_2022_x86_64": ("amd64", "windows", False),
    "WINDOWS_FULL_2022_x86_64": ("amd64", "windows", False),
    "WINDOWS_CORE_2025_x86_64": ("amd64", "windows", False),
    "WINDOWS_FULL_2025_x86_64": ("amd64", "windows", False),
}
# a GPU machine of each architecture, and one without
GPU_MACHINES = {"amd64": "g5.xlarge", "arm64": "g5g.xlarge"}


def one_pool(resource_type: str, props: dict[str, Any], name: str = "pool") -> Any:
    (pool,) = pools_of(resource_type, props, f"urn:pulumi:s::p::{resource_type}::{name}", name)
    return pool


def label(pool: Any, key: str) -> Any:
    domain = pool.labels.get(key)
    return sorted(domain) if isinstance(domain, frozenset) else domain


@pytest.mark.parametrize("ami_type", sorted(EKS_AMI_TYPES))
def test_each_eks_ami_type_runs_its_architecture_and_os_and_advertises_gpus_only_when_accelerated(ami_type):
    architecture, system, nvidia = EKS_AMI_TYPES[ami_type]
    pool = one_pool("aws:eks/nodeGroup:NodeGroup", {
        "nodeGroupName": "pool", "amiType": ami_type, "instanceTypes": [GPU_MACHINES[architecture]],
        "scalingConfig": {"minSize": 1, "maxSize": 2, "desiredSize": 1}})
    assert label(pool, OS) == [system]
    assert [option.node_architecture for option in pool.options] == [architecture]
    (option,) = pool.options
    assert (option.hardware.capacity["nvidia.com/gpu"] > 0) is nvidia, ami_type
    assert (option.hardware.driverless is None) is nvidia, ami_type


def test_a_custom_ami_type_says_neither_os_nor_driver():
    pool = one_pool("aws:eks/nodeGroup:NodeGroup", {
        "nodeGroupName": "pool", "amiType": "CUSTOM", "instanceTypes": ["g5.xlarge"],
        "scalingConfig": {"minSize": 1, "maxSize": 2, "desiredSize": 1}})
    assert label(pool, OS) is not None and not isinstance(pool.labels.get(OS), frozenset)
    (option,) = pool.options
    assert option.hardware.driverless is None and option.hardware.capacity["nvidia.com/gpu"] > 0


# imageType: its nodes' OS; GKE takes the names in any case (gcloud --image-type cos_containerd)
GKE_IMAGES = {"COS_CONTAINERD": "linux", "UBUNTU_CONTAINERD": "linux", "COS": "linux", "UBUNTU": "linux",
              "WINDOWS_LTSC_CONTAINERD": "windows", "WINDOWS_SAC_CONTAINERD": "windows", "WINDOWS_LTSC": "windows",
              "WINDOWS_SAC": "windows"}


@pytest.mark.parametrize("image", [*sorted(GKE_IMAGES), "windows_ltsc_containerd", "cos_containerd"])
def test_each_gke_image_type_runs_its_os_and_windows_nodes_carry_gkes_taint(image):
    system = GKE_IMAGES[image.upper()]
    pool = one_pool("gcp:container/nodePool:NodePool", {
        "name": "pool", "cluster": "gke", "location": "europe-west1-b", "nodeCount": 1,
        "nodeConfig": {"machineType": "n2-standard-4", "imageType": image}})
    assert label(pool, OS) == [system]
    assert ("node.kubernetes.io/os=windows:NoSchedule" in [taint.text for taint in pool.taints]) is (
        system == "windows")


# osSKU: its nodes' OS (AKS's OSSKU values; the API takes them in any case); osType alone says it too
AKS_SKUS = {"Ubuntu": "linux", "Ubuntu2204": "linux", "Ubuntu2404": "linux", "AzureLinux": "linux",
            "AzureLinux3": "linux", "CBLMariner": "linux", "Mariner": "linux", "Windows2019": "windows",
            "Windows2022": "windows", "WindowsAnnual": "windows"}


@pytest.mark.parametrize("sku", [*sorted(AKS_SKUS), "windows2022", "WINDOWS2019", "ubuntu"])
@pytest.mark.parametrize("native", [True, False])
def test_each_aks_os_sku_runs_its_os_in_any_case(sku, native):
    system = next(value for key, value in AKS_SKUS.items() if key.lower() == sku.lower())
    if native:
        props = {"agentPoolName": "pool", "resourceName": "aks", "vmSize": "Standard_D4s_v5", "count": 1,
                 "osSKU": sku}
        resource_type = "azure-native:containerservice:AgentPool"
    else:
        props = {"name": "pool", "kubernetesClusterId": "aks", "vmSize": "Standard_D4s_v5", "nodeCount": 1,
                 "osSku": sku}
        resource_type = "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool"
    assert label(one_pool(resource_type, props), OS) == [system]


@pytest.mark.parametrize("os_type, system", [("Linux", "linux"), ("Windows", "windows"), ("windows", "windows")])
def test_an_aks_os_type_alone_says_its_os(os_type, system):
    pool = one_pool("azure-native:containerservice:AgentPool", {
        "agentPoolName": "pool", "resourceName": "aks", "vmSize": "Standard_D4s_v5", "count": 1, "osType": os_type})
    assert label(pool, OS) == [system]


# Karpenter: the amiFamily enum and the alias families of the EC2NodeClass CRD
KARPENTER_FAMILIES = {"AL2": "linux", "AL2023": "linux", "Bottlerocket": "linux", "Windows2019": "windows",
                      "Windows2022": "windows", "Windows2025": "windows"}
KARPENTER_ALIASES = {"al2": "linux", "al2023": "linux", "bottlerocket": "linux", "windows2019": "windows",
                     "windows2022": "windows", "windows2025": "windows"}


def test_the_karpenter_tables_are_the_crds():
    """Every amiFamily and alias family the CRD accepts is in the tables above (so a new one fails here)."""
    from builders import SHARED
    crd = (SHARED / "third_party" / "karpenter" / "crds" / "karpenter.k8s.aws_ec2nodeclasses.yaml").read_text()
    for family in [*KARPENTER_FAMILIES, "Custom"]:
        assert f"- {family}\n" in crd, family
    assert "self.split('@')[0] in ['al2','al2023','bottlerocket','windows2019','windows2022','windows2025']" in crd
    assert set(KARPENTER_ALIASES) == {"al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025"}


@pytest.mark.parametrize("family", sorted(KARPENTER_FAMILIES))
def test_each_karpenter_ami_family_runs_its_os(family):
    assert class_os({"spec": {"amiFamily": family}}) == KARPENTER_FAMILIES[family]


@pytest.mark.parametrize("alias", sorted(KARPENTER_ALIASES))
def test_each_karpenter_alias_family_runs_its_os(alias):
    assert class_os({"spec": {"amiSelectorTerms": [{"alias": f"{alias}@latest"}]}}) == KARPENTER_ALIASES[alias]


def test_a_custom_karpenter_family_says_no_os():
    assert class_os({"spec": {"amiFamily": "Custom", "amiSelectorTerms": [{"id": "ami-0123"}]}}) is None


# the capacity-type labels each platform sets on its reclaimable nodes, as written in its documentation
def test_the_capacity_type_labels_are_the_platforms_own_keys():
    gke = {kind: one_pool("gcp:container/nodePool:NodePool", {
        "name": "pool", "cluster": "gke", "location": "europe-west1-b", "nodeCount": 1,
        "nodeConfig": {"machineType": "n2-standard-4", kind: True}}) for kind in ("spot", "preemptible")}
    assert label(gke["spot"], "cloud.google.com/gke-spot") == ["true"] and gke["spot"].interruption == "spot"
    assert label(gke["preemptible"], "cloud.google.com/gke-preemptible") == ["true"]
    assert gke["preemptible"].interruption == "preemptible"
    regular = one_pool("gcp:container/nodePool:NodePool", {
        "name": "pool", "cluster": "gke", "location": "europe-west1-b", "nodeCount": 1,
        "nodeConfig": {"machineType": "n2-standard-4"}})
    assert {"cloud.google.com/gke-spot", "cloud.google.com/gke-preemptible"} <= regular.absent
    aks = one_pool("azure-native:containerservice:AgentPool", {
        "agentPoolName": "pool", "resourceName": "aks", "vmSize": "Standard_D4s_v5", "count": 1,
        "scaleSetPriority": "Spot"})
    assert label(aks, "kubernetes.azure.com/scalesetpriority") == ["spot"]
    assert "kubernetes.azure.com/scalesetpriority=spot:NoSchedule" in [taint.text for taint in aks.taints]
    eks = one_pool("aws:eks/nodeGroup:NodeGroup", {
        "nodeGroupName": "pool", "instanceTypes": ["m6i.large"], "capacityType": "SPOT",
        "scalingConfig": {"minSize": 1, "maxSize": 2, "desiredSize": 1}})
    assert label(eks, "eks.amazonaws.com/capacityType") == ["SPOT"] and eks.interruption == "spot"
