"""What one Pod of a workload asks of a node, and how many Pods the workload runs.

:func:`pod_request` aggregates a pod spec's requests as the scheduler does
(k8s.io/component-helpers resource.PodRequests, and the documentation of sidecar containers and of
init containers' effective requests):

- a container's request for a resource is its ``resources.requests``, else its ``resources.limits``
  (the API server defaults a missing request to the limit);
- app containers and sidecars (init containers with ``restartPolicy: Always``) run together: their
  requests add up;
- each ordinary init container runs alone with the sidecars declared before it: the Pod needs the
  largest of those sums if it is larger than the first;
- ``spec.resources.requests`` (pod-level resources; its limits stand for missing requests) replaces
  the containers' sum for cpu and memory;
- ``spec.overhead`` (the RuntimeClass's) is added last.

Nothing here writes a message: a malformed quantity is a :class:`BadQuantity` naming its field, and
the policies say what it means.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, getcontext
from typing import Any

from ..platforms.quantity import CPU, MAX_AMOUNT, MAX_REPLICAS, MEMORY, STORAGE, base_units, parse_quantity
from .labels import HOSTNAME
from .selectors import label_selector
from .values import (
    REDACTED,
    SecretInt,
    SecretNumber,
    SecretText,
    Unknown,
    as_int,
    child,
    is_list,
    is_mapping,
    is_secret,
    items,
    shared,
)

NVIDIA = "nvidia.com/gpu"  # the NVIDIA device plugin's resource
GPU_RESOURCES = {NVIDIA: "nvidia", "amd.com/gpu": "amd"}  # device plugin resource -> GPU vendor
# The DeviceClasses of NVIDIA's DRA driver whose devices the pack counts (model/devices.py): one per GPU, one per MIG
# instance. A Pod's amount of each is what its per-Pod ResourceClaims ask (Workload.claims), a node's is at most what
# its machine's GPUs give (gpu_devices)
GPU_CLASS = "gpu.nvidia.com"
MIG_CLASS = "mig.nvidia.com"
DEVICE_CLASSES = (GPU_CLASS, MIG_CLASS)
DEVICES = {**GPU_RESOURCES, GPU_CLASS: "nvidia", MIG_CLASS: "nvidia"}  # every counted device -> GPU vendor
RESOURCES = (CPU, MEMORY, STORAGE, *DEVICES)
# the most MIG instances one GPU is split into (NVIDIA's MIG User Guide, docs.nvidia.com/datacenter/tesla/
# mig-user-guide, "Supported MIG Profiles": seven 1g profiles on the A100, H100, H200, B200 and B300; fewer on the
# RTX PRO Blackwell GPUs), and the GPUs of the catalog that may be split (the RTX PRO 4500 with the other RTX PRO
# Blackwell ones; the T4, A10, A10G, L4, L40S, V100 and older split into none): an upper bound on a node's
# mig.nvidia.com devices
MIG_PER_GPU = 7
MIG_GPUS = frozenset({"nvidia-a100", "nvidia-a100-80gb", "nvidia-h100", "nvidia-h200", "nvidia-b200", "nvidia-b300",
                      "nvidia-rtx-pro-4500", "nvidia-rtx-pro-6000"})


def gpu_devices(resource: str, gpu_type: str | None, gpu_count: int | None) -> Decimal:
    """The most of a counted device (DEVICES) a node with ``gpu_count`` GPUs of ``gpu_type`` (the catalog's name:
    nvidia-a10g) has: a device plugin advertises and the DRA driver publishes one per GPU of its vendor; MIG instances
    at most MIG_PER_GPU per GPU that supports MIG."""
    if gpu_type is None or not gpu_type.startswith(f"{DEVICES[resource]}-"):
        return Decimal(0)
    if resource == MIG_CLASS:
        return Decimal(MIG_PER_GPU * (gpu_count or 0)) if gpu_type in MIG_GPUS else Decimal(0)
    return Decimal(gpu_count or 0)
_POD_LEVEL = (CPU, MEMORY)  # the resources pod-level requests may set
_COUNTED = frozenset(RESOURCES)


@dataclass(frozen=True, slots=True)
class BadQuantity:
    """A request, limit or overhead that the API server would refuse."""

    field: str  # its path from the resource's inputs
    value: str | None  # as written; None when secret or not text
    problem: str  # "malformed", "negative", "fraction" (a device count must be whole) or "too large"
    resource: str = ""  # what it would have requested (cpu, memory, ...)


@dataclass(frozen=True, slots=True)
class PodRequest:
    """One Pod's request per resource, in base units (millicores, bytes, devices)."""

    amounts: Mapping[str, Decimal]  # every resource of RESOURCES that is known, 0 when not requested
    unknown: Mapping[str, Unknown] = field(default_factory=dict)  # resources not known yet
    bad: tuple[BadQuantity, ...] = ()
    secret: frozenset[str] = frozenset()  # resources whose amount comes from a secret value
    # resources some container of which takes its namespace's LimitRange default request (it set none)
    defaulted: frozenset[str] = frozenset()

    def get(self, resource: str) -> Decimal:
        """The request for a resource that is known (asking for one in ``unknown`` is a bug)."""
        return self.amounts[resource]


