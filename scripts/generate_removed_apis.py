#!/usr/bin/env python3
"""Generate policies/platforms/data/removed_apis.json, the Kubernetes API versions each release removes.

    venv/bin/python scripts/generate_removed_apis.py            # rewrite the file
    venv/bin/python scripts/generate_removed_apis.py --check    # exit 1 if the file is stale

The source is Kubernetes' own k8s.io/api at the release the Go oracle's tests/oracle/go.mod requires: every kind
client-go's scheme registers whose type says the release that removes its API version (``APILifecycleRemoved``,
generated from the ``+k8s:prerelease-lifecycle-gen:removed`` tags) and the version that replaces it
(``APILifecycleReplacement``). The oracle (scripts/build-pulumi-cli oracle) answers ``{"removed": true}`` with them.
A release deletes a removed API's Go package from k8s.io/api some time after (autoscaling/v2beta2 is gone by v0.37),
so the same generated functions are read from the earlier releases in ``EARLIER`` (``go mod download`` from the Go
module proxy: each package's ``zz_generated.prerelease-lifecycle.go``, whose shape the generator fixes), a later
release's word winning. Only removals in the oracle's release or before it are kept: a later one is a plan (the
generator's default for a beta is its introduction plus nine releases), not a fact of a release that exists.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "policies" / "platforms" / "data" / "removed_apis.json"
GO_MOD = ROOT / "tests" / "oracle" / "go.mod"
# the k8s.io/api releases read for packages later ones deleted, oldest first (each the last patch of its minor then)
EARLIER = ("v0.20.15", "v0.22.17", "v0.24.17", "v0.26.15", "v0.28.15", "v0.30.14", "v0.33.7", "v0.35.0")
_REMOVED = re.compile(r"func \(in \*(\w+)\) APILifecycleRemoved\(\) \(major, minor int\) \{\s*return (\d+), (\d+)")
_REPLACED = re.compile(r"func \(in \*(\w+)\) APILifecycleReplacement\(\) schema\.GroupVersionKind \{\s*return "
                       r'schema\.GroupVersionKind\{Group: "([^"]*)", Version: "([^"]*)"')
_GROUP = re.compile(r'GroupName\s*=\s*"([^"]*)"')


def release() -> str:
    """The k8s.io/api release the oracle is built against (v0.37.2 is Kubernetes 1.37.2)."""
    found = re.search(r"^\s*k8s\.io/api v0\.(\d+)\.(\d+)", GO_MOD.read_text(), re.MULTILINE)
    if found is None:
        raise SystemExit("generate_removed_apis: no k8s.io/api in tests/oracle/go.mod")
    return f"1.{found.group(1)}.{found.group(2)}"


def table(answer: list[dict[str, Any]], kubernetes: str) -> dict[str, Any]:
    """The file's document: each removal at or before ``kubernetes``, by Pulumi's type token."""
    major, minor = (int(part) for part in kubernetes.split(".")[:2])
    removed: dict[str, dict[str, str]] = {}
    for entry in answer:
        at = tuple(int(part) for part in entry["removed"].split("."))
        if at > (major, minor):
            continue
        group = entry["group"] or "core"
        removed[f"kubernetes:{group}/{entry['version']}:{entry['kind']}"] = {
            "removed": entry["removed"], "replacement": entry["replacement"]}
    return {"source": f"k8s.io/api v0.{kubernetes.split('.', 1)[1]} (Kubernetes {kubernetes}): APILifecycleRemoved",
            "kubernetes": kubernetes, "removed": dict(sorted(removed.items()))}


def earlier(version: str) -> list[dict[str, Any]]:
    """The removals one earlier k8s.io/api release's generated files state, in the oracle's shape."""
    done = subprocess.run(["go", "mod", "download", "-json", f"k8s.io/api@{version}"], capture_output=True, text=True,
                          check=True, cwd=GO_MOD.parent)
    root = Path(json.loads(done.stdout)["Dir"])
    found: list[dict[str, Any]] = []
    for generated in sorted(root.glob("**/zz_generated.prerelease-lifecycle.go")):
        register = (generated.parent / "register.go").read_text()
        group = _GROUP.search(register)
        text = generated.read_text()
        replaced = {kind: f"{g}/{v}" if g else v for kind, g, v in _REPLACED.findall(text)}
        for kind, major, minor in _REMOVED.findall(text):
            if kind.endswith(("List", "Options")):
                continue
            found.append({"group": group.group(1) if group else "", "version": generated.parent.name, "kind": kind,
                          "removed": f"{major}.{minor}", "replacement": replaced.get(kind, "")})
    return found


def oracle_answer() -> list[dict[str, Any]]:
    built = subprocess.run([str(ROOT / "scripts" / "build-pulumi-cli"), "oracle"], capture_output=True, text=True,
                           check=False)
    if built.returncode != 0:
        raise SystemExit(f"generate_removed_apis: building the oracle failed:\n{built.stderr}")
    where = subprocess.run([str(ROOT / "scripts" / "build-pulumi-cli"), "--built", "oracle"], capture_output=True,
                           text=True, check=True).stdout.strip().splitlines()[-1]
    done = subprocess.run([str(Path(where) / "compute-guard-oracle")], input='{"removed": true}', capture_output=True,
                          text=True, check=True, timeout=300)
    found: list[dict[str, Any]] = json.loads(done.stdout)["removed"]
    return found


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1, sort_keys=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file is stale")
    args = parser.parse_args()
    answer = [entry for version in EARLIER for entry in earlier(version)] + oracle_answer()  # the latest word last
    text = render(table(answer, release()))
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run scripts/generate_removed_apis.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
