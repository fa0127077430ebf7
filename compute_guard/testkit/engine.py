"""The pack started the way the Pulumi engine starts it, and driven over gRPC.

    with EnginePack(stack_config={"compute:platform": "kubernetes"}) as pack:
        result = pack.run(resources)

The engine runs ``python -u -m pulumi.policy <engine-address> <pack-dir>`` with the pack's own
interpreter, the pack directory as working directory and PULUMI_PROJECT / PULUMI_STACK /
PULUMI_DRY_RUN / PULUMI_CONFIG set; it reads the port the pack prints, then calls the Analyzer
service. So does this.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc
from google.protobuf import empty_pb2
from pulumi.runtime import proto
from pulumi.runtime.proto import analyzer_pb2_grpc

from .analyzer import ConfigError, _Driver

_CHECKOUT = Path(__file__).resolve().parents[2]
# compute-guard's own pack in a checkout of its repository; else the pack of the working directory
# (pass pack_dir= to start an organisation's pack from anywhere).
PACK_DIR = _CHECKOUT if (_CHECKOUT / "PulumiPolicy.yaml").is_file() else Path.cwd()


class EnginePack(_Driver):
    def __init__(self, stack_config: Mapping[str, Any] | None = None, policy_config: Mapping[str, Any] | None = None,
                 *, project: str = "project", stack: str = "stack", preview: bool = True,
                 python: str = sys.executable, pack_dir: Path = PACK_DIR, env: Mapping[str, str] | None = None):
        self.env = dict(os.environ, PULUMI_PROJECT=project, PULUMI_STACK=stack,
                        PULUMI_DRY_RUN="true" if preview else "false",
                        PULUMI_CONFIG=json.dumps({k: v if isinstance(v, str) else json.dumps(v)
                                                  for k, v in (stack_config or {}).items()}), **(env or {}))
        self.command = [python, "-u", "-m", "pulumi.policy", "127.0.0.1:0", str(pack_dir)]
        self.pack_dir = pack_dir
        self.policy_config = policy_config or {}
        self.process: subprocess.Popen[bytes] | None = None
        self._info: Any = None

    def __enter__(self) -> EnginePack:
        self.stderr = tempfile.TemporaryFile()  # a pipe nobody reads could fill up and stall the pack
        self.process = subprocess.Popen(self.command, cwd=self.pack_dir, env=self.env, stdout=subprocess.PIPE,
                                        stderr=self.stderr)
        try:
            self._connect()
        except BaseException:
            self.close()
            raise
        return self

    def _connect(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        line = self.process.stdout.readline().decode().strip()
        if not line.isdigit():
            self.process.wait(timeout=30)
            self.stderr.seek(0)
            raise RuntimeError(f"the pack did not print a port: {line!r}\n{self.stderr.read().decode()}")
        self.channel = grpc.insecure_channel(f"127.0.0.1:{line}",
                                             options=[("grpc.max_receive_message_length", 400 << 20),
                                                      ("grpc.max_send_message_length", 400 << 20)])
        grpc.channel_ready_future(self.channel).result(timeout=60)
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)
        self.stub.ConfigureStack(proto.AnalyzerStackConfigureRequest(
            stack=self.env["PULUMI_STACK"], project=self.env["PULUMI_PROJECT"],
            dry_run=self.env["PULUMI_DRY_RUN"] == "true", config=json.loads(self.env["PULUMI_CONFIG"])))
        self.configure(self.policy_config)

    def close(self) -> None:
        channel = getattr(self, "channel", None)
        if channel is not None:
            channel.close()
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            if self.process.stdout is not None:
                self.process.stdout.close()
            self.stderr.close()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def info(self) -> Any:
        if self._info is None:
            self._info = self.stub.GetAnalyzerInfo(empty_pb2.Empty())
        return self._info

    def _configure(self, request: Any) -> None:
        try:
            self.stub.Configure(request)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                raise
            raise ConfigError(f"the pack refuses its config: {error.details()}") from None

    def _analyze(self, request: Any) -> Any:
        return self.stub.Analyze(request)

    def _remediate(self, request: Any) -> Any:
        return self.stub.Remediate(request)

    def _analyze_stack(self, request: Any) -> Any:
        return self.stub.AnalyzeStack(request)
