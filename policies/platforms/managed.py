"""What each managed Kubernetes platform does that the model reads, by the platform's name (SPEC 11, 19, 23): a
node's default maxPods and kube-reserved, what its drain does with a budget that allows no eviction, what becomes of a
control plane past its support, and the output invoke that gives its kubeconfig. No generic module compares a
platform's name (tests/test_layout.py holds it): it asks :func:`managed` for the platform's record, and a platform
the pack models no defaults for (kubernetes, local) gets the kubelet's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from .quantity import CPU, GIB, MEMORY, MIB, STORAGE, floor

# The kubelet's default maxPods (kubelet configuration reference: maxPods, default 110); GKE's
# default for Standard clusters (cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr).
DEFAULT_MAX_PODS = 110
# AKS with Azure CNI Overlay, the default network plugin: 250 Pods per node
# (learn.microsoft.com/azure/aks/concepts-network-azure-cni-overlay, "Pods per node").
AKS_MAX_PODS = 250
# EKS: kube-reserved ephemeral storage 1 GiB (awslabs/amazon-eks-ami, nodeadm internal/kubelet config).
EKS_STORAGE_RESERVED = Decimal(GIB)


def _tiered(amount: Decimal, tiers: tuple[tuple[Decimal | None, Decimal], ...]) -> Decimal:
    """``amount`` split into consecutive tiers (width, rate); a width of None is the rest."""
    reserved = Decimal(0)
    left = amount
    for width, rate in tiers:
        part = left if width is None else min(left, width)
        reserved += part * rate
        left -= part
        if left <= 0:
            break
    return reserved


# CPU reserved by EKS and GKE, per core of the node: 6% of the first core, 1% of the second, 0.5% of
# cores 3 and 4, 0.25% of every core above 4 (awslabs/amazon-eks-ami nodeadm internal/kubelet
# getCPUMillicoresToReserve; cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes,
# "Memory and CPU reservations"). In millicores per core: 60, 10, 5, 2.5.
_EKS_GKE_CPU = ((Decimal(1000), Decimal("0.06")), (Decimal(1000), Decimal("0.01")),
                (Decimal(2000), Decimal("0.005")), (None, Decimal("0.0025")))
# CPU reserved by AKS 1.29+ (learn.microsoft.com/azure/aks/node-resource-reservations, "CPU
# reservations"): 60m for 1 core, 100m for 2, 140m for 4, 180m for 8, 260m for 16, 420m for 32, 740m
# for 64: 60m for the first core, 40m for the second, 20m each for cores 3-4 and 10m for every core
# above 4, which gives every documented value and the sizes in between.
_AKS_CPU = ((Decimal(1000), Decimal("0.06")), (Decimal(1000), Decimal("0.04")),
            (Decimal(2000), Decimal("0.02")), (None, Decimal("0.01")))
# Memory reserved by GKE (plan-node-sizes, "Memory and CPU reservations"): 255 MiB on machines with
# less than 1 GiB, else 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next
# 112 and 2% of everything above 128 GiB.
_GKE_MEMORY = ((Decimal(4 * GIB), Decimal("0.25")), (Decimal(4 * GIB), Decimal("0.20")),
               (Decimal(8 * GIB), Decimal("0.10")), (Decimal(112 * GIB), Decimal("0.06")), (None, Decimal("0.02")))
GKE_SMALL_MACHINE_MEMORY = Decimal(255 * MIB)
MB = Decimal(1000**2)


def _eks(capacity: Mapping[str, Decimal], max_pods: int) -> dict[str, Decimal]:
    cpu = capacity.get(CPU)
    # EKS: kube-reserved memory = 11 MiB x maxPods + 255 MiB (nodeadm internal/kubelet
    # getMemoryMebibytesToReserve; ../shared/third_party/eks-instance-info/README.md).
    reserved = {MEMORY: Decimal((11 * max_pods + 255) * MIB), STORAGE: EKS_STORAGE_RESERVED}
    if cpu is not None:
        reserved[CPU] = floor(_tiered(cpu, _EKS_GKE_CPU))
    return reserved


def _gke(capacity: Mapping[str, Decimal], max_pods: int) -> dict[str, Decimal]:
    cpu, memory = capacity.get(CPU), capacity.get(MEMORY)
    reserved = {}
    if cpu is not None:
        reserved[CPU] = floor(_tiered(cpu, _EKS_GKE_CPU))
    if memory is not None:
        reserved[MEMORY] = GKE_SMALL_MACHINE_MEMORY if memory < GIB else floor(_tiered(memory, _GKE_MEMORY))
    return reserved


def _aks(capacity: Mapping[str, Decimal], max_pods: int) -> dict[str, Decimal]:
    cpu, memory = capacity.get(CPU), capacity.get(MEMORY)
    reserved = {}
    if cpu is not None:
        reserved[CPU] = floor(_tiered(cpu, _AKS_CPU))
    if memory is not None:
        # AKS 1.29+ (node-resource-reservations, "Memory reservations"): the lesser of
        # 20 MB x maxPods + 50 MB and 25% of the node's memory.
        reserved[MEMORY] = floor(min(20 * MB * max_pods + 50 * MB, memory * Decimal("0.25")))
    return reserved


def _kubelet(capacity: Mapping[str, Decimal], max_pods: int) -> dict[str, Decimal]:
    return {}  # the kubelet reserves nothing by default (its kubeReserved and systemReserved are empty)


# How each platform's drain meets a budget that allows no eviction, in its own words: EKS fails a managed node group
# update with PodEvictionFailure (docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html, "Upgrade
# phase"); AKS stops an upgrade on an undrainable node (learn.microsoft.com/azure/aks/upgrade-cluster, "Optimize for
# undrainable node behavior"); GKE respects the budget for up to an hour, then drains the node anyway
# (cloud.google.com/kubernetes-engine/docs/concepts/node-pool-upgrade-strategies, "surge upgrades").
# What a platform's drain does with the Pods of a pool it deletes, where it says (a clause after the deletion): GKE
# waits at most an hour (cloud.google.com/kubernetes-engine/docs/how-to/node-pools, "Delete a node pool").
# An output invoke whose arguments are not known yet drops its dependencies in a first preview: each platform's usual
# one for a kubeconfig, as the fix names it.

# how a platform treats a control plane past its standard support (cluster-support-window): "paid" (EKS: extended
# support at a price, or an upgrade when supportType is STANDARD), "long-term" (AKS: LTS on the Premium tier),
# "channel" (GKE: the Extended release channel), "none" (the platform's is not modelled)
SupportModel = Literal["paid", "long-term", "channel", "none"]


@dataclass(frozen=True)
class Managed:
    """One platform's capabilities, as the model reads them."""

    name: str  # aws, gcp, azure, kubernetes, local (platform.PLATFORMS)
    max_pods_words: str  # where a node's default maxPods comes from, as messages say it
    max_pods: int  # a node's default maxPods
    machine_max_pods: bool  # a machine's own maximum replaces the default (EKS: per instance type, by its ENIs)
    kube_reserved: Callable[[Mapping[str, Decimal], int], dict[str, Decimal]]  # per resource, from capacity, maxPods
    support: SupportModel = "none"
    past_support: str = ""  # what it does with a control plane past all its support, as a clause; "": not said
    drain_failure: str = ""  # what its drain does on a budget that allows no eviction; "": not said
    delete_drain: str = ""  # what its drain does with the Pods of a pool it deletes, as a clause; "": not said
    kubeconfig_invoke: str = ""  # its usual output invoke for a cluster's kubeconfig; "": none
    # a pool's minimum size is its own cluster-autoscaler's (GKE's autoscaling.minNodeCount, AKS's minCount): it runs
    # wherever the minimum is set. False: an autoscaler runs only where the stack installs one (EKS node groups)
    autoscaler_built_in: bool = False