_ZERO = Decimal(0)


class _Sum:
    """Per-resource amounts (only those requested: most Pods name two resources) with what is unknown
    and what is secret, built up container by container."""

    __slots__ = ("amounts", "unknown", "secret")

    def __init__(self) -> None:
        self.amounts: dict[str, Decimal] = {}
        self.unknown: dict[str, Unknown] = {}
        self.secret: set[str] = set()

    def add(self, other: _Sum) -> _Sum:
        out = _Sum()
        out.amounts = dict(self.amounts)
        for resource, amount in other.amounts.items():
            out.amounts[resource] = out.amounts.get(resource, _ZERO) + amount
        out.unknown = {**other.unknown, **self.unknown}
        out.secret = self.secret | other.secret
        return out

    def widen(self, other: _Sum) -> None:
        """Take the larger amount of each resource (and what the other cannot know)."""
        for resource, amount in other.amounts.items():
            if amount > self.amounts.get(resource, _ZERO):
                self.amounts[resource] = amount
        for resource, unknown in other.unknown.items():
            self.unknown.setdefault(resource, unknown)
        self.secret |= other.secret


def _amount(value: Any, resource: str) -> Decimal | str:
    """A quantity of ``resource`` in base units, or why the API server refuses it (BadQuantity.problem)."""
    amount = parse_quantity(value)
    if amount is None:
        return "malformed"
    if amount < 0:
        return "negative"
    if resource in GPU_RESOURCES and amount != amount.to_integral_value():
        return "fraction"
    units = base_units(resource, amount)
    return "too large" if units > MAX_AMOUNT else units


# each plain text's quantity of each resource, at a precision (its Decimal arithmetic rounds to it)
_QUANTITIES: dict[tuple[str, str, int], Decimal | str] = {}
_MOST_QUANTITIES = 1 << 12


class _Reader:
    def __init__(self, path: str, defaults: Mapping[str, Decimal] | None = None) -> None:
        self.path = path
        self.bad: list[BadQuantity] = []
        # the requests its namespace's LimitRange gives a container that sets neither a request nor a limit, and
        # the resources it gave
        self.defaults = defaults or {}
        self.defaulted: set[str] = set()

    def quantity(self, value: Any, where: str, resource: str, into: _Sum) -> Decimal | None:
        """One quantity in base units, recorded in ``into`` (unknown, secret); None when absent or bad."""
        if value is None:
            return None
        if isinstance(value, Unknown):
            into.unknown.setdefault(resource, value)
            return None
        shown: str | None
        if type(value) is str:  # plain text (not secret), judged once per text: thousands of Pods request "100m"
            hidden, shown = False, value
            key = (resource, value, getcontext().prec)
            found = _QUANTITIES.get(key)
            if found is None:
                found = shared(_QUANTITIES, key, _amount(value, resource), _MOST_QUANTITIES)
        else:
            hidden = isinstance(value, (SecretText, SecretNumber, SecretInt))
            shown = None if hidden or not isinstance(value, (str, int, float)) or isinstance(value, bool) else \
                str(value)
            found = _amount(value, resource)
        if isinstance(found, str):
            self.bad.append(BadQuantity(f"{self.path}.{where}", shown, found, resource))
            return None
        if hidden:
            into.secret.add(resource)
        return found

    def resources(self, resources: Any, where: str, only: tuple[str, ...] = RESOURCES) -> _Sum:
        """What a ``resources`` object requests: each resource's request, else its limit."""
        total = _Sum()
        if isinstance(resources, Unknown):
            total.unknown.update(dict.fromkeys(only, resources))
            return total
        # Each map read once, and only for the resources it names (most name one or two).
        limits = child(resources, "limits")
        requests, limited = _entries(child(resources, "requests")), _names(limits)
        for values in (requests, limited):
            if isinstance(values, Unknown):
                total.unknown.update(dict.fromkeys(only, values))
        for resource in only:
            amount = None
            requested = requests.get(resource) if isinstance(requests, dict) else None
            if requested is not None:
                amount = self.quantity(requested, f"{where}.requests['{resource}']", resource, total)
            elif isinstance(limited, frozenset) and resource in limited:  # the limit stands for a missing request
                limit = child(limits, resource)
                if limit is not None:
                    amount = self.quantity(limit, f"{where}.limits['{resource}']", resource, total)
            if amount is None and requested is None and not (isinstance(limited, frozenset) and resource in limited) \
                    and resource in self.defaults and only is RESOURCES:
                amount = self.defaults[resource]  # the LimitRanger admission's default request
                self.defaulted.add(resource)
            if amount is not None:
                total.amounts[resource] = amount
        return total


