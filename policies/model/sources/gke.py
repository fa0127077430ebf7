"""GKE: node pools (``gcp:container/nodePool:NodePool``, as pulumi-gcp sends them), and the cluster
(``gcp:container/cluster:Cluster``) with its default pool or its inline ``nodePools``. One
:class:`~policies.model.pool.Pool` per node pool.

From GKE's node pool reference (cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig, and
.../how-to/node-taints, .../concepts/node-pools):

* its machine is ``nodeConfig.machineType`` (default ``e2-medium``: NodeConfig.machineType "If unspecified, the
  default machine type is e2-medium"), its nodes run the machine's architecture;
* its nodes carry ``nodeConfig.labels``, ``cloud.google.com/gke-nodepool=<name>`` and the well-known labels; other
  ``cloud.google.com/`` labels (machine family, spot, ...) may be there with values the pack does not model;
* its taints are ``nodeConfig.taints`` with the API's effect names (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE);
* GKE's own: every Arm node is tainted ``kubernetes.io/arch=arm64:NoSchedule`` unless
  ``nodeConfig.taintConfig.architectureTaintBehavior`` is ``NONE``, and GKE adds the toleration to a Pod whose node
  selector or node affinity selects arm64 (.../how-to/prepare-arm-workloads-for-deployment, "Overview"); a pool with
  ``nodeConfig.sandboxConfig`` (GKE Sandbox) carries label and taint ``sandbox.gke.io/runtime=gvisor`` (NoSchedule),
  and GKE adds the toleration to Pods of ``runtimeClassName: gvisor`` (.../how-to/sandbox-pods, "Working with
  GKE Sandbox");
* its nodes run ``nodeConfig.imageType``'s operating system (Windows Server for the WINDOWS_* images, else Linux),
  and GKE taints Windows Server nodes ``node.kubernetes.io/os=windows:NoSchedule``, adding the toleration to Pods
  that select windows (.../how-to/creating-a-cluster-windows);
* GPU nodes: a pool added to a cluster that already runs a pool without GPUs is tainted ``nvidia.com/gpu``
  (NoSchedule), and GKE's ExtendedResourceToleration admission adds the toleration to Pods that request
  nvidia.com/gpu (.../how-to/gpus, "Create a node pool with GPUs"); the NVIDIA driver is installed unless the
  accelerator's ``gpuDriverInstallationConfig.gpuDriverVersion`` is ``INSTALLATION_DISABLED``, and GKE's device
  plugin advertises them unless the pool carries the node label ``gke-no-default-nvidia-gpu-device-plugin``
  (.../how-to/set-up-dra; either way a GPU request is said, not judged); GPU nodes carry
  ``cloud.google.com/gke-accelerator=<the accelerator's type>``, other nodes do not;
* ``maxPodsPerNode`` is the kubelet's maxPods (default 110);
* its size: ``autoscaling.totalMaxNodeCount``, else ``maxNodeCount`` (with autoscaling) or ``nodeCount`` (without)
  per zone, times its zones (``nodeLocations``, else its cluster's); ``initialNodeCount`` per zone when nothing
  else says (.../reference/rest/v1/projects.locations.clusters.nodePools: "the number of nodes ... in each of
  the cluster's zones").

The cluster's default pool (``default-pool``) is there unless ``removeDefaultNodePool`` is true or ``nodePools`` is
given: its nodes are ``nodeConfig``'s, ``initialNodeCount`` per zone of ``nodeLocations``, else of its ``location``
when that is a zone (a region: the count is not known). ``enableAutopilot``: Google provisions nodes for each Pod,
so no pool is known (GKE Autopilot, .../concepts/autopilot-overview).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from ...platforms.catalog import family_of, machines
from ...platforms.quantity import CPU, GIB, MEMORY
from ..addresses import Addresses, Draw, Network, Space, block, space_of
from ..clusters import Claim, KubeCluster, Provisioning, endpoints
from ..labels import ARCH, COMPUTE_CLASS, LINUX, MACHINE_KEYS, WINDOWS, ZONE_KEYS
from ..platform_admission import AdmittedPod, Refused, Unmatched, class_granted
from ..pods import DEVICE_CLASSES, GPU_CLASS, MIG_CLASS, NVIDIA
from ..pool import ClusterRef, Lifetime, Option, Pool
from ..resources import StackResource
from ..scheduling import ANY, MAYBE, Taint
from ..values import Unknown, as_int, child, derived, is_list, is_mapping, is_secret, listed, plain, undetermined
from ..values import read as read_value
from ..versions import Version
from . import Context, Read, Replacing, Source, Unread, checked_inputs
from .common import (
    API_EFFECTS,
    EVERY_MAYBE,
    add_labels,
    base_labels,
    machines_of,
    object_taint,
    set_os,
    size,
    system,
    taints,
    unnamed,
    zones_of,
)

NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
DEFAULT_MACHINE = "e2-medium"  # NodeConfig.machineType: "If unspecified, the default machine type is e2-medium"
DEFAULT_POOL = "default-pool"  # the default node pool's name (.../concepts/node-pools, "Default node pool")
# GKE's own label domains (cloud.google.com/kubernetes-engine/docs/concepts/node-labels, "Automatically applied
# labels": cloud.google.com/gke-*, machine-family, ...; topology.gke.io/zone; iam.gke.io/ of Workload Identity;
# addon.gke.io/ and node.gke.io/ of its add-ons' DaemonSets), with values the pack does not model.
MAYBE_PREFIXES = ("cloud.google.com/", "topology.gke.io/", "iam.gke.io/", "addon.gke.io/", "node.gke.io/",
                  *EVERY_MAYBE)
ARM_TAINT = Taint(ARCH, "arm64", "NoSchedule", granted="arm64")
# Windows Server nodes: GKE taints them node.kubernetes.io/os=windows:NoSchedule, and adds its toleration to the Pods
# that select windows (cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows; GKE on VMware's
# guide says the same of its Windows Server node pools: "Windows Server nodes are tainted with this key-value pair:
# node.kubernetes.io/os=windows:NoSchedule"). Granted to every Pod that selects windows, so that no Windows Pod is
# refused for it.
# Spot VMs and preemptible VMs: GKE labels their nodes cloud.google.com/gke-spot=true and
# cloud.google.com/gke-preemptible=true (.../concepts/spot-vms, .../how-to/preemptible-vms), and taints them only when
# the pool's taints say so.
SPOT_LABELS = {"spot": "cloud.google.com/gke-spot", "preemptible": "cloud.google.com/gke-preemptible"}
WINDOWS_TAINT = Taint("node.kubernetes.io/os", WINDOWS, "NoSchedule", granted=WINDOWS)
# GPU nodes: "If you add a GPU node pool to an existing cluster that already runs a non-GPU node pool, GKE
# automatically taints the GPU nodes" with key nvidia.com/gpu, effect NoSchedule, and "GKE automatically applies the
# corresponding tolerations to Pods requesting GPUs by running the ExtendedResourceToleration admission controller"
# (cloud.google.com/kubernetes-engine/docs/how-to/gpus). Its value, present, is what the nodes carry
# (nvidia.com/gpu=present:NoSchedule); the admission's toleration is {key, operator: Exists, effect: NoSchedule}
# (kubernetes plugin/pkg/admission/extendedresourcetoleration), so the value decides nothing. A pool of the cluster
# made with the GPU pool, or a cluster whose other pools the stack does not show, may or may not have come first.
GPU_TAINT = Taint(NVIDIA, "present", "NoSchedule")  # tolerated by scheduling.admitted for GPU Pods
# GPU nodes carry cloud.google.com/gke-accelerator=<the accelerator's type>, the label GKE's docs have GPU Pods select
# (cloud.google.com/kubernetes-engine/docs/how-to/gpus: nodeSelector cloud.google.com/gke-accelerator: nvidia-tesla-t4);
# nodes without GPUs do not carry it.
ACCELERATOR = "cloud.google.com/gke-accelerator"
NO_DRIVER = "INSTALLATION_DISABLED"  # GPUDriverInstallationConfig.gpuDriverVersion: GKE installs no driver
# A node label that keeps GKE's GPU device plugin off a pool's nodes, as GKE's DRA setup writes it
# (cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra, "Create a GKE node pool with GPUs": "Disable the GPU
# device plugin: add the gke-no-default-nvidia-gpu-device-plugin=true node label to the node pool")
NO_PLUGIN = "gke-no-default-nvidia-gpu-device-plugin"
SANDBOX = "sandbox.gke.io/runtime"
SANDBOX_TAINT = Taint(SANDBOX, "gvisor", "NoSchedule", granted="gvisor")
# Node auto-provisioning: with clusterAutoscaling.enabled, GKE "automatically creates and deletes node pools" for Pods
# no pool can take, of machines, GPUs and Spot VMs as they ask (cloud.google.com/kubernetes-engine/docs/concepts/
# node-auto-provisioning; pulumi-gcp ClusterClusterAutoscaling.enabled: "Whether node auto-provisioning is enabled").
AUTO_PROVISIONING = ("has node auto-provisioning (clusterAutoscaling.enabled): GKE creates node pools the stack does "
                     "not declare for Pods its pools cannot take")
# clusterAutoscaling.defaultComputeClassEnabled: "If enabled, cluster autoscaler will use Compute Class with name
# default for all the workloads, if not overriden" (pulumi-gcp's ClusterClusterAutoscaling), and a cluster-level
# default class needs no label on the pools its Pods run on (cloud.google.com/kubernetes-engine/docs/concepts/
# about-custom-compute-classes): the Pods that request no class may run on nodes that class makes
DEFAULTED = ("gives the Pods that request no ComputeClass the one named default (clusterAutoscaling."
                 "defaultComputeClassEnabled): GKE may create node pools the stack does not declare for them")
# With node auto-provisioning on, clusterAutoscaling.resourceLimits cap every node of the cluster together, declared
# pools and auto-provisioned ones: "the limits are for the entire cluster" (kubernetes/k8s.io#2003; cloud.google.com/
# kubernetes-engine/docs/how-to/node-auto-provisioning, "Configuring resource limits"): the cluster autoscaler adds no
# node past a maximum. cpu is counted in cores; memory in gigabytes (the same page; gcloud's --max-memory: "maximum
# number of gigabytes of memory in the cluster"), read here as GiB, the larger unit, so that a cap is never taken as
# tighter than GKE's, whichever of the two its autoscaler counts in. GPU limits are not read yet.
# "Node auto-provisioning doesn't create node pools that use any of the following features", among them Windows
# operating systems (cloud.google.com/kubernetes-engine/docs/concepts/node-auto-provisioning, "Unsupported features"):
# a Pod that needs Windows nodes runs on the pools the stack declares, or nowhere. (GKE Sandbox is on that list too, but
# the pack does not judge where a gvisor Pod's RuntimeClass places it, so such a Pod stays a note there.)
UNPROVISIONED = ((WINDOWS, "node auto-provisioning creates no pool of Windows nodes"),)
# GPUs for the Pods that request them, outside ComputeClasses: "Configure cluster-wide GPU limits for node
# auto-provisioning" (cloud.google.com/kubernetes-engine/docs/concepts/node-auto-provisioning, "GPU selection"; the
# limits are resourceLimits of a GPU type, nvidia-tesla-t4, ...): with none, such a Pod runs on declared pools only
NO_GPU_LIMIT = (NVIDIA, "node auto-provisioning creates GPU nodes only of the types its clusterAutoscaling."
                        "resourceLimits cap, and they cap none")


def gpu_capped(props: Any) -> bool:
    """The cluster's resourceLimits may let node auto-provisioning create GPU nodes: they name a GPU type (nvidia-...)
    with a maximum above zero, or are not known yet."""
    listed = plain(child(child(props, "clusterAutoscaling"), "resourceLimits"))
    if not is_list(listed):
        return isinstance(listed, Unknown)
    for item in listed:
        kind = item.get("resourceType") if is_mapping(item) else None
        most = item.get("maximum") if is_mapping(item) else None
        if isinstance(kind, Unknown) or isinstance(most, Unknown) or not is_mapping(item):
            return True
        if isinstance(kind, str) and kind.startswith("nvidia-") and (not isinstance(most, (int, float)) or most > 0):
            return True
    return False
# GKE Sandbox's RuntimeClass gvisor is GKE's, and what it gives Pods is modelled (its toleration of the sandbox taint:
# platform_admission.grants; .../how-to/sandbox-pods): a Pod of runtimeClassName gvisor is judged as written.
RUNTIME_CLASSES = frozenset({"gvisor"})
CAPPED = {"cpu": (CPU, Decimal(1000)), "memory": (MEMORY, Decimal(GIB))}  # resourceType: resource, base units each


# "If you don't explicitly select a machine, GKE uses the E2 machine series or a machine type that's compatible with the
# hardware that your workload requests" (cloud.google.com/kubernetes-engine/docs/concepts/node-auto-provisioning): for
# a Pod that asks for no hardware, a node of the E2 series, no larger than the cluster's caps let one node be
DEFAULT_SERIES = "e2"


def default_machines(caps: tuple[tuple[str, Decimal], ...]) -> tuple[str, ...]:
    """The E2 machines node auto-provisioning may add for a Pod that asks for no hardware, each within the caps (cpu in
    millicores, memory in bytes); none where the cluster caps neither (GKE requires both to enable it)."""
    limits = dict(caps)
    if CPU not in limits or MEMORY not in limits:
        return ()
    return tuple(machine.name for machine in machines("gcp") if family_of("gcp", machine.name) == DEFAULT_SERIES
                 and machine.vcpus is not None and machine.memory_mib is not None and not machine.gpu_count
                 and machine.vcpus * 1000 <= limits[CPU] and machine.memory_mib * 2**20 <= limits[MEMORY])


def resource_caps(props: Any) -> tuple[tuple[str, Decimal], ...]:
    """The cluster's cpu maximum (millicores) and memory maximum (bytes, as GiB), where its resourceLimits name a
    whole, known, plain one."""
    listed = plain(child(child(props, "clusterAutoscaling"), "resourceLimits"))
    found: dict[str, Decimal] = {}
    for item in listed if is_list(listed) else ():
        kind = item.get("resourceType") if is_mapping(item) else None
        if isinstance(kind, str) and (capped := CAPPED.get(kind)) is not None:
            most = item.get("maximum")
            if isinstance(most, (int, float)) and not isinstance(most, bool) and not is_secret(most) and most >= 0 \
                    and float(most).is_integer():
                found.setdefault(capped[0], Decimal(int(most)) * capped[1])
    return tuple(sorted(found.items()))



def _provisioned(props: Any) -> Provisioning:
    """What node auto-provisioning adds on the cluster: its caps, its default machines within them, and the image of
    every pool it creates (SPEC 22, 23)."""
    caps = resource_caps(props)
    return Provisioning(caps, default_machines(caps), image_of(child(child(props, "clusterAutoscaling"),
                                                                     "autoProvisioningDefaults"),
                                                               "clusterAutoscaling.autoProvisioningDefaults"))

UNSIZED = ("its number of nodes is not known: it counts nodes per zone, and its cluster's zones are not known (set "
           "nodeLocations, or its cluster's location to a zone)")
_ZONE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")  # us-central1-a; a region has no zone letter
_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")  # us-central1
# A regional cluster that names no nodeLocations runs each node pool in three zones of its region, which GKE picks
# (cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters: "By default, GKE replicates each node pool
# across three zones of the control plane's region"): a pool's size is three times its nodes per zone, its zones'
# names are not known.
REGIONAL_ZONES = 3


def _sandboxed(config: Any) -> bool | Unknown:
    sandbox = child(config, "sandboxConfig")
    if isinstance(sandbox, Unknown):
        return sandbox
    kind = child(sandbox, "sandboxType")
    kind = child(sandbox, "type") if kind is None else kind
    if isinstance(kind, Unknown):
        return kind
    return isinstance(kind, str) and kind.lower() == "gvisor"


def image_os(config: Any) -> str | None:
    """The operating system of a pool's nodes: its ``imageType``'s (WINDOWS_LTSC_CONTAINERD, WINDOWS_SAC_CONTAINERD
    and the older WINDOWS_LTSC, WINDOWS_SAC are Windows Server; COS_CONTAINERD, UBUNTU_CONTAINERD, ... Linux), Linux
    when none is given (the default, COS_CONTAINERD: .../concepts/node-images); None when not known yet."""
    image = child(config, "imageType")
    if image is None:
        return LINUX
    if not isinstance(image, str):
        return None
    return system(image.upper().startswith("WINDOWS"), image)


def with_accelerators(options: tuple[Option, ...], config: Any, pool_name: str) -> tuple[Option, ...]:
    """Its machines with the GPUs ``nodeConfig.guestAccelerators`` attaches (an N1 machine has none of its own: a T4
    is attached by ``{type: nvidia-tesla-t4, count: 1}``, .../how-to/gpus, "Create a node pool with GPUs"): each node
    advertises ``count`` nvidia.com/gpu. With GPU sharing (``gpuSharingConfig``) or MIG partitions
    (``gpuPartitionSize``) a node advertises more than its cards (.../how-to/timesharing-gpus,
    .../how-to/gpus-multi), so the count is not known here."""
    listed = plain(child(config, "guestAccelerators"))
    if listed is None or (is_list(listed) and not listed):
        return options
    labels = child(config, "labels")
    # GKE's device plugin kept off its nodes (or may be: its labels are not known yet): nvidia.com/gpu only from a
    # device plugin of the user's own, or a DeviceClass that maps it to DRA devices (extendedResourceName, KEP-5004)
    no_plugin = isinstance(labels, Unknown) or (is_mapping(labels) and labels.get(NO_PLUGIN) is not None)
    cards = Decimal(0)  # the GPUs its device plugin advertises (the driver GKE installs)
    attached = Decimal(0)  # the GPUs attached, whichever driver runs: the most a DRA driver publishes
    kind: str | None = None
    unknown: Unknown | None = listed if isinstance(listed, Unknown) else None  # how many GPUs is not known
    driverless: Unknown | None = None
    for entry in listed if is_list(listed) else ():
        count, name = (entry.get("count"), entry.get("type")) if is_mapping(entry) else (None, None)
        shared = is_mapping(entry) and any(entry.get(key) is not None for key in ("gpuSharingConfig",
                                                                                   "gpuPartitionSize"))
        driver = child(child(entry, "gpuDriverInstallationConfig"), "gpuDriverVersion")
        found = next((value for value in (entry, count, name, driver) if isinstance(value, Unknown)), None)
        if found is not None or shared or as_int(count) is None or not isinstance(name, str):
            unknown = unknown or found or undetermined(
                f"how many GPUs a node of node pool '{pool_name}' advertises is not known (its guestAccelerators "
                "share or partition them, or cannot be read), so the GPUs its Pods request are not checked")
            continue
        if no_plugin and name.startswith("nvidia-"):
            value = labels if isinstance(labels, Unknown) else labels.get(NO_PLUGIN)
            why = f"runs no GPU device plugin of GKE's (its node label {NO_PLUGIN}=true" if value == "true" else (
                f"may run no GPU device plugin of GKE's (its node label {NO_PLUGIN}"
                f"{' may be there: its labels are not known yet' if isinstance(labels, Unknown) else ''}")
            driverless = driverless or undetermined(
                f"node pool '{pool_name}' {why}, as GKE's DRA setup writes it): its nodes advertise nvidia.com/gpu "
                "only where a device plugin of your own runs, or a DeviceClass maps it to DRA devices "
                "(extendedResourceName, KEP-5004), so the GPUs its Pods request are not checked")
        if driver == NO_DRIVER:  # (as GKE's page "Prepare GKE infrastructure for DRA workloads" sets up a GPU pool)
            driverless = driverless or undetermined(
                f"node pool '{pool_name}' installs no NVIDIA driver (gpuDriverVersion {NO_DRIVER}): its nodes "
                "advertise nvidia.com/gpu only once a driver DaemonSet of your own runs there, so the GPUs its Pods "
                "request are not checked")
        if name.startswith("nvidia-"):
            attached += Decimal(as_int(count) or 0)
            cards += Decimal(as_int(count) or 0) if driver != NO_DRIVER else Decimal(0)
            kind = kind or name
    if not is_list(listed) and unknown is None:
        return options
    found_options = []
    for option in options:
        hardware = option.hardware
        capacity = {key: value for key, value in hardware.capacity.items() if key not in (NVIDIA, GPU_CLASS)}
        missing = dict(hardware.unknown)
        if unknown is not None or driverless is not None:
            missing[NVIDIA] = unknown or driverless  # type: ignore[assignment]
        else:
            # an A2 or G2 machine's own GPUs are the ones its accelerators name: never counted twice
            capacity[NVIDIA] = max(cards, hardware.capacity.get(NVIDIA, Decimal(0)))
        if unknown is not None:
            missing.update(dict.fromkeys(DEVICE_CLASSES, unknown))
            capacity.pop(MIG_CLASS, None)
        else:  # one device per attached GPU (no attachable GPU of an N1 machine is split by MIG)
            capacity[GPU_CLASS] = max(attached, hardware.capacity.get(GPU_CLASS, Decimal(0)))
        found_options.append(replace(option, hardware=replace(hardware, capacity=capacity, unknown=missing,
                                                               gpu_type=kind or hardware.gpu_type)))
    return tuple(found_options)


# GKE upgrades a pool's nodes to its control plane's version on its own (management.autoUpgrade, "Defaults to true":
# registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool; a cluster on a release
# channel cannot turn it off), and its surge upgrade respects a PodDisruptionBudget for up to an hour, then drains the
# node anyway (cloud.google.com/kubernetes-engine/docs/concepts/node-pool-upgrade-strategies, "surge upgrades"; the
# drain words of platforms/managed.py drain_failure).
UPGRADES = Lifetime("at each automatic upgrade of its version", "an hour", "", "GKE", grace_field="", default=True)


def _upgrades(props: Any, default_pool: bool) -> Lifetime | None:
    """How GKE replaces its nodes without the stack's word: at each automatic upgrade, unless management.autoUpgrade is
    false; None when it is, or not known yet."""
    management = None if default_pool else child(props, "management")
    upgrade = child(management, "autoUpgrade")
    if isinstance(management, Unknown) or isinstance(upgrade, Unknown):
        return None
    if upgrade is None:
        return UPGRADES
    if upgrade is True:
        return replace(UPGRADES, field="management.autoUpgrade", default=False)
    return None


def image_of(config: Any, where: str = "nodeConfig") -> tuple[str, Any] | None:
    """Its nodes' image as node-image-supported reads it (SPEC 23): ``where``.imageType in upper case (GKE takes it
    in any case: cos_containerd is COS_CONTAINERD), secret when written so; None when it names none (COS_CONTAINERD,
    GKE's default)."""
    image = child(config, "imageType")
    if isinstance(image, str):
        return f"{where}.imageType", derived(image.upper(), image)
    return (f"{where}.imageType", image) if isinstance(image, Unknown) else None


def _accelerator(config: Any, options: tuple[Option, ...]) -> frozenset[str] | None:
    """The values of label cloud.google.com/gke-accelerator on the pool's nodes: the types its ``guestAccelerators``
    name; frozenset() when its nodes have no GPU (no label); None when that is not known (an accelerator list not
    known yet, or a machine with GPUs of its own, A2 or G2, that names none)."""
    listed = plain(child(config, "guestAccelerators"))
    if isinstance(listed, Unknown):
        return None
    if is_list(listed) and listed:
        types = [entry.get("type") if is_mapping(entry) else None for entry in listed]
        return frozenset(kind for kind in types if isinstance(kind, str)) if all(
            isinstance(kind, str) for kind in types) else None
    if any(option.hardware.gpu_type or NVIDIA in option.hardware.unknown for option in options):
        return None
    return frozenset()


def _arm_taint(config: Any) -> bool | Unknown:
    behaviour = child(child(config, "taintConfig"), "architectureTaintBehavior")
    if isinstance(behaviour, Unknown):
        return behaviour
    return behaviour != "NONE"


def node_pool(kind: str, urn: str, props: Any, fallback: str, zones: tuple[str, ...] | Unknown | None,
              default_pool: bool = False, unsized: str = "", inline: bool = False, zone_count: int | None = None,
              cluster_max_pods: Any = None) -> Pool:
    """One node pool: a NodePool resource's props, an inline nodePools entry, or (``default_pool``) a cluster's own
    nodeConfig (``inline``: one of the pools its cluster declares); ``zones``: the cluster's, for a pool that names
    none, and ``zone_count`` how many they are when their names are not known (a regional cluster's three)."""
    declared = DEFAULT_POOL if default_pool else child(props, "name")
    pool_name = declared if isinstance(declared, str) else fallback
    config = child(props, "nodeConfig")
    own = None if default_pool else zones_of(child(props, "nodeLocations"))
    pool_zones = own if own is not None else zones
    labels = base_labels(NODE_POOL_LABEL, declared, pool_zones)
    unknown = config if isinstance(config, Unknown) else None
    late = add_labels(labels, child(config, "labels")) if unknown is None else None
    machine = child(config, "machineType")
    names = machine if isinstance(machine, Unknown) else (machine if isinstance(machine, str) else DEFAULT_MACHINE,)
    found_taints = taints(child(config, "taints"), lambda item: object_taint(item, API_EFFECTS))
    max_pods = child(props, "defaultMaxPodsPerNode" if default_pool else "maxPodsPerNode")
    if max_pods is None and not default_pool:  # an inline pool that sets none: its cluster's defaultMaxPodsPerNode
        max_pods = cluster_max_pods
    sandboxed, arm_taint = _sandboxed(config), _arm_taint(config)
    for value in (names, max_pods, pool_zones):
        if isinstance(value, Unknown):
            unknown = unknown or value
    for value in (found_taints, sandboxed, arm_taint):  # taints not known yet: what the machines decide still holds
        if isinstance(value, Unknown):
            late = late or value
    if found_taints is None:
        unknown = unknown or undetermined(f"node pool '{pool_name}' has taints its schema refuses")
    options = with_accelerators(machines_of("gcp", names), config, pool_name) if unknown is None else \
        machines_of("gcp", names)
    # a ComputeClass's taint on a pool labelled for it: the Pods that request the class need no toleration of their own
    own_taints = [replace(taint, granted=class_granted(taint.value)) if taint.key == COMPUTE_CLASS else taint
                  for taint in (found_taints if isinstance(found_taints, tuple) else ())]
    os = image_os(config) if unknown is None else None
    set_os(labels, os)
    if os == WINDOWS:
        own_taints.append(WINDOWS_TAINT)
    elif os is None and isinstance(child(config, "imageType"), Unknown):
        late = late or child(config, "imageType")  # a Windows image would add its taint
    if arm_taint is True and any(option.node_architecture == "arm64" for option in options):
        own_taints.append(ARM_TAINT)
    if sandboxed is True:
        labels[SANDBOX] = frozenset({"gvisor"})
        own_taints.append(SANDBOX_TAINT)
    elif isinstance(sandboxed, Unknown):
        labels[SANDBOX] = ANY
    interruption: str | None = ""
    absent: set[str] = set()
    for kind_of, key in SPOT_LABELS.items():
        flag = child(config, kind_of)
        if flag is True:
            labels[key] = frozenset({"true"})
            interruption = interruption or kind_of
        elif isinstance(flag, Unknown):
            labels[key] = MAYBE  # on every node, or on none
            interruption = interruption or None
        elif unknown is None:
            absent.add(key)  # GKE labels Spot and preemptible nodes only
    if unknown is None and late is None and COMPUTE_CLASS not in labels:
        absent.add(COMPUTE_CLASS)  # a pool it does not label is for no ComputeClass (sources/gke_compute_classes.py)
    accelerators = _accelerator(config, options) if unknown is None else None
    if accelerators:
        labels[ACCELERATOR] = accelerators
    elif accelerators is not None:
        absent.add(ACCELERATOR)
    kubelet = {"maxPods": as_int(max_pods)} if as_int(max_pods) else {}
    per_zone = size(child(props, "initialNodeCount")) if default_pool else _per_zone(props)
    total = size(child(child(props, "autoscaling"), "totalMaxNodeCount"))
    # the input a fix raises: the total, else the nodes per zone (maxNodeCount, nodeCount, initialNodeCount)
    field = "autoscaling.totalMaxNodeCount" if total is not None else "autoscaling.maxNodeCount" if child(
        props, "autoscaling") is not None and not default_pool else "nodeCount" if child(
        props, "nodeCount") is not None and not default_pool else "initialNodeCount"
    size_zones = None if total is not None else len(pool_zones) if isinstance(pool_zones, tuple) and pool_zones \
        else zone_count if pool_zones is None else None
    max_size: int | Unknown | None = total
    if total is None and isinstance(per_zone, Unknown):
        max_size = per_zone
    elif total is None and isinstance(per_zone, int) and isinstance(pool_zones, tuple):
        max_size = per_zone * len(pool_zones)
    elif total is None and isinstance(per_zone, int) and pool_zones is None and zone_count is not None:
        max_size = per_zone * zone_count
    least_per_zone = size(child(props, "initialNodeCount")) if default_pool else _least_per_zone(props)
    least_total = size(child(child(props, "autoscaling"), "totalMinNodeCount"))
    min_size: int | Unknown | None = least_total if least_total is not None else least_per_zone * len(pool_zones) \
        if isinstance(least_per_zone, int) and isinstance(pool_zones, tuple) else least_per_zone * zone_count \
        if isinstance(least_per_zone, int) and pool_zones is None and zone_count is not None else \
        least_per_zone if isinstance(least_per_zone, Unknown) else None
    # a cluster's default pool runs its nodeVersion; a NodePool and an inline pool their version (each, when unset,
    # the control plane's: registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool)
    version = Version("nodeVersion" if default_pool else "version", child(props, "nodeVersion" if default_pool
                                                                          else "version"))
    network = child(props, "networkConfig")
    own_range = child(network, "podRange") is not None or child(network, "podIpv4CidrBlock") is not None
    return Pool(kind, urn, pool_name, platform="gcp", options=options, labels=labels, taints=tuple(own_taints),
                version=version, image=image_of(config), lifetime=_upgrades(props, default_pool),
                network=Network(pod_subnet=own_range) if own_range else None,
                unknown=unknown, labels_unknown=late, maybe_prefixes=MAYBE_PREFIXES, machine_keys=MACHINE_KEYS,
                kubelet=kubelet,
                max_size=max_size, zones=pool_zones, per_zone=per_zone if total is None and own is None else None,
                min_size=min_size, per_zone_min=least_per_zone if least_total is None and own is None else None,
                size_note=(unsized or UNSIZED) if max_size is None else "", size_field=field, size_zones=size_zones,
                named_types=names if isinstance(names, tuple) else (), member=f"pool '{pool_name}'" if inline else "",
                interruption=None if unknown is not None else interruption, absent=frozenset(absent),
                late={} if default_pool else unnamed(NODE_POOL_LABEL, declared, f"node pool '{pool_name}'"))


def _per_zone(props: Any) -> int | Unknown | None:
    """The most nodes per zone: maxNodeCount with autoscaling, else nodeCount, else initialNodeCount."""
    autoscaling = child(props, "autoscaling")
    if isinstance(autoscaling, Unknown):
        return autoscaling
    if autoscaling is not None:
        return size(child(autoscaling, "maxNodeCount"))
    count = child(props, "nodeCount")
    return size(count if count is not None else child(props, "initialNodeCount"))


def _least_per_zone(props: Any) -> int | Unknown | None:
    """The fewest nodes per zone (GKE counts a pool's size per zone: cloud.google.com/kubernetes-engine/docs/concepts/
    cluster-autoscaler): minNodeCount with autoscaling (0 when unset, the provider's default), else nodeCount, else
    initialNodeCount; None where the total is set instead (totalMinNodeCount)."""
    autoscaling = child(props, "autoscaling")
    if isinstance(autoscaling, Unknown):
        return autoscaling
    if autoscaling is not None:
        if child(autoscaling, "totalMinNodeCount") is not None or child(autoscaling, "totalMaxNodeCount") is not None:
            return None
        least = child(autoscaling, "minNodeCount")
        return 0 if least is None else size(least)
    count = child(props, "nodeCount")
    return size(count if count is not None else child(props, "initialNodeCount"))


def cluster_zones(props: Any, provider: Any = None) -> tuple[str, ...] | Unknown | None:
    """The zones a cluster's nodes are in: its nodeLocations, else its location when that is a zone, else (no location)
    the GCP provider's zone: the explicit provider's ``zone``, or the default provider's, which is the stack config
    ``gcp:zone`` (registry.terraform.io/providers/hashicorp/google: a resource without location is in the provider's
    zone or region)."""
    listed = zones_of(child(props, "nodeLocations"))
    if listed is not None:
        return listed
    location = location_of(props, provider)
    if isinstance(location, Unknown):
        return location
    return (location,) if isinstance(location, str) and _ZONE.match(location) else None


def zone_count(props: Any, provider: Any = None) -> int | None:
    """How many zones a cluster's nodes are in when their names are not known: a regional cluster's default three."""
    if child(props, "nodeLocations") is not None:
        return None
    location = location_of(props, provider)
    return REGIONAL_ZONES if isinstance(location, str) and _REGION.match(location) else None


def location_of(props: Any, provider: Any = None) -> Any:
    """A cluster's location, else its provider's zone, else its provider's region."""
    location = child(props, "location")
    if location is None and provider is not None:
        location = child(provider, "zone")
        location = child(provider, "region") if location is None else location
    return location


def _gpus(pool: Pool) -> bool | None:
    """Whether its nodes have NVIDIA GPUs: True, False, or None when not known."""
    if pool.unknown is not None or not pool.options:
        return None
    counts = {option.hardware.capacity.get(NVIDIA, Decimal(0)) > 0 or NVIDIA in option.hardware.unknown
              for option in pool.options}
    return counts.pop() if len(counts) == 1 else None


def gpu_taints(pools: list[Pool], context: Context) -> list[Pool]:
    """GKE's GPU taint on each GPU pool of a cluster that runs a pool without GPUs: certain when that pool is made
    before the GPU pool, a NodePool: the cluster's own (its default or inline pool, made with the cluster), or a
    NodePool the GPU pool depends on (its dependencies, an explicit depends_on among them: the engine creates it
    first); else (two NodePools made at once, a cluster whose pools the stack does not all show) it may be there."""
    by_cluster: dict[str, list[Pool]] = {}
    for pool in pools:
        by_cluster.setdefault(pool.cluster.key, []).append(pool)
    found = []
    for pool in pools:
        if _gpus(pool) is not True or any(taint.key == NVIDIA for taint in pool.taints):
            found.append(pool)
            continue
        others = [other for other in by_cluster[pool.cluster.key] if other is not pool]
        before = _made_before(pool.urn, context)
        first = pool.kind == "GKE NodePool" and any(
            _gpus(other) is False and (other.kind == "GKE Cluster" or other.urn in before) for other in others)
        if first and pool.cluster.complete and pool.cluster.key:
            found.append(replace(pool, taints=(*pool.taints, GPU_TAINT)))
        elif any(_gpus(other) is not True for other in others) or not pool.cluster.complete or not pool.cluster.key:
            found.append(replace(pool, taints=(*pool.taints, replace(GPU_TAINT, maybe=(
                f"GKE taints node pool '{pool.name}' {GPU_TAINT.text} when it joins a cluster that already runs a "
                "pool without GPUs, and the stack does not tell whether one came first (make the GPU pool depend on "
                "the other, or give it that taint), so whether Pods that request no GPU may land on it is not "
                "known")))))
        else:
            found.append(pool)
    return found


def _made_before(urn: str, context: Context) -> set[str]:
    """The resources the engine creates before this one: what it depends on, and what they depend on."""
    found: set[str] = set()
    waiting = [urn]
    while waiting and len(found) < 10_000:
        resource = context.resources.get(waiting.pop())
        for dependency in resource.dependencies if resource is not None else ():
            if dependency not in found:
                found.add(dependency)
                waiting.append(dependency)
    return found


def size_note(props: Any, provider: Any = None) -> str:
    """Why a pool whose nodes are counted per zone has no known size (its cluster's zones are not known)."""
    location = location_of(props, provider)
    if isinstance(location, str):
        return (f"its number of nodes is not known: it counts nodes per zone, and its cluster is in the region "
                f"'{location}', whose zones the stack does not name (set the cluster's nodeLocations)")
    return ("its number of nodes is not known: it counts nodes per zone, and its cluster's location is not given (no "
            "location, and the GCP provider names no zone: set location or the stack config gcp:zone)")


def _master(props: Any) -> Version:
    """A cluster's control plane version: minMasterVersion is "the minimum version of the master. GKE will
    auto-update the master to new versions, so this does not guarantee the current master version"
    (registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_cluster)."""
    return Version("minMasterVersion", child(props, "minMasterVersion"), least=True)


# Address space (SPEC 20). A VPC-native cluster gives each node an aligned block of its Pod range, the smallest that
# holds twice the node's maximum Pods (cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr, "CIDR range
# per node": 110 Pods, a /24; 32, a /26; 8, a /28), so a range holds range / block nodes across every pool that draws
# on it (GoogleCloudPlatform/cloud-foundation-fabric#1644: IP_SPACE_EXHAUSTED). The range is
# ipAllocationPolicy.clusterIpv4CidrBlock (a CIDR, or a bare size such as "/14"), the subnetwork's secondary range
# clusterSecondaryRangeName names, or clusterIpv4Cidr. A node pool with a Pod range of its own (networkConfig.podRange,
# podIpv4CidrBlock) draws on that one, which the pack does not read. A pool that sets no maxPodsPerNode runs its
# cluster's defaultMaxPodsPerNode (flexible-pod-cidr, "Default maximum Pods per node").
SUBNETWORK = "gcp:compute/subnetwork:Subnetwork"
GKE_MAX_PODS = 110  # GKE Standard's default maximum Pods per node (flexible-pod-cidr)


def pod_range(resource: StackResource, context: Context) -> Space | Unknown | None:
    """A GKE cluster's Pod range, as its inputs give it; None when they give none the stack shows."""
    props = resource.props
    policy = child(props, "ipAllocationPolicy")
    cidr = child(policy, "clusterIpv4CidrBlock")
    named = child(policy, "clusterSecondaryRangeName")
    if cidr is None and isinstance(named, str):
        cidr = _secondary(resource, named, context)
    elif cidr is None and named is None:
        cidr = child(props, "clusterIpv4Cidr")
    for value in (policy, named):
        if isinstance(value, Unknown):
            return value
    return space_of(f"{resource.urn}#pods", f"the Pod range of GKE cluster '{resource.name}'", cidr)


def _secondary(cluster: StackResource, named: str, context: Context) -> Any:
    """The CIDR of the secondary range ``named`` of the cluster's subnetwork, when it is a resource of the stack."""
    given = child(cluster.props, "subnetwork")
    found = [context.resources[urn] for urn in cluster.depends("subnetwork")
             if urn in context.resources and context.resources[urn].type == SUBNETWORK]
    if not found and isinstance(given, str):
        found = [resource for resource in context.resources.values() if resource.type == SUBNETWORK
                 and given.rsplit("/", 1)[-1] in (child(resource.props, "name"), resource.name)]
    if len(found) != 1:
        return None
    ranges = plain(child(found[0].props, "secondaryIpRanges"))
    if isinstance(ranges, Unknown):
        return ranges
    for item in ranges if is_list(ranges) else ():
        if is_mapping(item) and item.get("rangeName") == named:
            return item.get("ipCidrRange")
    return None


def addresses(pool: Pool, cluster: KubeCluster | None) -> Addresses | None:
    """What a GKE pool's nodes take of its cluster's Pod range: a block of twice its maxPods, rounded up to a power
    of two, a node."""
    pods = cluster.pod_range if cluster is not None else None
    if pods is None or (pool.network is not None and pool.network.pod_subnet):
        return None
    if isinstance(pods, Unknown):
        return pods
    most = as_int(pool.kubelet.get("maxPods")) or GKE_MAX_PODS
    per = block(2 * most)
    return (Draw((pods,), per, f"(a /{32 - per.bit_length() + 1} a node: the smallest block of twice its "
                               f"{most} Pods)", fix="a larger Pod range (ipAllocationPolicy.clusterIpv4CidrBlock), "
                                                     "a lower maxPodsPerNode, or a Pod range of the pool's own "
                                                     "(networkConfig.podRange)"),)


# GKE Autopilot's admission (cloud.google.com/kubernetes-engine/docs/concepts/autopilot-security, "Built-in security
# configurations": privileged Pods and the host's network, PID and IPC namespaces are refused; hostPath volumes only
# under /var/log/). Workloads Google allowlists for partners may do more: their allowlist is not in the stack.
AUTOPILOT_HOST_PATH = "/var/log/"


# Workloads Google allowlists for partners run with more on Autopilot, once the cluster has their allowlist: an
# AllowlistSynchronizer (auto.gke.io, cloud.google.com/kubernetes-engine/docs/how-to/run-autopilot-partner-workloads)
# in the stack makes what Autopilot would refuse not certain.
ALLOWLIST_SYNCHRONIZER = "AllowlistSynchronizer"


def allowlists(types: Any) -> bool:
    """Some resource of these types installs Autopilot partner allowlists."""
    return any(isinstance(kind, str) and kind.startswith("kubernetes:auto.gke.io/")
               and kind.endswith(f":{ALLOWLIST_SYNCHRONIZER}") for kind in types)


def autopilot_refusals(host: Any) -> list[str]:
    """Why GKE Autopilot refuses a Pod (HostAccess ``host``), each as a clause."""
    found = []
    if host.privileged:
        found.append(f"Autopilot refuses privileged containers ({listed(host.privileged)})")
    for flag, name in ((host.host_network, "hostNetwork"), (host.host_pid, "hostPID"), (host.host_ipc, "hostIPC")):
        if flag:
            found.append(f"Autopilot refuses the host's namespaces ({name})")
    outside = [path for path in host.host_paths if not f"{path.rstrip('/')}/".startswith(AUTOPILOT_HOST_PATH)]
    if outside:
        found.append(f"Autopilot allows hostPath volumes under {AUTOPILOT_HOST_PATH} only ({listed(outside)})")
    return found


@dataclass(frozen=True)
class Autopilot:
    """GKE Autopilot's admission (platform_admission.Admission), on every Pod of the cluster; ``allowlisted``: the
    stack installs partner allowlists, which may admit what it refuses."""

    allowlisted: bool = False
    selects: tuple[tuple[Any, str], ...] = ()  # every Pod: nothing of the stack selects them

    def judge(self, pod: AdmittedPod) -> Refused | Unmatched | Unknown | None:
        reasons = autopilot_refusals(pod.host)
        if not reasons:
            return None
        return Refused(tuple(reasons), "GKE Autopilot's admission refuses its Pods", "run it on a GKE Standard "
                       "cluster's node pool, or drop what Autopilot refuses",
                       "the stack installs Autopilot partner allowlists (AllowlistSynchronizer), which may admit it"
                       if self.allowlisted else "")


def read(resources: Sequence[StackResource], context: Context) -> Read:
    found = Read()
    for resource in resources:
        props = resource.props
        if resource.type == NODE_POOL:
            pool = node_pool("GKE NodePool", resource.urn, props, resource.name, None)
            found.pools.append((pool, Claim(resource, depends=resource.depends("cluster"),
                                            name=child(props, "cluster"))))
            continue
        declared = child(props, "name")
        names = frozenset({declared}) if isinstance(declared, str) and declared else frozenset()
        provider = context.resources.get(resource.provider or "")
        provider_props = provider.props if provider is not None else None
        zones = cluster_zones(props, provider_props)
        unsized = size_note(props, provider_props)
        autopilot = child(props, "enableAutopilot")
        if autopilot is True or isinstance(autopilot, Unknown):
            found.clusters.append(KubeCluster(resource.urn, resource.name, "GKE cluster", names, pools_known=False,
                                              version=_master(props), platform="gcp",
                                              support=child(child(props, "releaseChannel"), "channel"),
                                              endpoints=endpoints(child(props, "endpoint")),
                                              zones=zones, admission=Autopilot(allowlists(
                                                  found.type for found in context.resources.values()))
                                              if autopilot is True else None))
            found.unread.append(Unread(resource.urn, resource.name, "GKE cluster",
                                       "is an Autopilot cluster: Google provisions nodes for each Pod, so no pool is "
                                       "known" if autopilot is True else "may be an Autopilot cluster (enableAutopilot "
                                       "is not known yet), so its pools are not known"))
            continue
        provisioning = child(child(props, "clusterAutoscaling"), "enabled")
        defaulted = child(child(props, "clusterAutoscaling"), "defaultComputeClassEnabled")
        auto = provisioning is True or isinstance(provisioning, Unknown)
        by_default = defaulted is True or isinstance(defaulted, Unknown)
        default_pods = child(props, "defaultMaxPodsPerNode")
        found.clusters.append(KubeCluster(resource.urn, resource.name, "GKE cluster", names, zones=zones,
                                          version=_master(props), platform="gcp",
                                          pools_known=not auto and not by_default,
                                          zone_count=zone_count(props, provider_props),
                                          endpoints=endpoints(child(props, "endpoint")),
                                          max_pods=default_pods if isinstance(default_pods, Unknown)
                                          else as_int(default_pods),
                                          pod_range=pod_range(resource, context), pool_label=NODE_POOL_LABEL,
                                          class_label=COMPUTE_CLASS,
                                          provisioning=_provisioned(props) if provisioning is True else None,
                                          # its release channel (EXTENDED keeps a minor past standard support)
                                          support=child(child(props, "releaseChannel"), "channel"),
                                          unprovisioned=UNPROVISIONED if provisioning is not True or gpu_capped(props)
                                          else (*UNPROVISIONED, NO_GPU_LIMIT), runtime_classes=RUNTIME_CLASSES))
        if auto:  # its pools are read; the ones GKE may add are not in the stack
            found.unread.append(Unread(resource.urn, resource.name, "GKE cluster", AUTO_PROVISIONING if provisioning
                                       is True else "may have node auto-provisioning (clusterAutoscaling.enabled is "
                                       "not known yet), so it may have pools the stack does not declare"))
        if by_default:  # the Pods that request no class may run on nodes its class named default makes
            found.unread.append(Unread(resource.urn, resource.name, "GKE cluster", DEFAULTED if defaulted is True
                                       else "may give the Pods that request no ComputeClass the one named default "
                                       "(clusterAutoscaling.defaultComputeClassEnabled is not known yet), so it may "
                                       "have pools the stack does not declare"))
        inline = child(props, "nodePools")
        removed = child(props, "removeDefaultNodePool")
        claim = Claim(resource, inline=resource.urn)
        if isinstance(inline, Unknown) or isinstance(removed, Unknown):
            found.unread.append(Unread(resource.urn, resource.name, "GKE cluster",
                                       "has node pools that are not known yet"))
        elif is_list(inline) and len(inline) > 0:
            for index in range(len(inline)):
                entry = read_value(inline, index)
                if isinstance(entry, Unknown):
                    found.unread.append(Unread(resource.urn, resource.name, "GKE cluster",
                                               f"has nodePools[{index}], which is not known yet"))
                    continue
                found.pools.append((node_pool("GKE Cluster", resource.urn, entry, f"nodePools[{index}]", zones,
                                              unsized=unsized, inline=True,
                                              zone_count=zone_count(props, provider_props),
                                              cluster_max_pods=default_pods), claim))
        elif removed is not True:
            found.pools.append((node_pool("GKE Cluster", resource.urn, props, DEFAULT_POOL, zones, True, unsized,
                                          inline=True, zone_count=zone_count(props, provider_props)), claim))
    return found


# What replaces them: the inputs the Terraform Google provider that pulumi-gcp bridges marks ForceNew
# (hashicorp/terraform-provider-google google/services/container/resource_container_node_pool.go, node_config.go,
# resource_container_cluster.go, release 7.x); a node pool's machineType, diskSizeGb, diskType, imageType, labels,
# taints, version and autoscaling update it in place (GKE recreates its nodes a few at a time). The same nodeConfig
# on a cluster is its default pool's: a change there replaces the whole cluster. pulumi-gcp names a node pool the
# program names none (auto-naming every name).
NODE_CONFIG = tuple(f"nodeConfig.{key}" for key in (
    "advancedMachineFeatures", "bootDiskKmsKey", "confidentialNodes", "enableConfidentialStorage",
    "ephemeralStorageLocalSsdConfig", "flexStart", "guestAccelerators", "hostMaintenancePolicy",
    "localNvmeSsdBlockConfig", "localSsdCount", "localSsdEncryptionMode", "maxRunDuration", "metadata",
    "minCpuPlatform", "nodeGroup", "oauthScopes", "preemptible", "reservationAffinity", "sandboxConfig",
    "secondaryBootDisks", "serviceAccount", "shieldedInstanceConfig", "soleTenantConfig", "spot"))
# A cluster's own (resource_container_cluster.go, ResourceContainerCluster's schema): its network, subnetwork and IP
# allocation, its Pod range and Pods per node, its datapath, Autopilot, its default pool's initial size, and its
# inline nodePools, whole ("node pools defined inside a cluster can't be changed (or added/removed) after cluster
# creation without deleting and recreating the entire cluster"); and of its nodeConfig, the fields it makes ForceNew
# beyond a node pool's (forceNewClusterNodeConfigFields: labels, workload_metadata_config). Left out: fields whose
# ForceNew later releases dropped or that they removed (private_cluster_config.enable_private_nodes, dns_config,
# enable_tpu): a change the pack cannot show replaces the cluster is never refused.
CLUSTER_INPUTS = ("clusterIpv4Cidr", "description", "enableKubernetesAlpha", "enableAutopilot", "initialNodeCount",
                  "confidentialNodes", "masterAuth.clientCertificateConfig", "network", "subnetwork", "nodePools",
                  "ipAllocationPolicy", "networkingMode", "privateClusterConfig.masterIpv4CidrBlock",
                  "privateClusterConfig.privateEndpointSubnetwork", "defaultMaxPodsPerNode", "datapathProvider",
                  "clusterAutoscaling.autoProvisioningDefaults.bootDiskKmsKey")
CLUSTER_NODE_CONFIG = ("nodeConfig.labels", "nodeConfig.workloadMetadataConfig")
# What GKE applies in place by recreating every node of the pool with its upgrade strategy (each drained as in an
# upgrade): a change of machine type, boot disk type or boot disk size (cloud.google.com/kubernetes-engine/docs/how-to/
# node-pools, "Vertically scale the nodes in a node pool"), and of image type (.../docs/how-to/node-images, "Changing
# the node image"). The machine type is the pool's machine (replacement.changes compares it); these are the rest.
RECREATES = ("nodeConfig.diskSizeGb", "nodeConfig.diskType", "nodeConfig.imageType")
REPLACES = {
    NODE_POOL: Replacing(("cluster", "location", "project", "name", "namePrefix", "initialNodeCount",
                          "maxPodsPerNode", "placementPolicy", "queuedProvisioning", "networkConfig.podRange",
                          "networkConfig.podIpv4CidrBlock", "networkConfig.createPodRange",
                          "networkConfig.subnetwork", *NODE_CONFIG), "name", "namePrefix",
                         provider="the Google Cloud provider", recreates=RECREATES),
    # network and subnetwork: "DiffSuppressFunc: tpgresource.CompareSelfLinkOrResourceName" (the same file): GKE
    # returns a self-link (projects/p/regions/r/subnetworks/default) where the program writes "default"
    CLUSTER: Replacing(("name", "location", "project", *CLUSTER_INPUTS, *NODE_CONFIG, *CLUSTER_NODE_CONFIG), "name",
                       whole_cluster=True, provider="the Google Cloud provider", self_links=("network", "subnetwork"),
                       recreates=RECREATES),
}

def join(pool: Pool, ref: ClusterRef, cluster: KubeCluster) -> Pool:
    """What a GKE cluster gives a pool that joins it: a pool whose zones are its cluster's takes them, and its size
    per zone in each (in as many zones as a regional cluster's, which GKE picks: REGIONAL_ZONES, when their names are
    not known)."""
    zones = cluster.zones
    if pool.zones is None and pool.per_zone is not None and isinstance(zones, tuple) and zones:
        labels = {**pool.labels, **dict.fromkeys(ZONE_KEYS, frozenset(zones))}
        most = pool.per_zone * len(zones) if isinstance(pool.per_zone, int) and pool.max_size is None \
            else pool.max_size
        least = pool.per_zone_min * len(zones) if isinstance(pool.per_zone_min, int) and pool.min_size is None \
            else pool.min_size
        return replace(pool, cluster=ref, zones=zones, labels=labels, max_size=most, min_size=least,
                       size_note="" if isinstance(most, int) else pool.size_note,
                       size_zones=len(zones) if pool.size_zones is None and isinstance(
                           pool.per_zone, int) and pool.max_size is None else pool.size_zones)
    count = cluster.zone_count
    if pool.zones is None and isinstance(pool.per_zone, int) and pool.max_size is None and count is not None:
        least = pool.per_zone_min * count if isinstance(pool.per_zone_min, int) and pool.min_size is None \
            else pool.min_size
        return replace(pool, cluster=ref, max_size=pool.per_zone * count, min_size=least, size_note="",
                       size_zones=count)
    return pool


SOURCES = (Source("GKE node pool and cluster", (NODE_POOL, CLUSTER), read, settle=gpu_taints,
                  remember=checked_inputs, replaces=REPLACES, addresses=addresses, join=join),)
