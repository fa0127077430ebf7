"""compute-guard report: the pack's findings as the engine-started pack reports them, each pool's use at
maxSize as a formula written out here computes it, every format valid against its schema, and exit codes
and errors a CI job can rely on."""

from __future__ import annotations

import gzip
import json
import re
from decimal import Decimal

import jsonschema
import pytest
import zstandard
from builders import GIB, SHARED
from report_inputs import export_document, preview_document

from compute_guard.cli import main
from compute_guard.report import build, read, render
from compute_guard.report.model import RESOURCES
from compute_guard.report.render import HERE, usage
from compute_guard.testkit import Resource
from compute_guard.testkit.engine import EnginePack

MIB = 1 << 20
KUBERNETES = {"compute:platform": "kubernetes"}
SCHEMA = json.loads((HERE / "schema.json").read_text())
SARIF_SCHEMA_PATH = SHARED / "third_party" / "sarif-schema" / "sarif-schema-2.1.0.json"  # the OASIS schema, as is


def sarif_validator():
    return jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA_PATH.read_text()))


def report_of(resources, config=KUBERNETES, policy_config=None):
    return build(read(json.dumps(preview_document(resources, config)).encode()), policy_config)


def engine_findings(resources, config=KUBERNETES, policy_config=None):
    """What `pulumi preview --policy-pack` reports: the pack process the engine starts."""
    with EnginePack(config, policy_config) as pack:
        result = pack.run(resources)
    return sorted((v.policy, v.level, v.urn, v.finding) for v in result.violations)


@pytest.mark.parametrize("stack", ["dev", "broken"])
def test_the_findings_are_the_ones_the_engine_started_pack_reports(example, stack):
    resources = example(stack)
    report = report_of(resources)
    found = sorted((f.policy, f.level, f.urn, f.message) for f in report.findings if not f.note)
    assert found == engine_findings(resources)
    assert (len(report.mandatory) > 0) == (stack == "broken")


def test_each_pool_shows_its_use_at_max_size_as_the_example_declares_it(example):
    """The example's own numbers, worked out here: a node of 'general' is 4 cores and 16 GiB, 'stateful' 8 cores
    and 32 GiB; on platform kubernetes only the kubelet's 100 MiB eviction threshold is held back."""
    report = report_of(example("broken"))
    pools = {view.pool: view for view in report.pools}
    general, stateful = pools["general"], pools["stateful"]
    assert (general.max_size, stateful.max_size) == (3, 2)
    assert general.allocatable == {"cpu": 4000, "memory": 16 * GIB - 100 * MIB, "pods": 110}
    assert stateful.capacity("memory") == 2 * (32 * GIB - 100 * MIB)
    uses = {use.name: use for use in general.uses}
    assert uses["log-agent"].daemon and uses["log-agent"].pods == 3  # one Pod on each of the 3 nodes
    assert uses["api"].pods == 2 and uses["encoder"].pods == 1
    # the encoder's one Pod (6 cores) fits no 4-core node: pool-capacity leaves it out of the totals, so does this
    assert not uses["encoder"].counted and uses["api"].counted and general.not_counted == ("Deployment 'encoder'",)
    assert general.used("cpu") == 3 * 100 + 2 * 500
    assert general.used("memory") == 3 * 128 * MIB + 2 * GIB
    assert general.used("pods") == 3 + 2
    assert stateful.used("memory") == 1 * 8 * GIB + 5 * 12 * GIB  # db, and the cache's 5 replicas
    assert stateful.used("memory") > stateful.capacity("memory")  # what pool-capacity reports
    assert all(use.pinned for view in report.pools for use in view.uses)
    assert report.unplaced == ["legacy", "report"]  # a workload whose pool does not exist, and a worker
    # the flags come from the findings: the encoder cannot fit (workload-fits-pool)
    assert uses["encoder"].flagged == uses["encoder"].verdicts == ("workload-fits-pool",) and uses["api"].verdicts == ()
    assert (uses["api"].pin, uses["api"].placement) == ("amd64", "its pool label")
    assert (general.min_size, general.architecture, general.reserved["memory"], general.reserved["cpu"]) == (
        1, "x86_64", 100 * MIB, 0)
    assert general.daemonsets == {"cpu": 100, "memory": 128 * MIB, "pods": 1}  # the log-agent on every node
    from compute_guard.report.render import about
    assert about(general) == ("1-3 nodes; x86_64; its profile; 100 MiB memory reserved per node; DaemonSets take "
                              "100m CPU and 128 MiB memory per node; not counted in its totals: Deployment 'encoder' "
                              "(one Pod fits no node)")


