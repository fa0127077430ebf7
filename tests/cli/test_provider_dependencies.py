"""Which cluster a workload runs on (SPEC 14.2) rests on what the engine tells a policy pack: each resource's
provider, and the resources a provider's kubeconfig depends on. Proven under the real CLI with a probe pack that says
what it was told, and the test kit held to the same answers for the same program."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from pulumi_cli import ROOT, open_stack, policy_findings

PROGRAMS = Path(__file__).resolve().parent / "programs"
EXPECTED = [
    ("api", "api: provider 'east' (pulumi:providers:kubernetes), its kubeconfig depends on [east-cluster], and it on "
            "[]"),
    ("other", "other: provider 'render' (pulumi:providers:kubernetes), its kubeconfig depends on [], and it on []"),
    ("web", "web: provider 'west' (pulumi:providers:kubernetes), its kubeconfig depends on [], and it on "
            "[west-cluster]"),
]


def probe_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "probe"
    shutil.copytree(PROGRAMS / "probe", pack, ignore=shutil.ignore_patterns("__pycache__"))
    (pack / "PulumiPolicy.yaml").write_text(
        f"description: probe\nruntime:\n  name: python\n  options:\n    virtualenv: {ROOT / 'venv'}\nversion: 0.0.1\n")
    return pack


def test_the_engine_tells_the_pack_each_workloads_provider_and_what_its_kubeconfig_depends_on(toolchain, tmp_path):
    stack = open_stack(toolchain, PROGRAMS / "provider-dependencies", tmp_path)
    out = stack.ok("preview", "--policy-pack", str(probe_pack(tmp_path)))
    found = sorted((f.name, f.message) for f in policy_findings(out) if f.policy == "probe-provider-dependencies")
    assert found == EXPECTED, out


def test_the_test_kit_tells_the_pack_the_same():
    sys.path.insert(0, str(PROGRAMS / "probe"))
    try:
        from probe import PROBE
    finally:
        sys.path.remove(str(PROGRAMS / "probe"))
    from compute_guard.testkit import evaluate

    result = evaluate(PROGRAMS / "provider-dependencies", pack=[PROBE])
    found = sorted((v.urn.rsplit("::", 1)[-1], v.finding) for v in result.of("probe-provider-dependencies"))
    assert found == EXPECTED
