"""GKE ComputeClasses (SPEC 22): a ComputeClass custom resource of the stack as the nodes GKE may make for the Pods that
request it, read from cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes (last updated
2026-04-13; the page the rules below cite):

* A Pod requests a class by a nodeSelector on ``cloud.google.com/compute-class``; "GKE only schedules Pods that request
  a specific ComputeClass on nodes in node pools that you associate with that ComputeClass": pools labelled with it and
  tainted ``cloud.google.com/compute-class=<class>:NoSchedule`` (a declared pool so labelled is read as written), and
  the pools GKE creates for it, which carry the same label and taint ("auto-created node pools ... perform this
  configuration for you").
* GKE creates pools for a class only with ``nodePoolAutoCreation.enabled: true`` ("Pods with ComputeClasses that don't
  configure node pool auto-creation continue to only scale up existing node pools"). Each declarative priority rule
  names what it makes: a ``machineType``; or a ``machineFamily`` (a machine series: "If unspecified, the default is e2")
  of at least ``minCores`` vCPUs and ``minMemoryGb`` of memory, "a machine type that is large enough to run your Pods";
  ``spot: true`` makes Spot VMs. A ``nodepools`` rule names manually created pools, which must carry the label anyway.
* When no rule can be met, ``whenUnsatisfiable: DoNotScaleUp`` leaves the Pod Pending; ``ScaleUpAnyway`` creates "a new
  node that uses the cluster's default machine configuration"; unwritten, the default "depends on the GKE version"
  (ScaleUpAnyway before 1.33, DoNotScaleUp from 1.33). Only DoNotScaleUp bounds the nodes to the rules: written, or
  unwritten on a cluster whose minMasterVersion is 1.33 or later.

A class whose nodes are all read here (it creates no pool, or DoNotScaleUp with every rule read) makes its Pods' places
known: its pool (one per class, each rule's machines with its Spot label) and the declared pools labelled for it,
even on a cluster with node auto-provisioning. Any other class a Pod requests (one the stack does not declare, GKE's
own autopilot classes, a rule of GPUs or TPUs without a machine type, a machine the catalog does not know) is said,
naming the Pod and what is missing, and nothing is refused for it (:func:`admission`, which also gives a Pod
its namespace's default class).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from ...platforms.catalog import Machine, find_machine, machines
from ..admission.namespace import Namespace
from ..clusters import Claim, ComputeClass
from ..labels import COMPUTE_CLASS, LINUX
from ..platform_admission import class_granted
from ..pool import Lifetime, Option, Pool, machine_hardware
from ..resources import StackResource
from ..scheduling import Domain, Taint
from ..values import Unknown, as_int, child, derived, first_unknown, is_list, is_mapping, plain, undetermined
from . import Context, Read, Source
from .common import KUBERNETES_EFFECTS, base_labels, machine_labels, object_taint, set_os, taints
from .gke import MACHINE_KEYS, MAYBE_PREFIXES, NODE_POOL_LABEL, SPOT_LABELS, UPGRADES

TYPE = "kubernetes:cloud.google.com/v1:ComputeClass"
DEFAULT_SERIES = "e2"  # a declarative rule's machineFamily, "If unspecified, the default is e2"
BOUNDED = "DoNotScaleUp"  # whenUnsatisfiable: "Leave the Pod in the Pending status"
GB = Decimal(10) ** 9  # minMemoryGb counts gigabytes: the smaller unit keeps every machine GKE may count large enough
SPOT = SPOT_LABELS["spot"]
# The fields of a declarative rule that leave its machines as machineType, machineFamily, minCores, minMemoryGb, gpu and
# tpu say (the CRD reference, cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass: where the machine is
# placed, reserved, stored or tuned); any other (podFamily: Autopilot's own platform) makes the class not read
RULE_KEYS = frozenset({"machineType", "machineFamily", "minCores", "minMemoryGb", "spot", "gpu", "tpu", "nodeLabels",
                       "taints", "maxPodsPerNode", "storage", "reservations", "location", "placement",
                       "maxRunDurationSeconds", "minCpuPlatform", "nodeSystemConfig", "flexStart"})
# whenUnsatisfiable unwritten: "In GKE version 1.33 and later, this [DoNotScaleUp] is the default behavior if you omit
# this field"; ScaleUpAnyway before 1.33
BOUNDED_FROM = (1, 33)
UNWRITTEN = ("writes no whenUnsatisfiable, whose default before GKE 1.33 (ScaleUpAnyway) makes a node of the cluster's "
             "default machine configuration when no priority can be met, and its cluster's version is not known to be "
             "1.33 or later")


@functools.lru_cache(maxsize=64)
def series(name: str) -> tuple[Machine, ...]:
    """The catalog's machine types of a Compute Engine machine series (n4: n4-standard-2, n4-highmem-8, ...)."""
    prefix = f"{name.lower()}-"
    return tuple(machine for machine in machines("gcp") if machine.name.startswith(prefix))


