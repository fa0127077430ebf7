"""A Pod's topology spread constraints (SPEC section 15, policy 20), as the scheduler's PodTopologySpread plugin
reads them (Kubernetes' documentation, "Pod Topology Spread Constraints"; pkg/scheduler/framework/plugins/
podtopologyspread):

* a constraint counts, per domain of ``topologyKey``, the Pods its ``labelSelector`` matches; with
  ``whenUnsatisfiable: DoNotSchedule`` a Pod may go to a domain only if that keeps the domain's count minus the
  smallest count of any eligible domain within ``maxSkew``;
* a node without the key is no domain: such a Pod is never placed on it ("node(s) didn't match pod topology spread
  constraints (missing required label)");
* ``minDomains`` (DoNotSchedule only): while fewer domains are eligible than it, the smallest count is taken as 0,
  so each domain holds at most maxSkew of the Pods it selects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .labels import ZONE_KEYS
from .pods import selects
from .values import Unknown, as_int, child, is_list, is_mapping, is_secret


@dataclass(frozen=True, slots=True)
class Spread:
    """One hard constraint (DoNotSchedule) of a pod spec."""

    index: int
    key: str
    max_skew: int
    min_domains: int | None
    own: bool  # its labelSelector matches the workload's own Pods
    secret: bool = False
    when: str = "DoNotSchedule"  # as read: a secret one reads [secret] in messages

    @property
    def zones(self) -> bool:
        return self.key in ZONE_KEYS

    def describe(self) -> str:
        skew = "[secret]" if self.secret else str(self.max_skew)
        domains = "" if self.min_domains is None else f", minDomains {'[secret]' if self.secret else self.min_domains}"
        return f"topologySpreadConstraints[{self.index}] ({self.key}, maxSkew {skew}{domains}, {self.when})"


def spreads(pod_spec: Any, template: Any) -> tuple[Spread, ...] | Unknown:
    """The hard constraints the scheduler holds its Pods to; those that cannot be read are the API server's (it
    refuses them) and left out."""
    listed = child(pod_spec, "topologySpreadConstraints")
    if isinstance(listed, Unknown):
        return listed
    if not is_list(listed):
        return ()
    labels = child(child(template, "metadata"), "labels")
    found = []
    for index, item in enumerate(listed):
        if isinstance(item, Unknown):
            return item
        if not is_mapping(item):
            continue
        values = [child(item, key) for key in ("topologyKey", "whenUnsatisfiable", "maxSkew", "minDomains",
                                               "labelSelector")]
        late = next((value for value in values if isinstance(value, Unknown)), None)
        if late is not None:
            return late
        key, when, skew, domains, selector = values
        if when != "DoNotSchedule" or not isinstance(key, str) or not key:
            continue
        max_skew = as_int(skew)
        minimum = as_int(domains) if domains is not None else None
        if max_skew is None or max_skew < 1 or (domains is not None and (minimum is None or minimum < 1)):
            continue
        own = is_mapping(labels) and selects(selector, labels)
        found.append(Spread(index, key, int(max_skew), int(minimum) if minimum is not None else None, own,
                            is_secret(max_skew) or is_secret(minimum), when))
    return tuple(found)


__all__ = ["ZONE_KEYS", "Spread", "spreads"]
