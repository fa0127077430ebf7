"""The pack's analyzer driven in-process, through the SDK's own gRPC servicer.

Requests are real protobuf messages, so the policies receive the same property proxies the
engine's requests produce: unknown values raise on access, secrets are unwrapped, numbers are
floats.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi.runtime import proto
from pulumi_policy import EnforcementLevel

from compute_guard import policies
from compute_guard.policies import PackState, sdk_policies
from compute_guard.policies.adapters import sdk
from compute_guard.policies.words import pool_capacity_types, pool_systems, pool_zones

_LEVELS = {proto.ADVISORY: "advisory", proto.MANDATORY: "mandatory", proto.REMEDIATE: "remediate",
           proto.DISABLED: "disabled"}
_SEVERITIES = {proto.POLICY_SEVERITY_LOW: "low", proto.POLICY_SEVERITY_MEDIUM: "medium",
               proto.POLICY_SEVERITY_HIGH: "high", proto.POLICY_SEVERITY_CRITICAL: "critical"}
_LEVEL_VALUES = {"advisory": proto.ADVISORY, "mandatory": proto.MANDATORY, "remediate": proto.REMEDIATE,
                 "disabled": proto.DISABLED}


@dataclass(frozen=True)
class Resource:
    """One resource as the engine sees it: inputs for Analyze, outputs for AnalyzeStack, and what links it to the
    others: its parent, its provider (a provider resource's URN), the resources it and each of its properties
    depend on."""

    type: str
    name: str
    urn: str
    inputs: struct_pb2.Struct
    outputs: struct_pb2.Struct
    parent: str = ""
    provider: str = ""
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    delete_before_replace: bool | None = None  # its deleteBeforeReplace resource option (None: not set)
    # its inputs as the state keeps them, with the internal keys its provider's Check added (``__defaults``), which the
    # engine sends to Remediate and never to Analyze (None: its inputs)
    state_inputs: struct_pb2.Struct | None = None
    # the other resource options the engine forwards to a policy (pkg/resource/deploy/step_generator.go)
    protect: bool = False
    ignore_changes: tuple[str, ...] = ()
    additional_secret_outputs: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # the URNs its aliases name
    custom_timeouts: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # create, update, delete, read (s)

    @property
    def options(self) -> Any:
        """Its resource options as the engine sends them to a policy (plugin/analyzer_plugin.go,
        marshalResourceOptions)."""
        create, update, delete, read = self.custom_timeouts
        return proto.AnalyzerResourceOptions(
            protect=self.protect, ignoreChanges=list(self.ignore_changes),
            deleteBeforeReplace=bool(self.delete_before_replace),
            deleteBeforeReplaceDefined=self.delete_before_replace is not None,
            additionalSecretOutputs=list(self.additional_secret_outputs), aliases=list(self.aliases),
            customTimeouts=proto.AnalyzerResourceOptions.CustomTimeouts(create=create, update=update, delete=delete,
                                                                       read=read),
            parent=self.parent)

    @classmethod
    def of(cls, type_: str, name: str, inputs: Mapping[str, Any] | struct_pb2.Struct,
           outputs: Mapping[str, Any] | struct_pb2.Struct | None = None, *,
           project: str = "project", stack: str = "stack", parent_type: str = "") -> Resource:
        """A resource from plain JSON-like values (numbers become floats, as on the wire)."""
        qualified = f"{parent_type}${type_}" if parent_type else type_
        urn = f"urn:pulumi:{stack}::{project}::{qualified}::{name}"
        ins = to_struct(inputs)
        outs = ins if outputs is None else to_struct(outputs)
        return cls(type_, name, urn, ins, outs)


def to_struct(value: Mapping[str, Any] | struct_pb2.Struct) -> struct_pb2.Struct:
    if isinstance(value, struct_pb2.Struct):
        return value
    struct = struct_pb2.Struct()
    struct.update(dict(value))
    return struct


@dataclass(frozen=True)
class PolicyViolation:
    policy: str
    level: str
    message: str  # the policy's description, a newline, then the finding
    urn: str
    severity: str = ""  # low | medium | high | critical, as the policy declares

    @property
    def finding(self) -> str:
        return self.message.split("\n", 1)[-1]

    @property
    def reasons(self) -> tuple[str, ...]:
        """A note's checks that could not be made, each with its reason: the policy lists every one in its one note
        ("3 checks could not be made: (1) ...; (2) ...; (3) ..."); a violation's finding alone."""
        text = self.finding
        head, marker, rest = text.partition(" during preview: ")
        if not marker or not head.startswith("can't run policy '"):
            return (text,)
        listed = re.match(r"\d[\d,]* checks could not be made: \(1\) ", rest)
        if listed is None:
            return (rest,)
        found, start, number = [], listed.end(), 2
        while (end := rest.find(f"; ({number}) ", start)) >= 0:
            found.append(rest[start:end])
            start, number = end + len(f"; ({number}) "), number + 1
        last = rest[start:]
        if last.endswith(" more not listed"):
            last = last.rsplit("; and ", 1)[0]
        return (*found, last)


@dataclass(frozen=True)
class NotApplicable:
    policy: str
    reason: str
    urn: str


@dataclass(frozen=True)
class Remediation:
    """A policy at level remediate changed a resource's inputs."""

    policy: str
    urn: str
    properties: dict[str, Any]  # the resource's whole inputs after the change, as plain JSON


@dataclass(frozen=True)
class Unchecked:
    """A resource whose children the test kit cannot see, so no policy judged them (SPEC section 8): a Helm
    chart or a kustomization is rendered by the Kubernetes provider, which does not run under mocks; a component
    of a component provider the test kit does not build is built by that provider. ``refused``: evaluate fails
    on it unless the test accepts it (False for what declares no pool or workload, such as awsx's VPC)."""

    type: str
    name: str
    urn: str
    reason: str
    refused: bool = True


@dataclass(frozen=True)
class SeenPool:
    """A pool the policies read (SPEC 14): where it comes from, which cluster it joins, what its nodes are."""

    source: str  # its kind: ComputeCluster, NodeGroup, GKE Cluster, autoscaling Group, ...
    name: str
    urn: str
    cluster: str  # the cluster it joins, as messages name it ("AKS cluster 'aks'"); "" when the pack cannot tell
    machines: tuple[str, ...]  # the machines its nodes may be (a Karpenter NodePool's: every type it allows)
    max_size: int | None
    # what its nodes run, as the report shows it (None: its source does not say): their operating systems, capacity
    # types (spot, preemptible, on-demand), the most GPUs a node advertises, taints (key=value:Effect) and zones
    systems: tuple[str, ...] | None = None
    capacity: tuple[str, ...] | None = None
    gpus: int | None = None
    taints: tuple[str, ...] = ()
    zones: tuple[str, ...] | None = None


def seen_pools(stack: Any, platform: Any = None) -> list[SeenPool]:
    """The pools of a parsed stack (PackState.last_stack), as a test reads them."""
    if stack is None:
        return []
    found = []
    for pool in stack.pools:
        options = pool.machines_on(platform if isinstance(platform, str) else None).options
        machines = tuple(f"{option.hardware.name}" for option in options if option.hardware.name)
        size = pool.max_size if isinstance(pool.max_size, int) else None
        cluster = pool.cluster.label if pool.cluster.name else ""
        counts = [option.hardware.capacity.get("nvidia.com/gpu") for option in options]
        gpus = int(max(counts)) if counts and all(count is not None for count in counts) else None
        found.append(SeenPool(pool.kind, pool.name, pool.urn, cluster, machines, size, pool_systems(pool),
                              pool_capacity_types(pool), gpus, tuple(taint.text for taint in pool.taints),
                              pool_zones(pool)))
    return found


@dataclass
class PolicyResult:
    violations: list[PolicyViolation] = field(default_factory=list)
    not_applicable: list[NotApplicable] = field(default_factory=list)
    notes: list[PolicyViolation] = field(default_factory=list)  # "can't run policy ... during preview"
    remediations: list[Remediation] = field(default_factory=list)
    unchecked: list[Unchecked] = field(default_factory=list)  # what no policy saw (the test kit's evaluate)
    pools: list[SeenPool] = field(default_factory=list)  # the pools the policies read (the test kit's evaluate)

    @property
    def remediated(self) -> dict[str, dict[str, Any]]:
        """URN -> the inputs the engine goes on with, for every resource a remediation changed."""
        return {r.urn: r.properties for r in self.remediations}

    @property
    def mandatory(self) -> list[PolicyViolation]:
        return [v for v in self.violations if v.level == "mandatory"]

    def of(self, policy: str) -> list[PolicyViolation]:
        return [v for v in self.violations if v.policy == policy]

    def findings(self, policy: str) -> list[str]:
        return [v.finding for v in self.of(policy)]


@contextlib.contextmanager
def stack_environment(stack_config: Mapping[str, Any] | None, project: str, stack: str,
                      preview: bool, extra: Mapping[str, str] | None = None) -> Iterator[None]:
    """The environment the engine gives a pack process: PULUMI_CONFIG, project, stack, dry run."""
    values = {
        **(extra or {}),
        "PULUMI_CONFIG": json.dumps({k: v if isinstance(v, str) else json.dumps(v)
                                     for k, v in (stack_config or {}).items()}),
        "PULUMI_PROJECT": project,
        "PULUMI_STACK": stack,
        "PULUMI_DRY_RUN": "true" if preview else "false",
    }
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


class ConfigError(ValueError):
    """--policy-pack-config the engine refuses before it analyzes any resource."""


def reconcile_policy_config(info: Any, policy_config: Mapping[str, Any]) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Policy name -> (level, settings), as the engine turns --policy-pack-config into Configure
    (pulumi v3.260.0, pkg/resource/analyzer/config.go: parse, reconcile, validate).

    Each value is a level or an object, a level a known one. Each policy starts at its default level
    with its schema's defaults; ``all`` then sets every policy's level (disabled ones too); then each
    policy's own entry sets its level and adds its settings. Each policy's settings must match its
    schema. Like the engine, it lets through names of policies the pack does not have and settings
    its schemas do not declare (tests/cli/test_policy_analyze.py holds all of this to the CLI)."""
    import jsonschema

    given: dict[str, tuple[Any, dict[str, Any]]] = {}
    for name, value in policy_config.items():
        if name == "environments":  # ESC environments to open, not a policy
            continue
        if isinstance(value, str):
            value = {"enforcementLevel": value}
        if not isinstance(value, Mapping):
            raise ConfigError(f"{name}: expected a level or an object")
        settings = dict(value)
        level = settings.pop("enforcementLevel", None)
        if level is not None and level not in _LEVEL_VALUES:
            raise ConfigError(f"{name}: '{level}' is not a valid enforcement level")
        given[name] = (_LEVEL_VALUES[level] if level is not None else None, settings)

    schemas = {p.name: json_format.MessageToDict(p.configSchema) for p in info.policies}
    result = {p.name: (p.enforcementLevel, {key: item["default"] for key, item in
                                            schemas[p.name].get("properties", {}).items() if "default" in item})
              for p in info.policies}
    everything = given.get("all", (None, {}))[0]
    if everything is not None:
        result = {name: (everything, settings) for name, (_, settings) in result.items()}
    for name, (level, settings) in given.items():
        if name in result:
            old_level, old_settings = result[name]
            result[name] = (level if level is not None else old_level, {**old_settings, **settings})
    for name, (_, settings) in result.items():
        schema = schemas[name]
        whole = {"type": "object", "properties": schema.get("properties", {}), "required": schema.get("required", [])}
        error = jsonschema.exceptions.best_match(_validator(json.dumps(whole, sort_keys=True)).iter_errors(settings))
        if error is not None:  # what jsonschema.validate raises, without checking the schema itself every time
            raise ConfigError(f"{name}: {error.message}")
    return result


@functools.lru_cache(maxsize=256)
def _validator(schema: str) -> Any:
    """A validator of one policy's settings schema (as JSON text), its schema checked once."""
    import jsonschema

    document = json.loads(schema)
    validator = jsonschema.validators.validator_for(document)
    validator.check_schema(document)
    return validator(document)


class _Driver:
    """Builds the engine's requests and reads its responses; subclasses carry them."""

    def info(self) -> Any:
        raise NotImplementedError

    def _configure(self, request: Any) -> None:
        raise NotImplementedError

    def _analyze(self, request: Any) -> Any:
        raise NotImplementedError

    def _remediate(self, request: Any) -> Any:
        raise NotImplementedError

    def _analyze_stack(self, request: Any) -> Any:
        raise NotImplementedError

    def configure(self, policy_config: Mapping[str, Any]) -> None:
        """--policy-pack-config: {policy: level} or {policy: {"enforcementLevel": ..., setting: ...}},
        and "all": a level for every policy."""
        request = proto.ConfigureAnalyzerRequest()
        for name, (level, settings) in reconcile_policy_config(self.info(), policy_config).items():
            config = proto.PolicyConfig(enforcementLevel=level)
            config.properties.update(settings)
            request.policyConfig[name].CopyFrom(config)
        self._configure(request)

    def remediate(self, resource: Resource, result: PolicyResult | None = None,
                  providers: Mapping[str, Resource] | None = None) -> Resource:
        """The engine's first pass: the resource as the remediations leave it (outputs too, for a
        custom resource, whose provider echoes its inputs here)."""
        result = result if result is not None else PolicyResult()
        response = self._remediate(proto.AnalyzeRequest(
            type=resource.type, properties=as_sent(resource.state_inputs or resource.inputs, internal=True),
            urn=resource.urn, name=resource.name, provider=_provider(resource, providers or {}, inputs=True),
            options=resource.options))
        inputs = resource.inputs
        for remediation in response.remediations:
            if remediation.diagnostic:
                result.notes.append(PolicyViolation(remediation.policyName, "advisory", remediation.diagnostic,
                                                    resource.urn))
            elif remediation.HasField("properties"):
                inputs = remediation.properties
                result.remediations.append(Remediation(remediation.policyName, resource.urn,
                                                       json_format.MessageToDict(inputs)))
        for item in response.not_applicable:
            result.not_applicable.append(NotApplicable(item.policy_name, item.reason, resource.urn))
        if not response.remediations or inputs is resource.inputs:
            return resource
        outputs = inputs if resource.outputs is resource.inputs else resource.outputs
        return dataclasses.replace(resource, inputs=inputs, outputs=outputs, state_inputs=None)

    def analyze(self, resource: Resource, result: PolicyResult | None = None,
                providers: Mapping[str, Resource] | None = None) -> PolicyResult:
        result = result or PolicyResult()
        provider = _provider(resource, providers or {}, inputs=True)
        response = self._analyze(proto.AnalyzeRequest(
            type=resource.type, properties=as_sent(resource.inputs), urn=resource.urn, name=resource.name,
            provider=provider, options=resource.options))
        _collect(response, result, resource.urn)
        return result

    def analyze_stack(self, resources: Iterable[Resource], result: PolicyResult | None = None) -> PolicyResult:
        """AnalyzeStack as the engine sends it (pkg/resource/deploy/step_generator.go): every resource's outputs,
        parent, dependencies and property dependencies, and its provider's inputs."""
        result = result or PolicyResult()
        listed = list(resources)
        by_urn = {resource.urn: resource for resource in listed}
        response = self._analyze_stack(proto.AnalyzeStackRequest(resources=[
            proto.AnalyzerResource(
                type=r.type, properties=as_sent(r.outputs), urn=r.urn, name=r.name, parent=r.parent,
                options=r.options,
                provider=_provider(r, by_urn, inputs=True), dependencies=list(r.dependencies),
                propertyDependencies={key: proto.AnalyzerPropertyDependencies(urns=list(urns))
                                      for key, urns in r.property_dependencies.items() if urns})
            for r in listed]))
        _collect(response, result, "")
        return result

    def run(self, resources: Iterable[Resource]) -> PolicyResult:
        """What a preview does: per resource Remediate then Analyze its inputs, then AnalyzeStack
        the outputs."""
        result = PolicyResult()
        final = []
        listed = list(resources)
        by_urn = {resource.urn: resource for resource in listed}
        for resource in listed:
            resource = self.remediate(resource, result, by_urn)
            self.analyze(resource, result, by_urn)
            final.append(resource)
        self.analyze_stack(final, result)
        return result


class Analyzer(_Driver):
    """A fresh pack, as a new pack process would be (a new PackState), driven in-process through the
    SDK's servicer. It installs the pack's SDK shim first, as the pack process does (``shim=False``
    leaves the SDK as it is; ``policies.sdk.uninstall()`` undoes it). ``pack``: an organisation's
    policies (``policies.choose(...)``, with its levels and preset settings) instead of all of them."""

    def __init__(self, policy_config: Mapping[str, Any] | None = None, *, shim: bool = True,
                 pack: Iterable[policies.Policy] | None = None, today: date | None = None,
                 exemption_days: int | None = None) -> None:
        if shim:
            sdk.install()
        sdk.check_config()  # as the pack assembles itself (policies.policy_pack)
        self.state = PackState(today, exemption_days)  # today: the date exemptions are judged on
        chosen = tuple(pack) if pack is not None else policies.ALL
        self.servicer = sdk.AnalyzerServicer(policies.PACK_NAME, policies.PACK_VERSION,
                                             sdk_policies(chosen, self.state), EnforcementLevel.MANDATORY)
        self.configure(policy_config or {})

    def info(self) -> Any:
        return self.servicer.GetAnalyzerInfo(None, None)

    def _configure(self, request: Any) -> None:
        try:
            self.servicer.Configure(request, None)
        except sdk.ConfigRefused as error:
            raise ConfigError(f"the pack refuses its config: {error}") from None

    def _analyze(self, request: Any) -> Any:
        return self.servicer.Analyze(request, None)

    def _remediate(self, request: Any) -> Any:
        return self.servicer.Remediate(request, None)

    def _analyze_stack(self, request: Any) -> Any:
        return self.servicer.AnalyzeStack(request, None)


# a resource reference's signature, as the SDKs serialize one
_REFERENCE = {"4dabf18193072939515e22adb298388d": "5cf8f73096256a8f31e491e813e4eb8e"}


def as_sent(struct: struct_pb2.Struct, internal: bool = False) -> struct_pb2.Struct:
    """The props as the engine sends them to an analyzer (pkg/resource/plugin/analyzer_plugin.go):

    * without the top-level internal keys (``__defaults``, ``__meta``, ...) a provider's Check adds: Analyze,
      AnalyzeStack and a request's provider marshal them with ``SkipInternalKeys: true`` (Remediate alone keeps them:
      ``internal``), which drops them at the top level only (nested objects keep theirs);
    * without resource references (MarshalOptions without KeepResources), so a reference (a component's
      ``eksCluster`` output) reaches a pack as the resource's ID, or its URN when it has none (a component). The SDKs'
      registrations keep them, and pulumi-policy's own deserializer refuses one ('Unrecognized signature')."""
    hidden = not internal and any(key.startswith("__") for key in struct.fields)
    if not hidden and b"5cf8f73096256a8f31e491e813e4eb8e" not in struct.SerializeToString():
        return struct  # (most props hold neither: the bytes say so without reading them)
    plain = json_format.MessageToDict(struct)
    if hidden:
        plain = {key: value for key, value in plain.items() if not key.startswith("__")}
    sent = struct_pb2.Struct()
    sent.update(_downgraded(plain))
    return sent


def _downgraded(value: Any) -> Any:
    if isinstance(value, dict):
        if all(value.get(key) == signature for key, signature in _REFERENCE.items()):
            found = value.get("id")
            return found if isinstance(found, str) and found else value.get("urn", "")
        return {key: _downgraded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_downgraded(item) for item in value]
    return value


def _provider(resource: Resource, by_urn: Mapping[str, Resource], inputs: bool) -> Any:
    """The engine's AnalyzerProviderResource for a resource's provider (its inputs), None without one."""
    provider = by_urn.get(resource.provider) if resource.provider else None
    if provider is None:
        return None
    return proto.AnalyzerProviderResource(type=provider.type, properties=as_sent(provider.inputs), urn=provider.urn,
                                          name=provider.name)


def _collect(response: Any, result: PolicyResult, urn: str) -> None:
    for diagnostic in response.diagnostics:
        item = PolicyViolation(diagnostic.policyName, _LEVELS.get(diagnostic.enforcementLevel, "unknown"),
                               diagnostic.message, diagnostic.urn or urn, _SEVERITIES.get(diagnostic.severity, ""))
        if diagnostic.message.startswith("can't run policy '"):
            result.notes.append(item)
        else:
            result.violations.append(item)
    for item in response.not_applicable:
        result.not_applicable.append(NotApplicable(item.policy_name, item.reason, urn))