KUBELET = Managed("kubernetes", "the kubelet default", DEFAULT_MAX_PODS, False, _kubelet)
MANAGED: Mapping[str, Managed] = {
    "aws": Managed("aws", "the EKS default", DEFAULT_MAX_PODS, True, _eks, "paid",
                   drain_failure="EKS fails the update with PodEvictionFailure",
                   kubeconfig_invoke="aws.eks.get_cluster_output(name=cluster.name)"),
    "gcp": Managed("gcp", "the GKE default", DEFAULT_MAX_PODS, False, _gke, "channel",
                   past_support="GKE upgrades such a cluster to a supported minor itself, on its own schedule",
                   drain_failure="GKE waits up to an hour on the budget, then evicts them anyway",
                   delete_drain=" (GKE waits at most an hour on PodDisruptionBudgets when it deletes a pool's nodes: "
                                "cloud.google.com/kubernetes-engine/docs/how-to/node-pools, \"Delete a node pool\")",
                   kubeconfig_invoke="gcp.container.get_cluster_output(name=cluster.name)", autoscaler_built_in=True),
    "azure": Managed("azure", "the AKS (Azure CNI Overlay) default", AKS_MAX_PODS, False, _aks, "long-term",
                     past_support="AKS creates no cluster at it and may upgrade an existing one itself",
                     drain_failure="AKS stops the upgrade on the blocking budget",
                     kubeconfig_invoke="azure_native.containerservice.list_managed_cluster_user_credentials_output("
                                       "resource_name=cluster.name)", autoscaler_built_in=True),
    "kubernetes": KUBELET,
    "local": Managed("local", "the kubelet default", DEFAULT_MAX_PODS, False, _kubelet),
}


def managed(platform: str | None) -> Managed:
    """The platform's record; the kubelet's for a platform the pack models nothing of (or none)."""
    return MANAGED.get(platform or "", KUBELET)
