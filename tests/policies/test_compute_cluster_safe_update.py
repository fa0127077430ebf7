"""compute-cluster-safe-update: seed 001's validate_update tests, as a baseline plus new inputs."""

import gzip
import json
from pathlib import Path

import pytest
import zstandard

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

POLICY = "compute-cluster-safe-update"
TYPE = "compute:index:ComputeCluster"
URN = "urn:pulumi:stack::project::compute:index:ComputeCluster::compute"
SECRET = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"


def cluster(id_="compute", machine=None, min_size=1, max_size=5, cidr=None, group="general", extra_pools=()):
    pool = {"groupId": group, "minSize": min_size, "maxSize": max_size}
    if machine:
        pool["instanceType"] = machine
    props = {"id": id_, "capacityGroups": [pool, *extra_pools]}
    if cidr:
        props["containerCidr"] = cidr
    return props


def export(*clusters, urn=URN, deleted=False):
    resources = [{"urn": "urn:pulumi:stack::project::pulumi:pulumi:Stack::project-stack", "custom": False,
                  "type": "pulumi:pulumi:Stack"}]
    for props in clusters:
        entry = {"urn": urn, "custom": False, "type": TYPE, "inputs": props, "outputs": props}
        if deleted:
            entry["delete"] = True
        resources.append(entry)
    return {"version": 3, "deployment": {"manifest": {"time": "2026-11-29T00:00:00Z", "version": "v3.274.1"},
                                         "secrets_providers": {"type": "passphrase"}, "resources": resources}}


def checkpoint(*clusters):
    return {"version": 3, "checkpoint": {"stack": "organization/project/stack",
                                         "latest": export(*clusters)["deployment"]}}


def write(path: Path, document, compress=None) -> Path:
    data = json.dumps(document).encode()
    if compress == "gzip":
        data = gzip.compress(data)
    elif compress == "zstd":
        data = zstandard.ZstdCompressor().compress(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def update(new_props, baseline_path=None, env=None, **config):
    """Analyze the new inputs of the same URN with a fresh pack process."""
    if baseline_path is not None:
        config["baseline"] = str(baseline_path)
    with stack_environment({}, "project", "stack", True, extra=env):
        return Analyzer({POLICY: config} if config else None).analyze(Resource.of(TYPE, "compute", new_props))


@pytest.fixture
def no_local_backend(monkeypatch, tmp_path):
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    monkeypatch.delenv("PULUMI_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def findings(old, new, tmp_path):
    return update(new, write(tmp_path / "export.json", export(old))).findings(POLICY)


# seed 001's validate_update tests -------------------------------------------------------------

def test_compute_cluster_validate_update_immutable_id(tmp_path, no_local_backend):
    (finding,) = findings(cluster("cluster-1"), cluster("cluster-2"), tmp_path)
    assert finding == ("ComputeCluster 'cluster-2': id is immutable; it was 'cluster-1' and is now 'cluster-2'; "
                       "restore id 'cluster-1', or create a new ComputeCluster instead")


def test_compute_cluster_validate_update_scale_change(tmp_path, no_local_backend):
    assert findings(cluster(machine="m7g.xlarge"), cluster(machine="m7g.xlarge", min_size=2, max_size=10),
                    tmp_path) == []


def test_machine_changes_stay_within_one_aws_architecture(tmp_path, no_local_backend):
    assert findings(cluster(machine="t4g.small"), cluster(machine="t4g.medium"), tmp_path) == []
    # Each side named with its architecture, from the catalog (SPEC section 2: the machine's, derived once).
    unknown = "a machine the catalog does not know"
    for old, new in [("t4g.small (arm64)", "m7i.large (x86_64)"), ("t4g.small (arm64)", f"t4g.unknown ({unknown})"),
                     ("n2-standard-2 (x86_64)", "n2-standard-4 (x86_64)"), ("m7i.xlarge (x86_64)", "m7g.xlarge (arm64)")]:
        old_name, old_arch = old.split(" ", 1)
        new_name, new_arch = new.split(" ", 1)
        (finding,) = findings(cluster(machine=old_name), cluster(machine=new_name), tmp_path)
        assert finding.startswith(f"ComputeCluster 'compute' pool 'general': can't change machine from '{old_name}' "
                                  f"{old_arch} to '{new_name}' {new_arch}: only an AWS machine of the same CPU "
                                  "architecture can replace it")


# the rest of validate_update ------------------------------------------------------------------

def test_container_cidr_is_immutable_once_set(tmp_path, no_local_backend):
    (finding,) = findings(cluster(cidr="10.244.0.0/16"), cluster(cidr="10.245.0.0/16"), tmp_path)
    assert "containerCidr is immutable once set; it was '10.244.0.0/16' and is now '10.245.0.0/16'" in finding
    assert findings(cluster(), cluster(cidr="10.245.0.0/16"), tmp_path) == []
    assert findings(cluster(cidr="10.244.0.0/16"), cluster(), tmp_path) == []


def test_one_violation_per_changed_pool(tmp_path, no_local_backend):
    old = cluster(machine="t4g.small", extra_pools=[{"groupId": "b", "minSize": 0, "maxSize": 1,
                                                      "instanceType": "m7g.large"}])
    new = cluster(machine="m7i.large", extra_pools=[{"groupId": "b", "minSize": 0, "maxSize": 1,
                                                      "instanceType": "c7i.large"},
                                                     {"groupId": "new", "minSize": 0, "maxSize": 1,
                                                      "instanceType": "p5.48xlarge"}])
    found = findings(old, new, tmp_path)
    assert [f.split(":")[0] for f in found] == ["ComputeCluster 'compute' pool 'general'",
                                                "ComputeCluster 'compute' pool 'b'"]


def test_new_pools_and_removed_machines_are_fine(tmp_path, no_local_backend):
    assert findings(cluster(machine="t4g.small"), cluster(), tmp_path) == []
    assert findings(cluster(), cluster(machine="m7i.large"), tmp_path) == []
    assert findings(cluster(group="a", machine="t4g.small"), cluster(group="b", machine="m7i.large"), tmp_path) == []


# baselines ------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout, compress", [("export", None), ("export", "gzip"), ("export", "zstd"),
                                              ("checkpoint", None), ("checkpoint", "gzip")])
