"""A pool's node, and what of it the scheduler can give Pods (allocatable).

A node is one machine's hardware (policies/model/pool.py Hardware: a catalog machine's facts, or a ComputeCluster
profile's, policies/model/sources/compute_cluster.py). A fact that is missing (a catalog memory of null, no
ephemeral storage for a machine) is left out and never checked; one not known yet is
:class:`~policies.values.Unknown`.

Allocatable = capacity - kube-reserved - system-reserved - the hard eviction threshold, with the
defaults of each managed platform's node bootstrap, cited below, each overridable per platform or per
pool by the ``allocatable`` setting. Reservations are rounded down to whole base units (millicores,
bytes), so that allocatable is never understated: the policies only reject what can never run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..platforms.quantity import CPU, GIB, MAX_AMOUNT, MEMORY, MIB, PODS, STORAGE, floor, parse_quantity
from .pods import GPU_RESOURCES
from .pool import Hardware
from .values import Unknown, as_int, is_mapping

KUBE_RESERVED = "kube-reserved"
SYSTEM_RESERVED = "system-reserved"
EVICTION = "eviction threshold"
PARTS = (KUBE_RESERVED, SYSTEM_RESERVED, EVICTION)
_SETTING_PARTS = {"kubeReserved": KUBE_RESERVED, "systemReserved": SYSTEM_RESERVED, "evictionHard": EVICTION}
_SCHEDULED = (CPU, MEMORY, STORAGE)

# The kubelet's default hard eviction threshold memory.available<100Mi, on every platform
# (kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/#hard-eviction-thresholds;
# EKS nodeadm internal/kubelet, GKE's and AKS's node-resource documentation use the same).
EVICTION_MEMORY = Decimal(100 * MIB)
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


def default_reservations(platform: str, capacity: Mapping[str, Decimal],
                         max_pods: int) -> dict[str, dict[str, Decimal]]:
    """resource -> {part -> amount} the platform's node bootstrap reserves by default."""
    reserved: dict[str, dict[str, Decimal]] = {resource: {} for resource in _SCHEDULED}
    reserved[MEMORY][EVICTION] = EVICTION_MEMORY
    cpu = capacity.get(CPU)
    memory = capacity.get(MEMORY)
    if platform == "aws":
        if cpu is not None:
            reserved[CPU][KUBE_RESERVED] = floor(_tiered(cpu, _EKS_GKE_CPU))
        # EKS: kube-reserved memory = 11 MiB x maxPods + 255 MiB (nodeadm internal/kubelet
        # getMemoryMebibytesToReserve; ../shared/third_party/eks-instance-info/README.md).
        reserved[MEMORY][KUBE_RESERVED] = Decimal((11 * max_pods + 255) * MIB)
        reserved[STORAGE][KUBE_RESERVED] = EKS_STORAGE_RESERVED
    elif platform == "gcp":
        if cpu is not None:
            reserved[CPU][KUBE_RESERVED] = floor(_tiered(cpu, _EKS_GKE_CPU))
        if memory is not None:
            reserved[MEMORY][KUBE_RESERVED] = (GKE_SMALL_MACHINE_MEMORY if memory < GIB
                                               else floor(_tiered(memory, _GKE_MEMORY)))
    elif platform == "azure":
        if cpu is not None:
            reserved[CPU][KUBE_RESERVED] = floor(_tiered(cpu, _AKS_CPU))
        if memory is not None:
            # AKS 1.29+ (node-resource-reservations, "Memory reservations"): the lesser of
            # 20 MB x maxPods + 50 MB and 25% of the node's memory.
            reserved[MEMORY][KUBE_RESERVED] = floor(min(20 * MB * max_pods + 50 * MB, memory * Decimal("0.25")))
    return reserved


def default_max_pods(platform: str, machine_max_pods: int | None) -> int:
    if platform == "aws" and machine_max_pods is not None:
        return machine_max_pods
    return AKS_MAX_PODS if platform == "azure" else DEFAULT_MAX_PODS


# --- the node -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Node:
    """One node of a pool: its capacity and what is reserved of it, per resource."""

    platform: str
    machine: str | None  # the instance type whose catalog facts these are; None for a profile
    capacity: Mapping[str, Decimal]  # the facts that are known: cpu, memory, ephemeral-storage, pods, GPUs
    reserved: Mapping[str, Mapping[str, Decimal]]  # resource -> {part -> amount}
    unknown: Mapping[str, Unknown] = field(default_factory=dict)  # facts not known yet
    gpu_type: str | None = None
    max_pods_source: str = ""  # where maxPods came from
    overridden: frozenset[str] = frozenset()  # the parts (per resource) the allocatable setting set
    secret: frozenset[str] = frozenset()  # resources whose capacity comes from a secret value
    driverless: str | None = None  # the node image that installs no driver for its machine's GPUs (Hardware's)
    _allocatable: dict[str, Decimal | None] = field(default_factory=dict, init=False, compare=False, repr=False)

    def knows(self, resource: str) -> bool:
        """Its capacity of the resource is known (so its allocatable is)."""
        return resource in self.capacity

    def allocatable(self, resource: str) -> Decimal | None:
        """Capacity - what is reserved, never below 0 (a node is read many times: each answer is kept)."""
        if resource in self._allocatable:
            return self._allocatable[resource]
        capacity = self.capacity.get(resource)
        left = None if capacity is None else max(capacity - sum(self.reserved.get(resource, {}).values(),
                                                                Decimal(0)), Decimal(0))
        self._allocatable[resource] = left
        return left


