"""Devices Pods claim through Dynamic Resource Allocation (SPEC 24; resource.k8s.io, GA in Kubernetes 1.34).

A Pod names ResourceClaims in spec.resourceClaims: a ResourceClaimTemplate (the resourceclaim controller creates one
claim per Pod from it) or a ResourceClaim shared by every Pod that names it. Each request of a claim asks for devices of
one DeviceClass (``exactly``), or of the first of several that can be had (``firstAvailable``), and the scheduler's
DynamicResources plugin allocates all of a Pod's claims on one node, each device once, from the ResourceSlices the DRA
driver on that node publishes (k8s.io/dynamic-resource-allocation structured/internal/stable allocator_stable.go).

ResourceSlices do not exist before deploy. What a node can publish is bounded by its machine: NVIDIA's DRA driver for
GPUs (github.com/NVIDIA/k8s-dra-driver-gpu, deployments/helm/dra-driver-nvidia-gpu; NGC's chart nvidia-dra-driver-gpu)
publishes one device per GPU (DeviceClass gpu.nvidia.com: templates/deviceclass-gpu.yaml) and, on GPUs in MIG mode, one
per MIG instance (mig.nvidia.com: templates/deviceclass-mig.yaml); a machine with no NVIDIA GPU publishes neither.
The pack counts the devices a Pod's per-Pod claims ask of these two classes beside its CPU and memory
(pods.DEVICE_CLASSES; a node's at-most count is pods.gpu_devices'), so that a claim no node of its pools can hold is
refused as a request no node can hold is. A request's CEL selectors are decided over what every device of its class
publishes alike (PUBLISHED; model/cel.py): one that no such device matches is refused too, one every device matches
narrows nothing; a firstAvailable list of one counted class takes at least the fewest of its subrequests; a
ResourceClaim the Pods share is on each one's node beside its own (PodClaims.shared, not in its request). What it
cannot count (another class, a firstAvailable list of several classes, a claim not in the stack) and what it does
not check (a selector over what differs per GPU, whether the driver runs on the pool) is said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from . import cel
from .admission.namespace import object_name, written_namespace
from .pods import DEVICE_CLASSES, GPU_CLASS, MIG_CLASS, PodRequest
from .values import REDACTED, Unknown, child, is_list, is_mapping, is_secret, listed, plain

DRA = re.compile(r"^kubernetes:resource\.k8s\.io/(v1|v1beta1|v1beta2):"
                 r"(DeviceClass|ResourceClaim|ResourceClaimTemplate)$")
# the chart's names: NGC publishes it as nvidia-dra-driver-gpu, the repository's chart is dra-driver-nvidia-gpu
DRIVER_CHARTS = frozenset({"nvidia-dra-driver-gpu", "dra-driver-nvidia-gpu"})
# what the chart's DeviceClasses select (templates/deviceclass-gpu.yaml, deviceclass-mig.yaml): a stack's DeviceClass of
# one of these names selects what the pack counts only when it selects the same
DRIVER_SELECTORS = {
    GPU_CLASS: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
    MIG_CLASS: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
}
# What NVIDIA's DRA driver publishes for each device of its two classes (cmd/gpu-kubelet-plugin/deviceinfo.go of
# NVIDIA/k8s-dra-driver-gpu, GpuInfo.GetDevice and MigDeviceInfo.GetDevice, in its v1beta1 and v1 releases alike): its
# type, the same for every device of a class (the class selects by it); the other attributes and capacities are there
# on every device with values that differ per GPU (productName, architecture, a MIG instance's profile, memory), not
# known before deploy. Attributes only some releases publish (index, minor, pcieBusID, addressingMode, the
# resource.kubernetes.io/pcieRoot attribute) are not listed: a selector over them is not decided.
_GPU_ATTRIBUTES = frozenset({"uuid", "productName", "brand", "architecture", "cudaComputeCapability", "driverVersion",
                             "cudaDriverVersion"})
PUBLISHED = {
    GPU_CLASS: cel.Device("gpu.nvidia.com", (("type", "gpu"),), _GPU_ATTRIBUTES, frozenset({"memory"})),
    MIG_CLASS: cel.Device("gpu.nvidia.com", (("type", "mig"),), _GPU_ATTRIBUTES | {"parentUUID", "profile"},
                          frozenset({"multiprocessors", "copyEngines", "decoders", "encoders", "jpegEngines",
                                     "ofaEngines", "memory"})),
}
# resource.k8s.io AllocationResultsMaxSize: no claim is allocated more devices (the structured allocator's "exceeds the
# claim limit of 32")
MAX_COUNT = 32


@dataclass(frozen=True)
class Ask:
    """One way a request may be met: ``count`` devices of ``device_class`` (None: allocationMode All, every matching
    device of the node, at least one), narrowed by CEL ``selectors`` (None: not known yet, or secret) or not;
    ``selected``: whether they select every device of a class the pack counts (True, also without selectors), none
    (False), or not decided (None; also for a class it does not count)."""

    device_class: str | Unknown | None
    count: int | Unknown | None
    selectors: tuple[str, ...] | None = ()
    admin: bool = False  # adminAccess: the devices may be allocated to other claims too (not taken)
    selected: bool | None = True
    secret: bool = False  # its count (or allocationMode) comes from a secret value: so does what is counted of it


@dataclass(frozen=True)
class Request:
    """One request of a claim: one Ask (``exactly``), or the first of several that can be met (``firstAvailable``)."""

    name: str
    asks: tuple[Ask, ...]
    first_available: bool = False


@dataclass(frozen=True)
class Claim:
    """A ResourceClaim or a ResourceClaimTemplate's claim."""

    urn: str
    kind: str  # ResourceClaim | ResourceClaimTemplate
    name: str | Unknown | None
    namespace: str | Unknown | None
    requests: tuple[Request, ...] | Unknown
    # spec.devices.constraints narrow what is allocated (a matchAttribute over what differs between devices of a node,
    # a distinctAttribute, one not known yet): not checked
    constraints: bool = False


