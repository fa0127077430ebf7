"""Run a Pulumi Python program under mocks and capture what its SDKs send to the engine."""

from __future__ import annotations

import runpy
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pulumi
from google.protobuf import struct_pb2
from pulumi.runtime import mocks, settings
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from compute_guard.policies import Policy

from .analyzer import Analyzer, PolicyResult, Resource, stack_environment


class _Mocks(pulumi.runtime.Mocks):
    """Custom resources come back with their inputs as outputs, as pulumi-kubernetes does."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return {}, None


class _CapturingMonitor(mocks.MockMonitor):
    """The mock monitor, keeping the serialized inputs and outputs of every registration."""

    def __init__(self) -> None:
        super().__init__(_Mocks())
        self.captured: dict[str, Resource] = {}
        self.order: list[str | None] = []
        self._lock = threading.Lock()

    def RegisterResource(self, request: Any) -> Any:
        # The SDK registers from several threads: a resource's place is when its registration
        # reached the monitor (as the engine sees it), not when the answer came back.
        with self._lock:
            slot = len(self.order)
            self.order.append(None)
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            inputs = struct_pb2.Struct()
            inputs.CopyFrom(request.object)
            outputs = inputs if request.custom else struct_pb2.Struct()
            self.captured[response.urn] = Resource(request.type, request.name, response.urn, inputs, outputs,
                                                   request.parent)
            self.order[slot] = response.urn
        return response

    def RegisterResourceOutputs(self, request: Any) -> Any:
        old = self.captured.get(request.urn)
        if old is not None:
            outputs = struct_pb2.Struct()
            outputs.CopyFrom(request.outputs)
            self.captured[request.urn] = Resource(old.type, old.name, old.urn, old.inputs, outputs, old.parent)
        return super().RegisterResourceOutputs(request)


Program = Callable[[], Any]


def _as_callable(program: Program | str | Path) -> Program:
    if callable(program):
        return program
    path = Path(program)

    def run_directory() -> None:
        sys.path.insert(0, str(path))
        try:
            runpy.run_path(str(path), run_name="__main__")
        finally:
            sys.path.remove(str(path))

    return run_directory


def capture_program(program: Program | str | Path, *, stack_config: Mapping[str, Any] | None = None,
                    preview: bool = True, project: str = "project", stack: str = "stack") -> list[Resource]:
    """Run ``program`` (a function, or a Pulumi program directory) and return its resources."""
    monitor = _CapturingMonitor()
    settings.ROOT.set(None)
    pulumi.runtime.set_mocks(_Mocks(), project=project, stack=stack, preview=preview, monitor=monitor)
    pulumi.runtime.set_all_config({k: v if isinstance(v, str) else str(v) for k, v in (stack_config or {}).items()})
    settings.SETTINGS.rpc_manager.clear()
    settings.SETTINGS.outputs.clear()
    run = _as_callable(program)
    _sync_await(run_pulumi_func(lambda: run() and None))
    return [monitor.captured[urn] for urn in monitor.order if urn is not None]


def evaluate(program: Program | str | Path, *, stack_config: Mapping[str, Any] | None = None,
             policy_config: Mapping[str, Any] | None = None, preview: bool = True, project: str = "project",
             stack: str = "stack", pack: Iterable[Policy] | None = None) -> PolicyResult:
    """Every compute-guard policy on the program's resources, as ``pulumi preview`` would run them.

    ``stack_config`` is the stack's configuration (``{"compute:platform": "kubernetes"}``);
    ``policy_config`` is what ``--policy-pack-config`` would hold (``{"policy-name": "advisory"}``
    or ``{"policy-name": {"enforcementLevel": ..., "setting": ...}}``); ``pack`` is an
    organisation's own choice of the policies (``compute_guard.policies.choose(...)``), all by default.
    """
    resources = capture_program(program, stack_config=stack_config, preview=preview, project=project,
                                stack=stack)
    with stack_environment(stack_config, project, stack, preview):
        return Analyzer(policy_config, pack=pack).run(resources)
