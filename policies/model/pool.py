"""One pool, whatever declares it (SPEC sections 2 and 14): a ComputeCluster's capacity group, a Karpenter NodePool,
an EKS, GKE or AKS node group, a cluster's inline or default pool. Every source (``policies/model/sources/``) yields
this one type, and every policy, the remediation and the report read it.

A pool's nodes are one of its machines (:class:`Option`: the hardware one node has, and the labels that machine
decides), carry its labels and taints, and number between its size bounds, in its zones, on its cluster. A
ComputeCluster's pool is placed by the ``compute.alien.dev`` labels and its machine depends on the stack's platform
(an instanceType provides it on aws, gcp and azure only): its machines are derived per platform, once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Literal

from ..platforms.architectures import node_label
from ..platforms.catalog import Machine, family_of
from ..platforms.quantity import CPU, MEMORY, MIB, PODS
from .addresses import Network
from .cluster import CapacityGroup, ClusterEntry
from .labels import ARCH
from .pods import DEVICES, gpu_devices
from .scheduling import MAYBE, Domain, NodeSpace, Taint
from .values import Unknown, about, derived, is_secret
from .versions import Version


@dataclass(frozen=True)
class Hardware:
    """What one node has before any reservation: a catalog machine's facts, or a profile's (SPEC section 11). A fact
    that is missing (a catalog memory of null) is left out; one not known yet is in ``unknown``."""

    name: str | None  # the instance type as written (a secret one stays marked); None for a profile
    architecture: str | None  # x86_64 | arm64 (the catalog's and the seed's names); None when not stated
    capacity: Mapping[str, Decimal]  # cpu (millicores), memory and ephemeral-storage (bytes), GPUs (devices)
    unknown: Mapping[str, Unknown] = field(default_factory=dict)
    secret: frozenset[str] = frozenset()  # the resources whose amount comes from a secret value
    gpu_type: str | None = None
    max_pods: int | None = None  # EKS's maximum for the instance type, where its table lists it
    machine: Machine | None = None  # the catalog's entry
    # the node image that installs no driver for its GPUs (an EKS AMI type that is not an accelerated one): its nodes
    # advertise none of them
    driverless: str | None = None
    max_pods_why: str = ""  # where max_pods comes from, when its source says more than the table (eks.pod_slots)

    @property
    def family(self) -> str | None:
        """The machine family, as the catalog's names write it (m7g, n2-standard, Standard_D..._v5)."""
        return family_of(self.machine.platform, self.machine.name) if self.machine is not None else None


def machine_hardware(machine: Machine, name: Any = None) -> Hardware:
    """A catalog machine's node, named as the program wrote it (``name``: secret when the program marked it)."""
    capacity: dict[str, Decimal] = {}
    if machine.vcpus is not None:
        capacity[CPU] = Decimal(machine.vcpus * 1000)
    if machine.memory_mib is not None:
        capacity[MEMORY] = Decimal(machine.memory_mib * MIB)
    if machine.gpu_type is None or machine.gpu_count is not None:  # a GPU count not known: GPUs not checked
        for resource in DEVICES:
            capacity[resource] = gpu_devices(resource, machine.gpu_type, machine.gpu_count)
    shown = name if name is not None else machine.name
    # every fact of a secret machine tells which machine it is
    secret = frozenset({CPU, MEMORY, PODS, *DEVICES}) if is_secret(shown) else frozenset()
    return Hardware(derived(machine.name, shown), derived(machine.architecture, shown), capacity, {}, secret,
                    machine.gpu_type, machine.max_pods, machine)


@dataclass(frozen=True)
class Option:
    """One machine a pool's nodes may be, and the labels its nodes carry that the machine decides."""

    hardware: Hardware
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def node_architecture(self) -> str | None:
        """Its nodes' kubernetes.io/arch."""
        found = self.labels.get(ARCH)
        if found is not None:
            return found
        return node_label(self.hardware.architecture) if self.hardware.architecture else None


