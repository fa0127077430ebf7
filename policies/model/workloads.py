"""Kubernetes workloads: the one place that knows where each kind keeps its pod template.

Every rule asks :func:`parse_workload`; none walks manifests on its own. A workload's role,
cluster and pool come from the ``compute.alien.dev/*`` labels or annotations on the workload,
else on its pod template; disagreeing values are findings of ``workload-pool-placement``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

from ..platforms.quantity import MAX_REPLICAS
from .admission.limit_ranger import Defaults, admitted_containers
from .admission.pod_security import violations
from .admission.runtime_class import with_runtime
from .admission.written import node_placement, pin, runtime_class_name
from .architecture import Constraint, architecture_constraint
from .devices import PodClaims, claim_refs, with_claims
from .labels import ARCH
from .pods import (
    ContainerResources,
    HostAccess,
    PodRequest,
    Replicas,
    container_resources,
    extended_resources,
    host_access,
    pod_request,
    repel_key,
    repels_itself,
    replicas,
    unset,
)
from .rollout import Rollout, rollout
from .scheduling import PodPlacement, pod_placement
from .spread import Spread, spreads
from .values import (
    READING,
    SecretText,
    Unknown,
    as_int,
    child,
    is_mapping,
    listed,
    plain,
    reading,
    shared,
    type_name,
)

ROLE_KEY = "compute.alien.dev/workload"
CLUSTER_KEY = "compute.alien.dev/cluster"
POOL_KEY = "compute.alien.dev/pool"
_PLACEMENT_KEYS = frozenset((ROLE_KEY, CLUSTER_KEY, POOL_KEY))
ROLES = ("container", "daemon", "worker", "dynamic")

# Where the pod template of each kind lives, as a path of fields from the resource's inputs.
POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "PodTemplate": ("template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
# The same paths as messages write them, and where the template's labels are: made once, not per workload.
_POD_SPEC_WHERE = {kind: listed(path, ".") for kind, path in POD_SPEC_PATHS.items()}
_TEMPLATE_METADATA_WHERE = {kind: listed((*path[:-1], "metadata"), ".") for kind, path in POD_SPEC_PATHS.items()}
_GROUP_KINDS = {
    "core": ("Pod", "PodTemplate", "ReplicationController"),
    "apps": ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"),
    "extensions": ("Deployment", "ReplicaSet", "DaemonSet"),
    "batch": ("Job", "CronJob"),
}
# A HorizontalPodAutoscaler, any API version: it keeps its target at minReplicas or more.
_AUTOSCALER = re.compile(r"^kubernetes:autoscaling/[a-z0-9]+:HorizontalPodAutoscaler$")
# A Helm v3 Release installs its chart inside the provider: its workloads never reach a policy.
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
_TOKEN = re.compile(r"^kubernetes:([a-z0-9.]+)/([a-z0-9]+):([A-Za-z]+?)(Patch)?$")


@dataclass(frozen=True)
class Kind:
    kind: str
    patch: bool


# what is judged on its workloads' cluster besides them (workload-api-available: the API versions its release serves),
# and read of another stack with them (SPEC 18): budgets and autoscalers
BESIDE_WORKLOADS = (":PodDisruptionBudget", ":HorizontalPodAutoscaler")


def workload_kind(resource_type: str) -> Kind | None:
    """The workload kind of a pulumi-kubernetes type token, any API version; None otherwise."""
    if not isinstance(resource_type, str):
        return None
    return _workload_kind(resource_type)


@functools.lru_cache(maxsize=1024)  # a stack has a few dozen type tokens, read for every resource
def _workload_kind(resource_type: str) -> Kind | None:
    match = _TOKEN.match(resource_type)
    if match is None:
        return None
    group, _version, kind, patch = match.groups()
    if kind not in _GROUP_KINDS.get(group, ()):
        return None
    return Kind(kind, patch is not None)


@dataclass(frozen=True)
class NotAString:
    """A placement label or annotation whose value is not a string."""

    where: str  # metadata.labels, spec.template.metadata.annotations, ...
    key: str
    type_name: str  # as a JSON reader names it ("a number")


@dataclass(frozen=True)
class LabelsDisagree:
    """Places that set one placement key to different values."""

    key: str
    found: tuple[tuple[str, str], ...]  # (where, value), in reading order


@dataclass(frozen=True)
class NotARole:
    key: str
    roles: tuple[str, ...]  # the roles there are


LabelProblem = NotAString | LabelsDisagree | NotARole  # workload-pool-placement writes their messages


_T = TypeVar("_T")
_UNREAD = object()


class kept(Generic[_T]):
    """``functools.cached_property`` for a slotted class: read the first time it is asked, then kept at its own
    index of the instance's ``_kept`` list. A slotted Workload with such a list is about a third of the size of one
    with a ``__dict__`` of its fields and cached properties (a large stack holds one per workload:
    BENCHMARKS.md, memory)."""

    count = 0  # how many there are: the length of an instance's list

    def __init__(self, read: Callable[[Any], _T]) -> None:
        self.read = read
        self.name = read.__name__
        self.__doc__ = read.__doc__
        self.index = kept.count
        kept.count += 1

    @overload
    def __get__(self, instance: None, owner: type) -> kept[_T]: ...

    @overload
    def __get__(self, instance: object, owner: type) -> _T: ...

    def __get__(self, instance: Any, owner: type) -> Any:
        if instance is None:
            return self
        values = instance._kept
        value = values[self.index]
        if value is _UNREAD:
            token = READING.set(instance.subject)  # an unknown it reads is the workload's (values.reading)
            try:
                value = values[self.index] = self.read(instance)
            finally:
                READING.reset(token)
        return value


def _unread() -> list[Any]:
    return [_UNREAD] * kept.count


@dataclass(frozen=True, slots=True, eq=False)  # one per resource: it hashes by identity, a key of what is derived
class Workload:
    urn: str
    name: str
    kind: str
    patch: bool
    role: str | Unknown | None  # None when the role label is invalid (see problems)
    cluster: str | Unknown | None
    pool: str | Unknown | None
    node_selector: Any  # plain values of the pod spec's nodeSelector (None when absent)
    node_affinity: Any  # ... and of its affinity.nodeAffinity
    pod_spec_path: str
    problems: tuple[LabelProblem, ...]  # what is wrong with its placement labels
    has_pod_spec: bool = True  # False when the pod spec is absent or not an object (a Patch may omit it)
    props: Any = None  # the resource's inputs, and its pod spec and template, as read (for fit and capacity)
    pod_spec: Any = None
    template: Any = None
    # the request and limit its namespace's LimitRanges give a container that sets none (admission/limit_ranger.py sets
    # it, before any rule reads the workload); None: they give none
    defaults: Defaults | None = None
    # the namespace its provider creates it in when it names none (clusters.provider_namespace;
    # admission/namespace.py sets it): the API server's answer, which every rule reads through ``namespace``
    default_namespace: Any = None
    # what the RuntimeClass its Pods name gives them (admission/runtime_class.py sets it): Unknown
    # when that class is not known, None when they name none or one that gives nothing the pack does not model
    runtime: Any = None
    # Unknown when its Pods request a GKE ComputeClass whose nodes the stack does not show all of (GKE's admission
    # step sets it: sources/gke_compute_classes.py); None otherwise
    compute_class: Any = None
    # what one Pod's ResourceClaims ask of the devices the pack counts (devices.py's step sets it, after admission);
    # None when its Pods claim none
    claims: PodClaims | None = None
    _kept: list[Any] = dataclasses.field(default_factory=_unread, init=False, repr=False, compare=False)

    @property
    def subject(self) -> str:
        return f"{self.kind}{'Patch' if self.patch else ''} '{self.name}'"

    # What its Pods will be, read from its pod spec the first time a policy, the remediation or the report
    # asks, and kept: no rule reads the pod spec itself (tests/test_layout.py holds it).

    @kept
    def constraint(self) -> Constraint:
        """The architectures its Pods may run on (nodeSelector and required node affinity)."""
        return architecture_constraint(self.node_selector, self.node_affinity, self.pod_spec_path)

    @kept
    def request(self) -> PodRequest | None:
        """One Pod's request per resource; None without a pod spec."""
        if self.pod_spec is None:
            return None
        request = pod_request(self.pod_spec, self.pod_spec_path,
                              self.defaults.known_requests if self.defaults is not None else None)
        return request if self.claims is None else with_claims(request, self.claims)

    @kept
    def claim_refs(self) -> tuple[tuple[bool, Any], ...] | Unknown | None:
        """The ResourceClaims its Pods name (spec.resourceClaims: a template's or a shared claim's name each)."""
        return claim_refs(self.pod_spec) if self.pod_spec is not None else None

    @kept
    def replicas(self) -> Replicas:
        """How many Pods it runs at once (a DaemonSet's are counted per node instead)."""
        return replicas(self.kind, self.props)

    @kept
    def unset(self) -> dict[tuple[str, str], tuple[str, ...]] | Unknown:
        """Its containers that set no cpu or memory request, or limit (pods.unset): a quota's "must specify"."""
        return unset(self.pod_spec) if self.pod_spec is not None else {}

    @kept
    def containers(self) -> tuple[ContainerResources, ...] | Unknown:
        """Each container's cpu and memory requests and limits as written (pods.container_resources)."""
        return container_resources(self.pod_spec) if self.pod_spec is not None else ()

    @kept
    def admitted_containers(self) -> tuple[ContainerResources, ...] | Unknown:
        """Each container as LimitRanger admits it: its namespace's default request and limit where it writes none
        (admission/limit_ranger.py)."""
        return admitted_containers(self.containers, self.defaults)

    @kept
    def host(self) -> HostAccess | Unknown:
        """What its Pods ask of their node's host (pods.host_access)."""
        return host_access(self.pod_spec) if self.pod_spec is not None else HostAccess()

    def pod_security(self, level: str) -> list[str] | Unknown:
        """What of its Pods the Pod Security Standard ``level`` forbids, at its latest version
        (podsecurity.violations, held to k8s.io/pod-security-admission by the Go oracle)."""
        if self.pod_spec is None:
            return []
        metadata = self.template if isinstance(self.template, Unknown) else child(self.template, "metadata")
        return violations(self.pod_spec, metadata, level)

    @kept
    def priority_class(self) -> Any:
        """Its Pods' spec.priorityClassName, as written."""
        return child(self.pod_spec, "priorityClassName")

    @kept
    def namespace(self) -> Any:
        """The namespace its Pods are created in (SPEC 21): its metadata.namespace, else its provider's."""
        written = child(child(self.props, "metadata"), "namespace")
        return written if written is not None else self.default_namespace

    @kept
    def metadata_name(self) -> Any:
        return child(child(self.props, "metadata"), "name")

    @kept
    def scheduling(self) -> PodPlacement:
        """What the scheduler matches against a node: nodeSelector, required node affinity, tolerations."""
        if isinstance(self.pod_spec, Unknown):
            return PodPlacement((), None, (), self.pod_spec)
        selector, tolerations = self.node_selector, plain(child(self.pod_spec, "tolerations"))
        runtime = self.runtime
        if isinstance(runtime, Unknown):
            return PodPlacement((), None, (), runtime)
        if isinstance(self.compute_class, Unknown):
            return PodPlacement((), None, (), self.compute_class)
        if runtime is not None:  # the RuntimeClass admission plugin's merge, before the scheduler sees the Pod
            merged = with_runtime(selector, tolerations, runtime, self.subject)
            if isinstance(merged, Unknown):
                return PodPlacement((), None, (), merged)
            selector, tolerations = merged
        return pod_placement(selector, self.node_affinity, tolerations, runtime_class_name(self.pod_spec),
                             extended_resources(self.pod_spec))

    @kept
    def os_name(self) -> Any:
        """The operating system its Pods declare (spec.os.name: linux or windows; the kubelet refuses a Pod on a node
        of another, kubernetes.io/docs/concepts/workloads/pods/#pod-os); None when not declared."""
        return child(child(self.pod_spec, "os"), "name")

    @kept
    def scheduler_bypassed(self) -> bool | Unknown:
        """Its Pods name their node (spec.nodeName) or another scheduler: the default scheduler's rules do not
        place them."""
        for key in ("nodeName", "schedulerName"):
            value = child(self.pod_spec, key)
            if isinstance(value, Unknown):
                return value
            if value is not None and not (key == "schedulerName" and value == "default-scheduler"):
                return True
        return False

    @kept
    def spreads(self) -> tuple[Spread, ...] | Unknown:
        """Its Pods' hard topology spread constraints (DoNotSchedule)."""
        if isinstance(self.pod_spec, Unknown):
            return self.pod_spec
        return spreads(self.pod_spec, self.template)

    def rollout(self, replicas: int) -> Rollout | Unknown | None:
        """A Deployment's rolling update at ``replicas``: what it adds and removes at once."""
        with reading(self.subject):
            return rollout(self.kind, self.props, replicas)

    @kept
    def repels(self) -> bool:
        """Its Pods may not share a node (required pod anti-affinity on the hostname selecting them)."""
        namespace = self.namespace
        return repels_itself(self.pod_spec, self.template, namespace if isinstance(namespace, str) else None)

    @kept
    def repel_key(self) -> str:
        """The topology key its Pods repel each other on, as messages may write it ([secret] when secret)."""
        return repel_key(self.pod_spec)

    @kept
    def repels_revisions(self) -> bool:
        """Its Pods repel each other across a rollout's revisions too (no matchLabelKeys tells them apart)."""
        namespace = self.namespace
        return self.repels and repels_itself(self.pod_spec, self.template,
                                             namespace if isinstance(namespace, str) else None, revisions=True)


