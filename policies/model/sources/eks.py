"""EKS managed node groups (``aws:eks/nodeGroup:NodeGroup``, as pulumi-aws sends them): one
:class:`~policies.model.platform_pools.PlatformPool` per node group.

From the EKS API reference (docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html) and the
managed node group guide (docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html):

* its machines are ``instanceTypes`` (default ``t3.medium``, "If you don't specify an instance type ... the
  default is t3.medium"); the AMI type decides the nodes' architecture (``*ARM_64*`` arm64, else x86_64;
  ``CUSTOM`` or none: each machine's own), and an instance type of the other architecture cannot join;
* its nodes carry ``labels``, ``eks.amazonaws.com/nodegroup=<nodeGroupName>``,
  ``eks.amazonaws.com/capacityType`` (ON_DEMAND, SPOT) and the well-known labels every node has; other
  ``eks.amazonaws.com/`` and AWS labels may be there with values the pack does not model;
* its taints are ``taints`` with the API's effect names (NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE);
* its size is ``scalingConfig`` (minSize, maxSize).
"""

from __future__ import annotations

from typing import Any

from ..platform_pools import PlatformPool
from ..scheduling import ANY
from ..values import Unknown, child, is_list, plain, undetermined
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

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
NODE_GROUP_LABEL = "eks.amazonaws.com/nodegroup"
DEFAULT_INSTANCE_TYPE = "t3.medium"  # CreateNodegroup, instanceTypes: "the default is t3.medium"
# Labels EKS and the AWS cloud provider may set that the pack does not model (nodegroup-image, ...).
MAYBE_PREFIXES = ("eks.amazonaws.com/", "topology.k8s.aws/", "vpc.amazonaws.com/", *KUBERNETES_MAYBE)


def ami_architecture(ami_type: Any) -> str | None:
    """The architecture an AMI type's nodes run (AL2023_ARM_64_STANDARD, BOTTLEROCKET_ARM_64, ...), None for
    CUSTOM or none (the instance types' own)."""
    if not isinstance(ami_type, str) or ami_type == "CUSTOM":
        return None
    return "arm64" if "ARM_64" in ami_type else "x86_64"


def instance_types(props: Any) -> tuple[str, ...] | Unknown | None:
    """The instance types as written (the default when none); None when they cannot be read."""
    listed = plain(child(props, "instanceTypes"))
    if isinstance(listed, Unknown):
        return listed
    if listed is None or (is_list(listed) and not listed):
        return (DEFAULT_INSTANCE_TYPE,)
    if not is_list(listed):
        return None
    for name in listed:
        if isinstance(name, Unknown):
            return name
    return tuple(name for name in listed if isinstance(name, str))


def parse_node_group(props: Any, urn: str, name: str) -> PlatformPool:
    declared = child(props, "nodeGroupName")
    pool_name = declared if isinstance(declared, str) else name
    labels = base_labels(NODE_GROUP_LABEL, declared)
    capacity = child(props, "capacityType")
    labels["eks.amazonaws.com/capacityType"] = frozenset({capacity}) if isinstance(capacity, str) else \
        frozenset({"ON_DEMAND"}) if capacity is None else ANY  # CreateNodegroup: capacityType defaults to ON_DEMAND
    unknown = add_labels(labels, child(props, "labels"))
    names = instance_types(props)
    found_taints = taints(child(props, "taints"), lambda item: object_taint(item, API_EFFECTS))
    ami = child(props, "amiType")
    for value in (names, found_taints, ami):
        if isinstance(value, Unknown):
            unknown = unknown or value
    if names is None or found_taints is None:
        unknown = unknown or undetermined(f"node group '{pool_name}' has instance types or taints its schema refuses")
    architecture = ami_architecture(ami)  # the AMI's is the nodes' (a machine of the other cannot join)
    return PlatformPool("NodeGroup", urn, pool_name, "aws", labels, machines_of("aws", names, architecture),
                        found_taints if isinstance(found_taints, tuple) else (), unknown, MAYBE_PREFIXES,
                        MACHINE_KEYS, named_types=names if isinstance(names, tuple) else (),
                        ami_type=ami if isinstance(ami, str) else None, ami_architecture=architecture,
                        max_size=size(child(child(props, "scalingConfig"), "maxSize")))


def is_node_group(resource_type: str) -> bool:
    return resource_type == NODE_GROUP
