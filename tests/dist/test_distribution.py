"""The distribution as an organisation adopts it: built from this repository, installed into a fresh
virtual environment, and used from a directory outside the repository by a user program (the
component), a user's test (the test kit), an organisation's own pack composed from
compute_guard.policies, started the way the engine starts packs, and a YAML program served the
component by the installed distribution's component provider."""

import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from builders import ROOT
from pulumi_cli import open_stack, policy_findings

from compute_guard.testkit import Resource
from compute_guard.testkit.engine import EnginePack

DEV_PINS = {line.split("==")[0]: line for line in (ROOT / "requirements-dev.txt").read_text().splitlines()
            if "==" in line and not line.startswith("#")}


def run(*command: str | Path, cwd: Path, timeout: int = 600) -> str:
    done = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def tracked_files() -> list[Path]:
    """The checkout's files as git knows them (tracked, or new and not ignored), relative to ROOT."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    return [Path(name) for name in listed if name and (ROOT / name).exists()]


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the checkout's own files (tracked, or new and not ignored): setuptools builds in the source tree and
    keeps what an earlier build left in build/ (a file that no longer exists, a copy older than its source), and the
    checkout holds a venv, caches and egg-info; none of it may reach what the tests install."""
    import shutil

    source = tmp_path_factory.mktemp("source") / "compute-guard"
    for name in tracked_files():
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_symlink():
            target.symlink_to((ROOT / name).readlink())
        elif (ROOT / name).is_file():
            shutil.copy2(ROOT / name, target)
    return source


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, source) -> Path:
    """The wheel, built from the copy of the checkout's files."""
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", out, source, cwd=out)
    (built,) = out.glob("compute_guard-*.whl")
    return built


def test_the_wheel_holds_exactly_the_checkouts_code(wheel):
    """Every module and data file of the wheel is the checkout's, byte for byte, and every one of the checkout's
    is in it: a test of the installed distribution runs the code of this tree, not a cached or stale build."""
    archive = zipfile.ZipFile(wheel)
    shipped = {name: archive.read(name) for name in archive.namelist()
               if name.startswith("compute_guard/") and not name.endswith("/")}
    expected = {}
    for name in tracked_files():
        parts = name.parts
        if parts[0] == "policies":
            expected["/".join(("compute_guard", *parts))] = (ROOT / name).read_bytes()
        elif parts[0] == "compute_guard" and parts[:2] != ("compute_guard", "policies") and (ROOT / name).is_file():
            expected["/".join(parts)] = (ROOT / name).read_bytes()
    assert sorted(shipped) == sorted(expected)
    assert [name for name in shipped if shipped[name] != expected[name]] == []


@pytest.fixture(scope="module")
def user(tmp_path_factory, wheel) -> Path:
    """A fresh virtual environment with the distribution, in a directory outside the repository."""
    home = tmp_path_factory.mktemp("user")
    run(sys.executable, "-m", "venv", home / "venv", cwd=home)
    run(home / "venv" / "bin" / "pip", "install", "--quiet", f"{wheel}[testkit,report]", DEV_PINS["pytest"], cwd=home)
    return home


@pytest.fixture(scope="module")
def plain(tmp_path_factory, wheel) -> Path:
    """The distribution alone, without extras: what a team installs for the component."""
    home = tmp_path_factory.mktemp("plain")
    run(sys.executable, "-m", "venv", home / "venv", cwd=home)
    run(home / "venv" / "bin" / "pip", "install", "--quiet", wheel, cwd=home)
    return home


def test_the_wheel_holds_one_import_root_and_the_catalog(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"compute_guard", wheel.name.split("-py3")[0] + ".dist-info"}
    assert "compute_guard/policies/platforms/data/machines.json" in names
    assert {"compute_guard/component/__init__.py", "compute_guard/testkit/__init__.py",
            "compute_guard/policies/compute_cluster_valid.py"} <= set(names)
    assert not any(part in name for name in names for part in ("tests/", "bench/", "examples/", "scripts/"))
    assert {"compute_guard/report/schema.json", "compute_guard/report/templates/report.html.j2",
            "compute_guard/report/templates/report.md.j2"} <= set(names)


def test_the_installed_package_is_the_only_one(user):
    out = run(user / "venv" / "bin" / "python", "-c", textwrap.dedent("""
        import importlib.util, compute_guard.policies as p
        print(p.__file__)
        print(p.PACK_VERSION)
        print([name for name in ("policies", "testkit", "compute_cluster") if importlib.util.find_spec(name)])
    """), cwd=user)
    location, version, stray = out.splitlines()
    assert location.startswith(str(user / "venv")) and stray == "[]"
    assert version == (ROOT / "PulumiPolicy.yaml").read_text().split("version:")[1].split()[0]


