"""Where a workload's Pods can land, decided once per workload per stack: the one answer every policy and the report
read (SPEC sections 2, 14 and 14.2).

* By the compute.alien.dev labels (policies/model/placement.py): the ComputeCluster pool a container, daemon or
  dynamic workload resolves to.
* By the scheduler's rules (policies/model/scheduling.py), on the pools the platforms declare: a workload that
  carries no compute.alien.dev placement and leaves its Pods to the default scheduler is judged against the pools of
  the cluster its provider targets, or, when the pack cannot tell which, of every cluster (each a candidate). A pool
  whose cluster the pack cannot tell (a Karpenter NodePool on the default provider) is a candidate pool of every
  cluster.

Each pool is judged when a question needs it: a pool a Pod's nodeSelector certainly rules out is judged only to say
why, when no pool takes the Pods.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .labels import OS, OS_BETA, WINDOWS
from .memo import PerStack
from .placement import Placement, placement_of, pool_of
from .pods import NVIDIA
from .pool import ClusterRef, Option, Pool
from .scheduling import (
    MAYBE,
    Domain,
    LabelMismatch,
    NodeSpace,
    PodPlacement,
    Taint,
    labels_match,
    required,
    untolerated,
)
from .stack import Stack
from .values import Unknown, listed, undetermined
from .workloads import Workload


@dataclass(frozen=True, slots=True)
class PoolVerdict:
    """One pool's answer for a workload's Pods."""

    pool: Pool
    untolerated: tuple[Taint, ...] = ()
    mismatch: LabelMismatch | None = None
    options: tuple[Option, ...] = ()  # the machines whose nodes have the labels it asks for
    unknown: Unknown | None = None  # the pool or the Pod is not known well enough to say
    named: bool = False  # the pool the workload's compute.alien.dev labels name (policy 6): its Pods run there

    @property
    def takes(self) -> bool:
        """Certainly can take its Pods, as far as labels and taints go."""
        return self.unknown is None and not self.untolerated and self.mismatch is None

    @property
    def refuses(self) -> bool:
        return self.unknown is None and (bool(self.untolerated) or self.mismatch is not None)


def judge(pool: Pool, placement: PodPlacement) -> PoolVerdict:
    """Whether the scheduler could put a Pod with ``placement`` on a node of ``pool``, and which machines."""
    unknown = pool.unknown or placement.unknown
    if unknown is not None:
        return PoolVerdict(pool, options=pool.options, unknown=unknown)
    if pool.labels_unknown is not None:
        return _judge_machines(pool, placement, pool.labels_unknown)
    taints = untolerated(placement, pool.taints)
    maybe = next((taint.maybe for taint in taints if taint.maybe), "")
    if maybe:
        taints = tuple(taint for taint in taints if not taint.maybe)
    first: LabelMismatch | None = None
    accepted: list[int] = []
    doubted: tuple[str, ...] | None = None  # the labels the platform may or may not set that the Pod's match hangs on
    for index, (space, _group) in enumerate(pool.spaces(placement.keys)):
        mismatch = labels_match(placement, space)
        if mismatch is None:
            accepted.append(index)
            if doubted != ():
                doubted = _doubted(placement, space)
        elif first is None:
            first = mismatch
    options = pool.chosen(placement.keys, tuple(accepted))
    late = next((key for key in sorted(placement.keys) if key in pool.late), None) if pool.late else None
    if late is not None and not taints and options:  # it asks about a label whose value is not known yet
        return PoolVerdict(pool, options=options, unknown=pool.late[late])
    if maybe and not taints and options:  # only a taint the platform may not set keeps it off
        return PoolVerdict(pool, options=options, unknown=undetermined(maybe))
    if doubted and not taints and options:  # only labels the pack does not model let it in
        return PoolVerdict(pool, options=options, unknown=undetermined(
            f"whether the nodes of {pool.label} carry label{'s' if len(doubted) > 1 else ''} {listed(doubted)} is not "
            f"known: its platform sets labels under that prefix that the pack does not model"))
    return PoolVerdict(pool, taints, None if options else first, options)


def _doubted(placement: PodPlacement, space: NodeSpace) -> tuple[str, ...]:
    """The keys the Pod asks about that the platform may or may not set on the space's nodes (MAYBE), when its match
    needs one of them; () when it matches without them (or asks about none)."""
    maybe = sorted(key for key in placement.keys if space.domain(key) is MAYBE)
    if not maybe:
        return ()
    without = NodeSpace(space.labels, space.maybe_prefixes, space.absent | frozenset(maybe))
    return () if labels_match(placement, without) is None else tuple(maybe)


def _judge_machines(pool: Pool, placement: PodPlacement, unknown: Unknown) -> PoolVerdict:
    """A pool whose declared labels and taints are not known yet: any label may be on its nodes, so only the labels
    its machines decide can refuse a Pod, certainly; otherwise the pool is possible, with the machines that may
    take the Pod."""
    first: LabelMismatch | None = None
    options: list[Option] = []
    for space, group in pool.spaces(placement.keys):
        anything = NodeSpace(space.labels, ("",))  # every other key may be there, with any value
        mismatch = labels_match(placement, anything)
        if mismatch is None:
            options.extend(group)
        elif first is None:
            first = mismatch
    if pool.options and not options:
        return PoolVerdict(pool, (), first)
    return PoolVerdict(pool, options=tuple(options) or pool.options, unknown=unknown)


def carried(verdict: PoolVerdict, placement: PodPlacement, key: str, *aliases: str,
            among: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The values of a label (``key``, and its ``aliases`` that every node sets alike: kubernetes.io/os and
    beta.kubernetes.io/os) on the nodes of a pool that take the Pod, sorted; none when the pool does not say. A pool
    whose nodes may carry several (a NodePool allowing linux and windows; ``among`` those a label of any value may
    have) starts the ones the Pod's nodeSelector and required node affinity allow."""
    domain = verdict.pool.labels.get(key)
    if isinstance(domain, frozenset):
        values = tuple(sorted(domain))
    elif among and domain is not None:
        values = tuple(sorted(among))
    else:
        return ()
    if len(values) < 2:
        return values
    pool = verdict.pool
    machines: dict[str, Domain] = dict.fromkeys(pool.machine_keys, MAYBE)  # its machines took the Pod already
    found = []
    for value in values:
        labels = {**pool.labels, **machines, **dict.fromkeys((key, *aliases), frozenset({value}))}
        if labels_match(placement, NodeSpace(labels, pool.maybe_prefixes, pool.absent)) is None:
            found.append(value)
    return tuple(found)


