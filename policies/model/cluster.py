"""ComputeCluster inputs -> a small typed model, plus what reading them found (parse once).

The inputs are a ComputeCluster's configuration in its JSON form, camelCase or
snake_case. :func:`parse_cluster` reads them once. It returns the model the rules use and
what could not be read: unknown keys, missing fields, wrong types, values outside a field's own
range or format. A field that cannot be read is left out of the model (``None``) so that no
policy reports it a second time; a field that is not known yet is an :class:`Unknown`. How fields
relate to each other (sizes and scale policy, references to pools, failure domains, network
capacity) is the rule of compute-cluster-valid (policies/compute_cluster_valid.py).
"""

from __future__ import annotations

import difflib
import ipaddress
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from ..platforms.architectures import MACHINE_ARCHITECTURES, MACHINE_MISTAKES
from .values import (
    SecretInt,
    SecretNumber,
    SecretText,
    Unknown,
    as_int,
    derived,
    is_mapping,
    plain,
    reading,
    snake,
    type_name,
)

ARCHITECTURES = MACHINE_ARCHITECTURES
DEFAULT_CONTAINER_CIDR = "10.244.0.0/16"
MAX_POOL_SIZE = 10

_CLUSTER_ID = re.compile(r"^[A-Za-z0-9_-]+$")
_POOL_ID = re.compile(r"^[a-z0-9-]+$")
_CPU_CORES = re.compile(r"^(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$")
_CPU_MILLICORES = re.compile(r"^[0-9]+m$")

_CLUSTER_FIELDS = ("id", "capacityGroups", "dynamicContainerPool", "selectedFailureDomains",
                   "failureDomainSpread", "containerCidr", "type")
# The component provider's spelling of the id (compute_guard/component: the Pulumi SDKs of TypeScript and Go reserve
# `id` on resources and drop it from a component's inputs), read as the seed's `id` (SPEC section 2).
ID_ALIASES = {"clusterId": "id", "cluster_id": "id"}
_POOL_FIELDS = ("groupId", "instanceType", "profile", "minSize", "maxSize", "scalePolicy",
                "nestedVirtualization")
_PROFILE_FIELDS = ("cpu", "memoryBytes", "ephemeralStorageBytes", "architecture", "gpu", "dataDisk")
_GPU_FIELDS = ("type", "count")
_RANGE_FIELDS = ("min", "max", "default")
_SCALE_FIELDS = {"fixed": ("type", "machines"), "autoscale": ("type", "min", "max")}
_U32 = 2**32 - 1
_U64 = 2**64 - 1


@dataclass(frozen=True)
class Gpu:
    type: str | Unknown | None
    count: int | Unknown | None


@dataclass(frozen=True)
class Profile:
    """A pool's machine as its profile states it: hardware totals, before any reservation. A field
    that cannot be read is None (reported), one not known yet Unknown."""

    cpu: Decimal | Unknown | None  # millicores
    memory: int | Unknown | None  # bytes
    storage: int | Unknown | None  # ephemeral storage, bytes
    secret: frozenset[str] = frozenset()  # the fields ("cpu", "memory", "ephemeral-storage") marked secret


@dataclass(frozen=True)
class Range:
    """A scalePolicy range as read: ``min``, ``max`` and ``default`` whole numbers, each None when it
    is missing or invalid (reported) and Unknown when it is not known yet."""

    field: str  # scalePolicy.machines, scalePolicy.min or scalePolicy.max
    low: int | Unknown | None
    high: int | Unknown | None
    default: int | Unknown | None


@dataclass(frozen=True)
class ScalePolicy:
    kind: str  # "fixed" or "autoscale"
    ranges: Mapping[str, Range | None]  # fixed: machines; autoscale: min, max (None: missing or not an object)