@dataclass(frozen=True)
class DeviceClass:
    urn: str
    name: str | Unknown | None
    selectors: Any  # plain: its spec.selectors


def parse(resource_type: str, urn: str, props: Any) -> Claim | DeviceClass | None:
    """A DRA object of the stack, in any version clusters serve (v1; v1beta2 as v1; v1beta1 with a request's fields
    on the request itself)."""
    found = DRA.match(resource_type)
    if found is None:
        return None
    version, kind = found.groups()
    if kind == "DeviceClass":
        return DeviceClass(urn, object_name(props), plain(child(child(props, "spec"), "selectors")))
    spec = child(props, "spec")
    if kind == "ResourceClaimTemplate":
        spec = child(spec, "spec")
    devices = child(spec, "devices")
    constraints = plain(child(devices, "constraints"))
    requests = _requests(child(devices, "requests"), version)
    narrowing = isinstance(constraints, Unknown) or isinstance(requests, Unknown) or any(
        not _alike(constraint, requests) for constraint in (constraints if is_list(constraints) else ()))
    return Claim(urn, kind, object_name(props), written_namespace(props), requests, narrowing)


# What the devices of the driver's classes on one node publish alike (deviceinfo.go, as PUBLISHED): a cloud machine's
# GPUs are of one model and run one driver, and a MIG instance publishes its GPU's product, brand, architecture, compute
# capability and driver versions (mig.go, CommonAttributesMig: its parent's); a device's type is its class's. A
# matchAttribute over one of these (over the type, among requests of one class) holds for any devices of the node: it
# narrows nothing.
ALIKE = frozenset({"type", "productName", "brand", "architecture", "cudaComputeCapability", "driverVersion",
                   "cudaDriverVersion"})


