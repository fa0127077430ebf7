"""TypeScript and Go programs under the real CLI (issue "TypeScript and Go programs"): examples/typescript and
examples/go are the Python example (examples/kubernetes) with the ComputeCluster from the SDK `pulumi install`
generates from the component provider, built by the Node.js and Go language hosts scripts/build-pulumi-cli
builds. Each gives exactly the Python example's findings, the generated SDKs compile (tsc --noEmit, go build),
and a TypeScript stack's checkpoint refuses a cross-architecture machine change."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pulumi_cli import ROOT, open_stack, policy_findings, preview_json, report
from test_component_provider import without_urns

from compute_guard.policies import PACK_VERSION

PYTHON = ROOT / "examples" / "kubernetes"
PROGRAMS = {"typescript": ROOT / "examples" / "typescript", "go": ROOT / "examples" / "go"}
PASSED = f"✅ compute-guard@v{PACK_VERSION}"


def python_findings(toolchain, tmp_path, stack_name):
    stack = open_stack(toolchain, PYTHON, tmp_path / "python", stack_name)
    done = stack.run(*stack.preview())
    return policy_findings(done.stdout + done.stderr)


def compiles(language, work, env):
    """The program with its generated SDK, type-checked or built as its toolchain does."""
    command = ["npx", "tsc", "--noEmit"] if language == "typescript" else ["go", "build", "./..."]
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("language", ["typescript", "go"])
def test_the_program_gives_the_python_examples_findings_on_both_stacks(language, toolchain, tmp_path):
    if shutil.which("npm" if language == "typescript" else "go") is None:
        pytest.skip(f"{language} needs its toolchain")
    stack = open_stack(toolchain, PROGRAMS[language], tmp_path, "dev")
    installed = stack.run("install")  # the generated SDK (sdks/compute) and the program's dependencies
    assert (stack.work / "sdks" / "compute").is_dir(), installed.stdout + installed.stderr
    compiles(language, stack.work, stack.env)
    out = stack.ok(*stack.preview())
    assert PASSED in out and policy_findings(out) == []
    stack.ok("stack", "init", "broken")
    broken = policy_findings(stack.fails(*stack.preview()))
    assert broken == python_findings(toolchain, tmp_path, "broken")
    assert [finding.policy for finding in broken] == [
        "workload-architecture-selector-valid", "workload-fits-pool", "workload-node-architecture",
        "workload-pool-placement", "pool-capacity"]
    # and `compute-guard report` over its `pulumi preview --json` is the Python example's report
    code, document = report(stack, preview_json(stack))
    python = open_stack(toolchain, PYTHON, tmp_path / "python-report", "broken")
    python_code, python_document = report(python, preview_json(python))
    assert code == python_code == 1 and python_document["pools"]
    assert sorted(map(json.dumps, without_urns(document["findings"]))) == \
        sorted(map(json.dumps, without_urns(python_document["findings"])))
    assert without_urns(document["pools"]) == without_urns(python_document["pools"])
    assert "status:default/status" in json.dumps(document["pools"])  # the Helm chart's Deployment, on 'general'
    assert without_urns(document["unplaced"]) == without_urns(python_document["unplaced"])


def test_a_typescript_stacks_checkpoint_refuses_a_cross_architecture_machine_change(toolchain, tmp_path):
    if shutil.which("npm") is None:
        pytest.skip("TypeScript needs npm")
    stack = open_stack(toolchain, PROGRAMS["typescript"], tmp_path, "aws")
    stack.run("install")
    stack.ok(*stack.up())
    stack.config("generalMachine", "m7g.xlarge")
    findings = policy_findings(stack.fails(*stack.preview()))
    assert [(f.policy, f.name) for f in findings][:2] == [("compute-cluster-safe-update", "compute"),
                                                          ("compute-pools-single-architecture", "compute")]
    assert findings[0].message.startswith(
        "ComputeCluster 'compute' pool 'general': can't change machine from 'm7i.xlarge' (x86_64) to 'm7g.xlarge' "
        "(arm64)")


def test_the_readme_shows_both_programs_and_its_commands_run_as_written(toolchain, tmp_path):
    from pulumi_cli import bare_shell_env
    from test_component_provider import readme_blocks

    (typescript,) = readme_blocks("typescript")
    assert typescript in (PROGRAMS["typescript"] / "index.ts").read_text()
    (go,) = readme_blocks("go")
    assert go in (PROGRAMS["go"] / "main.go").read_text()
    commands = readme_blocks("sh")[-1]
    lines = [line.split("#")[0].split() for line in commands.splitlines()]
    assert lines == [["scripts/preview", "examples/typescript"], ["scripts/preview", "examples/go", "broken"]]
    env = bare_shell_env(toolchain, tmp_path)
    for tool in ("go", "npm"):  # a Go or Node.js user's shell has their toolchain
        env["PATH"] += f":{Path(shutil.which(tool) or '/usr/bin').parent}"
    dev, broken = (subprocess.run(["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, env=env,
                                  timeout=900) for line in commands.splitlines())
    assert dev.returncode == 0 and PASSED in dev.stdout and policy_findings(dev.stdout) == [], dev.stdout + dev.stderr
    assert broken.returncode != 0
    assert [finding.policy for finding in policy_findings(broken.stdout)] == [
        "workload-architecture-selector-valid", "workload-fits-pool", "workload-node-architecture",
        "workload-pool-placement", "pool-capacity"], broken.stdout + broken.stderr