def test_an_unpinned_workload_is_marked(example):
    resources = [r for r in example("dev") if r.name != "api"]
    unpinned = Resource.of("kubernetes:apps/v1:Deployment", "api", {
        "metadata": {"name": "api", "labels": {"compute.alien.dev/cluster": "compute",
                                               "compute.alien.dev/pool": "general"}},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "api", "image": "i", "resources": {
            "requests": {"cpu": "500m", "memory": "1Gi"}}}]}}}}, project="compute-guard-example", stack="dev")
    report = report_of([*resources, unpinned])
    (use,) = [use for view in report.pools for use in view.uses if use.name == "api"]
    assert not use.pinned and use.flagged == ("workload-node-architecture",)


def test_the_pools_and_the_unplaced_read_the_same_whatever_order_the_input_lists_resources_in(example):
    """A stack export lists resources as their registrations completed: another order for the same stack."""
    resources = example("broken")
    forward, backward = report_of(resources), report_of(list(reversed(resources)))
    assert json.loads(render(forward, "json"))["pools"] == json.loads(render(backward, "json"))["pools"]
    assert [use.name for use in forward.pools[1].uses] == ["cache", "db"]
    assert forward.unplaced == backward.unplaced == ["legacy", "report"]


def test_the_json_follows_its_schema_in_base_units(example):
    report = report_of(example("broken"))
    document = json.loads(render(report, "json"))
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    assert document["version"] == 1 and document["summary"]["mandatory"] == len(report.mandatory) == 5
    general = next(pool for pool in document["pools"] if pool["pool"] == "general")
    assert general["node"] == {"cpu": 4000, "memory": 16 * GIB - 100 * MIB, "pods": 110}
    assert general["used"]["cpu"] == 1300 and general["capacity"]["cpu"] == 12000  # the encoder is not counted
    assert general["notCounted"] == ["Deployment 'encoder'"]
    assert [w["name"] for w in general["workloads"] if not w["counted"]] == ["encoder"]


def test_the_sarif_is_valid_sarif_2_1_0_with_a_rule_per_policy(example):
    from compute_guard.policies import ALL

    document = json.loads(render(report_of(example("broken")), "sarif"))
    sarif_validator().validate(document)
    (run,) = document["runs"]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [policy.name for policy in ALL]
    assert all(rule["help"]["text"] and rule["fullDescription"]["text"] for rule in run["tool"]["driver"]["rules"])
    levels = {result["ruleId"]: result["level"] for result in run["results"]}
    assert levels["pool-capacity"] == "error"
    capacity = next(result for result in run["results"] if result["ruleId"] == "pool-capacity")
    (location,) = capacity["locations"]
    assert location["logicalLocations"][0]["fullyQualifiedName"].endswith("compute:index:ComputeCluster::compute")
    assert run["tool"]["driver"]["rules"][capacity["ruleIndex"]]["id"] == "pool-capacity"


def test_advisory_findings_are_sarif_warnings():
    release = Resource.of("kubernetes:helm.sh/v3:Release", "legacy", {"chart": "gateway"})
    document = json.loads(render(report_of([release]), "sarif"))
    sarif_validator().validate(document)
    assert [(r["ruleId"], r["level"]) for r in document["runs"][0]["results"]] == [("helm-release-unchecked", "warning")]


def test_markdown_has_a_row_per_pool_and_finding_fit_for_a_pr_comment(example):
    text = render(report_of(example("broken")), "markdown")
    assert "**5 mandatory violations**: the preview fails." in text
    assert ("| `compute` / `general` | 3 | 4 cores CPU, 15.9 GiB memory, 110 Pods | 1300m of 12 cores (11%) | 2432 MiB "
            "of 47.71 GiB (5%) | 5 of 330 (2%) | log-agent (DaemonSet), api, encoder |") in text
    assert "**68 GiB of 63.8 GiB (107%)**" in text  # over capacity, in bold
    assert text.count("| mandatory | `") == 5
    assert "\n|" not in text.split("### Findings", 1)[1].split("| level |", 1)[0]  # rows are single lines


