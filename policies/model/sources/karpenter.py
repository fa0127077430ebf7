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
* its kubelet settings (maxPods, kubeReserved, systemReserved, evictionHard) are its EC2NodeClass's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ...platforms.catalog import Machine, machines
from ...platforms.quantity import CPU, MEMORY, STORAGE, base_units, parse_quantity
from ..platform_pools import PlatformPool
from ..scheduling import ANY, Domain, Taint
from ..values import Unknown, child, is_list, is_mapping, plain, undetermined
from .common import KUBERNETES_EFFECTS, add_labels, object_taint, taints

NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
NODEPOOL_LABEL = "karpenter.sh/nodepool"

ARCH = "kubernetes.io/arch"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
AWS = "karpenter.k8s.aws/"
# The labels an instance type decides (scheduling.md, "Well-Known Labels"), with the deprecated spellings
# Karpenter translates ("Karpenter translates the following deprecated labels to their stable equivalents").
MACHINE_KEYS = (ARCH, "beta.kubernetes.io/arch", INSTANCE_TYPE, "beta.kubernetes.io/instance-type",
                f"{AWS}instance-family", f"{AWS}instance-category", f"{AWS}instance-generation",
                f"{AWS}instance-size", f"{AWS}instance-cpu", f"{AWS}instance-memory")
# Labels on every node Karpenter starts, with values the NodePool may narrow (scheduling.md, "Well-Known Labels").
EVERY_NODE = ("kubernetes.io/os", "beta.kubernetes.io/os", "topology.kubernetes.io/zone",
              "topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
              "failure-domain.beta.kubernetes.io/region", "kubernetes.io/hostname", "karpenter.sh/capacity-type",
              "topology.k8s.aws/zone-id", "karpenter.k8s.aws/ec2nodeclass")
# Karpenter's AWS labels the pack does not derive (hypervisor, GPU name, bandwidth, ...): present on some nodes.
MAYBE_PREFIXES = (AWS,)
_ARCHITECTURE = {"x86_64": "amd64", "arm64": "arm64"}
# The category and generation of an instance type, as Karpenter's AWS provider reads them from its name
# (aws/karpenter-provider-aws pkg/providers/instancetype: the letters, an optional -<n>tb, the generation).
_SCHEME = re.compile(r"^([a-z]+)(-[0-9]+tb)?([0-9]+)")
_LETTERS = re.compile(r"^[a-z]+")
_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")


def machine_labels(machine: Machine) -> dict[str, str]:
    """The labels the nodes of an instance type carry that the type itself decides."""
    family, _, size = machine.name.partition(".")
    labels = {ARCH: _ARCHITECTURE.get(machine.architecture, machine.architecture), INSTANCE_TYPE: machine.name,
              f"{AWS}instance-family": family, f"{AWS}instance-size": size}
    labels["beta.kubernetes.io/arch"] = labels[ARCH]
    labels["beta.kubernetes.io/instance-type"] = machine.name
    scheme = _SCHEME.match(family)
    category = _LETTERS.match(family)
    if category is not None:
        labels[f"{AWS}instance-category"] = category.group(0)
    if scheme is not None:
        labels[f"{AWS}instance-generation"] = scheme.group(3)
    if machine.vcpus is not None:
        labels[f"{AWS}instance-cpu"] = str(machine.vcpus)
    if machine.memory_mib is not None:
        labels[f"{AWS}instance-memory"] = str(machine.memory_mib)
    return labels


def _holds(operator: str, values: tuple[str, ...], value: str | None) -> bool:
    """A NodePool requirement on one label value (None: absent)."""
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    try:
        number, bound = int(value or ""), int(values[0])
    except (ValueError, IndexError):
        return False
    return {"Gt": number > bound, "Lt": number < bound, "Gte": number >= bound, "Lte": number <= bound}[operator]


Requirement = tuple[str, str, tuple[str, ...]]


@functools.lru_cache(maxsize=1)
def _catalog_labels() -> tuple[tuple[Machine, dict[str, str]], ...]:
    """Every AWS machine of the catalog with its labels, derived once."""
    return tuple((machine, machine_labels(machine)) for machine in machines("aws"))


