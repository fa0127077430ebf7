"""`pulumi policy analyze --file <export>` under the real CLI: the pack on deployed state the way an
organisation runs it, with no program, no provider and no backend. The states are what real
Pulumi programs register (captured under mocks), written out as `pulumi stack export` documents.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from builders import AMD64, DECLARED, LET_THROUGH, REFUSED, apps_pool, cluster, deployment, placed, seed_cluster_args
from google.protobuf import json_format
from pulumi_cli import ROOT, Finding, Toolchain, policy_findings

from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs
from compute_guard.policies import PACK_VERSION
from compute_guard.testkit import capture_program


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


def analyze(toolchain: Toolchain, export: Path, config: dict | None = None, tmp: Path | None = None):
    command = [toolchain.pulumi, "policy", "analyze", "--file", str(export), "--policy-pack", str(ROOT),
               "--non-interactive", "--color", "never"]
    if config is not None:
        config_path = (tmp or export.parent) / "policy-config.json"
        config_path.write_text(json.dumps(config))
        command += ["--policy-pack-config", str(config_path)]
    return subprocess.run(command, capture_output=True, text=True, env=toolchain.env, timeout=600, cwd=export.parent)


KUBERNETES = {"kubernetes-compute-enforceable": {"platform": "kubernetes"}}


CLUSTER = ("compute:index:ComputeCluster", "compute")
API = ("kubernetes:apps/v1:Deployment", "api")
UNPINNED = ("Deployment 'api': its Pods need amd64 nodes (the stack's compute pools declare x86_64), "
            "but nothing pins them there and they could be scheduled on another architecture in a mixed cluster; "
            "set spec.template.spec.nodeSelector['kubernetes.io/arch'] to 'amd64'")


def test_a_clean_state_passes(toolchain, tmp_path):
    export = export_of([cluster(), deployment("api", labels=placed(), node_selector=AMD64, requests=DECLARED)],
                       tmp_path / "s.json")
    done = analyze(toolchain, export, KUBERNETES)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"✅ compute-guard@v{PACK_VERSION}" in done.stdout and policy_findings(done.stdout) == []


def test_a_mandatory_violation_fails_with_policy_resource_and_message(toolchain, tmp_path):
    broken = seed_cluster_args(capacity_groups=[apps_pool(min_size=3, max_size=2)])
    done = analyze(toolchain, export_of([cluster(broken)], tmp_path / "s.json"), KUBERNETES)
    assert done.returncode != 0
    assert policy_findings(done.stdout) == [Finding(
        "mandatory", "compute-cluster-valid", *CLUSTER,
        "ComputeCluster 'compute' pool 'apps': minSize 3 is greater than maxSize 2; lower minSize or raise maxSize")]


def test_workloads_in_state_are_checked_and_levels_apply(toolchain, tmp_path):
    export = export_of([cluster(), deployment("api", labels=placed(), requests=DECLARED)], tmp_path / "s.json")
    done = analyze(toolchain, export, KUBERNETES)
    assert done.returncode != 0
    assert policy_findings(done.stdout) == [Finding("mandatory", "workload-node-architecture", *API, UNPINNED)]
    done = analyze(toolchain, export, {**KUBERNETES, "workload-node-architecture": "advisory"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert policy_findings(done.stdout) == [Finding("advisory", "workload-node-architecture", *API, UNPINNED)]


def test_all_sets_every_level_and_a_policys_own_entry_wins(toolchain, tmp_path):
    """The engine's "all" key, as tests/engine/test_engine_protocol.py holds the test kit to it."""
    export = export_of([cluster(), deployment("api", labels=placed(), requests=DECLARED)], tmp_path / "s.json")
    pin = ("Deployment 'api': its Pods need amd64 nodes (the stack's compute pools declare x86_64) and carry no "
           "architecture constraint; at level remediate this policy adds "
           "spec.template.spec.nodeSelector['kubernetes.io/arch'] = 'amd64'")
    done = analyze(toolchain, export, {**KUBERNETES, "all": "advisory"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(policy_findings(done.stdout), key=str) == [Finding("advisory", "workload-architecture-pin", *API, pin),
                                                    Finding("advisory", "workload-node-architecture", *API, UNPINNED)]
    done = analyze(toolchain, export, {**KUBERNETES, "all": "advisory", "workload-node-architecture": "mandatory"})
    assert done.returncode != 0
    assert sorted(policy_findings(done.stdout), key=str) == [Finding("advisory", "workload-architecture-pin", *API, pin),
                                                    Finding("mandatory", "workload-node-architecture", *API, UNPINNED)]


def test_an_invalid_config_is_refused_before_any_analysis(toolchain, tmp_path):
    broken = seed_cluster_args(capacity_groups=[apps_pool(min_size=3, max_size=2)])
    done = analyze(toolchain, export_of([cluster(broken)], tmp_path / "s.json"),
                   {"kubernetes-compute-enforceable": {"platform": "mars"}})
    assert done.returncode != 0
    out = done.stdout + done.stderr
    assert 'platform must be one of the following: "aws", "gcp", "azure", "kubernetes", "local"' in out
    assert "compute-cluster-valid" not in out  # the broken cluster was never analyzed


def test_safe_update_against_an_export_baseline(toolchain, tmp_path):
    def with_machine(machine):
        return [lambda: ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
            CapacityGroup(group_id="general", min_size=1, max_size=3, instance_type=machine)]))]

    baseline = export_of(with_machine("t4g.small"), tmp_path / "baseline.json")
    config = {"compute-cluster-safe-update": {"baseline": str(baseline)}, "cloud-machine-catalog": {"platform": "aws"}}
    same = analyze(toolchain, export_of(with_machine("t4g.medium"), tmp_path / "same.json"), config, tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr
    assert policy_findings(same.stdout) == []
    other = analyze(toolchain, export_of(with_machine("m7i.large"), tmp_path / "other.json"), config, tmp_path)
    assert other.returncode != 0
    assert [(f.policy, f.name) for f in policy_findings(other.stdout)] == [("compute-cluster-safe-update", "compute")]
    assert policy_findings(other.stdout)[0].message.startswith(
        "ComputeCluster 'compute' pool 'general': can't change machine from 't4g.small' (arm64) to 'm7i.large' "
        "(x86_64)")


@pytest.mark.parametrize("config", REFUSED)
def test_the_real_cli_refuses_what_the_test_kit_refuses(toolchain, tmp_path, config):
    broken = seed_cluster_args(capacity_groups=[apps_pool(min_size=3, max_size=2)])
    done = analyze(toolchain, export_of([cluster(broken)], tmp_path / "s.json"), config)
    assert done.returncode != 0
    out = done.stdout + done.stderr
    (policy,) = config
    assert "error: loading policy packs:" in out and f"{policy}" in out and "Policies:" not in out, out


@pytest.mark.parametrize("config", LET_THROUGH)
def test_the_real_cli_lets_through_what_the_test_kit_lets_through(toolchain, tmp_path, config):
    """Unknown policy names and settings are ignored by the engine: a typo in a setting is silently dropped."""
    done = analyze(toolchain, export_of([cluster()], tmp_path / "s.json"), {**KUBERNETES, **config})
    assert done.returncode == 0, done.stdout + done.stderr
    assert policy_findings(done.stdout) == []
