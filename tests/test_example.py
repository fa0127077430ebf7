"""The bundled example: clean on its dev stack, rejected on its broken stack, offline."""

import subprocess
import sys
from pathlib import Path

import pytest

from compute_guard.testkit.preview import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "kubernetes"
# The example's Helm chart as the provider renders it (tests/cli/test_examples.py holds the two equal).
STATUS_PAGE = ROOT / "tests" / "testkit" / "rendered" / "status-page.yaml"
NOT_CHECKED = "    - kubernetes:helm.sh/v4:Chart 'status' (a Helm chart"


def test_the_example_previews_clean(capsys):
    assert main([str(EXAMPLE), "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert "✅ compute-guard" in out
    for name in ("compute", "api", "db", "log-agent", "report", "status"):
        assert f" {name}\n" in out
    # the chart only the provider renders is said once, after the findings it is not part of
    assert out.count(NOT_CHECKED) == 1
    assert out.index("✅ compute-guard") < out.index("Not checked offline") < out.index(NOT_CHECKED)
    assert "no policy saw its workloads; pass --rendered status=<its rendered manifests> to check them" in out


def test_the_charts_rendered_manifests_are_checked_when_given(capsys):
    assert main([str(EXAMPLE), "--stack", "dev", "--rendered", f"status={STATUS_PAGE}"]) == 0
    out = capsys.readouterr().out
    assert "kubernetes:apps/v1:Deployment               status:default/status\n" in out
    assert "Not checked offline" not in out
    with pytest.raises(SystemExit):  # a name the program does not declare is refused, not ignored
        main([str(EXAMPLE), "--stack", "dev", "--rendered", f"ingress={STATUS_PAGE}"])
    assert "rendered= names 'ingress'" in capsys.readouterr().err


def test_the_broken_stack_fails_with_its_findings(capsys):
    assert main([str(EXAMPLE), "--stack", "broken"]) == 1
    out = capsys.readouterr().out
    assert "❌ compute-guard" in out
    assert "[mandatory] [severity: high]  workload-pool-placement  (kubernetes:apps/v1:Deployment: legacy)" in out
    assert "[mandatory] [severity: high]  workload-architecture-selector-valid  (kubernetes:apps/v1:Deployment: legacy)" in out
    assert "[mandatory] [severity: high]  workload-node-architecture  (kubernetes:apps/v1:Deployment: legacy)" in out
    assert "[mandatory] [severity: high]  workload-fits-pool  (kubernetes:apps/v1:Deployment: encoder)" in out
    assert "[mandatory] [severity: medium]  pool-capacity  (compute:index:ComputeCluster: compute)" in out
    assert "error: preview failed: 5 mandatory policy violation(s)" in out


def test_policy_pack_config_can_make_it_advisory(tmp_path, capsys):
    config = tmp_path / "config.json"
    config.write_text('{"workload-pool-placement": "advisory", "workload-architecture-selector-valid": "disabled",'
                      ' "workload-node-architecture": {"enforcementLevel": "advisory"},'
                      ' "workload-fits-pool": "advisory", "pool-capacity": "advisory"}')
    assert main([str(EXAMPLE), "--stack", "broken", "--policy-pack-config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "[advisory] [severity: high]  workload-pool-placement" in out
    assert "workload-architecture-selector-valid  (" not in out


def test_the_readme_command_runs_from_a_shell():
    done = subprocess.run([str(ROOT / "scripts" / "preview")], capture_output=True, text=True,
                          env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "COMPUTE_GUARD_OFFLINE": "1",
                               "HOME": str(ROOT)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "✅ compute-guard" in done.stdout


def test_every_policy_config_the_readme_and_docs_show_is_accepted_by_the_pack():
    import json
    import re

    from compute_guard.testkit import Analyzer
    from compute_guard.testkit.analyzer import ConfigError

    readme = "\n".join(path.read_text() for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    blocks = [json.loads(block) for block in re.findall(r"(?m)^```json\n(.*?)```", readme, re.S)]
    shown = blocks + [json.loads(text) for text in re.findall(r"echo '(\{.*?\})'", readme)]
    assert len(shown) >= 4
    for config in shown:
        Analyzer(config)  # raises ConfigError when the engine would refuse it
    with pytest.raises(ConfigError, match="amd64"):  # the schema is checked: not arm64 or x86_64
        Analyzer({"workload-architecture-pin": {"enforcementLevel": "remediate", "architecture": "amd64"}})


def test_on_aws_the_general_pools_machine_is_its_node_and_its_architecture(tmp_path, capsys):
    """Issue 'One model of the stack': the stack 'aws' gives pool 'general' by its machine alone (m7i.xlarge, clean);
    the same stack with m7g.xlarge, an arm64 machine, refuses the amd64-pinned workloads on it and the two
    architectures. The real CLI's twin: tests/cli/test_examples.py."""
    import shutil

    assert main([str(EXAMPLE), "--stack", "aws"]) == 0
    assert "✅ compute-guard" in capsys.readouterr().out
    copy = tmp_path / "example"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("rendered", "__pycache__"))
    (copy / "Pulumi.arm.yaml").write_text((EXAMPLE / "Pulumi.aws.yaml").read_text().replace("m7i.xlarge", "m7g.xlarge"))
    assert main([str(copy), "--stack", "arm", "--rendered", f"status={STATUS_PAGE}"]) == 1
    out = capsys.readouterr().out
    for finding in ("compute-pools-single-architecture  (compute:index:ComputeCluster: compute)",
                    "workload-node-architecture  (kubernetes:apps/v1:DaemonSet: log-agent)",
                    "workload-node-architecture  (kubernetes:apps/v1:Deployment: api)",
                    "workload-node-architecture  (kubernetes:apps/v1:Deployment: status:default/status)"):
        assert f"[mandatory] [severity: high]  {finding}" in out
    assert ("Deployment 'api': its Pods need arm64 nodes (pool 'general' of ComputeCluster 'compute' runs m7g.xlarge, "
            "an arm64 machine), but its architecture constraints exclude arm64 (they allow amd64); set "
            "spec.template.spec.nodeSelector['kubernetes.io/arch'] to 'arm64'") in out
    assert "error: preview failed: 4 mandatory policy violation(s)" in out