@dataclass(frozen=True)
class CapacityGroup:
    """A capacity group (a pool) of a ComputeCluster, as its inputs say (policies/model/sources/compute_cluster.py
    makes it a :class:`~policies.model.pool.Pool`)."""

    index: int
    group_id: str | Unknown | None
    instance_type: str | Unknown | None
    architecture: str | Unknown | None
    gpu: Gpu | Unknown | None
    nested_virtualization: bool | Unknown | None
    max_size: int | Unknown | None
    min_size: int | Unknown | None = None
    scale_policy: ScalePolicy | None = None  # None: absent, or its type is unreadable or not known yet
    whole: Unknown | None = None  # the whole pool is not known yet
    label: str = ""  # how messages name it: pool 'apps', or capacityGroups[2]
    profile: Profile | Unknown | None = None


@dataclass(frozen=True)
class Cluster:
    """What the rules need of one ComputeCluster's configuration."""

    label: str
    id: str | Unknown | None
    pools: tuple[CapacityGroup, ...] | Unknown
    dynamic_container_pool: str | Unknown | None
    # pool id (as written) -> its failure-domain names, Unknown, or None when they cannot be read
    selected_failure_domains: Mapping[str, tuple[str, ...] | Unknown | None] | Unknown | None
    container_cidr: str | Unknown | None
    # pool id (as written) -> its spread, Unknown, or None when it cannot be read
    failure_domain_spread: Mapping[str, int | Unknown | None] | Unknown | None = None
    container_network: ipaddress.IPv4Network | None = None  # containerCidr, when it is a valid network

    @property
    def subject(self) -> str:
        return f"ComputeCluster '{self.label}'"

    @property
    def pool_ids(self) -> set[str] | None:
        """The known pool ids, or None when some pool's id cannot be known."""
        if isinstance(self.pools, Unknown):
            return None
        ids: set[str] = set()
        for pool in self.pools:
            if isinstance(pool.group_id, Unknown):
                return None
            if isinstance(pool.group_id, str):
                ids.add(pool.group_id)
        return ids


@dataclass(frozen=True)
class ClusterEntry:
    """A ComputeCluster of the stack: its resource, and its configuration (or what is not known of it)."""

    urn: str
    name: str
    cluster: Cluster | Unknown

    @property
    def label(self) -> str:
        if isinstance(self.cluster, Cluster):
            return self.cluster.label
        return self.name


@dataclass(frozen=True)
class Shape:
    """What reading a field found wrong with it (the grammar of the inputs: unknown, missing, wrong type,
    out of range), as a typed outcome: ``kind`` names the problem and ``facts`` hold what the words need (field
    paths, the values as written, a did-you-mean). compute-cluster-valid writes the words and reports it on the
    ComputeCluster (policies/compute_cluster_valid.py, SHAPES)."""

    subject: str  # ComputeCluster 'compute', or ComputeCluster 'compute' pool 'apps'
    kind: str
    facts: Mapping[str, Any]


Problem = Shape | Unknown


