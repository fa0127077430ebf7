"""workload-zone-spread: a workload's hard topology spread constraints can be met on its pools.

A ``topologySpreadConstraints`` entry with ``whenUnsatisfiable: DoNotSchedule`` is a filter of the scheduler
(PodTopologySpread; policies/model/spread.py). Two of them leave Pods Pending for certain (SPEC section 15):

* its ``topologyKey`` is a label no node of the workload's pools carries: the scheduler places none of its Pods on a
  node without the key;
* on ``topology.kubernetes.io/zone``, ``minDomains`` above the zones its pools offer (Z): the smallest count is
  then taken as 0, so each zone holds at most maxSkew of the Pods it selects, and at most Z x maxSkew of its
  replicas can run.

A pool's zones come from its source: a ComputeCluster's selectedFailureDomains (or failureDomainSpread, their
number), GKE nodeLocations, AKS availability zones, a Karpenter zone requirement. A pool whose zones are not known
makes the verdict a note.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.landing import Landing, landing
from .model.loads import placed_of
from .model.pool import ClusterRef, Pool
from .model.spread import Spread
from .model.stack import Stack
from .model.values import REDACTED, Unknown, listed, more, quoted, undetermined
from .model.workloads import Workload
from .words import LISTED, pool_name, unknown_cluster


def workload_zone_spread(stack: Stack) -> list[Finding]:
    findings: list[Finding] = []
    for workload in stack.workloads:
        if workload.patch or not workload.has_pod_spec or workload.kind in ("DaemonSet", "PodTemplate"):
            continue
        constraints = workload.spreads
        if isinstance(constraints, Unknown):
            findings.append(constraints)
            continue
        if not constraints:
            continue
        landed = landing(stack, workload)
        pools = landed.runs_on()
        if isinstance(pools, Unknown):
            findings.append(pools)
            continue
        if not pools:
            continue
        noted = _which_cluster(stack, workload, landed, constraints) if landed.unknown_cluster else []
        findings.extend(noted or _judged(stack, workload, constraints, pools))
    return findings


def _judged(stack: Stack, workload: Workload, constraints: tuple[Spread, ...], pools: tuple[Pool, ...]
            ) -> list[Finding]:
    found = [_missing_key(workload, spread, pools, stack.several_clusters) if not spread.zones else
             _too_few_zones(stack, workload, spread, pools) for spread in constraints]
    return [finding for finding in found if finding is not None]


def _which_cluster(stack: Stack, workload: Workload, landed: Landing, constraints: tuple[Spread, ...]
                   ) -> list[Finding]:
    """Its cluster cannot be told (SPEC 14.4): judged on each candidate's pools; where the verdicts differ, one note
    naming what holds on each (a finding on the pools of all the candidates together would name pools of a cluster
    it does not run on). Empty when the candidates agree."""
    verdicts: list[tuple[ClusterRef, str]] = []
    kinds = set()
    for candidate in landed.candidates:
        pools = tuple(verdict.pool for verdict in landed.possible_in(candidate))
        if not pools:
            continue
        found = _judged(stack, workload, constraints, pools)
        failing = [finding for finding in found if isinstance(finding, Violation)]
        if failing:
            kinds.add("fails")
            said = failing[0].message.removeprefix(f"{workload.subject}: ").split(": ", 1)[0]
        elif found:
            kinds.add("unknown")
            error = found[0].error if isinstance(found[0], Unknown) else None
            said = f"not judged ({getattr(error, 'message', 'a value is not known yet')})"
        else:
            kinds.add("holds")
            said = "its spread can be met"
        verdicts.append((candidate.cluster, said))
    if len(kinds) < 2:
        return []
    return [undetermined(unknown_cluster(stack, workload, verdicts))]


def _carries(pool: Pool, key: str) -> bool | None:
    """Whether every node of the pool carries the label: True, False, or None when the pack cannot tell."""
    if pool.group is not None or pool.unknown is not None or pool.labels_unknown is not None:
        return None  # a ComputeCluster's nodes carry labels the pack does not model
    if key in pool.labels or key in pool.machine_keys:
        return True
    if any(key.startswith(prefix) for prefix in pool.maybe_prefixes):
        return None
    return False


def _missing_key(workload: Workload, spread: Spread, pools: tuple[Pool, ...], several: bool) -> Finding | None:
    carried = [_carries(pool, spread.key) for pool in pools]
    if any(found is not False for found in carried):
        return None
    names = listed(pool_name(pool, several) for pool in pools[:LISTED]) + more(pools, LISTED)
    return Violation(
        f"{workload.subject}: its {spread.describe()} spreads its Pods over the label '{spread.key}', which no node "
        f"of its pools carries ({names}): the scheduler places none of them on a node without it, so they stay "
        "Pending: spread over a label its nodes carry (topology.kubernetes.io/zone, kubernetes.io/hostname) or use "
        "whenUnsatisfiable: ScheduleAnyway", workload.urn)


def _zones(pool: Pool) -> frozenset[str] | int | Unknown:
    """A pool's zones (their names, or only their number: a ComputeCluster's failureDomainSpread, a regional GKE
    cluster's pool in three zones GKE picks)."""
    if isinstance(pool.zones, Unknown):
        return pool.zones
    if isinstance(pool.zones, tuple) and pool.zones:
        return frozenset(pool.zones)
    if pool.zones is None and pool.size_zones:  # in as many zones as it counts its nodes over, which GKE picks
        return pool.size_zones
    if pool.group is not None and pool.owner is not None:
        spreads = getattr(pool.owner.cluster, "failure_domain_spread", None)
        group_id = getattr(pool.group, "group_id", None)
        count = spreads.get(group_id) if isinstance(spreads, dict) and isinstance(group_id, str) else None
        if isinstance(count, (int, Unknown)):
            return count
    return undetermined(f"the zones of {pool_name(pool)} are not known")


