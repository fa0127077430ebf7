"""The three subjects a policy can apply to, and the adapters that turn a policy into the SDK's.

A policy module declares a :class:`Policy`: its public name, what it applies to (a ComputeCluster,
a workload, or the whole stack), on which platforms, its metadata and its ``check``. The adapters
here do the rest, the same way for every policy: pick the resources of its subject, parse them
once (through :class:`~policies.state.PackState`), gate on the platform, call the check, and
report its findings, never raising (policies/adapters/findings.py).

A check is a plain function ``check(subject, context) -> findings``: the subject is the parsed
model (:class:`~policies.cluster.ParsedCluster`, :class:`~policies.workloads.Workload` or
:class:`~policies.placement.Stack`), the context what else the run knows (the policy's settings,
the platform, the pack state). A rule never touches the SDK's ``args``.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, Literal, NoReturn

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from ..model.cluster import is_compute_cluster
from ..model.sources import pools_of, source_of
from ..model.values import first_unknown, plain, undetermined
from ..model.workloads import parse_workload, workload_kind
from ..platforms.platform import PLATFORM_SCHEMA, implied_platform, platform_unset, resolve_platform
from . import dependents, exemptions, props, sdk
from .baseline import BASELINE_SCHEMA, Snapshot, Unavailable
from .findings import STRICT, Finding, Report, Violation, never_raises, report
from .state import Exempted, PackState

Subject = Literal["ComputeCluster", "workload", "stack"]
Check = Callable[[Any, "Context"], list[Finding]]
Remediate = Callable[[Any, "Context"], Any]
_log = logging.getLogger("compute-guard")


@dataclass(frozen=True)
class Context:
    """What a check may know besides its subject."""

    config: Mapping[str, Any]  # the policy's settings from the policy pack config
    platform: str | None  # the stack's platform, for a policy that declares its platforms
    state: PackState
    urn: str = ""  # the resource's URN and name (empty for a stack policy)
    name: str = ""
    props: Any = None  # in a remediation: the resource's inputs, to edit (props.remediation_props)
    resources: Sequence[Any] = ()  # a stack policy's: the stack's resources, as the SDK hands them
    # why the previous deployment a check asked for is not there (Context.previous): the template says it (_unjudged)
    missing: list[Unavailable] = field(default_factory=list)

    def not_applicable(self, reason: str) -> NoReturn:
        """The policy does not apply to this subject; the engine shows the reason."""
        raise sdk.NotApplicableError(reason)

    def previous(self) -> Snapshot | None:
        """The previous deployment (SPEC 5: the 'baseline' setting, else the local backend's checkpoint, else the CLI's
        export), read once per process; None when there is none, which the template then says, the one way SPEC 5
        gives (a policy that asks declares ``Policy.previous``). Ask only when a verdict needs it."""
        found = self.state.baseline(self.config.get("baseline"))
        if isinstance(found, Snapshot):
            # a stack policy has the stack's URNs; a resource policy's stack is the engine's (PULUMI_STACK, _PROJECT)
            foreign = found.foreign([resource.urn for resource in self.resources] if self.resources else None)
            if foreign is None:
                return found
            found = Unavailable(foreign, foreign=True)
        if not self.missing:
            self.missing.append(found)
        return None


@dataclass(frozen=True)
class Policy:
    """One public policy: everything the engine shows and everything the adapters need."""

    name: str
    subject: Subject
    description: str
    severity: Severity
    remediation_steps: str
    check: Check
    level: EnforcementLevel = EnforcementLevel.MANDATORY
    settings: Mapping[str, Any] = field(default_factory=dict)  # setting -> its JSON schema
    platforms: tuple[str, ...] | None = None  # None: every platform
    platforms_label: str = ""  # how a not-applicable reason names them ("kubernetes")
    # Applies on every platform but reads it where it is known: a pool's machine provides its architecture
    # on aws, gcp and azure (policies/model/sources/compute_cluster.py). Takes the 'platform' setting like a
    # platform policy.
    reads_platform: bool = False
    remediate: Remediate | None = None  # at level remediate: the changed inputs, or None
    # a ComputeCluster policy that also judges the pools a platform's resource declares (SPEC 14), read alone
    platform_pool_check: Check | None = None
    pools_only: bool = False  # it judges platform pools only (pool-safe-update: ComputeClusters are policy 9's)
    defaults: Mapping[str, Any] = field(default_factory=dict)  # settings an organisation's pack presets
    # a stack policy whose verdicts on workloads follow from the pools they run on: a platform stack's change is judged
    # by it against the workloads of its compute:dependents (SPEC 18, adapters/dependents.py)
    dependents: bool = False
    # it says where a workload's Pods go or that they fit there: the placement report marks a workload it reports
    placement: bool = False
    # what it judges against the previous deployment, as a clause ("whether this preview replaces ..."): it reads it
    # through Context.previous, takes the 'baseline' setting, and without one the template says the clause is not
    # judged and how to give one (SPEC 5; _unjudged)
    previous: str = ""

    def __post_init__(self) -> None:
        if self.previous and "baseline" not in self.settings:
            object.__setattr__(self, "settings", {**self.settings, "baseline": BASELINE_SCHEMA})

    @property
    def config_schema(self) -> PolicyConfigSchema:
        """The settings' schema, with exemptions due no later than the limit from today."""
        return self.config_schema_at(exemptions.today_from_environment(), exemptions.days_from_environment())

    def config_schema_at(self, today: date, days: int) -> PolicyConfigSchema:
        properties = dict(self.settings)
        if self.platforms is not None or self.reads_platform:
            properties["platform"] = PLATFORM_SCHEMA
        properties["exemptions"] = exemptions.schema(today, days)
        return PolicyConfigSchema(properties=properties)