def interruption(verdict: PoolVerdict, placement: PodPlacement) -> str | None:
    """Whether the provider may reclaim every node of the pool that takes the Pod ("spot", "preemptible"; "" when some
    node is not; None when not known): the pool's capacity, or where its nodes may be of several capacity types (a
    NodePool allowing spot and on-demand, or naming none), the ones the Pod's selection leaves."""
    pool = verdict.pool
    if pool.interruption != "" or not pool.capacity_types:
        return pool.interruption
    left = carried(verdict, placement, pool.capacity_label, among=tuple(pool.capacity_types))
    kinds = {pool.capacity_types.get(value, "") for value in left}
    return kinds.pop() if len(kinds) == 1 and pool.labels.get(pool.capacity_label) is not None else ""


def refused_by_selector(pool: Pool, placement: PodPlacement) -> bool:
    """A quick certain refusal: a nodeSelector entry on a label every node of the pool has with other values, or
    that no node of it has (most Pods name their pool this way: only one pool of many is worth judging)."""
    if pool.unknown is not None or pool.labels_unknown is not None or placement.unknown is not None:
        return False
    for key, value in placement.selector:
        if key in pool.machine_keys:
            continue
        domain = pool.labels.get(key)
        if isinstance(domain, frozenset):
            if value not in domain:
                return True
        elif domain is None and (key in pool.absent or not any(key.startswith(prefix)
                                                                for prefix in pool.maybe_prefixes)):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Candidate:
    """A cluster the workload's Pods may run on, and its pools (indexes into the landing's pools)."""

    cluster: ClusterRef
    indexes: tuple[int, ...]
    complete: bool  # all its pools are in the stack
    # why its declared pools are all the Pod may run on, where the pools its platform adds never offer what it needs
    # (ClusterRef.unprovisioned); "" otherwise
    declared_only: str = ""


