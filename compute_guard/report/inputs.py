"""What the report reads: `pulumi preview --json`, `pulumi stack export`, or a checkpoint.

Each becomes the resources the engine would hand the pack (type, name, URN, inputs for Analyze and
the properties AnalyzeStack sees), the project and stack they belong to, and the stack configuration
the file carries (a preview's ``config``; an export carries none: the CLI's ``Pulumi.<stack>.yaml`` is
read instead, see :func:`stack_config`).

Secrets: a preview prints them as ``"[secret]"`` and an export keeps them encrypted, so both become
secret values that are not known (the policies say what they could not check, as in a preview with
unknowns); ``--show-secrets`` output and decrypted exports carry the plain value, marked secret.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from compute_guard.policies.adapters.baseline import SECRET_KEY, SECRET_SIG, decompressed
from compute_guard.testkit.analyzer import Resource

SHOWN_SECRET = "[secret]"  # how `pulumi preview --json` prints a secret


class Unreadable(ValueError):
    """The input is not something the report can read; the message says why."""


@dataclass
class Input:
    kind: str  # "preview", "export" or "checkpoint"
    project: str
    stack: str
    config: dict[str, Any]  # the stack configuration the input carries (a preview's)
    resources: list[Resource] = field(default_factory=list)


def read(data: bytes, name: str = "input") -> Input:
    """Parse one input document (plain, gzip or zstd)."""
    try:
        text = decompressed(data)
    except Exception as error:  # noqa: BLE001 - a corrupt archive is unreadable input, whatever the library says
        raise Unreadable(f"{name} is not plain, gzip or zstd: {error}") from None
    try:
        document = json.loads(text)
    except UnicodeDecodeError:
        raise Unreadable(f"{name} is not text") from None
    except json.JSONDecodeError as error:
        raise Unreadable(f"{name} is not JSON ({error.msg} at line {error.lineno})") from None
    if not isinstance(document, dict):
        raise Unreadable(f"{name} is a JSON {type(document).__name__}, not the object `pulumi preview --json` or "
                         "`pulumi stack export` writes")
    if "steps" in document:
        return _preview(document, name)
    deployment = document.get("deployment")
    kind = "export"
    if deployment is None and isinstance(document.get("checkpoint"), dict):
        deployment, kind = document["checkpoint"].get("latest") or {}, "checkpoint"
    if not isinstance(deployment, dict):
        if document.get("diagnostics") and "steps" not in document:
            raise Unreadable(f"{name} is the output of a preview that failed before it planned any step: "
                             f"{_first_error(document['diagnostics'])}")
        raise Unreadable(f"{name} is neither `pulumi preview --json` output (no 'steps') nor a `pulumi stack "
                         "export` or checkpoint (no 'deployment' or 'checkpoint.latest')")
    entries = deployment.get("resources") or []
    if not isinstance(entries, list):
        raise Unreadable(f"{name}: 'resources' is not a list")
    resources: list[Resource] = []
    entries.reverse()
    while entries:  # each entry's JSON is let go once it is a protobuf Struct: the peak stays one document
        entry = entries.pop()
        if isinstance(entry, dict) and not entry.get("delete"):
            resources += _resource(entry, entry.get("inputs"), entry.get("outputs"))
    project, stack = _names(resources)
    return Input(kind, project, stack, {}, resources)


def _preview(document: Mapping[str, Any], name: str) -> Input:
    steps = document.get("steps")
    if not isinstance(steps, list):
        raise Unreadable(f"{name}: 'steps' is not a list")
    resources: list[Resource] = []
    steps.reverse()
    while steps:
        step = steps.pop()
        state = step.get("newState") if isinstance(step, dict) else None
        if isinstance(state, dict) and step.get("op") not in ("delete", "discard", "remove-pending-replace"):
            resources += _resource(state, state.get("inputs"), state.get("outputs"))
    config = document.get("config")
    project, stack = _names(resources)
    return Input("preview", project, stack, dict(config) if isinstance(config, dict) else {}, resources)


def _resource(entry: Mapping[str, Any], inputs: Any, outputs: Any) -> Iterator[Resource]:
    urn, kind = entry.get("urn"), entry.get("type")
    if not isinstance(urn, str) or not isinstance(kind, str) or (kind.startswith("pulumi:")
                                                                 and not kind.startswith("pulumi:providers:")):
        return  # the stack itself and other engine resources: nothing any policy reads
    inputs = _secrets(inputs) if isinstance(inputs, dict) else {}
    # AnalyzeStack sees what the engine holds after the step: a preview's planned outputs are its inputs
    outputs = _secrets(outputs) if isinstance(outputs, dict) and outputs else None
    parent = entry.get("parent")
    parent = parent if isinstance(parent, str) else ""
    # what links it to the others, as a state and a preview's steps write them (apitype.ResourceV3): its provider as
    # <urn>::<id>, the resources it and each property depend on (a Kubernetes provider's kubeconfig names its
    # cluster by them; a pool's subnet, its addresses)
    provider = entry.get("provider")
    provider = provider.rsplit("::", 1)[0] if isinstance(provider, str) and provider.count("::") > 3 else ""
    dependencies = entry.get("dependencies")
    by_property = entry.get("propertyDependencies")
    resource = Resource.of(kind, urn.rsplit("::", 1)[-1], inputs, outputs)
    yield Resource(resource.type, resource.name, urn, resource.inputs, resource.outputs, parent, provider,
                   tuple(item for item in dependencies if isinstance(item, str))
                   if isinstance(dependencies, list) else (),
                   {key: tuple(item for item in urns if isinstance(item, str))
                    for key, urns in by_property.items() if isinstance(urns, list)}
                   if isinstance(by_property, dict) else {})


def _secrets(value: Any) -> Any:
    """Secrets as the engine hands them to the pack: marked, with their value when the input has it."""
    if isinstance(value, dict):
        if value.get(SECRET_KEY) == SECRET_SIG:
            if "plaintext" in value:
                try:
                    return {SECRET_KEY: SECRET_SIG, "value": _secrets(json.loads(value["plaintext"]))}
                except (TypeError, ValueError):
                    pass
            elif "value" in value:
                return {SECRET_KEY: SECRET_SIG, "value": _secrets(value["value"])}
            return {SECRET_KEY: SECRET_SIG, "value": UNKNOWN_STRING_VALUE}  # encrypted: not known here
        return {key: _secrets(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_secrets(item) for item in value]
    if value == SHOWN_SECRET:
        return {SECRET_KEY: SECRET_SIG, "value": UNKNOWN_STRING_VALUE}
    return value


def _names(resources: list[Resource]) -> tuple[str, str]:
    """(project, stack) from the first URN: urn:pulumi:<stack>::<project>::..."""
    for resource in resources:
        head = resource.urn.split("::")
        if len(head) >= 2 and head[0].startswith("urn:pulumi:"):
            return head[1], head[0][len("urn:pulumi:"):]
    return "", ""


def _first_error(diagnostics: Any) -> str:
    for item in diagnostics if isinstance(diagnostics, list) else []:
        if isinstance(item, dict) and item.get("severity") == "error":
            return str(item.get("message", "")).strip()
    return "see its diagnostics"


def stack_config(directory: Path, stack: str) -> dict[str, Any]:
    """The stack's configuration as the CLI reads it: ``Pulumi.<stack>.yaml`` of the program in
    ``directory`` (its ``config:``; encrypted values stay out). The stack may be named
    ``org/project/stack``: its last part names the file."""
    if not stack:
        return {}
    path = directory / f"Pulumi.{stack.rsplit('/', 1)[-1]}.yaml"
    try:
        import yaml

        document = yaml.safe_load(path.read_text())
    except Exception:  # noqa: BLE001 - no file, or not YAML: the stack has no configuration to add
        return {}
    config = document.get("config") if isinstance(document, dict) else None
    if not isinstance(config, dict):
        return {}
    return {str(key): value for key, value in config.items() if not (isinstance(value, dict) and "secure" in value)}
