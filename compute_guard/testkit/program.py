"""Run a Pulumi Python program under mocks and capture what its SDKs send to the engine.

Under mocks no provider runs, so a resource whose children the Kubernetes provider creates would reach
the policies without them. What the test kit can read it expands as the provider would: a
``kubernetes:yaml/v2:ConfigGroup`` or ``ConfigFile`` (files, inline YAML, objects) becomes its children,
named ``<prefix>:<namespace>/<name>``. What it cannot (a Helm chart, a kustomization: rendered by the
provider) is reported as not checked, and :func:`evaluate` fails on it unless the test renders it
(``rendered=``) or says it expects it (``unchecked=``): a test that saw no workload cannot pass as clean.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import glob
import hashlib
import importlib.metadata
import json
import os
import re
import runpy
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import yaml
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import mocks, settings
from pulumi.runtime.proto import resource_pb2
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from compute_guard.policies import Policy
from compute_guard.policies.adapters.baseline import _backend_url, _local_backend_root, decompressed, local_checkpoint
from compute_guard.policies.adapters.stacks import STACKS
from compute_guard.policies.adapters.stacks import named as named_stacks
from compute_guard.policies.model.values import public
from compute_guard.policies.platforms.platform import NOT_KNOWN

from . import bridged, components, invokes, secrets
from . import outputs as outputs_of
from .analyzer import Analyzer, PolicyResult, PolicyViolation, Resource, Unchecked, seen_pools, stack_environment
from .manifests import child_name, flatten, objects, objects_of_text

STACK_TYPE = "pulumi:pulumi:Stack"
STACK_REFERENCE = "pulumi:pulumi:StackReference"
HELM_V3_CHART = "kubernetes:helm.sh/v3:Chart"
HELM_TEMPLATE = "kubernetes:helm:template"  # the invoke a Helm v3 Chart renders itself with, in the program
CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
# Resources whose children the Kubernetes provider renders (Helm, kustomize): not visible under mocks.
RENDERED_BY_THE_PROVIDER = {
    "kubernetes:helm.sh/v4:Chart": "a Helm chart", "kubernetes:helm.sh/v3:Chart": "a Helm chart",
    "kubernetes:kustomize/v2:Directory": "a kustomization", "kubernetes:kustomize:Directory": "a kustomization",
}
# The Kubernetes provider's components the test kit expands itself (their manifests), or says it cannot (_children).
EXPANDED_HERE = frozenset({CONFIG_GROUP, CONFIG_FILE, *RENDERED_BY_THE_PROVIDER})
_UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's unknown value, as the SDK serializes it
UNKNOWN_ID = _UNKNOWN  # a resource's "id" output a preview does not know yet
_SECRET_SIG = "4dabf18193072939515e22adb298388d"


class _Mocks(pulumi.runtime.Mocks):
    """Custom resources come back with their inputs as outputs, as pulumi-kubernetes does; the provider's
    ``kubernetes:yaml:decode`` (yaml v1's ConfigFile and ConfigGroup) parses as the provider would; an invoke is
    answered by the test's own mocks, else by the test kit's answers to the common ones (invokes.py)."""

    def __init__(self, config: Mapping[str, Any] | None = None, mocks: pulumi.runtime.Mocks | None = None,
                 rendered: Mapping[str, list[Path]] | None = None) -> None:
        self.config = dict(config or {})
        self.mocks = mocks
        self.preview = True  # capture's: a deployed cluster's credentials are known, a previewed new one's are not
        self.rendered = dict(rendered or {})  # a Chart's name -> its rendered manifests (evaluate's rendered=)
        self.rendered_used: set[str] = set()
        self.unanswered: list[str] = []  # the invokes nobody answered, in order (a program error names them)
        self.stacks: dict[str, dict[str, Any]] = {}  # evaluate's stacks=: a stack's name -> its outputs, as exported
        self.references: list[str] = []  # the stacks the program's StackReferences name
        self.otherwise: dict[str, Any] = {}  # the outputs a StackReference to a stack not in stacks reads
        self.unread: list[str] = []  # the stacks its StackReferences name that the test kit could not read

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if args.typ == STACK_REFERENCE:  # a read of another stack (SPEC 18): its outputs, as the engine answers them
            name = args.inputs.get("name") or args.resource_id or args.name
            if name not in self.references:
                self.references.append(name)
            if name not in self.stacks and not self.otherwise and name not in self.unread:
                self.unread.append(name)
            outputs = self.stacks.get(name, self.otherwise)
            plain = {key: value.get("plaintext", _UNKNOWN) if _secret(value) else value
                     for key, value in outputs.items()}
            plain = {key: json.loads(value) if _secret(outputs[key]) and isinstance(value, str) and value != _UNKNOWN
                     else value for key, value in plain.items()}
            return name, {"name": name, "outputs": plain,
                          "secretOutputNames": sorted(key for key, value in outputs.items() if _secret(value))}
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> Any:
        """The invoke's result: a dict (the SDK's mocks take a (result, failures) pair only with a list of
        failures: (result, None) fails in the SDK with "'NoneType' object is not iterable")."""
        if self.mocks is not None:
            theirs = self.mocks.call(args)
            if isinstance(theirs, tuple):
                return theirs if theirs[1] is not None else theirs[0]
            if theirs is not None:
                return dict(theirs)
        if args.token == "kubernetes:yaml:decode" and isinstance(args.args.get("text"), str):
            return {"result": list(objects_of_text(args.args["text"]))}
        if args.token == HELM_TEMPLATE:
            return self._helm_template(args.args)
        found = invokes.answer(args.token, args.args, self.config, self.preview)
        if found is None:
            if args.token not in self.unanswered:
                self.unanswered.append(args.token)
            return {}
        return found


    def _helm_template(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """A Helm v3 Chart's rendering (the provider runs ``helm template``): its rendered manifests, given as
        ``rendered=`` under its release name; nothing else (the chart stays not checked)."""
        try:
            options = json.loads(args.get("jsonOpts") or "{}")
        except (TypeError, ValueError):
            return {}
        release = options.get("release_name") if isinstance(options, dict) else None
        if not isinstance(release, str) or release not in self.rendered:
            return {}
        self.rendered_used.add(release)
        return {"result": [obj for path in self.rendered[release] for obj in objects(path)]}


class TestKitError(Exception):
    """The test kit itself failed while running the program: a bug of compute-guard's test kit, not the program's
    (``error``: what it raised, with its own traceback)."""

    def __init__(self, message: str, error: BaseException) -> None:
        super().__init__(message)
        self.error = error


class ProgramTimeout(Exception):
    """The program did not finish within the time the test allows (``evaluate(..., timeout=...)``)."""


class ProgramError(Exception):
    """The program under test raised: its own traceback, the test kit's frames and the SDK's cut (``error``: what it
    raised)."""

    def __init__(self, message: str, error: BaseException) -> None:
        super().__init__(message)
        self.error = error


_OURS = (str(Path(__file__).resolve().parent), str(Path(pulumi.__file__).resolve().parent),
         str(Path(runpy.__file__).resolve().parent))


def _program_traceback(error: BaseException, directory: Path | None) -> str:
    """The traceback of an error raised in the program, as if it had run alone: the program's frames (and the
    libraries it called), not the test kit's nor the Pulumi SDK's runtime around them."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if (directory is not None and frame.filename.startswith(str(directory)))
              or not (frame.filename.startswith("<frozen") or any(frame.filename.startswith(ours) for ours in _OURS))]
    where = f" ({directory})" if directory is not None else ""
    lines = ["the program failed" + where + "; its traceback:\n", *traceback.format_list(frames),
             *traceback.format_exception_only(type(error), error)]
    return "".join(lines).rstrip()


@dataclass
class Captured:
    """What a program registered, children the test kit expanded included, and what it could not see."""

    resources: list[Resource] = field(default_factory=list)
    unchecked: list[Unchecked] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)  # its stack outputs (pulumi.export), as a state writes them
    references: list[str] = field(default_factory=list)  # the stacks its StackReferences name (SPEC 18)
    # the stack resource, with its outputs as the engine sends them to a pack (unknowns and secrets as the SDK marks
    # them): Analyze and AnalyzeStack see it as they see every resource
    stack: Resource | None = None


