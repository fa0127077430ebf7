"""Where pools come from besides a ComputeCluster, one module per platform (SPEC section 14): ``karpenter``
(NodePool), ``eks`` (managed node group), ``gke`` (node pool), ``aks`` (node pool, classic and native).
:func:`parse_platform_pool` reads one resource of any of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..platform_pools import PlatformPool
from . import aks, eks, gke, karpenter


def is_platform_pool(resource_type: Any) -> bool:
    return (karpenter.is_nodepool(resource_type) or eks.is_node_group(resource_type)
            or gke.is_node_pool(resource_type) or aks.is_agent_pool(resource_type))


def parse_platform_pool(resource_type: str, props: Any, urn: str, name: str,
                        node_classes: Mapping[str, Any] | None = None) -> PlatformPool | None:
    """One pool the platform declares, or None when the resource is not one (node classes: Karpenter's, by name)."""
    if karpenter.is_nodepool(resource_type):
        return karpenter.parse_nodepool(props, urn, name, node_classes or {})
    if eks.is_node_group(resource_type):
        return eks.parse_node_group(props, urn, name)
    if gke.is_node_pool(resource_type):
        return gke.parse_node_pool(props, urn, name)
    if aks.is_agent_pool(resource_type):
        return aks.parse_agent_pool(props, urn, name, native=resource_type == aks.NATIVE)
    return None