def moved_setting(policy: str) -> dict[str, Any]:
    """The JSON schema of a setting that moved to a policy of its own (docs/running.md, "Settings that moved"):
    refused before the preview starts, with the engine's error saying where it went, so that nobody silently
    loses what they chose."""
    return {"enum": [f"moved: set the enforcementLevel of the policy {policy} instead"],
            "description": f"Moved to the policy {policy}: advisory by default, set its enforcementLevel to "
                           "mandatory to enforce it."}


def _context(policy: Policy, config: Any, state: PackState, not_applicable: Callable[[str], None],
             urn: str = "", name: str = "", props: Any = None,
             pools: Callable[[], Iterable[str | None]] | None = None) -> Context:
    """The check's context; not applicable (saying why) on a platform the policy does not cover. ``pools``: the
    platforms of the pools it judges, which say the platform when no config does and they are all one cloud's."""
    settings: Mapping[str, Any] = config if isinstance(config, Mapping) else {}
    if policy.defaults:  # an organisation's preset settings, under what the engine's config says
        settings = {**policy.defaults, **settings}
    platform = None
    if policy.platforms is not None or policy.reads_platform:
        platform, source = resolve_platform(settings, state.stack_config())
        if platform is None and pools is not None and platform_unset(settings, state.stack_config()):
            implied = implied_platform(pools())
            if implied is not None:
                platform, source = implied, f"every pool is {implied}'s"
        if policy.platforms is not None:
            if platform is None:
                not_applicable(source)
            elif platform not in policy.platforms:
                not_applicable(f"the platform is '{platform}' ({source}), not {policy.platforms_label}")
    return Context(settings, platform, state, urn, name, props)


def _unjudged(policy: Policy, context: Context, findings: list[Finding]) -> list[Finding]:
    """The one behaviour without the previous deployment a check asked for (SPEC 5): a configured baseline that cannot
    be read is a violation naming it (fail closed); else the policy is not applicable, saying why and how to give one,
    or, when it has found something besides, a note saying what it did not judge."""
    if not context.missing:
        return findings
    why = context.missing[0]
    if why.fail_closed:
        return [*findings, Violation(f"{policy.name}: {why.reason}; fix the path or the file", context.urn or None)]
    if why.foreign:  # nothing was compared: said where users see it, once per run on a resource policy
        return [*findings, undetermined(why.reason)] if not context.urn or context.state.first(policy.name) \
            else findings
    unjudged = f"{policy.previous} is not judged: {why.reason}"
    if not findings:
        context.not_applicable(unjudged)
    return [*findings, undetermined(unjudged)]