class _CapturingMonitor(mocks.MockMonitor):
    """The mock monitor, keeping the serialized inputs and outputs of every registration."""

    def __init__(self, project: str, stack: str, rendered: Mapping[str, list[Path]], directory: Path,
                 answers: _Mocks, preview: bool = True, previous: Mapping[str, dict[str, Any]] | None = None) -> None:
        super().__init__(answers)  # the monitor answers invokes: with the stack's config and the test's own mocks
        self.previous = dict(previous or {})  # the previous deployment's resources, by URN (an update preview)
        self.captured: dict[str, Resource] = {}
        self.order: list[str | None] = []
        self.defaults: list[str] = []  # the engine's default providers, registered before what uses them
        self.unchecked: list[Unchecked] = []
        self.project, self.stack, self.rendered = project, stack, rendered
        self.directory = directory  # where the program runs: its relative file names resolve there
        self.rendered_used: set[str] = set()
        self.preview = preview
        self.built: dict[str, components.Built] = {}  # remote components, by URN
        self.answers: dict[str, tuple[str, struct_pb2.Struct, struct_pb2.Struct | None, struct_pb2.Struct]] = {}
        self.ids: dict[str, str] = {}
        self.failures: list[tuple[str, BaseException]] = []  # the test kit's own errors, not the program's
        self._lock = threading.Lock()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """The URN as the engine makes it (pkg/resource/urn.go NewURN): the parent's whole qualified type chain
        before the type, none for a child of the stack. The SDK's mocks put the last parent's type only, and
        ``pulumi:pulumi:Stack$`` before every top-level type, so a URN from a real preview (a ``pulumi stack
        export``, a ``urn:`` exemption) matched nothing here."""
        qualified = parent.split("::")[2] if parent.count("::") >= 3 else ""
        if qualified and qualified != STACK_TYPE:
            type_ = f"{qualified}${type_}"
        return f"urn:pulumi:{self.stack}::{self.project}::{type_}::{name}"

    def RegisterResource(self, request: Any) -> Any:
        if request.type == STACK_TYPE:
            return super().RegisterResource(request)
        try:
            return self._register(request)
        except components.ComponentError:  # the component's own code refuses it: the program fails, as it would
            raise
        except Exception as error:  # the test kit's own failure: said as such (capture raises TestKitError)
            with self._lock:
                self.failures.append((f"registering {request.type} '{request.name}'", error))
            raise

    def _register(self, request: Any) -> Any:
        """One registration, answered as the engine answers it, without the SDK's mock deserializing it in this
        thread (a resource reference in the inputs, pulumi-eks's ``cluster=``, built a resource on this thread's
        own event loop, which the program's loop then awaited: "attached to a different loop", in about half the
        runs and on every second evaluate)."""
        # The SDK registers from several threads: a resource's place is when its registration
        # reached the monitor (as the engine sees it), not when the answer came back.
        with self._lock:
            slot = len(self.order)
            self.order.append(None)
        urn = self.make_urn(request.parent, request.type, request.name)
        inputs = struct_pb2.Struct()
        inputs.CopyFrom(request.object)
        provider = self._provider_of(request)
        resource_id = ""
        outputs = struct_pb2.Struct()
        state_inputs: struct_pb2.Struct | None = None
        built: components.Built | None = None
        if request.remote and request.type not in EXPANDED_HERE:
            built = self._construct(request, urn)
            if built is not None:
                outputs.update(built.outputs)
        elif request.custom and self.preview and self._unconfigured(provider):
            # the engine's own: a provider whose configuration holds a value not known yet (a first preview's kubeconfig
            # built from its cluster's outputs) is not configured, so its resources are neither checked nor planned:
            # Check hands back the program's inputs, a create's preview an empty bag, which the SDK reads as every
            # output not known yet (pulumi sdk/go/common/resource/plugin/provider_plugin.go, Configure, Check, Create)
            pass
        elif request.custom:
            resource_id, inputs, state_inputs, outputs = self._custom(request, urn, inputs)
        if request.custom and request.type.startswith("pulumi:providers:"):
            # an explicit provider, as the engine keeps its inputs: with the plugin's version its SDK asks for, and
            # its __internal settings in the state (sent to Remediate only)
            if request.version and "version" not in inputs.fields:
                inputs.update({"version": request.version})
            state_inputs = struct_pb2.Struct()
            state_inputs.update({**json_format.MessageToDict(inputs), "__internal": {}})
        self.captured[urn] = Resource(
            request.type, request.name, urn, inputs, outputs if (request.custom or built) else struct_pb2.Struct(),
            request.parent, provider, tuple(request.dependencies),
            {key: tuple(value.urns) for key, value in request.propertyDependencies.items()},
            request.deleteBeforeReplace if request.deleteBeforeReplaceDefined else None,
            state_inputs, bool(request.protect), tuple(request.ignoreChanges), tuple(request.additionalSecretOutputs),
            self._aliases(request, urn),
            (_seconds(request.customTimeouts.create), _seconds(request.customTimeouts.update),
             _seconds(request.customTimeouts.delete), _seconds(request.customTimeouts.read)))
        self.ids[urn] = resource_id
        self.order[slot] = urn
        children = self._children(request, urn) if built is None else self._built_children(request, urn, built)
        with self._lock:
            for child in children:
                self.captured[child.urn] = child if child.provider else dataclasses.replace(child, provider=provider)
                self.order.append(child.urn)
        return resource_pb2.RegisterResourceResponse(urn=urn, id=resource_id, object=outputs)

    def _unconfigured(self, provider: str) -> bool:
        """The provider's configuration holds a value not known yet (its inputs, but its version): the engine leaves
        it unconfigured (provider_plugin.go's Configure)."""
        found = self.captured.get(provider) if provider else None
        return found is not None and any(key != "version" and _holds_unknown(value) for key, value in
                                         json_format.MessageToDict(found.inputs).items())

    def _custom(self, request: Any, urn: str, inputs: struct_pb2.Struct
                ) -> tuple[str, struct_pb2.Struct, struct_pb2.Struct | None, struct_pb2.Struct]:
        """A custom resource as its provider answers the engine: its ID, the inputs its Check returns (what Analyze
        receives, and the same with its internal keys as the state keeps them: None when it adds none), and its
        outputs. A resource of the previous deployment (an update preview) that does not change has its deployed ID
        and outputs; one updated in place, its deployed outputs with what the program sets now; a new or replaced
        one, what a preview knows of it (bridged.py)."""
        return self._answer(request.type, request.name, urn, inputs, tuple(request.ignoreChanges),
                            tuple(request.replaceOnChanges))

    def _answer(self, type_: str, name: str, urn: str, inputs: struct_pb2.Struct, ignore: tuple[str, ...] = (),
                replace_on: tuple[str, ...] = ()) -> tuple[str, struct_pb2.Struct, struct_pb2.Struct | None,
                                                          struct_pb2.Struct]:
        """:meth:`_custom` for a resource the program or a component registers (its type, name, URN, inputs,
        ignoreChanges and replaceOnChanges)."""
        plain = json_format.MessageToDict(inputs)
        old = self.previous.get(urn)
        old_inputs = old.get("inputs") if isinstance(old, dict) and isinstance(old.get("inputs"), dict) else None
        old_outputs = old.get("outputs") if isinstance(old, dict) and isinstance(old.get("outputs"), dict) else None
        old_id = old.get("id") if isinstance(old, dict) and isinstance(old.get("id"), str) else None
        if old_inputs is not None and ignore:
            plain = _ignored(plain, old_inputs, ignore)
            inputs = struct_pb2.Struct()
            inputs.update(plain)
        checked = bridged.check(type_, plain, urn, name, old_inputs)
        if checked is not None:
            verdict = bridged.change(type_, checked, old_inputs, old_outputs) if old_inputs is not None else None
            if verdict == bridged.UPDATE and replace_on and old_inputs is not None and _replaces_on(
                    replace_on, bridged.changed_paths(type_, checked, old_inputs, old_outputs)):
                verdict = bridged.REPLACE  # the option makes the engine replace what its provider updates in place
            if verdict == bridged.REPLACE:  # checked again without the old inputs, as the engine does: a new auto-name
                checked = bridged.check(type_, plain, urn, name, old_inputs, replacing=True) or checked
            if not self.preview:
                given, resource_id = outputs_of.deployed(type_, bridged.deployed(type_, checked), name), \
                    old_id or f"{name}-id"
            elif verdict == bridged.SAME and old_outputs is not None:
                given, resource_id = _without_internal(old_outputs), old_id or ""
            elif verdict == bridged.UPDATE and old_outputs is not None:
                given, resource_id = bridged.planned(type_, checked, _without_internal(old_outputs)), old_id or ""
            else:
                given, resource_id = bridged.planned(type_, checked), ""
            given.pop("id", None)
            analyzed, kept = struct_pb2.Struct(), struct_pb2.Struct()
            analyzed.update({key: value for key, value in checked.items() if not key.startswith("__")})
            kept.update(checked)
            outputs = struct_pb2.Struct()
            outputs.update({**outputs_of.shaped_outputs(type_, given), "id": resource_id or UNKNOWN_ID})
            return resource_id, analyzed, kept, outputs
        named = outputs_of.auto_named(type_, urn, name, plain)
        named, create_first = outputs_of.azure_named(type_, urn, name, named)
        state: struct_pb2.Struct | None = None
        if named is not plain:
            inputs = struct_pb2.Struct()
            inputs.update(named)
        if create_first:  # kept in the state's inputs only: an internal key the engine never sends Analyze
            state = struct_pb2.Struct()
            state.update({**named, "__createBeforeDelete": True})
        if self.preview and old_outputs is not None:
            # unchanged since the previous deployment: what it deployed; changed, taken as updated in place (the
            # test kit knows which inputs replace only the bridged resources it knows): its deployed outputs with
            # what the program sets now
            given = _without_internal(old_outputs) if _same_inputs(named, old_inputs) else \
                {**_without_internal(old_outputs), **named}
            outputs = struct_pb2.Struct()
            outputs.update(outputs_of.shaped_outputs(type_, given))
            return old_id or f"{name}-id", inputs, state, outputs
        given = named if self.preview else outputs_of.deployed(type_, named, name)
        shaped = outputs_of.shaped_outputs(type_, given)
        if shaped == named:  # the provider echoes its inputs: one object, as Driver.remediate expects
            return f"{name}-id", inputs, state, inputs
        outputs = struct_pb2.Struct()
        outputs.update(shaped)
        return f"{name}-id", inputs, state, outputs

    def _aliases(self, request: Any, urn: str) -> tuple[str, ...]:
        """The alias the engine gives a resource (its state's Aliases, which Analyze's options carry): the URN of its
        aliases under which the previous deployment holds it, when it does not hold it under its own URN
        (pkg/resource/deploy/step_generator.go getOldResource); none otherwise. An alias is a URN, or a spec whose
        missing parts are the resource's own (resource.Alias.GetURN)."""
        if not self.previous or urn in self.previous:
            return ()
        found: list[str] = [str(alias) for alias in request.aliasURNs]
        for alias in request.aliases:
            if alias.urn:
                found.append(alias.urn)
                continue
            spec = alias.spec
            parent = "" if spec.noParent else (spec.parentUrn or request.parent)
            qualified = parent.split("::")[2] if parent.count("::") >= 3 else ""
            kind = spec.type or request.type
            if qualified and qualified != STACK_TYPE:
                kind = f"{qualified}${kind}"
            found.append(f"urn:pulumi:{spec.stack or self.stack}::{spec.project or self.project}::{kind}::"
                         f"{spec.name or request.name}")
        return next(((alias,) for alias in found if alias in self.previous), ())

    def _construct(self, request: Any, urn: str) -> components.Built | None:
        """A remote component, as its provider's Construct would build it; one the test kit cannot build is listed
        as not checked (awsx's networking components are said, not refused: they declare no pool or workload)."""
        builder = components.BUILDERS.get(request.type)
        construct = components.Construct(
            request.type, request.name, urn, json_format.MessageToDict(request.object),
            {key: tuple(value.urns) for key, value in request.propertyDependencies.items()},
            self.preview, self.built.get, lambda child: json_format.MessageToDict(self._child_answer(child)[3]),
            self._registered_outputs, self._deployed_outputs)
        if builder is None:
            package = request.type.split(":", 1)[0]
            what = components.NO_COMPUTE.get(request.type)
            reason = (f"a component of the '{package}' component provider, which builds its children and does not "
                      "run under the test kit's mocks")
            self._unseen(request, urn, reason + (f" ({what}: no pool or workload)" if what else ""),
                         refuse=what is None)
            answers = components.OUTPUTS_ONLY.get(request.type)
            return None if answers is None else components.Built([], answers(construct))
        built = builder(construct)
        self.built[urn] = built
        return built

    def _built_children(self, request: Any, urn: str, built: components.Built) -> list[Resource]:
        """A component's children as its provider registers them: each on the default provider of its package (or
        the one the component was given for it), with the dependencies the provider's SDK records."""
        children = []
        for child in built.children:
            child_urn = child.urn or self.make_urn(urn, child.type, child.name)
            depends = {key: urns for key, urns in child.depends.items() if urns}
            everything = tuple(dict.fromkeys(u for urns in depends.values() for u in urns))
            if not child.custom:  # a component of the component (pulumi-eks's ServiceRole): its inputs, no outputs
                struct = struct_pb2.Struct()
                struct.update(child.inputs)
                children.append(Resource(child.type, child.name, child_urn, struct, struct_pb2.Struct(),
                                         child.parent or urn, "", everything, depends))
                continue
            resource_id, inputs, state_inputs, outputs = self._child_answer(dataclasses.replace(child, urn=child_urn))
            children.append(Resource(child.type, child.name, child_urn, inputs, outputs, child.parent or urn,
                                     self._child_provider(request, child), everything, depends,
                                     state_inputs=state_inputs))
            self.ids[child_urn] = resource_id
        return children

    def _child_provider(self, request: Any, child: components.Child) -> str:
        """A component's child's provider: the one the component was given for its package, else the default one."""
        package = child.type.split(":", 1)[0]
        given = request.providers.get(package) if hasattr(request, "providers") else None
        return str(given).rsplit("::", 1)[0] if given else self.default_provider(package, _version(package))

    def _child_answer(self, child: components.Child
                      ) -> tuple[str, struct_pb2.Struct, struct_pb2.Struct | None, struct_pb2.Struct]:
        """A component's custom child as its provider answers the engine (:meth:`_answer`), once per URN: what the
        builder reads of its outputs and what the policies receive are one answer."""
        if child.urn not in self.answers:
            struct = struct_pb2.Struct()
            struct.update(child.inputs)
            self.answers[child.urn] = self._answer(child.type, child.name, child.urn, struct)
        return self.answers[child.urn]

    def _registered_outputs(self, urn: str) -> dict[str, Any] | None:
        found = self.captured.get(urn)
        return json_format.MessageToDict(found.outputs) if found is not None else None

    def _deployed_outputs(self, urn: str) -> dict[str, Any] | None:
        old = self.previous.get(urn)
        return _without_internal(old["outputs"]) if isinstance(old, dict) and isinstance(old.get("outputs"), dict) \
            else None

    def Invoke(self, request: Any) -> Any:
        """``pulumi:pulumi:getResource`` (the SDK rehydrating a resource reference, such as a component's
        ``eksCluster`` output) answered from what was registered; every other invoke by the mocks."""
        if request.tok == "pulumi:pulumi:getResource":
            wanted = json_format.MessageToDict(request.args).get("urn")
            found = self.captured.get(wanted) if isinstance(wanted, str) else None
            if found is None:
                return super().Invoke(request)
            answer = struct_pb2.Struct()
            answer.update({"urn": found.urn, "id": self.ids.get(found.urn, ""),
                           "state": json_format.MessageToDict(found.outputs)})
            return resource_pb2.ResourceInvokeResponse(**{"return": answer})
        return super().Invoke(request)

    def _provider_of(self, request: Any) -> str:
        """The URN of a custom resource's provider: the one the program gave (a reference, URN::id), or the
        engine's default provider of its package and version, registered here as the engine registers it."""
        if not request.custom or request.type.startswith("pulumi:providers:"):
            return ""
        if request.provider:
            return str(request.provider).rsplit("::", 1)[0]
        return self.default_provider(request.type.split(":", 1)[0], request.version)

    def default_provider(self, package: str, version: str) -> str:
        """The engine's default provider of a package and version, registered as the engine registers it: its inputs
        are the stack config of its package (``gcp:zone`` is the default GCP provider's ``zone``)."""
        name = f"default_{(version or 'unknown').replace('.', '_')}"
        token = f"pulumi:providers:{package}"
        urn = f"urn:pulumi:{self.stack}::{self.project}::{token}::{name}"
        with self._lock:
            if urn not in self.captured:
                empty = struct_pb2.Struct()
                config = getattr(self.mocks, "config", {})
                empty.update({**{key.split(":", 1)[1]: value for key, value in config.items()
                                 if key.startswith(f"{package}:") and isinstance(value, str)},
                              **({"version": version} if version else {})})
                internal = struct_pb2.Struct()  # as the engine keeps a provider's inputs: its __internal settings
                internal.update({**json_format.MessageToDict(empty), "__internal": {}})
                self.captured[urn] = Resource(token, name, urn, empty, empty, state_inputs=internal)
                self.defaults.append(urn)
        return urn

    def _children(self, request: Any, urn: str) -> list[Resource]:
        """The children the Kubernetes provider would create for this registration, as far as it can be read."""
        kind = request.type
        if kind == HELM_V3_CHART and request.name in self.rendered:
            return []  # the SDK renders it from the kubernetes:helm:template invoke, which the mocks answer
        if request.name in self.rendered and (kind in RENDERED_BY_THE_PROVIDER or kind in (CONFIG_GROUP, CONFIG_FILE)):
            self.rendered_used.add(request.name)
            given = [obj for path in self.rendered[request.name] for obj in objects(path)]
            return self._named(given, request.name, urn)
        if kind in RENDERED_BY_THE_PROVIDER:
            self._unseen(request, urn, f"{RENDERED_BY_THE_PROVIDER[kind]}, rendered by the Kubernetes provider, "
                                       "which does not run under the test kit's mocks")
            return []
        if kind not in (CONFIG_GROUP, CONFIG_FILE):
            return []
        if request.transforms:
            self._unseen(request, urn, "its transforms run in the engine, on the provider's children")
            return []
        props = json_format.MessageToDict(request.object)
        if _hides(props):
            self._unseen(request, urn, "its manifests are secret or not known yet")
            return []
        found: list[dict[str, Any]] = []
        sources = [props.get("file")] if kind == CONFIG_FILE else props.get("files") or []
        for source in sources if isinstance(sources, list) else [sources]:
            paths = _paths(source, self.directory)
            if paths is None:
                self._unseen(request, urn, f"its file '{source}' is a URL or matches no file here")
                return []
            found += [obj for path in paths for obj in objects(path)]
        texts = props.get("yaml")
        for text in texts if isinstance(texts, list) else [texts] if isinstance(texts, str) else []:
            found += list(objects_of_text(text))
        objs = props.get("objs")
        found += list(flatten(objs if isinstance(objs, list) else []))
        prefix = props.get("resourcePrefix")
        return self._named(found, request.name if prefix is None else str(prefix), urn)

    def _named(self, found: list[dict[str, Any]], prefix: str, parent: str) -> list[Resource]:
        chain = parent.split("::")[2]  # urn:pulumi:<stack>::<project>::<type chain>::<name>
        children = []
        for index, obj in enumerate(found):
            group, _, version = obj["apiVersion"].rpartition("/")
            token = f"kubernetes:{group or 'core'}/{version}:{obj['kind']}"
            name = child_name(prefix, obj, index)
            struct = struct_pb2.Struct()
            struct.update(obj)
            children.append(Resource(token, name, f"urn:pulumi:{self.stack}::{self.project}::{chain}${token}::{name}",
                                     struct, struct, parent))
        return children

    def _unseen(self, request: Any, urn: str, reason: str, refuse: bool = True) -> None:
        with self._lock:
            self.unchecked.append(Unchecked(request.type, request.name, urn, reason, refused=refuse))

    def RegisterResourceOutputs(self, request: Any) -> Any:
        old = self.captured.get(request.urn)
        if old is not None:
            outputs = struct_pb2.Struct()
            outputs.CopyFrom(request.outputs)
            self.captured[request.urn] = dataclasses.replace(old, outputs=outputs)
        return super().RegisterResourceOutputs(request)


