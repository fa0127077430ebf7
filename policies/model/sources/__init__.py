"""Where pools come from, one module per platform's resources (SPEC sections 2 and 14): each module of this package
declares its ``SOURCES``, and every one of them yields the same :class:`~policies.model.pool.Pool`.

* ``compute_cluster`` - the ComputeCluster component's capacity groups (placed by compute.alien.dev labels);
* ``karpenter`` - Karpenter NodePools (and EKS Auto Mode's own, by their node class);
* ``eks`` - EKS managed node groups, and a cluster's Auto Mode built-in NodePools;
* ``eks_self_managed`` - autoscaling groups of EC2 instances joining a cluster (pulumi-eks's default node group);
* ``gke`` - GKE node pools, and a GKE cluster's default and inline pools;
* ``gke_compute_classes`` - GKE ComputeClasses, as the nodes GKE may make for the Pods that request them;
* ``aks`` - AKS node pools (classic and native), and a cluster's inline agent pools.

Adding a source is adding one module here with ``SOURCES`` (CONTRIBUTING.md, "Adding a pool source"): the package
finds it, the stack reads its resources, and every policy judges its pools.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..addresses import Addresses
from ..clusters import Claim, ComputeClass, KubeCluster
from ..pool import ClusterRef, Pool
from ..resources import StackResource
from ..values import plain


@dataclass(frozen=True)
class Unread:
    """A cluster or pool resource whose pools the pack cannot read (SPEC 14: never silent about a cluster)."""

    urn: str
    name: str
    kind: str  # how messages name its resource: GKE cluster, autoscaling Group
    why: str  # what could not be read, as a clause: "is an Autopilot cluster: Google provisions its nodes"


@dataclass
class Read:
    """What a source read from the stack's resources of its types."""

    pools: list[tuple[Pool, Claim]] = field(default_factory=list)  # each pool, with how it names its cluster
    clusters: list[KubeCluster] = field(default_factory=list)  # the cluster resources among them
    unread: list[Unread] = field(default_factory=list)
    entries: list[Any] = field(default_factory=list)  # ComputeClusters (policies/model/stack.py ClusterEntry)
    classes: list[ComputeClass] = field(default_factory=list)  # GKE ComputeClasses (sources/gke_compute_classes.py)


@dataclass(frozen=True)
class Context:
    """What a source may read besides its own resources."""

    resources: Mapping[str, StackResource] = field(default_factory=dict)  # every resource of the stack, by URN
    seen_inputs: Mapping[str, Any] = field(default_factory=dict)  # ComputeCluster inputs analyzed in this run
    # what a source kept of a resource's inputs when Analyze saw them (Source.remember), by URN: a component's inputs
    # that its outputs do not repeat (pulumi-eks's node group options)
    remembered: Mapping[str, Any] = field(default_factory=dict)


# pulumi-terraform-bridge's auto-name: the resource's name, "-" and 7 random hex digits (pkg/tfbridge/names.go,
# AutoName and ComputeAutoNameDefault's Randlen 7, as pulumi-aws and pulumi-gcp configure it)
_AUTO_NAMED = re.compile(r"-[0-9a-f]{7}")


def value_at(props: Any, path: str) -> Any:
    """The value at a dotted path of plain props (an input's), None where a step is not an object."""
    value = props
    for key in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def auto_named(value: Any, resource_name: str) -> bool:
    """A name of the bridge's auto-name form for this resource (its name, "-" and 7 lowercase hex digits)."""
    return isinstance(value, str) and value.startswith(resource_name) and \
        _AUTO_NAMED.fullmatch(value[len(resource_name):]) is not None


def renamed_by_provider(rule: Replacing, new: Any, old: Mapping[str, Any], resource_name: str) -> bool:
    """The resource's name changed only because its provider named its replacement anew: the previous name was the
    provider's (its state's ``__defaults`` lists it) and the new one has the provider's form. The change is the
    replacement's effect, never its cause."""
    listed = old.get("__defaults")
    return isinstance(listed, (list, tuple)) and rule.name in listed and \
        auto_named(value_at(old, rule.name), resource_name) and auto_named(value_at(new, rule.name), resource_name)