def _exempt(policy: Policy, context: Context, findings: list[Finding]) -> list[Finding]:
    """The findings its policy reports: those on a resource an exemption in force covers go to
    exemptions-in-force instead; an expired exemption's finding says it expired."""
    found = exemptions.parse(context.config)
    if not found:
        return findings
    context.state.saw_exemptions(policy.name, found)
    kept: list[Finding] = []
    for finding in findings:
        if not isinstance(finding, Violation):
            context.state.unsure(policy.name)  # what it could not check, an exemption may be for
            kept.append(finding)
            continue
        urn = finding.urn or context.urn
        exemption = exemptions.covering(found, urn, urn.rsplit("::", 1)[-1]) if urn else None
        if exemption is None:
            kept.append(finding)
            continue
        context.state.covered(policy.name, exemption)
        latest = exemptions.latest_allowed(context.state.today, context.state.exemption_days)
        if exemption.expires > latest:  # refused in Configure; without the shim's check it exempts nothing, and says so
            kept.append(replace(finding, message=exemptions.beyond(finding.message, exemption, latest)))
        elif exemption.in_force(context.state.today):
            context.state.exempt(Exempted(policy.name, urn, finding.message, exemption))
        else:
            kept.append(replace(finding, message=exemptions.expired(finding.message, exemption)))
    return kept


def _subject(policy: Policy, args: ResourceValidationArgs, state: PackState, props: Any) -> Any:
    """The parsed subject of a resource policy, or None when the resource is not one."""
    if policy.subject == "ComputeCluster":
        return state.cluster(props, args.urn, args.name) if is_compute_cluster(args.resource_type) else None
    return parse_workload(args.resource_type, props, args.urn, args.name)


def is_workload(resource_type: Any) -> bool:
    return workload_kind(resource_type) is not None


def is_platform_pool(resource_type: Any) -> bool:
    """A resource whose pools a resource policy judges alone (SPEC 14: a node pool, a cluster's inline pools)."""
    source = source_of(resource_type)
    return source is not None and source.judged_alone


