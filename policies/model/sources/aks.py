"""AKS node pools: ``azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool`` (pulumi-azure)
and ``azure-native:containerservice:AgentPool`` (pulumi-azure-native), one
:class:`~policies.model.platform_pools.PlatformPool` each.

From AKS's documentation (learn.microsoft.com/azure/aks/use-node-taints, .../use-labels, .../create-node-pools):

* its machine is ``vmSize``, its nodes run the machine's architecture;
* its nodes carry ``nodeLabels``, ``kubernetes.azure.com/agentpool=<name>`` and the well-known labels; other
  ``kubernetes.azure.com/`` labels may be there with values the pack does not model;
* its taints are ``nodeTaints``, each ``key=value:Effect`` as kubectl writes it;
* ``maxPods`` is the kubelet's maxPods (default: the network plugin's, policies/model/nodes.py).
"""

from __future__ import annotations

import re
from typing import Any

from ..platform_pools import PlatformPool
from ..scheduling import Taint
from ..values import Unknown, as_int, child, undetermined
from .common import KUBERNETES_MAYBE, MACHINE_KEYS, add_labels, base_labels, machines_of, size, taints

CLASSIC = "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool"
NATIVE = "azure-native:containerservice:AgentPool"
AGENT_POOL_LABEL = "kubernetes.azure.com/agentpool"
MAYBE_PREFIXES = ("kubernetes.azure.com/", "agentpool.kubernetes.azure.com/", *KUBERNETES_MAYBE)
_TAINT = re.compile(r"^([^=:\s]+)(?:=([^:\s]*))?:(NoSchedule|NoExecute|PreferNoSchedule)$")


def read_taint(item: Any) -> Taint | Unknown | None:
    """One taint as AKS writes it: key=value:NoSchedule."""
    if isinstance(item, Unknown):
        return item
    match = _TAINT.match(item) if isinstance(item, str) else None
    if match is None:
        return None
    return Taint(match.group(1), match.group(2) or "", match.group(3))


def parse_agent_pool(props: Any, urn: str, name: str, native: bool) -> PlatformPool:
    declared = child(props, "agentPoolName" if native else "name")
    pool_name = declared if isinstance(declared, str) else name
    labels = base_labels(AGENT_POOL_LABEL, declared)
    unknown = add_labels(labels, child(props, "nodeLabels"))
    size = child(props, "vmSize")
    names = size if isinstance(size, Unknown) else (size,) if isinstance(size, str) else None
    found_taints = taints(child(props, "nodeTaints"), read_taint)
    max_pods = child(props, "maxPods")
    for value in (names, found_taints, max_pods):
        if isinstance(value, Unknown):
            unknown = unknown or value
    if found_taints is None:
        unknown = unknown or undetermined(f"node pool '{pool_name}' has taints its schema refuses")
    kubelet = {"maxPods": as_int(max_pods)} if as_int(max_pods) else {}
    return PlatformPool("AgentPool" if native else "KubernetesClusterNodePool", urn, pool_name, "azure", labels,
                        machines_of("azure", names), found_taints if isinstance(found_taints, tuple) else (), unknown,
                        MAYBE_PREFIXES, MACHINE_KEYS, kubelet, max_size=_max_size(props, native),
                        named_types=names if isinstance(names, tuple) else ())


def _max_size(props: Any, native: bool) -> int | Unknown | None:
    """maxCount when it autoscales, else its fixed count."""
    autoscales = child(props, "enableAutoScaling" if native else "autoScalingEnabled")
    if isinstance(autoscales, Unknown):
        return autoscales
    return size(child(props, "maxCount" if autoscales else "count" if native else "nodeCount"))


def is_agent_pool(resource_type: str) -> bool:
    return resource_type in (CLASSIC, NATIVE)