def _number(value: Any) -> Decimal | None:
    """A minimum as written (a whole or decimal number), None when absent or not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Decimal(str(value))


def rule_machines(rule: Any, index: int) -> tuple[tuple[Machine, ...], str]:
    """The machines one priority rule may make, or why they are not read (a clause); no machine and no reason for a
    ``nodepools`` rule, whose pools are the stack's own."""
    where = f"its priorities[{index}]"
    if not is_mapping(rule):
        return (), f"{where} cannot be read"
    if "nodepools" in rule:
        return (), ""
    unread = sorted(key for key in rule if key not in RULE_KEYS)
    if unread:  # podFamily (Autopilot's container-optimized platform), or a field of a later CRD
        return (), f"{where} sets {unread[0]}, which the pack does not read"
    if rule.get("taints") is not None:
        return (), f"{where} sets taints of its own, which the pack does not read"
    if rule.get("nodeLabels") is not None and not _labels(rule.get("nodeLabels")):
        return (), f"{where} sets nodeLabels that cannot be read"
    if rule.get("tpu") is not None:
        return (), f"{where} asks for TPUs, which the pack does not read"
    machine_type, family, gpu = rule.get("machineType"), rule.get("machineFamily"), rule.get("gpu")
    if isinstance(machine_type, str):
        machine = find_machine("gcp", machine_type)
        if machine is None:
            return (), f"{where} names machineType '{machine_type}', which the catalog does not know"
        if gpu is not None and not machine.gpu_count:
            return (), f"{where} attaches GPUs to machineType '{machine_type}', which the pack does not read"
        return (machine,), ""
    if machine_type is not None or (family is not None and not isinstance(family, str)):
        return (), f"{where} cannot be read"
    if gpu is not None:
        return (), f"{where} asks for GPUs, whose machines GKE picks"
    found = series(family or DEFAULT_SERIES)
    if not found:
        return (), f"{where} names machineFamily '{family}', of which the catalog knows no machine type"
    least_cores, least_memory = _number(rule.get("minCores")), _number(rule.get("minMemoryGb"))
    return tuple(machine for machine in found
                 if (least_cores is None or machine.vcpus is None or machine.vcpus >= least_cores)
                 and (least_memory is None or machine.memory_mib is None
                      or machine.memory_mib * 1024 * 1024 >= least_memory * GB)), ""


def _labels(value: Any) -> dict[str, str] | None:
    """Node labels as written (a mapping of names to values), None when not one."""
    if not is_mapping(value) or not all(isinstance(key, str) and isinstance(item, str) for key, item in value.items()):
        return None
    return dict(value)