def _version(package: str) -> str:
    """The installed SDK's version of a package (pulumi-aws's, for pulumi-eks's children): the version its default
    provider is named by."""
    try:
        return importlib.metadata.version(f"pulumi_{package.replace('-', '_')}")
    except importlib.metadata.PackageNotFoundError:
        return ""


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def _seconds(duration: str) -> float:
    """A custom timeout as the SDK sends it (a Go duration: "5m", "1h30m") in seconds, as the engine passes it on
    (resource.CustomTimeouts); 0 when not set or not a duration."""
    if not duration or _DURATION.sub("", duration):
        return 0.0
    return sum(float(number) * _UNIT[unit] for number, unit in _DURATION.findall(duration))


def _deployed_id(resource: Resource) -> str:
    """A deployed resource's ID as a state writes it: its ``id`` output (a bridged provider's), else one made up the
    same way on every run (a provider's is a UUID)."""
    found = resource.outputs.fields.get("id")
    if found is not None and found.WhichOneof("kind") == "string_value" and found.string_value not in ("", _UNKNOWN):
        return found.string_value
    if resource.type.startswith("pulumi:providers:"):
        digest = hashlib.sha256(resource.urn.encode()).hexdigest()
        return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
    return f"{resource.name}-id"


def _without_internal(props: dict[str, Any]) -> dict[str, Any]:
    """A state's props without their top-level internal keys (``__defaults``, ``__pulumi_raw_state_delta``, ...), as
    the engine gives them to a program and a pack."""
    return {key: value for key, value in props.items() if not key.startswith("__")}


