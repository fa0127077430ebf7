"""The placement report: the pack's own verdicts on a stack, and where its workloads land.

:func:`build` runs the pack's policies over the input's resources as the engine runs them in a
preview (every resource's Remediate and Analyze, then AnalyzeStack), through the test kit's
in-process analyzer: the same policies, settings and messages as ``pulumi preview --policy-pack``,
nothing judged twice. The pictures come from the very stack model the stack policies parsed
(``PackState.last_stack``): each pool's node (``policies.nodes``) and what is placed on it
(``policies.loads``), which workload-fits-pool and pool-capacity judged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from compute_guard.policies import ALL
from compute_guard.policies.adapters.baseline import Snapshot
from compute_guard.policies.adapters.findings import listed
from compute_guard.policies.model.disruption import protection
from compute_guard.policies.model.fit import largest
from compute_guard.policies.model.loads import Placed, PoolLoad, counted, loads, pods_of, pool_nodes
from compute_guard.policies.model.network import address_use, pool_draws
from compute_guard.policies.model.nodes import Node
from compute_guard.policies.model.pool import Pool
from compute_guard.policies.model.replacement import previous_pools, replaced_in
from compute_guard.policies.model.stack import Stack
from compute_guard.policies.model.totals import Totals, pool_totals
from compute_guard.policies.model.values import Unknown, is_secret
from compute_guard.policies.model.versions import release
from compute_guard.policies.platforms.architectures import MACHINE_ARCHITECTURE
from compute_guard.policies.platforms.platform import implied_platform, platform_unset, resolve_platform
from compute_guard.policies.platforms.quantity import CPU, MEMORY, PODS, amount
from compute_guard.policies.words import pool_capacity_types, pool_systems, pool_zones
from compute_guard.testkit.analyzer import Analyzer, stack_environment

from .inputs import Input

RESOURCES = (CPU, MEMORY, PODS)  # what a picture shows: the resources every Pod asks for or takes
VERSION = 1  # of the JSON document (compute_guard/report/schema.json)
PLACEMENT_POLICIES = tuple(policy.name for policy in ALL if policy.placement)  # (Policy.placement)


@dataclass(frozen=True)
class Finding:
    policy: str
    level: str  # mandatory, advisory, remediate
    severity: str
    urn: str  # "" for the stack as a whole
    message: str
    note: bool = False  # "can't run policy ... during preview": a value not known yet

    @property
    def name(self) -> str:
        return self.urn.rsplit("::", 1)[-1] if self.urn else ""

    @property
    def type(self) -> str:
        return self.urn.split("::")[-2].rsplit("$", 1)[-1] if self.urn.count("::") >= 3 else ""


@dataclass(frozen=True)
class Use:
    """What one workload (or DaemonSet) takes of a pool at its maxSize, per resource."""

    name: str
    kind: str
    urn: str
    pods: int | None  # Pods on the pool at maxSize (a DaemonSet: one per node); None when not known
    per_pod: Mapping[str, Decimal | None]  # resource -> one Pod's request (None: not known or secret)
    total: Mapping[str, Decimal | None]  # resource -> all its Pods together
    daemon: bool
    pinned: bool  # its Pods are pinned to one CPU architecture
    pin: str | None  # the architecture its Pods are pinned to
    placement: str  # where its pool came from: its labels, the default pool, the dynamic container pool
    verdicts: tuple[str, ...]  # every policy that reported it (exemptions-in-force: an exempted finding)
    counted: bool = True  # in the pool's totals: False when one of its Pods fits no node (pool-capacity agrees)
    budget: str | None = None  # its PodDisruptionBudget and what it allows at its replicas (policies 17 and 18)

    @property
    def flagged(self) -> tuple[str, ...]:
        """The placement and fit policies that reported it (marked in the picture)."""
        return tuple(policy for policy in self.verdicts if policy in PLACEMENT_POLICIES)


@dataclass(frozen=True)
class AddressView:
    """One subnet or Pod range a pool's nodes take addresses of: the addresses they take at its maxSize (and an
    upgrade's surge) and the addresses the space has."""

    space: str  # "subnet 'aks-nodes' (10.0.1.0/24)"
    needed: int
    usable: int

    @property
    def text(self) -> str:
        return f"{self.needed} of the {self.usable} addresses of {self.space}"


