"""The Go oracle (tests/oracle/main.go): kube-scheduler's Filter plugins and the controllers' arithmetic from
k8s.io/kubernetes itself, built by scripts/build-pulumi-cli (component "oracle"; scripts/test builds it before
pytest). :func:`ask` sends one request and returns its answer; a test that needs it fails where it is missing in
CI (CI=true) and is skipped elsewhere, saying how to build it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def binary() -> Path:
    built = subprocess.run([str(ROOT / "scripts" / "build-pulumi-cli"), "--built", "oracle"], capture_output=True,
                           text=True, check=False)
    if built.returncode != 0:
        why = "the Go oracle is not built (or tests/oracle changed since): run scripts/build-pulumi-cli oracle"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return Path(built.stdout.strip().splitlines()[-1]) / "compute-guard-oracle"


def ask(request: dict[str, Any]) -> dict[str, Any]:
    """One request to the oracle (its keys: filter, requests, disruption, rollout, eviction), its answer."""
    done = subprocess.run([str(binary())], input=json.dumps(request), capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def node(name: str, labels: dict[str, str], taints: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
         allocatable: dict[str, str] | None = None, unschedulable: bool = False) -> dict[str, Any]:
    """A Node object as the API server holds it."""
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
            "spec": {"unschedulable": unschedulable,
                     "taints": [{"key": key, "value": value, "effect": effect} for key, value, effect in taints]},
            "status": {"allocatable": allocatable or {"cpu": "64", "memory": "256Gi", "pods": "110"}}}


def pod(name: str, spec: dict[str, Any], labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A Pod object with this spec (a container is added when it has none)."""
    spec = {"containers": [{"name": "app", "image": "nginx"}], **spec}
    return {"metadata": {"name": name, "labels": labels or {"app": name}}, "spec": spec}
