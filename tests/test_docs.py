"""Issue "Documentation a user can navigate": the README is a landing page, the policy reference is generated from
the code and current, each policy's examples decide what they show, and every relative link and every command of
README.md, CONTRIBUTING.md and docs/ is checked (the `pulumi` ones against the real CLI in
tests/cli/test_troubleshooting.py)."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path

import pytest

from compute_guard import cli
from compute_guard.policies import ALL

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def _reference():
    spec = importlib.util.spec_from_file_location("policy_reference", ROOT / "scripts" / "policy_reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["policy_reference"] = module
    spec.loader.exec_module(module)
    return module


REFERENCE = _reference()


@pytest.fixture(scope="module")
def examples():
    return REFERENCE.evaluated()


# --- the reference ---------------------------------------------------------------------------------------------

def test_the_policy_reference_and_the_readme_table_are_current(examples):
    assert (ROOT / "docs" / "policies.md").read_text() == REFERENCE.reference(examples), \
        "docs/policies.md is not current: run venv/bin/python scripts/policy_reference.py"
    readme = (ROOT / "README.md").read_text()
    assert REFERENCE.readme(readme) == readme, "the README's table is not current: run scripts/policy_reference.py"


def test_every_policy_has_a_failing_and_a_passing_example():
    assert list(REFERENCE.load_examples()) == [policy.name for policy in ALL]


@pytest.mark.parametrize("policy", [policy.name for policy in ALL])
def test_each_example_decides_what_the_reference_says_of_it(examples, policy):
    passing, failing = examples[policy]
    assert failing.messages(policy), f"the failing example of {policy} gets no finding of it"
    assert passing.result.violations == [], f"the passing example of {policy}: {passing.result.violations}"
    assert passing.result.notes == []
    page = (ROOT / "docs" / "policies.md").read_text()
    section = page.split(f"\n## {policy}\n", 1)[1].split("\n## ", 1)[0]
    for message in failing.messages(policy):
        assert message in section


def test_the_reference_shows_each_policys_metadata():
    page = (ROOT / "docs" / "policies.md").read_text()
    for policy in ALL:
        section = page.split(f"\n## {policy.name}\n", 1)[1].split("\n## ", 1)[0]
        assert policy.description in section and policy.remediation_steps in section
        assert f"default level **{policy.level.value}** · severity **{policy.severity.value}**" in section
        for setting in policy.settings:
            assert f"- `{setting}` (" in section


# --- the README as a landing page ------------------------------------------------------------------------------

def test_the_readme_is_a_landing_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 15 * 1024
    assert readme.index("pulumi preview --policy-pack") < 3000  # how to run it on your own stack, near the top
    assert "## Exempting one resource" in readme and "](docs/policies.md)" in readme
    assert "![" in readme  # the report's screenshot
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)(?:#[\w-]+)?\)", readme))
    assert {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")} <= linked  # a table of contents


# --- links -----------------------------------------------------------------------------------------------------

def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation but hyphens and underscores dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"(?ms)^```.*?^```", "", path.read_text())  # no headings inside code blocks
    return {slug(match) for match in re.findall(r"(?m)^#{1,6} (.*)$", text)}


def links(path: Path) -> list[str]:
    text = re.sub(r"(?ms)^\s*```.*?^\s*```", "", path.read_text())
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("page", PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+://", target):
            continue
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        if not resolved.exists() or (anchor and anchor not in anchors(resolved)):
            broken.append(target)
    assert broken == []


def test_the_link_checker_finds_a_broken_link_and_anchor(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## A section\n\n[ok](#a-section) [no](#nowhere) [gone](missing.md)\n")
    assert slug("The placement report: `compute-guard report`") == "the-placement-report-compute-guard-report"
    assert [target for target in links(page) if target.partition("#")[2] not in anchors(page)] == \
        ["#nowhere", "missing.md"]


# --- commands --------------------------------------------------------------------------------------------------

def commands(path: Path) -> list[str]:
    """Every command of the page's ```sh blocks, continuation lines joined, comments dropped."""
    found = []
    for block in re.findall(r"(?ms)^\s*```sh\n(.*?)^\s*```", path.read_text()):
        block = re.sub(r"\\\n\s*", " ", block)
        for line in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#"):
                found.append(line)
    return found