def _metadata_maps(metadata: Any, where: str) -> list[tuple[str, Any]]:
    """The labels and annotations of a metadata object; both unknown when the metadata is (they may hold
    the placement labels: reading them as absent would resolve the wrong pool)."""
    if isinstance(metadata, Unknown):
        return [(f"{where}.labels", metadata), (f"{where}.annotations", metadata)]
    return [(f"{where}.labels", child(metadata, "labels")),
            (f"{where}.annotations", child(metadata, "annotations"))]


def _label(places: list[tuple[str, Any]], key: str, problems: list[LabelProblem]) -> str | Unknown | None:
    """The one value of ``key`` among the places that set it."""
    found: list[tuple[str, str]] = []
    unknown: Unknown | None = None
    for where, labels in places:
        if isinstance(labels, Unknown):
            unknown = unknown or labels
            continue
        if not is_mapping(labels):
            continue
        value = child(labels, key)
        if value is None:
            continue
        if isinstance(value, Unknown):
            unknown = unknown or value
        elif not isinstance(value, str):
            problems.append(NotAString(where, key, type_name(value)))
        else:
            found.append((where, value))
    if not found:  # (most workloads: no placement label anywhere)
        return unknown
    values = sorted({value for _, value in found})
    if len(values) > 1:
        problems.append(LabelsDisagree(key, tuple(found)))
        return None
    if unknown is not None:
        return unknown
    return values[0] if values else None


