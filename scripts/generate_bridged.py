#!/usr/bin/env python3
"""Write compute_guard/testkit/bridged.json: what the test kit needs of each Terraform-bridged resource it gives as the
engine would (SPEC 8), read from the tests' stand-in providers (tests/standin, built by `scripts/build-pulumi-cli
standin`), which declare the resources with their upstream providers' Terraform schemas under pulumi-terraform-bridge's
own code: per type token, the fields in Pulumi's names with their shape, Computed, Optional, ForceNew, Default and
ConflictsWith, and the fields the provider auto-names. tests/testkit/test_bridged.py holds the file to the stand-ins.

    venv/bin/python scripts/generate_bridged.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "compute_guard" / "testkit" / "bridged.json"


def table(standin: Path) -> dict:
    """The stand-ins' resources, by type token, as the file holds them."""
    found: dict = {}
    for provider in ("aws", "gcp"):
        done = subprocess.run([str(standin), "-table"], capture_output=True, text=True, check=True, timeout=120,
                              env={**os.environ, "STANDIN_PROVIDER": provider})
        found.update(json.loads(done.stdout))
    return dict(sorted(found.items()))


def main() -> int:
    built = subprocess.run([str(ROOT / "scripts" / "build-pulumi-cli"), "--built", "standin"], capture_output=True,
                           text=True)
    if built.returncode != 0:
        print("generate_bridged: build the stand-ins first: scripts/build-pulumi-cli standin", file=sys.stderr)
        return 1
    standin = Path(built.stdout.strip().splitlines()[-1]) / "compute-guard-standin"
    TARGET.write_text(json.dumps(table(standin), indent=1, sort_keys=True) + "\n")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