def resource_policy(policy: Policy, state: PackState) -> ResourceValidationPolicy:
    """A ComputeCluster or workload policy, for the SDK."""

    @never_raises
    def validate(args: ResourceValidationArgs, report_violation: Report) -> None:
        if not sdk.is_installed() and _unconfigured(args.provider):  # (the shim's Analyze keeps them itself)
            state.remember_unconfigured(args.urn, args.props)
        if policy.platform_pool_check is not None and is_platform_pool(args.resource_type):
            state.remember(args.resource_type, args.urn, args.props)
            pools = pools_of(args.resource_type, args.props, args.urn, args.name) or []
            if not pools:  # (an EKS cluster without Auto Mode: nothing here to judge, and nothing to say)
                return
            context = _context(policy, args.get_config(), state, args.not_applicable, args.urn, args.name,
                               pools=lambda: (pool.platform for pool in pools))
            findings = _unjudged(policy, context, policy.platform_pool_check(pools, context))
            report(_exempt(policy, context, findings), report_violation)
            return
        if policy.pools_only:
            return
        subject = _subject(policy, args, state, args.props)
        if subject is not None:
            context = _context(policy, args.get_config(), state, args.not_applicable, args.urn, args.name)
            report(_exempt(policy, context, _unjudged(policy, context, policy.check(subject, context))),
                   report_violation)

    validate.__name__ = f"validate_{policy.name.replace('-', '_')}"
    remediate = None
    if policy.remediate is not None:
        change = policy.remediate

        def remediate(args: ResourceValidationArgs) -> Any:
            """The changed inputs, or None. Never raises: on an internal error it changes nothing,
            and the validation that follows reports what it would have fixed."""
            try:
                subject = _subject(policy, args, state, props.remediation_view(args.props))
                if subject is None:
                    return None
                context = _context(policy, args.get_config(), state, args.not_applicable, args.urn, args.name,
                                   args.props)
                exemption = exemptions.covering(exemptions.parse(context.config), args.urn, args.name)
                if exemption is not None and exemption.in_force(state.today):
                    return None  # an exempted resource is left as it is; exemptions-in-force shows why
                return change(subject, context)
            except sdk.NotApplicableError:
                raise
            except Exception:  # noqa: BLE001 - a remediation must never fail the preview
                _log.exception("compute-guard: internal error in %s", policy.name)
                if os.environ.get(STRICT) == "1":
                    raise
                return None

    sdk_policy = ResourceValidationPolicy(name=policy.name, description=policy.description, validate=validate,
                                          remediate=remediate, enforcement_level=policy.level, severity=policy.severity,
                                          config_schema=policy.config_schema_at(state.today, state.exemption_days),
                                          remediation_steps=policy.remediation_steps)
    # which resources it judges, so the SDK shim answers the others at once (policies/adapters/sdk.py, _analyze)
    applies = is_compute_cluster if policy.subject == "ComputeCluster" else is_workload
    if policy.platform_pool_check is not None:
        def applies(resource_type: Any) -> bool:
            return (not policy.pools_only and is_compute_cluster(resource_type)) or is_platform_pool(resource_type)
    setattr(sdk_policy, sdk.APPLIES, applies)
    setattr(sdk_policy, sdk.REFUSES, functools.partial(_refusals, state))
    setattr(sdk_policy, sdk.STATE, state)
    return sdk_policy


def _unconfigured(provider: Any) -> bool:
    """A resource's provider (the SDK's PolicyProviderResource) whose configuration holds a value not known yet: the
    engine leaves it unconfigured (sdk.unconfigured, on the SDK's own path)."""
    if provider is None:
        return False
    found = plain(provider.props)
    return isinstance(found, Mapping) and any(key != "version" and first_unknown(value) is not None
                                              for key, value in found.items())


def stack_policy(policy: Policy, state: PackState) -> StackValidationPolicy:
    """A policy over the whole stack, for the SDK: the stack is parsed once per request."""

    @never_raises
    def validate(args: StackValidationArgs, report_violation: Report) -> None:
        context = replace(_context(policy, args.get_config(), state, args.not_applicable,
                                   pools=lambda: (pool.platform for pool in state.stack(args.resources).pools)),
                          resources=args.resources)
        stack = state.stack(args.resources)
        findings = policy.check(stack, context)
        if stack.foreign:  # another stack's resource is never reported on (SPEC 18): its own preview judges it
            findings = [finding for finding in findings
                        if not (isinstance(finding, Violation) and finding.urn in stack.foreign)]
        if policy.dependents and stack.dependents:  # what this change breaks in the app stacks on its pools
            findings.extend(dependents.judged(policy.check, context, state.views(args.resources), findings))
        findings = _unjudged(policy, context, findings)
        report(_exempt(policy, context, findings), report_violation, named=True)

    validate.__name__ = f"validate_{policy.name.replace('-', '_')}"
    sdk_policy = StackValidationPolicy(name=policy.name, description=policy.description, validate=validate,
                                       enforcement_level=policy.level, severity=policy.severity,
                                       config_schema=policy.config_schema_at(state.today, state.exemption_days),
                                       remediation_steps=policy.remediation_steps)
    setattr(sdk_policy, sdk.SHARES_RESOURCES, True)  # it reads the stack, never changes it (policies/adapters/sdk.py)
    setattr(sdk_policy, sdk.REFUSES, functools.partial(_refusals, state))
    return sdk_policy


def _refusals(state: PackState, config: Any) -> list[str]:
    """What the pack refuses in a policy's config before the preview (the SDK hook calls it in Configure)."""
    return exemptions.refusals(config, state.today, state.exemption_days)
