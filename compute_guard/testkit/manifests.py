"""Rendered Kubernetes manifests as the typed resources ``kubernetes:yaml/v2:ConfigGroup`` registers.

Each object becomes ``kubernetes:<group>/<version>:<Kind>`` (``core/v1`` for ``v1``) with the
manifest as its inputs (and outputs), a child of a ConfigGroup. ``*List`` kinds are flattened;
files that do not parse, and objects without an apiVersion and kind, are skipped, as the
provider would refuse them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from .analyzer import Resource

CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"


def type_token(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"kubernetes:{group or 'core'}/{version}:{kind}"


def objects(path: Path) -> Iterator[dict[str, Any]]:
    """The Kubernetes objects of one file, or nothing when it does not parse."""
    try:
        documents = list(yaml.safe_load_all(path.read_text()))
    except (yaml.YAMLError, UnicodeDecodeError):
        return
    for document in documents:
        yield from _flatten(document)


def _flatten(document: Any) -> Iterator[dict[str, Any]]:
    if not isinstance(document, dict):
        return
    kind, api_version = document.get("kind"), document.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api_version, str) or not kind or not api_version:
        return
    if kind.endswith("List") and isinstance(document.get("items"), list):
        for item in document["items"]:
            yield from _flatten(item)
        return
    yield json.loads(json.dumps(document, default=str))  # YAML timestamps and the like become strings


# Kinds that are not namespaced (the provider names them prefix:name; every other kind prefix:namespace/name).
CLUSTER_SCOPED = frozenset({
    "Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
    "StorageClass", "PriorityClass", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
    "APIService", "IngressClass", "RuntimeClass", "CSIDriver", "CSINode", "VolumeAttachment",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "NodePool", "EC2NodeClass", "NodeClaim",
})


def child_name(prefix: str, obj: dict[str, Any], index: int) -> str:
    """How the Kubernetes provider names a child of a yaml/v2 ConfigGroup, ConfigFile or helm.sh/v4 Chart:
    ``<prefix>:<namespace>/<name>`` (the namespace 'default' when the object names none), ``<prefix>:<name>``
    for a kind that is not namespaced; no ``<prefix>:`` with an empty prefix."""
    metadata = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    name = str(metadata.get("name") or f"object-{index}")
    if obj.get("kind") not in CLUSTER_SCOPED:
        name = f"{metadata.get('namespace') or 'default'}/{name}"
    return f"{prefix}:{name}" if prefix else name


def objects_of_text(text: str) -> Iterator[dict[str, Any]]:
    """The Kubernetes objects of a YAML text (``yaml:`` of a ConfigGroup), or nothing when it does not parse."""
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return
    for document in documents:
        yield from _flatten(document)


def flatten(documents: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """Objects given as values (``objs:`` of a ConfigGroup), ``*List`` kinds flattened."""
    for document in documents:
        yield from _flatten(document)


def manifest_resources(paths: Iterable[Path], *, project: str = "project", stack: str = "stack") -> list[Resource]:
    """Files of rendered manifests as ConfigGroup children named after each file (``<file stem>:<name>``): for
    a test that has the manifests rather than the program (evaluate(..., rendered=...) names them as the
    provider names a chart's children)."""
    resources: list[Resource] = []
    seen: set[str] = set()
    for path in paths:
        for index, obj in enumerate(objects(path)):
            metadata = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
            name = str(metadata.get("name") or f"object-{index}")
            namespace = metadata.get("namespace")
            resource_name = f"{path.stem}:{namespace}/{name}" if namespace else f"{path.stem}:{name}"
            while resource_name in seen:
                resource_name += "-again"
            seen.add(resource_name)
            resources.append(Resource.of(type_token(obj["apiVersion"], obj["kind"]), resource_name, obj,
                                         project=project, stack=stack, parent_type=CONFIG_GROUP))
    return resources