def test_a_table_on_the_terminal(example):
    text = render(report_of(example("broken")), "table")
    assert "compute / stateful" in text and "68 GiB of 63.8 GiB (107%)" in text and "Findings (5 mandatory)" in text


@pytest.mark.parametrize("stack, code", [("dev", 0), ("broken", 1)])
def test_exit_codes_follow_mandatory_violations(example, write, stack, code, capsys):
    path = write(preview_document(example(stack), KUBERNETES))
    assert main(["report", "--format", "json", path]) == code
    assert json.loads(capsys.readouterr().out)["summary"]["mandatory"] == (0 if code == 0 else 5)


def test_a_lower_level_from_the_policy_pack_config_passes(example, write, tmp_path, capsys):
    path = write(preview_document(example("broken"), KUBERNETES))
    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"all": "advisory"}))
    assert main(["report", "--format", "json", "--policy-pack-config", str(config), path]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["summary"] == {"mandatory": 0, "violations": 5, "notes": 0, "pools": 2}


@pytest.mark.parametrize("content, reason", [
    (b"not json", "is not JSON (Expecting value at line 1)"),
    (b"[1, 2]", "is a JSON list, not the object"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "is not text"),
    (b'{"version": 3}', "neither `pulumi preview --json` output (no 'steps') nor a `pulumi stack export`"),
    (b'{"diagnostics": [{"message": "error: an unhandled error occurred\\n", "severity": "error"}], "duration": 1}',
     "the output of a preview that failed before it planned any step: error: an unhandled error occurred"),
    (b'{"steps": 7}', "'steps' is not a list"),
    (b"\x1f\x8b\x08\x00broken", "is not plain, gzip or zstd"),
])
def test_unreadable_input_exits_2_with_the_reason_and_no_traceback(write, tmp_path, capsys, content, reason):
    path = tmp_path / "input"
    path.write_bytes(content)
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err


def test_a_missing_file_and_a_bad_policy_pack_config_exit_2(write, tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    path = write(preview_document([], KUBERNETES))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"workload-pool-placement": "sometimes"}))
    assert main(["report", "--policy-pack-config", str(config), path]) == 2
    assert "the policy pack config is refused" in capsys.readouterr().err


@pytest.mark.parametrize("pack", [lambda b: b, gzip.compress, lambda b: zstandard.ZstdCompressor().compress(b)])
def test_a_stack_export_gives_the_findings_of_the_preview(example, tmp_path, monkeypatch, capsys, pack):
    """An export carries no stack config: the program's Pulumi.<stack>.yaml in the current directory gives it."""
    resources = example("broken")
    path = tmp_path / "export.json"
    path.write_bytes(pack(json.dumps(export_document(resources)).encode()))
    (tmp_path / "Pulumi.broken.yaml").write_text("config:\n  compute:platform: kubernetes\n")
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--format", "json", str(path)]) == 1
    exported = json.loads(capsys.readouterr().out)
    assert exported["stack"] == {"project": "compute-guard-example", "name": "broken", "input": "export",
                                 "platform": "kubernetes"}
    from_preview = json.loads(render(report_of(resources), "json"))
    assert exported["findings"] == from_preview["findings"] and exported["pools"] == from_preview["pools"]


def test_the_stack_option_names_the_config_file(example, tmp_path, monkeypatch, capsys):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export_document(example("dev"))))
    (tmp_path / "Pulumi.other.yaml").write_text("config:\n  compute:platform: aws\n")
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--format", "json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["stack"]["platform"] is None  # no Pulumi.dev.yaml here
    main(["report", "--format", "json", "--stack", "other", str(path)])
    assert json.loads(capsys.readouterr().out)["stack"]["platform"] == "aws"


def test_standard_input(example, monkeypatch, capsys):
    import io
    import sys

    data = json.dumps(preview_document(example("dev"), KUBERNETES)).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["report", "--format", "markdown", "-"]) == 0
    assert "No mandatory violation." in capsys.readouterr().out