def parse(resource: StackResource) -> tuple[ComputeClass, Pool | None]:
    """One ComputeClass resource: the class, and the pool of the nodes GKE may make for it when they are all read."""
    props = resource.props
    name = child(child(props, "metadata"), "name")
    spec = plain(child(props, "spec"))
    unknown = first_unknown(name) or first_unknown(spec)
    named = name if isinstance(name, (str, Unknown)) else None
    if unknown is not None:
        return ComputeClass(resource.urn, named, "is not known yet"), None
    if not isinstance(name, str) or not is_mapping(spec):
        return ComputeClass(resource.urn, named, "cannot be read"), None
    # "If a workload selects a ComputeClass that has the autopilot field enabled, GKE runs the Pods in Autopilot mode"
    # (cloud.google.com/kubernetes-engine/docs/how-to/autopilot-classes-standard-clusters)
    if child(spec.get("autopilot"), "enabled") is True:
        return ComputeClass(resource.urn, name, "runs its Pods in Autopilot mode, on nodes GKE picks"), None
    if child(spec.get("nodePoolAutoCreation"), "enabled") is not True:
        return ComputeClass(resource.urn, name), None  # its Pods run on the pools labelled for it
    when = spec.get("whenUnsatisfiable")
    if when is not None and when != BOUNDED:
        return ComputeClass(resource.urn, name, f"has whenUnsatisfiable {when}: a node of the cluster's default "
                            "machine configuration when no priority can be met"), None
    config = spec.get("nodePoolConfig")
    image = child(config, "imageType")
    if isinstance(image, str) and image.lower().startswith("windows"):
        return ComputeClass(resource.urn, name, f"makes nodes of imageType {image}, which the pack does not read"), None
    config_labels = _labels(child(config, "nodeLabels")) if child(config, "nodeLabels") is not None else {}
    config_taints = taints(child(config, "taints"), lambda item: object_taint(item, KUBERNETES_EFFECTS))
    if config_labels is None or not isinstance(config_taints, tuple):
        return ComputeClass(resource.urn, name, "sets nodePoolConfig nodeLabels or taints that cannot be read"), None
    rules = spec.get("priorities")
    options: list[Option] = []
    spot_rules = 0
    for index, rule in enumerate(rules if is_list(rules) else ()):
        found, why = rule_machines(rule, index)
        if why:
            return ComputeClass(resource.urn, name, why), None
        spot = is_mapping(rule) and rule.get("spot") is True
        spot_rules += bool(found) and spot
        own = _labels(rule.get("nodeLabels")) or {} if is_mapping(rule) else {}
        # as written: a machine of a secret machineType or machineFamily tells it, so its name is secret too
        written = (rule.get("machineType") or rule.get("machineFamily")) if is_mapping(rule) else None
        for machine in found:
            decided = {**machine_labels(machine), **own}
            options.append(Option(machine_hardware(machine, derived(machine.name, written)),
                                  {**decided, SPOT: "true"} if spot else decided))
    if not options:  # only nodepools rules (the stack's labelled pools), or rules no machine meets
        declarative = any(is_mapping(rule) and "nodepools" not in rule for rule in rules if is_list(rules)) \
            if is_list(rules) else False
        return ComputeClass(resource.urn, name, "has priorities no machine type of the catalog meets"
                            if declarative else ""), None
    labels: dict[str, Domain] = base_labels(NODE_POOL_LABEL, None)  # GKE names the pools it creates
    labels.update((key, frozenset({value})) for key, value in config_labels.items())
    labels[COMPUTE_CLASS] = frozenset({name})
    set_os(labels, LINUX)  # node pool auto-creation makes no Windows pool (gke.UNPROVISIONED)
    # its pools start from no node ("GKE ... scales the node pool down to zero nodes" when nothing runs there: node pool
    # auto-creation's pools have no minimum, cloud.google.com/kubernetes-engine/docs/concepts/node-auto-provisioning)
    pool = Pool("ComputeClass", resource.urn, name, platform="gcp", options=tuple(options), labels=labels, min_size=0,
                taints=(Taint(COMPUTE_CLASS, name, "NoSchedule", granted=class_granted(name)), *config_taints),
                maybe_prefixes=MAYBE_PREFIXES,
                # the labels each rule decides of its own nodes: its machines', its Spot label, its nodeLabels
                machine_keys=tuple(dict.fromkeys((*MACHINE_KEYS, SPOT, *(key for option in options
                                                                          for key in option.labels)))),
                absent=frozenset(SPOT_LABELS.values()) - ({SPOT} if spot_rules else set()),
                kubelet=_max_pods(rules), lifetime=_upgrades(config),
                interruption="spot" if spot_rules and len(options) == sum(
                    option.labels.get(SPOT) == "true" for option in options) else "")
    if when is None:  # DoNotScaleUp on a cluster at 1.33 or later (_class_unread reads its version)
        return ComputeClass(resource.urn, name, UNWRITTEN, bounded_from=BOUNDED_FROM), pool
    return ComputeClass(resource.urn, name), pool


