"""The pack under the real Pulumi CLI, built from the Go module proxy (scripts/build-pulumi-cli).

`pulumi policy analyze --file <export>` runs the pack the way an organisation runs it on deployed
state: no program, no provider, no backend. The states here are what real Pulumi programs
register (captured under mocks) written out as `pulumi stack export` documents.

`pulumi preview` / `pulumi up` run e2e/stack, a YAML program (the Python language host is not
available from the Go module proxy, see scripts/build-pulumi-cli) with one ComputeCluster of
e2e/provider, on a local (file://) backend.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from builders import AMD64, apps_pool, cluster, deployment, placed, seed_cluster_args
from google.protobuf import json_format

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


# preview and up on a local backend ---------------------------------------------------------------

@pytest.fixture
def stack(cli, tmp_path):
    pulumi, env = cli
    work = tmp_path / "stack"
    shutil.copytree(ROOT / "e2e" / "stack", work)
    state = tmp_path / "state"
    state.mkdir()
    env = dict(env, PULUMI_BACKEND_URL=f"file://{state}")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(pulumi), *args, "--non-interactive", "--color", "never"], cwd=work, env=env,
                              capture_output=True, text=True, timeout=600)

    for command in (("stack", "init", "dev"), ("config", "set", "compute:platform", "aws")):
        done = run(*command)
        assert done.returncode == 0, done.stdout + done.stderr
    return run


def preview(stack, config: dict | None = None, tmp: Path | None = None):
    args = ["preview", "--policy-pack", str(ROOT)]
    if config is not None:
        assert tmp is not None
        path = tmp / "preview-config.json"
        path.write_text(json.dumps(config))
        args += ["--policy-pack-config", str(path)]
    done = stack(*args)
    return done.returncode, done.stdout + done.stderr


def test_preview_passes_a_clean_stack_and_fails_a_broken_one(stack, tmp_path):
    code, out = preview(stack)
    assert code == 0, out
    assert "compute-guard" in out
    stack("config", "set", "minSize", "3")
    stack("config", "set", "maxSize", "2")
    code, out = preview(stack)
    assert code != 0
    assert "compute-cluster-valid" in out and "compute:index:ComputeCluster: compute" in out
    assert "ComputeCluster 'compute' pool 'general': minSize 3 is greater than maxSize 2" in out
    code, out = preview(stack, {"compute-cluster-valid": "advisory"}, tmp_path)
    assert code == 0, out
    assert "[advisory]" in out and "minSize 3 is greater than maxSize 2" in out


def test_preview_settings_and_invalid_config(stack, tmp_path):
    stack("config", "set", "machine", "m7g.xlarg")
    code, out = preview(stack)
    assert code != 0 and "did you mean 'm7g.xlarge'" in out
    code, out = preview(stack, {"cloud-machine-catalog": {"platform": "gcp"}}, tmp_path)
    assert code != 0 and "is not a machine type on GCP" in out
    code, out = preview(stack, {"cloud-machine-catalog": {"platform": "mars"}}, tmp_path)
    assert code != 0 and "platform" in out
    assert "is not a machine type" not in out  # refused before any resource was analyzed


def test_up_then_machine_changes_against_the_local_checkpoint_and_an_export(stack, tmp_path):
    done = stack("up", "--yes", "--policy-pack", str(ROOT))
    assert done.returncode == 0, done.stdout + done.stderr
    stack("config", "set", "machine", "t4g.medium")
    code, out = preview(stack)
    assert code == 0, out
    stack("config", "set", "machine", "m7i.large")
    code, out = preview(stack)
    assert code != 0
    assert "compute-cluster-safe-update" in out
    assert "can't change machine from 't4g.small' to 'm7i.large'" in out
    export = tmp_path / "export.json"
    assert stack("stack", "export", "--file", str(export)).returncode == 0
    state = json.loads(export.read_text())
    for resource in state["deployment"]["resources"]:
        if resource["type"] == "compute:index:ComputeCluster":
            resource["inputs"]["capacityGroups"][0]["instanceType"] = "m7g.large"
    export.write_text(json.dumps(state))
    code, out = preview(stack, {"compute-cluster-safe-update": {"baseline": str(export)}}, tmp_path)
    assert code != 0 and "can't change machine from 'm7g.large' to 'm7i.large'" in out
    analyzed = stack("policy", "analyze", "--policy-pack", str(ROOT), "--stack", "dev")
    assert analyzed.returncode == 0, analyzed.stdout + analyzed.stderr