@dataclass(frozen=True)
class PoolView:
    cluster: str  # the ComputeCluster's label (its id, else its name)
    cluster_urn: str
    pool: str
    max_size: int | None
    machine: str | None  # the instance type, None for a profile pool
    allocatable: Mapping[str, Decimal | None]  # resource -> one node's, None when not known
    uses: tuple[Use, ...]
    min_size: int | None = None
    architecture: str | None = None  # declared by its profile, or provided by its machine
    reserved: Mapping[str, Decimal | None] = field(default_factory=dict)  # one node's capacity - allocatable
    daemonsets: Mapping[str, Decimal | None] = field(default_factory=dict)  # one node's DaemonSet requests
    limits: Mapping[str, Decimal] = field(default_factory=dict)  # a Karpenter NodePool's spec.limits (no node count)
    cluster_name: str = ""  # a platform pool's cluster, as messages name it (EKS cluster 'eks')
    zones: tuple[str, ...] | None = None  # its nodes' zones, when its source says (workload-zone-spread's)
    systems: tuple[str, ...] | None = None  # the operating systems its nodes run, when its source says (SPEC 16)
    # its nodes' capacity types (spot, preemptible, on-demand, reserved), when its source says (SPEC 16)
    capacity_types: tuple[str, ...] | None = None
    # the Kubernetes version its nodes run ("1.31", "its control plane's"), when its source says (SPEC 19)
    version: str | None = None
    # what this preview does to it against the previous deployment, as pool-replacement-safe reads it (SPEC 19):
    # "replaced: its instanceTypes changes from ...", "rotated: ...", "refused in place: ..."; None: nothing of that
    change: str | None = None
    # what its nodes take of each subnet or Pod range at its maxSize, as pool-address-space reads it (SPEC 20)
    addresses: tuple[AddressView, ...] = ()
    # the nodes its totals count: its maxSize, or the fewer its addresses hold (the one count pool-capacity and
    # workload-rollout-fits read: model/totals.py pool_totals); None: its maxSize
    nodes: int | None = None

    @property
    def counted_nodes(self) -> int | None:
        return self.nodes if self.nodes is not None else self.max_size

    @property
    def not_counted(self) -> tuple[str, ...]:
        """The workloads its totals leave out, as pool-capacity does: one of their Pods fits no node."""
        return tuple(f"{use.kind} '{use.name}'" for use in self.uses if not use.counted)

    def capacity(self, resource: str) -> Decimal | None:
        """The pool's allocatable at the nodes its totals count; a Karpenter NodePool's spec.limits, which
        pool-capacity judges it by."""
        if resource in self.limits:
            return self.limits[resource]
        one, count = self.allocatable.get(resource), self.counted_nodes
        return one * count if one is not None and count is not None else None

    def used(self, resource: str) -> Decimal | None:
        """What the pool's counted workloads and DaemonSets take at maxSize (pool-capacity's totals)."""
        totals = [use.total.get(resource) for use in self.uses if use.counted]
        known = [total for total in totals if total is not None]
        return sum(known, Decimal(0)) if len(known) == len(totals) else None


@dataclass
class Report:
    project: str
    stack: str
    kind: str
    platform: str | None
    findings: list[Finding] = field(default_factory=list)
    pools: list[PoolView] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)  # workloads on no pool (default scheduling, workers)

    @property
    def mandatory(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "mandatory" and not f.note]


POLICY_DESCRIPTIONS = {policy.name: policy.description for policy in ALL}
POLICY_STEPS = {policy.name: policy.remediation_steps for policy in ALL}