def _alike(constraint: Any, requests: tuple[Request, ...]) -> bool:
    """A constraint (resource.k8s.io/v1 DeviceConstraint) that holds for any devices of one node the pack counts: a
    matchAttribute over an attribute of ALIKE in the driver's domain, among exact requests (those it names, else all
    of the claim) of the counted classes (of one, for the type)."""
    if not is_mapping(constraint) or set(constraint) - {"requests", "matchAttribute"}:
        return False
    attribute = constraint.get("matchAttribute")
    if not isinstance(attribute, str) or is_secret(attribute) or not attribute.startswith("gpu.nvidia.com/") or \
            attribute.removeprefix("gpu.nvidia.com/") not in ALIKE:
        return False
    names = constraint.get("requests")
    if names is None or names == []:  # (none named: every request of the claim)
        applied = requests
    elif is_list(names) and all(isinstance(name, str) and not is_secret(name) for name in names):
        applied = tuple(request for request in requests if request.name in names)
        if len(applied) != len(set(names)):
            return False  # (a name of a subrequest, or of no request)
    else:
        return False
    if any(request.first_available for request in applied):
        return False
    classes = {request.asks[0].device_class for request in applied}
    return classes <= set(DEVICE_CLASSES) and (len(classes) == 1 or attribute != "gpu.nvidia.com/type")


def _requests(requests: Any, version: str) -> tuple[Request, ...] | Unknown:
    requests = plain(requests)
    if isinstance(requests, Unknown):
        return requests
    read: list[Request] = []
    for item in requests if is_list(requests) else ():
        if isinstance(item, Unknown):
            return item
        if not is_mapping(item):
            continue  # (the API server refuses such a claim)
        name = item.get("name")
        name = name if isinstance(name, str) else "?"
        alternatives = item.get("firstAvailable")
        if isinstance(alternatives, Unknown):
            return alternatives
        if is_list(alternatives) and alternatives:
            read.append(Request(name, tuple(_ask(each) for each in alternatives if is_mapping(each)), True))
            continue
        read.append(Request(name, (_ask(item if version == "v1beta1" else item.get("exactly")),)))
    return tuple(read)


def _ask(fields: Any) -> Ask:
    """deviceClassName, allocationMode (ExactCount, the default, or All) and count (1 by default) of one request or
    subrequest (resource.k8s.io/v1 ExactDeviceRequest, DeviceSubRequest)."""
    if isinstance(fields, Unknown):
        return Ask(fields, fields)
    if not is_mapping(fields):
        return Ask(None, 0)  # (a request that asks nothing the API server takes)
    name = fields.get("deviceClassName")
    mode = fields.get("allocationMode")
    count = fields.get("count")
    secret = is_secret(count) or is_secret(mode)
    if count is None:
        count = 1
    if isinstance(mode, Unknown):
        count = mode
    elif mode == "All":
        count = None
    elif isinstance(count, float) and count == int(count):  # (numbers arrive as floats over the wire)
        count = int(count)
    if isinstance(count, bool) or not isinstance(count, (int, Unknown, type(None))):
        count = 0  # a count the API server refuses (the claim is not created): counted as none
    expressions = _expressions(fields.get("selectors"))
    admin = fields.get("adminAccess")
    device = PUBLISHED.get(name) if isinstance(name, str) else None
    selected: bool | None = None
    if expressions == ():
        selected = True
    elif expressions is not None and device is not None:
        selected = cel.selects(expressions, device)
    return Ask(name if isinstance(name, (str, Unknown)) else None, count, expressions,
               admin is True or isinstance(admin, Unknown), selected, secret)


def _expressions(selectors: Any) -> tuple[str, ...] | None:
    """A request's CEL selectors, each one's expression; None when some is not known yet, a secret (what it decides
    would tell of it), or not text."""
    if isinstance(selectors, Unknown):
        return None
    found: list[str] = []
    for selector in selectors if is_list(selectors) else ():
        expression = child(child(selector, "cel"), "expression")
        if not isinstance(expression, str) or is_secret(expression):
            return None
        found.append(expression)
    return tuple(found)


