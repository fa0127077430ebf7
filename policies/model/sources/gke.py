"""GKE node pools (``gcp:container/nodePool:NodePool``, as pulumi-gcp sends them): one
:class:`~policies.model.platform_pools.PlatformPool` per node pool.

From GKE's node pool reference (cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig, and
.../how-to/node-taints, .../concepts/node-pools):

* its machine is ``nodeConfig.machineType`` (default ``e2-medium``: NodeConfig.machineType "If unspecified, the
  default machine type is e2-medium"), its nodes run the machine's architecture;
* its nodes carry ``nodeConfig.labels``, ``cloud.google.com/gke-nodepool=<name>`` and the well-known labels; other
  ``cloud.google.com/`` labels (machine family, spot, ...) may be there with values the pack does not model;
* its taints are ``nodeConfig.taints`` with the API's effect names (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE).
  GKE also taints Arm nodes ``kubernetes.io/arch=arm64:NoSchedule`` and adds the toleration to Pods that select
  arm64 (.../how-to/prepare-arm-workloads-for-deployment); the pack leaves that taint out, which can only let
  something through, never refuse it;
* ``maxPodsPerNode`` is the kubelet's maxPods (default 110).
"""

from __future__ import annotations

from typing import Any

from ..platform_pools import PlatformPool
from ..values import Unknown, as_int, child, undetermined
from .common import (
    API_EFFECTS,
    KUBERNETES_MAYBE,
    MACHINE_KEYS,
    add_labels,
    base_labels,
    machines_of,
    object_taint,
    size,
    taints,
)

NODE_POOL = "gcp:container/nodePool:NodePool"
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
DEFAULT_MACHINE = "e2-medium"  # NodeConfig.machineType: "If unspecified, the default machine type is e2-medium"
MAYBE_PREFIXES = ("cloud.google.com/", "topology.gke.io/", "iam.gke.io/", *KUBERNETES_MAYBE)


def parse_node_pool(props: Any, urn: str, name: str) -> PlatformPool:
    declared = child(props, "name")
    pool_name = declared if isinstance(declared, str) else name
    labels = base_labels(NODE_POOL_LABEL, declared)
    config = child(props, "nodeConfig")
    unknown = config if isinstance(config, Unknown) else add_labels(labels, child(config, "labels"))
    machine = child(config, "machineType")
    names = machine if isinstance(machine, Unknown) else (machine if isinstance(machine, str) else DEFAULT_MACHINE,)
    found_taints = taints(child(config, "taints"), lambda item: object_taint(item, API_EFFECTS))
    max_pods = child(props, "maxPodsPerNode")
    for value in (names, found_taints, max_pods):
        if isinstance(value, Unknown):
            unknown = unknown or value
    if found_taints is None:
        unknown = unknown or undetermined(f"node pool '{pool_name}' has taints its schema refuses")
    kubelet = {"maxPods": as_int(max_pods)} if as_int(max_pods) else {}
    return PlatformPool("GKE NodePool", urn, pool_name, "gcp", labels, machines_of("gcp", names),
                        found_taints if isinstance(found_taints, tuple) else (), unknown, MAYBE_PREFIXES,
                        MACHINE_KEYS, kubelet, named_types=names if isinstance(names, tuple) else (),
                        max_size=size(child(child(props, "autoscaling"), "totalMaxNodeCount")))
# (maxNodeCount and nodeCount are per zone, and the zones are the cluster's: only a total bounds the pool here)


def is_node_pool(resource_type: str) -> bool:
    return resource_type == NODE_POOL
