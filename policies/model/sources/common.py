"""What the pool sources share: the labels every node carries, a machine's own labels, the declared labels and taints
read from plain values, the machines of a list of instance types, a node count, and a pool's zones."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...platforms.architectures import node_label
from ...platforms.catalog import Machine, find_machine
from ..addresses import Space, space_of
from ..labels import (
    ARCH,
    HOSTNAME,
    INSTANCE_TYPE,
    LINUX,
    OS,
    OS_BETA,
    REGION,
    REGION_BETA,
    WINDOWS,
    ZONE,
    ZONE_BETA,
    ZONE_KEYS,
)
from ..pool import Option, machine_hardware
from ..scheduling import ANY, Domain, Taint
from ..values import Unknown, as_int, child, derived, is_list, is_mapping, plain, undetermined

# Labels on every node (kubernetes.io/docs/reference/labels-annotations-taints/: set by the kubelet and the cloud
# provider), with values the pack does not pick.
EVERY_NODE = (OS, OS_BETA, HOSTNAME, ZONE, REGION, ZONE_BETA, REGION_BETA)
# Kubernetes' own label domains the kubelet, the cloud provider or add-ons may set (node.kubernetes.io/..., a node's
# role, node-role.kubernetes.io/<role>), and the node agents that label nodes at run time: node feature discovery
# (feature.node.kubernetes.io/, kubernetes-sigs/node-feature-discovery, "Feature labels"), NVIDIA's GPU feature
# discovery and operator (nvidia.com/gpu.present, nvidia.com/gpu.product, ...: NVIDIA/gpu-feature-discovery,
# "Generated Labels"), AMD's and Intel's device plugins' (amd.com/gpu.*, intel.feature.node.kubernetes.io/). They are
# there with values the pack does not model: a Pod that asks for one is possible on a pool, never refused.
KUBERNETES_MAYBE = ("node.kubernetes.io/", "k8s.io/", "node-role.kubernetes.io/", "kubernetes.io/role")
NODE_AGENTS = ("feature.node.kubernetes.io/", "nvidia.com/", "amd.com/", "intel.feature.node.kubernetes.io/",
               "gpu.intel.com/")
EVERY_MAYBE = (*KUBERNETES_MAYBE, *NODE_AGENTS)
# What the AWS cloud controller and EBS CSI driver set on every EC2 node (kubernetes/cloud-provider-aws
# pkg/providers/v1/well_known_labels.go: topology.k8s.aws/zone-id, topology.k8s.aws/network-node-layer-N,
# k8s.aws/...; aws-ebs-csi-driver: topology.ebs.csi.aws.com/zone), on managed, self-managed and Karpenter nodes.
AWS_MAYBE = ("topology.k8s.aws/", "k8s.aws/", "node.k8s.aws/", "topology.ebs.csi.aws.com/", "vpc.amazonaws.com/")
# What AKS sets on its nodes besides (learn.microsoft.com/azure/aks/use-labels, "Reserved system labels": the
# kubernetes.azure.com/ labels, mode, os-sku, cluster, node-image-version, ...; as real nodes carry them,
# tests/nodes/: storageprofile, storagetier, topology.disk.csi.azure.com/zone), on its own pools' nodes and node
# auto-provisioning's, with values the pack does not model.
AZURE_MAYBE = ("kubernetes.azure.com/", "agentpool.kubernetes.azure.com/", "topology.disk.csi.azure.com/",
               "storageprofile", "storagetier")


def machine_labels(machine: Machine, architecture: str | None = None) -> dict[str, str]:
    """The labels a machine's nodes carry; ``architecture`` when the image decides it (EKS's amiType)."""
    arch = node_label(architecture or machine.architecture)
    return {ARCH: arch, "beta.kubernetes.io/arch": arch, INSTANCE_TYPE: machine.name,
            "beta.kubernetes.io/instance-type": machine.name}


def base_labels(pool_label: str | None, pool_name: Any, zones: Any = None) -> dict[str, Domain]:
    """The labels every node of a pool carries: the well-known ones, its pool-name label, and its zones when known."""
    labels: dict[str, Domain] = dict.fromkeys(EVERY_NODE, ANY)
    if pool_label is not None:
        labels[pool_label] = frozenset({pool_name}) if isinstance(pool_name, str) else ANY
    if isinstance(zones, tuple) and zones:
        for key in ZONE_KEYS:
            labels[key] = frozenset(zones)
    return labels


def unnamed(key: str, declared: Any, what: str) -> dict[str, Unknown]:
    """The pool-name label ``key`` whose value is not known (a name not known yet, or none the program gives, which the
    provider picks: pulumi-terraform-bridge's auto-name, ``<resource name>-<7 random hex>``), with the reason a Pod that
    asks for it is possible there, never certain; none when the name is known. ``what``: the pool, as messages name
    it."""
    if isinstance(declared, str) and declared:
        return {}
    if isinstance(declared, Unknown):
        return {key: undetermined(f"the name of {what}, which its nodes carry as {key}, is not known yet")}
    return {key: undetermined(f"{what} names no pool: its provider names it (the resource name and a random suffix), "
                              f"which its nodes carry as {key} and the stack does not show")}


def system(windows: bool, source: Any) -> str:
    """The kubernetes.io/os value of a pool whose image or type ``source`` says Windows (``windows``) or Linux: secret
    when ``source`` is."""
    return derived(WINDOWS if windows else LINUX, source)


def set_os(labels: dict[str, Domain], os: str | None) -> None:
    """The operating system every node of the pool runs, as its kubernetes.io/os and beta.kubernetes.io/os labels
    (the kubelet sets both from its own OS: kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-os);
    None leaves them on every node with a value the pack does not pick."""
    if os is not None:
        labels[OS] = labels[OS_BETA] = frozenset({os})


def zones_of(value: Any) -> tuple[str, ...] | Unknown | None:
    """A list of zone names as written; None when absent, empty or not a list of names."""
    listed = plain(value)
    if isinstance(listed, Unknown):
        return listed
    if not is_list(listed) or not listed:
        return None
    for item in listed:
        if isinstance(item, Unknown):
            return item
    names = tuple(item for item in listed if isinstance(item, str) and item)
    return names if len(names) == len(listed) else None


def add_labels(labels: dict[str, Domain], declared: Any) -> Unknown | None:
    """The declared node labels into ``labels``; the first unknown among them."""
    values = plain(declared)
    if isinstance(values, Unknown):
        return values
    unknown: Unknown | None = None
    if is_mapping(values):
        for key, value in values.items():
            if isinstance(value, Unknown):
                unknown = unknown or value
            elif isinstance(key, str) and isinstance(value, str):
                labels[key] = frozenset({value})
    return unknown


# The platforms' APIs name taint effects their way (EKS's and GKE's NO_SCHEDULE, ...), Kubernetes' own objects
# (a Karpenter NodePool) as Kubernetes does.
API_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
KUBERNETES_EFFECTS = {effect: effect for effect in API_EFFECTS.values()}


def object_taint(item: Any, effects: Mapping[str, str]) -> Taint | Unknown | None:
    """One taint written as an object (key, value, effect), its effect named as ``effects`` maps it; None when it
    cannot be read."""
    if not is_mapping(item):
        return None
    key, value, effect = item.get("key"), item.get("value") or "", item.get("effect")
    for part in (key, value, effect):
        if isinstance(part, Unknown):
            return part
    if not isinstance(key, str) or not isinstance(value, str) or not isinstance(effect, str) or effect not in effects:
        return None
    return Taint(key, value, effects[effect])


def taints(declared: Any, read: Callable[[Any], Taint | Unknown | None]) -> tuple[Taint, ...] | Unknown | None:
    """Each declared taint through ``read`` (the platform's shape); None when one cannot be read."""
    listed = plain(declared)
    if isinstance(listed, Unknown):
        return listed
    found: list[Taint] = []
    for item in listed if is_list(listed) else ():
        taint = read(item)
        if taint is None or isinstance(taint, Unknown):
            return taint
        found.append(taint)
    return tuple(found)


def machines_of(platform: str, names: Any, architecture: str | None = None) -> tuple[Option, ...]:
    """The catalog machines of the instance types (as written: a secret name stays marked); none when one of them
    is not in the catalog (its nodes are not known, so nothing is judged that depends on them)."""
    if not isinstance(names, tuple):
        return ()
    known = [(find_machine(platform, name), name) for name in names]
    if any(machine is None for machine, _ in known):
        return ()
    return tuple(Option(machine_hardware(machine, name), machine_labels(machine, architecture))
                 for machine, name in known if machine is not None)


def size(value: Any) -> int | Unknown | None:
    """A node count: a whole number of nodes, Unknown during preview, None when absent or not one."""
    if isinstance(value, Unknown):
        return value
    count = as_int(value)
    return count if count is not None and count >= 0 else None


SUBNET = "aws:ec2/subnet:Subnet"


def subnet_zones(resource: Any, key: str, resources: Mapping[str, Any]) -> tuple[str, ...] | Unknown | None:
    """The zones of the subnets a resource's ``key`` lists (an EKS node group's subnetIds, an autoscaling group's
    vpcZoneIdentifiers), when every one is a subnet resource of the stack it depends on: each subnet's
    availabilityZone (docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html: a node group's nodes are
    launched in its subnets' zones); None when a subnet is not the stack's."""
    listed = plain(child(resource.props, key))
    if not is_list(listed) or not listed:
        return None
    subnets = [found for urn in resource.depends(key) if (found := resources.get(urn)) is not None
               and found.type == SUBNET]
    if len(subnets) != len(listed):
        return None
    zones = [child(subnet.props, "availabilityZone") for subnet in subnets]
    late = next((zone for zone in zones if isinstance(zone, Unknown)), None)
    if late is not None:
        return late
    if not all(isinstance(zone, str) and zone for zone in zones):
        return None
    return tuple(sorted(set(zones)))


# --- address space (SPEC 20) -------------------------------------------------------------------------------------

# A subnet resource type -> (the input holding its CIDR, the addresses its cloud keeps of every subnet, and whose rule
# that is). AWS keeps the first four and the last address of every subnet
# (docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html); Azure keeps five too
# (learn.microsoft.com/azure/virtual-network/virtual-networks-faq, "Are there any restrictions on using IP addresses
# within these subnets?").
SUBNETS = {
    SUBNET: ("cidrBlock", 5, "AWS"),
    "azure-native:network:Subnet": ("addressPrefix", 5, "Azure"),
    "azure:network/subnet:Subnet": ("addressPrefixes", 5, "Azure"),
}


def _subnet_space(resource: Any) -> Space | Unknown | None:
    field, reserved, reserver = SUBNETS[resource.type]
    cidr = plain(child(resource.props, field))
    if cidr is None and resource.type == "azure-native:network:Subnet":
        cidr = plain(child(resource.props, "addressPrefixes"))
    if is_list(cidr):  # a list of prefixes: one is what AKS and EKS take nodes from
        cidr = cidr[0] if len(cidr) == 1 else None
    return space_of(resource.urn, f"subnet '{resource.name}'", cidr, reserved, reserver)


def _names_subnet(value: str, resource: Any) -> bool:
    """A subnet ID as written names this subnet resource: its id, or an Azure ID ending in
    /virtualNetworks/<its network>/subnets/<its name>."""
    if child(resource.props, "id") == value:
        return True
    parts = value.rstrip("/").split("/")
    name = child(resource.props, "subnetName") if child(resource.props, "subnetName") is not None else child(
        resource.props, "name")
    network = child(resource.props, "virtualNetworkName")
    return len(parts) >= 4 and parts[-2].lower() == "subnets" and parts[-4].lower() == "virtualnetworks" and \
        isinstance(name, str) and parts[-1] == name and isinstance(network, str) and parts[-3] == network


_SUBNETS: list[tuple[Mapping[str, Any], list[Any]]] = []  # the last stack's subnet resources (one entry)


def _subnets(resources: Mapping[str, Any]) -> list[Any]:
    """The subnet resources of the stack, found once per stack (every pool with a subnet ID asks)."""
    if not _SUBNETS or _SUBNETS[0][0] is not resources:
        _SUBNETS[:] = [(resources, [resource for resource in resources.values()
                                    if getattr(resource, "type", None) in SUBNETS])]
    return _SUBNETS[0][1]


def subnet_spaces(listed: Any, depends: tuple[str, ...],
                  resources: Mapping[str, Any]) -> tuple[Space, ...] | Unknown | None:
    """The subnets a pool's nodes take addresses from: the IDs ``listed`` (one, or a list), the subnet resources its
    property dependencies (``depends``) name when they name exactly that many, else each matched to a subnet resource
    of the stack by its ID. None when one is not the stack's (nothing is assumed of it); Unknown when which subnet, or
    its range, is not known yet."""
    listed = plain(listed)
    if listed is None:
        return None
    ids = [listed] if isinstance(listed, (str, Unknown)) else list(listed) if is_list(listed) else None
    if not ids:
        return None
    by_dependency = [resources[urn] for urn in depends if urn in resources
                     and getattr(resources[urn], "type", None) in SUBNETS]
    found: list[Any] = by_dependency
    if len(by_dependency) != len(ids):
        if not all(isinstance(item, str) for item in ids):
            # from subnets of the stack, but which of them is not known yet; from none the stack shows (a component's
            # outputs, another stack's): nothing is assumed
            return undetermined("which subnets it takes addresses from is not known yet") if by_dependency else None
        subnets, found = _subnets(resources), []
        for item in ids:
            match = next((resource for resource in subnets if _names_subnet(str(item), resource)), None)
            if match is None:
                return None
            found.append(match)
    spaces = []
    for resource in dict.fromkeys(found):
        space = _subnet_space(resource)
        if space is None or isinstance(space, Unknown):
            return space
        spaces.append(space)
    return tuple(sorted(spaces, key=lambda space: space.label))  # dependencies come in no fixed order