ArchitectureSource = Literal["profile", "machine"]


@dataclass(frozen=True)
class Machines:
    """A pool's machines on one platform: each option, the pool's one architecture where it has one (declared by
    a profile, or provided by its machine), and what is not known yet."""

    options: tuple[Option, ...] = ()
    architecture: str | Unknown | None = None  # x86_64 | arm64
    source: ArchitectureSource | None = None
    unknown: Unknown | None = None  # the machine is not known yet: no node can be judged
    named: str | None = None  # the machine as written, when the catalog provides it (messages name it)

    @property
    def provided(self) -> bool:
        """The architecture is the machine's, not declared by the profile."""
        return self.source == "machine"


@dataclass(frozen=True)
class ClusterRef:
    """The Kubernetes cluster a pool's nodes join, or a workload's Pods run on (SPEC 14.2).

    ``key`` identifies it within the stack: a cluster resource's URN, ``name:<name>`` for a cluster of another stack,
    ``unknown:<urn>`` for a reference not known yet, and ``""`` for the cluster the stack's Kubernetes provider
    targets when the pack cannot tell which (a Karpenter NodePool, a workload on the default provider)."""

    key: str
    name: str = ""  # how messages name it (the cluster resource's name, or the name the pool gives)
    kind: str = ""  # EKS cluster, GKE cluster, AKS cluster, ComputeCluster
    declared: bool = False  # a cluster resource of the stack
    pools_known: bool = True  # False: nodes no pool of the stack shows may run Pods (Autopilot, Fargate)
    stack: str = ""  # another stack's cluster (SPEC 18), whose name messages give with it
    # the node label whose value is its node's pool's name, one name per pool of the cluster (GKE's
    # cloud.google.com/gke-nodepool): a Pod that requires it to name declared pools runs on no pool the stack does not
    # show, where its platform adds pools (node auto-provisioning); "" where the pack does not rely on one
    pool_label: str = ""
    # the node label whose value names the ComputeClass a node was made for (GKE's cloud.google.com/compute-class): a
    # Pod that requires it runs only on the nodes of the classes it names, which GKE's admission step has found each in
    # the stack with every node it may make read (sources/gke_compute_classes.py; any other makes the Pod's placement
    # not known): the pools of those classes and the declared pools labelled for them; "" where the platform has none
    class_label: str = ""
    # what the nodes its platform adds on its own never offer (GKE node auto-provisioning: "windows"), each with why as
    # its source says it: a Pod that needs one runs on the pools the stack declares only
    unprovisioned: tuple[tuple[str, str], ...] = ()

    @property
    def complete(self) -> bool:
        """All its pools are in the stack: a cluster resource of the stack whose platform adds no nodes of its own,
        or the provider's cluster that no pool of another stack is said to join (a Karpenter NodePool's)."""
        return (self.declared and self.pools_known) or self.key == ""

    @property
    def label(self) -> str:
        named = f"{self.kind} '{self.name}'" if self.kind else f"cluster '{self.name}'"
        return f"{named} ({stack_named(self.stack)})" if self.stack else named


PROVIDERS_CLUSTER = ClusterRef("")
# what a self-managed node group's machines are declared by, read alone (sources/eks_self_managed.py ``alone``)
TEMPLATE_KINDS = ("LaunchTemplate", "LaunchConfiguration")
# the stack being previewed, as a view of its dependents (SPEC 18, adapters/dependents.py) marks its own resources:
# its pools are "of EKS cluster 'prod' (this stack)"
THIS_STACK = "this stack"


def stack_named(name: str) -> str:
    """A stack as messages name it: stack acme/platform/prod; this stack."""
    return name if name == THIS_STACK else f"stack {name}"


