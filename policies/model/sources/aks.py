"""AKS: node pools (``azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool`` of pulumi-azure,
``azure-native:containerservice:AgentPool`` of pulumi-azure-native), and the clusters with their inline pools
(``azure-native:containerservice:ManagedCluster``'s ``agentPoolProfiles``, pulumi-azure's
``azure:containerservice/kubernetesCluster:KubernetesCluster``'s ``defaultNodePool``). One
:class:`~policies.model.pool.Pool` per pool.

From AKS's documentation (learn.microsoft.com/azure/aks/use-node-taints, .../use-labels, .../create-node-pools,
.../use-system-pools):

* its machine is ``vmSize``, its nodes run the machine's architecture;
* its nodes carry ``nodeLabels``, ``kubernetes.azure.com/agentpool=<name>``, ``kubernetes.io/os`` of its
  ``osType`` (Linux unless Windows) and the well-known labels; other ``kubernetes.azure.com/`` labels may be there
  with values the pack does not model;
* its taints are ``nodeTaints``, each ``key=value:Effect`` as kubectl writes it; a classic default pool with
  ``onlyCriticalAddonsEnabled`` is tainted ``CriticalAddonsOnly=true:NoSchedule`` (use-system-pools, "System and
  user node pools": "--node-taints CriticalAddonsOnly=true:NoSchedule");
* ``maxPods`` is the kubelet's maxPods (default: the network plugin's, policies/model/nodes.py);
* its size is ``maxCount`` when it autoscales, else its count; its zones ``availabilityZones`` (native) or ``zones``
  (classic), whose nodes are labelled ``<region>-<zone>`` (.../availability-zones, "Verify node distribution").

Every AKS cluster has a system pool (use-system-pools): a pool of a cluster the stack does not declare is never its
cluster's only one.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...platforms.managed import AKS_MAX_PODS
from ..addresses import Addresses, Draw, Network, Space, space_of
from ..clusters import Claim, KubeCluster, endpoints
from ..labels import ARCH, LINUX, MACHINE_KEYS, OS, WINDOWS, ZONE_KEYS
from ..platform_admission import AdmittedPod, Refused, Unmatched
from ..pool import ClusterRef, Lifetime, Pool
from ..resources import StackResource
from ..scheduling import Taint
from ..values import Unknown, as_int, child, derived, is_list, undetermined
from ..values import read as read_value
from ..versions import Version
from . import Context, Read, Replacing, Source, Unread, checked_inputs
from .common import (
    AZURE_MAYBE,
    EVERY_MAYBE,
    add_labels,
    base_labels,
    machines_of,
    set_os,
    size,
    subnet_spaces,
    system,
    taints,
    unnamed,
    zones_of,
)
from .karpenter import nodepool

CLASSIC = "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool"
NATIVE = "azure-native:containerservice:AgentPool"
MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
CLASSIC_CLUSTER = "azure:containerservice/kubernetesCluster:KubernetesCluster"
AGENT_POOL_LABEL = "kubernetes.azure.com/agentpool"
MAYBE_PREFIXES = (*AZURE_MAYBE, *EVERY_MAYBE)
LEGACY_POOL_LABEL = "agentpool"  # every AKS node also carries agentpool=<pool name> (real nodes: tests/nodes/)
CRITICAL_ADDONS_ONLY = Taint("CriticalAddonsOnly", "true", "NoSchedule")
# A Spot pool's nodes: AKS labels and taints them kubernetes.azure.com/scalesetpriority=spot (NoSchedule), so that
# only Pods that tolerate eviction land there (learn.microsoft.com/azure/aks/spot-node-pool, "Before you begin": "the
# spot node pool ... has the taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule" and the label
# kubernetes.azure.com/scalesetpriority=spot; pulumi-azure's KubernetesClusterNodePool.priority asks for both to be
# written too, as AKS sets them). The priority is scaleSetPriority (azure-native) or priority (pulumi-azure).
SPOT_KEY = "kubernetes.azure.com/scalesetpriority"
SPOT_TAINT = Taint(SPOT_KEY, "spot", "NoSchedule")
_TAINT = re.compile(r"^([^=:\s]+)(?:=([^:\s]*))?:(NoSchedule|NoExecute|PreferNoSchedule)$")


def pool_os(os_type: Any, sku: Any) -> str | None:
    """The operating system of an AKS pool's nodes: ``osType`` (Linux or Windows; "The default is Linux"), else the one
    its ``osSKU`` names (Windows2019, Windows2022 are Windows; Ubuntu, AzureLinux, CBLMariner are Linux: the
    AgentPool reference, learn.microsoft.com/rest/api/aks/agent-pools, OSType and OSSKU); None when not known yet."""
    if isinstance(os_type, str):
        return derived(os_type.lower(), os_type)
    if os_type is not None or isinstance(sku, Unknown):
        return None
    if isinstance(sku, str):
        return system(sku.lower().startswith("windows"), sku)
    return LINUX


def read_taint(item: Any) -> Taint | Unknown | None:
    """One taint as AKS writes it: key=value:NoSchedule."""
    if isinstance(item, Unknown):
        return item
    match = _TAINT.match(item) if isinstance(item, str) else None
    if match is None:
        return None
    # the parts of a secret taint are secret (the regular expression's groups are plain str)
    return Taint(derived(match.group(1), item), derived(match.group(2) or "", item), derived(match.group(3), item))


# A pool's maxPods when it sets none: its cluster's network plugin's default (learn.microsoft.com/azure/aks/
# concepts-network-legacy-cni, "Maximum pods per node": Azure CNI node subnet 30, kubenet 110;
# .../concepts-network-azure-cni-overlay: Azure CNI Overlay 250). A cluster that names no plugin, or a pool with a pod
# subnet of its own (Azure CNI pod subnet), keeps the pack's default (policies/platforms/managed.py AKS_MAX_PODS).
NODE_SUBNET_MAX_PODS = 30
KUBENET_MAX_PODS = 110


def network_max_pods(profile: Any) -> int | Unknown | None:
    """The maxPods of a cluster's pools that set none, by its networkProfile (networkPlugin, networkPluginMode: the
    same keys in the native and classic providers, plugin_of); None when the pack's default stands."""
    plugin = plugin_of(profile)
    if isinstance(plugin, Unknown):
        return plugin
    return KUBENET_MAX_PODS if plugin == "kubenet" else NODE_SUBNET_MAX_PODS if plugin == "azure" else None