# The nodeSelectors of a stack's workloads, one dict per distinct selector of plain strings: thousands of workloads
# share a few (kubernetes.io/arch: amd64), and each kept its own (BENCHMARKS.md, memory). Only exact str values: a
# secret value (SecretText, equal to its text) must never share a plain value's dict, nor lend it its own. The rules
# only read a workload's selector.
_SELECTORS: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
_MOST_SELECTORS = 1 << 12


def _shared_selector(selector: Any) -> Any:
    if not isinstance(selector, dict) or not all(type(key) is str and type(value) is str
                                                 for key, value in selector.items()):
        return selector
    return shared(_SELECTORS, tuple(selector.items()), selector, _MOST_SELECTORS)


def parse_workload(resource_type: str, props: Any, urn: str, name: str) -> Workload | None:
    """Read what the rules need of a workload, touching only the fields they need."""
    kind = workload_kind(resource_type)
    if kind is None:
        return None
    token = READING.set(f"{kind.kind}{'Patch' if kind.patch else ''} '{name}'")  # as Workload.subject says it
    try:
        return _parse_workload(kind, props, urn, name)
    finally:
        READING.reset(token)


def _parse_workload(kind: Kind, props: Any, urn: str, name: str) -> Workload:
    path = POD_SPEC_PATHS[kind.kind]
    template_path = path[:-1]

    template: Any = props
    for field in template_path:
        if isinstance(template, Unknown) or template is None:
            break
        template = child(template, field)
    pod_spec = child(template, path[-1]) if not isinstance(template, Unknown) else template
    node_selector, node_affinity = node_placement(pod_spec)
    if not isinstance(pod_spec, Unknown):
        node_selector = _shared_selector(node_selector)

    places = _metadata_maps(child(props, "metadata"), "metadata")
    if template_path and not isinstance(template, Unknown):
        places += _metadata_maps(child(template, "metadata"), _TEMPLATE_METADATA_WHERE[kind.kind])
    problems: list[LabelProblem] = []
    role: str | Unknown | None
    cluster: str | Unknown | None = None
    pool: str | Unknown | None = None
    # plain dicts without the placement labels (most of another stack's workloads): nothing to read in them
    unlabelled = all(labels is None or (type(labels) is dict and labels.keys().isdisjoint(_PLACEMENT_KEYS))
                     for _where, labels in places)
    role_value = None if unlabelled else _label(places, ROLE_KEY, problems)
    if role_value is None and problems:
        role = None  # the role labels disagree or are not strings
    elif role_value is None:
        role = "daemon" if kind.kind == "DaemonSet" else "container"
    elif isinstance(role_value, Unknown) or role_value in ROLES:
        role = role_value
    else:
        problems.append(NotARole(ROLE_KEY, tuple(ROLES)))
        role = None
    if not unlabelled and role != "worker":  # (a worker's cluster and pool labels are ignored)
        cluster = _label(places, CLUSTER_KEY, problems)
        pool = _label(places, POOL_KEY, problems)
    return Workload(urn, name, kind.kind, kind.patch, role, cluster, pool, node_selector, node_affinity,
                    _POD_SPEC_WHERE[kind.kind], tuple(problems), is_mapping(pod_spec), props, pod_spec, template)


