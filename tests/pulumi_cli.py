"""Helpers for the real Pulumi CLI, its Python language host and the Kubernetes provider, built from
sources by scripts/build-pulumi-cli, running Python programs with the pack on a local backend.

Every command's exit code is checked: ``Stack.ok`` asserts success, ``Stack.fails`` asserts a
failure, so a failed ``pulumi config set`` can never turn a test into a no-op.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CHARTS = SHARED / "corpus" / "charts"
PASSPHRASE = "compute-guard-tests"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass(frozen=True)
class Toolchain:
    bin_dir: Path
    env: dict[str, str]

    @property
    def pulumi(self) -> str:
        return str(self.bin_dir / "pulumi")


class NotBuilt(Exception):
    """The toolchain scripts/build-pulumi-cli builds is not there: the tests never build it themselves."""


def build_toolchain(home: Path) -> Toolchain:
    """What scripts/build-pulumi-cli built (scripts/test builds it before pytest starts, with its progress), found,
    never built here: a build inside a fixture showed nothing for half an hour and ran past its timeout. Raises
    NotBuilt, naming the command, when something is missing. Then the environment to run it in."""
    built = subprocess.run([str(ROOT / "scripts" / "build-pulumi-cli"), "--built"], capture_output=True, text=True,
                           timeout=60)
    if built.returncode != 0:
        raise NotBuilt("the Pulumi CLI, its language hosts and the Kubernetes provider are not built: run "
                       "scripts/build-pulumi-cli (scripts/test runs it before the tests; about 30 minutes once)")
    bin_dir = Path(built.stdout.strip().splitlines()[-1])
    for tool in ("pulumi", "pulumi-language-python", "pulumi-language-python-exec", "pulumi-resource-kubernetes",
                 "pulumi-language-yaml", "pulumi-language-nodejs", "pulumi-language-go"):
        assert (bin_dir / tool).is_file(), f"{tool} is missing from {bin_dir}"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PULUMI_")}
    env.update(PATH=f"{bin_dir}:{ROOT / 'venv' / 'bin'}:{os.environ['PATH']}", PULUMI_HOME=str(home),
               PULUMI_SKIP_UPDATE_CHECK="true", PULUMI_CONFIG_PASSPHRASE=PASSPHRASE,
               PULUMI_DIY_BACKEND_NO_LOCK="true")
    # Installing a plugin from a directory (`pulumi package get-schema DIR`, `pulumi package add DIR`) installs
    # the plugins its Python environment's SDKs ask for, pulumi-kubernetes among them, into PULUMI_HOME, and
    # would download it; the one built here is that version.
    kubernetes = (ROOT / "requirements-dev.txt").read_text().split("pulumi-kubernetes==")[1].split()[0]
    installed = subprocess.run([str(bin_dir / "pulumi"), "plugin", "install", "resource", "kubernetes", kubernetes,
                                "--file", str(bin_dir / "pulumi-resource-kubernetes")],
                               env=env, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    # The Go example's Kubernetes SDK asks for its own version of the provider (the Go module proxy serves an
    # older SDK than the Python one): the same built provider stands for it.
    go_sdk = re.search(r"pulumi-kubernetes/sdk/v4 v(\S+)", (ROOT / "examples" / "go" / "go.mod").read_text())
    if go_sdk is not None and go_sdk[1] != kubernetes:
        installed = subprocess.run([str(bin_dir / "pulumi"), "plugin", "install", "resource", "kubernetes", go_sdk[1],
                                    "--file", str(bin_dir / "pulumi-resource-kubernetes")],
                                   env=env, capture_output=True, text=True, timeout=300)
        assert installed.returncode == 0, installed.stdout + installed.stderr
    return Toolchain(bin_dir, env)


def bare_shell_env(toolchain: Toolchain, backend: Path) -> dict[str, str]:
    """What a newcomer's shell has for the README's commands: no Pulumi on PATH, only the cache
    scripts/build-pulumi-cli built (found by `scripts/preview`), and a backend of the test's own."""
    cache = toolchain.bin_dir.parent.parent  # <cache>/pulumi-<version>/bin
    env = {key: value for key, value in toolchain.env.items() if key != "PATH"}
    env.update(PATH="/usr/bin:/bin", COMPUTE_GUARD_CACHE=str(cache), PULUMI_BACKEND_URL=f"file://{backend}")
    return env


