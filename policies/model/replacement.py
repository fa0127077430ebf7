"""Which pools this preview replaces (SPEC section 15): a pool's nodes are replaced when its machine, its machines,
its AMI type or its launch template changes against the previous deployment (section 5). Every node is drained on
the way: EKS fails a managed node group update whose Pods cannot be evicted (``PodEvictionFailure``,
docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html), AKS an upgrade or a node image change
on a blocking budget (learn.microsoft.com/azure/aks/upgrade-cluster, "Optimize for undrainable node behavior").

The previous pools are read by the same sources as this preview's, from the previous inputs of the same URNs, and
matched to this preview's by URN and pool name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .clusters import KubeCluster
from .pool import Pool
from .resources import StackResource
from .sources import Context, pools_of, source_of
from .values import Unknown, quoted


@dataclass(frozen=True)
class Change:
    """What changed on a pool that replaces its nodes."""

    what: str  # machine, machines, AMI type, launch template
    before: str
    after: str

    def __str__(self) -> str:
        return f"its {self.what} changes from {self.before} to {self.after}"


def previous_pools(inputs: Mapping[str, Any], types: Mapping[str, str]) -> dict[tuple[str, str], Pool]:
    """The pools of the previous deployment, by (URN, pool name)."""
    found: dict[tuple[str, str], Pool] = {}
    for urn, props in inputs.items():
        kind = types.get(urn)
        source = source_of(kind) if kind is not None else None
        if source is None:
            continue
        resource = StackResource(kind or "", urn, urn.rsplit("::", 1)[-1], props)
        for pool, _claim in source.read([resource], Context()).pools:
            found[(pool.urn, pool.name)] = pool
    return found


def previous_clusters(inputs: Mapping[str, Any], types: Mapping[str, str]) -> dict[str, KubeCluster]:
    """The cluster resources of the previous deployment, by URN, read by the same sources as this preview's."""
    found: dict[str, KubeCluster] = {}
    for urn, props in inputs.items():
        kind = types.get(urn)
        source = source_of(kind) if kind is not None else None
        if source is None:
            continue
        resource = StackResource(kind or "", urn, urn.rsplit("::", 1)[-1], props)
        found.update((cluster.urn, cluster) for cluster in source.read([resource], Context()).clusters)
    return found


def previous_of(urn: str, inputs: Mapping[str, Any], types: Mapping[str, str]) -> list[Pool] | None:
    """The pools one resource declared in the previous deployment, read alone as this preview's are (None: it was
    not deployed)."""
    props = inputs.get(urn)
    kind = types.get(urn)
    if props is None or kind is None:
        return None
    return pools_of(kind, props, urn, urn.rsplit("::", 1)[-1]) or []


def changes(before: Pool, after: Pool) -> tuple[Change, ...] | Unknown:
    """What changed from ``before`` to ``after`` that replaces the pool's nodes; Unknown when this preview's
    value is not known yet (it may change)."""
    if after.group is not None or before.group is not None:  # a ComputeCluster's capacity group: its machine
        old = getattr(before.group, "instance_type", None)
        new = getattr(after.group, "instance_type", None)
        if isinstance(new, Unknown):
            return new
        if isinstance(old, str) and isinstance(new, str) and old != new:
            return (Change("machine", f"'{old}'", f"'{new}'"),)
        return ()
    if isinstance(after.unknown, Unknown) and not after.named_types:
        return after.unknown
    found: list[Change] = []
    if before.named_types and after.named_types and set(before.named_types) != set(after.named_types):
        what = "machine" if len(before.named_types) == len(after.named_types) == 1 else "machines"
        found.append(Change(what, quoted(before.named_types, 5), quoted(after.named_types, 5)))
    if before.ami_type is not None and after.ami_type is not None and before.ami_type != after.ami_type:
        found.append(Change("AMI type", f"'{before.ami_type}'", f"'{after.ami_type}'"))
    old_template, new_template = before.launch_template, after.launch_template
    if _unknown(new_template):
        return _unknown(new_template) or ()
    if old_template is not None and new_template is not None and old_template != new_template:
        found.append(Change("launch template", _template(old_template), _template(new_template)))
    return tuple(found)


def _unknown(value: Any) -> Unknown | None:
    if isinstance(value, Unknown):
        return value
    if isinstance(value, Mapping):
        return next((found for item in value.values() if (found := _unknown(item)) is not None), None)
    return None


def _template(value: Any) -> str:
    """A launch template as messages show it: its id or name, and its version."""
    if not isinstance(value, Mapping):
        return "another"
    name = value.get("name") or value.get("id")
    version = value.get("version")
    shown = f"'{name}'" if isinstance(name, str) else "a template"
    return f"{shown} version {version}" if isinstance(version, (str, int)) else shown


def replaced(pools: list[Pool], inputs: Mapping[str, Any], types: Mapping[str, str]
             ) -> tuple[dict[Pool, tuple[Change, ...]], dict[Pool, Unknown]]:
    """The pools whose nodes this preview replaces, with what changed; and those it may replace (a value
    not known yet)."""
    before = previous_pools(inputs, types)
    found: dict[Pool, tuple[Change, ...]] = {}
    maybe: dict[Pool, Unknown] = {}
    for pool in pools:
        old = before.get((pool.urn, pool.name))
        if old is None:
            continue  # a new pool: nothing to drain
        changed = changes(old, pool)
        if isinstance(changed, Unknown):
            maybe[pool] = changed
        elif changed:
            found[pool] = changed
    return found, maybe


__all__ = ["Change", "changes", "previous_clusters", "previous_of", "previous_pools", "replaced"]