def _entries(values: Any) -> dict[str, Any] | Unknown | None:
    """A resource map's entries for the resources the pack counts (values unknown stay Unknown)."""
    if isinstance(values, Unknown):
        return values
    if not is_mapping(values):
        return None
    return {key: child(values, key) for key in values if key in _COUNTED}


def _names(values: Any) -> frozenset[str] | Unknown | None:
    """The counted resources a map names, without reading their values (read only when needed)."""
    if isinstance(values, Unknown):
        return values
    if not is_mapping(values):
        return None
    return frozenset(key for key in values if key in _COUNTED)


def _has(values: Any, key: str) -> bool:
    return is_mapping(values) and child(values, key) is not None


def _items(value: Any) -> Sequence[Any] | Unknown:
    if isinstance(value, Unknown):
        return value
    return items(value) if is_list(value) else ()


def extended_resources(pod_spec: Any) -> frozenset[str] | Unknown:
    """The extended resources (nvidia.com/gpu, aws.amazon.com/neuron, ...) its containers and init containers request
    or limit, as the ExtendedResourceToleration admission plugin reads them (plugin/pkg/admission/
    extendedresourcetoleration: every name of their requests and limits that is an extended resource, a name with a
    domain outside kubernetes.io/ and not of requests.); Unknown when a name may not be known yet."""
    if isinstance(pod_spec, Unknown):
        return pod_spec
    found: set[str] = set()
    for key in ("containers", "initContainers"):
        containers = _items(child(pod_spec, key))
        if isinstance(containers, Unknown):
            return containers
        for container in containers:
            resources = child(container, "resources")
            for values in (resources, child(resources, "requests"), child(resources, "limits")):
                if isinstance(values, Unknown):
                    return values
            for values in (child(resources, "requests"), child(resources, "limits")):
                if is_mapping(values):
                    found.update(name for name in values if isinstance(name, str) and _extended(name))
    return frozenset(found)