class Landing:
    """Where one workload's Pods land: its ComputeCluster placement, and its Pods against the platform pools of each
    candidate cluster."""

    __slots__ = ("workload", "placement", "named", "gate", "cluster", "pools", "candidates", "_candidates",
                 "_judged", "_shared")

    def __init__(self, workload: Workload, placement: Placement, named: PoolVerdict | None, gate: bool | Unknown,
                 cluster: ClusterRef, pools: tuple[Pool, ...], candidates: tuple[Candidate, ...],
                 shared: dict[tuple[Pool, Any], PoolVerdict] | None = None) -> None:
        self.workload = workload
        self.placement = placement  # by the compute.alien.dev labels
        # the ComputeCluster pool that placement names, as a verdict that takes its Pods (one per pool, shared)
        self.named = named
        self.gate = gate  # whether the scheduler's rules place it on the platform pools (Unknown: not known yet)
        self.cluster = cluster  # the cluster its provider targets (PROVIDERS_CLUSTER: the pack cannot tell)
        self.pools = pools  # the platform pools of its candidates
        if isinstance(workload.compute_class, Unknown):  # GKE may make nodes for its class that no pool shows
            candidates = tuple(replace(candidate, complete=False) for candidate in candidates)
        if any(not candidate.complete and (candidate.cluster.pool_label or candidate.cluster.unprovisioned
                                           or candidate.cluster.class_label) for candidate in candidates):
            candidates = tuple(_pinned(candidate, pools, workload.scheduling) for candidate in candidates)
        self.candidates = candidates
        # the candidate pools its nodeSelector does not certainly rule out (indexes), read when first asked: a
        # workload of another stack on a cluster whose pools this stack's workloads do not use never is
        self._candidates: tuple[int, ...] | None = None
        self._judged: dict[int, PoolVerdict] | None = None  # made when a pool is first judged (most never are)
        # the stack's verdicts by pool and placement (PodPlacement.key): most Pods of a stack ask the same of its pools
        self._shared = shared

    @property
    def pool(self) -> Pool | None:
        """The ComputeCluster pool its compute.alien.dev labels place it on."""
        return None if self.named is None else self.named.pool

    @property
    def scheduled(self) -> bool:
        """The scheduler's rules place it on the stack's platform pools."""
        return self.gate is True and bool(self.pools)

    @property
    def _indexes(self) -> tuple[int, ...]:
        found = self._candidates
        if found is None:
            found = ()
            if self.candidates:  # (a workload on ComputeCluster pools only never reads its scheduling constraints)
                rules, pools = self.workload.scheduling, self.pools
                every = sorted({index for candidate in self.candidates for index in candidate.indexes})
                found = tuple(index for index in every if not refused_by_selector(pools[index], rules))
            self._candidates = found
        return found

    def _verdict(self, index: int) -> PoolVerdict:
        judged = self._judged
        if judged is None:
            judged = self._judged = {}
        verdict = judged.get(index)
        if verdict is None:
            pool, placement = self.pools[index], self.workload.scheduling
            shared, key = self._shared, placement.key
            if shared is None or key is None:
                verdict = judge(pool, placement)
            else:
                verdict = shared.get((pool, key))
                if verdict is None:
                    verdict = shared[(pool, key)] = judge(pool, placement)
            judged[index] = verdict
        return verdict

    @property
    def verdicts(self) -> tuple[PoolVerdict, ...]:
        """Every candidate pool's verdict, in the stack's order."""
        every = sorted({index for candidate in self.candidates for index in candidate.indexes})
        return tuple(self._verdict(index) for index in every)

    @property
    def taking(self) -> tuple[PoolVerdict, ...]:
        """The pools that certainly take its Pods."""
        return tuple(verdict for verdict in map(self._verdict, self._indexes) if verdict.takes)

    @property
    def possible(self) -> tuple[PoolVerdict, ...]:
        """The pools that may take its Pods: every one that does not certainly refuse them."""
        return tuple(verdict for verdict in map(self._verdict, self._indexes) if not verdict.refuses)

    @property
    def unknown(self) -> Unknown | None:
        """What keeps a candidate pool's verdict from being known: the Pod's placement, or a pool's labels."""
        placement = self.workload.scheduling
        if placement.unknown is not None:
            return placement.unknown if self.candidates else None
        return next((verdict.unknown for verdict in map(self._verdict, self._indexes)
                     if verdict.unknown is not None), None)

    def refuses_everywhere(self) -> bool:
        """Every candidate cluster's pools certainly refuse its Pods."""
        if not self.candidates or self.unknown is not None:
            return False
        candidates = set(self._indexes)
        return all(all(self._verdict(index).refuses for index in candidate.indexes if index in candidates)
                   for candidate in self.candidates)

    @property
    def nowhere(self) -> bool:
        """No pool can take its Pods, certainly: every candidate cluster's pools refuse them, and every candidate's
        pools are all known."""
        return self.refuses_everywhere() and all(candidate.complete for candidate in self.candidates)

    @property
    def declared_only(self) -> tuple[tuple[ClusterRef, str], ...]:
        """The candidate clusters whose declared pools are all its Pods may run on because the pools their platform
        adds never offer what they need, each with why."""
        return tuple((candidate.cluster, candidate.declared_only) for candidate in self.candidates
                     if candidate.declared_only)

    @property
    def complete(self) -> bool:
        """Every candidate cluster's pools are all in the stack."""
        return bool(self.candidates) and all(candidate.complete for candidate in self.candidates)

    def runs_on(self) -> tuple[Pool, ...] | Unknown:
        """Every pool its Pods may run on: its ComputeCluster pool, else the platform pools that do not certainly
        refuse them; none when its cluster may have pools the stack does not show."""
        named = self.named
        if named is not None:
            return (named.pool,)
        if isinstance(self.gate, Unknown):
            return self.gate
        if not self.scheduled:
            return ()
        unknown = self.unknown
        if unknown is not None:
            return unknown
        return tuple(verdict.pool for verdict in self.possible) if self.complete else ()

    @property
    def unknown_cluster(self) -> bool:
        """Its cluster cannot be told and the stack has several it may be (SPEC 14.4: every one is a candidate)."""
        return not self.cluster.key and len(self.candidates) > 1

    def refused_by(self, candidate: Candidate) -> bool:
        """Every pool of this candidate cluster certainly refuses its Pods."""
        candidates = set(self._indexes)
        return all(self._verdict(index).refuses for index in candidate.indexes if index in candidates)

    def candidates_of(self, pool: Pool) -> tuple[Candidate, ...]:
        """The candidate clusters a pool is of (a pool whose cluster the pack cannot tell is every candidate's)."""
        index = next((i for i, found in enumerate(self.pools) if found is pool), None)
        return tuple(candidate for candidate in self.candidates if index in candidate.indexes)

    def possible_in(self, candidate: Candidate) -> tuple[PoolVerdict, ...]:
        """The pools of this candidate cluster that may take its Pods."""
        candidates = set(self._indexes)
        return tuple(verdict for index in candidate.indexes if index in candidates
                     and not (verdict := self._verdict(index)).refuses)

    def taking_in(self, candidate: Candidate) -> tuple[PoolVerdict, ...]:
        """The pools of this candidate cluster that certainly take its Pods."""
        return tuple(verdict for verdict in self.possible_in(candidate) if verdict.takes)


