"""The pulumi-policy SDK patched for the pack, and the one version it supports.

The pack reaches into the SDK for one thing it does not offer: reading props on demand (props.py)
and a servicer that hands them to the rules. It rests on private names that change without notice,
so they live here and in props.py only, behind :data:`SUPPORTED_SDK`. No verdict and no level
depends on it, it only makes them faster: the engine scenarios give the same results with and
without it (tests/engine/test_engine_protocol.py; the pack runs without it when
``COMPUTE_GUARD_SDK_SHIM=off``). :func:`install` patches the SDK in the process that calls it
(``__main__.py`` for the pack; the test kit explicitly) and :func:`uninstall` undoes it. On
another SDK version the pack warns and runs on the SDK's own (slower) path; the test suite fails
instead (``install(strict=True)``).

:func:`install` swaps, inside ``pulumi_policy.policy`` only, the SDK's three steps from protobuf to
proxies (MessageToDict, deserialize_properties, unknown_checking_proxy) for props.py's
:class:`~policies.adapters.props.StructProps`, and patches the servicer's Analyze, AnalyzeStack,
Remediate and Configure: its two jobs, the props and the servicer, are props.py and this module.
``pulumi_policy`` is pinned in requirements.txt; :func:`install` refuses any other version rather
than guess.

The SDK calls the three replaced names in Analyze, AnalyzeStack, Remediate, Configure and when it
reads a request's provider; tests/engine/test_sdk.py covers each of those call sites.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import grpc
from google.protobuf import json_format
from pulumi_policy import policy as sdk_policy
from pulumi_policy.proxy import UnknownValueError
from pulumi_policy.version import VERSION as SDK_VERSION

from ..model.resources import StackResource
from .props import StructProps, _deserialize_properties, _message_to_dict, _unknown_checking_proxy

SUPPORTED_SDK = "1.21.0"

# The SDK's private names the pack needs beyond the patch.
NotApplicableError = sdk_policy._NotApplicableError  # what args.not_applicable() raises
AnalyzerServicer = sdk_policy._PolicyAnalyzerServicer  # the analyzer service, driven in-process by the test kit


class UnsupportedSDK(RuntimeError):
    """The installed pulumi-policy is not the version this shim was written and tested for."""

# The SDK asks inspect.signature(pulumi.runtime.Settings) on every request (_configure_runtime_settings, to learn
# whether Settings takes an organization): the same class, so the same answer every time.
_signature = functools.lru_cache(maxsize=8)(inspect.signature)


def _remediate(self: Any, request: Any, context: Any) -> Any:
    """The SDK's Remediate, answered at once when no policy is at level remediate: it would configure the
    runtime, deserialize the props and read the options and provider of every resource, then find no policy to
    run and return this same empty response (the engine calls Remediate for every resource before Analyze)."""
    policies = getattr(self, "_PolicyAnalyzerServicer__policies", None)
    if policies is not None and not any(self._get_enforcement_level(policy) == sdk_policy.EnforcementLevel.REMEDIATE
                                        for policy in policies):
        return sdk_policy.proto.RemediateResponse()
    return _SDK_REMEDIATE(self, request, context)


# What the SDK's _configure_runtime_settings reads: it sets the Pulumi runtime's config and settings from these on
# every request, to the same values while they do not change (the engine sets them once, when it starts the pack).
_RUNTIME_ENVIRONMENT = ("PULUMI_CONFIG", "PULUMI_PROJECT", "PULUMI_STACK", "PULUMI_DRY_RUN", "PULUMI_ORGANIZATION")


def _configure_runtime(self: Any) -> None:
    """The SDK's runtime configuration, done again only when what it reads changed. The settings it sets are
    context variables, so each gRPC worker thread holds its own: the servicer remembers, per thread, what it
    configured from. Once per thread in a preview, where on every workload it took 2 s of 50,000 resources."""
    environment = tuple(os.environ.get(name) for name in _RUNTIME_ENVIRONMENT)
    configured = self.__dict__.get(_CONFIGURED)
    if configured is None:
        configured = self.__dict__.setdefault(_CONFIGURED, threading.local())
    if getattr(configured, "environment", None) != environment:
        self._configure_runtime_settings()
        configured.environment = environment


_CONFIGURED = "_compute_guard_runtime_configured"  # the servicer's threading.local of what it configured from


APPLIES = "compute_guard_applies"  # a resource policy's test of a type token: does it judge such resources?


UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's value not known yet, as it marshals it
STATE = "compute_guard_state"  # a policy's PackState: what one request learns for the next


def unconfigured(provider: Any) -> bool:
    """A provider (a request's ProviderResource message) whose configuration holds a value not known yet, but its
    version: the engine leaves it unconfigured, so a preview's outputs of its resources are an empty bag (pulumi
    sdk/go/common/resource/plugin/provider_plugin.go, Configure and Create)."""
    def holds(value: Any) -> bool:
        kind = value.WhichOneof("kind")
        if kind == "string_value":
            return bool(value.string_value == UNKNOWN)
        if kind == "struct_value":
            return any(holds(item) for item in value.struct_value.fields.values())
        if kind == "list_value":
            return any(holds(item) for item in value.list_value.values)
        return False
    return any(key != "version" and holds(value) for key, value in provider.properties.fields.items())


def _remember_unconfigured(self: Any, request: Any) -> None:
    """The inputs Analyze receives of a resource whose provider is not configured in this preview, kept for the
    stack's policies, whose AnalyzeStack outputs of it are empty (PackState.remember_unconfigured)."""
    if not request.HasField("provider") or not unconfigured(request.provider):
        return
    state = next((found for policy in getattr(self, "_PolicyAnalyzerServicer__policies", None) or ()
                  if (found := getattr(policy, STATE, None)) is not None), None)
    if state is not None:
        state.remember_unconfigured(request.urn, StructProps(request.properties))