class _Fields:
    """Reads one JSON object of known fields, and records shape problems on the way."""

    def __init__(self, subject: str, findings: list[Problem]) -> None:
        self.subject = subject
        self.findings = findings

    def bad(self, kind: str, **facts: Any) -> None:
        self.findings.append(Shape(self.subject, kind, facts))

    def unknown(self, value: Unknown) -> None:
        self.findings.append(value)

    def read(self, obj: Mapping[str, Any], names: tuple[str, ...], where: str,
             tolerated: tuple[str, ...] = (), aliases: Mapping[str, str] | None = None) -> dict[str, Any]:
        """camelCase name -> value (None when absent or null), from either spelling (or an alias: another
        spelling -> the field's name)."""
        spelled = {name: name for name in names}
        spelled.update({snake(name): name for name in names})
        spelled.update(aliases or {})
        values: dict[str, Any] = {}
        keys: dict[str, Any] = {}  # the key each field was read from
        for key in obj:
            name = spelled.get(key) if isinstance(key, str) else None
            if name is None:
                self._unknown_key(key, names, where)
                continue
            value = obj[key]
            if value is None:
                continue
            if name not in values:
                values[name], keys[name] = value, key
                continue
            camel, other = (value, values[name]) if key == name else (values[name], value)
            first = keys[name]
            values[name] = camel  # with both spellings, the camelCase one is the field
            if name not in tolerated and _conflict(camel, other):
                second = key if key != name else first
                self.bad("both spellings", where=where, name=name, snake=second)
        return values

    def _unknown_key(self, key: Any, names: tuple[str, ...], where: str) -> None:
        candidates = list(names) + [snake(name) for name in names]
        close = difflib.get_close_matches(str(key), candidates, n=1, cutoff=0.6)
        self.bad("unknown field", where=where, key=key, close=close[0] if close else None, known=names)

    def mapping(self, value: Any, field: str) -> Mapping[str, Any] | None:
        if isinstance(value, Unknown):
            self.unknown(value)
            return None
        if not is_mapping(value):
            self.bad("wrong type", field=field, expected="object", found=type_name(value))
            return None
        return value

    def string(self, value: Any, field: str) -> str | Unknown | None:
        if isinstance(value, Unknown):
            self.unknown(value)
            return value
        if not isinstance(value, str):
            self.bad("wrong type", field=field, expected="string", found=type_name(value))
            return None
        return value

    def integer(self, value: Any, field: str, low: int, high: int) -> int | Unknown | None:
        """An integer in [low, high], or None (reported) when it is not one."""
        if isinstance(value, Unknown):
            self.unknown(value)
            return value
        number = as_int(value)
        if number is None:
            what = "a fraction" if isinstance(value, float) and not isinstance(value, bool) else type_name(value)
            self.bad("wrong type", field=field, expected="whole number", found=what)
            return None
        shown = number if abs(number) < 10**15 else None  # a number that long says nothing more
        if number < low:
            self.bad("below the minimum", field=field, number=shown, bound=low)
            return None
        if number > high:
            self.bad("above the maximum", field=field, number=shown, bound=high)
            return None
        return number

    def boolean(self, value: Any, field: str) -> bool | Unknown | None:
        if isinstance(value, Unknown):
            self.unknown(value)
            return value
        if not isinstance(value, bool):
            self.bad("wrong type", field=field, expected="boolean", found=type_name(value))
            return None
        return value


def _conflict(a: Any, b: Any) -> bool:
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    return bool(a != b)


class ParsedCluster(NamedTuple):
    """One ComputeCluster's inputs, read once: the model, and what reading them found wrong."""

    model: Cluster
    problems: list[Problem]


def is_compute_cluster(resource_type: Any) -> bool:
    """Any type token whose last segment is ComputeCluster: the shipped component, or an organisation's own."""
    return isinstance(resource_type, str) and resource_type.rsplit(":", 1)[-1] == "ComputeCluster"


def parse_cluster(props: Any, name: str) -> ParsedCluster:
    """Read a ComputeCluster's inputs once: the model, and every shape finding."""
    with reading(f"ComputeCluster '{name}'"):  # an unknown among them says whose it is
        data = plain(props)
    findings: list[Problem] = []
    if isinstance(data, Unknown):
        findings.append(data)
        return ParsedCluster(Cluster(name, data, data, None, None, None), findings)
    raw_id = (data.get("id") if data.get("id") is not None else data.get("clusterId")) if is_mapping(data) else None
    label = raw_id if isinstance(raw_id, str) and raw_id and not isinstance(raw_id, SecretText) else name
    shape = _Fields(f"ComputeCluster '{label}'", findings)
    if not is_mapping(data):
        shape.bad("configuration not an object", found=type_name(data))
        return ParsedCluster(Cluster(label, None, (), None, None, None), findings)

    fields = shape.read(data, _CLUSTER_FIELDS, "", aliases=ID_ALIASES)
    wrapper = fields.get("type")
    if wrapper is not None and not isinstance(wrapper, Unknown) and wrapper != "compute-cluster":
        shape.bad("type wrapper")

    cluster_id = _cluster_id(shape, fields.get("id"))
    pools = _pools(shape, fields.get("capacityGroups"))
    dynamic = fields.get("dynamicContainerPool")
    dynamic_pool = None if dynamic is None else shape.string(dynamic, "dynamicContainerPool")
    spread = _spread(shape, fields.get("failureDomainSpread"))
    selected = _selected_domains(shape, fields.get("selectedFailureDomains"))
    cidr, network = _container_cidr(shape, fields.get("containerCidr"))
    return ParsedCluster(Cluster(label, cluster_id, pools, dynamic_pool, selected, cidr, spread, network), findings)