# Address space (SPEC 20). Azure CNI (node subnet) gives a node an address for each of its maxPods when the node
# starts, and AKS sizes the node subnet for (nodes + maxSurge) x (maxPods + 1) (learn.microsoft.com/azure/aks/
# concepts-network-legacy-cni, "Plan IP addressing": "(number of nodes + 1) + ((number of nodes + 1) * maximum pods per
# node)"); with a pod subnet, or with Azure CNI Overlay or kubenet, a node takes one address of it, and overlay and
# kubenet give every node a /24 of the cluster's podCidr (default 10.244.0.0/16: concepts-network-azure-cni-overlay,
# "IP address planning"; configure-kubenet). maxSurge: a count or a percentage of the pool, rounded up; unset, AKS's
# default surges at least one node (the AgentPoolUpgradeSettings reference: 1, and 10% on newer API versions).
DEFAULT_POD_CIDR = "10.244.0.0/16"
NODE_BLOCK = 256  # a /24 a node


def _surge(props: Any, most: Any) -> tuple[int, str]:
    setting = child(child(props, "upgradeSettings"), "maxSurge")
    if isinstance(setting, str) and setting.strip().endswith("%") and setting.strip()[:-1].isdigit() \
            and isinstance(most, int):
        share = int(setting.strip()[:-1])
        nodes = -(-most * share // 100)
        return nodes, f"maxSurge {setting} of {most}, rounded up"
    if isinstance(setting, str) and setting.strip().isdigit():
        return int(setting.strip()), f"maxSurge {setting.strip()}"
    if setting is None:
        return 1, "AKS's default maxSurge"
    return 0, ""  # not known yet, or not one AKS takes: no surge counted


# A pod subnet in StaticBlock mode gives each node ceil(maxPods / 16) /28 blocks of it (the AKS API's
# PodIPAllocationMode: "Each node is statically allocated CIDR block(s) of size /28 = 16 IPs per block to satisfy the
# maxPods per node"); in DynamicIndividual mode, the default, addresses come as Pods need them: not counted.
STATIC_BLOCK = 16


def _network(props: Any, native: bool, most: Any, depends: tuple[str, ...], resources: Mapping[str, Any],
             pod_depends: tuple[str, ...] = ()) -> Network:
    surge, why = _surge(props, most)
    pod_subnet = child(props, "podSubnetID" if native else "podSubnetId")
    mode = child(props, "podIPAllocationMode")
    static = isinstance(mode, str) and mode.lower() == "staticblock"
    return Network(subnet_spaces(child(props, "vnetSubnetID" if native else "vnetSubnetId"), depends, resources),
                   pod_subnet=pod_subnet is not None,
                   pods=subnet_spaces(pod_subnet, pod_depends or depends, resources) if static else None,
                   surge=surge, surge_why=why)


def pod_range(profile: Any, plugin: str | Unknown | None, cluster: str) -> Space | Unknown | None:
    """The range an overlay or kubenet cluster gives each node a /24 of: its podCidr, else AKS's default."""
    if plugin not in ("overlay", "kubenet"):
        return None
    cidr = child(profile, "podCidr")
    return space_of(f"{cluster}#podCidr", f"the podCidr of AKS cluster '{cluster}'",
                    cidr if cidr is not None else DEFAULT_POD_CIDR, default=cidr is None)


def plugin_of(profile: Any) -> str | Unknown | None:
    """How a cluster's Pods get addresses: "azure" (from the node subnet), "overlay", "kubenet", another plugin's
    name, or None when its networkProfile names none."""
    if isinstance(profile, Unknown):
        return profile
    plugin, mode = child(profile, "networkPlugin"), child(profile, "networkPluginMode")
    for value in (plugin, mode):
        if isinstance(value, Unknown):
            return value
    plugin = plugin.lower() if isinstance(plugin, str) else None
    if plugin == "azure" and isinstance(mode, str) and mode.lower() == "overlay":
        return "overlay"
    return plugin


def addresses(pool: Pool, cluster: KubeCluster | None) -> Addresses | None:
    """What an AKS pool's nodes take of its node subnet, and of its cluster's Pod range (overlay, kubenet)."""
    network = pool.network
    if network is None:
        return None
    plugin = cluster.plugin if cluster is not None else None
    found = []
    subnets = network.subnets
    if isinstance(subnets, Unknown):
        return subnets
    if subnets:
        if network.pod_subnet:
            per, why = 1, "(one a node: its Pods take theirs from its pod subnet)"
        elif isinstance(plugin, Unknown):
            return plugin
        elif plugin == "azure":
            most = as_int(pool.kubelet.get("maxPods")) or NODE_SUBNET_MAX_PODS
            per = most + 1
            why = f"(maxPods {most} + 1 a node: Azure CNI gives a node its Pods' addresses when it starts)"
        else:
            per, why = 1, "(one a node: its Pods' addresses are not the subnet's)"
        found.append(Draw(subnets, per, why, network.surge, network.surge_why,
                          "a larger subnet, a lower maxPods, or Azure CNI Overlay (a node then takes one address)"
                          if per > 1 else "a larger subnet"))
    blocks = network.pods
    if isinstance(blocks, Unknown):
        return blocks
    if blocks:
        most = as_int(pool.kubelet.get("maxPods")) or AKS_MAX_PODS
        count = -(-most // STATIC_BLOCK)
        found.append(Draw(blocks, count * STATIC_BLOCK, f"(ceil(maxPods {most} / {STATIC_BLOCK}) = {count} /28 "
                                                        "blocks a node: its pod subnet's StaticBlock allocation)",
                          fix="a larger pod subnet, or a lower maxPods"))
    pods = cluster.pod_range if cluster is not None else None
    if isinstance(pods, Unknown):
        return pods
    if pods is not None:
        found.append(Draw((pods,), NODE_BLOCK, "(a /24 a node)", network.surge, network.surge_why,
                          "a larger podCidr"))
    return tuple(found)


def agent_pool(kind: str, urn: str, props: Any, name_key: str, fallback: str, *, native: bool,
               location: Any = None, critical_only: Any = None, inline: bool = False,
               network: int | Unknown | None = None, depends: tuple[str, ...] = (),
               resources: Mapping[str, Any] | None = None, pod_depends: tuple[str, ...] = ()) -> Pool:
    """One AKS pool from its fields (a pool resource's props, an agentPoolProfiles entry, a defaultNodePool:
    ``inline``, one of the pools its cluster declares); ``network``: its cluster's default maxPods (network_max_pods),
    which a pool of a cluster resource of its own takes when it joins it (policies/model/stack.py)."""
    declared = child(props, name_key)
    pool_name = declared if isinstance(declared, str) else fallback
    written = zones_of(child(props, "availabilityZones" if native else "zones"))
    zones = tuple(f"{location}-{zone}" for zone in written) if isinstance(written, tuple) \
        and isinstance(location, str) else written
    labels = base_labels(AGENT_POOL_LABEL, declared, zones if isinstance(location, str) else None)
    labels[LEGACY_POOL_LABEL] = labels[AGENT_POOL_LABEL]
    os_type = child(props, "osType")
    sku = child(props, "osSku" if not native else "osSKU")
    if os_type is None and isinstance(sku, Unknown):
        os_type = sku
    set_os(labels, pool_os(os_type, sku))
    late = add_labels(labels, child(props, "nodeLabels"))
    size_name = child(props, "vmSize")
    names = size_name if isinstance(size_name, Unknown) else (size_name,) if isinstance(size_name, str) else None
    found_taints = taints(child(props, "nodeTaints"), read_taint)
    max_pods = child(props, "maxPods")
    if max_pods is None:  # a pod subnet of its own: the pack's default, never its cluster's network's
        max_pods = network if child(props, "podSubnetID" if native else "podSubnetId") is None else AKS_MAX_PODS
    unknown = next((value for value in (names, max_pods, zones) if isinstance(value, Unknown)), None)
    for value in (found_taints, os_type, critical_only):  # what the machines decide still holds
        if isinstance(value, Unknown):
            late = late or value
    if found_taints is None:
        unknown = unknown or undetermined(f"node pool '{pool_name}' has taints its schema refuses")
    own_taints = list(found_taints) if isinstance(found_taints, tuple) else []
    if critical_only is True:
        own_taints.append(CRITICAL_ADDONS_ONLY)
    priority = child(props, "scaleSetPriority" if native else "priority")
    if isinstance(priority, str) and priority.lower() == "spot":
        labels[SPOT_KEY] = frozenset({"spot"})
        if SPOT_TAINT not in own_taints:
            own_taints.append(SPOT_TAINT)
    elif isinstance(priority, Unknown):
        late = late or priority  # a Spot pool's taint would keep Pods off it
    kubelet = {"maxPods": as_int(max_pods)} if as_int(max_pods) else {}
    # a pool of regular priority: its nodes carry no Spot label (AKS labels Spot nodes only)
    absent = frozenset({SPOT_KEY}) if SPOT_KEY not in labels and not isinstance(priority, Unknown) else frozenset()
    most = _max_size(props, native)
    return Pool(kind, urn, pool_name, platform="azure", options=machines_of("azure", names), labels=labels,
                network=_network(props, native, most, depends, resources or {}, pod_depends),
                version=Version("orchestratorVersion", child(props, "orchestratorVersion")),
                image=("osSKU" if native else "osSku", sku) if sku is not None else None,
                taints=tuple(own_taints), unknown=unknown, labels_unknown=late, maybe_prefixes=MAYBE_PREFIXES,
                absent=absent,
                machine_keys=MACHINE_KEYS,
                kubelet=kubelet, min_size=size(child(props, "minCount")), max_size=most,
                size_field=_size_field(props, native),
                zones=zones, named_types=names if isinstance(names, tuple) else (),
                member=f"pool '{pool_name}'" if inline else "",
                interruption=None if isinstance(priority, Unknown) else "spot" if SPOT_KEY in labels
                and labels[SPOT_KEY] == frozenset({"spot"}) else "",
                late={key: reason for key in (AGENT_POOL_LABEL, LEGACY_POOL_LABEL)
                      for reason in unnamed(key, declared, f"pool '{pool_name}'").values()})


def _size_field(props: Any, native: bool) -> str:
    """The input that sets its size: maxCount when it autoscales, else its count."""
    return "maxCount" if child(props, "enableAutoScaling" if native else "autoScalingEnabled") is True else \
        "count" if native else "nodeCount"


def _max_size(props: Any, native: bool) -> int | Unknown | None:
    """maxCount when it autoscales, else its fixed count."""
    autoscales = child(props, "enableAutoScaling" if native else "autoScalingEnabled")
    if isinstance(autoscales, Unknown):
        return autoscales
    return size(child(props, "maxCount" if autoscales else "count" if native else "nodeCount"))


# Node auto-provisioning: a cluster whose nodeProvisioningProfile.mode is Auto runs Karpenter, which starts nodes of
# the VM sizes Pods need on its NodePools (learn.microsoft.com/azure/aks/node-autoprovision; the AKS ManagedCluster
# reference, NodeProvisioningProfile.mode: Auto or Manual, "If not specified, the default is Manual"; pulumi-azure's
# KubernetesCluster node_provisioning_profile.mode alike). AKS Automatic (sku.name Automatic) turns it on and manages
# it: "Node autoprovisioning" is among what every Automatic cluster runs (learn.microsoft.com/azure/aks/
# intro-aks-automatic, "AKS Automatic and Standard feature comparison").
# Its NodePools are the stack's (karpenter.py reads them over the Azure catalog) and, unless
# nodeProvisioningProfile.defaultNodePools is None, the two AKS creates ("Auto (default): Creates two standard
# NodePools"; "None: No default NodePools are created": learn.microsoft.com/azure/aks/node-autoprovision-node-pools,
# "Default node pool configuration"): "default", which requires amd64, linux, on-demand capacity and the D family (the
# page's NodePool), and "system-surge", "to autoscale system pool nodes", with the same requirements, tainted
# CriticalAddonsOnly=true:NoSchedule and labelled kubernetes.azure.com/mode=system (the system-surge.yaml of
# Azure/karpenter-provider-azure's examples, at 352646f). With them, the cluster's pools are all known, as an EKS Auto
# Mode cluster's built-in NodePools are.
NAP_KIND = "node auto-provisioning NodePool"
_NAP_REQUIREMENTS = ((ARCH, "In", ("amd64",)), (OS, "In", ("linux",)),
                     ("karpenter.sh/capacity-type", "In", ("on-demand",)),
                     ("karpenter.azure.com/sku-family", "In", ("D",)))
NAP_DEFAULTS: dict[str, tuple[tuple[Taint, ...], dict[str, str]]] = {
    "default": ((), {}),
    "system-surge": ((CRITICAL_ADDONS_ONLY,), {"kubernetes.azure.com/mode": "system"}),
}
AUTO_PROVISIONING = ("may have node auto-provisioning (nodeProvisioningProfile.mode or sku.name is not known yet), so "
                     "it may have pools the stack does not declare")
NO_DEFAULTS = ("has node auto-provisioning whose default NodePools are not known yet (nodeProvisioningProfile."
               "defaultNodePools), so it may have pools the stack does not declare")
# The nodes node auto-provisioning starts are Linux only: Karpenter's AKS provider, which it runs, lists Windows nodes
# among the AKS features it does not support (github.com/Azure/karpenter-provider-azure, README "Known limitations"),
# and every VM size it offers requires kubernetes.io/os linux (its pkg/providers/instancetype computeRequirements). A
# Pod that needs Windows nodes runs on the cluster's declared Windows pools, or nowhere.
UNPROVISIONED = ((WINDOWS, "node auto-provisioning starts no Windows nodes"),)


@dataclass(frozen=True)
class Safeguards:
    """AKS Automatic's admission (platform_admission.Admission), on every Pod of the cluster: "AKS Automatic: Deployment
    Safeguards and baseline Pod Security Standards are enabled by default in Enforce mode. You can exclude namespaces,
    but you can't switch the cluster-wide safeguard level to Warn" (learn.microsoft.com/azure/aks/deployment-safeguards,
    at MicrosoftDocs/azure-aks-docs fb060ab). The excluded namespaces are set outside the ManagedCluster (az aks
    safeguards update --excluded-ns), so the stack never shows them: a Pod baseline forbids is said, never refused."""

    selects: tuple[tuple[Any, str], ...] = ()  # every Pod: nothing of the stack selects them

    def judge(self, pod: AdmittedPod) -> Refused | Unmatched | Unknown | None:
        broken = pod.security("baseline") if pod.security is not None else []
        if isinstance(broken, Unknown) or not broken:
            return broken if isinstance(broken, Unknown) else None
        return Refused(tuple(broken), "AKS Automatic's Deployment Safeguards enforce the baseline Pod Security "
                       "Standard", "drop what baseline forbids", "its namespace may be excluded from Deployment "
                       "Safeguards (az aks safeguards update --excluded-ns), which the stack does not show")


def _provisioning(props: Any) -> bool | Unknown:
    """The cluster runs node auto-provisioning (mode Auto, or AKS Automatic); Unknown when that is not known yet."""
    mode = child(child(props, "nodeProvisioningProfile"), "mode")
    sku = child(child(props, "sku"), "name")
    if (isinstance(sku, str) and sku.lower() == "automatic") or (isinstance(mode, str) and mode.lower() == "auto"):
        return True
    for value in (mode, sku):
        if isinstance(value, Unknown):
            return value
    return False


def nap_pools(resource: StackResource, max_pods: int | Unknown | None) -> list[Pool] | Unknown:
    """The default NodePools AKS creates for node auto-provisioning on this cluster (none when it runs none, or
    defaultNodePools is None); Unknown when that is not known yet."""
    provisioning = _provisioning(resource.props)
    if provisioning is not True:
        return provisioning if isinstance(provisioning, Unknown) else []
    defaults = child(child(resource.props, "nodeProvisioningProfile"), "defaultNodePools")
    if isinstance(defaults, Unknown):
        return defaults
    if isinstance(defaults, str) and defaults.lower() == "none":
        return []
    settings = {"maxPods": max_pods} if isinstance(max_pods, int) else {}
    return [nodepool(NAP_KIND, resource.urn, name, name, list(_NAP_REQUIREMENTS), pool_taints,
                     template_labels=labels, settings=settings, inline=True, azure=True,
                     unknown=max_pods if isinstance(max_pods, Unknown) else None)
            for name, (pool_taints, labels) in NAP_DEFAULTS.items()]


def _cluster(resource: StackResource, name_key: str, found: Read, region: Any = None) -> KubeCluster:
    """The cluster resource, and (into ``found``) node auto-provisioning's default NodePools, or a note when it may add
    pools the stack lacks; its pools' default maxPods by its network plugin (KubeCluster.max_pods)."""
    declared = child(resource.props, name_key)
    names = frozenset({declared}) if isinstance(declared, str) and declared else frozenset()
    max_pods = network_max_pods(child(resource.props, "networkProfile"))
    provisioned = nap_pools(resource, max_pods)
    if isinstance(provisioned, Unknown):
        found.unread.append(Unread(resource.urn, resource.name, "AKS cluster",
                                   NO_DEFAULTS if _provisioning(resource.props) is True else AUTO_PROVISIONING))
    else:
        found.pools.extend((pool, Claim(resource, inline=resource.urn)) for pool in provisioned)
    sku = child(child(resource.props, "sku"), "name")
    return KubeCluster(resource.urn, resource.name, "AKS cluster", names, platform="azure",
                       pools_known=not isinstance(provisioned, Unknown), unprovisioned=UNPROVISIONED,
                       admission=Safeguards() if isinstance(sku, str) and sku.lower() == "automatic" else None,
                       version=Version("kubernetesVersion", child(resource.props, "kubernetesVersion"),
                                       least=_upgraded(resource.props)),
                       region=region if isinstance(region, str) else None, lifetime=_channel(resource.props),
                       max_pods=max_pods,
                       # its support plan (KubernetesOfficial, the default, or AKSLongTermSupport)
                       support=child(resource.props, "supportPlan"),
                       plugin=plugin_of(child(resource.props, "networkProfile")),
                       pod_range=pod_range(child(resource.props, "networkProfile"),
                                           plugin_of(child(resource.props, "networkProfile")), resource.name),
                       endpoints=endpoints(*(child(resource.props, key) for key in ("fqdn", "privateFQDN",
                                                                                   "privateFqdn"))))


# The upgrade channels that move a cluster to later minor versions on their own: "rapid" and "stable" (patch stays in
# the minor, node-image upgrades node images only): learn.microsoft.com/azure/aks/auto-upgrade-cluster, "Cluster
# auto-upgrade channels". azure-native's autoUpgradeProfile.upgradeChannel; pulumi-azure's automaticUpgradeChannel
# (v6) and automaticChannelUpgrade (v5).
MINOR_CHANNELS = frozenset({"rapid", "stable"})


def _upgraded(props: Any) -> bool:
    """The cluster's control plane may run a later minor than its kubernetesVersion (or may: not known yet)."""
    for channel in (child(child(props, "autoUpgradeProfile"), "upgradeChannel"),
                    child(props, "automaticUpgradeChannel"), child(props, "automaticChannelUpgrade")):
        if isinstance(channel, Unknown) or (isinstance(channel, str) and channel.lower() in MINOR_CHANNELS):
            return True
    return False


# The channels that upgrade every node of the cluster on AKS's schedule, each upgrade cordoning and draining the nodes
# one surge at a time (learn.microsoft.com/azure/aks/upgrade-cluster): the cluster's upgrade channel (any but none:
# patch, stable, rapid, node-image; learn.microsoft.com/azure/aks/auto-upgrade-cluster), else the node OS channel
# NodeImage ("a new VHD ... weekly": learn.microsoft.com/azure/aks/auto-upgrade-node-os-image). A blocking budget stops
# the upgrade (platforms/managed.py drain_failure): no grace forces the Pods out. As each provider names the inputs.
UPGRADE_CHANNELS = ("autoUpgradeProfile.upgradeChannel", "automaticUpgradeChannel", "automaticChannelUpgrade")
NODE_OS_CHANNELS = ("autoUpgradeProfile.nodeOSUpgradeChannel", "nodeOsUpgradeChannel", "nodeOsChannelUpgrade")


def _channel(props: Any) -> Lifetime | None:
    """How AKS replaces the nodes of every pool of the cluster, where the cluster writes a channel that does."""
    for fields, replacing, every in ((UPGRADE_CHANNELS, ("patch", "stable", "rapid", "node-image"), "at each automatic "
                                     "upgrade ({} channel)"), (NODE_OS_CHANNELS, ("nodeimage",),
                                                               "at each weekly node image upgrade")):
        for field in fields:
            value = props
            for key in field.split("."):  # (child: a value not known yet reads as one, never raises)
                value = child(value, key)
            if isinstance(value, str) and value.lower() in replacing:
                return Lifetime(every.format(value), None, field, "AKS")
    return None


def region_of(resource: StackResource, context: Context) -> Any:
    """A cluster's region: its location, else its resource group's when the group is a resource of the stack (an
    azure-native resource without location is in its group's: learn.microsoft.com/azure/azure-resource-manager/
    management/overview, "Resource groups"), else its provider's location (the stack config azure-native:location
    or azure:location)."""
    location = child(resource.props, "location")
    if location is not None:
        return location
    for urn in resource.depends("resourceGroupName"):
        group = context.resources.get(urn)
        if group is not None and group.type.endswith(("resources:ResourceGroup", "resourceGroup:ResourceGroup")):
            return child(group.props, "location")
    provider = context.resources.get(resource.provider or "")
    return child(provider.props, "location") if provider is not None else None


def read(resources: Sequence[StackResource], context: Context) -> Read:
    found = Read()
    for resource in resources:
        props = resource.props
        if resource.type == NATIVE:
            pool = agent_pool("AgentPool", resource.urn, props, "agentPoolName", resource.name, native=True,
                              depends=resource.depends("vnetSubnetID"), resources=context.resources,
                              pod_depends=resource.depends("podSubnetID"))
            found.pools.append((pool, Claim(resource, depends=resource.depends("resourceName"),
                                            name=child(props, "resourceName"))))
        elif resource.type == CLASSIC:
            pool = agent_pool("KubernetesClusterNodePool", resource.urn, props, "name", resource.name, native=False,
                              depends=resource.depends("vnetSubnetId"), resources=context.resources,
                              pod_depends=resource.depends("podSubnetId"))
            found.pools.append((pool, Claim(resource, depends=resource.depends("kubernetesClusterId"),
                                            name=child(props, "kubernetesClusterId"))))
        elif resource.type == MANAGED_CLUSTER:
            region = region_of(resource, context)
            found.clusters.append(_cluster(resource, "resourceName", found, region))
            listed = child(props, "agentPoolProfiles")
            claim = Claim(resource, inline=resource.urn)
            if isinstance(listed, Unknown):
                found.unread.append(Unread(resource.urn, resource.name, "AKS cluster",
                                           "has agentPoolProfiles that are not known yet"))
                continue
            for index in range(len(listed)) if is_list(listed) else ():
                entry = read_value(listed, index)
                if isinstance(entry, Unknown):
                    found.unread.append(Unread(resource.urn, resource.name, "AKS cluster",
                                               f"has agentPoolProfiles[{index}], which is not known yet"))
                    continue
                found.pools.append((agent_pool("ManagedCluster", resource.urn, entry, "name",
                                               f"agentPoolProfiles[{index}]", native=True,
                                               location=region, inline=True, network=found.clusters[-1].max_pods,
                                               depends=resource.depends("agentPoolProfiles"),
                                               resources=context.resources),
                                    claim))
        else:
            region = region_of(resource, context)
            found.clusters.append(_cluster(resource, "name", found, region))
            default = child(props, "defaultNodePool")
            if isinstance(default, Unknown):
                found.unread.append(Unread(resource.urn, resource.name, "AKS cluster",
                                           "has a defaultNodePool that is not known yet"))
                continue
            if default is not None:
                found.pools.append((agent_pool("KubernetesCluster", resource.urn, default, "name", "defaultNodePool",
                                               native=False, location=region,
                                               critical_only=child(default, "onlyCriticalAddonsEnabled"),
                                               inline=True, network=found.clusters[-1].max_pods,
                                               depends=resource.depends("defaultNodePool"),
                                               resources=context.resources),
                                    Claim(resource, inline=resource.urn)))
    return found


# What replaces them. pulumi-azure-native (v2, v3) replaces an AgentPool on vmSize, gpuInstanceProfile and
# networkProfile.nodePublicIPTags and a ManagedCluster on the inputs of its provider/pkg/gen forceNewMap (and on the
# path's names); since pulumi/pulumi-azure-native#2774 it updates a ManagedCluster's agentPoolProfiles in place, where
# AKS refuses a vmSize change ("You can't change the VM size of a node pool after you create it":
# learn.microsoft.com/azure/aks/manage-node-pools, "Limitations"). pulumi-azure (v6) bridges the Terraform azurerm
# provider 4.x (internal/services/containers/kubernetes_cluster_node_pool_resource.go, kubernetes_cluster_resource.go,
# kubernetes_nodepool.go): its ForceNew inputs replace the resource; vmSize, zones, maxPods, the OS disk, the subnets
# and kubelet settings are changed by rotating the pool through a temporary one named by temporaryNameForRotation,
# and without it "`temporary_name_for_rotation` must be specified when updating any of the following properties".
AKS_REFUSAL = ("AKS does not change a node pool's VM size in place (learn.microsoft.com/azure/aks/manage-node-pools, "
               "\"Limitations\"), and pulumi-azure-native updates the cluster's agentPoolProfiles in place, so the "
               "update fails")
ROTATED = ("fipsEnabled", "hostEncryptionEnabled", "kubeletConfig", "kubeletDiskType", "linuxOsConfig", "maxPods",
           "nodePublicIpEnabled", "osDiskSizeGb", "osDiskType", "podSubnetId", "snapshotId", "ultraSsdEnabled",
           "vmSize", "vnetSubnetId", "zones")
def native_deletes_first(rule: Replacing, new: Any, old: Mapping[str, Any], resource_name: str) -> bool:
    """Whether pulumi-azure-native deletes a resource before creating its replacement: always, unless its Check named
    the resource itself with a random name, which it records as ``__createBeforeDelete: true`` in the inputs the state
    keeps (pulumi-azure-native provider/pkg/provider/provider.go: Diff's ``deleteBeforeReplace := len(replaces) > 0``,
    then ``!__createBeforeDelete`` of the old inputs; applyDefaults sets the flag). The engine never sends that key to
    a pack: it is read from the previous deployment (``old``)."""
    return old.get("__createBeforeDelete") is not True


# (Whether the provider's own name for an AgentPool is a random one is in its metadata, which the pack does not hold:
# no fix here tells a program to leave the name unset.)
# a name azure-native did not make up at random: the program's, or a child resource's own name (its auto-name copies
# it: pulumi/pulumi-azure-native#519)
NATIVE_FIXED = "is not one the provider made up"
NATIVE_FIRST = ("the old pool is deleted first (pulumi-azure-native deletes a resource before replacing it unless it "
                "named the resource itself)")
REPLACES = {
    NATIVE: Replacing(("resourceGroupName", "resourceName", "agentPoolName", "vmSize", "gpuInstanceProfile",
                       "networkProfile.nodePublicIPTags"), "agentPoolName", provider="the Azure Native provider",
                      deletes_first=native_deletes_first, first_why=NATIVE_FIRST, unset_names_anew=False,
                      fixed_words=NATIVE_FIXED),
    MANAGED_CLUSTER: Replacing(("resourceGroupName", "resourceName", "location", "dnsPrefix", "fqdnSubdomain",
                                "linuxProfile", "windowsProfile", "nodeResourceGroup", "diskEncryptionSetID",
                                *(f"networkProfile.{key}" for key in (
                                    "serviceCidr", "serviceCidrs", "podCidrs", "dnsServiceIP", "networkMode",
                                    "networkPlugin", "networkPluginMode", "podCidr", "networkDataplane",
                                    "networkPolicy", "outboundType", "ipFamilies"))),
                               "resourceName", whole_cluster=True, provider="the Azure Native provider",
                               refused=("agentPoolProfiles[].vmSize",), refusal=AKS_REFUSAL,
                               deletes_first=native_deletes_first, first_why=NATIVE_FIRST, unset_names_anew=False,
                               fixed_words=NATIVE_FIXED),
    CLASSIC: Replacing(("name", "kubernetesClusterId", "capacityReservationGroupId", "evictionPolicy", "gpuDriver",
                        "gpuInstance", "hostGroupId", "nodePublicIpPrefixId", "osType", "priority",
                        "proximityPlacementGroupId", "spotMaxPrice", "windowsProfile"), "name",
                       provider="the Azure provider", rotated=ROTATED, rotation="temporaryNameForRotation"),
    CLASSIC_CLUSTER: Replacing(("name", "location", "resourceGroupName", "diskEncryptionSetId", "dnsPrefix",
                                "dnsPrefixPrivateCluster", "kubeletIdentity", "linuxProfile.adminUsername",
                                "nodeResourceGroup", "privateClusterEnabled", "privateDnsZoneId",
                                "roleBasedAccessControlEnabled", "windowsProfile.adminUsername",
                                *(f"networkProfile.{key}" for key in (
                                    "dnsServiceIp", "ipVersions", "loadBalancerSku", "networkMode", "serviceCidr",
                                    "serviceCidrs")),
                                *(f"defaultNodePool.{key}" for key in (
                                    "capacityReservationGroupId", "hostGroupId", "nodePublicIpPrefixId",
                                    "proximityPlacementGroupId", "type"))),
                               "name", whole_cluster=True, provider="the Azure provider",
                               rotated=(*(f"defaultNodePool.{key}" for key in ROTATED), "defaultNodePool.name",
                                        "defaultNodePool.onlyCriticalAddonsEnabled"),
                               rotation="defaultNodePool.temporaryNameForRotation"),
}

def join(pool: Pool, ref: ClusterRef, cluster: KubeCluster) -> Pool:
    """What an AKS cluster gives a pool that joins it: a pool's zone 1 is <region>-1 on its nodes; its upgrade channel's
    schedule (_channel)."""
    if cluster.lifetime is not None and pool.lifetime is None:
        pool = dataclasses.replace(pool, lifetime=cluster.lifetime)
    region = cluster.region
    if region is not None and isinstance(pool.zones, tuple) and pool.zones and pool.platform == "azure" \
            and all(zone.isdigit() for zone in pool.zones):
        named = tuple(f"{region}-{zone}" for zone in pool.zones)
        pool = dataclasses.replace(pool, zones=named, labels={**pool.labels, **dict.fromkeys(ZONE_KEYS,
                                                                                           frozenset(named))})
    return pool


SOURCES = (Source("AKS node pool and cluster", (CLASSIC, NATIVE, MANAGED_CLUSTER, CLASSIC_CLUSTER), read,
                  remember=checked_inputs, replaces=REPLACES, addresses=addresses, join=join),)
