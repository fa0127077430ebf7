"""The previous deployment, for compute-cluster-safe-update and workload-disruption-allowed.

The engine never hands a policy the old inputs (pulumi/pulumi-policy#154), so they are read
from a state document: the policy's ``baseline`` config (a ``pulumi stack export`` file or a
DIY checkpoint, plain, gzip or zstd); else the stack's own checkpoint when the backend is a
local ``file://`` one; else, on any other backend (Pulumi Cloud, S3, Azure Blob, GCS, ...), what
the Pulumi CLI that runs the preview exports for the stack (``pulumi stack export``, once, with a
time limit, secrets left encrypted). The document is read once per pack process, the first time
it is needed, and that snapshot is kept: during ``pulumi up`` the backend rewrites its checkpoint
as steps complete.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model.cluster import is_compute_cluster
from ..model.resources import StackResource
from ..model.sources import source_of
from ..model.values import Unknown, more, secret, undetermined
from ..model.workloads import workload_kind

SECRET_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
HOW_TO = ("no previous deployment to compare with: set this policy's 'baseline' config to the output of "
          "`pulumi stack export --file <path>` taken before the preview, or use a local (file://) backend")


BASELINE_SCHEMA: dict[str, Any] = {
    "type": "string", "minLength": 1,
    "description": "Path (absolute, or relative to the pack directory) to `pulumi stack export` output or a "
                   "DIY checkpoint of the deployed stack, plain, gzip or zstd. Default: the stack's own "
                   "checkpoint when the backend is local (file://), else `pulumi stack export` run by the "
                   "pack once per preview (Pulumi Cloud, S3, Azure Blob, GCS)."}


@dataclass(frozen=True)
class Snapshot:
    """The entries of a state document that declare pools (ComputeClusters, node groups, clusters): URN -> old
    inputs (plain JSON), and URN -> type token; and the URN of every resource it holds (to tell a baseline of
    another stack, whose URNs match nothing here)."""

    inputs: Mapping[str, Any] = field(default_factory=dict)
    types: Mapping[str, str] = field(default_factory=dict)
    urns: frozenset[str] = frozenset()
    references: tuple[str, ...] = ()  # the stacks its StackReferences name (SPEC 18: the platform stacks it reads)
    # what decides where Pods land, as the model reads it (its clusters, pools, workloads, DaemonSets and Kubernetes
    # providers): the pools its dependents' workloads ran on before this change (SPEC 18, adapters/dependents.py)
    resources: tuple[StackResource, ...] = ()
    # the same entries' outputs, where the state records them: what a provider set that the inputs leave out (the
    # cloud's default for an input the program never wrote, the value its Check did not fill in)
    outputs: Mapping[str, Any] = field(default_factory=dict)

    def foreign(self, stack_urns: Iterable[str] | None = None) -> str | None:
        """Why this previous deployment compares with nothing, as a note's words, or None when it is this stack's
        (or holds nothing). ``stack_urns``: the stack's resources (a stack policy has them all); without them, a
        baseline is foreign when none of its URNs is of this stack and project (``urn:pulumi:<stack>::<project>::``,
        from the engine's PULUMI_STACK and PULUMI_PROJECT). A pool new in this preview matches nothing and is not
        foreign."""
        if not self.urns:
            return None
        held = min(self.urns)
        if stack_urns is None:
            prefix = _stack_prefix()
            if prefix is None or any(urn.startswith(prefix) for urn in self.urns):
                return None
            ours = f"{prefix}..."
        else:
            mine = set(stack_urns)
            if not mine or not self.urns.isdisjoint(mine):
                return None
            ours = min(mine)
        return (f"the previous deployment matches no resource of this stack: it holds '{held}'{more(self.urns, 1)}, "
                f"this stack has '{ours}' (another stack's or project's state, or URNs written otherwise), so nothing "
                "was compared with it: set 'baseline' to this stack's `pulumi stack export`")


def _stack_prefix() -> str | None:
    """``urn:pulumi:<stack>::<project>::`` of the stack being previewed (the engine's environment)."""
    project = os.environ.get("PULUMI_PROJECT", "")
    stack = os.environ.get("PULUMI_STACK", "").rsplit("/", 1)[-1]
    return f"urn:pulumi:{stack}::{project}::" if project and stack else None


@dataclass(frozen=True)
class Unavailable:
    """No usable baseline. ``fail_closed``: a configured file that cannot be read is a violation. ``foreign``: it was
    read and is another stack's (Snapshot.foreign), which compares with nothing: said once, never not applicable."""

    reason: str
    fail_closed: bool = False
    foreign: bool = False


def load_baseline(configured: str | None) -> Snapshot | Unavailable:
    """Read the previous deployment: the configured file, else the local backend's checkpoint, else
    the CLI's export of the stack on any other backend. PackState keeps what this returns for the
    life of the pack process."""
    return _configured(configured) if configured else _discovered()


def _configured(path_text: str) -> Snapshot | Unavailable:
    path = Path(os.path.expanduser(path_text))
    if not path.is_absolute():
        path = Path.cwd() / path  # the engine starts the pack in its directory
    try:
        return _snapshot(path)
    except Exception as error:  # noqa: BLE001 - any unreadable file is reported, never raised
        return Unavailable(f"the configured baseline '{path_text}' cannot be read: {_describe(error)}",
                           fail_closed=True)


EXPORT_TIMEOUT = 120  # seconds for `pulumi stack export`


def _discovered() -> Snapshot | Unavailable:
    url = _backend_url()
    if url is None:
        return Unavailable(HOW_TO)
    root = _local_backend_root(url)
    if root is None:
        return _exported(url)
    project = os.environ.get("PULUMI_PROJECT", "")
    stack = os.environ.get("PULUMI_STACK", "").rsplit("/", 1)[-1]
    if not stack:
        return Unavailable(HOW_TO)
    path = local_checkpoint(root, project, stack)
    if path is None:
        return Unavailable(f"the stack has no checkpoint in the local backend yet ({root / '.pulumi' / 'stacks'}); "
                           "nothing is deployed")
    try:
        return _snapshot(path)
    except Exception as error:  # noqa: BLE001
        return Unavailable(f"the stack's checkpoint '{path}' cannot be read: {_describe(error)}")


def local_checkpoint(root: Path, project: str, stack: str) -> Path | None:
    """A stack's checkpoint in a local (file://) backend rooted at ``root``: <root>/.pulumi/stacks/<project>/<stack>
    .json (.gz, .zst), or the legacy <root>/.pulumi/stacks/<stack>.json; None when it has none."""
    stacks = root / ".pulumi" / "stacks"
    candidates = [stacks / project / f"{stack}{suffix}" for suffix in (".json", ".json.gz", ".json.zst")]
    candidates.append(stacks / f"{stack}.json")
    return next((path for path in candidates if path.is_file()), None)


def _backend_url() -> str | None:
    """The backend the CLI uses: PULUMI_BACKEND_URL, else the one it is logged in to."""
    url = os.environ.get("PULUMI_BACKEND_URL")
    if not url:
        home = Path(os.environ.get("PULUMI_HOME") or Path.home() / ".pulumi")
        try:
            credentials = json.loads((home / "credentials.json").read_text())
            url = credentials.get("current") if isinstance(credentials, dict) else None
        except (OSError, ValueError):
            url = None
    return url if isinstance(url, str) and url else None


def _exported(url: str) -> Snapshot | Unavailable:
    """The stack's state as the Pulumi CLI exports it from a backend the pack cannot read itself."""
    project = os.environ.get("PULUMI_PROJECT", "")
    stack = os.environ.get("PULUMI_STACK", "")
    if not project or not stack:
        return Unavailable(HOW_TO)
    organization = os.environ.get("PULUMI_ORGANIZATION") or "organization"
    reference = stack if stack.count("/") == 2 else f"{organization}/{project}/{stack.rsplit('/', 1)[-1]}"
    if shutil.which("pulumi") is None:
        return Unavailable(f"the previous deployment is on {_shown(url)}, and the Pulumi CLI that reads it is not on "
                           "PATH; put it there, or set this policy's 'baseline' config to a `pulumi stack export` file")
    exported = cli_export(reference)
    if isinstance(exported, str):
        return Unavailable(f"{exported}; set this policy's 'baseline' config to an export taken before the preview")
    try:
        return _document(exported)
    except Exception as error:  # noqa: BLE001
        return Unavailable(f"`pulumi stack export --stack {reference}` printed no state: {_describe(error)}")


def cli_export(reference: str) -> bytes | str:
    """``pulumi stack export --stack <reference>`` by the CLI on PATH (the one that runs the preview: the user's backend
    and credentials), with a time limit and without --show-secrets: its output, or why there is none."""
    cli = shutil.which("pulumi")
    if cli is None:
        return "the Pulumi CLI is not on PATH"
    try:
        done = subprocess.run([cli, "stack", "export", "--stack", reference, "--non-interactive"], capture_output=True,
                              timeout=EXPORT_TIMEOUT, env={**os.environ, "PULUMI_SKIP_UPDATE_CHECK": "true"},
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"`pulumi stack export --stack {reference}` took more than {EXPORT_TIMEOUT} s"
    except OSError as error:
        return f"`pulumi stack export --stack {reference}` could not run: {_describe(error)}"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        reason = f": {said[-1]}" if said else ""
        return f"`pulumi stack export --stack {reference}` failed{reason}"
    return done.stdout


def _shown(url: str) -> str:
    """The backend, for messages, without its query (which may carry credentials or endpoints)."""
    return url.partition("?")[0]


def _local_backend_root(url: str) -> Path | None:
    if not url.startswith("file://"):
        return None
    rest = url[len("file://"):].partition("?")[0]
    if rest in ("~", "") or rest.startswith("~/"):
        return Path.home() / rest[2:]  # file://~ and file:// are the home directory itself
    return Path(rest)


def _describe(error: Exception) -> str:
    if isinstance(error, FileNotFoundError):
        return "no such file"
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON ({error.msg} at line {error.lineno})"
    return str(error) or type(error).__name__


def _read(path: Path) -> bytes:
    return decompressed(path.read_bytes())


def decompressed(data: bytes) -> bytes:
    """A state document's bytes as written: plain, gzip or zstd (checkpoints of the DIY backends)."""
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:4] == b"\x28\xb5\x2f\xfd":
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    return data


def _snapshot(path: Path) -> Snapshot:
    return _document(_read(path))


def state_entries(data: bytes, kept: Callable[[str], bool] | None = None) -> list[dict[str, Any]]:
    """The resources of a state document (`pulumi stack export` output, or a DIY checkpoint), but those marked for
    deletion: each as the document writes it (urn, type, inputs, outputs, parent, provider, dependencies, ...).

    Its secrets are replaced as it is parsed (an encrypted one not known, a plaintext one its value, secret), when it
    holds any (a walk of another stack's 10,000 resources cost more than reading them). ``kept``: of another stack
    (SPEC 18), which types are read at all; each of those keeps its outputs only where it has some (as parsed, so
    that the inputs and the others are never all held at once: half the memory of a 10,000-resource export)."""
    hook = _unsealed if SECRET_SIG.encode() in data else None
    if kept is not None:
        unseal = hook

        def hook(value: dict[str, Any]) -> Any:
            if "custom" in value and isinstance(value.get("urn"), str) and isinstance(kind := value.get("type"), str):
                if not kept(kind):
                    return None
                if value.get("outputs"):
                    value.pop("inputs", None)
                return value
            return unseal(value) if unseal is not None else value
    document = json.loads(data, object_hook=hook) if hook is not None else json.loads(data)
    if not isinstance(document, dict):
        raise ValueError("not a Pulumi state document (expected a JSON object)")
    deployment = document.get("deployment")
    if deployment is None and isinstance(document.get("checkpoint"), dict):
        deployment = document["checkpoint"].get("latest")
    if deployment is None and "checkpoint" in document:
        deployment = {}  # a checkpoint of a stack with nothing deployed yet
    if not isinstance(deployment, dict):
        raise ValueError("not a Pulumi state document (no 'deployment' or 'checkpoint.latest')")
    resources = deployment.get("resources") or []
    if not isinstance(resources, list):
        raise ValueError("'resources' is not a list")
    return [entry for entry in resources if isinstance(entry, dict) and not entry.get("delete")]


STACK_REFERENCE = "pulumi:pulumi:StackReference"


def _document(data: bytes) -> Snapshot:
    inputs: dict[str, Any] = {}
    outputs: dict[str, Any] = {}
    types: dict[str, str] = {}
    urns: set[str] = set()
    references: list[str] = []
    kept: list[dict[str, Any]] = []
    for entry in state_entries(data):
        if entry.get("type") == STACK_REFERENCE:  # what the stack read of other stacks (SPEC 18)
            name = (entry.get("inputs") or entry.get("outputs") or {}).get("name")
            if isinstance(name, str) and name and name not in references:
                references.append(name)
        if isinstance(entry.get("urn"), str):
            urns.add(entry["urn"])
        kind = entry.get("type")
        if isinstance(kind, str) and (source_of(kind) is not None or workload_kind(kind) is not None
                                      or kind.startswith(PROVIDERS)):
            kept.append(entry)
        if not isinstance(kind, str) or not (is_compute_cluster(kind) or source_of(kind) is not None):
            continue
        urn = entry.get("urn")
        props = entry.get("inputs") or entry.get("outputs")
        if isinstance(urn, str) and isinstance(props, dict):
            inputs[urn] = props
            types[urn] = kind
            if isinstance(entry.get("outputs"), dict):
                outputs[urn] = entry["outputs"]
    return Snapshot(inputs, types, frozenset(urns), tuple(references), state_resources("", kept), outputs)


PROVIDERS = "pulumi:providers:"


class Links:
    """What a state records of a resource's links, as the model reads a resource's (model/resources.py)."""

    __slots__ = ("parent", "provider", "dependencies", "property_dependencies")

    def __init__(self, parent: str | None, provider: str | None, dependencies: tuple[str, ...],
                 property_dependencies: dict[str, list[str]] | None) -> None:
        self.parent = parent
        self.provider = provider
        self.dependencies = dependencies
        self.property_dependencies = property_dependencies


def state_resources(stack: str, entries: list[dict[str, Any]]) -> tuple[StackResource, ...]:
    """A state's resources as the model reads a stack's (their outputs, else their inputs; a secret's value secret,
    an encrypted one not known), with the links the state records (parent, provider, dependencies); ``stack``: whose
    (SPEC 18), "" this stack's."""
    found = []
    for entry in entries:
        urn, kind = entry.get("urn"), entry.get("type")
        if not isinstance(urn, str) or not isinstance(kind, str):
            continue
        props = entry.get("outputs") or entry.get("inputs") or {}
        provider = entry.get("provider")
        dependencies = entry.get("dependencies")
        property_dependencies = entry.get("propertyDependencies")
        links = Links(
            entry.get("parent") if isinstance(entry.get("parent"), str) else None,
            # the state writes a provider reference as <urn>::<id>
            provider.rsplit("::", 1)[0] if isinstance(provider, str) and provider.count("::") > 3 else None,
            tuple(urn for urn in dependencies if isinstance(urn, str)) if dependencies else (),
            {key: [urn for urn in urns if isinstance(urn, str)] for key, urns in property_dependencies.items()
             if isinstance(urns, list)} if isinstance(property_dependencies, dict) and property_dependencies else None)
        found.append(StackResource(kind, urn, urn.rsplit("::", 1)[-1], props, links, stack))
    return tuple(found)


def _unsealed(value: dict[str, Any]) -> Any:
    """A JSON object of a state document as the model reads it: an encrypted secret is a value not known; a plaintext
    one (``--show-secrets``) its value, secret all through; any other object itself."""
    if value.get(SECRET_KEY) != SECRET_SIG:
        return value
    if "plaintext" not in value:
        return _encrypted()
    try:
        plaintext = json.loads(value["plaintext"], object_hook=_unsealed)
    except (TypeError, ValueError):
        return _encrypted()
    return _secret(plaintext)


def _secret(value: Any) -> Any:
    """A secret's value, secret all through: each string and number of a list or object, and an object's keys (a
    whole secret instanceTypes list read as plain values named the old machine in clear, issue 57)."""
    if isinstance(value, dict):
        return {secret(key): _secret(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_secret(item) for item in value]
    return secret(value)


def _encrypted() -> Unknown:
    return undetermined("a value of the previous deployment is an encrypted secret in the baseline")