# --- what one Pod claims --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PodClaims:
    """What one Pod's claims ask of the classes the pack counts (per Pod: its template claims), and what is not counted
    or not checked, in words for the notes."""

    amounts: Mapping[str, Decimal] = field(default_factory=dict)
    unknown: Unknown | None = None
    uncounted: tuple[str, ...] = ()  # the requests or claims the pack cannot count, each in words
    unchecked: tuple[str, ...] = ()  # what decides whether counted devices are there, not checked (selectors, ...)
    # claims no node can ever hold, in words: one whose requests ask more devices than the allocator gives a claim
    # (MAX_COUNT), or one request that takes every device of a class on the node (allocationMode All) beside another of
    # that class, neither narrowed by selectors (the allocator gives each device once)
    impossible: tuple[str, str] | None = None  # (why, what to do)
    driver: bool = True  # the stack, or a stack it reads, installs NVIDIA's DRA driver (a release of its chart)
    # what the shared ResourceClaims it names ask of each counted class: on its node beside ``amounts``, allocated once
    # for all the Pods that name them (not in its request: a pool's total takes them once, not once per Pod)
    shared: Mapping[str, Decimal] = field(default_factory=dict)
    # each shared ResourceClaim of the stack it names, by where and what it is (Stack.place, name), with what it asks of
    # each counted class (empty for a claim of classes the pack does not count): the Pods that name one are reserved
    # on it together (at most RESERVED_FOR of them), and those of one that asks node-local devices all run on its node
    sharing: Mapping[tuple[Any, str], Mapping[str, Decimal]] = field(default_factory=dict)
    secret: frozenset[str] = frozenset()  # the classes whose amount (its own or shared) comes from a secret value


# k8s.io/api/resource/v1 ResourceClaimStatus.reservedFor ("There can be at most 256 such reservations";
# ResourceClaimReservedForMaxSize): a Pod not reserved on a claim it names is never started
RESERVED_FOR = 256


ClaimKey = tuple[Any, str]  # a shared ResourceClaim: where it is (Stack.place) and its name
Group = tuple[tuple[Any, ...], dict[ClaimKey, Mapping[str, Decimal]]]


# The kinds whose Pods run until they are removed: those of a Job or CronJob (or a bare Pod) may run to completion and
# free their node and their reservation of a claim for the next, so they are waited for, never refused for it
KEPT_RUNNING = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"})


def claim_users(workloads: Iterable[Any], running_only: bool = True) -> dict[ClaimKey, list[Any]]:
    """The workloads that name each shared ResourceClaim of the stack, in the order they come: with ``running_only``,
    those of KEPT_RUNNING (a Patch's Pods are its target's, counted there), whose Pods are judged together; else every
    one (pool-capacity counts a claim only where all of them are counted)."""
    users: dict[ClaimKey, list[Any]] = {}
    for workload in workloads:
        claims = workload.claims
        if claims is not None and claims.unknown is None and (
                not running_only or (not workload.patch and workload.kind in KEPT_RUNNING)):
            for key in claims.sharing:
                users.setdefault(key, []).append(workload)
    return users


def sharing_groups(users: Mapping[ClaimKey, list[Any]]) -> list[Group]:
    """The workloads whose Pods run on one node because they share ResourceClaims of node-local devices (those of the
    classes the pack counts; a Pod that names two such claims joins the Pods of both), in groups, each with the claims
    they share; in the order ``users`` gives them."""
    index = {id(workload): order for order, workload in enumerate(
        dict.fromkeys(workload for naming in users.values() for workload in naming))}
    groups: list[Group] = []
    seen: set[ClaimKey] = set()
    for start, naming in users.items():
        if start in seen or not naming[0].claims.sharing[start]:
            continue
        members: dict[int, Any] = {}
        claims: dict[ClaimKey, Mapping[str, Decimal]] = {}
        waiting = [start]
        seen.add(start)
        while waiting:
            key = waiting.pop()
            claims[key] = users[key][0].claims.sharing[key]
            for workload in users[key]:
                if id(workload) in members:
                    continue
                members[id(workload)] = workload
                fresh = [other for other, asked in workload.claims.sharing.items() if asked and other not in seen]
                seen.update(fresh)
                waiting.extend(fresh)
        groups.append((tuple(sorted(members.values(), key=lambda workload: index[id(workload)])), claims))
    return groups