def _pinned(candidate: Candidate, pools: tuple[Pool, ...], placement: PodPlacement) -> Candidate:
    """The candidate, complete for a Pod that runs on its cluster's declared pools only: one that needs what the nodes
    its platform adds never offer (ClusterRef.unprovisioned), or that requires its cluster's pool-name label to name
    declared pools (a pool's name is unique in its cluster, so no pool the platform adds carries one), or that requires
    its cluster's ComputeClass label (ClusterRef.class_label: the stack's pass left the placement known only where
    every class it names is the stack's, with every node it may make read)."""
    cluster = candidate.cluster
    if candidate.complete or placement.unknown is not None or not candidate.indexes:
        return candidate
    if cluster.class_label and required(placement, cluster.class_label):  # (before what the platform's own nodes lack)
        return replace(candidate, complete=True)
    needed = needs(placement)
    why = next((why for need, why in cluster.unprovisioned if need in needed), "")
    if why:
        return replace(candidate, complete=True, declared_only=why)
    label = cluster.pool_label
    if not label:
        return candidate
    wanted = required(placement, label)
    if not wanted:
        return candidate
    declared: set[Any] = set()
    for index in candidate.indexes:
        domain = pools[index].labels.get(label)
        if isinstance(domain, frozenset):
            declared |= domain
    return replace(candidate, complete=True) if wanted <= declared else candidate


def needs(placement: PodPlacement) -> frozenset[str]:
    """What a Pod runs only where a node offers it, of what a platform's own nodes may lack (ClusterRef.unprovisioned):
    "windows" when it requires kubernetes.io/os (or its beta alias) to be windows; nvidia.com/gpu when it requests
    NVIDIA GPUs."""
    found = {WINDOWS} if any(required(placement, key) == {WINDOWS} for key in (OS, OS_BETA)) else set()
    requested = placement.requested
    if isinstance(requested, frozenset) and NVIDIA in requested:
        found.add(NVIDIA)
    return frozenset(found)


def _named(stack: Stack, pool: Pool) -> PoolVerdict:
    """A ComputeCluster pool's verdict for the workloads its labels place on it, one per pool and stack."""
    kept = _NAMED.of(stack)
    found = kept.get(pool)
    if found is None:
        found = kept[pool] = PoolVerdict(pool, named=True)
    return found