@dataclass
class Stack:
    """A copy of a Pulumi program directory with one stack on a backend of its own."""

    toolchain: Toolchain
    work: Path
    env: dict[str, str]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([self.toolchain.pulumi, *args, "--non-interactive", "--color", "never"],
                              cwd=self.work, env=self.env, capture_output=True, text=True, timeout=600)
        done.stdout = _ANSI.sub("", done.stdout)
        return done

    def ok(self, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode == 0, f"pulumi {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout + done.stderr

    def fails(self, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode != 0, f"pulumi {' '.join(args)} passed:\n{done.stdout}\n{done.stderr}"
        return done.stdout + done.stderr

    def config(self, key: str, value: str, secret: bool = False) -> None:
        self.ok("config", "set", key, value, *(["--secret"] if secret else []))

    def policy_config(self, config: dict) -> str:
        path = self.work / "policy-config.json"
        path.write_text(json.dumps(config))
        return str(path)

    def preview(self, *extra: str) -> list[str]:
        return ["preview", "--policy-pack", str(ROOT), *extra]

    def up(self, *extra: str) -> list[str]:
        return ["up", "--yes", "--skip-preview", "--policy-pack", str(ROOT), *extra]


def preview_json(stack: Stack, name: str = "preview.json") -> Path:
    """The stack's `pulumi preview --json`, written into its directory."""
    done = stack.run("preview", "--json")  # without the pack: its findings are not in the JSON anyway
    assert done.returncode == 0, done.stderr
    path = stack.work / name
    path.write_text(done.stdout)
    return path


def report(stack: Stack, path: Path, *args: str) -> tuple[int, dict]:
    """`compute-guard report --format json` (the venv's console script), run where the program is (its
    Pulumi.<stack>.yaml gives the stack config): its exit code and document."""
    done = subprocess.run([str(ROOT / "venv" / "bin" / "compute-guard"), "report", "--format", "json", *args,
                           str(path)], cwd=stack.work, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def open_stack(toolchain: Toolchain, program: Path, tmp_path: Path, stack: str = "dev",
               config: dict[str, str] | None = None, backend: str | None = None,
               env: dict[str, str] | None = None, packages: dict[str, Path] | None = None) -> Stack:
    """Copy ``program`` (a Python program directory, or a YAML one) to ``tmp_path`` with the repository's
    venv and a backend of its own (a file:// one unless ``backend`` says otherwise), create ``stack``
    (with the program's ``Pulumi.<stack>.yaml``) and set ``config``. A YAML program's local ``packages:``
    stay where they are (their paths made absolute), or are the directories ``packages`` names."""
    work = tmp_path / program.name
    shutil.copytree(program, work, ignore=shutil.ignore_patterns(  # what a previous run installed there
        "rendered", "__pycache__", "node_modules", "sdks", "package-lock.json"))
    charts = program.parent / "charts"  # the examples' own Helm charts, which they name as ../charts/<chart>
    if charts.is_dir() and not (tmp_path / "charts").exists():
        shutil.copytree(charts, tmp_path / "charts")
    for stack_file in work.glob("Pulumi.*.yaml"):  # salts of another passphrase
        stack_file.write_text(re.sub(r"(?m)^encryptionsalt: .*\n", "", stack_file.read_text()))
    project = re.sub(r"virtualenv: .*", f"virtualenv: {ROOT / 'venv'}", (work / "Pulumi.yaml").read_text())

    def package(entry: re.Match[str]) -> str:
        path = (packages or {}).get(entry[2]) or (program / entry[3]).resolve()
        return f"{entry[1]}{path}"

    project = re.sub(r"(?m)^packages:\n(?:  .*\n)+",
                     lambda block: re.sub(r"(?m)^(  ([\w-]+): )(\.\.?/\S+)$", package, block[0]), project)
    (work / "Pulumi.yaml").write_text(project)
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    backend_env = dict(toolchain.env, PULUMI_BACKEND_URL=backend or f"file://{state}", **(env or {}))
    handle = Stack(toolchain, work, backend_env)
    handle.ok("stack", "init", stack)
    for key, value in (config or {}).items():
        handle.config(key, value)
    return handle


@dataclass(frozen=True)
class Finding:
    """One entry of the "Policies:" block the CLI prints."""

    level: str
    policy: str
    type: str  # the resource's type token ("" for the stack)
    name: str
    message: str  # what the pack said, without the policy's description


_ENTRY = re.compile(r"^\s+- \[(\w+)\](?: \[severity: \w+\])?\s+(\S+)(?:\s+\((\S+): (.*)\))?$")


def policy_findings(output: str) -> list[Finding]:
    """The findings of the output's "Policies:" block, in the order printed."""
    lines = output.splitlines()
    if "Policies:" not in lines:
        return []
    found: list[Finding] = []
    body: list[str] = []  # the policy's description, then the message

    def close() -> None:
        # the policy's description, then the message; a note the engine prints in the description's place alone
        if found:
            note = len(body) == 1 and body[0].startswith("can't run policy")
            found[-1] = replace(found[-1], message=body[0] if note else "\n".join(body[1:]))

    for line in lines[lines.index("Policies:") + 1:]:
        match = _ENTRY.match(line)
        if match is not None:
            close()
            found.append(Finding(match[1], match[2], match[3] or "", match[4] or "", ""))
            body = []
        elif line.startswith("          ") and found:
            body.append(line.strip())
        elif not line.startswith("    "):
            break
    close()
    return found