@dataclass
class _Counted:
    """What one claim asks of each counted class, what of it is not counted or not checked (in words), whether it is
    not known yet, each counted request (its class, its words, its ask), and how many devices its exact requests ask
    in all (of any class)."""

    amounts: dict[str, Decimal] = field(default_factory=dict)
    uncounted: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    late: Unknown | None = None
    asked: list[tuple[str, str, Ask]] = field(default_factory=list)
    total: int = 0
    # the requests whose selectors no device of their class matches (each subrequest's of a firstAvailable list)
    never: list[tuple[str, tuple[Ask, ...]]] = field(default_factory=list)
    secret: set[str] = field(default_factory=set)  # the classes whose amount comes from a secret count
    secret_total: bool = False  # ``total`` does


def _counted(claim: Claim, classes: Mapping[str, bool]) -> _Counted:
    found = _Counted()
    if isinstance(claim.requests, Unknown):
        found.late = claim.requests
        return found
    for request in claim.requests:
        where = f"request '{request.name}' of {claim.kind} '{claim.name}'"
        if request.first_available:
            late = next((value for ask in request.asks for value in (ask.device_class, ask.count)
                         if isinstance(value, Unknown)), None)
            if late is not None:
                found.late = late
                return found
            _first_available(found, request, where, classes)
            continue
        (ask,) = request.asks
        if isinstance(ask.device_class, Unknown) or isinstance(ask.count, Unknown):
            found.late = ask.device_class if isinstance(ask.device_class, Unknown) else ask.count  # type: ignore[assignment]
            return found
        found.total += ask.count or 0
        found.secret_total = found.secret_total or ask.secret
        if ask.admin:
            found.uncounted.append(f"{where} (adminAccess: devices other claims may hold too)")
            continue
        if ask.device_class not in DEVICE_CLASSES or not classes.get(ask.device_class, True):
            found.uncounted.append(f"{where} (DeviceClass '{ask.device_class}')" if ask.device_class is not None
                                   else f"{where} (no DeviceClass)")
            continue
        count = 1 if ask.count is None else ask.count  # All: every device there, at least one
        found.amounts[ask.device_class] = found.amounts.get(ask.device_class, Decimal(0)) + Decimal(count)
        if ask.secret:
            found.secret.add(ask.device_class)
        if ask.selected is False:
            found.never.append((where, (ask,)))
        elif ask.selected is None:
            found.unchecked.append(f"the CEL selectors of {where}")
        if ask.count is None:
            found.unchecked.append(f"how many devices {where} takes (allocationMode All: every one of its node, "
                                   f"which the allocator refuses past {MAX_COUNT} in a claim)")
        found.asked.append((ask.device_class, where, ask))
    if claim.constraints and found.amounts:
        found.unchecked.append(f"the constraints of {claim.kind} '{claim.name}'")
    return found