def _extended(name: str) -> bool:
    """helper.IsExtendedResourceName: not a native resource (no domain, or kubernetes.io/'s), not a quota name."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def pod_request(pod_spec: Any, path: str, defaults: Mapping[str, Decimal] | None = None) -> PodRequest:
    """One Pod's request per resource, from a pod spec at ``path`` (e.g. spec.template.spec); ``defaults``: the
    request its namespace's LimitRange gives a container that sets none (admission.LimitRange.requests)."""
    reader = _Reader(path, defaults)
    if isinstance(pod_spec, Unknown):
        return PodRequest({}, dict.fromkeys(RESOURCES, pod_spec))
    if not is_mapping(pod_spec):
        return PodRequest(dict.fromkeys(RESOURCES, _ZERO))

    everything_unknown: Unknown | None = None
    apps = _Sum()
    containers = _items(child(pod_spec, "containers"))
    if isinstance(containers, Unknown):
        everything_unknown = containers
    else:
        for index, container in enumerate(containers):
            if isinstance(container, Unknown):
                everything_unknown = everything_unknown or container
                continue
            apps = apps.add(reader.resources(child(container, "resources"), f"containers[{index}].resources"))

    sidecars = _Sum()
    init_peak = _Sum()
    init_containers = _items(child(pod_spec, "initContainers"))
    if isinstance(init_containers, Unknown):
        everything_unknown = everything_unknown or init_containers
    else:
        for index, container in enumerate(init_containers):
            if isinstance(container, Unknown):
                everything_unknown = everything_unknown or container
                continue
            own = reader.resources(child(container, "resources"), f"initContainers[{index}].resources")
            restart = child(container, "restartPolicy")
            if isinstance(restart, Unknown):
                everything_unknown = everything_unknown or restart
            elif restart == "Always":  # a sidecar: runs from here on, beside everything after it
                sidecars = sidecars.add(own)
                init_peak.widen(sidecars)
            else:  # runs to completion, beside the sidecars declared before it
                init_peak.widen(own.add(sidecars))

    total = apps.add(sidecars)
    total.widen(init_peak)

    pod_level = child(pod_spec, "resources")
    if pod_level is not None:
        level = reader.resources(pod_level, "resources", _POD_LEVEL)
        for resource in _POD_LEVEL:
            if resource in level.unknown:
                total.unknown.setdefault(resource, level.unknown[resource])
            elif _has(child(pod_level, "requests"), resource) or _has(child(pod_level, "limits"), resource):
                total.amounts[resource] = level.amounts.get(resource, _ZERO)
                total.secret.discard(resource)
                total.secret |= level.secret & {resource}

    overhead = child(pod_spec, "overhead")
    if isinstance(overhead, Unknown):
        total.unknown.update(dict.fromkeys(RESOURCES, overhead))
    elif is_mapping(overhead):
        extra = _Sum()
        named = set(overhead)  # its keys, without reading a value that may not be known yet
        for resource in RESOURCES:
            if resource not in named:
                continue
            amount = reader.quantity(child(overhead, resource), f"overhead['{resource}']", resource, extra)
            if amount is not None:
                extra.amounts[resource] = amount
        total = total.add(extra)

    if everything_unknown is not None:
        total.unknown.update(dict.fromkeys(RESOURCES, everything_unknown))
    amounts = {resource: total.amounts.get(resource, _ZERO) for resource in RESOURCES if resource not in total.unknown}
    if total.unknown or reader.bad or total.secret or reader.defaulted or not all(
            type(amount) is Decimal for amount in amounts.values()):
        return PodRequest(amounts, dict(total.unknown), tuple(reader.bad), frozenset(total.secret),
                          frozenset(reader.defaulted))
    # a plain request (nothing unknown, secret or malformed) is one object per distinct amounts: thousands of
    # workloads request the same (100m and 128Mi), and each kept its own dicts (BENCHMARKS.md, memory)
    key = tuple(str(amount) for amount in amounts.values())  # 500 and 500.0 are equal, but not written alike
    return shared(_REQUESTS, key, PodRequest(amounts), _MOST_REQUESTS)


_REQUESTS: dict[tuple[str, ...], PodRequest] = {}  # by the amounts of RESOURCES, in its order
_MOST_REQUESTS = 1 << 12


# --- how many Pods ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Replicas:
    """How many Pods of a workload run at once, at least."""

    count: int | Unknown | None  # None: the field cannot be read (the API server would refuse it)
    secret: bool = False


def replicas(kind: str, props: Any) -> Replicas:
    """The Pods a workload of ``kind`` runs at once: its replicas (default 1), a Job's parallelism
    (no more than its completions), one for a Pod, none for a PodTemplate (a template runs nothing).
    DaemonSets run one Pod per node and are counted per node instead."""
    if kind == "Pod":
        return Replicas(1)
    if kind == "PodTemplate":
        return Replicas(0)
    if kind in ("Job", "CronJob"):
        job = child(child(child(props, "spec"), "jobTemplate"), "spec") if kind == "CronJob" else child(props, "spec")
        if isinstance(job, Unknown):
            return Replicas(job)
        parallelism = _count(child(job, "parallelism"))
        if child(job, "completions") is None:  # a work queue: parallelism Pods run at once
            return parallelism
        completions = _count(child(job, "completions"))
        if isinstance(parallelism.count, int) and isinstance(completions.count, int) \
                and completions.count < parallelism.count:
            return completions
        return parallelism
    spec = child(props, "spec")
    if isinstance(spec, Unknown):
        return Replicas(spec)
    return _count(child(spec, "replicas"))


def _count(value: Any) -> Replicas:
    """A replica count field: 1 when absent (the API's default)."""
    if value is None:
        return Replicas(1)
    if isinstance(value, Unknown):
        return Replicas(value)
    number = as_int(value)
    if number is None or not 0 <= number <= MAX_REPLICAS:  # an int32 the API server checks
        return Replicas(None)
    return Replicas(int(number), isinstance(number, SecretInt))