def _same_inputs(new: dict[str, Any], old: dict[str, Any] | None) -> bool:
    """Whether a resource's inputs are those of the previous deployment (its provider then has nothing to change)."""
    if old is None:
        return False
    return json.dumps(_whole(_without_internal(new)), sort_keys=True) == json.dumps(
        _whole(_without_internal(old)), sort_keys=True)


def _whole(value: Any) -> Any:
    """Numbers as JSON writes them (3.0, from the wire, as 3)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole(item) for item in value]
    return value


def _hides(value: Any) -> bool:
    """Whether a value holds an unknown or a secret somewhere (its children could not be named honestly)."""
    if isinstance(value, str):
        return value == _UNKNOWN
    if isinstance(value, dict):
        return _SECRET_SIG in value or any(_hides(item) for item in value.values())
    if isinstance(value, list):
        return any(_hides(item) for item in value)
    return False


def _paths(source: Any, directory: Path) -> list[Path] | None:
    """The files a ConfigGroup's ``files`` entry names (a path, a directory's YAML files or a glob), relative to
    the program's directory; None for a URL or a pattern that matches nothing (the provider would fail)."""
    if not isinstance(source, str) or "://" in source:
        return None
    pattern = str(directory / source)
    matches = sorted(glob.glob(pattern)) if glob.has_magic(source) else [pattern] if os.path.exists(pattern) else []
    paths = [path for match in matches for path in _yaml_files(Path(match))]
    return paths or None


def _yaml_files(path: Path) -> list[Path]:
    """A file, or a directory's YAML files (what renderYamlToDirectory writes), in name order."""
    return sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml")) if path.is_dir() else [path]


Program = Callable[[], Any]


def _as_callable(program: Program | str | Path) -> Program:
    if callable(program):
        return program
    path = Path(program).resolve()

    def run_directory() -> None:
        with _own_modules(path):
            runpy.run_path(str(path), run_name="__main__")

    return run_directory