def test_a_secret_the_preview_printed_as_secret_is_not_known_not_wrong():
    """`pulumi preview --json` prints secrets as "[secret]": read as the literal, the architecture would be
    invalid and the machine not a machine; the report treats it as a secret it cannot see."""
    cluster = {"id": "compute", "capacityGroups": [{"groupId": "general", "minSize": 1, "maxSize": 2,
                                                    "instanceType": "[secret]",
                                                    "profile": {"cpu": "2", "memoryBytes": 4 * GIB,
                                                                "ephemeralStorageBytes": 0, "architecture": "[secret]"}}]}
    report = report_of([Resource.of("compute:index:ComputeCluster", "compute", cluster)], {"compute:platform": "aws"})
    assert [f for f in report.findings if not f.note] == []
    assert {f.policy for f in report.findings if f.note} >= {"cloud-machine-catalog", "compute-cluster-valid"}


def test_an_encrypted_secret_of_an_export_is_not_known_and_a_decrypted_one_is_read():
    secret = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
    entry = {"urn": "urn:pulumi:s::p::compute:index:ComputeCluster::c", "type": "compute:index:ComputeCluster",
             "inputs": {"id": "c", "capacityGroups": [{"groupId": "general", "minSize": 3, "maxSize": 2,
                                                        "instanceType": dict(secret, ciphertext="v1:abc")}]}}
    source = read(json.dumps({"deployment": {"resources": [entry]}}).encode())
    report = build(source, None, {"compute:platform": "aws"})
    assert [f.policy for f in report.mandatory] == ["compute-cluster-valid"]  # sizes are plain and wrong
    assert "cloud-machine-catalog" in {f.policy for f in report.findings if f.note}
    entry["inputs"]["capacityGroups"][0]["instanceType"] = dict(secret, plaintext='"m7g.xlarg"')
    report = build(read(json.dumps({"deployment": {"resources": [entry]}}).encode()), None, {"compute:platform": "aws"})
    (typo,) = [f for f in report.findings if f.policy == "cloud-machine-catalog"]
    assert "'[secret]' is not a machine type on AWS" in typo.message  # read, and still secret


def test_a_pool_whose_numbers_are_not_known_is_drawn_with_question_marks():
    cluster = {"id": "c", "capacityGroups": [{"groupId": "general", "minSize": 1, "maxSize": 2}]}
    report = report_of([Resource.of("compute:index:ComputeCluster", "c", cluster)], {"compute:platform": "kubernetes"})
    (view,) = report.pools
    assert view.allocatable == dict.fromkeys(RESOURCES) and view.capacity("cpu") is None
    assert "0 cores of ?" in render(report, "table") and "? CPU, ? memory, ? Pods" in render(report, "markdown")
    assert Decimal(0) == (view.used("cpu") or Decimal(0))


def test_exemptions_are_honoured_and_shown(example, write, tmp_path, capsys, monkeypatch):
    """The report judges with the pack, exemptions included: the broken stack's pool-capacity finding exempted."""
    monkeypatch.setenv("COMPUTE_GUARD_TODAY", "2026-12-01")
    path = write(preview_document(example("broken"), KUBERNETES))
    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"pool-capacity": {"exemptions": [
        {"resource": "compute", "reason": "OPS-9: a third node in January", "expires": "2027-01-31"}]}}))
    assert main(["report", "--format", "json", "--policy-pack-config", str(config), path]) == 1  # four remain
    document = json.loads(capsys.readouterr().out)
    assert document["summary"]["mandatory"] == 4
    (shown,) = [f for f in document["findings"] if f["policy"] == "exemptions-in-force"]
    assert shown["level"] == "advisory" and shown["name"] == "compute"
    assert shown["message"].startswith("pool-capacity: ComputeCluster 'compute' pool 'stateful'")
    assert shown["message"].endswith("[exempt until 2027-01-31: OPS-9: a third node in January]")