def node_of(hardware: Hardware, platform: str, override: Mapping[str, Any]) -> Node:
    """One node of ``hardware`` on ``platform``: its capacity (and a Pod slot per maxPods), the platform's default
    reservations, and the ``allocatable`` setting's ``override`` for its pool (:func:`override`) over them."""
    capacity = dict(hardware.capacity)
    for resource in GPU_RESOURCES:
        if resource not in capacity and resource not in hardware.unknown:
            capacity[resource] = Decimal(0)
    max_pods = default_max_pods(platform, hardware.max_pods)
    source = (hardware.max_pods_why or f"EKS's maximum for {hardware.name}"
              if platform == "aws" and hardware.max_pods is not None
              else f"the {_PLATFORM_NAMES.get(platform, platform)} default")
    configured = as_int(override.get("maxPods"))  # numbers arrive as floats over the wire
    if configured is not None and configured > 0:
        max_pods, source = int(configured), "the allocatable setting"
    capacity[PODS] = Decimal(max_pods)

    reserved = default_reservations(platform, capacity, max_pods)
    overridden: set[str] = set()
    for key, part in _SETTING_PARTS.items():
        amounts = override.get(key)
        if not is_mapping(amounts):
            continue
        for resource in _SCHEDULED:
            amount = parse_quantity(amounts.get(resource)) if resource in amounts else None
            if amount is not None and 0 <= amount <= MAX_AMOUNT:
                reserved[resource][part] = floor(amount * 1000 if resource == CPU else amount)
                overridden.add(f"{resource} {part}")
    return Node(platform, hardware.name, capacity, reserved, dict(hardware.unknown), hardware.gpu_type, source,
                frozenset(overridden), hardware.secret, hardware.driverless)


_PLATFORM_NAMES = {"aws": "EKS", "gcp": "GKE", "azure": "AKS (Azure CNI Overlay)", "kubernetes": "kubelet",
                   "local": "kubelet"}


def override(settings: Mapping[str, Any], platform: str, keys: Iterable[str] = (),
             own: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What one pool's nodes reserve, over the platform's defaults, field by field: the allocatable setting's entry
    for the platform, then the pool's ``own`` kubelet settings (a Karpenter node class's, a pool's maxPods), then
    the setting's entries for the pool in ``pools`` (by ``<pool>``, then ``<cluster>/<pool>``)."""
    setting = settings.get("allocatable") if is_mapping(settings) else None
    if not is_mapping(setting):
        setting = {}
    merged: dict[str, Any] = {}
    pools = setting.get("pools")
    layers = [setting.get(platform), own, *((pools.get(key) for key in keys) if is_mapping(pools) else ())]
    for layer in layers:
        if not is_mapping(layer):
            continue
        for key, value in layer.items():
            if is_mapping(value) and is_mapping(merged.get(key)):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
    return merged


# --- the setting --------------------------------------------------------------------------------

# A Kubernetes quantity, as quantity.py reads it (non-negative).
_QUANTITY_PATTERN = r"^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|[numkMGTPE]?)$"
_AMOUNTS = {"type": "object", "additionalProperties": False,
            "properties": {resource: {"type": "string", "pattern": _QUANTITY_PATTERN} for resource in _SCHEDULED}}
_RESERVATION = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "maxPods": {"type": "integer", "minimum": 1, "maximum": 100000,
                    "description": "The kubelet's maxPods on these nodes."},
        "kubeReserved": {**_AMOUNTS, "description": "The kubelet's kubeReserved (cpu, memory, ephemeral-storage)."},
        "systemReserved": {**_AMOUNTS, "description": "The kubelet's systemReserved."},
        "evictionHard": {**_AMOUNTS, "description": "The hard eviction thresholds, as amounts "
                                                    "(memory.available, nodefs.available)."},
    },
}
ALLOCATABLE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "description": "What the nodes of each platform, or of one pool ('pools': {'<cluster>/<pool>': ...}, or "
                   "{'<pool>': ...} for a pool of that name on any cluster), reserve, when it differs from the "
                   "platform's default (docs/allocatable.md). Each field given replaces the default of that field.",
    "properties": {
        **{platform: _RESERVATION for platform in ("aws", "gcp", "azure", "kubernetes", "local")},
        "pools": {"type": "object", "additionalProperties": _RESERVATION,
                  "propertyNames": {"pattern": "^([A-Za-z0-9_.-]+/)?[A-Za-z0-9_.-]+$"}},
    },
}