def _first_available(found: _Counted, request: Request, where: str, classes: Mapping[str, bool]) -> None:
    """A firstAvailable list of one counted class: the allocator takes the first subrequest it can meet, so a Pod takes
    at least the fewest devices of those whose selectors select some (a list of several classes, or of a class the pack
    does not count, is not counted); none of them: no device ever meets the request."""
    kinds = {ask.device_class for ask in request.asks}
    device_class = next(iter(kinds)) if len(kinds) == 1 else None
    if not isinstance(device_class, str) or device_class not in DEVICE_CLASSES or not classes.get(device_class, True) \
            or any(ask.admin for ask in request.asks):
        found.uncounted.append(f"{where} (firstAvailable)")
        return
    possible = [ask for ask in request.asks if ask.selected is not False]
    if not possible:
        found.never.append((where, request.asks))
        return
    counts = [ask.count if isinstance(ask.count, int) else None for ask in possible]  # (None: All)
    found.total += min(count or 0 for count in counts)
    fewest = min(1 if count is None else count for count in counts)  # All: at least one
    found.amounts[device_class] = found.amounts.get(device_class, Decimal(0)) + Decimal(fewest)
    if any(ask.secret for ask in request.asks):  # (which subrequest is the fewest would tell of the secret)
        found.secret.add(device_class)
        found.secret_total = True
    if any(ask.selected is None for ask in possible):
        found.unchecked.append(f"the CEL selectors of the subrequests of {where}")
    if None in counts:
        found.unchecked.append(f"how many devices {where} takes (a subrequest of allocationMode All)")


def _selects_none(where: str, asks: tuple[Ask, ...]) -> tuple[str, str]:
    """A request whose CEL selectors no device of its class matches (each of its subrequests'), in words: the first
    selector of each that is false."""
    device = PUBLISHED[str(asks[0].device_class)]
    false = [next(f"`{expression}`" for expression in ask.selectors or ()
                  if cel.selects((expression,), device) is False) for ask in asks]
    published = listed([f"{name} '{value}'" for name, value in device.known])
    whose = f"its CEL selector {false[0]} is" if len(asks) == 1 else \
        f"the CEL selectors of its subrequests ({listed(false)}) are"
    return (f"{where} selects no {asks[0].device_class} device: {whose} false for every device of that class, each of "
            f"which NVIDIA's DRA driver publishes with driver '{device.driver}' and {published}",
            "correct the selector")


def _impossible(asked: list[tuple[str, str, Ask]]) -> tuple[str, str] | None:
    """A request for every device of a class (allocationMode All) beside another request of the class, neither
    narrowed by selectors: the allocator gives every device of the node to the first and each device once, so the
    other finds none on any node (k8s.io/dynamic-resource-allocation structured allocator)."""
    for device_class, where, ask in asked:
        if ask.count is not None or ask.selected is not True:
            continue
        others = [other for klass, other, each in asked if klass == device_class and other != where
                  and each.selected is True]
        if others:
            return (f"{where} asks every {device_class} device of its node (allocationMode All) and "
                    f"{listed(others)} asks another, and a node's devices are allocated once each",
                    "ask a count instead of All, or narrow the requests by selectors to devices apart")
    return None