def test_the_reports_totals_are_pool_capacitys_and_both_name_what_they_leave_out():
    """A pool of 2 nodes of 2 cores: 'big' asks 3 cores a Pod, which no node has (workload-fits-pool); 'many' asks
    3 x 1500m = 4500m of the 2 x 2000m. pool-capacity counts 4500m and says 'big' is not counted; the report's
    bar shows the same 4500m and names the same workload. A second cluster's pool at the same position holds
    another load, which neither mixes in (pools are keyed by their cluster, not their index)."""
    from builders import cluster, deployment, placed

    from compute_guard.component import CapacityGroup, ComputeClusterArgs, MachineProfile
    from compute_guard.testkit import capture_program

    two_cores = MachineProfile(cpu="2", memory_bytes=4 * GIB, ephemeral_storage_bytes=20 * GIB, architecture="x86_64")

    def pool_of(cluster_id):
        return cluster(ComputeClusterArgs(id=cluster_id, capacity_groups=[
            CapacityGroup(group_id="apps", min_size=1, max_size=2, profile=two_cores)]), name=cluster_id)

    pin = {"kubernetes.io/arch": "amd64"}
    parts = [pool_of("compute"), pool_of("other"),
             deployment("big", labels=placed(), node_selector=pin, requests={"cpu": "3"}),
             deployment("many", labels=placed(), node_selector=pin, requests={"cpu": "1500m"}, spec={"replicas": 3}),
             deployment("elsewhere", labels=placed("other"), node_selector=pin, requests={"cpu": "100m"})]

    def program():
        for part in parts:
            part()

    resources = capture_program(program)
    report = report_of(resources)
    (capacity,) = [f.message for f in report.findings if f.policy == "pool-capacity"]
    assert capacity == (
        "ComputeCluster 'compute' pool 'apps': at its maxSize of 2 nodes (its profile) it has room for 2 x 2 cores = "
        "4 cores of CPU allocatable; its workloads request 4500m (largest: Deployment 'many' 3 x 1500m), 4500m in "
        "all, more than it has: raise maxSize to at least 3, use larger machines or move workloads to another pool "
        "(not counted: Deployment 'big', whose one Pod fits no node of the pool: workload-fits-pool reports it)")
    views = {view.cluster: view for view in report.pools}
    assert views["compute"].used("cpu") == 4500 and views["compute"].not_counted == ("Deployment 'big'",)
    assert views["other"].used("cpu") == 100 and [use.name for use in views["other"].uses] == ["elsewhere"]
    assert "4500m of 4 cores (112%)" in render(report, "markdown")


def test_exactly_one_mandatory_violation_exits_1(write, capsys):
    """The boundary of 'a mandatory violation': one (a '> 1' for '>= 1' passed every other test)."""
    from builders import with_pool

    from compute_guard.testkit import Resource

    one = [Resource.of("compute:index:ComputeCluster", "compute", with_pool(maxSize=11))]
    path = write(preview_document(one, KUBERNETES))
    assert main(["report", "--format", "json", path]) == 1
    assert json.loads(capsys.readouterr().out)["summary"]["mandatory"] == 1


HOSTILE = "<img src=x onerror=alert(1)>"


def test_names_are_escaped_in_the_html_page(write):
    """A workload, pool or machine named like markup comes out inert: the page is one file opened in a browser."""
    from builders import valid_cluster_props

    from compute_guard.testkit import Resource

    props = valid_cluster_props()
    props["capacityGroups"][0]["instanceType"] = HOSTILE
    api = Resource.of("kubernetes:apps/v1:Deployment", HOSTILE, {
        "metadata": {"name": HOSTILE, "labels": {"compute.alien.dev/pool": "apps"}},
        "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "i"}]}}}})
    report = report_of([Resource.of("compute:index:ComputeCluster", "compute", props), api])
    page = render(report, "html")
    assert HOSTILE not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert HOSTILE in render(report, "json")  # the JSON keeps the name as it is (a JSON string is inert)


def test_a_policy_name_the_pack_does_not_have_is_refused_with_a_did_you_mean(write, tmp_path, capsys):
    """The CLI lets an unknown name through (to the pack's Configure, where no policy reads it): the report says so
    instead of leaving the misspelt policy at its default level without a word."""
    path = write(preview_document([], KUBERNETES))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"workload-fit-pool": "advisory"}))
    assert main(["report", "--policy-pack-config", str(config), path]) == 2
    assert ("the policy pack config names 'workload-fit-pool', which is not a policy of this pack; did you mean "
            "'workload-fits-pool'?") in capsys.readouterr().err
    config.write_text(json.dumps({"all": "advisory", "zzz": "mandatory"}))
    assert main(["report", "--policy-pack-config", str(config), path]) == 2
    assert "'zzz', which is not a policy of this pack; the pack's policies are compute-cluster-valid, " in \
        capsys.readouterr().err


