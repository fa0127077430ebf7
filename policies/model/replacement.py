"""Which pools this preview replaces (SPEC section 15): a pool's nodes are replaced when its machine, its machines,
its AMI type or its launch template changes against the previous deployment (section 5). Every node is drained on
the way: EKS fails a managed node group update whose Pods cannot be evicted (``PodEvictionFailure``,
docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html), AKS an upgrade or a node image change
on a blocking budget (learn.microsoft.com/azure/aks/upgrade-cluster, "Optimize for undrainable node behavior").

The previous pools are read by the same sources as this preview's, from the previous inputs of the same URNs, and
matched to this preview's by URN and pool name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .clusters import KubeCluster
from .memo import PerStack
from .pool import Pool
from .resources import StackResource
from .sources import Context, Read, Replacing, pools_of, renamed_by_provider, replacing_of, source_of, value_at
from .stack import Stack, parse_stack
from .values import Unknown, child, holds_secret, plain, public, quoted


@dataclass(frozen=True)
class Change:
    """What changed on a pool that replaces its nodes."""

    what: str  # machine, machines, AMI type, launch template
    before: str
    after: str

    def __str__(self) -> str:
        return f"its {self.what} changes from {self.before} to {self.after}"


def _previous_reads(inputs: Mapping[str, Any], types: Mapping[str, str]) -> Iterator[Read]:
    """What each source reads of each resource of the previous deployment, alone, from its old inputs."""
    for urn, props in inputs.items():
        kind = types.get(urn)
        source = source_of(kind) if kind is not None else None
        if source is not None:
            yield source.read([StackResource(kind or "", urn, urn.rsplit("::", 1)[-1], props)], Context())


def previous_pools(inputs: Mapping[str, Any], types: Mapping[str, str]) -> dict[tuple[str, str], Pool]:
    """The pools of the previous deployment, by (URN, pool name)."""
    return {(pool.urn, pool.name): pool for read in _previous_reads(inputs, types) for pool, _claim in read.pools}


def previous_clusters(inputs: Mapping[str, Any], types: Mapping[str, str]) -> dict[str, KubeCluster]:
    """The cluster resources of the previous deployment, by URN, read by the same sources as this preview's."""
    return {cluster.urn: cluster for read in _previous_reads(inputs, types) for cluster in read.clusters}


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


def replaced(pools: list[Pool], inputs: Mapping[str, Any], types: Mapping[str, str],
             resources: Mapping[str, StackResource] | None = None, outputs: Mapping[str, Any] | None = None,
             remembered: Mapping[str, Any] | None = None
             ) -> tuple[dict[Pool, tuple[Change, ...]], dict[Pool, Unknown]]:
    """The pools whose nodes this preview replaces or recreates, with what changed; and those it may (a value not known
    yet). ``resources``: this preview's, whose inputs its source says are applied by recreating every node
    (Replacing.recreates) are compared with the previous deployment's (its ``outputs`` where its inputs hold
    nothing)."""
    before = previous_pools(inputs, types)
    found: dict[Pool, tuple[Change, ...]] = {}
    maybe: dict[Pool, Unknown] = {}
    for pool in pools:
        old = before.get((pool.urn, pool.name))
        if old is None:
            continue  # a new pool: nothing to drain
        changed = changes(old, pool)
        if not isinstance(changed, Unknown) and resources is not None:
            recreated = _recreated(pool, old, inputs, types, resources, outputs or {}, remembered or {})
            changed = recreated if isinstance(recreated, Unknown) else (*changed, *recreated)
        if isinstance(changed, Unknown):
            maybe[pool] = changed
        elif changed:
            found[pool] = changed
    return found, maybe


def _recreated(pool: Pool, old: Pool, inputs: Mapping[str, Any], types: Mapping[str, str],
               resources: Mapping[str, StackResource], outputs: Mapping[str, Any], remembered: Mapping[str, Any]
               ) -> tuple[Change, ...] | Unknown:
    """What changed of the inputs the platform applies by recreating every node of the pool (Replacing.recreates):
    a node pool's own, a cluster's for its default pool (one that is the cluster's only inline pool)."""
    rule = replacing_of(types.get(pool.urn, ""))
    now = resources.get(pool.urn)
    previous = inputs.get(pool.urn)
    if rule is None or not rule.recreates or now is None or not isinstance(previous, Mapping):
        return ()
    if rule.whole_cluster and value_at(previous, "nodePools") is not None:
        return ()  # an inline nodePools entry: a change there replaces the whole cluster (pool-replacement-safe)
    deployed = outputs.get(pool.urn)
    if isinstance(deployed, Mapping):
        previous = _written(previous, deployed)
    checked = remembered.get(pool.urn)
    kept = checked.get("inputs") if isinstance(checked, Mapping) else None
    compared = _Compared(rule.recreates, previous, kept if isinstance(kept, Mapping) else plain(now.props),
                         not isinstance(kept, Mapping))
    return compared.late if compared.late is not None else tuple(compared.found)


