"""Pools as the platforms declare them (SPEC section 14): one typed pool, whatever its source.

A :class:`PlatformPool` is what the scheduler will see of a pool's nodes: the machines they may be (catalog
facts), the labels each machine's nodes carry (:class:`~policies.model.scheduling.NodeSpace`), the taints
they all carry, and the kubelet settings that decide allocatable. Its sources live in
``policies/model/sources/<platform's name>.py``; :func:`schedule_of` judges a workload against every pool of
the stack once, for workload-schedulable, workload-fits-pool and workload-node-architecture alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..platforms.catalog import Machine
from .cluster import Pool
from .nodes import Node, node_of
from .scheduling import (
    MAYBE,
    Domain,
    LabelMismatch,
    NodeSpace,
    PodPlacement,
    Taint,
    labels_match,
    untolerated,
)
from .values import Unknown


@dataclass(frozen=True)
class PlatformPool:
    source: str  # its kind, as messages name it: NodePool
    urn: str
    name: str  # its name on the cluster (metadata.name), else the resource's
    platform: str  # whose catalog its machines are from (aws)
    labels: Mapping[str, Domain]  # the labels every node carries, whatever its machine
    machines: tuple[tuple[Machine, Mapping[str, str]], ...]  # each machine it may start, and its labels
    taints: tuple[Taint, ...]
    unknown: Unknown | None = None  # what decides where Pods may land is not known yet
    maybe_prefixes: tuple[str, ...] = ()  # label keys the platform may set that the pack does not model
    machine_keys: tuple[str, ...] = ()  # the label keys its machines decide (each machine's own values)
    kubelet: Mapping[str, Any] = field(default_factory=dict)  # allocatable setting's shape, from its node class
    # what all its nodes together may have at most (a NodePool's spec.limits), per resource in base units
    limits: Mapping[str, Decimal | Unknown] = field(default_factory=dict)
    # what cloud-machine-catalog checks: the instance types as written (a node group's, or a NodePool's
    # instance-type In values), the AMI type, and whether the requirements name the machines outright (instance
    # types or families, all in the catalog), so that allowing none of them is certain
    max_size: int | Unknown | None = None  # the most nodes it runs (a node group's maxSize), None: not bounded here
    named_types: tuple[str, ...] = ()
    ami_type: str | None = None
    ami_architecture: str | None = None
    names_certain: bool = False
    _spaces: dict[frozenset[str], list[tuple[NodeSpace, tuple[Machine, ...]]]] = field(
        default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        return f"pool '{self.name}' ({self.source})"

    def spaces(self, keys: frozenset[str]) -> list[tuple[NodeSpace, tuple[Machine, ...]]]:
        """Its nodes as far as a Pod asking about ``keys`` can tell them apart: one space per distinct set of
        machine labels among those keys, with the machines that have them (kept per set of keys)."""
        cached = self._spaces.get(keys)
        if cached is not None:
            return cached
        if not self.machines:  # no machine of the catalog: its machines' labels may be anything
            unknown: dict[str, Domain] = {key: MAYBE for key in self.machine_keys}
            self._spaces[keys] = [(NodeSpace({**self.labels, **unknown}, self.maybe_prefixes), ())]
            return self._spaces[keys]
        groups: dict[tuple[tuple[str, str], ...], list[Machine]] = {}
        for machine, labels in self.machines:
            projected = tuple(sorted((key, value) for key, value in labels.items() if key in keys))
            groups.setdefault(projected, []).append(machine)
        result = [(NodeSpace({**self.labels, **{key: frozenset({value}) for key, value in projected}},
                             self.maybe_prefixes), tuple(machines))
                  for projected, machines in groups.items()]
        self._spaces[keys] = result
        return result

    def node(self, machine: Machine) -> Node | Unknown | None:
        """A node of one of its machines, with the platform's reservations and its node class's kubelet."""
        pool = Pool(0, self.name, machine.name, None, None, None, None, label=self.label)
        return node_of(pool, self.platform, {"allocatable": {self.platform: dict(self.kubelet)}}, None)


@dataclass(frozen=True)
class PoolVerdict:
    """One pool's answer for a workload's Pods."""

    pool: PlatformPool
    untolerated: tuple[Taint, ...] = ()
    mismatch: LabelMismatch | None = None
    machines: tuple[Machine, ...] = ()  # the machines whose nodes have the labels it asks for
    unknown: Unknown | None = None  # the pool or the Pod is not known well enough to say

    @property
    def takes(self) -> bool:
        """Certainly can take its Pods, as far as labels and taints go."""
        return self.unknown is None and not self.untolerated and self.mismatch is None

    @property
    def refuses(self) -> bool:
        return self.unknown is None and (bool(self.untolerated) or self.mismatch is not None)


def judge(pool: PlatformPool, placement: PodPlacement) -> PoolVerdict:
    """Whether the scheduler could put a Pod with ``placement`` on a node of ``pool``, and which machines."""
    unknown = pool.unknown or placement.unknown
    if unknown is not None:
        return PoolVerdict(pool, unknown=unknown)
    taints = untolerated(placement, pool.taints)
    first: LabelMismatch | None = None
    machines: list[Machine] = []
    for space, group in pool.spaces(placement.keys):
        mismatch = labels_match(placement, space)
        if mismatch is None:
            machines.extend(group)
        elif first is None:
            first = mismatch
    return PoolVerdict(pool, taints, None if machines else first, tuple(machines))


def refused_by_selector(pool: PlatformPool, placement: PodPlacement) -> bool:
    """A quick certain refusal: a nodeSelector entry on a label every node of the pool has with other values, or
    that no node of it has (most Pods name their pool this way: only one pool of many is worth judging)."""
    if pool.unknown is not None or placement.unknown is not None:
        return False
    for key, value in placement.selector:
        if key in pool.machine_keys:
            continue
        domain = pool.labels.get(key)
        if isinstance(domain, frozenset):
            if value not in domain:
                return True
        elif domain is None and not any(key.startswith(prefix) for prefix in pool.maybe_prefixes):
            return True
    return False


class Schedule:
    """A workload's Pods against the stack's platform pools. Each pool is judged when a question needs it: a pool
    its nodeSelector certainly rules out is judged only to say why, when no pool takes the Pods."""

    __slots__ = ("pools", "placement", "_candidates", "_judged")

    def __init__(self, pools: tuple[PlatformPool, ...], placement: PodPlacement) -> None:
        self.pools = pools
        self.placement = placement
        self._candidates = tuple(index for index, pool in enumerate(pools)
                                 if not refused_by_selector(pool, placement))
        self._judged: dict[int, PoolVerdict] = {}

    def _verdict(self, index: int) -> PoolVerdict:
        verdict = self._judged.get(index)
        if verdict is None:
            verdict = self._judged[index] = judge(self.pools[index], self.placement)
        return verdict

    @property
    def verdicts(self) -> tuple[PoolVerdict, ...]:
        """Every pool's verdict, in declaration order."""
        return tuple(self._verdict(index) for index in range(len(self.pools)))

    @property
    def taking(self) -> tuple[PoolVerdict, ...]:
        return tuple(verdict for verdict in map(self._verdict, self._candidates) if verdict.takes)

    @property
    def unknown(self) -> Unknown | None:
        if self.placement.unknown is not None:
            return self.placement.unknown if self.pools else None
        return next((pool.unknown for pool in self.pools if pool.unknown is not None), None)

    @property
    def nowhere(self) -> bool:
        """No pool can take them, certainly: every pool refuses."""
        return bool(self.pools) and self.unknown is None and all(
            self._verdict(index).refuses for index in self._candidates)