def _upgrades(config: Any) -> Lifetime | None:
    """How GKE replaces the nodes it makes for the class: at each automatic upgrade (nodePoolConfig.autoUpgrade, true
    unless written false, as on a node pool: gke.UPGRADES); None when it is false."""
    upgrade = child(config, "autoUpgrade")
    if upgrade is None:
        return UPGRADES
    return replace(UPGRADES, field="nodePoolConfig.autoUpgrade", default=False) if upgrade is True else None


def _max_pods(rules: Any) -> dict[str, int]:
    """The most Pods a node it makes runs, where every declarative rule sets maxPodsPerNode (the largest, so that no
    Pod is refused for a slot another rule's nodes have)."""
    found = [as_int(rule.get("maxPodsPerNode")) for rule in rules if is_mapping(rule) and "nodepools" not in rule] \
        if is_list(rules) else []
    return {"maxPods": max(found)} if found and all(isinstance(value, int) for value in found) else {}  # type: ignore


def read(resources: Sequence[StackResource], context: Context) -> Read:
    """The stack's ComputeClasses, and the pool of each whose nodes are all read (on the cluster its provider
    targets)."""
    found = Read()
    for resource in resources:
        compute_class, pool = parse(resource)
        found.classes.append(compute_class)
        if pool is not None:
            found.pools.append((pool, Claim(resource, via_provider=True)))
    return found


