"""scripts/build-pulumi-cli as a newcomer's first run meets it (issue 39), with a stand-in `go` on PATH so that it runs
in seconds: a line per component when it starts (with its usual duration) and when it is done; `--built` per
language; an interrupted build stops its whole process group, leaves no half-written binary and no stamp, and the
next run resumes and finishes. (The real build is scripts/test's, before pytest starts.)"""

from __future__ import annotations

import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build-pulumi-cli"
COMPONENTS = ["cli", "python-host", "kubernetes", "yaml-host", "nodejs-host", "go-host", "oracle", "standin"]

# A stand-in for the Go toolchain: `go build -o X` writes X (slowly, with a child process, when X's name is in
# $STAND_IN_SLOW), `go mod download -json` names a module directory shaped like the Kubernetes provider's, the rest
# succeeds. Every process it starts carries the marker in its command line, so a test can find what is left.
STAND_IN = textwrap.dedent("""\
    #!/usr/bin/env bash
    # compute-guard-stand-in-go
    if [ "$1 $2" = "mod download" ]; then
      dir="$STAND_IN_ROOT/module"
      mkdir -p "$dir/cmd/pulumi-resource-kubernetes"
      printf 'module x\\nrequire k8s.io/client-go v0.33.3\\n' > "$dir/go.mod"
      printf '{\\n\\t"Dir": "%s",\\n}\\n' "$dir"
      exit 0
    fi
    if [ "$1" = build ]; then
      out=""
      while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
      printf 'half' > "$out"
      if [ -n "$STAND_IN_SLOW" ] && [[ "$out" == *"$STAND_IN_SLOW"* ]]; then
        bash -c 'exec -a compute-guard-stand-in-go-child sleep 300' &
        sleep 300
      fi
      printf '#!/bin/sh\\n' > "$out"
      chmod +x "$out"
    fi
    exit 0
""")


@pytest.fixture
def machine(tmp_path):
    """A fresh cache and a PATH whose `go` is the stand-in."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "go").write_text(STAND_IN)
    (tools / "go").chmod(0o755)
    env = dict(os.environ, PATH=f"{tools}:{os.environ['PATH']}", COMPUTE_GUARD_CACHE=str(tmp_path / "cache"),
               STAND_IN_ROOT=str(tmp_path), STAND_IN_SLOW="")
    bin_dir = tmp_path / "cache" / "pulumi-v3.260.0" / "bin"
    return env, bin_dir


def run(env, *args, timeout=120):
    return subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=timeout)


def left_over() -> list[str]:
    found = subprocess.run(["pgrep", "-f", "compute-guard-stand-in-go"], capture_output=True, text=True)
    return found.stdout.split()


def test_a_first_run_says_each_component_as_it_builds_and_the_languages_are_answered_apart(machine):
    env, bin_dir = machine
    assert run(env, "--built").returncode == 1 and run(env, "--built", "python").returncode == 1
    built = run(env, "python")
    assert built.returncode == 0, built.stderr
    assert built.stdout.strip() == str(bin_dir)
    lines = built.stderr.splitlines()
    for component in ("cli", "python-host", "kubernetes"):
        assert any(line.startswith(f"build-pulumi-cli: {component}: building (usually about ") for line in lines)
        assert any(line.startswith(f"build-pulumi-cli: {component}: built in ") for line in lines)
    assert not any("yaml-host" in line or "nodejs-host" in line or "go-host" in line or "oracle" in line
                   or "standin" in line for line in lines)
    # what a Python program needs is there; the other languages' hosts are not
    assert run(env, "--built", "python").returncode == 0
    assert [run(env, "--built", language).returncode for language in ("nodejs", "go", "yaml")] == [1, 1, 1]
    assert run(env, "--built").returncode == 1
    everything = run(env)
    assert everything.returncode == 0, everything.stderr
    started = [line.split(":")[1].strip() for line in everything.stderr.splitlines() if ": building (" in line]
    assert started == ["yaml-host", "nodejs-host", "go-host", "oracle", "standin"]  # the rest was built already
    assert run(env, "--built").returncode == 0
    assert not list(bin_dir.glob("*.tmp"))
    assert run(env, "--built", "cobol").returncode == 2
    assert run(env, "--built", "oracle").returncode == 0
    (bin_dir / ".oracle-stamp").write_text("an older oracle source\n")  # tests/oracle changed since it was built
    assert run(env, "--built", "oracle").returncode == 1
    rebuilt = run(env, "oracle")
    assert rebuilt.returncode == 0 and "oracle: building (usually about 4 min" in rebuilt.stderr
    # the stand-in providers likewise: rebuilt when tests/standin (or the SDK versions they stand under) changed
    assert run(env, "--built", "standin").returncode == 0
    (bin_dir / ".standin-stamp").write_text("an older stand-in source\n")
    assert run(env, "--built", "standin").returncode == 1
    rebuilt = run(env, "standin")
    assert rebuilt.returncode == 0 and "standin: building (usually about 3 min" in rebuilt.stderr


def test_an_interrupted_build_leaves_nothing_half_written_stops_its_group_and_resumes(machine):
    env, bin_dir = machine
    assert run(env, "python").returncode == 0
    slow = dict(env, STAND_IN_SLOW="pulumi-language-go.tmp")
    process = subprocess.Popen([str(SCRIPT), "go"], env=slow, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    deadline = time.monotonic() + 30
    while not (bin_dir / "pulumi-language-go.tmp").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (bin_dir / "pulumi-language-go.tmp").exists(), "the build never started"
    assert left_over(), "the stand-in build should be running"
    process.send_signal(signal.SIGTERM)  # what a CI timeout sends; Ctrl-C's SIGINT is trapped alike
    _out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "go-host: building" in err and "interrupted; nothing half-built was kept" in err
    assert not list(bin_dir.glob("*.tmp")) and not (bin_dir / "pulumi-language-go").exists()
    assert not (bin_dir / ".pulumi-language-go-stamp").exists()
    deadline = time.monotonic() + 10
    while left_over() and time.monotonic() < deadline:  # the go build and its child, killed as a group
        time.sleep(0.1)
    assert not left_over()
    resumed = run(env, "go")
    assert resumed.returncode == 0, resumed.stderr
    assert [line for line in resumed.stderr.splitlines() if ": building (" in line] == [
        "build-pulumi-cli: go-host: building (usually about 3 min on 2 cores)"]
    assert run(env, "--built", "go").returncode == 0
