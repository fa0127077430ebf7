"""docs/troubleshooting.md under the real CLI: each message it quotes is the one the tools print today, and each fix
it gives works. Also the `pulumi` commands of every page: each subcommand exists and takes the flags written."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pulumi_cli import ROOT, open_stack

sys.path.insert(0, str(ROOT / "tests"))
from test_docs import ALL_COMMANDS, parts  # noqa: E402

GUIDE = (ROOT / "docs" / "troubleshooting.md").read_text()
CHART = ROOT / "examples" / "charts" / "status-page"
HANDLER = "signal.signal(signal.SIGINT, lambda signum, frame: sys.exit(1))"


def quoted(text: str) -> str:
    """The guide's message blocks, as one text."""
    return "\n".join(re.findall(r"```text\n(.*?)```", text, re.S))


def chart_program(tmp_path: Path, kube_version: str, body: str) -> Path:
    """A program rendering a copy of the examples' chart that asks for ``kube_version``."""
    (tmp_path / "charts").mkdir(parents=True)
    shutil.copytree(CHART, tmp_path / "charts" / "status-page")
    chart = tmp_path / "charts" / "status-page" / "Chart.yaml"
    chart.write_text(chart.read_text() + f'kubeVersion: "{kube_version}"\n')
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: kube-version\nruntime:\n  name: python\n  options:\n"
                                         "    virtualenv: venv\n")
    (program / "Pulumi.dev.yaml").write_text("config:\n  compute:platform: kubernetes\n")
    (program / "__main__.py").write_text(
        "import pulumi\nimport pulumi_kubernetes as k8s\n\n"
        'render = k8s.Provider("render", render_yaml_to_directory="rendered")\n' + body)
    return program


V4 = 'k8s.helm.v4.Chart("status", chart="../charts/status-page", opts=pulumi.ResourceOptions(provider=render))\n'
V3 = ('k8s.helm.v3.Chart("status", k8s.helm.v3.LocalChartOpts(path="../charts/status-page", kube_version="1.34.0"),\n'
      '                  opts=pulumi.ResourceOptions(provider=render))\n')


def test_a_chart_for_the_providers_kubernetes_renders_one_for_a_newer_one_is_refused_as_quoted(toolchain, tmp_path):
    fits = open_stack(toolchain, chart_program(tmp_path / "fits", ">=1.30.0-0", V4), tmp_path / "fits-work", "dev")
    out = fits.ok("preview")  # Helm's default in the built provider is its client-go's Kubernetes, 1.33
    assert "kubernetes:apps/v1:Deployment status:default/status create" in out
    newer = open_stack(toolchain, chart_program(tmp_path / "newer", ">=1.34.0-0", V4), tmp_path / "newer-work",
                       "dev")
    refused = newer.fails("preview")
    (message,) = [line.strip() for line in quoted(GUIDE).splitlines() if "kubeVersion" in line]
    assert message in refused


def test_a_v3_chart_renders_for_the_kubernetes_version_it_is_given(toolchain, tmp_path):
    stack = open_stack(toolchain, chart_program(tmp_path / "src", ">=1.34.0-0", V3), tmp_path / "work", "dev")
    out = stack.ok(*stack.preview())  # with the pack: its Deployment reaches the policies
    assert "kubernetes:apps/v1:Deployment status create" in out
    assert V3.split("\n")[0].split("(", 1)[1].split(",")[1].strip() in GUIDE  # the option the guide shows


def test_without_its_language_host_the_cli_says_so_as_quoted(toolchain, tmp_path):
    alone = tmp_path / "bin"
    alone.mkdir()
    shutil.copy(toolchain.bin_dir / "pulumi", alone / "pulumi")  # a copy: the CLI also looks beside its binary
    stack = open_stack(toolchain, chart_program(tmp_path / "src", ">=1.30.0-0", V4), tmp_path / "work", "dev")
    env = dict(stack.env, PATH=f"{alone}:/usr/bin:/bin")
    done = subprocess.run([str(alone / "pulumi"), "preview", "--non-interactive"], cwd=stack.work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    (message,) = [line for line in quoted(GUIDE).splitlines() if "no language plugin" in line]
    assert message in done.stdout + done.stderr
    fixed = subprocess.run([str(alone / "pulumi"), "preview", "--non-interactive"], cwd=stack.work, timeout=300,
                           env=dict(env, PATH=f"{toolchain.bin_dir}:{env['PATH']}"), capture_output=True, text=True)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr  # the guide's fix: the built directory first on PATH


def test_the_examples_exit_quietly_on_the_engines_sigint():
    """The broken stack's previews (tests/cli/test_examples.py) hold that no KeyboardInterrupt is printed."""
    for program in ("kubernetes", "helm"):
        assert HANDLER in (ROOT / "examples" / program / "__main__.py").read_text()
    assert HANDLER in GUIDE


def pulumi_commands() -> list[tuple[str, list[str]]]:
    return [(page.name, words) for page, command in ALL_COMMANDS for words in parts(command) if words[0] == "pulumi"]


def accepted(toolchain, words: list[str], helps: dict[str, str]) -> bool:
    """Whether the longest prefix of ``words`` that names a subcommand is one, and its help lists every flag."""
    path = [word for word in words[1:4] if re.fullmatch(r"[a-z-]+", word)]
    for length in range(len(path), 0, -1):
        key = " ".join(path[:length])
        if key not in helps:
            helps[key] = subprocess.run([toolchain.pulumi, *path[:length], "--help"], env=toolchain.env,
                                        capture_output=True, text=True, timeout=60).stdout
        if re.search(rf"(?m)^  pulumi {re.escape(key)}( |$)", helps[key]):
            flags = [word.split("=")[0] for word in words if word.startswith("--")]
            return all(re.search(rf"{re.escape(flag)}\b", helps[key]) for flag in flags)
    return False


def test_every_pulumi_command_of_the_pages_is_one_the_cli_takes(toolchain):
    commands = pulumi_commands()
    assert len(commands) >= 10
    helps: dict[str, str] = {}
    assert [(page, " ".join(words)) for page, words in commands if not accepted(toolchain, words, helps)] == []


@pytest.mark.parametrize("command", ["pulumi preview --policy-pak x", "pulumi polcy publish org",
                                     "pulumi stack exprt --file x"])
def test_the_command_check_refuses_a_wrong_flag_or_subcommand(toolchain, command):
    assert not accepted(toolchain, command.split(), {})