@dataclass(frozen=True)
class HelmRelease:
    """A ``kubernetes:helm.sh/v3:Release``: workloads the policies cannot see."""

    urn: str
    name: str
    chart: str | None  # the chart it installs, when known and not secret


def parse_helm_release(resource_type: str, props: Any, urn: str, name: str) -> HelmRelease | None:
    if resource_type != HELM_RELEASE:
        return None
    chart = child(props, "chart")
    shown = chart if isinstance(chart, str) and chart and not isinstance(chart, SecretText) else None
    return HelmRelease(urn, name, shown)


@dataclass(frozen=True)
class Autoscaler:
    """A HorizontalPodAutoscaler: the workload it scales and the fewest replicas it keeps."""

    urn: str
    name: str
    namespace: Any
    target_kind: Any
    target_name: Any
    min_replicas: int | Unknown | None  # None: unreadable


def parse_autoscaler(resource_type: str, props: Any, urn: str, name: str) -> Autoscaler | None:
    if not isinstance(resource_type, str) or not _AUTOSCALER.match(resource_type):
        return None
    spec = child(props, "spec")
    target = child(spec, "scaleTargetRef")
    minimum = child(spec, "minReplicas")
    count: int | Unknown | None
    if isinstance(minimum, Unknown):
        count = minimum
    elif minimum is None:
        count = 1  # the API's default
    else:
        number = as_int(minimum)  # a secret stays a SecretInt: int() would drop the mark
        count = number if number is not None and 0 <= number <= MAX_REPLICAS else None
    metadata = child(props, "metadata")
    return Autoscaler(urn, name, child(metadata, "namespace"), child(target, "kind"), child(target, "name"), count)




def pin_architecture(props: Any, kind: str, node_architecture: str) -> bool:
    """Add ``kubernetes.io/arch: <node_architecture>`` to the pod template's nodeSelector of ``props`` (the
    SDK's secret-preserving view of a workload's inputs) in place, for workload-architecture-pin's remediation.

    Only the pod spec's nodeSelector changes; unknown values and secrets elsewhere stay as they are. False
    (nothing changed) when the pod spec is not there to change."""
    pod_spec = props
    for field in POD_SPEC_PATHS[kind]:
        pod_spec = pod_spec.get(field) if is_mapping(pod_spec) else None
    return pin(pod_spec, ARCH, node_architecture)