def _too_few_zones(stack: Stack, workload: Workload, spread: Spread, pools: tuple[Pool, ...]) -> Finding | None:
    if spread.min_domains is None or not spread.own:
        return None
    names: set[str] = set()
    count = 0
    for pool in pools:
        zones = _zones(pool)
        if isinstance(zones, Unknown):
            return zones
        if isinstance(zones, int):
            if len(pools) > 1:
                return undetermined(f"the zones of {pool_name(pool)} are known only by their number")
            count = zones
        else:
            names |= zones
    offered = count or len(names)
    if spread.min_domains <= offered:
        return None
    placed = placed_of(stack, workload)
    replicas = placed.count
    if isinstance(replicas, Unknown):
        return replicas
    most = offered * spread.max_skew
    if not isinstance(replicas, int) or replicas <= most:
        return None
    hidden = spread.secret or placed.secret
    listed = f" ({quoted(sorted(names))})" if names else ""
    shown = (lambda value: REDACTED if hidden else str(value))  # noqa: E731
    return Violation(
        f"{workload.subject}: its {spread.describe()} asks for {shown(spread.min_domains)} zones, but its pools offer "
        f"{offered}{listed}; with fewer zones than minDomains the scheduler counts the smallest zone as 0 Pods, so "
        f"at most {offered} x {shown(spread.max_skew)} = {shown(most)} of its {shown(replicas)} Pods can run and "
        f"{shown(replicas - most)} {_stay(replicas - most)} Pending: lower minDomains to {offered}, or add zones to "
        "its pools", workload.urn)


def _stay(count: int) -> str:
    return "stays" if count == 1 else "stay"


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_zone_spread(stack)


POLICY = Policy(
    name="workload-zone-spread",
    subject="stack",
    description="A workload's topology spread constraints that must hold (DoNotSchedule) can be met on its pools: "
                "their nodes carry the topology key, and they offer at least minDomains zones for its replicas.",
    severity=Severity.MEDIUM,
    remediation_steps="Spread over a label the pool's nodes carry, lower minDomains to the zones the pools offer, "
                      "add zones to the pools, or use whenUnsatisfiable: ScheduleAnyway.",
    dependents=True,
    check=_check,
)
