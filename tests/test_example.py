"""The bundled example: clean on its dev stack, rejected on its broken stack, offline."""

import subprocess
import sys
from pathlib import Path

import pytest

from compute_guard.testkit.preview import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "kubernetes"


def test_the_example_previews_clean(capsys):
    assert main([str(EXAMPLE), "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert "✅ compute-guard" in out
    for name in ("compute", "api", "db", "log-agent", "report"):
        assert f" {name}\n" in out


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


def test_every_policy_config_the_readme_shows_is_accepted_by_the_pack():
    import json
    import re

    from compute_guard.testkit import Analyzer
    from compute_guard.testkit.analyzer import ConfigError

    readme = (ROOT / "README.md").read_text()
    blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", readme, re.S)]
    shown = blocks + [json.loads(text) for text in re.findall(r"echo '(\{.*?\})'", readme)]
    assert len(shown) >= 4
    for config in shown:
        Analyzer(config)  # raises ConfigError when the engine would refuse it
    with pytest.raises(ConfigError, match="amd64"):  # the schema is checked: not arm64 or x86_64
        Analyzer({"workload-architecture-pin": {"enforcementLevel": "remediate", "architecture": "amd64"}})
