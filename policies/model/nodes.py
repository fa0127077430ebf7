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

from ..platforms.managed import managed
from ..platforms.platform import PLATFORMS
from ..platforms.quantity import CPU, MAX_AMOUNT, MEMORY, MIB, PODS, STORAGE, floor, parse_quantity
from .pods import DEVICES
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
def default_reservations(platform: str, capacity: Mapping[str, Decimal],
                         max_pods: int) -> dict[str, dict[str, Decimal]]:
    """resource -> {part -> amount} the platform's node bootstrap reserves by default (platforms/managed.py)."""
    reserved: dict[str, dict[str, Decimal]] = {resource: {} for resource in _SCHEDULED}
    reserved[MEMORY][EVICTION] = EVICTION_MEMORY
    for resource, amount in managed(platform).kube_reserved(capacity, max_pods).items():
        reserved[resource][KUBE_RESERVED] = amount
    return reserved


def default_max_pods(platform: str, machine_max_pods: int | None) -> int:
    found = managed(platform)
    return machine_max_pods if found.machine_max_pods and machine_max_pods is not None else found.max_pods


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
    for resource in DEVICES:
        if resource not in capacity and resource not in hardware.unknown:
            capacity[resource] = Decimal(0)
    max_pods = default_max_pods(platform, hardware.max_pods)
    source = (hardware.max_pods_why or f"EKS's maximum for {hardware.name}"
              if managed(platform).machine_max_pods and hardware.max_pods is not None
              else managed(platform).max_pods_words)
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
        **{platform: _RESERVATION for platform in PLATFORMS},
        "pools": {"type": "object", "additionalProperties": _RESERVATION,
                  "propertyNames": {"pattern": "^([A-Za-z0-9_.-]+/)?[A-Za-z0-9_.-]+$"}},
    },
}