USER_TEST = '''
from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs
from compute_guard.testkit import evaluate


def program():
    ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
        CapacityGroup(group_id="general", min_size=3, max_size=2)]))


def test_my_cluster_is_rejected():
    result = evaluate(program, stack_config={"compute:platform": "kubernetes"})
    assert result.findings("compute-cluster-valid") == [
        "ComputeCluster 'compute' pool 'general': minSize 3 is greater than maxSize 2; lower minSize or raise maxSize"]
'''


def test_a_users_program_and_test_run_on_the_installed_component_and_test_kit(user):
    (user / "test_my_stack.py").write_text(USER_TEST)
    assert "1 passed" in run(user / "venv" / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "test_my_stack.py", cwd=user)


ORG_PACK = '''
from compute_guard.policies import choose, policy_pack

policy_pack("acme-compute", choose(
    ["compute-cluster-valid", "cloud-machine-catalog"],
    levels={"cloud-machine-catalog": "advisory"},
    settings={"cloud-machine-catalog": {"platform": "aws"}},
))
'''


def test_an_organisations_pack_composed_from_the_policies_runs_as_the_engine_starts_it(user):
    pack = user / "acme-compute"
    pack.mkdir()
    (pack / "PulumiPolicy.yaml").write_text("runtime: python\nversion: 1.0.0\n")
    (pack / "__main__.py").write_text(ORG_PACK)
    broken = {"id": "compute", "capacityGroups": [
        {"groupId": "general", "minSize": 3, "maxSize": 2, "instanceType": "m7g.xlarg"}]}
    with EnginePack({}, python=str(user / "venv" / "bin" / "python"), pack_dir=pack) as engine:
        names = sorted(policy.name for policy in engine.info().policies)
        result = engine.run([Resource.of("acme:infra:ComputeCluster", "compute", broken)])
    # exemptions-in-force is in every pack (it shows what the chosen policies' exemptions keep from them)
    assert names == ["cloud-machine-catalog", "compute-cluster-valid", "exemptions-in-force"]
    assert sorted((v.policy, v.level, v.finding.split(": ", 1)[1]) for v in result.violations) == [
        ("cloud-machine-catalog", "advisory",
         "instanceType 'm7g.xlarg' is not a machine type on AWS; did you mean 'm7g.xlarge'?"),
        ("compute-cluster-valid", "mandatory",
         "minSize 3 is greater than maxSize 2; lower minSize or raise maxSize")]


def test_choose_refuses_what_does_not_exist():
    from compute_guard.policies import choose

    for bad in (dict(names=["no-such-policy"]), dict(levels={"compute-cluster-valid": "loud"}),
                dict(names=["compute-cluster-valid"], levels={"cloud-machine-catalog": "advisory"}),
                dict(settings={"cloud-machine-catalog": {"platfrom": "aws"}})):
        with pytest.raises(ValueError):
            choose(**bad)


def test_the_installed_console_script_reports_on_a_stack_export(user):
    """`pip install compute-guard[report]` gives the `compute-guard` command, which needs nothing of the checkout."""
    cluster = {"id": "compute", "capacityGroups": [{"groupId": "general", "minSize": 3, "maxSize": 2}]}
    export = {"version": 3, "deployment": {"resources": [{
        "urn": "urn:pulumi:prod::shop::compute:index:ComputeCluster::compute", "type": "compute:index:ComputeCluster",
        "inputs": cluster}]}}
    (user / "export.json").write_text(__import__("json").dumps(export))
    (user / "Pulumi.prod.yaml").write_text("config:\n  compute:platform: aws\n")
    done = subprocess.run([str(user / "venv" / "bin" / "compute-guard"), "report", "--format", "markdown",
                           "export.json"], cwd=user, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home())})
    assert done.returncode == 1, done.stderr
    assert "## compute-guard: stack `prod` (export, platform aws)" in done.stdout
    assert "| mandatory | `compute-cluster-valid` | compute | ComputeCluster 'compute' pool 'general': minSize 3 is " \
           "greater than maxSize 2" in done.stdout


def test_the_installed_component_provider_serves_a_yaml_program_as_the_checkouts(plain, toolchain, tmp_path):
    """`compute-guard provider DIR` (no extra needed) writes a component provider bound to the installed
    environment: Pulumi reads the checkout's schema from it, and the YAML example's broken stack served by
    it fails with the Python example's findings."""
    # docs/other-languages.md's commands, as written, in the directory of a team's project
    section = (ROOT / "docs" / "other-languages.md").read_text().split("**From an installed distribution.**", 1)[1]
    commands = section.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in commands.splitlines()] == [["compute-guard", "provider"],
                                                                    ["pulumi", "package"]]
    project = plain / "project"
    project.mkdir()
    env = dict(toolchain.env, PATH=f"{plain / 'venv' / 'bin'}:{toolchain.bin_dir}:/usr/bin:/bin")
    made, schema = (subprocess.run(["bash", "-c", line], cwd=project, capture_output=True, text=True, env=env,
                                   timeout=300) for line in commands.splitlines())
    assert made.returncode == 0 and schema.returncode == 0, made.stderr + schema.stderr
    provider = project / "compute-provider"
    assert made.stdout.startswith("wrote compute-provider: use it with `pulumi package add compute-provider`")
    assert f"virtualenv: {plain / 'venv'}\n" in (provider / "PulumiPlugin.yaml").read_text()
    examples = ROOT / "examples"
    stack = open_stack(toolchain, examples / "yaml-broken", tmp_path / "yaml", "broken",
                       packages={"compute": provider})
    checkout = stack.run("package", "get-schema", str(ROOT / "provider"))
    assert checkout.returncode == 0, checkout.stderr
    assert json.loads(schema.stdout) == json.loads(checkout.stdout)
    python = open_stack(toolchain, examples / "kubernetes", tmp_path / "python", "broken")
    expected = policy_findings(python.fails(*python.preview()))
    assert len(expected) == 5
    assert sorted(policy_findings(stack.fails(*stack.preview())), key=repr) == sorted(expected, key=repr)