def test_the_allocatable_setting_reaches_the_reports_nodes_as_it_reaches_the_policies(example):
    """The report's node is pool-capacity's: with its allocatable setting (maxPods 5, 1 GiB kube-reserved on
    platform kubernetes), a node of 'general' holds 5 Pods and 16 GiB - 1 GiB - 100 MiB; it showed the defaults."""
    config = {"pool-capacity": {"allocatable": {"kubernetes": {"maxPods": 5, "kubeReserved": {"memory": "1Gi"}}}}}
    report = report_of(example("dev"), policy_config=config)
    general = next(view for view in report.pools if view.pool == "general")
    assert general.allocatable == {"cpu": 4000, "memory": 15 * GIB - 100 * MIB, "pods": 5}


def test_a_platform_pool_has_its_picture_with_the_workloads_the_schedulers_rules_give_it():
    """SPEC 14: a node group's picture (its largest machine, its maxSize) holds what only it can take; a workload two
    pools may take is drawn on both and counted in neither."""
    from builders import ARM64, node_group, workload

    from compute_guard.testkit import capture_program

    def program():
        node_group("general", ["m7i.large"], max_size=2)()
        node_group("arm", ["m7g.large"], ami_type="AL2023_ARM_64_STANDARD", max_size=3)()
        workload("Deployment", "web", node_selector={"kubernetes.io/arch": "amd64"}, requests={"cpu": "1"},
                 spec={"replicas": 2})()
        workload("Deployment", "edge", node_selector=ARM64, requests={"cpu": "500m"})()

    report = report_of(capture_program(program), {"compute:platform": "aws"})
    views = {view.pool: view for view in report.pools}
    assert (views["general"].cluster, views["general"].machine, views["general"].max_size) == (
        "NodeGroup", "m7i.large", 2)
    assert views["general"].architecture == "x86_64" and views["arm"].architecture == "arm64"
    assert [use.name for use in views["general"].uses] == ["web"]
    assert views["general"].used("cpu") == 2000 and views["general"].capacity("cpu") == 2 * 1930
    assert [use.name for use in views["arm"].uses] == ["edge"]
    assert report.unplaced == []


def test_a_karpenter_nodepool_shows_its_limits_as_its_capacity_as_pool_capacity_judges_it():
    """Issue 37: the report drew a Karpenter NodePool's capacity as "?" while pool-capacity judged it by spec.limits.
    Both now read the same: 'general' may grow to 16 vCPUs and 64 GiB; 3 replicas of 2 vCPUs and 4 GiB use 6 and 12."""
    from builders import arch_requirement, instance_types, node_class, nodepool, workload

    from compute_guard.testkit import capture_program

    def program():
        node_class()()
        nodepool("general", [arch_requirement("amd64"), instance_types("m7i.xlarge")],
                 limits={"cpu": "16", "memory": "64Gi"})()
        workload("Deployment", "web", requests={"cpu": "2", "memory": "4Gi"}, spec={"replicas": 3})()

    report = report_of(capture_program(program), {"compute:platform": "aws"})
    views = {view.pool: view for view in report.pools}
    view = views["general"]
    assert view.capacity("cpu") == 16000 and view.capacity("memory") == 64 * GIB
    assert view.used("cpu") == 3 * 2000 and view.used("memory") == 3 * 4 * GIB
    assert usage(view, "cpu")["text"] == "6 cores of 16 cores (38%)"
    assert "?" not in usage(view, "memory")["text"]