def _analyze(self: Any, request: Any, context: Any) -> Any:
    """The SDK's Analyze, run only for the policies that judge the resource's type, with its props, options and
    provider read once: the SDK would, for every resource policy, deserialize the props, read the options and
    call a validate that returns on the type (a Service, a ConfigMap: a third of a typical stack, judged by
    none), and send the same response. Only when every enabled resource policy is the pack's, which say which
    types they judge; an organisation's own policy makes it the SDK's path."""
    _remember_unconfigured(self, request)
    judging = _judging(self, request.type)
    if judging is None:
        return _SDK_ANALYZE(self, request, context)
    response = sdk_policy.proto.AnalyzeResponse()
    if not judging:
        return response
    _configure_runtime(self)
    name, version = self._PolicyAnalyzerServicer__policy_pack_name, self._PolicyAnalyzerServicer__policy_pack_version
    props, opts = StructProps(request.properties), self._get_resource_options(request)
    provider = self._get_provider_resource(request)
    for policy, level in judging:
        report_violation = self._create_report_violation(response, policy.name, policy.description, level,
                                                         policy.severity)
        args = sdk_policy.ResourceValidationArgs(request.type, props, request.urn, request.name, opts, provider,
                                                 self._get_policy_config(policy.name),
                                                 self._PolicyAnalyzerServicer__stack_tags)
        _validate(self, policy, args, report_violation, response, name, version)
    return response


_JUDGING = "_compute_guard_judging"  # the servicer's plan of which resource policies judge a type, per Configure