def _cluster_id(shape: _Fields, value: Any) -> str | Unknown | None:
    if value is None:
        shape.bad("required", field="id")
        return None
    cluster_id = shape.string(value, "id")
    if isinstance(cluster_id, str) and not _CLUSTER_ID.match(cluster_id):
        shape.bad("id format")
        return None
    return cluster_id


def _pools(shape: _Fields, value: Any) -> tuple[CapacityGroup, ...] | Unknown:
    if value is None:
        shape.bad("required", field="capacityGroups")
        return ()
    if isinstance(value, Unknown):
        shape.unknown(value)
        return value
    if not isinstance(value, list):
        shape.bad("wrong type", field="capacityGroups", expected="list of pools", found=type_name(value))
        return ()
    if not value:
        shape.bad("no pools")
    raw_ids = [_raw_group_id(item) for item in value]
    counts = Counter(gid for gid in raw_ids if gid is not None)  # linear: list.count per pool was quadratic
    repeated = {gid for gid, count in counts.items() if count > 1}
    pools = tuple(_pool(shape, index, item, raw_ids[index] in repeated) for index, item in enumerate(value))
    seen: set[str] = set()
    for pool in pools:
        gid = pool.group_id
        if isinstance(gid, str) and gid:
            if gid in seen:
                shape.bad("pool repeated", pool=gid)
            seen.add(gid)
    return pools


def _raw_group_id(item: Any) -> str | None:
    """The pool's id as written, for labels in messages (validated later)."""
    if not is_mapping(item):
        return None
    gid = item.get("groupId")
    gid = item.get("group_id") if gid is None else gid
    return gid if isinstance(gid, str) and gid and not isinstance(gid, SecretText) else None


def _pool(cluster: _Fields, index: int, item: Any, repeated: bool = False) -> CapacityGroup:
    empty = CapacityGroup(index, None, None, None, None, None, None, label=f"capacityGroups[{index}]")
    if isinstance(item, Unknown):
        cluster.unknown(item)
        return CapacityGroup(index, item, item, item, item, item, item, item, whole=item,
                             label=f"capacityGroups[{index}]", profile=item)
    if not is_mapping(item):
        cluster.bad("wrong type", field=f"capacityGroups[{index}]", expected="object", found=type_name(item))
        return empty
    raw_gid = _raw_group_id(item)
    label = f"pool '{raw_gid}'" if raw_gid else f"capacityGroups[{index}]"
    if raw_gid and repeated:
        label += f" (capacityGroups[{index}])"
    shape = _Fields(f"{cluster.subject} {label}", cluster.findings)
    fields = shape.read(item, _POOL_FIELDS, "")

    group_id: str | Unknown | None
    if "groupId" not in fields:
        shape.bad("required", field="groupId")
        group_id = None
    else:
        group_id = shape.string(fields["groupId"], "groupId")
        if isinstance(group_id, str) and not _POOL_ID.match(group_id):
            shape.bad("group id format")
            group_id = None

    instance_type = None
    if "instanceType" in fields:
        instance_type = shape.string(fields["instanceType"], "instanceType")
        if instance_type == "":
            shape.bad("empty instance type")
            instance_type = None

    nested = None
    if "nestedVirtualization" in fields:
        nested = shape.boolean(fields["nestedVirtualization"], "nestedVirtualization")

    sizes: dict[str, int | Unknown | None] = {}
    for field in ("minSize", "maxSize"):
        if field not in fields:
            shape.bad("required", field=field, most=MAX_POOL_SIZE)
            sizes[field] = None
        else:
            sizes[field] = shape.integer(fields[field], field, 0, MAX_POOL_SIZE)
    scale_policy = _scale_policy(shape, fields["scalePolicy"]) if "scalePolicy" in fields else None

    architecture: str | Unknown | None = None
    gpu: Gpu | Unknown | None = None
    machine: Profile | Unknown | None = None
    if "profile" in fields:
        architecture, gpu, machine = _profile(shape, fields["profile"])
    return CapacityGroup(index, group_id, instance_type, architecture, gpu, nested, sizes["maxSize"], sizes["minSize"],
                scale_policy, label=label, profile=machine)


