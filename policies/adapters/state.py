"""What one pack process learns while it runs, in one object handed to every policy.

The engine starts a pack process per preview and sends it requests: Analyze for each resource,
then one AnalyzeStack. A few things are worth keeping between them, and nothing else is:

- the inputs of each ComputeCluster seen in Analyze, by URN: a component registers only the
  outputs it chooses to, so this is how the stack policies still find a user component's
  configuration, and how workload-architecture-pin knows the pools before the stack is analyzed;
- parse caches: the ComputeCluster policies of one Analyze request read the same protobuf message
  (policies/adapters/sdk.py), and so do the stack policies of one AnalyzeStack request, so each is parsed
  once per request, not once per policy;
- the previous deployment, read once: during ``pulumi up`` the backend rewrites its checkpoint as
  steps complete;
- the stack's configuration, parsed once per distinct ``PULUMI_CONFIG``.

``__main__.py`` builds one for the pack; the test kit builds a fresh one for every run, as a new
pack process would have. The rules never see it: the adapters (policies/adapters/templates.py) take from it
what a rule needs.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..model.cluster import Cluster, ClusterEntry, ParsedCluster, parse_cluster
from ..model.placement import DeclaredArchitectures, declared_architectures
from ..model.pool import THIS_STACK
from ..model.resources import Settled, StackResource, settled_props
from ..model.sources import source_of
from ..model.stack import Stack, parse_stack
from ..model.values import first_unknown, plain
from ..model.workloads import BESIDE_WORKLOADS, workload_kind
from .baseline import Snapshot, Unavailable, load_baseline
from .exemptions import Exemption, days_from_environment, today_from_environment
from .stacks import DEPENDENTS, Referenced, View, named, read_stack


@dataclass(frozen=True)
class Exempted:
    """A finding an exemption in force kept from its policy's report (exemptions-in-force shows it)."""

    policy: str
    urn: str
    message: str
    exemption: Exemption


@dataclass(frozen=True)
class Unused:
    """An exemption that exempted no finding of its policy in the run."""

    policy: str
    exemption: Exemption
    matches: bool  # it matches a resource of the stack (which passes the policy), else none at all


def settle(raw: Any, remembered: Mapping[str, Any], unconfigured: Mapping[str, Any] | None = None) -> Any:
    """A pool or cluster resource of a preview read with the checked inputs Analyze saw (resources.Settled): its
    outputs not known yet that the program left unset are its provider's defaults. A resource whose provider is not
    configured in this preview (``unconfigured``: its inputs as Analyze saw them), whose outputs the engine sends as
    an empty bag, read with those inputs. Any other resource as it is."""
    urn = getattr(raw, "urn", "")
    inputs = (unconfigured or {}).get(urn)
    if inputs is not None:
        resource = StackResource.of(raw)
        if not plain(resource.props):  # (the empty bag: every output not known yet)
            return Settled(resource, inputs)
    kept = remembered.get(urn)
    given = kept.get("inputs") if isinstance(kept, Mapping) else None
    if not isinstance(given, Mapping):
        return raw
    resource = StackResource.of(raw)
    if source_of(resource.type) is None:
        return raw
    outputs = plain(resource.props)
    if first_unknown(outputs) is None:
        return raw
    return Settled(resource, settled_props(outputs, given))