def _judging(self: Any, resource_type: str) -> list[tuple[Any, Any]] | None:
    """The enabled resource policies that judge ``resource_type``, each with the level it reports at (at level
    remediate: mandatory, as the SDK does for a remediated resource still failing); None when some enabled
    resource policy is not the pack's (the SDK's own path then). Levels change only in Configure, which replaces
    the SDK's map of configured levels: the plan is made again for a new map, and is per type otherwise (a stack
    has a few dozen types, and this was 1 s of a 50,000-resource preview when made for every request)."""
    levels = self.__dict__.get("_PolicyAnalyzerServicer__policy_pack_config_enforcement_level")
    plan = self.__dict__.get(_JUDGING)
    if plan is None or plan[0] is not levels:
        level_of = self._get_enforcement_level
        enabled = [(policy, level_of(policy)) for policy in getattr(self, "_PolicyAnalyzerServicer__policies", None)
                   or () if isinstance(policy, sdk_policy.ResourceValidationPolicy)]
        enabled = [(policy, level) for policy, level in enabled if level != sdk_policy.EnforcementLevel.DISABLED]
        ours = all(getattr(policy, APPLIES, None) is not None and policy.has_validation() for policy, _ in enabled)
        plan = (levels, enabled if ours else None, {})
        self.__dict__[_JUDGING] = plan
    enabled, by_type = plan[1], plan[2]
    if enabled is None:
        return None
    judging = by_type.get(resource_type)
    if judging is None:
        mandatory = sdk_policy.EnforcementLevel.MANDATORY
        judging = [(policy, mandatory if level == sdk_policy.EnforcementLevel.REMEDIATE else level)
                   for policy, level in enabled if getattr(policy, APPLIES)(resource_type)]
        by_type[resource_type] = judging
    return judging


def _validate(self: Any, policy: Any, args: Any, report_violation: Any, response: Any, name: str,
              version: str) -> None:
    """One policy's validate, with the SDK's answers to what it raises (the pack's validations are plain
    functions, never coroutines)."""
    try:
        policy.validate(args, report_violation)
    except UnknownValueError as error:
        response.diagnostics.append(sdk_policy.proto.AnalyzeDiagnostic(
            policyName=policy.name, policyPackName=name, policyPackVersion=version,
            message=f"can't run policy '{policy.name}' from policy pack '{name}@v{version}' during preview: "
                    f"{error.message}",
            urn="", description=policy.description,
            enforcementLevel=self._map_enforcement_level(sdk_policy.EnforcementLevel.ADVISORY)))
    except NotApplicableError as error:
        response.not_applicable.append(sdk_policy.proto.PolicyNotApplicable(policy_name=policy.name,
                                                                            reason=error.reason or ""))


SHARES_RESOURCES = "compute_guard_shares_resources"  # a stack policy that never changes the resources it is given


def _analyze_stack(self: Any, request: Any, context: Any) -> Any:
    """The SDK's AnalyzeStack with the stack's resources built once, not once per stack policy: the SDK turns
    every resource into a PolicyResource (props, options, provider, parent, dependencies) again for each of
    them, ten times over a 10,000-resource stack. Only when every enabled stack policy is one of the pack's,
    which read the resources and never change them; otherwise the SDK's own path. Everything else is the
    SDK's: the same levels, violations, notes and not-applicable answers, in the same order."""
    level_of = self._get_enforcement_level
    stack_policies = [policy for policy in getattr(self, "_PolicyAnalyzerServicer__policies", None) or ()
                      if isinstance(policy, sdk_policy.StackValidationPolicy)
                      and level_of(policy) != sdk_policy.EnforcementLevel.DISABLED]
    if not stack_policies or not all(getattr(policy, SHARES_RESOURCES, False) for policy in stack_policies):
        return _SDK_ANALYZE_STACK(self, request, context)
    self._configure_runtime_settings()
    response = sdk_policy.proto.AnalyzeResponse()
    resources = _stack_resources(self, request)
    name, version = self._PolicyAnalyzerServicer__policy_pack_name, self._PolicyAnalyzerServicer__policy_pack_version
    for policy in stack_policies:
        level = level_of(policy)
        if level == sdk_policy.EnforcementLevel.REMEDIATE:
            level = sdk_policy.EnforcementLevel.MANDATORY  # stack policies cannot remediate (as the SDK says)
        report_violation = self._create_report_violation(response, policy.name, policy.description, level,
                                                         policy.severity)
        # the pack's stack policies read StackResources (policies/model/resources.py), the SDK's or these
        args = sdk_policy.StackValidationArgs(resources, self._get_policy_config(policy.name),  # type: ignore[arg-type]
                                              self._PolicyAnalyzerServicer__stack_tags)
        _validate(self, policy, args, report_violation, response, name, version)
    return response