ALL_COMMANDS = [(page, command) for page in PAGES for command in commands(page)]
SHELL_WORDS = {"cd", "echo", "export", "rm", "pip", "go", "python"}  # the shell's and the toolchains' own
# A user's own virtual environment, as docs/testing.md makes it (tests/dist runs those install lines as written).
USER_VENV = ".venv/bin/"


def parts(command: str) -> list[list[str]]:
    """A command line as its simple commands (split at |, &&, ||, ;), each as words, redirections dropped."""
    pieces = re.split(r"\s*(?:\|\||&&|\||;)\s*", command)
    words = [shlex.split(re.sub(r"\s[12]?>>?\s*\S+", "", piece)) for piece in pieces]
    return [piece for piece in words if piece]


def test_every_command_is_one_the_tests_check():
    assert len(ALL_COMMANDS) >= 20
    unknown = [(page.name, command) for page, command in ALL_COMMANDS for words in parts(command)
               if words[0] not in {"pulumi", "compute-guard", *SHELL_WORDS}
               and not words[0].startswith(("scripts/", "venv/bin/", "$(", USER_VENV))]
    assert unknown == []


@pytest.mark.parametrize("page, command", [(page, command) for page, command in ALL_COMMANDS
                                           if any(w[0].startswith(("scripts/", "venv/bin/")) for w in parts(command))],
                         ids=lambda value: value if isinstance(value, str) else value.name)
def test_every_script_a_page_runs_exists_and_takes_its_arguments(page, command):
    for words in parts(command):
        if not words[0].startswith(("scripts/", "venv/bin/")):
            continue
        program = words[0]
        if program.startswith("venv/bin/"):
            name = program.removeprefix("venv/bin/")
            assert name in {"python", "compute-guard", "ruff"}, program
            if name == "python" and words[1] == "-m":
                assert importlib.util.find_spec(words[2]) is not None, words[2]
            elif name == "python":
                assert (ROOT / words[1]).is_file(), words[1]
            if name == "compute-guard":
                check_compute_guard(words[1:])
            continue
        assert (ROOT / program).is_file(), program
        arguments = [word for word in words[1:] if not word.startswith("-") and "<" not in word]
        for argument in arguments:  # a program directory or stack of the examples, as written
            if "/" in argument and not argument.startswith("/"):
                assert (ROOT / argument).exists() or (ROOT / argument).parent.exists(), argument


def check_compute_guard(arguments: list[str]) -> None:
    """The command line accepts what the page writes (its subcommand, flags and formats), parsed, not run."""
    cli._parser().parse_args(arguments)  # argparse exits (SystemExit) on what it does not take


@pytest.mark.parametrize("page, command", [(page, command) for page, command in ALL_COMMANDS
                                           if any(w[0] == "compute-guard" for w in parts(command))],
                         ids=lambda value: value if isinstance(value, str) else value.name)
def test_every_compute_guard_command_parses(page, command):
    for words in parts(command):
        if words[0] == "compute-guard":
            check_compute_guard(words[1:])


def test_every_pip_install_names_extras_the_distribution_has():
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    installs = [words for _, command in ALL_COMMANDS for words in parts(command)
                if words[:2] in (["pip", "install"], [f"{USER_VENV}pip", "install"])]
    assert installs
    for words in installs:
        given = words[2:]
        if given[:2] == ["-r", "requirements.txt"]:  # the program's own requirements beside it
            given = given[2:]
        for requirement in given:
            if requirement == "pytest":
                continue
            name, _, rest = requirement.partition("[")
            # compute-guard is not on PyPI: a checkout's directory, or a wheel built from one
            assert (name.endswith("/compute-guard") or re.fullmatch(r"(.*/)?compute_guard-[^/]+\.whl", name)) \
                and set(rest.rstrip("]").split(",")) <= extras, requirement