def test_each_workload_shows_its_budget_and_each_pool_its_zones():
    """Issue 38: the report shows what each workload's PodDisruptionBudget allows at its replicas (the arithmetic
    workload-disruption-allowed and disruption-budget-useful judge) and each pool's zones (workload-zone-spread's)."""
    from builders import arch_requirement, budget, node_class, nodepool, workload

    from compute_guard.testkit import capture_program

    def program():
        node_class()()
        nodepool("general", [arch_requirement("amd64"), {"key": "topology.kubernetes.io/zone", "operator": "In",
                                                         "values": ["us-east-1b", "us-east-1a"]}])()
        workload("Deployment", "web", spec={"replicas": 5})()
        budget("web", minAvailable="50%")()
        workload("Deployment", "api", spec={"replicas": 3})()

    report = report_of(capture_program(program), {"compute:platform": "aws"})
    (view,) = report.pools
    assert view.zones == ("us-east-1a", "us-east-1b")
    uses = {use.name: use for use in view.uses}
    # 50% of 5 = 2.5, rounded up to 3 kept: 2 may go
    assert uses["web"].budget == "'web': minAvailable 50% of 5 = 3 (rounded up), allows 2 of 5 Pods to be evicted at once"
    assert uses["api"].budget is None
    document = json.loads(render(report, "json"))
    jsonschema.validate(document, json.loads((HERE / "schema.json").read_text()))
    assert document["pools"][0]["zones"] == ["us-east-1a", "us-east-1b"]
    markdown = render(report, "markdown")
    assert "zones us-east-1a, us-east-1b" in markdown and "allows 2 of 5 Pods to be evicted at once" in markdown
    page = render(report, "html")  # the page too: its own column, '-' where no budget selects the Pods
    assert "zones us-east-1a, us-east-1b" in page
    assert re.search(r'<td class="budget">\s*\'web\': minAvailable 50% of 5 = 3 \(rounded up\), allows 2 of 5 Pods',
                     page.replace("&#39;", "'")), page
    assert len(re.findall(r'<td class="budget">-</td>', page)) == 1


def test_each_pool_shows_its_nodes_operating_system_and_capacity_type():
    """SPEC 16 in the report: each pool's OS (as workload-node-os reads it) and capacity type (as
    workload-interruption-tolerant reads it), in its line, the JSON and the page. An EKS group of SPOT capacity, a
    NodePool allowing linux and windows and spot and on-demand, and one naming neither (Linux, on-demand)."""
    import pulumi_aws as aws
    from builders import arch_requirement, declared_cluster, node_class, nodepool

    from compute_guard.testkit import capture_program

    def program():
        declared_cluster("aws", "fleet")
        aws.eks.NodeGroup("spot", cluster_name="fleet", node_group_name="spot", capacity_type="SPOT",
                          node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
                          instance_types=["m5.large"], scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                              desired_size=1, min_size=1, max_size=2))
        node_class()()
        nodepool("mixed", [arch_requirement("amd64"), {"key": "kubernetes.io/os", "operator": "In",
                                                        "values": ["windows", "linux"]},
                           {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}],
                 node_class="another-stacks")()  # its AMIs are not known here: both OSes may start
        nodepool("plain", [arch_requirement("amd64")])()

    report = report_of(capture_program(program), {"compute:platform": "aws"})
    views = {view.pool: view for view in report.pools}
    assert (views["spot"].systems, views["spot"].capacity_types) == (("linux",), ("spot",))
    assert (views["mixed"].systems, views["mixed"].capacity_types) == (("linux", "windows"), ("on-demand", "spot"))
    assert (views["plain"].systems, views["plain"].capacity_types) == (("linux",), ("on-demand",))  # al2023
    document = json.loads(render(report, "json"))
    jsonschema.validate(document, json.loads((HERE / "schema.json").read_text()))
    pools = {pool["pool"]: pool for pool in document["pools"]}
    assert (pools["mixed"]["os"], pools["mixed"]["capacityType"]) == (["linux", "windows"], ["on-demand", "spot"])
    for form in ("markdown", "html"):
        text = render(report, form)
        assert "linux and windows nodes; on-demand or spot capacity" in text and "spot capacity" in text, form


