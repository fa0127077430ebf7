"""EKS: managed node groups (``aws:eks/nodeGroup:NodeGroup``, as pulumi-aws sends them), and the cluster
(``aws:eks/cluster:Cluster``) with its EKS Auto Mode built-in NodePools. One :class:`~policies.model.pool.Pool` per
node group and per built-in NodePool.

From the EKS API reference (docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html) and the
managed node group guide (docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html):

* its machines are ``instanceTypes`` (default ``t3.medium``, "If you don't specify an instance type ... the
  default is t3.medium"); the AMI type decides the nodes' architecture (``*ARM_64*`` arm64, else x86_64;
  ``CUSTOM`` or none: each machine's own), and an instance type of the other architecture cannot join;
* its nodes run the AMI type's operating system (``WINDOWS_*``: Windows Server; else Linux; ``CUSTOM``: not known);
* its nodes carry ``labels``, ``eks.amazonaws.com/nodegroup=<nodeGroupName>``,
  ``eks.amazonaws.com/capacityType`` (ON_DEMAND, SPOT) and the well-known labels every node has; other
  ``eks.amazonaws.com/`` and AWS labels may be there with values the pack does not model;
* its taints are ``taints`` with the API's effect names (NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE);
* its size is ``scalingConfig`` (minSize, maxSize); it joins the cluster ``clusterName`` names (or depends on).

An EKS cluster whose ``computeConfig.enabled`` is true runs EKS Auto Mode, with the built-in NodePools listed in
``computeConfig.nodePools`` (docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html, "Built-in NodePool
Reference"): both on-demand, of the C, M and R families of generation 5 or newer, Linux; ``general-purpose`` amd64
only, ``system`` amd64 and arm64 with the taint ``CriticalAddonsOnly:NoSchedule``. Each is judged as a Karpenter
NodePool over the AWS catalog (karpenter.py). A cluster with a Fargate profile may run Pods on Fargate, which no
pool of the stack shows: its pools are not all known.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

import yaml

from ..addresses import Addresses, Draw, Network
from ..clusters import Claim, KubeCluster, Unwritten, endpoints
from ..labels import ARCH, LINUX, MACHINE_KEYS, OS
from ..platform_admission import AdmittedPod, Refused, Unmatched, Whichever
from ..pods import NVIDIA
from ..pool import Option, Pool
from ..resources import StackResource
from ..scheduling import ANY, Taint
from ..values import Unknown, child, is_list, is_mapping, is_secret, listed, plain, quoted, undetermined
from ..versions import Version
from . import Context, Read, Replacing, Source, Unread, checked_inputs
from .common import (
    API_EFFECTS,
    AWS_MAYBE,
    EVERY_MAYBE,
    ZONE_KEYS,
    add_labels,
    base_labels,
    machines_of,
    object_taint,
    set_os,
    size,
    subnet_spaces,
    subnet_zones,
    system,
    taints,
    unnamed,
)
from .karpenter import AUTO_MODE_BUILT_IN, nodepool

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
CLUSTER = "aws:eks/cluster:Cluster"
FARGATE_PROFILE = "aws:eks/fargateProfile:FargateProfile"
ADDON = "aws:eks/addon:Addon"
VPC_CNI = "vpc-cni"  # the Amazon VPC CNI add-on's name (docs.aws.amazon.com/eks/latest/userguide/managing-vpc-cni.html)
NODE_GROUP_LABEL = "eks.amazonaws.com/nodegroup"
DEFAULT_INSTANCE_TYPE = "t3.medium"  # CreateNodegroup, instanceTypes: "the default is t3.medium"
# Labels EKS and the AWS cloud provider may set that the pack does not model (nodegroup-image, ...).
MAYBE_PREFIXES = ("eks.amazonaws.com/", *AWS_MAYBE, *EVERY_MAYBE)
AUTO_MODE = "Auto Mode NodePool"
# The built-in NodePools (set-builtin-node-pools.html): on-demand, C, M and R, generation 5 or newer, Linux; the
# architectures each allows; the system pool's taint.
_BUILT_IN_COMMON = (("karpenter.sh/capacity-type", "In", ("on-demand",)),
                    ("eks.amazonaws.com/instance-category", "In", ("c", "m", "r")),
                    ("eks.amazonaws.com/instance-generation", "Gt", ("4",)),
                    (OS, "In", ("linux",)))
BUILT_IN = {
    "general-purpose": ((*_BUILT_IN_COMMON, (ARCH, "In", ("amd64",))), ()),
    "system": ((*_BUILT_IN_COMMON, (ARCH, "In", ("amd64", "arm64"))),
               (Taint("CriticalAddonsOnly", "", "NoSchedule"),)),
}


def ami_architecture(ami_type: Any) -> str | None:
    """The architecture an AMI type's nodes run (AL2023_ARM_64_STANDARD, BOTTLEROCKET_ARM_64, ...), None for
    CUSTOM or none (the instance types' own)."""
    if not isinstance(ami_type, str) or ami_type == "CUSTOM":
        return None
    return "arm64" if "ARM_64" in ami_type else "x86_64"


def ami_os(ami_type: Any, launch_template: Any = None) -> str | None:
    """The operating system an AMI type's nodes run: the WINDOWS_* types are Windows Server (CreateNodegroup,
    amiType: WINDOWS_CORE_2019_x86_64, WINDOWS_FULL_2022_x86_64, ...), every other named type Amazon Linux or
    Bottlerocket, and none the default, Amazon Linux, unless a launch template may name an AMI of its own ("If your
    launch template uses a custom AMI, then don't specify amiType"); None when the AMI decides (CUSTOM, a launch
    template's) or the type is not known yet."""
    if ami_type is None:
        return LINUX if launch_template is None else None
    if not isinstance(ami_type, str) or ami_type == "CUSTOM":
        return None
    return system(ami_type.startswith("WINDOWS_"), ami_type)


def accelerated(ami_type: Any) -> bool | None:
    """Whether an AMI type's nodes advertise their NVIDIA GPUs: the accelerated types install NVIDIA's driver and
    device plugin (AL2_x86_64_GPU, AL2023_*_NVIDIA, BOTTLEROCKET_*_NVIDIA: docs.aws.amazon.com/eks/latest/userguide/
    ml-eks-optimized-ami.html, CreateNodegroup's amiType); the others (STANDARD, NEURON, Windows) do not. None when the
    AMI decides (CUSTOM), EKS picks it (none given) or it is not known yet."""
    if not isinstance(ami_type, str) or ami_type == "CUSTOM":
        return None
    return "NVIDIA" in ami_type or ami_type.endswith("_GPU")


def without_gpus(options: tuple[Option, ...], ami_type: str) -> tuple[Option, ...]:
    """The machines of a group whose AMI type installs no NVIDIA driver: their nodes advertise no nvidia.com/gpu."""
    found = []
    for option in options:
        hardware = option.hardware
        if hardware.capacity.get(NVIDIA, Decimal(0)) > 0:
            hardware = replace(hardware, capacity={**hardware.capacity, NVIDIA: Decimal(0)}, driverless=ami_type)
        found.append(replace(option, hardware=hardware))
    return tuple(found)


# A node's Pod slots under the VPC CNI (docs.aws.amazon.com/eks/latest/userguide/choosing-instance-type.html, "Amazon
# EKS recommended maximum Pods" and "How maxPods is determined"; awslabs/amazon-eks-ami's max-pods calculator): ENIs x
# (IPv4 addresses per ENI - 1) + 2, and with prefix delegation each of those addresses is a /28 prefix of 16
# (cni-increase-ip-addresses.html). A managed node group on EKS's own AMI caps it at 110 on machines of fewer than 30
# vCPUs and 250 on the rest, and where it has several instance types the smallest maximum is every node's.
PREFIX_ADDRESSES = 16
SMALL_MACHINE_CAP, LARGE_MACHINE_CAP, LARGE_MACHINE_VCPUS = 110, 250, 30


def managed_ami(ami_type: Any, launch_template: Any) -> bool:
    """A managed group runs EKS's own AMI: an AMI type other than CUSTOM, or none and no launch template (which may
    name an AMI of its own)."""
    return (isinstance(ami_type, str) and ami_type != "CUSTOM") or (ami_type is None and launch_template is None)


def pod_slots(options: tuple[Option, ...], prefix: bool, managed: bool) -> tuple[Option, ...]:
    """Each machine's maxPods as EKS gives it (``prefix``: the VPC CNI assigns prefixes; ``managed``: a managed node
    group on EKS's AMI), with its arithmetic; unchanged where a machine's ENIs are not in EKS's table."""
    counted: list[tuple[int, str]] = []
    for option in options:
        machine, name = option.hardware.machine, option.hardware.name
        if machine is None or machine.enis is None or machine.ipv4_per_eni is None:
            return options
        raw = machine.enis * (machine.ipv4_per_eni - 1) * (PREFIX_ADDRESSES if prefix else 1) + 2
        count, why = raw, f"EKS's maximum for {name}"
        if prefix:
            why = f"{why} with prefix delegation" if is_secret(name) else (
                f"{why} with prefix delegation: {machine.enis} ENIs x ({machine.ipv4_per_eni} - 1) addresses x "
                f"{PREFIX_ADDRESSES} + 2 = {raw}")
        if managed and machine.vcpus is not None:
            cap = SMALL_MACHINE_CAP if machine.vcpus < LARGE_MACHINE_VCPUS else LARGE_MACHINE_CAP
            if raw > cap:
                count = cap
                why = f"{why}, which a managed node group caps at {cap}" if is_secret(name) else \
                    f"{why}, which a managed node group caps at {cap} on {machine.vcpus} vCPUs"
        counted.append((count, why))
    if managed and len(counted) > 1:
        least = min(counted, key=lambda item: item[0])
        counted = [(least[0], f"{least[1]}, the least of its instance types', which EKS gives every node")] * len(
            counted)
    return tuple(replace(option, hardware=replace(option.hardware, max_pods=count, max_pods_why=why))
                 for option, (count, why) in zip(options, counted, strict=True))


# The VPC CNI settings that change how many addresses a node takes of its subnet (aws/amazon-vpc-cni-k8s README,
# "Configuration"; docs/eni-and-ip-target.md): warm and minimum targets, and custom networking, whose Pods take their
# addresses from other subnets. By default (WARM_ENI_TARGET 1) a node takes its first network interface's every
# address when it starts; with prefix delegation (WARM_PREFIX_TARGET 1) its primary address and one /28.
WARM_SETTINGS = ("WARM_IP_TARGET", "MINIMUM_IP_TARGET", "WARM_ENI_TARGET", "WARM_PREFIX_TARGET",
                 "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG")


@dataclass(frozen=True)
class VpcCni:
    """What a cluster's vpc-cni add-on sets that the pack reads."""

    prefix: bool = False  # ENABLE_PREFIX_DELEGATION
    settings: tuple[str, ...] = ()  # WARM_SETTINGS it sets


def vpc_cni(addon: StackResource) -> VpcCni | Unknown | None:
    """What a vpc-cni add-on's configurationValues set (``env``: docs.aws.amazon.com/eks/latest/userguide/
    cni-increase-ip-addresses-procedure.html); None for another add-on."""
    if child(addon.props, "addonName") != VPC_CNI:
        return None
    values = child(addon.props, "configurationValues")
    if isinstance(values, Unknown):
        return values
    try:
        document = json.loads(values) if isinstance(values, str) and values else {}
    except ValueError:
        document = None  # YAML, which the add-on also takes (DescribeAddonConfiguration)
    if document is None:
        try:
            document = yaml.safe_load(values)
        except yaml.YAMLError:
            return undetermined(f"the configurationValues of vpc-cni add-on '{addon.name}' cannot be read")
    env = document.get("env") if is_mapping(document) else None
    env = env if is_mapping(env) else {}
    value = env.get("ENABLE_PREFIX_DELEGATION")
    return VpcCni(value is True or (isinstance(value, str) and value.lower() == "true"),
                  tuple(key for key in WARM_SETTINGS if env.get(key) not in (None, "")))


def prefixed(pools: list[Pool], context: Context) -> list[Pool]:
    """An EKS pool once it has joined its cluster, by its cluster's vpc-cni add-on (its clusterName's value or
    dependency): a managed node group's Pod slots with prefix delegation, and what its nodes take of their subnets."""
    addons = [(resource, value) for resource in context.resources.values() if resource.type == ADDON
              and (value := vpc_cni(resource)) is not None] if pools else []
    if not addons:
        return pools
    settled = []
    for pool in pools:
        found: VpcCni | Unknown = VpcCni()
        for resource, given in addons:
            named = child(resource.props, "clusterName")
            if pool.cluster.key in resource.depends("clusterName") or (
                    isinstance(named, str) and named == pool.cluster.name and not pool.cluster.declared) or (
                    isinstance(named, str) and pool.cluster.declared and named in _names(pool, context)):
                found = given
        if isinstance(found, Unknown):
            settled.append(replace(pool, unknown=pool.unknown or found))
            continue
        if found.settings and pool.network is not None:
            pool = replace(pool, network=replace(pool.network, unread=f"its cluster's vpc-cni add-on sets "
                                                                      f"{listed(found.settings)}"))
        if found.prefix and pool.kind == "NodeGroup":
            managed = managed_ami(pool.ami_type, pool.launch_template)
            pool = replace(pool, options=pod_slots(pool.options, True, managed))
        settled.append(replace(pool, prefix_delegation=found.prefix) if found.prefix else pool)
    return settled


# Address space (SPEC 20): a node takes its first network interface's addresses of its subnet when it starts, or,
# with prefix delegation, its primary address and a /28 (above); AWS keeps 5 addresses of every subnet
# (sources/common.py SUBNETS). Each node is in one of its group's subnets.
PREFIX_START = 1 + PREFIX_ADDRESSES


def addresses(pool: Pool, cluster: KubeCluster | None) -> Addresses | None:
    """What an EKS pool's nodes take of their subnets when they start."""
    network = pool.network
    if network is None or network.subnets is None:
        return None
    if isinstance(network.subnets, Unknown):
        return network.subnets
    if network.unread:
        return undetermined(f"{network.unread}, which decide how many addresses a node takes")
    counts = [option.hardware.machine.ipv4_per_eni for option in pool.options
              if option.hardware.machine is not None and option.hardware.machine.ipv4_per_eni is not None]
    if not pool.options or len(counts) != len(pool.options):
        return None  # a machine EKS's table does not list
    if pool.prefix_delegation:
        per, why = PREFIX_START, f"(its primary address and one /28 of {PREFIX_ADDRESSES} a node: prefix delegation)"
    else:
        per = min(counts)
        machine = next(option.hardware.name for option in pool.options
                       if option.hardware.machine is not None and option.hardware.machine.ipv4_per_eni == per)
        why = f"({machine}: every address of a node's first network interface, which the VPC CNI takes when it starts)"
    return (Draw(network.subnets, per, why, fix="larger subnets"),)


def _names(pool: Pool, context: Context) -> frozenset[str]:
    cluster = context.resources.get(pool.cluster.key)
    declared = child(cluster.props, "name") if cluster is not None else None
    return frozenset({declared}) if isinstance(declared, str) else frozenset()


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


def parse_node_group(resource: StackResource, context: Context | None = None) -> Pool:
    props = resource.props
    declared = child(props, "nodeGroupName")
    pool_name = declared if isinstance(declared, str) else resource.name
    zones = subnet_zones(resource, "subnetIds", context.resources) if context is not None else None
    labels = base_labels(NODE_GROUP_LABEL, declared, zones)
    if isinstance(zones, Unknown):
        labels.update(dict.fromkeys(ZONE_KEYS, ANY))
    capacity = child(props, "capacityType")
    labels["eks.amazonaws.com/capacityType"] = frozenset({capacity}) if isinstance(capacity, str) else \
        frozenset({"ON_DEMAND"}) if capacity is None else ANY  # CreateNodegroup: capacityType defaults to ON_DEMAND
    late = add_labels(labels, child(props, "labels"))
    names = instance_types(props)
    found_taints = taints(child(props, "taints"), lambda item: object_taint(item, API_EFFECTS))
    ami = child(props, "amiType")
    set_os(labels, ami_os(ami, child(props, "launchTemplate")))
    late = late or (found_taints if isinstance(found_taints, Unknown) else None)
    unknown = next((value for value in (names, ami) if isinstance(value, Unknown)), None)
    if names is None or found_taints is None:
        unknown = unknown or undetermined(f"node group '{pool_name}' has instance types or taints its schema refuses")
    architecture = ami_architecture(ami)  # the AMI's is the nodes' (a machine of the other cannot join)
    scaling = child(props, "scalingConfig")
    options = machines_of("aws", names, architecture)
    if accelerated(ami) is False:
        options = without_gpus(options, ami)
    options = pod_slots(options, False, managed_ami(ami, child(props, "launchTemplate")))
    return Pool("NodeGroup", resource.urn, pool_name, platform="aws", options=options, version=_version(props),
                labels=labels, taints=found_taints if isinstance(found_taints, tuple) else (), unknown=unknown,
                labels_unknown=late,
                maybe_prefixes=MAYBE_PREFIXES, machine_keys=MACHINE_KEYS,
                min_size=size(child(scaling, "minSize")), max_size=size(child(scaling, "maxSize")),
                size_field="scalingConfig.maxSize",
                named_types=names if isinstance(names, tuple) else (), zones=zones,
                ami_type=ami if isinstance(ami, str) else None, ami_architecture=architecture,
                image=("amiType", ami) if ami is not None else None,
                launch_template=plain(child(props, "launchTemplate")),
                network=Network(subnet_spaces(child(props, "subnetIds"), resource.depends("subnetIds"),
                                              context.resources)) if context is not None else None,
                interruption=None if isinstance(capacity, Unknown) else "spot" if capacity == "SPOT" else "",
                late=unnamed(NODE_GROUP_LABEL, declared, f"NodeGroup '{pool_name}'"))


def _version(props: Any) -> Version:
    """A node group's Kubernetes version: its version, else the one its releaseVersion (an AMI release,
    ``1.31.0-20240817``) is built for, else its cluster's (the NodeGroup reference: "Defaults to EKS Cluster Kubernetes
    version")."""
    version = child(props, "version")
    if version is None and isinstance(release := child(props, "releaseVersion"), str):
        return Version("releaseVersion", release)
    return Version("version", version)


def cluster_of(resource: StackResource) -> KubeCluster:
    declared = child(resource.props, "name")
    names = frozenset({declared}) if isinstance(declared, str) and declared else frozenset()
    return KubeCluster(resource.urn, resource.name, "EKS cluster", names, platform="aws",
                       version=Version("version", child(resource.props, "version")),
                       support=child(child(resource.props, "upgradePolicy"), "supportType"),
                       endpoints=endpoints(child(resource.props, "endpoint")))


def auto_mode_pools(resource: StackResource) -> tuple[list[Pool], Unread | None]:
    """The built-in NodePools an EKS cluster's computeConfig enables (none without Auto Mode)."""
    config = child(resource.props, "computeConfig")
    enabled = child(config, "enabled")
    listed = plain(child(config, "nodePools"))
    late = next((value for value in (config, enabled, listed) if isinstance(value, Unknown)), None)
    if late is not None:
        return [], Unread(resource.urn, resource.name, "EKS cluster",
                          "has an Auto Mode computeConfig that is not known yet, so its built-in NodePools are not")
    if enabled is not True:
        return [], None
    names = [name for name in listed if isinstance(name, str)] if is_list(listed) else []
    pools = []
    for name in names:
        if name not in BUILT_IN:
            continue
        requirements, built_in_taints = BUILT_IN[name]
        pools.append(replace(nodepool(AUTO_MODE, resource.urn, name, name, list(requirements), built_in_taints,
                                      auto_mode=True, inline=True), lifetime=AUTO_MODE_BUILT_IN))
    return pools, None


# EKS Fargate (docs.aws.amazon.com/eks/latest/userguide/fargate.html, "Fargate considerations"; fargate-profile.html):
# a Pod whose namespace and labels match a Fargate profile's selector runs on a Fargate node of its own, and Fargate
# runs no privileged containers, no Pods on the host's network or with host ports, no GPUs, and no DaemonSets; a
# selector's namespace and label values may hold the wildcards * and ?. Each selector is kept with its profile's URN,
# where a finding the profile causes is reported.
FargateSelectors = tuple[tuple[str, tuple[tuple[str, str], ...], str], ...]


def fargate_selectors(profile: StackResource) -> FargateSelectors | Unknown:
    listed = plain(child(profile.props, "selectors"))
    if isinstance(listed, Unknown):
        return listed
    found = []
    for item in listed if is_list(listed) else ():
        namespace = item.get("namespace") if is_mapping(item) else None
        labels = item.get("labels") if is_mapping(item) else None
        for value in (namespace, *(labels.values() if is_mapping(labels) else ())):
            if isinstance(value, Unknown):
                return value
        if isinstance(namespace, str):
            found.append((namespace, tuple(sorted((str(key), str(value)) for key, value in labels.items()))
                          if is_mapping(labels) else (), profile.urn))
    return tuple(found)


def _wildcard(pattern: str, value: str) -> bool:
    return fnmatch.fnmatchcase(value, pattern.replace("[", "[[]"))


def on_fargate(selectors: FargateSelectors, namespace: str, labels: Mapping[str, Any]) -> tuple[str, ...]:
    """The Fargate profiles (their URNs) with a selector a Pod of this namespace and these labels matches."""
    return tuple(dict.fromkeys(
        profile for pattern, wanted, profile in selectors if _wildcard(pattern, namespace) and all(
            isinstance(labels.get(key), str) and _wildcard(value, labels[key]) for key, value in wanted)))


@dataclass(frozen=True)
class Fargate:
    """EKS Fargate's admission (platform_admission.Admission): a Pod its profiles select runs on Fargate, which runs
    no privileged containers, no Pods on the host's network or with host ports, no GPUs and no DaemonSets
    (docs.aws.amazon.com/eks/latest/userguide/fargate.html, "Fargate considerations"); a Pod no profile selects, on a
    cluster with no node group of the stack, stays Pending."""

    selectors: FargateSelectors | Unknown

    @property
    def selects(self) -> tuple[tuple[Any, str], ...] | Unknown:
        if isinstance(self.selectors, Unknown):
            return self.selectors
        return tuple(((pattern, wanted), profile) for pattern, wanted, profile in self.selectors)

    def judge(self, pod: AdmittedPod) -> Refused | Unmatched | Whichever | Unknown | None:
        namespace = pod.namespace
        for value in (self.selectors, pod.labels, namespace):
            if isinstance(value, Unknown) and not isinstance(value, Unwritten):
                return value
        if isinstance(pod.labels, Unknown) or isinstance(self.selectors, Unknown):
            return None
        if isinstance(namespace, str):
            profiles = on_fargate(self.selectors, namespace, pod.labels)
            return self._matched(pod, profiles) if profiles else self._unmatched(pod)
        if not isinstance(namespace, Unwritten):
            return None
        # its namespace is its provider's, whose name is not known yet: every namespace it may be (SPEC 14.2), each
        # selector its labels match may take it, and unless one selects every namespace, none may
        labelled = [(pattern, profile) for pattern, wanted, profile in self.selectors if all(
            isinstance(pod.labels.get(key), str) and _wildcard(value, pod.labels[key]) for key, value in wanted)]
        everywhere = tuple(dict.fromkeys(profile for pattern, profile in labelled if pattern == "*"))
        if everywhere:  # (it selects every namespace)
            return self._matched(pod, everywhere)
        refused = self._matched(pod, tuple(dict.fromkeys(profile for _, profile in labelled)), maybe=True) \
            if labelled else None
        unmatched = self._unmatched(pod)
        if not labelled or (refused is None and unmatched is None):
            return unmatched
        return Whichever(namespace, refused, unmatched, certain=refused is not None and unmatched is not None)

    @staticmethod
    def _matched(pod: AdmittedPod, profiles: tuple[str, ...], maybe: bool = False) -> Refused | None:
        reasons = fargate_refusals(pod.host, pod.kind, pod.gpus, not pod.pooled)
        matched = quoted(profile.rsplit("::", 1)[-1] for profile in profiles)
        return Refused(tuple(reasons), f"its Pods {'may ' if maybe else ''}match Fargate profile {matched}, and "
                       "Fargate does not run them", "run it on a node group (a selector its Pods do not match), or "
                       "drop what Fargate refuses") if reasons else None

    @staticmethod
    def _unmatched(pod: AdmittedPod) -> Unmatched | None:
        return None if pod.pooled else Unmatched(
            "Fargate profile", "the cluster has no node group in the stack: no node ever runs them, and they stay "
            "Pending", "add a Fargate profile selector for them, or a node group")


def fargate_refusals(host: Any, kind: str, gpus: bool, alone: bool) -> list[str]:
    """Why Fargate does not run a Pod it matches (HostAccess ``host``; ``alone``: its cluster has no node of its own
    to run a DaemonSet's Pods on), each as a clause."""
    found = []
    if kind == "DaemonSet" and alone:
        found.append("Fargate runs no DaemonSets, and the cluster has no node group to run it on")
    if host.privileged:
        found.append(f"Fargate runs no privileged containers ({listed(host.privileged)})")
    if host.host_network:
        found.append("Fargate runs no Pods on the host's network (hostNetwork)")
    if host.host_ports:
        found.append(f"Fargate runs no Pods with host ports ({listed(host.host_ports)})")
    if gpus:
        found.append("Fargate has no GPUs")
    return found


def read(resources: Sequence[StackResource], context: Context) -> Read:
    found = Read()
    profiles = [resource for resource in resources if resource.type == FARGATE_PROFILE]
    fargate = {urn for resource in profiles for urn in resource.depends("clusterName")}  # by its output
    fargate_names = {name for resource in profiles  # or by the name written out
                     if isinstance(name := child(resource.props, "clusterName"), str) and name}
    for resource in resources:
        if resource.type == NODE_GROUP:
            claim = Claim(resource, depends=resource.depends("clusterName"), name=child(resource.props, "clusterName"))
            found.pools.append((parse_node_group(resource, context), claim))
        elif resource.type == CLUSTER:
            cluster = cluster_of(resource)
            pools, unread = auto_mode_pools(resource)
            if resource.urn in fargate or cluster.names & fargate_names:
                unread = Unread(resource.urn, resource.name, "EKS cluster",
                                "has a Fargate profile, whose Pods run on Fargate nodes no pool of the stack shows")
                selectors: list[tuple[str, tuple[tuple[str, str], ...], str]] = []
                late: Unknown | None = None
                for profile in profiles:
                    named = child(profile.props, "clusterName")
                    if resource.urn in profile.depends("clusterName") or (isinstance(named, str) and
                                                                           named in cluster.names):
                        read_selectors = fargate_selectors(profile)
                        if isinstance(read_selectors, Unknown):
                            late = late or read_selectors
                        else:
                            selectors.extend(read_selectors)
                admission = Fargate(late if late is not None else tuple(selectors))
                cluster = dataclasses.replace(cluster, admission=admission)
            if unread is not None:  # nodes no pool of the stack shows: "no pool can run it" is not certain there
                cluster = dataclasses.replace(cluster, pools_known=False)
            found.clusters.append(cluster)
            found.pools.extend((pool, Claim(resource, inline=resource.urn)) for pool in pools)
            if unread is not None:
                found.unread.append(unread)
    return found


# What replaces them: the inputs the Terraform AWS provider that pulumi-aws (v6, v7) bridges marks ForceNew
# (hashicorp/terraform-provider-aws internal/service/eks/node_group.go and cluster.go); the rest (version,
# releaseVersion, a launch template's version, labels, taints, scalingConfig) update them in place. pulumi-aws names a
# node group and a cluster the program names none (provider/resources.go: tfbridge.AutoName("nodeGroupName") and the
# cluster's name), so a replacement gets a new name unless the program set one.
REPLACES = {
    NODE_GROUP: Replacing(("amiType", "capacityType", "clusterName", "diskSize", "instanceTypes", "launchTemplate.id",
                           "launchTemplate.name", "nodeGroupName", "nodeGroupNamePrefix", "nodeRoleArn",
                           "remoteAccess", "subnetIds"), "nodeGroupName", "nodeGroupNamePrefix",
                          provider="the AWS provider"),
    CLUSTER: Replacing(("name", "roleArn", "bootstrapSelfManagedAddons",
                        "accessConfig.bootstrapClusterCreatorAdminPermissions", "kubernetesNetworkConfig.ipFamily",
                        "kubernetesNetworkConfig.serviceIpv4Cidr", "outpostConfig.controlPlaneInstanceType",
                        "remoteNetworkConfig"), "name", whole_cluster=True, provider="the AWS provider"),
}

SOURCES = (Source("EKS managed node group and cluster", (NODE_GROUP, CLUSTER, FARGATE_PROFILE), read,
                  settle=prefixed, remember=checked_inputs, replaces=REPLACES, addresses=addresses),)
