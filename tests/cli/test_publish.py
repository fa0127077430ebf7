"""What `pulumi policy publish` would upload, and the organisation's configuration docs/organisation.md shows.

Pulumi Cloud is not reachable here, so everything up to the upload is checked: the staged pack
(scripts/stage-pack) is listed by the CLI's own archive code (tests/cli/archive_listing, built
against the same pulumi SDK module as the CLI), holds the pack and nothing heavy, and runs as the
engine starts it; the policy-group configuration of docs/organisation.md passes the real CLI's validation of
--policy-pack-config and drives a preview."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pulumi_cli import ROOT, open_stack, policy_findings

from compute_guard import policies
from compute_guard.testkit import Resource
from compute_guard.testkit.engine import EnginePack

MACHINES = Path(__file__).resolve().parent / "programs" / "machines"


@pytest.fixture(scope="module")
def archive_listing(toolchain, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("archive-listing")
    for name in ("go.mod", "main.go"):
        shutil.copy(Path(__file__).resolve().parent / "archive_listing" / name, work / name)
    env = dict(toolchain.env, GOFLAGS="-mod=mod", GOSUMDB="off")
    for command in (["go", "mod", "tidy"], ["go", "build", "-o", "list", "."]):
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
    return work / "list"


def archived(listing: Path, directory: Path) -> dict[str, int]:
    done = subprocess.run([str(listing), str(directory)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {name: int(size) for name, size in (line.split("\t") for line in done.stdout.splitlines())}


def test_the_staged_pack_holds_the_pack_and_nothing_heavy(archive_listing, tmp_path):
    staged = tmp_path / "compute-guard-pack"
    subprocess.run([str(ROOT / "scripts" / "stage-pack"), str(staged)], check=True, capture_output=True)
    files = archived(archive_listing, staged)
    assert all(name.startswith("package/") for name in files)
    tops = {name.split("/")[1] for name in files}
    assert tops == {"PulumiPolicy.yaml", "__main__.py", "requirements.txt", "compute_guard"}
    assert "package/compute_guard/policies/platforms/data/machines.json" in files  # one name: compute_guard.policies
    assert not [name for name in files if "__pycache__" in name or name.endswith(".pyc")]
    assert sum(files.values()) < 2 << 20

    with EnginePack({"compute:platform": "kubernetes"}, pack_dir=staged) as pack:
        names = [line for line in (ROOT / "tests" / "policy_names.txt").read_text().splitlines()
                 if line and not line.startswith("#")]
        assert [policy.name for policy in pack.info().policies] == names  # every public policy, from the staged copy
        broken = {"id": "compute", "capacityGroups": [{"groupId": "general", "minSize": 3, "maxSize": 2}]}
        result = pack.run([Resource.of("compute:index:ComputeCluster", "compute", broken)])
    assert [v.policy for v in result.violations] == ["compute-cluster-valid"]
    code = "import compute_guard.policies as p; print(p.__file__); print(p.PACK_VERSION)"
    file, version = subprocess.run([sys.executable, "-c", code], cwd=staged, capture_output=True, text=True,
                                   check=True).stdout.split()
    assert Path(file) == staged / "compute_guard" / "policies" / "__init__.py"
    assert version == policies.PACK_VERSION  # what the test kit and preview show, read from the staged yaml


def test_the_repository_itself_would_upload_its_tests_which_is_why_the_pack_is_staged(archive_listing):
    files = archived(archive_listing, ROOT)
    assert any(name.startswith("package/tests/") for name in files)
    assert not any(name.startswith(("package/venv/", "package/.git/", "package/.pulumi-state/")) for name in files)


def test_staging_inside_the_repository_is_refused():
    done = subprocess.run([str(ROOT / "scripts" / "stage-pack"), str(ROOT / "build" / "pack")], capture_output=True,
                          text=True)
    assert done.returncode == 2 and "inside the repository" in done.stderr


def readme_policy_group_config() -> dict:
    section = (ROOT / "docs" / "organisation.md").read_text()
    (block,) = re.findall(r"```json\n(.*?)```", section, re.DOTALL)
    return json.loads(block)


def test_the_readmes_policy_group_configuration_passes_the_clis_validation(toolchain, tmp_path):
    config = readme_policy_group_config()
    # the date the page's exemption is judged on (its expiry must be within a year of it)
    stack = open_stack(toolchain, MACHINES, tmp_path, "dev", {"compute:platform": "aws", "machine": "m9i.large"},
                       env={"COMPUTE_GUARD_TODAY": "2026-12-01"})
    out = stack.ok(*stack.preview("--policy-pack-config", stack.policy_config(config)))
    found = policy_findings(out)
    assert [(f.level, f.policy) for f in found] == [("advisory", "cloud-machine-new-family"),
                                                    ("advisory", "exemptions-in-force")]
    assert "launched since" in found[0].message
    assert found[1].message.startswith("workload-fits-pool: the exemption for 'encoder'")  # no encoder here: unused