@dataclass(frozen=True)
class Replaced:
    """A resource of the previous deployment that this preview replaces (or may: ``late``), as its source's
    ``Replacing`` says (SPEC 19): what changed, and whether its name is one the program set (``fixed``: a replacement
    deletes it first; None when the previous deployment does not say)."""

    resource: StackResource
    rule: Replacing
    changes: tuple[Change, ...]
    late: Unknown | None
    name: str  # its name input's value as messages show it
    fixed: bool | None
    # changes its provider makes only by rotating the pool, without the input that names the temporary pool; and
    # changes the platform refuses in place (Replacing.rotated, .refused): each fails the update
    rotations: tuple[Change, ...] = ()
    refusals: tuple[Change, ...] = ()
    # replacing inputs whose previous value is an encrypted secret of the state: whether they change is not known
    sealed: tuple[str, ...] = ()
    # the engine replaces it though none of the inputs its source knows to replace it changes: this preview plans a
    # new ID for it (a replaceOnChanges resource option, which the engine does not send a policy, or another reason
    # the pack does not see)
    unseen: bool = False


_REPLACED: PerStack[Stack, dict[int, tuple[Any, list[Replaced]]]] = PerStack(lambda stack: {})


def replaced_in(stack: Stack, inputs: Mapping[str, Any], types: Mapping[str, str], remembered: Mapping[str, Any],
                foreign: Mapping[str, str], outputs: Mapping[str, Any] | None = None) -> list[Replaced]:
    """:func:`replacements` of the stack against one previous deployment (its ``inputs``), made once per stack:
    pool-replacement-safe and the report read the same answer."""
    kept = _REPLACED.of(stack)
    found = kept.get(id(inputs))
    if found is None or found[0] is not inputs:
        found = kept[id(inputs)] = (inputs, replacements(stack.resources, inputs, types, remembered, foreign,
                                                         outputs))
    return found[1]


_EMPTIED: PerStack[Stack, dict[int, tuple[Any, dict[str, list[Pool]]]]] = PerStack(lambda stack: {})


def emptied(stack: Stack, deployed: Sequence[StackResource]) -> dict[str, list[Pool]]:
    """The clusters of the stack (by URN) whose every pool this preview removes: the pools the previous deployment
    (``deployed``: its resources as the model reads a stack's) joined to a cluster that now has none, none of them in
    this preview. Made once per stack; the previous deployment is parsed only when some cluster has no pool now."""
    kept = _EMPTIED.of(stack)
    found = kept.get(id(deployed))
    if found is not None and found[0] is deployed:
        return found[1]
    clusters = [cluster for cluster in stack.kube_clusters if cluster.urn not in stack.foreign and cluster.pools_known
                and cluster.urn not in stack.pooled]
    gone: dict[str, list[Pool]] = {}
    if clusters and deployed:
        before = parse_stack(deployed, {})
        for cluster in clusters:
            pools = [pool for pool in before.platform_pools
                     if pool.cluster.key == cluster.urn and pool.urn not in stack.resources]
            if pools:
                gone[cluster.urn] = pools
    kept[id(deployed)] = (deployed, gone)
    return gone


def replacements(resources: Mapping[str, StackResource], inputs: Mapping[str, Any], types: Mapping[str, str],
                 remembered: Mapping[str, Any], foreign: Mapping[str, str],
                 outputs: Mapping[str, Any] | None = None) -> list[Replaced]:
    """Each resource of the previous deployment (its ``inputs`` and ``types`` by URN) that is in this preview
    (``resources``), not another stack's, and whose replacing inputs changed, or may have. An input the previous
    deployment's inputs do not hold (one the program never wrote) is compared as its ``outputs`` hold it: what the
    provider and the cloud set it to (a GKE pool's spot, an EKS group's capacityType)."""
    found: list[Replaced] = []
    for urn, old in inputs.items():
        rule = replacing_of(types.get(urn, ""))
        now = resources.get(urn)
        if rule is None or now is None or urn in foreign or not isinstance(old, Mapping):
            continue
        deployed = (outputs or {}).get(urn)
        if isinstance(deployed, Mapping):
            old = _written(old, deployed)
        checked = remembered.get(urn)
        # its checked inputs as Analyze saw them (sources.checked_inputs), else its props (outputs, which may hold
        # values the inputs never set: then only scalars and lists of them are compared)
        kept = checked.get("inputs") if isinstance(checked, Mapping) else None
        new = kept if isinstance(kept, Mapping) else plain(now.props)
        loose = not isinstance(kept, Mapping)
        provider_named = (rule.name,) if renamed_by_provider(rule, new, old, now.name) else ()
        changed = _Compared(tuple(path for path in rule.inputs if path not in provider_named), old, new, loose,
                            rule.self_links)
        rotated = _Compared(rule.rotated if rule.rotated and value_at(new, rule.rotation) is None else (), old, new,
                            loose)
        refused = _Compared(rule.refused, old, new, loose)
        late = changed.late or rotated.late or refused.late
        sealed = tuple(dict.fromkeys((*changed.sealed, *rotated.sealed, *refused.sealed)))
        if sealed and late is None and _kept(now, deployed):
            sealed = ()  # the engine keeps it: in a preview a replaced resource's ID is not known yet
        unseen = late is None and not changed.found and not sealed and _renewed(now, deployed)
        if late is None and not changed.found and not rotated.found and not refused.found and not sealed \
                and not unseen:
            continue
        name = value_at(new, rule.name)
        found.append(Replaced(now, rule, () if late else tuple(changed.found), late,
                              _shown(name) if name is not None else "", rule.deletes_first(rule, new, old, now.name),
                              () if late else tuple(rotated.found), () if late else tuple(refused.found), sealed,
                              unseen))
    return found