def test_the_report_without_its_extra_says_which_extra(plain):
    export = {"version": 3, "deployment": {"resources": [{
        "urn": "urn:pulumi:prod::shop::compute:index:ComputeCluster::compute", "type": "compute:index:ComputeCluster",
        "inputs": {"id": "compute", "capacityGroups": []}}]}}
    (plain / "export.json").write_text(json.dumps(export))
    done = subprocess.run([str(plain / "venv" / "bin" / "compute-guard"), "report", "export.json"], cwd=plain,
                          capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout) == (2, "") and "Traceback" not in done.stderr  # PyYAML comes with pulumi
    assert done.stderr == ("compute-guard report: rich, Jinja2 not installed: install the report extra (pip install "
                           "'/path/to/compute-guard[report]', from a checkout or its wheel)\n")


# --- installed as documented, beside a real program's pins ------------------------------------------------------

PLANTED = ('spec=PodSpecArgs(containers=[ContainerArgs(name="nginx", image="nginx")]),',
           'spec=PodSpecArgs(containers=[ContainerArgs(name="nginx", image="nginx", '
           'resources={"requests": {"memory": "4Gi"}})]),')
PROGRAM_TEST = '''
from compute_guard.testkit import evaluate


def test_the_pack_reads_the_pool_and_refuses_the_planted_pod():
    result = evaluate(".", stack_config={"gcp:project": "example", "gcp:zone": "us-central1-a"})
    assert [(pool.source, pool.name, pool.machines) for pool in result.pools] == [
        ("GKE Cluster", "default-pool", ("n1-standard-1",))]
    assert [v.finding.split(":", 1)[0] for v in result.mandatory] == ["Deployment 'canary'"]
    assert "4 GiB of memory, more than any node of the pools that can take it" in result.mandatory[0].finding
'''


def install_lines() -> list[str]:
    """The install lines of docs/testing.md, as a user copies them."""
    text = (ROOT / "docs" / "testing.md").read_text()
    block = text.split("<!-- install:", 1)[1].split("<!-- end install -->", 1)[0]
    return [line for line in block.splitlines() if " install " in line]


@pytest.mark.parametrize("where", ["checkout", "wheel"])
def test_the_documented_install_lines_run_a_real_program_with_its_own_pins(tmp_path, source, wheel, where):
    """Issue 45: the docs named a package that is not on the index, the base install lacked jsonschema (evaluate
    failed), and the testkit extra's pulumi-kubernetes>=4.34.2 refused gcp-py-gke's pin (>=4.28.0,<4.29.0). Each
    documented line, as written, in a fresh environment with the program's requirements.txt: the test kit runs the
    program, reads its pool and refuses a Pod planted too big for it."""
    import shlex
    import shutil

    checkout, from_wheel = install_lines()
    line = checkout if where == "checkout" else from_wheel
    program = tmp_path / "gcp-py-gke"
    shutil.copytree(ROOT.parent / "shared" / "third_party" / "pulumi-examples" / "gcp-py-gke", program)
    main = program / "__main__.py"
    assert PLANTED[0] in main.read_text()
    main.write_text(main.read_text().replace(*PLANTED))
    (program / "test_program.py").write_text(PROGRAM_TEST)
    if where == "wheel":
        assert f"dist/{wheel.name}[testkit]" in line, "the documented wheel is not the one this checkout builds"
        (program / "dist").mkdir()
        shutil.copy(wheel, program / "dist")
    run(sys.executable, "-m", "venv", ".venv", cwd=program)
    words = shlex.split(line.replace("/path/to/compute-guard", str(source)))
    run(*words, "--quiet", cwd=program, timeout=900)
    versions = run(".venv/bin/python", "-c", "import importlib.metadata as m; print(m.version('pulumi_kubernetes'))",
                   cwd=program)
    assert versions.startswith("4.28."), versions  # the program's own pin
    assert "1 passed" in run(".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_program.py",
                             cwd=program, timeout=600)