def bridged_deletes_first(rule: Replacing, new: Any, old: Mapping[str, Any], resource_name: str) -> bool | None:
    """Whether a Terraform-bridged provider deletes the resource before creating its replacement: when its name is
    one the program set, pulumi-terraform-bridge's nameRequiresDeleteBeforeReplace, "an autonameable property with a
    value that was not populated by the autonamer", decided from the ``__defaults`` its Check lists in the new inputs
    (pkg/tfbridge/schema.go).

    The engine sends a pack no internal key (``SkipInternalKeys``: pulumi sdk/go/common/resource/plugin/
    analyzer_plugin.go), so the list is read where the state keeps it, in the previous deployment's inputs (``old``):
    the bridge's Check keeps the name it made while the resource exists, so a name that stays is a default when the
    old list names it; a name that changes is the program's, unless it has the auto-name's form (the program stopped
    setting it). None when the previous deployment holds no such list (a state written before the bridge kept one)."""
    if rule.prefix and isinstance(value_at(new, rule.prefix), str):
        return False  # a prefix: the provider adds a unique suffix
    now = value_at(new, rule.name)
    if now is None:
        return False
    listed = old.get("__defaults")
    if not isinstance(listed, (list, tuple)):
        return None
    if isinstance(now, str) and now == value_at(old, rule.name):
        return rule.name not in listed
    if auto_named(now, resource_name):
        return False
    return True


BRIDGED = "the old pool is deleted first (Pulumi deletes before replacing a resource whose name the program set)"


@dataclass(frozen=True)
class Replacing:
    """What a change to one type of pool or cluster resource does (SPEC 19): the inputs (dotted paths, as the program
    writes them) a change to which replaces the resource, where its provider's schema forces a new resource; the rest
    update it in place. Its name input (and the prefix input that makes a unique name), and whether its provider names
    it when the program does not. ``whole_cluster``: the resource is a cluster, and replacing it replaces every pool,
    workload and object on it."""

    inputs: tuple[str, ...]
    name: str
    prefix: str | None = None
    whole_cluster: bool = False
    provider: str = ""  # as messages name it: "the AWS provider"
    # inputs the provider changes in place only by rotating the pool through a temporary one, which the input
    # ``rotation`` names: without it the update fails (pulumi-azure's node pools)
    rotated: tuple[str, ...] = ()
    rotation: str = ""
    # inputs the platform refuses to change in place where the provider updates in place (an AKS pool's vmSize in a
    # ManagedCluster's agentPoolProfiles: the update fails). A ``[]`` in a path is a list whose entries are matched by
    # their name.
    refused: tuple[str, ...] = ()
    refusal: str = ""  # why, with its source, as a clause
    # inputs whose diff the provider suppresses between a resource's self-link and its name (the Google provider's
    # compareSelfLinkOrResourceName): the state holds the self-link the cloud returned, the program writes the name
    self_links: tuple[str, ...] = ()
    # inputs the provider updates in place but the platform applies by recreating every node of the pool, a few at a
    # time (each node drained as in an upgrade: SPEC 19); on a cluster resource, of its own default pool only
    recreates: tuple[str, ...] = ()
    # whether its provider deletes it before creating its replacement, from this preview's inputs and the previous
    # deployment's (True, False, or None: the previous deployment does not say); and why, as a clause
    deletes_first: Callable[[Replacing, Any, Mapping[str, Any], str], bool | None] = bridged_deletes_first
    first_why: str = BRIDGED
    fixed_words: str = "is set by the program"  # what a name kept through a replacement is, as a clause
    # whether a name the provider makes is a new one on every replacement, so that leaving the name unset lets the
    # replacement be created first (pulumi-terraform-bridge's auto-names: a random suffix)
    unset_names_anew: bool = True