def _stack_resources(self: Any, request: Any) -> list[RequestResource]:
    """The request's resources as the pack's stack policies read them (SHARES_RESOURCES: only they get these)."""
    built = [RequestResource(message) for message in request.resources]
    present = frozenset(resource.urn for resource in built)  # the same strings: no second copy of every URN
    for resource in built:
        resource._present = present
    return built


class RequestResource(StackResource):
    """One resource of an AnalyzeStack request, read by the model as it is: the SDK's PolicyResource has the same
    type, props, URN and name, and links its parent, provider and dependencies as objects; this gives their URNs,
    read from the request when asked. The SDK also builds every resource's options and its provider's props, which
    no rule reads: they were a third of the Python memory a stack request costs, and the model's own StackResource
    beside each another tenth (BENCHMARKS.md, memory). As the SDK's, a parent or dependency outside the
    request is none."""

    __slots__ = ("_message", "_present")

    def __init__(self, message: Any, present: frozenset[str] = frozenset()) -> None:
        # a few dozen types among thousands of resources: one string each
        super().__init__(sys.intern(message.type), message.urn, "", None)
        self._message = message
        self._present = present  # the URNs of the request

    @property
    def props(self) -> StructProps:
        """Its props, read from the request as they are accessed: what the model keeps of them it keeps itself (a
        workload its pod template), and most resources' (Services, ConfigMaps) are never read."""
        return StructProps(self._message.properties)

    @property
    def name(self) -> str:
        """Its name, read from the request when asked (a workload keeps its own: most resources' are never read)."""
        name: str = self._message.name
        return name

    @property
    def source(self) -> Any:
        """What it was read from: the request's message (PackState parses a request's stack once)."""
        return self._message

    @property
    def parent(self) -> str | None:
        parent: str = self._message.parent
        return parent if parent in self._present else None

    @property
    def provider(self) -> str | None:
        """The URN of its provider (the SDK's is the request's provider, in the stack or not)."""
        if not self._message.HasField("provider"):
            return None
        return self._message.provider.urn or None

    @property
    def dependencies(self) -> tuple[str, ...]:
        return tuple(urn for urn in self._message.dependencies if urn in self._present)

    @property
    def delete_before_replace(self) -> bool | None:
        options = self._message.options
        return bool(options.deleteBeforeReplace) if options.deleteBeforeReplaceDefined else None

    @property
    def property_dependencies(self) -> dict[str, list[str]]:
        return {key: [urn for urn in urns.urns if urn in self._present]
                for key, urns in self._message.propertyDependencies.items()}


REFUSES = "compute_guard_refuses"  # a policy's check of its own config, run in Configure: the refusals, in words


class ConfigRefused(ValueError):
    """Configure refused the policy pack config (in process; over gRPC the engine gets INVALID_ARGUMENT)."""


def _configure(self: Any, request: Any, context: Any) -> Any:
    """The SDK's Configure, after each of the pack's policies checked what its config holds that the CLI's schema
    validation cannot say in words (an exemption past the limit: the CLI would print a regular expression).
    The CLI runs Configure before the preview and prints the refusal as it is."""
    refused = []
    for policy in getattr(self, "_PolicyAnalyzerServicer__policies", None) or ():
        check = getattr(policy, REFUSES, None)
        if check is not None and policy.name in request.policyConfig:
            config = json_format.MessageToDict(request.policyConfig[policy.name].properties)
            refused += [f"{policy.name}: {problem}" for problem in check(config)]
    if refused:
        message = refused[0]
        for more in refused[1:]:  # formatted, as every message is (tests/test_layout.py)
            message = f"{message}; {more}"
        if context is None:
            raise ConfigRefused(message)
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, message)
    return _SDK_CONFIGURE(self, request, context)


