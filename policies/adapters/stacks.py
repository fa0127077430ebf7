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
from typing import Any

from ..model.admission.runtime_class import RUNTIME_CLASS
from ..model.devices import DRA
from ..model.resources import StackResource
from ..model.sources import source_of
from ..model.stack import Stack
from ..model.workloads import BESIDE_WORKLOADS, HELM_RELEASE, workload_kind
from .baseline import (
    _backend_url,
    _describe,
    _local_backend_root,
    cli_export,
    decompressed,
    local_checkpoint,
    state_entries,
    state_resources,
)

STACKS = "compute:stacks"  # the stack config that names them
# the platform stack's config that names the app stacks whose workloads run on its pools ("and back")
DEPENDENTS = "compute:dependents"


@dataclass(frozen=True)
class Referenced:
    """A stack this one's workloads run on: its state's resources, or why it cannot be read."""

    name: str  # as it is named: org/project/stack
    resources: tuple[StackResource, ...] = ()
    error: str = ""  # why it cannot be read; "" when it was


@dataclass(frozen=True)
class View:
    """An app stack (compute:dependents) as a platform stack's preview judges it: its workloads on this stack's pools
    and beside its workloads and DaemonSets as the preview would leave them (``now``), and as they were deployed
    (``before``: None when the previous deployment cannot be read). In both this stack's resources are the foreign
    ones (model.pool.THIS_STACK)."""

    name: str
    now: Stack
    before: Stack | None


def named(config: Mapping[str, Any], key: str = STACKS) -> tuple[list[tuple[str, str | None]], str]:
    """The stacks ``compute:stacks`` (or ``compute:dependents``) names, each with its export file (None: read from the
    backend), and why the setting cannot be read ("" when it can)."""
    raw = config.get(key)
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
    return [], (f"the stack config {key} is not a JSON list of stack names (org/project/stack) nor an object of "
                "stack names to `pulumi stack export` files, so no other stack was read")


def _kept(kind: str) -> bool:
    """What the model reads of a platform stack: all but the Kubernetes objects that are neither workloads, pools,
    RuntimeClasses, Dynamic Resource Allocation objects nor Helm releases (a DRA driver's) (Services, ConfigMaps,
    budgets: nothing its pools or their links depend on)."""
    return not kind.startswith("kubernetes:") or workload_kind(kind) is not None or source_of(kind) is not None \
        or RUNTIME_CLASS.match(kind) is not None or DRA.match(kind) is not None or kind == HELM_RELEASE


def _kept_of_dependent(kind: str) -> bool:
    """What the model reads of a dependent app stack: a platform stack's, and its workloads' budgets and autoscalers
    (what a drain waits on, and what a control plane upgrade may stop serving)."""
    return _kept(kind) or kind.endswith(BESIDE_WORKLOADS)


def read_stack(name: str, file: str | None, dependent: bool = False) -> Referenced:
    """One stack's state: its export file, else its local backend checkpoint, else the CLI's export of it (a
    dependent app stack's with its budgets and autoscalers)."""
    kept = _kept_of_dependent if dependent else _kept
    try:
        if file:
            path = Path(os.path.expanduser(file))
            if not path.is_absolute():
                path = Path.cwd() / path  # the engine starts the pack in its directory
            return Referenced(name, state_resources(name, state_entries(decompressed(path.read_bytes()), kept)))
        url = _backend_url()
        root = _local_backend_root(url) if url is not None else None
        if root is not None:
            parts = name.split("/")
            checkpoint = local_checkpoint(root, parts[-2] if len(parts) >= 2 else "", parts[-1])
            if checkpoint is None:
                return Referenced(name, error=f"the local backend ({root}) holds no checkpoint of it: it was never "
                                              "deployed there")
            return Referenced(name, state_resources(name, state_entries(decompressed(checkpoint.read_bytes()), kept)))
        exported = cli_export(name)
        if isinstance(exported, str):
            return Referenced(name, error=exported)
        return Referenced(name, state_resources(name, state_entries(exported, kept)))
    except Exception as error:  # noqa: BLE001 - whatever cannot be read is said, never raised
        where = f"its export '{file}'" if file else "its state"
        return Referenced(name, error=f"{where} cannot be read: {_describe(error)}")