@contextlib.contextmanager
def _own_modules(path: Path) -> Iterator[None]:
    """The program's own modules (``vpc.py`` beside its ``__main__.py``) imported afresh on every run, as the CLI's
    new process would: not a copy another program (or an earlier run of this one) left in ``sys.modules``, which
    would register nothing the second time; and left out of ``sys.modules`` after the run."""
    names = {entry.stem if entry.suffix == ".py" else entry.name for entry in path.iterdir()
             if (entry.suffix == ".py" and entry.stem != "__main__") or (entry / "__init__.py").is_file()}
    shadowed = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    before = set(sys.modules)
    sys.path.insert(0, str(path))
    try:
        yield
    finally:
        sys.path.remove(str(path))
        for name in set(sys.modules) - before:
            if _under(sys.modules[name], path):
                del sys.modules[name]
        sys.modules.update(shadowed)


def _under(module: Any, path: Path) -> bool:
    """A module of the program's own (a file of its directory), not a package installed in a virtual environment
    inside it (a project's .venv: its SDKs' modules must stay loaded, the SDK resolves their type hints through
    sys.modules while the registrations finish after the program's body has run)."""
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return False
    resolved = Path(file).resolve()
    return resolved.is_relative_to(path) and not {"site-packages", "dist-packages"} & set(
        resolved.relative_to(path).parts)