_SDK_CONFIGURE = sdk_policy._PolicyAnalyzerServicer.Configure
_SDK_REMEDIATE = sdk_policy._PolicyAnalyzerServicer.Remediate
_SDK_ANALYZE_STACK = sdk_policy._PolicyAnalyzerServicer.AnalyzeStack
_SDK_ANALYZE = sdk_policy._PolicyAnalyzerServicer.Analyze
# The SDK's originals, which uninstall() puts back.
_ORIGINALS = {"json_format": sdk_policy.json_format, "deserialize_properties": sdk_policy.deserialize_properties,
              "unknown_checking_proxy": sdk_policy.unknown_checking_proxy, "signature": sdk_policy.signature}
_installed = False


def check_config() -> None:
    """Have Configure run the pack's own config checks (REFUSES) first, whether or not the shim is installed:
    it decides what is refused, so it is no part of the shim's speed-ups and the pack assembles it always."""
    sdk_policy._PolicyAnalyzerServicer.Configure = _configure  # type: ignore[method-assign]


def install(*, strict: bool = False) -> bool:
    """Read props lazily in this process. On an SDK version other
    than :data:`SUPPORTED_SDK` nothing changes: False, or :class:`UnsupportedSDK` when ``strict``."""
    global _installed
    if _installed:
        return True
    if SDK_VERSION != SUPPORTED_SDK:
        if strict:
            raise UnsupportedSDK(f"pulumi-policy {SDK_VERSION} is installed; policies/adapters/sdk.py supports "
                                 f"{SUPPORTED_SDK} only: rerun tests/engine/test_sdk.py and the benchmark against "
                                 "the new version, then move SUPPORTED_SDK")
        return False
    # pulumi_policy.policy uses json_format for MessageToDict only (tests/engine/test_sdk.py holds it to that)
    sdk_policy.json_format = SimpleNamespace(MessageToDict=_message_to_dict)  # type: ignore[assignment]
    sdk_policy.deserialize_properties = _deserialize_properties  # type: ignore[assignment]
    sdk_policy.unknown_checking_proxy = _unknown_checking_proxy  # type: ignore[assignment]
    sdk_policy.signature = _signature  # type: ignore[assignment]
    sdk_policy._PolicyAnalyzerServicer.Remediate = _remediate  # type: ignore[method-assign]
    sdk_policy._PolicyAnalyzerServicer.Analyze = _analyze  # type: ignore[method-assign]
    sdk_policy._PolicyAnalyzerServicer.AnalyzeStack = _analyze_stack  # type: ignore[method-assign]
    _installed = True
    return True


def uninstall() -> None:
    """Put the SDK back as it was before :func:`install`."""
    global _installed
    for name, original in _ORIGINALS.items():
        setattr(sdk_policy, name, original)
    sdk_policy._PolicyAnalyzerServicer.Remediate = _SDK_REMEDIATE  # type: ignore[method-assign]
    sdk_policy._PolicyAnalyzerServicer.Analyze = _SDK_ANALYZE  # type: ignore[method-assign]
    sdk_policy._PolicyAnalyzerServicer.AnalyzeStack = _SDK_ANALYZE_STACK  # type: ignore[method-assign]
    _installed = False


def is_installed() -> bool:
    return _installed


@contextlib.contextmanager
def uninstalled() -> Iterator[None]:
    """The SDK's own path for a while (a test of the fallback), then the shim again if it was on."""
    was = _installed
    uninstall()
    try:
        yield
    finally:
        if was:
            install()