@dataclass(frozen=True)
class Source:
    """One kind of resource that declares pools or clusters."""

    name: str  # as the docs name it: "EKS managed node group"
    types: tuple[str, ...]  # the type tokens it reads
    read: Callable[[Sequence[StackResource], Context], Read]
    accepts: Callable[[str], bool] | None = None  # type tokens it reads besides ``types`` (any *:ComputeCluster)
    judged_alone: bool = True  # a resource policy judges its pools from one resource (cloud-machine-catalog)
    # the pools one resource declares read alone, where that differs from reading it as a stack of one (a launch
    # template is the machine of every group that runs it: pool-safe-update judges a change to it there)
    alone: Callable[[StackResource], list[Pool]] | None = None
    # what the platform sets on a pool from the other pools of its cluster (GKE's GPU taint, which depends on which
    # was made first: the resources' dependencies), once each pool has joined its cluster: the source's pools in,
    # the same pools (or changed copies) out, in order
    settle: Callable[[list[Pool], Context], list[Pool]] | None = None
    # what a pool takes from a cluster of this source when it joins it (ClusterRef ``ref``), as the cluster's platform
    # gives it: AKS's zone names, GKE's zones and sizes per zone
    join: Callable[[Pool, ClusterRef, KubeCluster], Pool] | None = None
    # what it keeps of a resource's inputs when Analyze sees them (plain values; None: nothing), for its read to find
    # in Context.remembered: the engine sends a component's inputs to Analyze only, and its outputs to AnalyzeStack
    remember: Callable[[str, Any], Any] | None = None
    # what replaces each of its types (SPEC 19; pool-replacement-safe), where the pack knows it
    replaces: Mapping[str, Replacing] = field(default_factory=dict, compare=False)
    # what one of its pools takes of the address space (SPEC 20; pool-address-space), on its cluster: its draws,
    # Unknown when they are not known yet, None when it takes none the stack shows
    addresses: Callable[[Pool, KubeCluster | None], Addresses | None] | None = None
    # what its platform's admission does to a Pod, where it runs Pods' admission (policies/model/admission/ WEBHOOKS:
    # GKE's default ComputeClass): for one stack, a step from a workload to the workload admitted, or None when it
    # changes nothing there
    admission: Callable[[Any], Callable[[Any], Any] | None] | None = None

    def reads(self, resource_type: str) -> bool:
        return resource_type in self.types or (self.accepts is not None and self.accepts(resource_type))


@functools.lru_cache(maxsize=1)
def sources() -> tuple[Source, ...]:
    """Every module's sources, in the modules' order by name (a module is found by being here)."""
    found: list[Source] = []
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda item: item.name):
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        found.extend(getattr(loaded, "SOURCES", ()))
    return tuple(found)


@functools.lru_cache(maxsize=1024)  # a stack has a few dozen type tokens, read for every resource
def source_of(resource_type: str) -> Source | None:
    """The source that reads resources of this type, if any."""
    if not isinstance(resource_type, str):
        return None
    return next((source for source in sources() if source.reads(resource_type)), None)


def replacing_of(resource_type: str) -> Replacing | None:
    """What replaces a resource of this type, where its source says."""
    source = source_of(resource_type)
    return source.replaces.get(resource_type) if source is not None else None


def checked_inputs(resource_type: str, props: Any) -> Any:
    """A pool or cluster resource's inputs as Analyze sees them (its provider's checked inputs, plain), kept for the
    stack policies (Source.remember), whose props are outputs: pool-replacement-safe compares the previous deployment's
    inputs with these (a provider's outputs hold values the inputs never set: GKE's own metadata keys, computed
    defaults), and a preview's outputs not known yet are read with them (resources.Settled). (Which of them the
    provider filled in itself is never among them: the engine sends a pack no top-level internal key, ``__defaults``
    included; the previous deployment's state says it.)"""
    if replacing_of(resource_type) is None:
        return None
    found = plain(props)
    kept = {key: value for key, value in found.items() if not str(key).startswith("__")} if isinstance(found, Mapping) \
        else {}
    return {"inputs": kept}


def pools_of(resource_type: str, props: Any, urn: str, name: str) -> list[Pool] | None:
    """The pools one resource declares when read alone (a resource policy's view, in Analyze); None when it is
    not a pool source's."""
    source = source_of(resource_type)
    if source is None or not source.judged_alone:
        return None
    resource = StackResource(resource_type, urn, name, props)
    if source.alone is not None:
        return source.alone(resource)
    return [pool for pool, _claim in source.read([resource], Context()).pools]