def gate(stack: Stack, workload: Workload) -> bool | Unknown:
    """Whether the scheduler's rules place the workload's Pods on the stack's platform pools (SPEC 14): the stack
    declares some, and the workload carries no compute.alien.dev placement, runs Pods (a Patch may not) and leaves
    them to the default scheduler."""
    if not stack.platform_pools or workload.patch or not workload.has_pod_spec:
        return False
    for label in (workload.cluster, workload.pool):
        if isinstance(label, Unknown):
            return label
        if label is not None:
            return False
    bypassed = workload.scheduler_bypassed
    if isinstance(bypassed, Unknown):
        return bypassed
    return not bypassed


def landing(stack: Stack, workload: Workload) -> Landing:
    """Where the workload lands, decided once per stack and workload."""
    own = workload in stack.own
    kept = _LANDINGS.of(stack)
    found = kept.get(workload) if own else None
    if found is not None and found.workload is workload:
        return found
    placement = placement_of(stack, workload)
    pool = pool_of(stack, placement) if isinstance(placement, tuple) else None
    opened = gate(stack, workload)
    cluster = stack.target(workload.urn)
    pools: tuple[Pool, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    if opened is True:
        pools, candidates = _candidates(stack, cluster)
    named = None if pool is None else _named(stack, pool)
    result = Landing(workload, placement, named, opened, cluster, pools, candidates, _VERDICTS.of(stack))
    if own:
        kept[workload] = result
    return result


def _candidates(stack: Stack, cluster: ClusterRef) -> tuple[tuple[Pool, ...], tuple[Candidate, ...]]:
    """The platform pools the workload's Pods may land on, and its candidate clusters among them (once per stack
    and cluster)."""
    kept = _CANDIDATES.of(stack)
    found = kept.get(cluster.key)
    if found is None:
        found = kept[cluster.key] = _find_candidates(stack, cluster)
    return found


def _find_candidates(stack: Stack, cluster: ClusterRef) -> tuple[tuple[Pool, ...], tuple[Candidate, ...]]:
    groups = _groups(stack)
    everywhere = groups.get("", ())
    if cluster.key:
        keys = [cluster.key]
    else:
        keys = [key for key in groups if key] + [cluster.urn for cluster in stack.kube_clusters
                                                 if cluster.urn not in groups]
        keys = keys or [""]
    pools = stack.platform_pools
    candidates = []
    refs = {pool.cluster.key: pool.cluster for pool in pools}
    refs.update({kube.urn: kube.ref for kube in stack.kube_clusters})
    for key in keys:
        indexes = tuple(sorted(set(groups.get(key, ())) | set(everywhere)))
        ref = refs.get(key, cluster)
        candidates.append(Candidate(ref, indexes, ref.complete and bool(indexes)))
    return tuple(pools), tuple(candidates)


def _groups(stack: Stack) -> dict[str, tuple[int, ...]]:
    """The platform pools' indexes by the key of the cluster they join, computed once per stack."""
    return _POOL_GROUPS.of(stack)


def _pool_groups(stack: Stack) -> dict[str, tuple[int, ...]]:
    groups: dict[str, list[int]] = {}
    for index, pool in enumerate(stack.platform_pools):
        groups.setdefault(pool.cluster.key, []).append(index)
    return {key: tuple(indexes) for key, indexes in groups.items()}


# what this module derives, per stack (memo.py): each own workload's landing (a workload hashes by identity),
# the candidate clusters by the key of the cluster a workload names, the platform pools by their cluster's key
_LANDINGS: PerStack[Stack, dict[Workload, Landing]] = PerStack(lambda stack: {})
_VERDICTS: PerStack[Stack, dict[tuple[Pool, Any], PoolVerdict]] = PerStack(lambda stack: {})
_CANDIDATES: PerStack[Stack, dict[str, tuple[tuple[Pool, ...], tuple[Candidate, ...]]]] = PerStack(lambda stack: {})
_POOL_GROUPS: PerStack[Stack, dict[str, tuple[int, ...]]] = PerStack(_pool_groups)
# each ComputeCluster pool's verdict for the workloads its labels place on it
_NAMED: PerStack[Stack, dict[Pool, PoolVerdict]] = PerStack(lambda stack: {})


__all__ = ["Candidate", "Landing", "PoolVerdict", "carried", "gate", "interruption", "judge", "landing", "pool_of",
           "refused_by_selector"]