class PackState:
    """Caches and what one request learns for the next, for one pack process."""

    def __init__(self, today: date | None = None, exemption_days: int | None = None) -> None:
        self._lock = threading.Lock()
        # Read once per run (a pack process serves one preview): every exemption is judged on the same day.
        self.today = today if today is not None else today_from_environment()
        self.exemption_days = exemption_days if exemption_days is not None else days_from_environment()
        self._exemptions: dict[str, tuple[Exemption, ...]] = {}  # policy -> the exemptions its config holds
        self._exempted: list[Exempted] = []
        self._used: set[tuple[str, Exemption]] = set()  # (policy, exemption) that covered one of its findings
        self._unsure: set[str] = set()  # policies that could not check everything (a value not known yet)
        self.seen_inputs: dict[str, Cluster] = {}
        self.remembered: dict[str, Any] = {}  # what pool sources kept of the inputs Analyze saw (Source.remember)
        # the inputs Analyze saw of each resource whose provider is not configured in this preview (a kubeconfig built
        # from a cluster's outputs, not known yet): the engine sends their outputs as an empty bag (settle)
        self.unconfigured: dict[str, Any] = {}
        self._referenced: dict[tuple[str, str | None, bool], Referenced] = {}  # other stacks read (SPEC 18), once each
        # the dependents' views (adapters/dependents.py): before this change, once per process; now, per request
        self._before: dict[tuple[str, str | None], Stack | None] = {}
        self._views: tuple[Stack, list[View]] | None = None
        # Each cache holds strong references to what it was computed from, so an identity
        # compared against it can never be a reused one. Each is one tuple, assigned at once.
        self._cluster: tuple[Any, str, ParsedCluster] | None = None
        self._stack: tuple[list[Any], Stack] | None = None
        self._seen: tuple[tuple[tuple[str, Cluster], ...], Stack] | None = None
        self._baselines: dict[str | None, Snapshot | Unavailable] = {}
        self._config: tuple[str | None, dict[str, Any]] = (None, {})
        self._said: set[str] = set()  # notes a resource policy says once per run, not on every resource

    # --- ComputeClusters, from Analyze ------------------------------------------------------

    def cluster(self, props: Any, urn: str, name: str) -> ParsedCluster:
        """A ComputeCluster's inputs parsed once per request, and kept for the stack policies."""
        source = getattr(props, "source", None)
        last = self._cluster
        if source is not None and last is not None and last[0] is source and last[1] == urn:
            return last[2]
        parsed = parse_cluster(props, name)
        self.seen_inputs[urn] = parsed.model
        if source is not None:
            self._cluster = (source, urn, parsed)
        return parsed

    def remember_unconfigured(self, urn: str, props: Any) -> None:
        """A resource's inputs as Analyze sees them, where its provider is not configured in this preview: the stack
        policies read them instead of its outputs, which the engine sends as an empty bag (SPEC 14.2: a first
        preview's workloads are judged as surely as a deployed stack's)."""
        with self._lock:
            self.unconfigured[urn] = props

    def remember(self, resource_type: str, urn: str, props: Any) -> None:
        """What a pool source keeps of a resource's inputs as Analyze sees them (a component's, which AnalyzeStack's
        outputs do not repeat), for the stack policies."""
        source = source_of(resource_type)
        if source is None or source.remember is None:
            return
        kept = source.remember(resource_type, props)
        if kept is not None:
            with self._lock:
                self.remembered[urn] = kept

    def seen_stack(self, platform: str | None = None) -> tuple[Stack, DeclaredArchitectures]:
        """The ComputeClusters analyzed so far, as a stack, and their pools' architectures on ``platform``:
        what a resource policy knows of the stack before the stack policies run. Rebuilt only when a
        ComputeCluster was analyzed since the last call."""
        seen = tuple(self.seen_inputs.items())
        last = self._seen
        if last is not None and len(last[0]) == len(seen) and all(
                a[0] == b[0] and a[1] is b[1] for a, b in zip(last[0], seen, strict=True)):
            stack = last[1]
        else:
            stack = Stack()
            for urn, cluster in seen:
                stack.add_compute_cluster(ClusterEntry(urn, urn.rsplit("::", 1)[-1], cluster))
            self._seen = (seen, stack)
        return stack, declared_architectures(stack, platform)

    # --- the stack, from AnalyzeStack -------------------------------------------------------

    def stack(self, resources: Any) -> Stack:
        """The stack model, parsed once per AnalyzeStack request and shared by the stack policies.

        The SDK hands each stack policy its own list of resources, but their props read the same
        protobuf messages of the same request: when every resource's props are the very objects
        the previous call parsed, its model is reused.
        """
        resources = list(resources)
        sources = [getattr(resource, "source", None) or getattr(resource.props, "source", resource.props)
                   for resource in resources]
        with self._lock:
            last = self._stack
        if last is not None and len(last[0]) == len(sources) and all(
                a is b for a, b in zip(last[0], sources, strict=True)):
            return last[1]
        referenced = self.referenced(resources)
        resources = [settle(resource, self.remembered, self.unconfigured) for resource in resources]
        stack = parse_stack(resources, self.seen_inputs, self.remembered,
                            [(found.name, found.resources) for found in referenced if not found.error])
        stack.referenced = referenced
        stack.stacks_problem = self.stacks_problem()
        stack.dependents = self._read(named(self.stack_config(), DEPENDENTS)[0], dependent=True)
        with self._lock:
            self._stack = (sources, stack)
        return stack

    def referenced(self, resources: list[Any]) -> list[Referenced]:
        """The other stacks whose clusters the stack's workloads run on (SPEC 18): those the stack config
        compute:stacks names, and those its own previous deployment's StackReferences name; each read once per pack
        process. None for a stack without workloads (or their budgets and autoscalers, whose API versions the
        cluster's release decides)."""
        kinds = (getattr(resource, "resource_type", None) or getattr(resource, "type", None) for resource in resources)
        if not any(isinstance(kind, str) and (workload_kind(kind) or kind.endswith(BESIDE_WORKLOADS))
                   for kind in kinds):
            return []
        wanted, _problem = named(self.stack_config())  # (a setting that cannot be read: stacks_problem says it)
        known = {name for name, _file in wanted}
        previous = self.baseline(None)
        if isinstance(previous, Snapshot):
            wanted += [(name, None) for name in previous.references if name not in known]
        return self._read(wanted)

    def _read(self, wanted: list[tuple[str, str | None]], dependent: bool = False) -> list[Referenced]:
        """Each stack's state, read once per pack process (a dependent app stack's with its budgets and autoscalers)."""
        found = []
        for name, file in wanted:
            key = (name, file, dependent)
            with self._lock:
                read = self._referenced.get(key)
            if read is None:
                read = read_stack(name, file, dependent)
                with self._lock:
                    self._referenced[key] = read
            found.append(read)
        return found

    def stacks_problem(self) -> str:
        """Why the stack config compute:stacks (or compute:dependents) cannot be read, "" when it can."""
        config = self.stack_config()
        return named(config)[1] or named(config, DEPENDENTS)[1]

    def views(self, resources: Any) -> list[View]:
        """Each app stack compute:dependents names as a platform stack's preview judges it (SPEC 18, "and back"): its
        workloads on this stack's pools as they are now, and as they were deployed; built once per request (now) and
        once per process (before). None when no dependent is named."""
        resources = list(resources)
        stack = self.stack(resources)
        readable = [found for found in stack.dependents if not found.error]
        if not readable:
            return []
        with self._lock:
            last = self._views
        if last is not None and last[0] is stack:
            return last[1]
        previous = self.baseline(None)
        ours = [StackResource.of(settle(resource, self.remembered, self.unconfigured)) for resource in resources]
        views = []
        for found in readable:
            now = parse_stack(found.resources, {}, self.remembered, [(THIS_STACK, ours)])
            now.name = found.name
            key = (found.name, None)
            with self._lock:
                known = key in self._before
                before = self._before.get(key)
            if not known:
                before = None
                if isinstance(previous, Snapshot) and previous.foreign(resource.urn for resource in ours) is None:
                    before = parse_stack(found.resources, {}, self.remembered, [(THIS_STACK, previous.resources)])
                    before.name = found.name
                with self._lock:
                    self._before[key] = before
            views.append(View(found.name, now, before))
        with self._lock:
            self._views = (stack, views)
        return views

    # --- exemptions -------------------------------------------------------------------------

    def saw_exemptions(self, policy: str, exemptions: tuple[Exemption, ...]) -> None:
        self._exemptions[policy] = exemptions

    def covered(self, policy: str, exemption: Exemption) -> None:
        """An exemption covered one of its policy's findings (in force, or expired: it counts again)."""
        with self._lock:
            self._used.add((policy, exemption))

    def unsure(self, policy: str) -> None:
        """The policy could not check everything: an exemption of it that covered nothing may still be needed."""
        with self._lock:
            self._unsure.add(policy)

    def exempt(self, item: Exempted) -> None:
        with self._lock:
            if item not in self._exempted:
                self._exempted.append(item)

    def exemptions_of_run(self, resources: Iterable[tuple[str, str]]) -> tuple[list[Exempted], list[Unused]]:
        """The findings exempted so far (handed over once), and the exemptions that exempted no finding of their
        policy in the run (SPEC section 13, as linters report unused suppressions), each with whether it matches
        a resource of the stack, (urn, name) pairs. A policy that could not check everything (a value not known
        yet) has no unused exemption: the finding it would exempt may be the one it could not see."""
        with self._lock:
            exempted, self._exempted = self._exempted, []
            used, unsure = set(self._used), set(self._unsure)
        pending = [(policy, exemption) for policy, exemptions in self._exemptions.items() for exemption in exemptions
                   if (policy, exemption) not in used and policy not in unsure]
        if not pending:
            return exempted, []
        resources = list(resources)
        urns = {urn for urn, _ in resources}
        unused = []
        for policy, exemption in pending:
            if exemption.exact:
                matches = exemption.resource in urns
            else:
                matches = any(exemption.covers(urn, name) for urn, name in resources)
            unused.append(Unused(policy, exemption, matches))
        return exempted, unused

    def last_stack(self) -> Stack | None:
        """The stack the last AnalyzeStack request parsed, with what its policies derived from it
        (the placement report draws it)."""
        last = self._stack
        return last[1] if last is not None else None

    # --- the previous deployment and the stack's configuration ------------------------------

    def baseline(self, configured: Any) -> Snapshot | Unavailable:
        """The previous deployment (the configured file, else the local backend's checkpoint, else the
        CLI's export on another backend), read the first time it is needed and kept for the life of
        the process."""
        key = configured if isinstance(configured, str) else None
        with self._lock:
            if key not in self._baselines:
                self._baselines[key] = load_baseline(key)
            return self._baselines[key]

    def first(self, policy: str) -> bool:
        """Whether a resource policy says its once-per-run note now (the first time it asks): its previous deployment
        is another stack's, which is so on every resource."""
        with self._lock:
            if policy in self._said:
                return False
            self._said.add(policy)
        return True

    def stack_config(self) -> dict[str, Any]:
        """The stack's configuration, which the engine hands the pack process as PULUMI_CONFIG
        (a JSON object of ``namespace:key`` to string); read on every resource, parsed once."""
        raw = os.environ.get("PULUMI_CONFIG")
        cached = self._config
        if raw != cached[0]:
            try:
                parsed = json.loads(raw) if raw else {}
            except ValueError:
                parsed = {}
            cached = (raw, parsed if isinstance(parsed, dict) else {})
            self._config = cached
        return cached[1]