# --- Pods that repel each other -----------------------------------------------------------------



def repels_itself(pod_spec: Any, template: Any, namespace: Any, revisions: bool = False) -> bool:
    """True when the Pods' required anti-affinity keeps any two of them off one node: a term on
    ``kubernetes.io/hostname`` whose label selector matches the Pods' own labels (its pod template's)
    in their own namespace. Unknown or unreadable values never make it true. With ``revisions``, a term
    that also matches on ``matchLabelKeys`` (pod-template-hash: old and new Pods of a rollout differ) does
    not count."""
    affinity = child(child(pod_spec, "affinity"), "podAntiAffinity")
    if affinity is None:
        return False
    items = _items(child(affinity, "requiredDuringSchedulingIgnoredDuringExecution"))
    if isinstance(items, Unknown) or not items:
        return False
    labels = child(child(template, "metadata"), "labels")
    if not is_mapping(labels):
        return False
    return any(_repels(term, labels, namespace) and not (revisions and child(term, "matchLabelKeys"))
               for term in items if is_mapping(term))


def repel_key(pod_spec: Any) -> str:
    """The topology key its Pods repel each other on, as messages write it: kubernetes.io/hostname, or [secret]
    when the program marked it secret (that the verdict holds tells its value)."""
    affinity = child(child(pod_spec, "affinity"), "podAntiAffinity")
    items = _items(child(affinity, "requiredDuringSchedulingIgnoredDuringExecution")) if affinity is not None else []
    if isinstance(items, Unknown):
        return HOSTNAME
    secret = any(is_secret(child(term, "topologyKey")) for term in items if is_mapping(term))
    return REDACTED if secret else HOSTNAME


def _repels(term: Mapping[str, Any], labels: Mapping[str, Any], namespace: Any) -> bool:
    if child(term, "topologyKey") != HOSTNAME:
        return False
    if child(term, "mismatchLabelKeys"):  # its own Pods carry the same values: they never match
        return False
    return _own_namespace(term, namespace) and selects(child(term, "labelSelector"), labels)


def _own_namespace(term: Mapping[str, Any], namespace: Any) -> bool:
    """Whether the term looks at the Pods' own namespace: the union of ``namespaces`` and what
    ``namespaceSelector`` selects, where both null or empty mean the Pod's own and an empty selector
    means every namespace. What a non-empty selector selects is not known here."""
    namespaces = child(term, "namespaces")
    listed = list(namespaces) if is_list(namespaces) else []
    selector = child(term, "namespaceSelector")
    if is_mapping(selector) and len(selector) == 0:
        return True
    if selector is None and not listed and not isinstance(namespaces, Unknown):
        return True
    return isinstance(namespace, str) and namespace in listed


def selects(selector: Any, labels: Mapping[str, Any]) -> bool:
    """Whether a label selector certainly matches these labels (selectors.label_selector): what is not known yet
    counts as no match, since a Pod the pack cannot tell is its own is not counted as one."""
    return label_selector(selector, labels) is True


def _each_container(pod_spec: Any) -> list[tuple[str, Any]] | Unknown:
    """Each container and init container with how messages name it (its name, else containers[i]); Unknown when the
    lists or one of them is not known yet."""
    found: list[tuple[str, Any]] = []
    for key in ("containers", "initContainers"):
        listed = _items(child(pod_spec, key))
        if isinstance(listed, Unknown):
            return listed
        for index, container in enumerate(listed):
            if isinstance(container, Unknown):
                return container
            name = child(container, "name")
            found.append((name if isinstance(name, str) else f"{key}[{index}]", container))
    return found


# --- what a container leaves unset (a quota's "must specify") --------------------------------------------------------

def unset(pod_spec: Any) -> dict[tuple[str, str], tuple[str, ...]] | Unknown:
    """For ("requests" | "limits", cpu | memory), the containers and init containers that set none: a request is set
    by its request or its limit (the API server defaults one from the other); a limit only by itself. Unknown when a
    container or its resources are not known yet. Pod-level resources (spec.resources) stand for every container's:
    nothing is unset."""
    found: dict[tuple[str, str], list[str]] = {}
    if isinstance(pod_spec, Unknown):
        return pod_spec
    if child(pod_spec, "resources") is not None:
        return {}
    containers = _each_container(pod_spec)
    if isinstance(containers, Unknown):
        return containers
    for shown, container in containers:
        resources = child(container, "resources")
        requests, limits = child(resources, "requests"), child(resources, "limits")
        for value in (resources, requests, limits):
            if isinstance(value, Unknown):
                return value
        for resource in (CPU, MEMORY):
            has_limit = _has(limits, resource)
            if not has_limit:
                found.setdefault(("limits", resource), []).append(shown)
            if not has_limit and not _has(requests, resource):
                found.setdefault(("requests", resource), []).append(shown)
    return {key: tuple(names) for key, names in found.items()}


