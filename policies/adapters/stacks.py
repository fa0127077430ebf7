"""Other stacks of the organisation (SPEC 18): the platform stacks whose clusters and pools an app stack's workloads
run on.

The engine tells a pack nothing of a StackReference (it sends no read resources, pulumi/pulumi#3950, and a
Kubernetes provider whose kubeconfig comes from ``StackReference.get_output`` reaches the pack with no dependency), so
the stacks are named: the stack config ``compute:stacks``, a JSON list of stack names (``org/project/stack``) or a
JSON object of stack name to a ``pulumi stack export`` file (absolute, or relative to the pack directory); and
discovered: the ``pulumi:pulumi:StackReference`` resources the stack's own previous deployment holds (baseline.py).

Each is read as the previous deployment is, once per pack process: its export file, else the local (file://)
backend's checkpoint of that stack, else ``pulumi stack export --stack <name>`` by the CLI that runs the preview, with
a time limit and without --show-secrets. Its resources become the model's (policies/model/stack.py), marked as that
stack's: read as facts, never reported on. What cannot be read is said once, with why.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ..model.resources import StackResource
from .baseline import (
    _backend_url,
    _describe,
    _local_backend_root,
    cli_export,
    decompressed,
    local_checkpoint,
    state_entries,
    without_secrets,
)

STACKS = "compute:stacks"  # the stack config that names them


@dataclass(frozen=True)
class Referenced:
    """A stack this one's workloads run on: its state's resources, or why it cannot be read."""

    name: str  # as it is named: org/project/stack
    resources: tuple[StackResource, ...] = ()
    error: str = ""  # why it cannot be read; "" when it was


def named(config: Mapping[str, Any]) -> tuple[list[tuple[str, str | None]], str]:
    """The stacks ``compute:stacks`` names, each with its export file (None: read from the backend), and why the
    setting cannot be read ("" when it can)."""
    raw = config.get(STACKS)
    if raw is None or raw == "":
        return [], ""
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        value = raw if isinstance(raw, str) and "/" in raw else None  # one name, written bare
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list) and all(isinstance(item, str) and item for item in value):
        return [(item, None) for item in value], ""
    if isinstance(value, dict) and all(isinstance(key, str) and key and isinstance(item, (str, type(None)))
                                       for key, item in value.items()):
        return list(value.items()), ""
    return [], (f"the stack config {STACKS} is not a JSON list of stack names (org/project/stack) nor an object of "
                "stack names to `pulumi stack export` files, so no other stack was read")


def read_stack(name: str, file: str | None) -> Referenced:
    """One stack's state: its export file, else its local backend checkpoint, else the CLI's export of it."""
    try:
        if file:
            path = Path(os.path.expanduser(file))
            if not path.is_absolute():
                path = Path.cwd() / path  # the engine starts the pack in its directory
            return Referenced(name, _resources(name, state_entries(decompressed(path.read_bytes()))))
        url = _backend_url()
        root = _local_backend_root(url) if url is not None else None
        if root is not None:
            parts = name.split("/")
            checkpoint = local_checkpoint(root, parts[-2] if len(parts) >= 2 else "", parts[-1])
            if checkpoint is None:
                return Referenced(name, error=f"the local backend ({root}) holds no checkpoint of it: it was never "
                                              "deployed there")
            return Referenced(name, _resources(name, state_entries(decompressed(checkpoint.read_bytes()))))
        exported = cli_export(name)
        if isinstance(exported, str):
            return Referenced(name, error=exported)
        return Referenced(name, _resources(name, state_entries(exported)))
    except Exception as error:  # noqa: BLE001 - whatever cannot be read is said, never raised
        where = f"its export '{file}'" if file else "its state"
        return Referenced(name, error=f"{where} cannot be read: {_describe(error)}")


def _resources(stack: str, entries: list[dict[str, Any]]) -> tuple[StackResource, ...]:
    """Its state's resources as the model reads a stack's (their outputs, else their inputs; a secret's value secret,
    an encrypted one not known), with the links the state records (parent, provider, dependencies)."""
    found = []
    for entry in entries:
        urn, kind = entry.get("urn"), entry.get("type")
        if not isinstance(urn, str) or not isinstance(kind, str):
            continue
        props = entry.get("outputs") or entry.get("inputs") or {}
        provider = entry.get("provider")
        links = SimpleNamespace(
            parent=entry.get("parent") if isinstance(entry.get("parent"), str) else None,
            # the state writes a provider reference as <urn>::<id>
            provider=provider.rsplit("::", 1)[0] if isinstance(provider, str) and provider.count("::") > 3 else None,
            dependencies=[urn for urn in entry.get("dependencies") or () if isinstance(urn, str)],
            property_dependencies={key: [urn for urn in urns if isinstance(urn, str)]
                                   for key, urns in (entry.get("propertyDependencies") or {}).items()
                                   if isinstance(urns, list)})
        found.append(StackResource(kind, urn, urn.rsplit("::", 1)[-1], without_secrets(props), links, stack))
    return tuple(found)