def _profile(shape: _Fields, value: Any) -> tuple[str | Unknown | None, Gpu | Unknown | None,
                                                  Profile | Unknown | None]:
    profile = shape.mapping(value, "profile")
    if profile is None:
        return (value, value, value) if isinstance(value, Unknown) else (None, None, None)
    fields = shape.read(profile, _PROFILE_FIELDS, "profile.")
    cpu: Decimal | Unknown | None = None
    if "cpu" not in fields:
        shape.bad("required", field="profile.cpu")
    else:
        cpu = _cpu(shape, fields["cpu"])
    sizes: dict[str, int | Unknown | None] = {}
    for field in ("memoryBytes", "ephemeralStorageBytes"):
        if field not in fields:
            shape.bad("required", field=f"profile.{field}")
            sizes[field] = None
        else:
            sizes[field] = shape.integer(fields[field], f"profile.{field}", 0, _U64)
    secret = {name for name, key in (("cpu", "cpu"), ("memory", "memoryBytes"), ("ephemeral-storage",
                                                                              "ephemeralStorageBytes"))
              if isinstance(fields.get(key), (SecretText, SecretInt, SecretNumber))}
    machine = Profile(cpu, sizes["memoryBytes"], sizes["ephemeralStorageBytes"], frozenset(secret))

    architecture: str | Unknown | None = None
    if "architecture" in fields:
        architecture = shape.string(fields["architecture"], "profile.architecture")
        if isinstance(architecture, str) and architecture not in ARCHITECTURES:
            hint = MACHINE_MISTAKES.get(architecture)
            shape.bad("not an architecture", value=architecture, hint=derived(hint, architecture) if hint else None)
            architecture = None

    gpu: Gpu | Unknown | None = None
    if "gpu" in fields:
        gpu = _gpu(shape, fields["gpu"])
    return architecture, gpu, machine


def _cpu(shape: _Fields, value: Any) -> Decimal | Unknown | None:
    """profile.cpu in millicores."""
    cpu = shape.string(value, "profile.cpu")
    if not isinstance(cpu, str):
        return cpu
    try:
        if _CPU_MILLICORES.match(cpu):
            amount = Decimal(cpu[:-1])
        elif _CPU_CORES.match(cpu):
            amount = Decimal(cpu)
        else:
            amount = None
    except InvalidOperation:
        amount = None
    if amount is None:
        shape.bad("cpu format")
        return None
    if amount <= 0:
        shape.bad("cpu zero")
        return None
    return amount if _CPU_MILLICORES.match(cpu) else amount * 1000


def _gpu(shape: _Fields, value: Any) -> Gpu | Unknown | None:
    gpu = shape.mapping(value, "profile.gpu")
    if gpu is None:
        return value if isinstance(value, Unknown) else None
    fields = shape.read(gpu, _GPU_FIELDS, "profile.gpu.")
    gpu_type: str | Unknown | None = None
    if "type" not in fields:
        shape.bad("required", field="profile.gpu.type")
    else:
        gpu_type = shape.string(fields["type"], "profile.gpu.type")
        if gpu_type == "":
            shape.bad("empty gpu type")
            gpu_type = None
    count: int | Unknown | None = None
    if "count" not in fields:
        shape.bad("required", field="profile.gpu.count")
    else:
        count = shape.integer(fields["count"], "profile.gpu.count", 1, _U32)
    return Gpu(gpu_type, count)


