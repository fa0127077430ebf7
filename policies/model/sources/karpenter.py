"""Karpenter NodePools (``karpenter.sh/v1``) and their EC2NodeClasses, as pulumi-kubernetes sends them
(``apiextensions.CustomResource``, or a ConfigGroup / ConfigFile / Chart child): one
:class:`~policies.model.platform_pools.PlatformPool` per NodePool.

Read from Karpenter's own documentation (../shared/third_party/karpenter/docs/: nodepools.md "spec.template.
spec.requirements", scheduling.md "Well-Known Labels" and "User-Defined Labels"):

* its machines are the AWS catalog's instance types that satisfy every requirement on a label the instance
  type decides (arch, instance-type, -family, -category, -generation, -size, -cpu, -memory), with In,
  NotIn, Exists, DoesNotExist, Gt, Lt and Karpenter's Gte and Lte;
* its nodes carry ``karpenter.sh/nodepool=<name>``, ``spec.template.metadata.labels``, each requirement's
  values on other keys, and the well-known labels Karpenter sets on every node (zone, capacity type, os,
  hostname: any value unless a requirement narrows it); a label that is none of these and not
  ``karpenter.k8s.aws/*`` is never on its nodes ("pods will remain pending");
* its taints are ``spec.template.spec.taints``; ``startupTaints`` are removed before Pods schedule;
* its kubelet settings (maxPods, kubeReserved, systemReserved, evictionHard) are its EC2NodeClass's;
* its zones are its ``topology.kubernetes.io/zone`` requirement's (In), else not known.

A NodePool whose ``nodeClassRef.group`` is ``eks.amazonaws.com`` is an EKS Auto Mode NodePool (SPEC 14.1): its
instance labels have the ``eks.amazonaws.com/`` prefix instead of ``karpenter.k8s.aws/`` ("EKS Auto Mode Supported
Labels", docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html), and its nodes carry
``eks.amazonaws.com/compute-type=auto`` (.../associate-workload.html). A cluster's built-in Auto Mode NodePools are
read by eks.py and judged here alike (:func:`nodepool`).

A NodePool whose ``nodeClassRef.group`` is ``karpenter.azure.com`` is AKS node auto-provisioning's (Karpenter's Azure
provider, Azure/karpenter-provider-azure; SPEC 22): its machines are the Azure catalog's VM sizes, which that project's
list of known sizes gives (../shared/third_party/azure-known-skus), with the labels each size decides as that provider
sets them (its pkg/providers/instancetype computeRequirements, and learn.microsoft.com/azure/aks/
node-autoprovision-node-pools, "SKU selectors with well known labels"): ``karpenter.azure.com/sku-name``, ``sku-family``
(the size name's first letter: D, E, F, N, ...), ``sku-series`` (Ds_v5), ``sku-version`` (5; 1 for a name without one),
``sku-cpu``, ``sku-memory`` (MiB) and their ``kubernetes.azure.com/`` twins, the GPU count, maker and name; its nodes
run Linux only (every size it offers requires kubernetes.io/os linux), and their maxPods is the AKSNodeClass's
``spec.maxPods``, else the cluster's network plugin's default (that provider's GetMaxPods: the same 30, 110 and 250 as
AKS's own pools).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from ...platforms.architectures import node_label
from ...platforms.catalog import Machine, machines
from ...platforms.quantity import CPU, MEMORY, STORAGE, base_units, parse_quantity
from ..clusters import Claim
from ..labels import ARCH, HOSTNAME, INSTANCE_TYPE, LINUX, OS, OS_BETA, REGION, REGION_BETA, ZONE, ZONE_BETA
from ..labels import MACHINE_KEYS as GENERIC_MACHINE_KEYS
from ..pool import Lifetime, Option, Pool, machine_hardware
from ..resources import StackResource
from ..scheduling import ANY, Domain, Taint
from ..selectors import KARPENTER_OPERATORS, holds
from ..values import Unknown, as_int, child, derived, is_list, is_mapping, plain, undetermined
from ..versions import Version
from . import Context, Read, Source
from .common import AWS_MAYBE, AZURE_MAYBE, EVERY_MAYBE, KUBERNETES_EFFECTS, add_labels, object_taint, system, taints

NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
AUTO_MODE_GROUP = "eks.amazonaws.com"  # an EKS Auto Mode NodeClass's API group

AWS = "karpenter.k8s.aws/"
AUTO = "eks.amazonaws.com/"
_INSTANCE_LABELS = ("instance-family", "instance-category", "instance-generation", "instance-size", "instance-cpu",
                    "instance-memory")
# The labels an instance type decides (scheduling.md, "Well-Known Labels"), with the deprecated spellings
# Karpenter translates ("Karpenter translates the following deprecated labels to their stable equivalents"), under
# Karpenter's prefix and EKS Auto Mode's.
MACHINE_KEYS = (*GENERIC_MACHINE_KEYS, *(f"{AWS}{label}" for label in _INSTANCE_LABELS),
                *(f"{AUTO}{label}" for label in _INSTANCE_LABELS))
# Labels on every node Karpenter starts, with values the NodePool may narrow (scheduling.md, "Well-Known Labels"), on
# any cloud; and on EC2's, its zone id.
EVERY_KARPENTER_NODE = (OS, OS_BETA, ZONE, REGION, ZONE_BETA, REGION_BETA, HOSTNAME, "karpenter.sh/capacity-type")
EVERY_NODE = (*EVERY_KARPENTER_NODE, "topology.k8s.aws/zone-id")
# Karpenter's AWS labels the pack does not derive (hypervisor, GPU name, bandwidth, ...) and its own
# (karpenter.sh/initialized, karpenter.sh/registered, ...): present on some nodes; and every EC2 node's.
MAYBE_PREFIXES = (AWS, "karpenter.sh/", *AWS_MAYBE, *EVERY_MAYBE)
AUTO_MAYBE_PREFIXES = (AUTO, "karpenter.sh/", *AWS_MAYBE, *EVERY_MAYBE)
# The category and generation of an instance type, as Karpenter's AWS provider reads them from its name
# (aws/karpenter-provider-aws pkg/providers/instancetype: the letters, an optional -<n>tb, the generation).
_SCHEME = re.compile(r"^([a-z]+)(-[0-9]+tb)?([0-9]+)")
_LETTERS = re.compile(r"^[a-z]+")


def machine_labels(machine: Machine, prefix: str = AWS) -> dict[str, str]:
    """The labels the nodes of an instance type carry that the type itself decides (``prefix``: Karpenter's, or
    EKS Auto Mode's)."""
    family, _, size = machine.name.partition(".")
    labels = {ARCH: node_label(machine.architecture), INSTANCE_TYPE: machine.name,
              f"{prefix}instance-family": family, f"{prefix}instance-size": size}
    labels["beta.kubernetes.io/arch"] = labels[ARCH]
    labels["beta.kubernetes.io/instance-type"] = machine.name
    scheme = _SCHEME.match(family)
    category = _LETTERS.match(family)
    if category is not None:
        labels[f"{prefix}instance-category"] = category.group(0)
    if scheme is not None:
        labels[f"{prefix}instance-generation"] = scheme.group(3)
    if machine.vcpus is not None:
        labels[f"{prefix}instance-cpu"] = str(machine.vcpus)
    if machine.memory_mib is not None:
        labels[f"{prefix}instance-memory"] = str(machine.memory_mib)
    return labels


# AKS node auto-provisioning's: Karpenter's Azure provider and the labels it gives the VM sizes (the module docstring).
AZURE = "karpenter.azure.com/"
AKS_DOMAIN = "kubernetes.azure.com/"
_SKU_LABELS = ("sku-name", "sku-family", "sku-series", "sku-version", "sku-cpu", "sku-memory", "sku-gpu-count",
               "sku-gpu-manufacturer", "sku-gpu-name")
AZURE_MACHINE_KEYS = (*GENERIC_MACHINE_KEYS, *(f"{AZURE}{label}" for label in _SKU_LABELS),
                      f"{AKS_DOMAIN}sku-cpu", f"{AKS_DOMAIN}sku-memory")
AZURE_MAYBE_PREFIXES = (AZURE, "karpenter.sh/", *AZURE_MAYBE, *EVERY_MAYBE)
# An Azure size name as Azure's naming conventions write it (learn.microsoft.com/azure/virtual-machines/
# vm-naming-conventions): Standard_<family letter><sub-family letters><vCPUs>[-<constrained vCPUs>]<additive features>
# [_<accelerator>][_<variant>][_v<version>]. Its family is the first letter, its series the letters and features with
# the version ("Ds_v5", "NCads_v4"), its version the number (1 when it names none): as the provider's labels read them.
_AZURE_SIZE = re.compile(r"^Standard_([A-Z])([A-Z]{0,2})[0-9]+(?:-[0-9]+)?([a-z]*)((?:_[A-Za-z0-9]+)*)$")
_AZURE_VERSION = re.compile(r"^[vV]([1-9])$")
_AZURE_ACCELERATOR = re.compile(r"^[A-Z]+[0-9]+[A-Z]*$")


def azure_machine_labels(machine: Machine) -> dict[str, str]:
    """The labels the nodes of an Azure VM size carry that the size itself decides, as AKS node auto-provisioning sets
    them; a label the pack cannot derive for it (the family of a name it cannot read, the memory of a size the catalog
    does not know, the GPU count of a fraction of a GPU, the vCPUs of a constrained size) is left out, so that no
    requirement on it excludes the size."""
    labels = {ARCH: node_label(machine.architecture), INSTANCE_TYPE: machine.name, f"{AZURE}sku-name": machine.name}
    labels["beta.kubernetes.io/arch"] = labels[ARCH]
    labels["beta.kubernetes.io/instance-type"] = machine.name
    # a constrained size (Standard_E4-2s_v3) runs its active vCPUs, while the label counts the SKU API's vCPUs
    # capability (Azure/skewer SKU.VCPU), which may be the full size's: which one is not said, so neither is taken
    if machine.vcpus is not None and "-" not in machine.name:
        labels[f"{AZURE}sku-cpu"] = labels[f"{AKS_DOMAIN}sku-cpu"] = str(machine.vcpus)
    if machine.memory_mib is not None:
        labels[f"{AZURE}sku-memory"] = labels[f"{AKS_DOMAIN}sku-memory"] = str(machine.memory_mib)
    if machine.gpu_type is None:
        labels[f"{AZURE}sku-gpu-count"] = "0"
    else:
        labels[f"{AZURE}sku-gpu-manufacturer"] = machine.gpu_type.split("-", 1)[0]  # nvidia-t4: nvidia; amd-...: amd
        if machine.gpu_count is not None and machine.gpu_fraction is None:
            labels[f"{AZURE}sku-gpu-count"] = str(machine.gpu_count)
    found = _AZURE_SIZE.match(machine.name)
    if found is not None:
        family, sub, features, rest = found.groups()
        parts = [part for part in rest.split("_") if part and part != "xl"]
        version = next((match.group(1) for part in parts if (match := _AZURE_VERSION.match(part))), None)
        labels[f"{AZURE}sku-family"] = family
        labels[f"{AZURE}sku-series"] = f"{family}{sub}{features}{f'_v{version}' if version else ''}"
        labels[f"{AZURE}sku-version"] = version or "1"
        accelerator = next((part for part in parts if _AZURE_ACCELERATOR.match(part)), None)
        if machine.gpu_type is not None and accelerator is not None:
            labels[f"{AZURE}sku-gpu-name"] = accelerator
    return labels


Requirement = tuple[str, str, tuple[str, ...]]


@functools.lru_cache(maxsize=3)
def _catalog_labels(prefix: str) -> tuple[tuple[Machine, dict[str, str]], ...]:
    """Every machine of the catalog the prefix's Karpenter starts (AWS's, Azure's) with its labels, derived once."""
    if prefix == AZURE:
        return tuple((machine, azure_machine_labels(machine)) for machine in machines("azure"))
    return tuple((machine, machine_labels(machine, prefix)) for machine in machines("aws"))


@functools.lru_cache(maxsize=256)
def _allowed(requirements: tuple[Requirement, ...], prefix: str) -> tuple[Option, ...]:
    """The machines that meet every requirement on a label the machine decides (a label the pack cannot derive
    for a machine is taken as met: such a machine may be allowed). Pools of the same requirements share it."""
    return tuple(Option(machine_hardware(machine), found) for machine, found in _catalog_labels(prefix)
                 if all(holds(operator, values, found.get(key)) if key in found else True
                        for key, operator, values in requirements))


def _requirements(spec: Any) -> list[Requirement] | Unknown | None:
    """The NodePool's requirements; None when one cannot be read (the API server refuses the NodePool)."""
    listed = plain(child(spec, "requirements"))
    if isinstance(listed, Unknown):
        return listed
    found: list[Requirement] = []
    for item in listed if is_list(listed) else ():
        if not is_mapping(item):
            return None
        key, operator, values = item.get("key"), item.get("operator"), item.get("values") or []
        for value in (key, operator, *values) if is_list(values) else (key, operator):
            if isinstance(value, Unknown):
                return value
        if not isinstance(key, str) or operator not in KARPENTER_OPERATORS or not is_list(values) \
                or not all(isinstance(value, str) for value in values):
            return None
        found.append((key, operator, tuple(values)))
    return found


def _type_keys(prefix: str) -> tuple[str, ...]:
    """The requirement keys that name machines outright: the instance type, and Azure's sku-name."""
    return (INSTANCE_TYPE, "beta.kubernetes.io/instance-type", *((f"{AZURE}sku-name",) if prefix == AZURE else ()))


def _names_certain(requirements: Sequence[Requirement], prefix: str) -> bool:
    """The requirements name the machines outright (instance types or families In), every name in the catalog:
    what they allow is then the catalog's to say, not a machine launched since."""
    catalog = _catalog_labels(prefix)
    family = f"{prefix}sku-family" if prefix == AZURE else f"{prefix}instance-family"
    families = {found[family] for _, found in catalog if family in found}
    types = {machine.name for machine, _ in catalog}
    named = [(key, values) for key, operator, values in requirements if operator == "In"
             and key in (*_type_keys(prefix), family)]
    return bool(named) and all(all(value in (families if key == family else types) for value in values)
                               for key, values in named)


def node_class_name(props: Any) -> str | None:
    name = child(child(props, "metadata"), "name")
    return name if isinstance(name, str) else None


def kubelet(node_class: Any) -> dict[str, Any]:
    """An EC2NodeClass's kubelet settings in the ``allocatable`` setting's shape (policies/model/nodes.py):
    maxPods, kubeReserved, systemReserved, and evictionHard's memory.available and nodefs.available when given
    as amounts (a percentage is left out: the default it replaces is smaller, so allocatable is not understated
    beyond what the node gives)."""
    settings = plain(child(child(node_class, "spec"), "kubelet"))
    if not is_mapping(settings):
        return {}
    found: dict[str, Any] = {}
    if isinstance(settings.get("maxPods"), (int, float)) and not isinstance(settings.get("maxPods"), bool):
        found["maxPods"] = settings["maxPods"]
    for key in ("kubeReserved", "systemReserved"):
        amounts = settings.get(key)
        if is_mapping(amounts):
            found[key] = {resource: value for resource, value in amounts.items()
                          if resource in (CPU, MEMORY, STORAGE) and isinstance(value, str)}
    eviction = settings.get("evictionHard")
    if is_mapping(eviction):
        signals = {"memory.available": MEMORY, "nodefs.available": STORAGE}
        found["evictionHard"] = {signals[signal]: value for signal, value in eviction.items()
                                 if signal in signals and isinstance(value, str) and not value.endswith("%")}
    return found


def limits(spec: Any) -> dict[str, Decimal | Unknown]:
    """spec.limits: the most CPU and memory all the NodePool's nodes may have together (nodepools.md, "Limits");
    "Karpenter will not provision new nodes once the limit is reached"."""
    found: dict[str, Decimal | Unknown] = {}
    for resource in (CPU, MEMORY):
        value = child(child(spec, "limits"), resource)
        if isinstance(value, Unknown):
            found[resource] = value
        elif value is not None:
            amount = parse_quantity(value)
            if amount is not None and amount >= 0:
                found[resource] = base_units(resource, amount)
    return found


def nodepool(kind: str, urn: str, name: str, declared: Any, requirements: list[Requirement] | Unknown | None,
             found_taints: tuple[Taint, ...] | Unknown | None, *, template_labels: Any = None,
             auto_mode: bool = False, unknown: Unknown | None = None, node_class: str | Unknown | None = None,
             settings: Mapping[str, Any] | None = None, pool_limits: Mapping[str, Decimal | Unknown] | None = None,
             inline: bool = False, os: str | None = None, azure: bool = False) -> Pool:
    """One NodePool (Karpenter's, EKS Auto Mode's, or AKS node auto-provisioning's: ``azure``) as the nodes it may
    start (``inline``: one of the pools its cluster declares, as Auto Mode's built-in pools and AKS's default NodePools
    are; ``os``: the operating system of its node class's AMIs)."""
    prefix = AZURE if azure else AUTO if auto_mode else AWS
    machine_keys = AZURE_MACHINE_KEYS if azure else MACHINE_KEYS
    labels: dict[str, Domain] = dict.fromkeys(EVERY_KARPENTER_NODE if azure else EVERY_NODE, ANY)
    labels[NODEPOOL_LABEL] = frozenset({declared}) if isinstance(declared, str) else ANY
    if auto_mode:
        labels[f"{AUTO}compute-type"] = frozenset({"auto"})  # associate-workload.html: "set ... to auto"
    elif azure:
        os = LINUX  # every size the Azure provider offers requires kubernetes.io/os linux
    else:
        labels["karpenter.k8s.aws/ec2nodeclass"] = frozenset({node_class}) if isinstance(node_class, str) else ANY
    late = add_labels(labels, template_labels)
    if isinstance(node_class, Unknown):
        late = late or node_class
    if isinstance(requirements, Unknown):
        unknown = unknown or requirements
    if isinstance(found_taints, Unknown):
        late = late or found_taints
    by_machine = [requirement for requirement in requirements or () if requirement[0] in machine_keys] \
        if isinstance(requirements, list) else []
    zones: tuple[str, ...] | None = None
    for key, operator, values in requirements if isinstance(requirements, list) else ():
        if key in machine_keys:
            continue
        if operator == "In":
            current = labels.get(key)
            labels[key] = frozenset(values) & current if isinstance(current, frozenset) else frozenset(values)
            found = labels[key]
            if key == ZONE and isinstance(found, frozenset):
                zones = tuple(sorted(found))
        elif operator == "DoesNotExist":
            labels.pop(key, None)
        elif not isinstance(labels.get(key), frozenset):
            labels[key] = ANY  # Exists, NotIn, Gt, Lt: on every node, with a value the pack does not pick
    capacity = labels.get(CAPACITY_TYPE)
    if azure and SCALE_SET_PRIORITY not in labels:  # (where a requirement or a template label sets it, theirs)
        labels[SCALE_SET_PRIORITY] = frozenset(PRIORITIES[found] for found in capacity) \
            if isinstance(capacity, frozenset) and capacity <= PRIORITIES.keys() else ANY
    if os is not None:  # its nodes run their AMIs' OS, whatever the requirements allow besides
        current = labels.get(OS)
        labels[OS] = labels[OS_BETA] = frozenset({os}) & current if isinstance(current, frozenset) \
            else frozenset({os})
    allowed = _allowed(tuple(by_machine), prefix)
    named = tuple(value for key, operator, values in by_machine if operator == "In"
                  and key in _type_keys(prefix) for value in values)
    if requirements is None or found_taints is None:  # the API server refuses such a NodePool: nothing to judge
        unknown = unknown or undetermined(f"NodePool '{name}' has requirements or taints its schema refuses")
    return Pool(kind, urn, name, platform="azure" if azure else "aws", options=allowed, labels=labels,
                taints=found_taints if isinstance(found_taints, tuple) else (), unknown=unknown, labels_unknown=late,
                maybe_prefixes=AZURE_MAYBE_PREFIXES if azure else AUTO_MAYBE_PREFIXES if auto_mode else MAYBE_PREFIXES,
                machine_keys=machine_keys,
                kubelet=dict(settings or {}), limits=dict(pool_limits or {}), zones=zones, named_types=named,
                names_certain=_names_certain(by_machine, prefix),
                member=(f"NodePool '{name}'" if azure else f"pool '{name}'") if inline else "",
                karpenter=True, interruption=_interruption(capacity, unknown),
                dra_driver_from=AUTO_MODE_DRA if auto_mode else None,
                capacity_label=CAPACITY_TYPE, capacity_types=CAPACITY_TYPES)


CAPACITY_TYPE = "karpenter.sh/capacity-type"
# EKS Auto Mode's nodes run NVIDIA's DRA driver from Kubernetes 1.36, and Auto Mode provisions for DRA claims there
# (docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-dra-device-plugin.html: "EKS Auto Mode includes
# the NVIDIA DRA driver in the node runtime on Kubernetes version 1.36 and later")
AUTO_MODE_DRA = (1, 36)
# AKS node auto-provisioning's nodes carry kubernetes.azure.com/scalesetpriority, "spot" or "regular" by their capacity
# type ("Note that "regular" is never written by AKS as a label but we write it to make scheduling easier":
# Azure/karpenter-provider-azure pkg/apis/v1beta1/labels.go at 352646f; its computeRequirements gives every size the
# requirement In [regular, spot]), so a Pod that selects AKS's spot label runs on the spot capacity a NodePool allows.
SCALE_SET_PRIORITY = "kubernetes.azure.com/scalesetpriority"
PRIORITIES = {"spot": "spot", "on-demand": "regular"}
# nodepools.md, "Capacity Type": spot, on-demand, reserved (capacity reservations); only spot is reclaimed
CAPACITY_TYPES = {"spot": "spot", "on-demand": "", "reserved": ""}


def _interruption(capacity: Any, unknown: Unknown | None) -> str | None:
    """"spot" when the NodePool's requirements allow spot capacity only (karpenter.sh/capacity-type In [spot]:
    every node it starts may be reclaimed); "" when they allow another; None when not known."""
    if unknown is not None:
        return None
    if isinstance(capacity, frozenset):
        return "spot" if capacity == frozenset({"spot"}) else ""
    return ""  # no requirement: Karpenter starts on-demand capacity


def class_os(node_class: Any) -> str | None:
    """The operating system of an EC2NodeClass's AMIs: its alias's family (al2, al2023, bottlerocket: Linux;
    windows2019, windows2022, windows2025: Windows Server), else its amiFamily (AL2, AL2023, Bottlerocket; Windows2019,
    Windows2022, Windows2025), as the karpenter.k8s.aws/v1 EC2NodeClass CRD lists them (amiSelectorTerms.alias
    "Valid families include: al2, al2023, bottlerocket, windows2019, windows2022, windows2025", amiFamily's enum);
    None for Custom, a node class the stack does not declare, or one not known yet."""
    family = _alias(node_class)
    if family is None:
        family = child(child(node_class, "spec"), "amiFamily")
    if not isinstance(family, str) or family.lower() not in _FAMILIES:
        return None
    return system(family.lower().startswith("windows"), family)


def _alias(node_class: Any) -> str | None:
    """The family of an EC2NodeClass's alias term (al2023@latest: al2023), lower case (secret when the alias is)."""
    terms = plain(child(child(node_class, "spec"), "amiSelectorTerms"))
    family = None
    for term in terms if is_list(terms) else ():
        alias = term.get("alias") if is_mapping(term) else None
        if isinstance(alias, str) and "@" in alias:
            family = derived(alias.split("@", 1)[0].lower(), alias)
    return family


def class_image(node_class: Any) -> tuple[str, str] | None:
    """The image its NodePools' nodes run, as node-image-supported reads it (SPEC 23): an alias's family, the EKS
    optimized AMI for the cluster's version; None for AMIs it selects otherwise (an id, a name, tags: custom AMIs,
    which may be built for any version)."""
    family = _alias(node_class)
    return ("amiSelectorTerms.alias", family) if family is not None else None


_FAMILIES = ("al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025")
# The Kubernetes version an EC2NodeClass's AMI selector names, where it names one: an SSM parameter of EKS's optimized
# AMIs (/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/..., /aws/service/bottlerocket/aws-k8s-1.31/...:
# docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id.html) or an EKS AMI's name (amazon-eks-node-al2023-x86_64-
# standard-1.31-v20240817). An alias (al2023@v20240807) names an AMI release for the cluster's own version: none.
_AMI_VERSION = re.compile(r"(?:optimized-ami(?:-[a-z0-9]+)?/|aws-k8s-|-)(\d+\.\d+)(?:/|-v\d{8})")


def class_version(node_class: Any) -> Version | None:
    """The Kubernetes version every AMI an EC2NodeClass selects is built for, when its terms all name the same one;
    None when they name none (an alias, an id, tags: the cluster's version)."""
    terms = plain(child(child(node_class, "spec"), "amiSelectorTerms"))
    named: set[str] = set()
    for term in terms if is_list(terms) else ():
        text = next((term.get(key) for key in ("ssmParameter", "name") if is_mapping(term)
                     and isinstance(term.get(key), str)), None)
        found = _AMI_VERSION.search(text) if isinstance(text, str) else None
        if found is None:
            return None  # a term that names no version: the cluster's may be among them
        named.add(found.group(1))
    return Version("amiSelectorTerms", named.pop()) if len(named) == 1 else None


def parse_nodepool(resource: StackResource, node_classes: Mapping[str, Any],
                   aks_node_classes: Mapping[str, Any] | None = None) -> Pool:
    """One NodePool resource as the nodes Karpenter may start for it (its EC2NodeClass's or AKSNodeClass's settings,
    by name)."""
    aks_node_classes = aks_node_classes or {}
    props = resource.props
    metadata = child(props, "metadata")
    declared = child(metadata, "name")
    pool_name = declared if isinstance(declared, str) else resource.name
    template = child(child(props, "spec"), "template")
    spec = child(template, "spec")
    unknown = next((value for value in (declared, template, spec) if isinstance(value, Unknown)), None)
    reference = plain(child(spec, "nodeClassRef"))
    class_name = reference.get("name") if is_mapping(reference) else None
    group = reference.get("group") if is_mapping(reference) else None
    if isinstance(group, Unknown):
        unknown = unknown or group
    auto_mode = group == AUTO_MODE_GROUP
    azure = group == AZURE_NODE_CLASS_GROUP
    node_class = (aks_node_classes if azure else node_classes).get(class_name) \
        if isinstance(class_name, str) and not auto_mode else None
    version = class_version(node_class) if node_class is not None and not azure else None
    pool = nodepool("NodePool", resource.urn, pool_name, declared, _requirements(spec),
                    taints(child(spec, "taints"), lambda item: object_taint(item, KUBERNETES_EFFECTS)),
                    template_labels=child(child(template, "metadata"), "labels"), auto_mode=auto_mode,
                    unknown=unknown, node_class=class_name if isinstance(class_name, (str, Unknown)) else None,
                    settings=(aks_kubelet(node_class) if azure else kubelet(node_class)) if node_class is not None
                    else {}, pool_limits=limits(child(props, "spec")), os=None if azure else class_os(node_class),
                    azure=azure)
    pool = dataclasses.replace(pool, lifetime=lifetime(spec, auto_mode, child(child(props, "spec"), "disruption")),
                               image=None if azure else class_image(node_class))
    return dataclasses.replace(pool, version=version) if version is not None else pool


def aks_kubelet(node_class: Any) -> dict[str, Any]:
    """An AKSNodeClass's maxPods (its spec.maxPods, which the provider's GetMaxPods puts before the network plugin's
    default), in the ``allocatable`` setting's shape."""
    most = as_int(child(child(node_class, "spec"), "maxPods"))
    return {"maxPods": most} if most is not None and most > 0 else {}


# How long Karpenter lets a node live (the karpenter.sh/v1 NodePool CRD): spec.template.spec.expireAfter, 720h when
# the NodePool sets none, "Never" for no limit; terminationGracePeriod, how long a drain respects budgets before it
# deletes the Pods anyway ("bypasses any blocked PDBs"; undefined: it waits indefinitely). EKS Auto Mode replaces its
# nodes within 21 days whatever a NodePool says (docs.aws.amazon.com/eks/latest/userguide/automode.html: "a maximum
# lifetime of 21 days"), its built-in pools after 336h with a 24h grace (create-node-pool.html, set-builtin-node-pools).
EXPIRE_DEFAULT = "720h"
AUTO_MODE_LIMIT = "21 days"
AUTO_MODE_BUILT_IN = Lifetime("336h", "24h", "", "EKS Auto Mode", AUTO_MODE_LIMIT)
# Consolidation (spec.disruption.consolidationPolicy, "WhenEmptyOrUnderutilized" when unset; "Balanced"; "WhenEmpty"
# removes empty nodes only): Karpenter removes or replaces a node it finds underused, evicting its Pods within their
# budgets (the karpenter.sh/v1 NodePool CRD). A NodePool that writes a policy that does declares that schedule.
CONSOLIDATING = frozenset({"whenemptyorunderutilized", "balanced"})


def lifetime(spec: Any, auto_mode: bool, disruption: Any = None) -> Lifetime | None:
    """A NodePool's node lifetime, as its template's spec sets it, else as its disruption settings write its
    consolidation; None when its nodes never expire (or the values are not known yet: no schedule is claimed)."""
    expire, grace = child(spec, "expireAfter"), child(spec, "terminationGracePeriod")
    if isinstance(expire, Unknown) or isinstance(grace, Unknown):
        return None
    grace = grace if isinstance(grace, str) and grace else None
    platform = "EKS Auto Mode" if auto_mode else "Karpenter"
    policy = child(disruption, "consolidationPolicy")
    if not auto_mode and (not isinstance(expire, str) or not expire) and grace is None and isinstance(policy, str) \
            and policy.lower() in CONSOLIDATING:  # (with a grace, the 720h expiry below forces its drains)
        return Lifetime(f"whenever consolidation ({policy}) finds it underused", None,
                        "spec.disruption.consolidationPolicy", platform)
    if not isinstance(expire, str) or not expire:
        return Lifetime(AUTO_MODE_LIMIT if auto_mode else EXPIRE_DEFAULT, grace, "", platform,
                        AUTO_MODE_LIMIT if auto_mode else "")
    if expire == "Never":
        return Lifetime(AUTO_MODE_LIMIT, grace, "", platform, AUTO_MODE_LIMIT) if auto_mode else None
    return Lifetime(expire, grace, "spec.template.spec.expireAfter", platform, AUTO_MODE_LIMIT if auto_mode else "")


def read(resources: Sequence[StackResource], context: Context) -> Read:
    """The NodePools, with the settings of the EC2NodeClasses or AKSNodeClasses they reference by name."""
    node_classes = {name: resource.props for resource in resources if resource.type == NODECLASS
                    and (name := node_class_name(resource.props)) is not None}
    aks_node_classes = {name: resource.props for resource in resources if resource.type in AKS_NODECLASSES
                        and (name := node_class_name(resource.props)) is not None}
    found = Read()
    for resource in resources:
        if resource.type == NODEPOOL:
            found.pools.append((parse_nodepool(resource, node_classes, aks_node_classes),
                                Claim(resource, via_provider=True)))
    return found


# AKS node auto-provisioning runs Karpenter on Azure: its NodePools reference an AKSNodeClass of group
# karpenter.azure.com (learn.microsoft.com/azure/aks/node-autoprovision-node-pools; the provider's CRDs serve
# karpenter.azure.com/v1beta1 and v1alpha2).
AZURE_NODE_CLASS_GROUP = "karpenter.azure.com"
AKS_NODECLASSES = ("kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass",
                   "kubernetes:karpenter.azure.com/v1alpha2:AKSNodeClass")


SOURCES = (Source("Karpenter NodePool", (NODEPOOL, NODECLASS, *AKS_NODECLASSES), read),)
