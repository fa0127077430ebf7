"""The LimitRanger admission plugin (SPEC 21): a namespace's LimitRanges give each container that sets no request or
limit their ``Container`` defaults, before the scheduler sees the Pod (kubernetes.io/docs/concepts/policy/limit-range),
and namespace-admits-workload judges a container against their min, max and ratio.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from ...platforms.quantity import CPU, MEMORY, parse_quantity
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


def prepare(stack: Any) -> Any:
    """Each workload of a namespace whose LimitRanges give containers a default request, with those defaults (by
    cluster and namespace: Stack.place). A resource two LimitRanges of the namespace default differently is left as
    written. None when no LimitRange of the stack gives one."""
    by_place: dict[Any, dict[str, Any]] = {}
    for item in stack.limit_ranges:
        place = stack.place(item.urn, item.namespace)
        if not place.known or item.unknown is not None:
            continue
        merged = by_place.setdefault(place, {})
        for resource, amount in item.requests.items():
            merged[resource] = amount if merged.get(resource, amount) == amount else None
    if not by_place:
        return None

    def admit(workload: Any) -> Any:
        found = by_place.get(stack.place(workload.urn, workload.namespace))
        defaults = {key: value for key, value in (found or {}).items() if value is not None}
        return replace(workload, defaults=defaults) if defaults else workload

    return admit