@contextlib.contextmanager
def _working_directory(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


TIMEOUT = 300.0  # seconds a program may run under the test kit (evaluate's timeout=): a hang is an error, not a wait


def capture(program: Program | str | Path, *, stack_config: Mapping[str, Any] | None = None, preview: bool = True,
            project: str = "project", stack: str = "stack",
            rendered: Mapping[str, Path | str | Iterable[Path | str]] | None = None,
            mocks: pulumi.runtime.Mocks | None = None, timeout: float = TIMEOUT,
            stacks: Mapping[str, Mapping[str, Any]] | None = None,
            otherwise: Mapping[str, Any] | None = None,
            previous: Mapping[str, dict[str, Any]] | None = None) -> Captured:
    """Run ``program`` (a function, or a Pulumi program directory) and return its resources, ConfigGroup and
    ConfigFile children included, and what it could not see. ``rendered`` maps a Chart's (or Directory's)
    name to its rendered manifests (files or directories, such as what ``renderYamlToDirectory`` wrote): they
    become its children, named as the provider names them. ``previous``: the previous deployment's resources by URN
    (:func:`previous_deployment`), which makes a preview an update preview. A program still running after ``timeout``
    seconds raises :class:`ProgramTimeout`; a failure of the test kit itself, :class:`TestKitError`."""
    directory = Path.cwd() if callable(program) else Path(program).resolve()
    files = {name: _manifest_files(paths) for name, paths in (rendered or {}).items()}
    answers = _Mocks(stack_config, mocks, files)
    answers.preview = preview
    answers.stacks = {name: dict(outputs) for name, outputs in (stacks or {}).items()}  # what its StackReferences read
    answers.otherwise = dict(otherwise or {})
    monitor = _CapturingMonitor(project, stack, files, directory, answers, preview, previous)
    settings.ROOT.set(None)
    pulumi.runtime.set_mocks(answers, project=project, stack=stack, preview=preview,
                             monitor=monitor)
    pulumi.runtime.set_all_config({k: v if isinstance(v, str) else json.dumps(v) if not isinstance(v, bool)
                                   else str(v).lower() for k, v in (stack_config or {}).items()})
    settings.SETTINGS.rpc_manager.clear()
    settings.SETTINGS.outputs.clear()
    run = _as_callable(program)
    exported: dict[str, Any] = {}
    with _working_directory(directory), _signal_handlers(), _exports(exported):  # the CLI runs it in its directory
        try:
            _sync_await(asyncio.wait_for(run_pulumi_func(lambda: run() and None), timeout))
        except TimeoutError:
            pending = [urn for urn in monitor.order if urn is None]
            raise ProgramTimeout(
                f"the program did not finish within {timeout:g} s under the test kit ({len(monitor.captured)} "
                f"resources registered, {len(pending)} registrations still waiting for an answer): a program that "
                "waits on something no mock answers (an invoke, a remote call) hangs; answer it with mocks=, or "
                "give a longer timeout=") from None
        except Exception as error:  # noqa: BLE001 - the program's own error, shown as its own
            if monitor.failures:
                raise _test_kit_error(monitor.failures) from None
            raise ProgramError(_program_traceback(error, directory if not callable(program) else None)
                               + _unrendered_hint(monitor) + _unanswered_hint(answers) + _unread_hint(answers),
                               error) from None
    if monitor.failures:
        raise _test_kit_error(monitor.failures)
    missing = sorted(set(rendered or {}) - monitor.rendered_used - answers.rendered_used)
    if missing:
        raise ValueError(f"rendered= names {', '.join(repr(name) for name in missing)}, which the program does not "
                         "declare as a Chart, Directory, ConfigGroup or ConfigFile")
    order = [*monitor.defaults, *(urn for urn in monitor.order if urn is not None)]
    outputs = {name: _sync_await(_as_state(value)) for name, value in exported.items()}
    sent = struct_pb2.Struct()
    sent.update({name: _sync_await(_as_sent(value)) for name, value in exported.items()})
    root = Resource(STACK_TYPE, f"{project}-{stack}", f"urn:pulumi:{stack}::{project}::{STACK_TYPE}::{project}-{stack}",
                    struct_pb2.Struct(), sent)
    return Captured([monitor.captured[urn] for urn in order], monitor.unchecked, outputs, list(answers.references),
                    root)


@contextlib.contextmanager
def _exports(exported: dict[str, Any]) -> Iterator[None]:
    """What the program exports (pulumi.export), kept: the test kit runs it without a stack resource, whose outputs
    they would be."""
    original = pulumi.export

    def export(name: str, value: Any) -> None:
        exported[name] = value
        original(name, value)

    pulumi.export = export  # type: ignore[assignment]
    try:
        yield
    finally:
        pulumi.export = original  # type: ignore[assignment]


async def _as_sent(value: Any) -> Any:
    """An export as the engine sends the stack's outputs to a pack: its value, a secret's marked secret, the engine's
    unknown where a preview does not know it."""
    output = pulumi.Output.from_input(value)
    known, secret, resolved = await output.is_known(), await output.is_secret(), await output.future()
    if not known:
        return _UNKNOWN
    plain = json.loads(json.dumps(resolved, default=str))
    return {components.SPECIAL: components.SECRET, "value": plain} if secret else plain


async def _as_state(value: Any) -> Any:
    """An export as a state writes it: its value; a secret's as `--show-secrets` writes one; None when not known."""
    output = pulumi.Output.from_input(value)
    known, secret, resolved = await output.is_known(), await output.is_secret(), await output.future()
    if not known:
        return None
    plain = json.loads(json.dumps(resolved, default=str))
    return {components.SPECIAL: components.SECRET, "plaintext": json.dumps(plain)} if secret else plain


def _as_stored(value: Any) -> Any:
    """A resource's values as `pulumi stack export --show-secrets` writes them: a secret the RPC form sends as
    ``{sig, value}`` is ``{sig, plaintext: <its JSON>}`` in a state (the pack read the RPC form as a secret it could
    not decrypt, and so could not tell which cluster a dependent's provider names); a whole number as 1, as the
    engine's state writes it (the wire's 1.0 hid a false "changes from 1 to 1"); a value the provider computes and
    the test kit cannot know (a nested one outputs.DEPLOYED does not give) is left out, as a state never holds an
    unknown (the pack read one as a changed inline node pool)."""
    if isinstance(value, list):
        return [_as_stored(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # as the engine's Go JSON writes a whole float64 (1, never 1.0)
    if not isinstance(value, dict):
        return value
    if _secret(value) and "value" in value:  # secret all through: a secret inside it is its value
        return {components.SPECIAL: components.SECRET, "plaintext": json.dumps(_revealed(value["value"]))}
    return {key: _as_stored(item) for key, item in value.items() if item != _UNKNOWN}


def _revealed(value: Any) -> Any:
    if isinstance(value, list):
        return [_revealed(item) for item in value]
    if not isinstance(value, dict):
        return value
    if _secret(value) and "value" in value:
        return _revealed(value["value"])
    return {key: _revealed(item) for key, item in value.items()}


def _secret(value: Any) -> bool:
    return isinstance(value, dict) and value.get(components.SPECIAL) == components.SECRET


def _stacks(given: Mapping[str, Path | str], scratch: Path, reads: Mapping[str, Any] | None = None,
            prefix: str = "stack") -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """evaluate's stacks= (and dependents=): each stack's export file (a program directory's written as deployed; a
    dependent's StackReferences read ``reads``, the outputs of the program it depends on) and its outputs."""
    files: dict[str, str] = {}
    outputs: dict[str, dict[str, Any]] = {}
    for index, (name, place) in enumerate(given.items()):
        path = Path(place)
        if path.is_dir():
            path = _export(path, scratch / f"{prefix}-{index}.json", otherwise=reads)
        files[name] = str(path.resolve())
        state = json.loads(path.read_text())
        deployment = state.get("deployment") or (state.get("checkpoint") or {}).get("latest") or {}
        root: dict[str, Any] = next((entry for entry in deployment.get("resources") or ()
                                     if entry.get("type") == STACK_TYPE), {})
        outputs[name] = dict(root.get("outputs") or {})
    return files, outputs


def previous_deployment(path: Path | str) -> dict[str, dict[str, Any]]:
    """A previous deployment's resources by URN, from a `pulumi stack export` file or a DIY checkpoint (plain, gzip or
    zstd), as the engine hands them to a program and its providers: a secret is its value, marked secret (exported
    with --show-secrets, or encrypted by a passphrase the environment gives: secrets.py); one the test kit cannot
    decrypt is not known."""
    document = json.loads(decompressed(Path(path).read_bytes()))
    state = document.get("deployment") if isinstance(document, dict) else None
    if state is None and isinstance(document, dict) and isinstance(document.get("checkpoint"), dict):
        state = document["checkpoint"].get("latest")
    if not isinstance(state, dict):
        return {}
    entries = _state_values(state.get("resources"), secrets.decrypter(state))
    return {entry["urn"]: entry for entry in entries or () if isinstance(entry, dict) and
            isinstance(entry.get("urn"), str) and not entry.get("delete")}


def _state_values(value: Any, opened: Callable[[str], str | None]) -> Any:
    """A state's values as a program reads them: each secret its value marked secret, or not known."""
    if isinstance(value, list):
        return [_state_values(item, opened) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get(components.SPECIAL) != _STATE_SECRET:
        return {key: _state_values(item, opened) for key, item in value.items()}
    text = value.get("plaintext")
    if not isinstance(text, str) and isinstance(value.get("ciphertext"), str):
        text = opened(value["ciphertext"])
    if not isinstance(text, str):
        return _UNKNOWN
    try:
        plain = json.loads(text)
    except ValueError:
        return _UNKNOWN
    return {components.SPECIAL: components.SECRET, "value": _state_values(plain, opened)}


_STATE_SECRET = "1b47061264138c4ac30d75fd1eb44270"  # a secret's signature in a state document


def first_preview_backend(project: str, stack: str) -> Path:
    """A local backend that holds the stack never deployed (its checkpoint as `pulumi stack init` writes it), for this
    process: the same path each time, so messages that name it do not change between evaluations."""
    digest = hashlib.sha256(f"{project}/{stack}".encode()).hexdigest()[:12]
    root = Path(tempfile.gettempdir()) / f"compute-guard-first-preview-{os.getpid()}-{digest}"
    checkpoint = root / ".pulumi" / "stacks" / project / f"{stack.rsplit('/', 1)[-1]}.json"
    if not checkpoint.is_file():
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        checkpoint.write_text(json.dumps(never_deployed(project, stack)))
    return root


def _ignored(inputs: dict[str, Any], old: dict[str, Any], paths: Iterable[str]) -> dict[str, Any]:
    """The program's inputs with the ignoreChanges option applied, as the engine applies it before Check to a resource
    its state holds (pulumi pkg/resource/deploy/step_generator.go, processIgnoreChanges): each path's value is the old
    inputs' where they hold one, else the path is removed. Dotted property paths; a path through a list is left to the
    program's value."""
    found = json.loads(json.dumps(inputs))
    for path in paths:
        keys = path.split(".")
        if any("[" in key for key in keys):
            continue
        before: Any = old
        for key in keys:
            before = before.get(key, _ABSENT) if isinstance(before, dict) else _ABSENT
        target: Any = found
        for key in keys[:-1]:
            target = target.setdefault(key, {}) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            continue
        if before is _ABSENT:
            target.pop(keys[-1], None)
        else:
            target[keys[-1]] = public(before)  # (as the program sent it: no internal key)
    return found


_ABSENT = object()


def _replaces_on(paths: Iterable[str], changed: Iterable[tuple[str, ...]]) -> bool:
    """Whether a ``replaceOnChanges`` path holds a changed one, as the engine matches them (pulumi
    pkg/resource/deploy/step_generator.go applyReplaceOnChanges: PropertyPath.Contains, a prefix, ``*`` any key)."""
    patterns = [tuple(part for part in re.split(r"\.|\[|\]", path) if part) for path in paths]
    return any(len(pattern) <= len(found) and all(part in ("*", key) for part, key in
                                                   zip(pattern, found[:len(pattern)], strict=True))
               for pattern in patterns for found in changed)


def _holds_unknown(value: Any) -> bool:
    """A value as the SDK serializes it holds the engine's unknown value somewhere."""
    if isinstance(value, dict):
        return any(_holds_unknown(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_unknown(item) for item in value)
    return value == _UNKNOWN


def never_deployed(project: str, stack: str) -> dict[str, Any]:
    """The checkpoint `pulumi stack init` writes in a local backend (pulumi v3.260.0): a stack with no resources."""
    return {"version": 3, "checkpoint": {"stack": f"organization/{project}/{stack.rsplit('/', 1)[-1]}", "latest": {
        "manifest": {"time": "2026-01-01T00:00:00Z", "magic": "", "version": "v3.260.0"}, "metadata": {}}}}


def _previous_path(deployed: Path | str | None, policy_config: Mapping[str, Any] | None, project: str,
                   stack: str) -> Path | None:
    """The previous deployment a preview is made against: ``deployed``, else a policy's configured ``baseline``, else
    the stack's checkpoint in the local (file://) backend the environment names, as the pack finds it (SPEC 5);
    None: a first preview."""
    if deployed is not None:
        return Path(deployed)
    for value in (policy_config or {}).values():
        if isinstance(value, Mapping) and isinstance(value.get("baseline"), str):
            path = Path(os.path.expanduser(value["baseline"]))
            return path if path.is_absolute() else Path.cwd() / path
    url = _backend_url()
    root = _local_backend_root(url) if url is not None else None
    return local_checkpoint(root, project, stack.rsplit("/", 1)[-1]) if root is not None else None


def _stack_outputs(previous: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """The stack outputs a previous deployment holds, as a StackReference reads them (secrets marked as a state
    writes them)."""
    root = next((entry for entry in previous.values() if entry.get("type") == STACK_TYPE), {})
    return {key: _as_written(value) for key, value in (root.get("outputs") or {}).items()}


def _as_written(value: Any) -> Any:
    """A value as a state writes it: a secret as its plaintext (what _Mocks reads)."""
    if isinstance(value, dict) and value.get(components.SPECIAL) == components.SECRET:
        return {components.SPECIAL: components.SECRET, "plaintext": json.dumps(value.get("value"))}
    return value


def _references_of(previous: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What the previous deployment's StackReferences read, by the stack they name: a deployed stack's references
    answer as they did."""
    found: dict[str, dict[str, Any]] = {}
    for entry in previous.values():
        if entry.get("type") != STACK_REFERENCE:
            continue
        name = (entry.get("inputs") or {}).get("name") or (entry.get("outputs") or {}).get("name")
        outputs = (entry.get("outputs") or {}).get("outputs")
        if isinstance(name, str) and isinstance(outputs, dict):
            found[name] = {key: _as_written(value) for key, value in outputs.items()}
    return found


def _local_stacks(config: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The outputs of the stacks compute:stacks names without a file, from the local (file://) backend the environment
    names, as the pack reads them."""
    url = _backend_url()
    root = _local_backend_root(url) if url is not None else None
    if root is None:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for name, file in named_stacks(config, STACKS)[0]:
        parts = name.split("/")
        checkpoint = local_checkpoint(root, parts[-2] if len(parts) >= 2 else "", parts[-1]) if not file and \
            name not in given else None
        if checkpoint is not None:
            found[name] = _stack_outputs(previous_deployment(checkpoint))
    return found


def _did_not_run(result: PolicyResult) -> list[PolicyViolation]:
    """A note per policy that did not run for want of a platform (the engine records not-applicable where no
    terminal shows it): a test that saw it cannot mistake it for a pass."""
    notes: dict[str, PolicyViolation] = {}
    for item in result.not_applicable:
        if item.reason.startswith(NOT_KNOWN) and item.policy not in notes:
            notes[item.policy] = PolicyViolation(item.policy, "advisory", f"policy '{item.policy}' did not run: "
                                                 f"{item.reason}", item.urn)
    return list(notes.values())


def _test_kit_error(failures: list[tuple[str, BaseException]]) -> TestKitError:
    what, error = failures[0]
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip()
    return TestKitError(f"compute-guard's test kit failed while {what} (a bug in the test kit, not in your program; "
                        f"please report it with this traceback):\n{text}", error)


def _unanswered_hint(answers: _Mocks) -> str:
    """A program error after an invoke nobody answered (it returned nothing, where the cloud would have answered):
    which, and how a test answers it."""
    if not answers.unanswered:
        return ""
    tokens = ", ".join(f"'{token}'" for token in answers.unanswered)
    first = answers.unanswered[0]
    return (f"\n(no provider runs under the test kit, and it answered no invoke {tokens}: each returned nothing. "
            "Answer it with evaluate(..., mocks=Answers()), where\n"
            "    class Answers(pulumi.runtime.Mocks):\n"
            "        def new_resource(self, args): return None, {}\n"
            f"        def call(self, args): return {{...}} if args.token == '{first}' else None\n"
            "returns its result, and None leaves an invoke to the test kit)")


def _unread_hint(answers: _Mocks) -> str:
    """A program error after a StackReference the test kit could not answer (its outputs were empty, where a real
    preview reads the referenced stack's deployed outputs): which, and how a test answers it."""
    if not answers.unread:
        return ""
    names = ", ".join(f"'{name}'" for name in answers.unread)
    first = answers.unread[0]
    return (f"\n(the test kit could not read the stack of StackReference {names}, so its outputs were empty: "
            f"give it with evaluate(..., stacks={{'{first}': <its `pulumi stack export` file or program "
            "directory>}), or name its export in the stack config compute:stacks "
            f"({{\"{first}\": \"<export file>\"}}), or keep its state in the local backend PULUMI_BACKEND_URL names)")


def _unrendered_hint(monitor: _CapturingMonitor) -> str:
    """A program error after a Helm v3 Chart rendered nothing (its get_resource finds no resource)."""
    charts = [item.name for item in monitor.unchecked if item.type == HELM_V3_CHART]
    if not charts:
        return ""
    return ("\n(the test kit rendered no manifests for Helm v3 Chart " + ", ".join(f"'{name}'" for name in charts)
            + ", so its get_resource(...) finds nothing: pass rendered={'<its name>': <its manifests>})")


@contextlib.contextmanager
def _signal_handlers() -> Iterator[None]:
    """A program may set its own SIGINT handler (the examples do, docs/troubleshooting.md): in its own process
    under the CLI; here it would outlive the program in the test's process, so the test's is put back."""
    before = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        if (threading.current_thread() is threading.main_thread() and before is not None
                and signal.getsignal(signal.SIGINT) is not before):
            signal.signal(signal.SIGINT, before)


def _manifest_files(paths: Path | str | Iterable[Path | str]) -> list[Path]:
    listed = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(path) for path in paths]
    return [file for path in listed for file in _yaml_files(path)]


def capture_program(program: Program | str | Path, *, stack_config: Mapping[str, Any] | None = None,
                    preview: bool = True, project: str | None = None, stack: str | None = None,
                    mocks: pulumi.runtime.Mocks | None = None, timeout: float = TIMEOUT) -> list[Resource]:
    """Run ``program`` (a function, or a Pulumi program directory, whose Pulumi.yaml and stack file give the project,
    stack and config as :func:`evaluate` reads them) and return its resources; ``mocks`` answers invokes as
    :func:`evaluate`'s does."""
    config: dict[str, Any] = {}
    if not callable(program):
        project, stack, config = project_files(Path(program), stack, project)
    config.update(stack_config or {})
    return capture(program, stack_config=config, preview=preview, project=project or "project",
                   stack=stack or "stack", mocks=mocks, timeout=timeout).resources


def export_program(program: Program | str | Path, path: str | Path, *, stack_config: Mapping[str, Any] | None = None,
                   project: str | None = None, stack: str | None = None,
                   mocks: pulumi.runtime.Mocks | None = None) -> Path:
    """Write ``program`` as deployed, in the shape ``pulumi stack export`` writes a stack's state (each resource's URN,
    ID, type, inputs as its provider's Check returned them, internal keys included, outputs after an update, its
    parent, provider reference, dependencies and property dependencies): a previous deployment for a test, without the
    CLI (pass it as ``evaluate(..., deployed=)``, or as a policy's ``baseline`` setting). What only the cloud fills in
    (a node group's AMI release, a cluster's endpoint where the test kit knows none) is null: a real `pulumi stack
    export` is exact."""
    return _export(program, path, stack_config=stack_config, project=project, stack=stack, mocks=mocks)


def _export(program: Program | str | Path, path: str | Path, *, stack_config: Mapping[str, Any] | None = None,
            project: str | None = None, stack: str | None = None, mocks: pulumi.runtime.Mocks | None = None,
            otherwise: Mapping[str, Any] | None = None) -> Path:
    config: dict[str, Any] = {}
    if not callable(program):
        project, stack, config = project_files(Path(program), stack, project)
    config.update(stack_config or {})
    project, stack = project or "project", stack or "stack"
    captured = capture(program, stack_config=config, preview=False, project=project, stack=stack, mocks=mocks,
                       otherwise=otherwise)
    resources = captured.resources
    entries: list[dict[str, Any]] = [{"urn": f"urn:pulumi:{stack}::{project}::{STACK_TYPE}::{project}-{stack}",
                                      "custom": False, "type": STACK_TYPE, "outputs": captured.outputs}]
    ids = {resource.urn: _deployed_id(resource) for resource in resources}
    for resource in resources:
        custom = bool(resource.provider) or resource.type.startswith("pulumi:providers:")
        entry: dict[str, Any] = {"urn": resource.urn, "custom": custom}
        if custom:
            entry["id"] = ids[resource.urn]
        entry.update({"type": resource.type,
                      "inputs": _as_stored(json_format.MessageToDict(resource.state_inputs or resource.inputs)),
                      "outputs": _as_stored(json_format.MessageToDict(resource.outputs))})
        if resource.parent:
            entry["parent"] = resource.parent
        if resource.dependencies:
            entry["dependencies"] = list(resource.dependencies)
        if resource.provider:  # a provider reference: its URN and its ID
            entry["provider"] = f"{resource.provider}::{ids.get(resource.provider, '')}"
        if resource.property_dependencies:
            entry["propertyDependencies"] = {key: list(urns) for key, urns in resource.property_dependencies.items()}
        entries.append(entry)
    target = Path(path)
    target.write_text(json.dumps({"version": 3, "deployment": {"manifest": {}, "resources": entries}}, indent=1))
    return target


# --- the program's own project and stack files ------------------------------------------------------------

def project_files(directory: Path, stack: str | None,
                  project: str | None = None) -> tuple[str | None, str | None, dict[str, Any]]:
    """(project name, stack name, stack config) as the CLI reads them from a program directory: ``name`` of
    Pulumi.yaml, its ``config:`` defaults, then Pulumi.<stack>.yaml's ``config:`` (the only stack file when
    ``stack`` is not given). Bare keys belong to the project (``<project>:<key>``); ``secure:`` values cannot
    be decrypted here and are left out (the program reads them as missing). ``project`` overrides the name."""
    document = _yaml(directory / "Pulumi.yaml")
    if not document:
        return project, stack, {}
    if project is None:
        project = document.get("name") if isinstance(document.get("name"), str) else None
    config: dict[str, Any] = {}
    defaults: dict[str, Any] = document["config"] if isinstance(document.get("config"), dict) else {}
    for key, value in defaults.items():
        value = value.get("default") if isinstance(value, dict) else value
        if value is not None:
            config[_key(key, project)] = value
    if stack is None:
        stacks = sorted(path.name[len("Pulumi."):-len(".yaml")] for path in directory.glob("Pulumi.*.yaml"))
        stack = stacks[0] if len(stacks) == 1 else None
    stack_document = _yaml(directory / f"Pulumi.{stack}.yaml") if stack else {}
    values: dict[str, Any] = stack_document["config"] if isinstance(stack_document.get("config"), dict) else {}
    for key, value in values.items():
        if not (isinstance(value, dict) and "secure" in value):
            config[_key(key, project)] = value
    return project, stack, config


def _key(key: str, project: str | None) -> str:
    return key if ":" in key or project is None else f"{project}:{key}"


def _yaml(path: Path) -> dict[str, Any]:
    try:
        document = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError):
        return {}
    return document if isinstance(document, dict) else {}


class NotChecked(AssertionError):
    """The program declares resources whose children no policy saw: a test must not pass them as clean."""


def evaluate(program: Program | str | Path, *, stack_config: Mapping[str, Any] | None = None,
             policy_config: Mapping[str, Any] | None = None, preview: bool = True, project: str | None = None,
             stack: str | None = None, pack: Iterable[Policy] | None = None,
             rendered: Mapping[str, Path | str | Iterable[Path | str]] | None = None,
             unchecked: Iterable[str] = (), mocks: pulumi.runtime.Mocks | None = None,
             timeout: float = TIMEOUT, stacks: Mapping[str, Path | str] | None = None,
             dependents: Mapping[str, Path | str] | None = None, deployed: Path | str | None = None) -> PolicyResult:
    """Every compute-guard policy on the program's resources, as ``pulumi preview`` would run them.

    ``stacks`` gives the other stacks the program reads through StackReferences (SPEC 18: an app stack on its
    platform stack's cluster): a stack's name (``org/project/stack``) to its ``pulumi stack export`` file, or to its
    program's directory, run as deployed (:func:`export_program`). The program's StackReferences read their outputs,
    and the pack reads their state as it would read them through ``compute:stacks``. ``dependents`` gives, the same
    way, the app stacks whose workloads run on this (platform) program's pools: a dependent's program directory is run
    as deployed with its StackReferences reading this program's outputs, and the pack judges this program's changes
    against their workloads as it would through ``compute:dependents``.

    ``deployed`` is the stack's previous deployment (a ``pulumi stack export`` file or a checkpoint): the preview is
    then an update preview, in which what the change does not touch has its deployed outputs, and the pack compares
    with it as with a local backend's checkpoint. Without it, a policy's configured ``baseline`` or the local backend's
    checkpoint of the stack (``PULUMI_BACKEND_URL``) is the previous deployment; with none, it is a first preview
    (docs/testing.md).

    A program directory's ``Pulumi.yaml`` gives the project's name and config defaults, and its
    ``Pulumi.<stack>.yaml`` the stack config; ``project``, ``stack`` and ``stack_config`` (merged over the
    files' config) override them. ``stack_config`` is the stack's configuration
    (``{"compute:platform": "kubernetes"}``); ``policy_config`` is what ``--policy-pack-config`` would hold
    (``{"policy-name": "advisory"}`` or ``{"policy-name": {"enforcementLevel": ..., "setting": ...}}``);
    ``pack`` is an organisation's own choice of the policies (``compute_guard.policies.choose(...)``), all by
    default.

    A ConfigGroup's or ConfigFile's manifests are expanded into the workloads the provider would create. A
    Helm chart or kustomization cannot be: give its rendered manifests as ``rendered={"<its name>": path}``,
    or name it in ``unchecked`` to accept that no policy sees its workloads; otherwise :class:`NotChecked` is
    raised. ``result.unchecked`` lists what was not checked either way, and ``result.pools`` every pool the
    policies read (its source, name, cluster, machines and size).

    Invokes are answered by ``mocks`` (a ``pulumi.runtime.Mocks`` whose ``call`` returns an invoke's result, or None
    to leave it to the test kit), else by the test kit's answers to the invokes cluster programs commonly call
    (compute_guard/testkit/invokes.py). An error in the program raises :class:`ProgramError` with the program's
    own traceback.
    """
    config: dict[str, Any] = {}
    if not callable(program):
        project, stack, config = project_files(Path(program), stack, project)
    project, stack = project or "project", stack or "stack"
    config.update(stack_config or {})
    found = _previous_path(deployed, policy_config, project, stack)
    try:
        previous = previous_deployment(found) if found is not None else {}
    except (OSError, ValueError):
        if deployed is not None:
            raise
        previous = {}  # a baseline setting the pack cannot read says nothing of what is deployed (the pack refuses it)
    with tempfile.TemporaryDirectory(prefix="compute-guard-stacks-") as scratch:
        backend: dict[str, str] = {}
        checkpoint = Path(scratch) / "backend" / ".pulumi" / "stacks" / project / f"{stack.rsplit('/', 1)[-1]}.json"
        if deployed is not None:  # the stack's checkpoint in a local backend, where the pack finds it (SPEC 5)
            checkpoint.parent.mkdir(parents=True)
            checkpoint.write_bytes(decompressed(Path(deployed).read_bytes()))
            backend["PULUMI_BACKEND_URL"] = f"file://{Path(scratch) / 'backend'}"
        elif found is None and _backend_url() is None:
            # a first preview: the stack as `pulumi stack init` leaves it in a local backend, never deployed (SPEC 5,
            # "new or deployed": every resource of it is created by this preview); one such backend per process and
            # stack, so that what the pack says of it is the same each time the program is evaluated
            root = first_preview_backend(project, stack)
            backend["PULUMI_BACKEND_URL"] = f"file://{root}"
        given = {**{name: file for name, file in named_stacks(config, STACKS)[0] if file}, **(stacks or {})}
        files, outputs = _stacks(given, Path(scratch))
        outputs = {**_references_of(previous), **_local_stacks(config, given), **outputs}
        captured = capture(program, stack_config=config, preview=preview, project=project, stack=stack,
                           rendered=rendered, mocks=mocks, timeout=timeout, stacks=outputs, previous=previous)
        named = {**{name: None for name in captured.references}, **files}
        pack_config = {**config, "compute:stacks": json.dumps(named)} if named and "compute:stacks" not in config \
            else config
        if dependents:
            # a dependent app stack was deployed against this stack's deployed outputs: the previous deployment's, else
            # this program's as deployed
            reads = _stack_outputs(previous) if previous else capture(
                program, stack_config=config, preview=False, project=project, stack=stack, rendered=rendered,
                mocks=mocks, timeout=timeout, stacks=outputs).outputs
            theirs, _outputs = _stacks(dependents, Path(scratch), reads, "dependent")
            pack_config = {"compute:dependents": json.dumps(theirs), **pack_config}
        with stack_environment(pack_config, project, stack, preview, backend):
            analyzer = Analyzer(policy_config, pack=pack)
            result = analyzer.run([*([captured.stack] if captured.stack is not None else []), *captured.resources])
    result.pools = seen_pools(analyzer.state.last_stack(), config.get("compute:platform"))
    result.notes.extend(_did_not_run(result))
    result.unchecked = list(captured.unchecked)
    accepted = set(unchecked)
    refused = [item for item in captured.unchecked if item.refused and item.name not in accepted]
    if refused:
        raise NotChecked("no policy saw the workloads of " + "; ".join(
            f"{item.type} '{item.name}' ({item.reason})" for item in refused)
            + ": render it and pass rendered={'<name>': <its manifests>}, or accept it with unchecked=['<name>']")
    return result