def test_configured_baselines_in_every_format(tmp_path, no_local_backend, layout, compress):
    document = export(cluster(machine="t4g.small")) if layout == "export" else checkpoint(cluster(machine="t4g.small"))
    path = write(tmp_path / "state.bin", document, compress)
    assert len(update(cluster(machine="m7i.large"), path).of(POLICY)) == 1
    assert update(cluster(machine="t4g.large"), path).of(POLICY) == []


def test_a_relative_baseline_is_read_from_the_pack_directory(tmp_path, no_local_backend, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the engine starts the pack process in the pack's directory
    write(tmp_path / "state" / "baseline.json", export(cluster(machine="t4g.small")))
    assert len(update(cluster(machine="m7i.large"), "state/baseline.json").of(POLICY)) == 1


@pytest.mark.parametrize("stack_file", ["project/stack.json", "project/stack.json.gz", "project/stack.json.zst",
                                        "stack.json"])
def test_the_local_backend_checkpoint_is_found_without_configuration(tmp_path, no_local_backend, stack_file):
    compress = {"gz": "gzip", "zst": "zstd"}.get(stack_file.rsplit(".", 1)[-1])
    write(tmp_path / "state" / ".pulumi" / "stacks" / stack_file, checkpoint(cluster(machine="t4g.small")), compress)
    env = {"PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}"}
    assert len(update(cluster(machine="m7i.large"), env=env).of(POLICY)) == 1
    assert update(cluster(machine="t4g.medium"), env=env).of(POLICY) == []


def test_a_fully_qualified_stack_name_finds_its_local_checkpoint(tmp_path, no_local_backend):
    write(tmp_path / "state" / ".pulumi" / "stacks" / "project" / "stack.json", checkpoint(cluster(machine="t4g.small")))
    env = {"PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}"}
    with stack_environment({}, "project", "organization/project/stack", True, extra=env):
        result = Analyzer().analyze(Resource.of(TYPE, "compute", cluster(machine="m7i.large")))
    assert len(result.of(POLICY)) == 1


@pytest.mark.parametrize("missing", ["PULUMI_PROJECT", "PULUMI_STACK"])
def test_without_the_stacks_name_another_backend_is_not_asked(tmp_path, no_local_backend, monkeypatch, missing):
    from compute_guard.policies.adapters.baseline import HOW_TO, Unavailable, load_baseline

    calls = fake_pulumi(tmp_path, monkeypatch, "exit 1")
    monkeypatch.setenv("PULUMI_BACKEND_URL", S3)
    monkeypatch.setenv("PULUMI_PROJECT", "project")
    monkeypatch.setenv("PULUMI_STACK", "stack")
    monkeypatch.delenv(missing)
    assert load_baseline(None) == Unavailable(HOW_TO)
    assert not calls.exists()


@pytest.mark.parametrize("url, state", [
    ("file://~/state", "home/state"),                       # home-relative
    ("file://{tmp}/state?no_legacy=1&x=a?b", "state"),      # everything from the first '?' is the query
])
def test_local_backend_urls_are_read_as_the_cli_reads_them(tmp_path, no_local_backend, url, state):
    write(tmp_path / state / ".pulumi" / "stacks" / "project" / "stack.json", checkpoint(cluster(machine="t4g.small")))
    env = {"PULUMI_BACKEND_URL": url.format(tmp=tmp_path)}
    assert len(update(cluster(machine="m7i.large"), env=env).of(POLICY)) == 1


def test_the_current_backend_of_the_credentials_file(tmp_path, no_local_backend):
    home = tmp_path / "home"
    write(home / ".pulumi" / "credentials.json", {"current": "file://~", "accessTokens": {}})
    write(home / ".pulumi" / "stacks" / "project" / "stack.json", checkpoint(cluster(machine="t4g.small")))
    assert len(update(cluster(machine="m7i.large")).of(POLICY)) == 1


UNJUDGED = "whether its pools' machines change safely is not judged: "  # its Policy.previous, in the template's words


def test_without_a_baseline_it_says_how_to_supply_one(tmp_path, no_local_backend):
    result = update(cluster(machine="m7i.large"))
    assert result.of(POLICY) == []
    (reason,) = [n.reason for n in result.not_applicable if n.policy == POLICY]
    assert reason.startswith(UNJUDGED) and "pulumi stack export --file" in reason and "'baseline'" in reason


def test_a_configured_baseline_that_cannot_be_read_is_a_violation(tmp_path, no_local_backend):
    (missing,) = update(cluster(), tmp_path / "nope.json").findings(POLICY)
    # the policy template's words for every policy that reads the previous deployment (adapters/templates.py)
    assert missing == (f"{POLICY}: the configured baseline '{tmp_path / 'nope.json'}' cannot be "
                       "read: no such file; fix the path or the file")
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{not json")
    (finding,) = update(cluster(), corrupt).findings(POLICY)
    assert "cannot be read: not JSON" in finding
    truncated = write(tmp_path / "truncated.gz", export(cluster()), "gzip")
    truncated.write_bytes(truncated.read_bytes()[:20])
    assert len(update(cluster(), truncated).of(POLICY)) == 1
    wrong = write(tmp_path / "wrong.json", [1, 2])
    assert "not a Pulumi state document" in update(cluster(), wrong).findings(POLICY)[0]


def test_an_unreadable_discovered_checkpoint_is_not_applicable(tmp_path, no_local_backend):
    path = tmp_path / "state" / ".pulumi" / "stacks" / "project" / "stack.json"
    path.parent.mkdir(parents=True)
    path.write_text("garbage")
    result = update(cluster(), env={"PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}"})
    assert result.of(POLICY) == []
    (reason,) = [n.reason for n in result.not_applicable if n.policy == POLICY]
    assert "cannot be read: not JSON" in reason


def test_encrypted_secrets_are_unknown_not_errors(tmp_path, no_local_backend):
    old = cluster(machine="t4g.small")
    old["capacityGroups"][0]["instanceType"] = {SECRET: SECRET_SIG, "ciphertext": "v1:abc:def"}
    old["id"] = {SECRET: SECRET_SIG, "ciphertext": "v1:abc:ghi"}
    result = update(cluster(machine="m7i.large"), write(tmp_path / "s.json", export(old)))
    assert result.of(POLICY) == []
    (note,) = [n for n in result.notes if n.policy == POLICY]
    assert "encrypted secret" in note.message
    plaintext = cluster(machine="t4g.small")
    plaintext["capacityGroups"][0]["instanceType"] = {SECRET: SECRET_SIG, "plaintext": '"t4g.small"'}
    (finding,) = update(cluster(machine="m7i.large"), write(tmp_path / "p.json", export(plaintext))).findings(POLICY)
    assert "t4g.small" not in finding  # the state marks it secret: it is compared, never shown
    assert "can't change machine from '[secret]' ([secret]) to 'm7i.large' (x86_64)" in finding  # its architecture too
    assert update(cluster(machine="t4g.medium"), write(tmp_path / "p.json", export(plaintext))).of(POLICY) == []


def test_entries_marked_delete_and_other_urns_are_skipped(tmp_path, no_local_backend):
    deleted = write(tmp_path / "d.json", export(cluster(machine="t4g.small"), deleted=True))
    assert update(cluster(machine="m7i.large"), deleted).of(POLICY) == []
    other = write(tmp_path / "o.json", export(cluster(machine="t4g.small"), urn=URN + "-other"))
    assert update(cluster(machine="m7i.large"), other).of(POLICY) == []
    # a replacement left half done: the old cluster, marked for deletion, listed before the one that is live
    document = export(cluster(machine="m7i.large"), deleted=True)
    document["deployment"]["resources"] += export(cluster(machine="t4g.small"))["deployment"]["resources"][1:]
    both = write(tmp_path / "b.json", document)
    (finding,) = update(cluster(machine="m7i.large"), both).findings(POLICY)
    assert "can't change machine from 't4g.small' (arm64) to 'm7i.large' (x86_64)" in finding


def test_the_baseline_is_read_once_per_pack_process(tmp_path, no_local_backend):
    path = write(tmp_path / "state.json", export(cluster(machine="t4g.small")))
    with stack_environment({}, "project", "stack", True):
        analyzer = Analyzer({POLICY: {"baseline": str(path)}})
        first = analyzer.analyze(Resource.of(TYPE, "compute", cluster(machine="m7i.large")))
        write(path, export(cluster(machine="m7i.large")))  # the backend rewrites its checkpoint mid-update
        second = analyzer.analyze(Resource.of(TYPE, "compute", cluster(machine="m7i.large")))
    assert len(first.of(POLICY)) == 1 and len(second.of(POLICY)) == 1


def test_an_unknown_old_value_only_matters_when_it_must_be_compared(tmp_path, no_local_backend):
    encrypted = {SECRET: SECRET_SIG, "ciphertext": "v1:abc:def"}
    old = cluster(machine="t4g.small")
    old["containerCidr"] = encrypted
    old["capacityGroups"][0]["instanceType"] = encrypted
    baseline = write(tmp_path / "s.json", export(old))
    unset = cluster()  # no containerCidr and no instanceType now: nothing to compare
    unset["capacityGroups"][0].pop("instanceType", None)
    result = update(unset, baseline)
    assert result.of(POLICY) == [] and [n for n in result.notes if n.policy == POLICY] == []
    result = update(dict(cluster(machine="t4g.small"), containerCidr="10.0.0.0/16"), baseline)
    notes = [n for n in result.notes if n.policy == POLICY]
    assert len(notes) == 1 and "encrypted secret" in notes[0].message  # one note for what it could not compare


# unknown values: one note for what could not be compared, and every other pool still checked ------

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # a string the engine does not know yet, during preview
ENCRYPTED = {SECRET: SECRET_SIG, "ciphertext": "v1:abc:def"}
NOT_KNOWN_YET = "can't be known during preview"


def notes_and_findings(old, new, tmp_path):
    result = update(new, write(tmp_path / "export.json", export(old)))
    return [n.message for n in result.notes if n.policy == POLICY], result.findings(POLICY)


@pytest.mark.parametrize("old, new", [
    (dict(cluster(), id=ENCRYPTED), cluster()),  # the old id is an encrypted secret
    (cluster(), dict(cluster(), id=UNKNOWN)),  # the new id is not known yet
    (cluster(cidr="10.1.0.0/16"), cluster(cidr=UNKNOWN)),
    (dict(cluster(), containerCidr=ENCRYPTED), cluster(cidr="10.1.0.0/16")),
    (cluster(machine="t4g.small"), cluster(machine=UNKNOWN)),
    (cluster(), dict(cluster(), capacityGroups=UNKNOWN)),
    (dict(cluster(), capacityGroups=ENCRYPTED), cluster()),
])
def test_a_value_that_must_be_compared_but_is_not_known_is_one_note(tmp_path, no_local_backend, old, new):
    notes, found = notes_and_findings(old, new, tmp_path)
    assert found == []
    (note,) = notes
    assert NOT_KNOWN_YET in note or "encrypted secret" in note


def test_other_pools_are_checked_after_an_unknown_a_new_or_an_unchanged_one(tmp_path, no_local_backend):
    changed = {"groupId": "last", "minSize": 0, "maxSize": 1, "instanceType": "m7i.large"}
    old = cluster(machine="t4g.small", extra_pools=[dict(changed, instanceType="t4g.small")])
    for first in ({"groupId": UNKNOWN, "minSize": 0, "maxSize": 1},  # its id is not known yet
                  {"groupId": "general", "minSize": 0, "maxSize": 1, "instanceType": UNKNOWN},  # nor its machine
                  {"groupId": "brand-new", "minSize": 0, "maxSize": 1, "instanceType": "m7i.large"},  # not deployed
                  {"groupId": "general", "minSize": 0, "maxSize": 1, "instanceType": "t4g.small"}):  # unchanged
        new = {"id": "compute", "capacityGroups": [first, changed]}
        _, found = notes_and_findings(old, new, tmp_path)
        assert found == [
            "ComputeCluster 'compute' pool 'last': can't change machine from 't4g.small' (arm64) to 'm7i.large' "
            "(x86_64): only an AWS "
            "machine of the same CPU architecture can replace it; keep 't4g.small', or add a new pool with the new "
            "machine and move workloads to it"], first


@pytest.mark.parametrize("document, error", [
    ({}, "not a Pulumi state document (no 'deployment' or 'checkpoint.latest')"),
    ({"version": 3, "deployment": "x"}, "not a Pulumi state document (no 'deployment' or 'checkpoint.latest')"),
    ({"version": 3, "deployment": {"resources": 5}}, "'resources' is not a list"),
])
def test_what_is_not_a_state_document_says_why(tmp_path, no_local_backend, document, error):
    path = write(tmp_path / "s.json", document)
    assert update(cluster(), path).findings(POLICY) == [
        f"{POLICY}: the configured baseline '{path}' cannot be read: {error}; fix the path or the file"]


def test_a_checkpoint_of_a_stack_never_deployed_has_nothing_to_compare(tmp_path, no_local_backend):
    empty = write(tmp_path / "s.json", {"version": 3, "checkpoint": {"stack": "organization/project/stack"}})
    result = update(cluster(machine="m7i.large"), empty)
    assert result.of(POLICY) == [] and [n for n in result.not_applicable if n.policy == POLICY] == []


def test_the_old_inputs_are_the_entrys_inputs_else_its_outputs(tmp_path, no_local_backend):
    document = export(cluster(machine="t4g.small"))
    entry = document["deployment"]["resources"][1]
    entry["outputs"] = cluster(machine="t4g.medium")  # what the component registered may differ
    (finding,) = update(cluster(machine="m7i.xlarge"), write(tmp_path / "a.json", document)).findings(POLICY)
    assert "can't change machine from 't4g.small' (arm64) to 'm7i.xlarge'" in finding  # its inputs
    del entry["inputs"]
    (finding,) = update(cluster(machine="m7i.xlarge"), write(tmp_path / "b.json", document)).findings(POLICY)
    assert "can't change machine from 't4g.medium' (arm64) to 'm7i.xlarge'" in finding  # else its outputs


# on any other backend: what the Pulumi CLI exports ---------------------------------------------

S3 = "s3://state-bucket?endpoint=http://127.0.0.1:9000&use_path_style=true"


def fake_pulumi(tmp_path, monkeypatch, script: str) -> Path:
    """A `pulumi` first on PATH that records its arguments and runs ``script`` (sh)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cli = bin_dir / "pulumi"
    cli.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "calls"}\n{script}\n')
    cli.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return tmp_path / "calls"


def test_on_another_backend_the_cli_exports_the_stack_once(tmp_path, no_local_backend, monkeypatch):
    exported = write(tmp_path / "out.json", export(cluster(machine="t4g.small")))
    calls = fake_pulumi(tmp_path, monkeypatch, f"cat {exported}")
    env = {"PULUMI_BACKEND_URL": S3, "PULUMI_ORGANIZATION": "acme"}
    with stack_environment({}, "project", "stack", True, extra=env):
        analyzer = Analyzer()
        moved = analyzer.analyze(Resource.of(TYPE, "compute", cluster(machine="m7i.large")))
        same = analyzer.analyze(Resource.of(TYPE, "compute", cluster(machine="t4g.medium")))
    (finding,) = moved.findings(POLICY)
    assert finding.startswith("ComputeCluster 'compute' pool 'general': can't change machine from 't4g.small' "
                              "(arm64) to 'm7i.large' (x86_64)")
    assert same.findings(POLICY) == []
    assert calls.read_text().splitlines() == ["stack export --stack acme/project/stack --non-interactive"]


@pytest.mark.parametrize("organization, stack, reference", [
    (None, "stack", "organization/project/stack"),  # the CLI's name for a DIY backend's organization
    ("", "stack", "organization/project/stack"),
    ("acme", "dev/stack", "acme/project/stack"),
    ("acme", "other/project/stack", "other/project/stack"),  # already fully qualified
])
def test_the_exported_stack_is_named_fully(tmp_path, no_local_backend, monkeypatch, organization, stack, reference):
    exported = write(tmp_path / "out.json", export(cluster(machine="t4g.small")))
    calls = fake_pulumi(tmp_path, monkeypatch, f"cat {exported}")
    monkeypatch.delenv("PULUMI_ORGANIZATION", raising=False)
    env = {"PULUMI_BACKEND_URL": S3, **({} if organization is None else {"PULUMI_ORGANIZATION": organization})}
    with stack_environment({}, "project", stack, True, extra=env):
        Analyzer().analyze(Resource.of(TYPE, "compute", cluster(machine="m7i.large")))
    assert calls.read_text().splitlines() == [f"stack export --stack {reference} --non-interactive"]


def test_a_stack_never_deployed_has_nothing_to_compare(tmp_path, no_local_backend, monkeypatch):
    empty = write(tmp_path / "out.json", {"version": 3, "deployment": {"manifest": {}, "resources": []}})
    fake_pulumi(tmp_path, monkeypatch, f"cat {empty}")
    result = update(cluster(machine="m7i.large"), env={"PULUMI_BACKEND_URL": S3})
    assert result.of(POLICY) == [] and [n for n in result.not_applicable if n.policy == POLICY] == []


@pytest.mark.parametrize("script, reason", [
    ("echo 'error: no stack named organization/project/stack found' >&2; exit 255",
     "`pulumi stack export --stack organization/project/stack` failed: error: no stack named "
     "organization/project/stack found; set this policy's 'baseline' config to an export"),
    ("echo 'not json'", "`pulumi stack export --stack organization/project/stack` printed no state: not JSON"),
    ("sleep 5", "`pulumi stack export --stack organization/project/stack` took more than 1 s; set this "
                "policy's 'baseline' config to an export taken before the preview"),
])
def test_a_failing_cli_makes_the_policy_not_applicable_saying_why(tmp_path, no_local_backend, monkeypatch, script,
                                                                 reason):
    from compute_guard.policies.adapters import baseline

    monkeypatch.setattr(baseline, "EXPORT_TIMEOUT", 1)
    fake_pulumi(tmp_path, monkeypatch, script)
    result = update(cluster(machine="m7i.large"), env={"PULUMI_BACKEND_URL": S3})
    assert result.of(POLICY) == []
    (said,) = [n.reason for n in result.not_applicable if n.policy == POLICY]
    assert said.startswith(f"{UNJUDGED}{reason}")


def test_without_the_cli_on_path_it_says_so_and_never_prints_the_backends_query(tmp_path, no_local_backend,
                                                                              monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    result = update(cluster(machine="m7i.large"), env={"PULUMI_BACKEND_URL": S3 + "&secret=hun?ter2"})
    (said,) = [n.reason for n in result.not_applicable if n.policy == POLICY]
    assert said.startswith(f"{UNJUDGED}the previous deployment is on s3://state-bucket, and the Pulumi CLI that reads it is "
                           "not on PATH") and "ter2" not in said


def test_a_fully_qualified_stack_name_finds_its_compressed_checkpoint(tmp_path, no_local_backend):
    path = tmp_path / "state" / ".pulumi" / "stacks" / "project" / "stack.json.gz"
    write(path, checkpoint(cluster(machine="t4g.small")), "gzip")
    env = {"PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}"}
    with stack_environment({}, "project", "organization/project/stack", True, extra=env):
        result = Analyzer().analyze(Resource.of(TYPE, "compute", cluster(machine="m7i.large")))
    assert len(result.of(POLICY)) == 1


def test_an_empty_file_url_is_the_home_directory(tmp_path, no_local_backend):
    write(tmp_path / "home" / ".pulumi" / "stacks" / "project" / "stack.json", checkpoint(cluster(machine="t4g.small")))
    assert len(update(cluster(machine="m7i.large"), env={"PULUMI_BACKEND_URL": "file://"}).of(POLICY)) == 1


def test_a_local_backend_without_a_stack_name_says_how_to_give_a_baseline(tmp_path, monkeypatch):
    """Where the stack cannot be named (no PULUMI_STACK), the local checkpoint cannot be found: not applicable,
    saying how to give the previous deployment instead."""
    from compute_guard.policies.adapters.baseline import HOW_TO, Unavailable, load_baseline

    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{tmp_path}")
    monkeypatch.setenv("PULUMI_STACK", "")
    found = load_baseline(None)
    assert isinstance(found, Unavailable) and found.reason == HOW_TO and not found.fail_closed


def test_a_baseline_of_another_stack_or_project_is_a_note(tmp_path, no_local_backend):
    """Issue 45: a baseline none of whose URNs is of this stack (another stack's or project's export) compared
    nothing, silently; a ComputeCluster new in this stack's own baseline needs no note."""
    document = export(cluster(machine="t4g.small"))
    for entry in document["deployment"]["resources"]:  # prod's, of project shop: its stack resource too
        entry["urn"] = entry["urn"].replace("urn:pulumi:stack::project::", "urn:pulumi:prod::shop::")
    foreign = write(tmp_path / "prod.json", document)
    result = update(cluster(machine="m7i.large"), foreign)
    assert result.findings(POLICY) == []
    assert [note.finding.split("during preview: ")[1] for note in result.notes if note.policy == POLICY] == [
        "the previous deployment matches no resource of this stack: it holds 'urn:pulumi:prod::shop::"
        "compute:index:ComputeCluster::compute' and 1 more, this stack has 'urn:pulumi:stack::project::...' (another stack's or "
        "project's state, or URNs written otherwise), so nothing was compared with it: set 'baseline' to this "
        "stack's `pulumi stack export`"]
    other = write(tmp_path / "own.json", export(cluster(machine="t4g.small"),
                                                urn="urn:pulumi:stack::project::compute:index:ComputeCluster::other"))
    assert update(cluster(machine="m7i.large"), other).notes == []  # this stack's: the cluster is new