def build(source: Input, policy_config: Mapping[str, Any] | None = None,
          stack_config: Mapping[str, Any] | None = None,
          progress: Callable[[str], None] | None = None) -> Report:
    """Judge the input's resources with the pack and draw its pools."""
    config = {**(stack_config or {}), **source.config}  # what the file says wins over the directory's
    with stack_environment(config, source.project or "project", source.stack or "stack", True):
        analyzer = Analyzer(policy_config or {})
        if progress:
            progress(f"judging {len(source.resources)} resources")
        result = analyzer.run(source.resources)
        stack = analyzer.state.last_stack()
        previous = analyzer.state.baseline(_settings(policy_config or {}, "pool-replacement-safe").get("baseline"))
        remembered = analyzer.state.remembered
    findings = [Finding(v.policy, v.level, v.severity, v.urn, v.finding) for v in result.violations]
    findings += [Finding(n.policy, n.level, n.severity, n.urn, n.finding, note=True) for n in result.notes]
    settings = _settings(policy_config or {}, "pool-capacity")
    platform, _ = resolve_platform(settings, config)
    if platform is None and stack is not None and platform_unset(settings, config):  # as the policies read it
        platform = implied_platform(pool.platform for pool in stack.pools)
    report = Report(source.project, source.stack, source.kind, platform, findings)
    if stack is None:
        return report
    reported: dict[str, list[str]] = {}  # urn -> the policies that reported it
    for finding in findings:
        if not finding.note:
            reported.setdefault(finding.urn, []).append(finding.policy)
    placed = loads(stack, platform)
    on_pools = set()
    changes = _changes(stack, previous, remembered)
    spaces: dict[str, list[AddressView]] = {}  # pool URN and name -> what its nodes take (pool-address-space's facts)
    for pool, draw in pool_draws(stack):
        use = address_use(pool, draw) if not isinstance(draw, Unknown) else None
        if use is not None and not isinstance(draw, Unknown):
            label = listed([space.label for space in draw.spaces])
            spaces.setdefault(f"{pool.urn}#{pool.name}", []).append(AddressView(label, use.needed, use.usable))
    for load in placed.pools:
        view = _pool(stack, load, platform, settings, reported)
        if load.pool.group is None:
            pool = load.pool
            view = replace(view, version=_version(pool),
                           change=changes.get((pool.urn, pool.name)) or changes.get((pool.urn, "")),
                           addresses=tuple(spaces.get(f"{pool.urn}#{pool.name}", ())))
        report.pools.append(view)
        on_pools |= {use.urn for use in view.uses}
    # by name: an export (or a program registering in parallel) lists resources in no fixed order
    report.unplaced = sorted(w.name for w in stack.workloads if w.urn not in on_pools and not w.patch)
    return report