def _scale_policy(shape: _Fields, value: Any) -> ScalePolicy | None:
    policy = shape.mapping(value, "scalePolicy")
    if policy is None:
        return None
    kind = policy.get("type")
    if isinstance(kind, Unknown):
        shape.unknown(kind)
        return None
    if kind is None:
        shape.bad("required", field="scalePolicy.type")
        return None
    if not isinstance(kind, str) or kind not in _SCALE_FIELDS:
        shape.bad("scale type")
        return None
    fields = shape.read(policy, _SCALE_FIELDS[kind], "scalePolicy.")
    names = _SCALE_FIELDS[kind][1:]
    return ScalePolicy(kind, {name: _range(shape, fields.get(name), f"scalePolicy.{name}") for name in names})


def _range(shape: _Fields, value: Any, field: str) -> Range | None:
    if value is None:
        shape.bad("required", field=field, range=True)
        return None
    bounds = shape.mapping(value, field)
    if bounds is None:
        return None
    fields = shape.read(bounds, _RANGE_FIELDS, f"{field}.")
    numbers: dict[str, int | Unknown | None] = {}
    for name in _RANGE_FIELDS:
        if name not in fields:
            shape.bad("required", field=f"{field}.{name}", bound=True)
            numbers[name] = None
        else:
            numbers[name] = shape.integer(fields[name], f"{field}.{name}", 0, _U32)
    return Range(field, numbers["min"], numbers["max"], numbers["default"])


def _spread(shape: _Fields, value: Any) -> Mapping[str, int | Unknown | None] | Unknown | None:
    """Pool id -> its spread (None for an entry that cannot be read, reported)."""
    if value is None:
        return None
    spread = shape.mapping(value, "failureDomainSpread")
    if spread is None:
        return value if isinstance(value, Unknown) else None
    return {key: shape.integer(spread[key], f"failureDomainSpread['{key}']", 1, 255) for key in spread}


def _selected_domains(shape: _Fields, value: Any) -> Mapping[str, tuple[str, ...] | Unknown | None] | Unknown | None:
    """Pool id -> the failure domains it selects (None for an entry that cannot be read, reported)."""
    if value is None:
        return None
    selected = shape.mapping(value, "selectedFailureDomains")
    if selected is None:
        return value if isinstance(value, Unknown) else None
    result: dict[str, tuple[str, ...] | Unknown | None] = {}
    for key in selected:
        field = f"selectedFailureDomains['{key}']"
        domains = selected[key]
        if isinstance(domains, Unknown):
            shape.unknown(domains)
            result[key] = domains
            continue
        if not isinstance(domains, list):
            shape.bad("wrong type", field=field, expected="list of failure-domain names", found=type_name(domains))
            result[key] = None
            continue
        names = [shape.string(domain, f"{field}[{i}]") for i, domain in enumerate(domains)]
        unknown = next((name for name in names if isinstance(name, Unknown)), None)
        if unknown is not None:
            result[key] = unknown
        elif all(isinstance(name, str) for name in names):
            result[key] = tuple(name for name in names if isinstance(name, str))
        else:
            result[key] = None
    return result


def _container_cidr(shape: _Fields, value: Any) -> tuple[str | Unknown | None, ipaddress.IPv4Network | None]:
    """containerCidr as written, and the network it is when it is a valid one (/24 or wider)."""
    if value is None:
        return None, None
    cidr = shape.string(value, "containerCidr")
    if not isinstance(cidr, str):
        return cidr, None
    try:
        network = ipaddress.IPv4Network(cidr, strict=True)
    except ValueError:
        shape.bad("cidr not a network", cidr=cidr)
        return cidr, None  # still a custom network for the policies that only care that it is set
    if network.prefixlen > 24:
        shape.bad("cidr too narrow", cidr=cidr)
        return cidr, None
    return cidr, network
