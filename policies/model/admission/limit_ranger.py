"""The LimitRanger admission plugin (SPEC 21): a namespace's LimitRanges give each container that sets no request or
limit their ``Container`` defaults, before the scheduler sees the Pod (kubernetes.io/docs/concepts/policy/limit-range),
and namespace-admits-workload judges a container against their min, max and ratio.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Literal

from ...platforms.quantity import CPU, MEMORY, parse_quantity
from ..pods import ContainerResources
from ..values import Unknown, child, is_list, is_mapping, plain
from .namespace import written_namespace

LIMIT_RANGE = "kubernetes:core/v1:LimitRange"


@dataclass(frozen=True)
class LimitRange:
    urn: str
    name: str
    namespace: str | Unknown | None
    provider: str
    # what its Container limits give a container that sets none, per resource (millicores, bytes), as the API server
    # defaults a LimitRange (pkg/apis/core/v1 SetDefaults_LimitRangeItem: default from max, defaultRequest from
    # default, then from min) and the LimitRanger admission applies it
    requests: Mapping[str, Decimal] = field(default_factory=dict)
    limits: Mapping[str, Decimal] = field(default_factory=dict)
    unknown: Unknown | None = None
    # its Container limits' min, max and maxLimitRequestRatio, per resource (millicores, bytes; a ratio as is)
    minimum: Mapping[str, Decimal] = field(default_factory=dict)
    maximum: Mapping[str, Decimal] = field(default_factory=dict)
    ratio: Mapping[str, Decimal] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"LimitRange '{self.name}'"


def parse_limit_range(urn: str, name: str, props: Any, provider: str) -> LimitRange:
    limits = plain(child(child(props, "spec"), "limits"))
    if isinstance(limits, Unknown):
        return LimitRange(urn, name, written_namespace(props), provider, unknown=limits)
    bounds: dict[str, dict[str, Decimal]] = {"min": {}, "max": {}, "maxLimitRequestRatio": {}, "default": {},
                                             "defaultRequest": {}}
    for item in limits if is_list(limits) else ():
        if not is_mapping(item) or item.get("type") not in ("Container", None):
            continue
        for key, found in bounds.items():
            given = item.get(key)
            for resource in (CPU, MEMORY):
                value = parse_quantity(given.get(resource)) if is_mapping(given) else None
                if value is not None:
                    found[resource] = value * 1000 if resource == CPU and key != "maxLimitRequestRatio" else value
    limit_defaults = {**bounds["max"], **bounds["default"]}
    request_defaults = {**bounds["min"], **limit_defaults, **bounds["defaultRequest"]}
    written = child(child(props, "metadata"), "name")
    return LimitRange(urn, written if isinstance(written, str) else name, written_namespace(props), provider,
                      request_defaults, limit_defaults, None, bounds["min"], bounds["max"],
                      bounds["maxLimitRequestRatio"])


@dataclass(frozen=True)
class Defaults:
    """What a namespace's LimitRanges give a container that sets no request or limit, per resource (millicores,
    bytes); None where two of them give different ones: the API server applies each LimitRange in the order it lists
    them, so what such a container gets is not known."""

    requests: Mapping[str, Decimal | None] = field(default_factory=dict)
    limits: Mapping[str, Decimal | None] = field(default_factory=dict)

    @property
    def known_requests(self) -> dict[str, Decimal]:
        """The default requests every order gives (what one Pod's request counts: pods.pod_request)."""
        return {resource: amount for resource, amount in self.requests.items() if amount is not None}


def _merged(into: dict[str, Decimal | None], given: Mapping[str, Decimal]) -> None:
    for resource, amount in given.items():
        into[resource] = amount if into.get(resource, amount) == amount else None


def admitted_containers(containers: tuple[ContainerResources, ...] | Unknown,
                        defaults: Defaults | None) -> tuple[ContainerResources, ...] | Unknown:
    """Each container as LimitRanger admits it (plugin/pkg/admission/limitranger mergeContainerResources): a limit it
    does not write is its namespace's default limit, a request it does not write (nor defaults from its own limit)
    its default request; a resource whose default two LimitRanges disagree on, for a container that takes it, is
    ``undecided``."""
    if isinstance(containers, Unknown) or defaults is None:
        return containers
    found: list[ContainerResources] = []
    for container in containers:
        requests, limits = dict(container.requests), dict(container.limits)
        undecided: set[str] = set()
        for given, taken in ((defaults.limits, limits), (defaults.requests, requests)):
            for resource, amount in given.items():
                if resource in taken:
                    continue
                if amount is None:
                    undecided.add(resource)
                else:
                    taken[resource] = amount
        found.append(ContainerResources(container.name, requests, limits, container.init, frozenset(undecided),
                                        frozenset(limits) - frozenset(container.limits)))
    return tuple(found)


def prepare(stack: Any) -> Any:
    """Each workload of a namespace whose LimitRanges give containers a default request or limit, with those defaults
    (by cluster and namespace: Stack.place). None when no LimitRange of the stack gives one."""
    merged: dict[Any, tuple[dict[str, Decimal | None], dict[str, Decimal | None]]] = {}
    for item in stack.limit_ranges:
        place = stack.place(item.urn, item.namespace)
        if not place.known or item.unknown is not None or not (item.requests or item.limits):
            continue
        requests, limits = merged.setdefault(place, ({}, {}))
        _merged(requests, item.requests)
        _merged(limits, item.limits)
    if not merged:
        return None
    by_place = {place: Defaults(requests, limits) for place, (requests, limits) in merged.items()}

    def admit(workload: Any) -> Any:
        found = by_place.get(stack.place(workload.urn, workload.namespace))
        return replace(workload, defaults=found) if found is not None else workload

    return admit


@dataclass(frozen=True)
class Broken:
    """One bound of a LimitRange that one admitted container breaks, as LimitRanger's validation finds it
    (plugin/pkg/admission/limitranger PodValidateLimitFunc: minConstraint, maxConstraint, limitRequestRatioConstraint):
    ``kind`` "max" or "min" with ``part`` the request or the limit above or below it; "ratio", limit / request above
    maxLimitRequestRatio; "missing", a ratio with no request or no limit (``part``: the one missing, or 0); "over"
    (over_limits), a written request above the default limit (``bound``) the LimitRanges gave the container."""

    container: str
    resource: str
    kind: Literal["max", "min", "ratio", "missing", "over"]
    bound: Decimal  # the max, min or maxLimitRequestRatio
    part: Literal["request", "limit"] = "limit"
    value: Decimal | None = None  # the request or the limit (for a ratio: the limit)
    request: Decimal | None = None  # for a ratio: the request


def broken(bounds: LimitRange, containers: tuple[ContainerResources, ...]) -> list[Broken]:
    """What of each container's admitted requests and limits (Workload.admitted_containers) the LimitRange refuses,
    cpu then memory, in its containers' order. A min or max gives every container a default request or limit, so only
    a ratio can find one missing; a resource whose default depends on the order of two LimitRanges (``undecided``) is
    not judged."""
    found: list[Broken] = []
    for container in containers:
        for resource in (CPU, MEMORY):
            if resource in container.undecided:
                continue
            request, limit = container.requests.get(resource), container.limits.get(resource)
            most, least = bounds.maximum.get(resource), bounds.minimum.get(resource)
            for part, value in (("request", request), ("limit", limit)):
                if value is not None and most is not None and value > most:
                    found.append(Broken(container.name, resource, "max", most, part, value))  # type: ignore[arg-type]
                if value is not None and least is not None and value < least:
                    found.append(Broken(container.name, resource, "min", least, part, value))  # type: ignore[arg-type]
            ratio = bounds.ratio.get(resource)
            if ratio is None:
                continue
            if not request or not limit:
                found.append(Broken(container.name, resource, "missing", ratio, "request" if not request else "limit"))
            elif limit / request > ratio:
                found.append(Broken(container.name, resource, "ratio", ratio, "limit", limit, request))
    return found


def over_limits(containers: tuple[ContainerResources, ...]) -> list[Broken]:
    """Each admitted container whose request of a resource is above the limit its LimitRanges gave it (it wrote a
    request and no limit): the Pod's own validation, which runs after the mutating plugins, refuses a request above its
    limit (pkg/apis/core/validation: "must be less than or equal to ... limit")."""
    return [Broken(container.name, resource, "over", container.limits[resource], "request",
                   container.requests[resource])
            for container in containers for resource in (CPU, MEMORY)
            if resource in container.defaulted and resource in container.requests
            and container.requests[resource] > container.limits[resource]]
