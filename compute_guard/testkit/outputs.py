"""A custom resource's outputs under the test kit: its inputs, as a provider gives them back in a preview, in the
shapes the SDK's output types expect, with the names a provider fills in.

* **Shapes.** The SDK translates a resource's outputs by the types of its class (``pulumi._types.resource_types``) and
  asserts that each value has its type's shape. A provider does not always answer in its inputs' shape:
  azure-native takes ``identity.userAssignedIdentities`` as a list of identity ids and answers a map keyed by them
  (the ARM API's ``UserAssignedIdentities`` object), so echoing the list made the SDK raise
  ``AssertionError: Unexpected type. Expected 'list' ...`` inside the program. A list of names where the output
  type is a map becomes that map (each name a key, its value not known yet: ``{}``).
* **Names.** pulumi-kubernetes names a resource whose ``metadata.name`` is not given ``<resource name>-<8 random
  characters>`` in its Check, so a preview knows it (pulumi-kubernetes provider/pkg/metadata/naming.go). The bridged
  cloud providers name theirs in their Check too (bridged.py).
"""

from __future__ import annotations

import collections.abc
import functools
import hashlib
import importlib
import typing
from typing import Any

from pulumi import _types
from pulumi.runtime import rpc

from .components import SECRET, SPECIAL, UNKNOWN


@functools.lru_cache(maxsize=1024)
def resource_class(type_token: str) -> type | None:
    """The SDK's class of a resource type, from the resource modules the imported SDKs registered; None when no
    imported SDK declares it."""
    parts = type_token.split(":")
    if len(parts) != 3:
        return None
    for module in rpc._RESOURCE_MODULES.get(f"{parts[0]}:{parts[1]}", []):  # noqa: SLF001 - the SDK's own registry
        info = getattr(module, "mod_info", None)
        if isinstance(info, dict) and type_token in info.get("classes", {}):
            try:
                found = getattr(importlib.import_module(info["fqn"]), info["classes"][type_token], None)
            except ImportError:
                return None
            return found if isinstance(found, type) else None
    return None


def shaped_outputs(type_token: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """The outputs in the shapes the SDK's output types of this resource expect."""
    cls = resource_class(type_token)
    if cls is None:
        return outputs
    try:
        types = _types.resource_types(cls)
    except Exception:  # noqa: BLE001 - a class the SDK cannot read types from: the outputs as they are
        return outputs
    return {key: _shaped(value, types.get(key)) for key, value in outputs.items()}


def _bare(typ: Any) -> Any:
    """A type without Optional, Input and Output around it."""
    for _ in range(8):
        args = typing.get_args(typ)
        if _types._is_optional_type(typ):  # noqa: SLF001
            typ = next((arg for arg in args if arg is not type(None)), typ)
        elif typing.get_origin(typ) is not None and getattr(typing.get_origin(typ), "__name__", "") in (
                "Output", "Input", "Awaitable"):
            typ = args[0] if args else typ
        else:
            return typ
    return typ


def _shaped(value: Any, typ: Any) -> Any:
    if typ is None or value is None or value == UNKNOWN:
        return value
    if isinstance(value, dict) and value.get(SPECIAL) == SECRET:
        return {**value, "value": _shaped(value.get("value"), typ)}
    if isinstance(value, dict) and SPECIAL in value:  # a resource reference, an asset: as it is
        return value
    typ = _bare(typ)
    origin = typing.get_origin(typ)
    args = typing.get_args(typ)
    if origin in (dict, collections.abc.Mapping, typing.Mapping):
        if isinstance(value, list):
            if all(isinstance(item, str) and item != UNKNOWN for item in value):
                return {item: {} for item in value}
            return UNKNOWN  # a map keyed by values not known yet
        if isinstance(value, dict) and len(args) == 2:
            return {key: _shaped(item, args[1]) for key, item in value.items()}
        return value
    if origin in (list, collections.abc.Sequence, typing.Sequence) and isinstance(value, list) and len(args) == 1:
        return [_shaped(item, args[0]) for item in value]
    if isinstance(typ, type) and _types.is_output_type(typ) and isinstance(value, dict):
        try:
            fields = _types.output_type_types(typ)
        except Exception:  # noqa: BLE001
            return value
        return {key: _shaped(item, fields.get(key)) for key, item in value.items()}
    return value


def auto_named(type_token: str, urn: str, name: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """A Kubernetes object without ``metadata.name`` named as pulumi-kubernetes names it in its Check. (The bridged
    cloud providers' names are bridged.py's.)"""
    if not type_token.startswith("kubernetes:") or type_token.startswith("kubernetes:helm.sh/") \
            or type_token.endswith("List") or type_token.endswith("Patch"):
        return outputs
    metadata = outputs.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict) or metadata.get("name") is not None:
        return outputs
    suffix = hashlib.sha256(urn.encode()).hexdigest()[:8]
    return {**outputs, "metadata": {**metadata, "name": f"{name}-{suffix}"}}


# What a provider fills in once a cluster exists, that a program reads to build its kubeconfig: under `pulumi up` (and
# export_program, a previous deployment written without the CLI) a GKE cluster's endpoint and CA certificate; a
# preview of a new stack does not know them (components.UNKNOWN). A documentation address and a placeholder
# certificate: nothing connects to them.
DEPLOYED = {
    "gcp:container/cluster:Cluster": {"endpoint": "203.0.113.10",
                                      "masterAuth": {"clusterCaCertificate": "Y29tcHV0ZS1ndWFyZC10ZXN0LWtpdA=="}},
}


def deployed(type_token: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """A resource's outputs once deployed: what its provider fills in (:data:`DEPLOYED`) where the program set none."""
    filled = DEPLOYED.get(type_token)
    return outputs if filled is None else _filled(outputs, filled)


def _filled(current: dict[str, Any], filled: dict[str, Any]) -> dict[str, Any]:
    merged = dict(current)
    for key, value in filled.items():
        now = merged.get(key)
        if isinstance(value, dict) and isinstance(now, dict):
            merged[key] = _filled(now, value)
        elif now is None:
            merged[key] = value
    return merged