def requested_classes(node_selector: Any, node_affinity: Any) -> frozenset[str]:
    """The GKE ComputeClasses a Pod names (its nodeSelector's cloud.google.com/compute-class, and every In of a required
    node affinity term on it); values not known yet are the Pod's own unknown (scheduling.pod_placement)."""
    found = {node_selector[COMPUTE_CLASS]} if is_mapping(node_selector) and isinstance(
        node_selector.get(COMPUTE_CLASS), str) else set()
    terms = child(child(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
    for term in terms if is_list(terms) else ():
        expressions = child(term, "matchExpressions")
        for expression in expressions if is_list(expressions) else ():
            values = child(expression, "values")
            if child(expression, "key") == COMPUTE_CLASS and child(expression, "operator") == "In" and is_list(values):
                found.update(value for value in values if isinstance(value, str))
    return frozenset(found)


# GKE's own ComputeClasses: "The name of your ComputeClass can't begin with gke or autopilot" (cloud.google.com/
# kubernetes-engine/docs/concepts/about-custom-compute-classes, "Limitations"; autopilot and autopilot-spot run Pods in
# Autopilot mode in a Standard cluster); "default" may be the cluster-level default, whose Pods may run on pools not
# labelled for it (the same page)
GKE_CLASS_PREFIXES = ("gke", "autopilot")
CLUSTER_DEFAULT_CLASS = "default"


def admission(stack: Any) -> Any:
    """GKE's mutating webhook for ComputeClasses (admission/__init__.py ``WEBHOOKS``): a Pod that selects no class gets
    its namespace's default class in its nodeSelector; a Pod that requests a class the stack does not show every node of
    (SPEC 22: one it does not declare on its cluster, GKE's own, one whose nodes are not all read) has its placement not
    known, said naming the class and what is missing. A class of the stack whose nodes are all read leaves it judged, on
    the class's pool and the declared pools labelled for it (landing._pinned); a Pod on a cluster of another platform is
    judged as written. Classes and namespaces are found by name, once per stack."""
    classes: dict[Any, list[ComputeClass]] = {}
    for found in stack.compute_classes:
        classes.setdefault(found.name if isinstance(found.name, str) else None, []).append(found)
    namespaces: dict[str, list[Namespace]] = {}
    for item in stack.namespaces:
        if isinstance(item.name, str) and item.compute_class is not None:
            namespaces.setdefault(item.name, []).append(item)

    def admit(written: Any) -> Any:
        workload = written
        if isinstance(workload.runtime, Unknown) or workload.patch or not workload.has_pod_spec:
            return workload
        wanted = requested_classes(workload.node_selector, workload.node_affinity)
        if not wanted and not namespaces:  # (most workloads: nothing to read)
            return workload
        cluster = stack.cluster_for(workload.urn)
        if cluster is not None and cluster.platform != "gcp":
            return workload
        given = ""
        if not wanted:  # its namespace's default class, which GKE writes into its Pods
            workload, given = _namespace_class(stack, workload, namespaces)
            if isinstance(workload.compute_class, Unknown):
                return workload
            wanted = requested_classes(workload.node_selector, None)
        for name in sorted(wanted):
            why = _class_unread(stack, workload.urn, name, classes)
            if why:
                return replace(workload, compute_class=undetermined(
                    f"{workload.subject}: its Pods request ComputeClass '{name}'{given}, which {why}, so the "
                    "nodes GKE makes for them are not known and where they run is not judged"))
        return workload

    return admit


def _namespace_class(stack: Any, workload: Any,
                     namespaces: Mapping[str, list[Namespace]]) -> tuple[Any, str]:
    """The workload with the default ComputeClass of its namespace (a Namespace of the stack on its cluster) in its
    Pods' nodeSelector, as GKE writes it there (admission/namespace.py DEFAULT_CLASS), and how messages say where it
    comes from; as it is when its namespace gives none, and with its placement not known when the class is not known
    yet."""
    namespace = workload.namespace
    if isinstance(namespace, Unknown):  # (not known yet: one that gives a class may be it)
        place = stack.place(workload.urn, namespace)
        maybe = sorted(name for name, items in namespaces.items() for item in items
                       if (item.daemonset_class if workload.kind == "DaemonSet" else item.compute_class) is not None
                       and place.meets(stack.place(item.urn, name)) is not False)
        if maybe:
            return replace(workload, compute_class=undetermined(
                f"{workload.subject}: its namespace may be '{maybe[0]}', whose default ComputeClass GKE writes into "
                f"its Pods ({namespace.words}), so the nodes GKE makes for them are not known and where they run is "
                "not judged")), ""
        return workload, ""
    if not isinstance(namespace, str) or namespace not in namespaces:
        return workload, ""
    scope = stack.scope(workload.urn)
    found = next((item for item in namespaces[namespace] if stack.scope(item.urn) == scope), None)
    if found is None:
        return workload, ""
    name = found.daemonset_class if workload.kind == "DaemonSet" else found.compute_class
    if isinstance(name, Unknown):
        return replace(workload, compute_class=undetermined(
            f"{workload.subject}: the default ComputeClass of its namespace '{namespace}' is not known yet, so the "
            "nodes GKE makes for its Pods are not known and where they run is not judged")), ""
    selector = workload.node_selector
    if not isinstance(name, str) or not (selector is None or is_mapping(selector)):
        return workload, ""
    return replace(workload, node_selector={**(selector or {}), COMPUTE_CLASS: name}), \
        f" (its namespace '{namespace}''s default, which GKE writes into them)"


def _class_unread(stack: Any, urn: str, name: str, classes: Mapping[Any, list[ComputeClass]]) -> str:
    """Why the nodes the ComputeClass ``name`` may make for the Pods of the workload ``urn`` are not all known, as a
    clause; "" when they are."""
    if name.startswith(GKE_CLASS_PREFIXES):
        return "is GKE's own (no class of yours may begin with gke or autopilot), whose nodes GKE picks"
    if name == CLUSTER_DEFAULT_CLASS:
        return "may be the cluster's default class, whose Pods may run on pools not labelled for it"
    scope = stack.scope(urn)
    named = classes.get(name, [])
    here = [found for found in named if stack.scope(found.urn) == scope]
    if here:
        found = here[0]
        cluster = stack.cluster_for(found.urn) if found.bounded_from is not None else None
        least = cluster.version.minor if cluster is not None and cluster.version is not None else None
        return "" if least is not None and found.bounded_from is not None and least >= found.bounded_from \
            else found.open
    if None in classes:
        return "may be the stack's ComputeClass whose name is not known yet"
    return "the stack declares on another cluster, or on one the pack cannot tell is theirs" if named else \
        "is not in the stack"


SOURCES = (Source("GKE ComputeClass", (TYPE,), read, admission=admission),)