def prepare(stack: Any) -> Any:
    """Each workload whose Pods claim devices, with what its claims ask (``Workload.claims``): a template by name in
    the Pod's namespace and cluster (Stack.place; the stack's, or a stack's it reads: SPEC 18), once per Pod; a shared
    ResourceClaim is allocated once, on the node of every Pod that names it: its devices are on the Pod's node beside
    the Pod's own (``PodClaims.shared``), never once per Pod. A workload whose Pods claim none is returned as it is."""
    named: dict[tuple[Any, str, str], list[Claim]] = {}
    for claim in stack.claims:
        if isinstance(claim.name, str):
            named.setdefault((stack.place(claim.urn, claim.namespace), claim.kind, claim.name), []).append(claim)
    # a class of the stack of a counted name counts only when it selects what the driver's does
    classes = {name: _selects_as_driver(found.selectors, name)
               for found in stack.device_classes if isinstance(name := found.name, str) and name in DEVICE_CLASSES}
    driver = any(release.chart in DRIVER_CHARTS for release in stack.helm_releases) or \
        bool(DRIVER_CHARTS & stack.foreign_charts)

    def admit(workload: Any) -> Any:
        refs = workload.claim_refs
        if refs is None or refs == ():
            return workload
        if isinstance(refs, Unknown):
            return replace(workload, claims=PodClaims(unknown=refs))
        place = stack.place(workload.urn, workload.namespace)
        amounts: dict[str, Decimal] = {}
        shared: dict[str, Decimal] = {}
        sharing: dict[tuple[Any, str], Mapping[str, Decimal]] = {}
        uncounted: list[str] = []
        unchecked: list[str] = []
        secret: set[str] = set()
        asked: list[tuple[str, str, Ask]] = []
        over: tuple[str, str] | None = None
        for template, name in refs:
            if isinstance(name, Unknown):
                return replace(workload, claims=PodClaims(unknown=name))
            if not isinstance(name, str):
                continue  # (the API server refuses a claim that names neither)
            if not template and (place, name) in sharing:
                continue  # one claim, named twice: allocated once, its devices counted once
            kind = "ResourceClaimTemplate" if template else "ResourceClaim"
            found = named.get((place, kind, name), [])
            if len(found) != 1:
                uncounted.append(f"{kind} '{name}' ({'not in the stack' if not found else 'declared twice'})")
                continue
            counted = _counted(found[0], classes)
            if counted.late is not None:
                return replace(workload, claims=PodClaims(unknown=counted.late))
            if counted.total > MAX_COUNT:
                total = REDACTED if counted.secret_total else counted.total
                over = over or (f"{kind} '{name}' asks {total} devices in all, more than the {MAX_COUNT} "
                                "the allocator gives one claim", "split its requests across claims")
            asked.extend(counted.asked)
            over = over or next((_selects_none(where, asks) for where, asks in counted.never), None)
            into = amounts if template else shared
            if not template:
                sharing[(place, name)] = counted.amounts
            for device_class, count in counted.amounts.items():
                into[device_class] = into.get(device_class, Decimal(0)) + count
            uncounted.extend(counted.uncounted)
            unchecked.extend(counted.unchecked)
            secret |= counted.secret
        return replace(workload, claims=PodClaims(amounts, None, tuple(uncounted), tuple(unchecked),
                                                  over or _impossible(asked), driver, shared, sharing,
                                                  frozenset(secret)))

    return admit


def _selects_as_driver(selectors: Any, name: str) -> bool:
    if not is_list(selectors) or len(selectors) != 1:
        return False
    expression = child(child(selectors[0], "cel"), "expression")
    return isinstance(expression, str) and _normal(expression) == _normal(DRIVER_SELECTORS[name])


def _normal(expression: str) -> str:
    return re.sub(r"\s+", "", expression).replace('"', "'")


def claim_refs(pod_spec: Any) -> tuple[tuple[bool, Any], ...] | Unknown | None:
    """A pod spec's spec.resourceClaims: (a template, its name) each; None when it names none."""
    if isinstance(pod_spec, Unknown):
        return pod_spec
    claims = plain(child(pod_spec, "resourceClaims"))
    if isinstance(claims, Unknown):
        return claims
    if not is_list(claims) or not claims:
        return None
    refs: list[tuple[bool, Any]] = []
    for item in claims:
        if isinstance(item, Unknown):
            return item
        if not is_mapping(item):
            continue
        template = item.get("resourceClaimTemplateName")
        refs.append((True, template) if template is not None else (False, item.get("resourceClaimName")))
    return tuple(refs)


def with_claims(request: PodRequest, claims: PodClaims) -> PodRequest:
    """One Pod's request with the devices its claims ask (not known while its claims are not)."""
    if claims.unknown is not None:
        return replace(request, amounts={resource: value for resource, value in request.amounts.items()
                                         if resource not in DEVICE_CLASSES},
                       unknown={**dict.fromkeys(DEVICE_CLASSES, claims.unknown), **request.unknown})
    if not claims.amounts:
        return request
    amounts = dict(request.amounts)
    for device_class, count in claims.amounts.items():
        if device_class in amounts:
            amounts[device_class] += count
    hidden = claims.secret & set(claims.amounts)
    return replace(request, amounts=amounts, secret=request.secret | hidden) if hidden else \
        replace(request, amounts=amounts)