def test_each_pool_shows_its_kubernetes_version_and_what_the_preview_does_to_it(tmp_path):
    """SPEC 19 in the report: each platform pool's Kubernetes version (as cluster-version-skew reads it) and what this
    preview does to it against the previous deployment (as pool-replacement-safe reads it: the same facts), in its
    line, the JSON and the pages. A fixed-name group moved to m7i.xlarge (replaced), one that sets no version (its
    control plane's), untouched."""
    import pulumi_aws as aws
    from google.protobuf import json_format

    from compute_guard.testkit import capture_program

    def program(machine):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="r", version="1.31",
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            for name, kind, version in (("general", machine, "1.30"), ("steady", "m7i.large", None)):
                aws.eks.NodeGroup(name, cluster_name=cluster.name, node_group_name=name, node_role_arn="r",
                                  subnet_ids=["subnet-1"], instance_types=[kind], version=version,
                                  scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                                   max_size=2))
        return declare

    config = {"compute:platform": "aws", "aws:region": "us-west-2"}
    before = tmp_path / "export.json"
    before.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": r.urn, "type": r.type, "custom": True, "inputs": json_format.MessageToDict(r.inputs)}
        for r in capture_program(program("m7i.large"), stack_config=config)]}}))
    report = report_of(capture_program(program("m7i.xlarge"), stack_config=config), config,
                       {"pool-replacement-safe": {"baseline": str(before)}})
    views = {view.pool: view for view in report.pools}
    assert (views["general"].version, views["general"].change) == (
        "1.30", "replaced: its instanceTypes changes from 'm7i.large' to 'm7i.xlarge'")
    assert (views["steady"].version, views["steady"].change) == ("its control plane's", None)
    document = json.loads(render(report, "json"))
    jsonschema.validate(document, json.loads((HERE / "schema.json").read_text()))
    pools = {pool["pool"]: pool for pool in document["pools"]}
    assert (pools["general"]["kubernetesVersion"], pools["general"]["change"]) == (
        "1.30", "replaced: its instanceTypes changes from 'm7i.large' to 'm7i.xlarge'")
    for form in ("markdown", "html"):
        text = render(report, form).replace("&#39;", "'")
        assert "Kubernetes 1.30; this preview: replaced: its instanceTypes changes from 'm7i.large' to " \
               "'m7i.xlarge'" in text, form


def test_a_pool_whose_nodes_move_to_another_minor_says_it(tmp_path):
    """A node group kept, its version 1.30 -> 1.31: "upgraded from Kubernetes 1.30 to 1.31" (the version
    cluster-version-skew reads), beside one left at its control plane's."""
    import pulumi_aws as aws
    from google.protobuf import json_format

    from compute_guard.testkit import capture_program

    def program(version):
        def declare():
            cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="r", version="1.31",
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn="r",
                              subnet_ids=["subnet-1"], instance_types=["m7i.large"], version=version,
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                               max_size=2))
        return declare

    config = {"compute:platform": "aws", "aws:region": "us-west-2"}
    before = tmp_path / "export.json"
    before.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": r.urn, "type": r.type, "custom": True, "inputs": json_format.MessageToDict(r.inputs)}
        for r in capture_program(program("1.30"), stack_config=config)]}}))
    report = report_of(capture_program(program("1.31"), stack_config=config), config,
                       {"pool-replacement-safe": {"baseline": str(before)}})
    assert [(view.pool, view.version, view.change) for view in report.pools] == [
        ("general", "1.31", "upgraded from Kubernetes 1.30 to 1.31")]


def test_each_pool_shows_what_its_nodes_take_of_its_subnet():
    """SPEC 20 in the report: an AKS pool of Azure CNI in a /24 at maxCount 8 and AKS's default surge takes 9 x 31 =
    279 of the subnet's 256 - 5 = 251 addresses (pool-address-space's facts), in its line, the JSON and the pages."""
    from builders import aks_on_subnet, subnet_pool

    from compute_guard.testkit import capture_program

    config = {"compute:platform": "azure"}
    subnet = ("/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/"
              "aks-nodes")
    report = report_of(capture_program(aks_on_subnet(subnet_pool(max_count=8), subnet_id=subnet), stack_config=config),
                       config)
    (view,) = report.pools
    assert [address.text for address in view.addresses] == [
        "279 of the 251 addresses of subnet 'aks-nodes' (10.0.1.0/24)"]
    document = json.loads(render(report, "json"))
    jsonschema.validate(document, json.loads((HERE / "schema.json").read_text()))
    assert document["pools"][0]["addresses"] == [
        {"space": "subnet 'aks-nodes' (10.0.1.0/24)", "needed": 279, "usable": 251}]
    for form in ("markdown", "html"):
        text = render(report, form).replace("&#39;", "'")
        assert "its nodes take 279 of the 251 addresses of subnet 'aks-nodes' (10.0.1.0/24)" in text, form