def _changes(stack: Stack, previous: Any, remembered: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """What this preview does to each pool against the previous deployment, by (URN, pool name; "" every pool of the
    resource), as pool-replacement-safe and cluster-version-skew read it: the same facts (replaced_in, the pools'
    versions), in the report's words."""
    if not isinstance(previous, Snapshot):
        return {}
    found: dict[tuple[str, str], str] = {}
    for replaced in replaced_in(stack, previous.inputs, previous.types, remembered, stack.foreign, previous.outputs):
        said = [f"{what}: {listed(changes, '; ')}" for what, changes in (
            ("refused in place", replaced.refusals), ("rotated without a temporary pool", replaced.rotations),
            ("replaced" if not replaced.rule.whole_cluster else "replaced with its cluster", replaced.changes))
            if changes]
        if not said and replaced.late is not None:
            said = ["may be replaced (an input that replaces it is not known yet)"]
        urns = [replaced.resource.urn]
        if replaced.rule.whole_cluster:  # every pool of the cluster goes with it
            owner = stack.index.owner(replaced.resource.urn) if stack.index is not None else None
            urns += [pool.urn for pool in stack.platform_pools if owner is not None and pool.cluster.key == owner.urn]
        for urn in urns:
            found.setdefault((urn, ""), "; ".join(said))
    # a pool kept whose nodes move to another Kubernetes minor version (cluster-version-skew's facts)
    for (urn, name), old in previous_pools(previous.inputs, previous.types).items():
        now = next((pool for pool in stack.platform_pools if pool.urn == urn and pool.name == name), None)
        before, after = (pool.version.minor if pool is not None and pool.version is not None else None
                         for pool in (old, now))
        if now is None or before is None or after is None or before == after or (urn, "") in found:
            continue
        found[(urn, name)] = f"{'upgraded' if after > before else 'downgraded'} from Kubernetes {release(before)} to " \
                     f"{release(after)}"
    return found


def _version(pool: Pool) -> str | None:
    """The Kubernetes version its nodes run, as the report shows it."""
    version = pool.version
    if version is None:
        return None
    if version.value is None:
        return "its control plane's"
    minor = version.minor
    return None if minor is None or is_secret(version.value) else release(minor)


def _settings(policy_config: Mapping[str, Any], policy: str) -> Mapping[str, Any]:
    entry = policy_config.get(policy)
    return entry if isinstance(entry, Mapping) else {}


def _pool(stack: Stack, load: PoolLoad, platform: str | None, settings: Mapping[str, Any],
          reported: Mapping[str, list[str]]) -> PoolView:
    """One pool's picture: its node (a platform pool's largest machine's), what it holds at maxSize, and the
    workloads placed on it (a platform pool: the workloads the scheduler's rules let it take, counted in its totals
    only where it alone takes them, as pool-capacity counts them)."""
    pool = load.pool
    found = pool_nodes(stack, pool, platform, settings) if platform or pool.platform else None  # pool-capacity's
    nodes = found if isinstance(found, list) else []
    node = largest((node for _option, node in nodes), MEMORY)
    allocatable: dict[str, Decimal | None] = dict.fromkeys(RESOURCES)
    reserved: dict[str, Decimal | None] = dict.fromkeys(RESOURCES)
    if isinstance(node, Node):
        for resource in RESOURCES:
            if resource not in node.secret:
                allocatable[resource] = node.allocatable(resource)
        for resource in (CPU, MEMORY):
            capacity, left = node.capacity.get(resource), allocatable[resource]
            reserved[resource] = capacity - left if capacity is not None and left is not None else None
        reserved[PODS] = Decimal(0) if allocatable[PODS] is not None else None
    max_size = pool.max_size if isinstance(pool.max_size, int) and not is_secret(pool.max_size) else None
    # the nodes pool-capacity counts (the fewer its addresses hold): its very totals, not a count of the report's own
    summed = pool_totals(stack, load, platform or pool.platform or "", settings) if nodes else None
    counted_size = summed.size if isinstance(summed, Totals) and max_size is not None else max_size
    # DaemonSets first, then by name: the same report whatever order the input lists them in (a stack export
    # lists resources in the order their registrations completed, which varies from run to run)
    fitting = {id(placed) for placed in counted(load, nodes)[0]} if nodes else None
    uses = sorted((_use(placed, counted_size, True, reported) for placed in load.daemonsets),
                  key=lambda use: use.name)
    uses += sorted((_use(placed, max_size, False, reported, fitting is None or id(placed) in fitting,
                         _budget(stack, placed)) for placed in load.workloads), key=lambda use: use.name)
    shared = [replace(_use(placed, max_size, False, reported, False, _budget(stack, placed)),
                      placement="the scheduler's rules (other pools may take it)") for placed in load.shared]
    uses += sorted(shared, key=lambda use: use.name)
    machine = node.machine if isinstance(node, Node) and node.machine and not is_secret(node.machine) else None
    daemonsets = {resource: _sum(use.per_pod[resource] for use in uses if use.daemon) for resource in RESOURCES}
    min_size = pool.min_size if isinstance(pool.min_size, int) and not is_secret(pool.min_size) else None
    group = pool.group
    if group is not None:
        derived = pool.machines_on(platform).architecture  # declared, or its machine's
        architecture = derived if isinstance(derived, str) and not is_secret(derived) else None
        entry = load.entry
        name = group.group_id if isinstance(group.group_id, str) and not is_secret(group.group_id) \
            else f"#{group.index}"
        cluster = entry.label if not is_secret(entry.label) else entry.name
        return PoolView(cluster, entry.urn, name, max_size, machine, allocatable, tuple(uses), min_size,
                        architecture, reserved, daemonsets, zones=pool_zones(pool), nodes=counted_size)
    architectures = set(pool.architectures())
    architecture = MACHINE_ARCHITECTURE.get(next(iter(architectures))) if len(architectures) == 1 else None
    limits = {resource: limit for resource, limit in pool.limits.items() if isinstance(limit, Decimal)}
    return PoolView(pool.kind, pool.urn, pool.name, max_size, machine, allocatable, tuple(uses), min_size,
                    architecture, reserved, daemonsets, limits=limits,
                    cluster_name=pool.cluster.label if pool.cluster.name else "", zones=pool_zones(pool),
                    systems=pool_systems(pool), capacity_types=pool_capacity_types(pool), nodes=counted_size)


def _budget(stack: Stack, placed: Placed) -> str | None:
    """Its PodDisruptionBudget and what it allows at the Pods it counts, as workload-disruption-allowed and
    disruption-budget-useful judge it."""
    found = protection(stack).of_workload.get(placed.workload, [])
    if len(found) > 1:
        return f"{len(found)} budgets select its Pods: the eviction API refuses to evict them"
    if not found:
        return None
    budget = found[0]
    if protection(stack).hidden(budget, placed.workload):
        return "[secret]"
    pods = pods_of(stack, protection(stack).selected.get(budget, []))
    if not isinstance(pods, tuple) or pods[1] or budget.secret:
        return f"'{budget.name}'"
    total = pods[0]
    allowed = budget.allowed(total)
    if allowed is None:
        return f"'{budget.name}'"
    return f"'{budget.name}': {budget.arithmetic(total)}, allows {allowed} of {total} Pods to be evicted at once"


def _sum(amounts: Any) -> Decimal | None:
    known = list(amounts)
    return None if any(amount is None for amount in known) else sum(known, Decimal(0))


def _use(placed: Placed, max_size: int | None, daemon: bool, reported: Mapping[str, list[str]],
         fits: bool = True, budget: str | None = None) -> Use:
    workload = placed.workload
    count = max_size if daemon else placed.count
    pods = count if isinstance(count, int) and not isinstance(count, Unknown) and not is_secret(count) else None
    per_pod: dict[str, Decimal | None] = {}
    total: dict[str, Decimal | None] = {}
    for resource in RESOURCES:
        if resource == PODS:
            one: Decimal | None = Decimal(1)
        elif resource in placed.request.unknown or resource in placed.request.secret:
            one = None
        else:
            one = placed.request.amounts.get(resource, Decimal(0))
        per_pod[resource] = one
        total[resource] = one * pods if one is not None and pods is not None else None
    constraint = workload.constraint
    pinned = len(constraint.allowed) == 1 and constraint.unknown is None
    pin = next(iter(constraint.allowed)) if pinned else None
    pin = "[secret]" if is_secret(pin) else pin  # the report's formats print text as it is
    if not placed.named:
        placement = "the scheduler's rules"
    elif workload.role == "dynamic":
        placement = "the dynamic container pool"
    elif isinstance(workload.pool, str):
        placement = "its pool label"
    else:
        placement = "the default pool"  # 'general', or the only pool, of the only ComputeCluster
    return Use(workload.name, workload.kind, workload.urn, pods, per_pod, total, daemon, pinned, pin, placement,
               tuple(reported.get(workload.urn, ())), fits, budget)


def shown(resource: str, value: Decimal | None) -> str:
    """An amount in its unit for people (cores or millicores, MiB or GiB), or '?' when not known."""
    return "?" if value is None else amount(resource, value)