@functools.lru_cache(maxsize=256)
def _allowed(requirements: tuple[Requirement, ...]) -> tuple[tuple[Machine, Mapping[str, str]], ...]:
    """The machines that meet every requirement on a label the machine decides (a label the pack cannot derive
    for a machine is taken as met: such a machine may be allowed). Pools of the same requirements share it."""
    return tuple((machine, found) for machine, found in _catalog_labels()
                 if all(_holds(operator, values, found.get(key)) if key in found else True
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
        if not isinstance(key, str) or operator not in _OPERATORS or not is_list(values) \
                or not all(isinstance(value, str) for value in values):
            return None
        found.append((key, operator, tuple(values)))
    return found


def _taints(spec: Any) -> tuple[Taint, ...] | Unknown | None:
    return taints(child(spec, "taints"), lambda item: object_taint(item, KUBERNETES_EFFECTS))

def _names_certain(requirements: list[Requirement]) -> bool:
    """The requirements name the machines outright (instance types or families In), every name in the catalog:
    what they allow is then the catalog's to say, not a machine launched since."""
    families = {found[f"{AWS}instance-family"] for _, found in _catalog_labels()}
    types = {machine.name for machine, _ in _catalog_labels()}
    named = [(key, values) for key, operator, values in requirements if operator == "In"
             and key in (INSTANCE_TYPE, "beta.kubernetes.io/instance-type", f"{AWS}instance-family")]
    return bool(named) and all(all(value in (families if key.endswith("family") else types) for value in values)
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


def parse_nodepool(props: Any, urn: str, name: str, node_classes: Mapping[str, Any]) -> PlatformPool:
    """One NodePool as the nodes Karpenter may start for it."""
    metadata = child(props, "metadata")
    declared = child(metadata, "name")
    pool_name = declared if isinstance(declared, str) else name
    template = child(child(props, "spec"), "template")
    spec = child(template, "spec")
    unknown: Unknown | None = None
    for value in (declared, template, spec):
        if isinstance(value, Unknown):
            unknown = unknown or value
    labels: dict[str, Domain] = dict.fromkeys(EVERY_NODE, ANY)
    labels[NODEPOOL_LABEL] = frozenset({declared}) if isinstance(declared, str) else ANY
    unknown = unknown or add_labels(labels, child(child(template, "metadata"), "labels"))
    reference = plain(child(spec, "nodeClassRef"))
    class_name = reference.get("name") if is_mapping(reference) else None
    if isinstance(class_name, Unknown):
        unknown = unknown or class_name
    elif isinstance(class_name, str):
        labels["karpenter.k8s.aws/ec2nodeclass"] = frozenset({class_name})
    requirements = _requirements(spec)
    taints = _taints(spec)
    if isinstance(requirements, Unknown):
        unknown = unknown or requirements
    if isinstance(taints, Unknown):
        unknown = unknown or taints
    by_machine = [requirement for requirement in requirements or () if requirement[0] in MACHINE_KEYS] \
        if isinstance(requirements, list) else []
    for key, operator, values in requirements if isinstance(requirements, list) else ():
        if key in MACHINE_KEYS:
            continue
        if operator == "In":
            current = labels.get(key)
            labels[key] = frozenset(values) & current if isinstance(current, frozenset) else frozenset(values)
        elif operator == "DoesNotExist":
            labels.pop(key, None)
        elif not isinstance(labels.get(key), frozenset):
            labels[key] = ANY  # Exists, NotIn, Gt, Lt: on every node, with a value the pack does not pick
    allowed = _allowed(tuple(by_machine))
    named = tuple(value for key, operator, values in by_machine if operator == "In"
                  and key in (INSTANCE_TYPE, "beta.kubernetes.io/instance-type") for value in values)
    if requirements is None or taints is None:  # the API server refuses such a NodePool: nothing to judge
        unknown = unknown or undetermined(f"NodePool '{pool_name}' has requirements or taints its schema refuses")
    node_class = node_classes.get(class_name) if isinstance(class_name, str) else None
    return PlatformPool("NodePool", urn, pool_name, "aws", labels, allowed,
                        taints if isinstance(taints, tuple) else (), unknown, MAYBE_PREFIXES,
                        MACHINE_KEYS, kubelet(node_class) if node_class is not None else {},
                        limits(child(props, "spec")), named_types=named, names_certain=_names_certain(by_machine))


def is_nodepool(resource_type: str) -> bool:
    return resource_type == NODEPOOL


def is_node_class(resource_type: str) -> bool:
    return resource_type == NODECLASS