@dataclass(frozen=True)
class Lifetime:
    """How long a pool's nodes live before their platform replaces them (SPEC 23: node lifetimes), as the stack declares
    it: ``every``, the longest a node lives (a duration as written, "720h"); ``grace``, how long a drain of an expired
    node waits on budgets before it deletes their Pods anyway ("24h"; None: it waits for ever); ``field``, the input
    that sets it; ``platform``, who replaces the nodes ("Karpenter", "EKS Auto Mode"); ``limit``, the longest the
    platform lets a node live whatever the budgets ("21 days": EKS Auto Mode's), "" where it sets none; ``grace_field``,
    the input that sets the grace ("": the platform's own); ``default``: the platform does it unless the stack turns it
    off, and the stack does not say (GKE's automatic upgrades): a schedule for budgets, not one the stack chose."""

    every: str  # a duration ("720h"), or when it happens ("at each automatic upgrade")
    grace: str | None
    field: str
    platform: str
    limit: str = ""
    grace_field: str = "terminationGracePeriod"
    default: bool = False

    @property
    def forced(self) -> bool:
        """Its Pods are deleted past their budgets once a node has lived its time (and its grace)."""
        return self.grace is not None or bool(self.limit)


@dataclass(frozen=True, eq=False)
class Pool:
    """One pool: its source resource, its machines, its nodes' labels and taints, its size, zones and cluster."""

    kind: str  # how messages name its source: NodePool, NodeGroup, GKE NodePool, AgentPool, ComputeCluster, ...
    urn: str  # the resource findings on it are reported on
    name: str  # its name on the cluster (a capacity group's id, a node group's name, metadata.name)
    cluster: ClusterRef = PROVIDERS_CLUSTER
    platform: str | None = None  # whose catalog its machines are (None: the stack's, for a ComputeCluster's)
    options: tuple[Option, ...] = ()  # each machine its nodes may be (a ComputeCluster's: machines_on(platform))
    labels: Mapping[str, Domain] = field(default_factory=dict)  # the labels every node carries
    taints: tuple[Taint, ...] = ()
    unknown: Unknown | None = None  # what decides where Pods may land is not known yet
    # its declared labels and taints are not known yet (its machines are): any label or taint may be on its nodes,
    # so only what its machines decide (their architecture, their instance type) can certainly refuse a Pod
    labels_unknown: Unknown | None = None
    maybe_prefixes: tuple[str, ...] = ()  # label keys the platform may set that the pack does not model
    # labels every node carries whose value is not known yet (its pool-name label while the pool's name is not): a Pod
    # that asks about one is possible there, never certain (landing.judge), with the reason
    late: Mapping[str, Unknown] = field(default_factory=dict)
    # keys under those prefixes its nodes certainly lack (a regular pool's Spot label: AKS and GKE set it on Spot nodes
    # only)
    absent: frozenset[str] = frozenset()
    machine_keys: tuple[str, ...] = ()  # the label keys its machines decide (each machine's own values)
    kubelet: Mapping[str, Any] = field(default_factory=dict)  # the allocatable setting's shape (maxPods, ...)
    limits: Mapping[str, Decimal | Unknown] = field(default_factory=dict)  # a NodePool's spec.limits, base units
    min_size: int | Unknown | None = None
    max_size: int | Unknown | None = None  # the most nodes it runs; None: not bounded here
    zones: tuple[str, ...] | Unknown | None = None  # its nodes' topology.kubernetes.io/zone values; None: not known
    per_zone: int | Unknown | None = None  # the most nodes per zone, when its zones are its cluster's (GKE)
    per_zone_min: int | Unknown | None = None  # and the fewest
    size_note: str = ""  # why its size is not known, as a clause (its pool-capacity and rollout notes say it)
    # the input that sets its size, as fixes name it, and, when the source counts nodes per zone (GKE), the zones its
    # size is that many times
    size_field: str = "maxSize"
    size_zones: int | None = None
    # what cloud-machine-catalog checks: the instance types as written, the AMI type, and whether the requirements
    # name the machines outright (instance types or families, all in the catalog)
    named_types: tuple[str, ...] = ()
    ami_type: str | None = None
    ami_architecture: str | None = None
    names_certain: bool = False
    launch_template: Any = None  # an EKS node group's launchTemplate as written (a new one replaces its nodes)
    group: CapacityGroup | None = None  # a ComputeCluster pool's capacity group, as read
    owner: ClusterEntry | None = None  # a ComputeCluster pool's cluster entry
    # how messages name it as one of its cluster's pools ("pool 'apps'", "pool 'default-pool'"), when its cluster
    # declares it (a ComputeCluster's, an inline pool); empty for a pool resource of its own, named by its kind
    member: str = ""
    most_nodes: int | None = None  # the largest maxSize its source allows (a ComputeCluster's: 10); None: no limit
    # Karpenter replaces its nodes (a NodePool, EKS Auto Mode's): its disruption waits on a budget that allows no
    # eviction, where a platform's drain fails or evicts (workload-disruption-allowed says which)
    karpenter: bool = False
    # the Kubernetes minor from which its nodes run NVIDIA's DRA driver themselves, with no chart of the stack, and its
    # autoscaler provisions for DRA claims (EKS Auto Mode from 1.36); None: they run it where the stack installs it
    dra_driver_from: tuple[int, int] | None = None
    # its nodes' capacity, when the provider may reclaim every one of them: "spot" (EKS, AKS, GKE Spot VMs, Karpenter's
    # spot capacity type), "preemptible" (GKE); "" when some node is not; None when not known (SPEC 16)
    interruption: str | None = ""
    # its nodes' VPC CNI assigns /28 prefixes, not single addresses (EKS: its cluster's vpc-cni add-on, eks.pod_slots)
    prefix_delegation: bool = False
    network: Network | None = None  # where its nodes take their addresses (SPEC 20), where its source reads it
    # where its nodes may be of several capacity types, the label that says a node's (karpenter.sh/capacity-type) and
    # what each of its values means for interruption ("spot" for spot, "" for on-demand): a Pod that selects spot runs
    # on reclaimable nodes only (landing.interruption)
    capacity_label: str = ""
    capacity_types: Mapping[str, str] = field(default_factory=dict)
    # the Kubernetes version its nodes run, as its input sets it (model/versions.py); None: the source has none (a
    # NodePool's nodes take their cluster's), and a Version whose value is None follows its control plane's
    version: Version | None = None
    # how long its nodes live before they are replaced, where the stack declares it (a Karpenter NodePool's expireAfter,
    # EKS Auto Mode's limit)
    lifetime: Lifetime | None = None
    # its nodes' image as its input names it (SPEC 23: EKS amiType, AKS osSKU), where the program or the provider sets
    # one: the input's name and its value (a str, maybe secret, or Unknown)
    image: tuple[str, Any] | None = None
    derive: Callable[[str | None], Machines] | None = field(default=None, compare=False, repr=False)
    _machines: dict[str | None, Machines] = field(default_factory=dict, init=False, compare=False, repr=False)
    _spaces: dict[frozenset[str], list[tuple[NodeSpace, tuple[Option, ...]]]] = field(
        default_factory=dict, init=False, compare=False, repr=False)
    _chosen: dict[tuple[frozenset[str], tuple[int, ...]], tuple[Option, ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False)

    @property
    def setting_keys(self) -> tuple[str, ...]:
        """The keys of the allocatable setting's ``pools`` that name it: ``<pool>`` and ``<cluster>/<pool>`` (a
        ComputeCluster's id and its capacity group's, or the name of the cluster resource a platform pool joins)."""
        group = self.group
        if group is not None:
            cluster_id = getattr(self.owner.cluster, "id", None) if self.owner is not None else None
            group_id = group.group_id
            if isinstance(group_id, str) and isinstance(cluster_id, str):
                return (group_id, f"{cluster_id}/{group_id}")
            return (group_id,) if isinstance(group_id, str) else ()
        if self.cluster.name:
            return (self.name, f"{self.cluster.name}/{self.name}")
        return (self.name,)

    @property
    def label(self) -> str:
        """How messages name it alone: pool 'batch' (NodePool); a launch template read alone is not a pool of its own
        but the machines of the autoscaling groups that run it (the stack names their pool by the group)."""
        if self.kind in TEMPLATE_KINDS:
            return f"{self.kind} '{self.name}' (the machines of the autoscaling groups that run it)"
        return f"pool '{self.name}' ({self.kind})"

    def machines_on(self, platform: str | None) -> Machines:
        """Its machines on the stack's platform (a ComputeCluster pool's depend on it; others' do not)."""
        found = self._machines.get(platform)
        if found is None:
            found = self.derive(platform) if self.derive is not None else Machines(self.options)
            self._machines[platform] = found
        return found

    def architectures(self) -> tuple[str, ...]:
        """The kubernetes.io/arch values its nodes may carry, sorted."""
        return tuple(sorted({arch for option in self.options if (arch := option.node_architecture) is not None}))

    def chosen(self, keys: frozenset[str], spaces: tuple[int, ...]) -> tuple[Option, ...]:
        """The machines of some of its spaces for ``keys`` (by index), in order: one tuple per choice, shared by every
        Pod that makes it (a NodePool allows hundreds of machines; each Pod's verdict held a copy of them)."""
        key = (keys, spaces)
        found = self._chosen.get(key)
        if found is None:
            listed = self.spaces(keys)
            found = self._chosen[key] = tuple(option for index in spaces for option in listed[index][1])
        return found

    def spaces(self, keys: frozenset[str]) -> list[tuple[NodeSpace, tuple[Option, ...]]]:
        """Its nodes as far as a Pod asking about ``keys`` can tell them apart: one space per distinct set of
        machine labels among those keys, with the machines that have them (kept per set of keys)."""
        cached = self._spaces.get(keys)
        if cached is not None:
            return cached
        if not self.options:  # no machine of the catalog: its machines' labels may be anything
            unknown: dict[str, Domain] = {key: MAYBE for key in self.machine_keys}
            self._spaces[keys] = [(NodeSpace({**self.labels, **unknown}, self.maybe_prefixes, self.absent), ())]
            return self._spaces[keys]
        groups: dict[tuple[tuple[str, str], ...], list[Option]] = {}
        for option in self.options:
            projected = tuple(sorted((key, value) for key, value in option.labels.items() if key in keys))
            groups.setdefault(projected, []).append(option)
        result = [(NodeSpace({**self.labels, **{key: frozenset({value}) for key, value in projected}},
                             self.maybe_prefixes, self.absent), tuple(options))
                  for projected, options in groups.items()]
        self._spaces[keys] = result
        return result


def stamped(pool: Pool) -> Pool:
    """The pool with each value it could not read said of it (values.about): a stack policy's note names the pool
    whose field is not known yet, not only the field ("NodeGroup 'general': Array value at .instanceTypes ...")."""
    subject = f"{pool.member} of {pool.kind} '{pool.urn.rsplit('::', 1)[-1]}'" if pool.member else \
        f"{pool.kind} '{pool.name}'"

    def said(value: Any) -> Any:
        return about(subject, value) if isinstance(value, Unknown) and not value.about else value

    changed: dict[str, Any] = {name: said(value) for name in ("unknown", "labels_unknown", "min_size", "max_size",
                                                              "zones", "per_zone")
                               if isinstance(value := getattr(pool, name), Unknown) and not value.about}
    for name in ("limits", "late"):
        values = getattr(pool, name)
        if any(isinstance(value, Unknown) and not value.about for value in values.values()):
            changed[name] = {key: said(value) for key, value in values.items()}
    return replace(pool, **changed) if changed else pool
