"""The pack under the real Pulumi CLI, built from the Go module proxy (scripts/build-pulumi-cli).

`pulumi policy analyze --file <export>` runs the pack the way an organisation runs it on deployed
state: no program, no provider, no backend. The states here are what real Pulumi programs
register (captured under mocks) written out as `pulumi stack export` documents.

Previews and updates of a program need a language host, and the Python one is not available from
the Go module proxy (see scripts/build-pulumi-cli), so they are not exercised here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf import json_format

from builders import AMD64, apps_pool, cluster, deployment, placed, seed_cluster_args
from compute_cluster import CapacityGroup, ComputeCluster, ComputeClusterArgs
from testkit import capture_program

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("go") is None and not os.environ.get("CI"),
                                reason="building the Pulumi CLI needs Go")


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    bin_dir = subprocess.run([str(ROOT / "scripts" / "build-pulumi-cli")], check=True, capture_output=True,
                             text=True, timeout=3000).stdout.strip()
    home = tmp_path_factory.mktemp("pulumi-home")
    env = dict(os.environ, PATH=f"{bin_dir}:{ROOT / 'venv' / 'bin'}:{os.environ['PATH']}", PULUMI_HOME=str(home),
               PULUMI_SKIP_UPDATE_CHECK="true", PULUMI_CONFIG_PASSPHRASE="test", PULUMI_DIY_BACKEND_NO_LOCK="true")
    return Path(bin_dir) / "pulumi", env


def export_of(parts, path: Path) -> Path:
    def program():
        for part in parts:
            part()

    resources = [{"urn": "urn:pulumi:stack::project::pulumi:pulumi:Stack::project-stack", "custom": False,
                  "type": "pulumi:pulumi:Stack"}]
    for r in capture_program(program):
        entry = {"urn": r.urn, "type": r.type, "inputs": json_format.MessageToDict(r.inputs),
                 "outputs": json_format.MessageToDict(r.outputs), "custom": r.type.startswith("kubernetes:")}
        if entry["custom"]:
            entry["id"] = r.name
        resources.append(entry)
    path.write_text(json.dumps({"version": 3, "deployment": {
        "manifest": {"time": "2026-11-29T00:00:00Z", "magic": "", "version": "v3.260.0"},
        "resources": resources}}))
    return path


def analyze(cli, export: Path, config: dict | None = None, tmp: Path | None = None):
    pulumi, env = cli
    command = [str(pulumi), "policy", "analyze", "--file", str(export), "--policy-pack", str(ROOT),
               "--non-interactive", "--color", "never"]
    if config is not None:
        config_path = (tmp or export.parent) / "policy-config.json"
        config_path.write_text(json.dumps(config))
        command += ["--policy-pack-config", str(config_path)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, cwd=export.parent)


KUBERNETES = {"kubernetes-compute-enforceable": {"platform": "kubernetes"}}


def test_a_clean_state_passes(cli, tmp_path):
    export = export_of([cluster(), deployment("api", labels=placed(), node_selector=AMD64)], tmp_path / "s.json")
    done = analyze(cli, export, KUBERNETES)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "compute-guard" in done.stdout


def test_a_mandatory_violation_fails_with_policy_resource_and_message(cli, tmp_path):
    broken = seed_cluster_args(capacity_groups=[apps_pool(min_size=3, max_size=2)])
    export = export_of([cluster(broken)], tmp_path / "s.json")
    done = analyze(cli, export, KUBERNETES)
    assert done.returncode != 0
    out = done.stdout + done.stderr
    assert "compute-cluster-valid" in out and "mandatory" in out
    assert "minSize 3 is greater than maxSize 2" in out and "compute" in out


def test_workloads_in_state_are_checked(cli, tmp_path):
    export = export_of([cluster(), deployment("api", labels=placed())], tmp_path / "s.json")
    done = analyze(cli, export, KUBERNETES)
    assert done.returncode != 0
    assert "workload-node-architecture" in done.stdout + done.stderr
    assert "Deployment 'api': its Pods need amd64 nodes" in done.stdout + done.stderr


def test_an_advisory_violation_passes_and_is_shown(cli, tmp_path):
    export = export_of([cluster(), deployment("api", labels=placed())], tmp_path / "s.json")
    done = analyze(cli, export, {**KUBERNETES, "workload-node-architecture": "advisory"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "workload-node-architecture" in done.stdout and "advisory" in done.stdout


def test_an_invalid_config_is_rejected(cli, tmp_path):
    export = export_of([cluster()], tmp_path / "s.json")
    done = analyze(cli, export, {"kubernetes-compute-enforceable": {"platform": "mars"}})
    assert done.returncode != 0
    out = done.stdout + done.stderr
    assert "platform" in out and "compute-cluster-valid" not in out


def test_safe_update_against_an_export_baseline(cli, tmp_path):
    def with_machine(machine):
        return [lambda: ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
            CapacityGroup(group_id="general", min_size=1, max_size=3, instance_type=machine)]))]

    baseline = export_of(with_machine("t4g.small"), tmp_path / "baseline.json")
    config = {"compute-cluster-safe-update": {"baseline": str(baseline)}, "cloud-machine-catalog": {"platform": "aws"}}
    same = analyze(cli, export_of(with_machine("t4g.medium"), tmp_path / "same.json"), config, tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr
    other = analyze(cli, export_of(with_machine("m7i.large"), tmp_path / "other.json"), config, tmp_path)
    assert other.returncode != 0
    assert "compute-cluster-safe-update" in other.stdout + other.stderr
    assert "can't change machine from 't4g.small' to 'm7i.large'" in other.stdout + other.stderr