@dataclass(frozen=True)
class ContainerResources:
    """One container's cpu (millicores) and memory (bytes) requests and limits as written (a request the API server
    defaults from its limit included)."""

    name: str
    requests: Mapping[str, Decimal]
    limits: Mapping[str, Decimal]
    init: bool = False  # an init container (a sidecar among them)
    # as admitted (admission/limit_ranger.py admitted_containers): the resources whose request or limit the LimitRanges
    # of its namespace default differently, so that what the API server gives it depends on the order it lists them
    undecided: frozenset[str] = frozenset()
    defaulted: frozenset[str] = frozenset()  # as admitted: the resources whose limit is its LimitRanges' default


def container_resources(pod_spec: Any) -> tuple[ContainerResources, ...] | Unknown:
    """Every container's and init container's cpu and memory requests and limits that are written and readable;
    Unknown when one is not known yet."""
    found: list[ContainerResources] = []
    if isinstance(pod_spec, Unknown):
        return pod_spec
    containers = _each_container(pod_spec)
    if isinstance(containers, Unknown):
        return containers
    listed = _items(child(pod_spec, "containers"))  # they come first (_each_container), then the init containers
    apps = len(listed) if not isinstance(listed, Unknown) else 0
    for shown, container in containers:
        resources = child(container, "resources")
        amounts: dict[str, dict[str, Decimal]] = {"requests": {}, "limits": {}}
        for part in amounts:
            values = child(resources, part)
            for resource in (CPU, MEMORY):
                value = child(values, resource) if is_mapping(values) else values
                if isinstance(value, Unknown):
                    return value
                if not is_mapping(values):
                    continue
                amount = parse_quantity(value) if value is not None else None
                if amount is not None:
                    amounts[part][resource] = amount * 1000 if resource == CPU else amount
        for resource, limit in amounts["limits"].items():
            amounts["requests"].setdefault(resource, limit)  # the API server's defaulting
        found.append(ContainerResources(shown, amounts["requests"], amounts["limits"], len(found) >= apps))
    return tuple(found)


@dataclass(frozen=True)
class HostAccess:
    """What a Pod asks of its node beyond its own sandbox, as platforms that run Pods on nodes of their own refuse it
    (EKS Fargate, GKE Autopilot): privileged containers, the host's network, PID and IPC namespaces, host ports, and
    hostPath volumes (their paths)."""

    privileged: tuple[str, ...] = ()
    host_network: bool = False
    host_pid: bool = False
    host_ipc: bool = False
    host_ports: tuple[str, ...] = ()
    host_paths: tuple[str, ...] = ()


def host_access(pod_spec: Any) -> HostAccess | Unknown:
    """A pod spec's :class:`HostAccess`; Unknown when a field that decides it is not known yet."""
    if isinstance(pod_spec, Unknown):
        return pod_spec
    flags = {}
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        value = child(pod_spec, key)
        if isinstance(value, Unknown):
            return value
        flags[key] = value is True
    privileged: list[str] = []
    ports: list[str] = []
    containers = _each_container(pod_spec)
    if isinstance(containers, Unknown):
        return containers
    for shown, container in containers:
        flag = child(child(container, "securityContext"), "privileged")
        if isinstance(flag, Unknown):
            return flag
        if flag is True:
            privileged.append(shown)
        exposed = _items(child(container, "ports"))
        if isinstance(exposed, Unknown):
            return exposed
        for port in exposed:
            host = child(port, "hostPort")
            if isinstance(host, Unknown):
                return host
            if host is not None and host != 0:
                ports.append(shown)
                break
    paths: list[str] = []
    volumes = _items(child(pod_spec, "volumes"))
    if isinstance(volumes, Unknown):
        return volumes
    for volume in volumes:
        path = child(child(volume, "hostPath"), "path")
        if isinstance(path, Unknown):
            return path
        if isinstance(path, str):
            paths.append(path)
    return HostAccess(tuple(privileged), flags["hostNetwork"], flags["hostPID"], flags["hostIPC"], tuple(ports),
                      tuple(paths))