def _kept(now: StackResource, deployed: Any) -> bool:
    """This preview keeps the resource it was (its ID is the deployed one): the engine plans a replacement's ID as not
    known yet, and an update or no change keeps it (docs/testing.md). What the engine decided whatever an encrypted
    secret of the state holds."""
    old = deployed.get("id") if isinstance(deployed, Mapping) else None
    new = child(now.props, "id")
    return isinstance(old, str) and bool(old) and isinstance(new, str) and new == old


def _renewed(now: StackResource, deployed: Any) -> bool:
    """This preview replaces the resource it was: the previous deployment holds its ID, and the engine sends its ID as
    not known yet, which it does for a resource it creates or replaces only (an update or no change keeps it; a
    resource whose provider is not configured has no ID at all)."""
    old = deployed.get("id") if isinstance(deployed, Mapping) else None
    return isinstance(old, str) and bool(old) and isinstance(child(now.sent.props, "id"), Unknown)


def _written(inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> dict[str, Any]:
    """The previous inputs, with what the previous outputs hold where the inputs hold nothing (objects merged key by
    key; lists of objects by their name, or, unnamed, entry by entry where both lists have as many: a provider's list
    keeps the program's order), never an internal key of the state (``__defaults``, ``__meta``)."""
    merged: dict[str, Any] = dict(inputs)
    for key, value in outputs.items():
        if str(key).startswith("__"):
            continue
        now = merged.get(key)
        if now is None:
            if value is not None:
                merged[key] = value
        elif isinstance(now, Mapping) and isinstance(value, Mapping):
            merged[key] = _written(now, value)
        elif isinstance(now, list) and isinstance(value, list):
            named = {name: entry for entry in value if isinstance(entry, Mapping)
                     and isinstance(name := entry.get("name"), str)}
            if len(now) == len(value) and _named(now) is None:
                merged[key] = [_written(entry, given) if isinstance(entry, Mapping) and isinstance(given, Mapping)
                               else entry for entry, given in zip(now, value, strict=True)]
            else:
                merged[key] = [_written(entry, named[entry["name"]]) if isinstance(entry, Mapping)
                               and entry.get("name") in named else entry for entry in now]
    return merged


def _same(old: Any, new: Any) -> bool:
    """Whether two values of an input are the same: a list compared as a set (a provider may store it in any order),
    a list of named objects entry by entry by name, a list of unnamed objects entry for entry in any order, and objects
    on the keys both sides set (as a whole input is: the previous side holds what the provider computed and the
    program never wrote, such as an inline node pool's taints, an empty string for a field it leaves unset, and its
    internal keys)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        return all(_same(old[key], new[key]) for key in old.keys() & new.keys() if not str(key).startswith("__"))
    if isinstance(old, list) and isinstance(new, list):
        before, after = _named(old), _named(new)
        if before is not None and after is not None:
            return before.keys() == after.keys() and all(_same(before[name], after[name]) for name in before)
        if any(isinstance(item, Mapping) for item in (*old, *new)):
            return len(old) == len(new) and _matched(old, list(new))
        return sorted(map(_text, old)) == sorted(map(_text, new))
    return _text(old) == _text(new)


def _matched(old: list[Any], new: list[Any]) -> bool:
    """Each entry of ``old`` the same as a distinct entry of ``new`` (as many of each)."""
    if not old:
        return True
    first, rest = old[0], old[1:]
    return any(_same(first, candidate) and _matched(rest, new[:index] + new[index + 1:])
               for index, candidate in enumerate(new))


def same_link(old: Any, new: Any) -> bool:
    """A self-link and a name of one resource, as the Google provider's compareSelfLinkOrResourceName suppresses their
    diff (hashicorp/terraform-provider-google google/tpgresource/self_link_helpers.go): a name equals a self-link
    ending in it; two self-links are equal from their projects/ part on."""
    if not isinstance(old, str) or not isinstance(new, str):
        return False
    if "/" not in new or "/" not in old:
        return old.rsplit("/", 1)[-1] == new.rsplit("/", 1)[-1] and ("/" in old) != ("/" in new)
    return old[old.find("projects/"):] == new[new.find("projects/"):] if "projects/" in old and "projects/" in new \
        else False


def _named(entries: list[Any]) -> dict[str, Any] | None:
    """A list's entries by their name, when each is an object with a name of its own (else None)."""
    found = {name: entry for entry in entries
             if isinstance(entry, Mapping) and isinstance(name := entry.get("name"), str)}
    return found if len(found) == len(entries) else None


def _text(value: Any) -> str:
    """A value as compared: a whole number the same whether a state wrote it as 1 or the wire as 1.0 (the real engine
    sends every number as a float: initialNodeCount "changed from 1 to 1" under the CLI)."""
    return json.dumps(_whole(value), sort_keys=True, default=str)


def _late(value: Any) -> Unknown | None:
    if isinstance(value, Unknown):
        return value
    items = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else ()
    return next((found for item in items if (found := _late(item)) is not None), None)


class _Compared:
    """The inputs of ``paths`` whose values differ between the previous deployment (``old``) and this preview
    (``new``): ``found``, each a Change; ``late``, the first value of this preview not known yet (then nothing is
    decided); ``sealed``, the inputs whose previous value is an encrypted secret of the state, which the pack cannot
    read (never compared, never shown). An input set on one side only is compared with nothing. A ``[]`` in a path is a
    list whose entries are matched by their name (``agentPoolProfiles[].vmSize``). ``loose``: ``new`` is the resource's
    outputs, not its checked inputs: an output object may hold keys its input never set (GKE's own metadata), so
    objects are not compared."""

    __slots__ = ("found", "late", "sealed")

    def __init__(self, paths: tuple[str, ...], old: Mapping[str, Any], new: Any, loose: bool,
                 links: tuple[str, ...] = ()) -> None:
        self.found: list[Change] = []
        self.late: Unknown | None = None
        self.sealed: list[str] = []
        for path in paths:
            for shown, before, after in _pairs(path, old, new):
                if (late := _late(after)) is not None:
                    self.late = self.late or late
                    continue
                if _late(before) is not None:
                    if after is not None:
                        self.sealed.append(shown)
                    continue
                if before is None or after is None or _same(before, after) or (loose and (_object(before)
                                                                                           or _object(after))):
                    continue
                if path in links and same_link(before, after):
                    continue
                self.found.append(Change(shown, _shown(before), _shown(after)))


def _whole(value: Any) -> Any:
    """Numbers as the program wrote them: 30.0 (every number on the wire is a float) is 30."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _whole(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole(item) for item in value]
    return value


def _object(value: Any) -> bool:
    return isinstance(value, Mapping) or (isinstance(value, list) and any(isinstance(item, Mapping) for item in value))


def _pairs(path: str, old: Any, new: Any) -> list[tuple[str, Any, Any]]:
    """The values a path reaches on both sides: one pair, or one per entry of a ``[]`` list, matched by name."""
    if "[]." not in path:
        return [(path, value_at(old, path), value_at(new, path))]
    head, tail = path.split("[].", 1)
    before, after = value_at(old, head), value_at(new, head)
    if isinstance(after, Unknown):
        return [(path, None, after)]
    if not isinstance(before, list) or not isinstance(after, list):
        return []
    now = {entry.get("name"): entry for entry in after if isinstance(entry, Mapping)}
    pairs = []
    for entry in before:
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if isinstance(name, str) and name in now:
            pairs.append((f"{head}['{name}'].{tail}", value_at(entry, tail), value_at(now[name], tail)))
    return pairs


def _shown(value: Any) -> str:
    """An input's value as messages show it (a secret one, or one that holds a secret anywhere, never; never an
    internal key of the state)."""
    value = public(value)
    if holds_secret(value):
        return "[secret]"
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return quoted(value, 5)
    text = _text(_whole(value))
    return text if len(text) <= 60 else f"{text[:57]}..."


__all__ = ["Change", "Replaced", "changes", "emptied", "previous_clusters", "previous_of", "previous_pools", "replaced",
           "replaced_in", "replacements"]
