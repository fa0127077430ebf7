"""Inputs for the report's tests, shaped as `pulumi preview --json` and `pulumi stack export` write them
(tests/cli/test_cli_report.py checks the same code on files the real CLI wrote)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf import json_format

from compute_guard.testkit import Resource


def preview_document(resources: list[Resource], config: Mapping[str, str]) -> dict[str, Any]:
    steps = [{"op": "create", "urn": "urn:pulumi:dev::example::pulumi:pulumi:Stack::example-dev",
              "newState": {"urn": "urn:pulumi:dev::example::pulumi:pulumi:Stack::example-dev",
                           "type": "pulumi:pulumi:Stack", "inputs": {}}}]
    steps += [{"op": "create", "urn": r.urn, "newState": {"urn": r.urn, "type": r.type, "custom": True,
                                                           "inputs": json_format.MessageToDict(r.inputs), **_links(r)}}
              for r in resources]
    return {"config": dict(config), "steps": steps, "diagnostics": [], "changeSummary": {"create": len(steps)}}


def _links(resource: Resource) -> dict[str, Any]:
    """What links a resource to the others, as a preview's steps and a state write it (its provider as <urn>::<id>)."""
    found: dict[str, Any] = {}
    if resource.provider:
        found["provider"] = f"{resource.provider}::04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    if resource.parent:
        found["parent"] = resource.parent
    if resource.dependencies:
        found["dependencies"] = list(resource.dependencies)
    if resource.property_dependencies:
        found["propertyDependencies"] = {key: list(urns) for key, urns in resource.property_dependencies.items()}
    return found


def export_document(resources: list[Resource]) -> dict[str, Any]:
    return {"version": 3, "deployment": {"manifest": {}, "resources": [
        {"urn": r.urn, "type": r.type, "custom": True, "inputs": json_format.MessageToDict(r.inputs),
         "outputs": json_format.MessageToDict(r.outputs)} for r in resources]}}
