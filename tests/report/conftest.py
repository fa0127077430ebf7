"""Inputs for the report's tests, shaped as `pulumi preview --json` and `pulumi stack export` write them
(tests/cli/test_report.py checks the same code on files the real CLI wrote)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from builders import ROOT
from google.protobuf import json_format

from compute_guard.testkit import Resource, capture_program

EXAMPLE = ROOT / "examples" / "kubernetes"


def preview_document(resources: list[Resource], config: Mapping[str, str]) -> dict[str, Any]:
    steps = [{"op": "create", "urn": "urn:pulumi:dev::example::pulumi:pulumi:Stack::example-dev",
              "newState": {"urn": "urn:pulumi:dev::example::pulumi:pulumi:Stack::example-dev",
                           "type": "pulumi:pulumi:Stack", "inputs": {}}}]
    steps += [{"op": "create", "urn": r.urn, "newState": {"urn": r.urn, "type": r.type, "custom": True,
                                                           "inputs": json_format.MessageToDict(r.inputs)}}
              for r in resources]
    return {"config": dict(config), "steps": steps, "diagnostics": [], "changeSummary": {"create": len(steps)}}


def export_document(resources: list[Resource]) -> dict[str, Any]:
    return {"version": 3, "deployment": {"manifest": {}, "resources": [
        {"urn": r.urn, "type": r.type, "custom": True, "inputs": json_format.MessageToDict(r.inputs),
         "outputs": json_format.MessageToDict(r.outputs)} for r in resources]}}


@pytest.fixture(scope="session")
def example() -> Callable[[str], list[Resource]]:
    """The bundled example's resources under mocks, per stack (dev, broken)."""
    cache: dict[str, list[Resource]] = {}

    def resources(stack: str) -> list[Resource]:
        if stack not in cache:
            config = {"compute:platform": "kubernetes", **({"compute-guard-example:demoMistakes": "true"}
                                                           if stack == "broken" else {})}
            cache[stack] = capture_program(EXAMPLE, stack_config=config, project="compute-guard-example",
                                           stack=stack)
        return cache[stack]

    return resources


@pytest.fixture
def write(tmp_path):
    def write(document: Any, name: str = "input.json") -> str:
        path = tmp_path / name
        path.write_text(json.dumps(document))
        return str(path)

    return write
