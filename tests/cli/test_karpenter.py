"""Karpenter NodePools under the real CLI (SPEC 14): Karpenter's own example NodePools and workloads
(../shared/third_party/karpenter/examples/) through a ConfigGroup, in a Python and a YAML program, rejected with
the exact messages and passing once fixed; every NodePool the tests use validates against Karpenter's CRD."""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import pytest
import yaml
from pulumi_cli import SHARED, open_stack, policy_findings

PROGRAMS = Path(__file__).resolve().parent / "programs"
KARPENTER = SHARED / "third_party" / "karpenter"
POOLS = KARPENTER / "examples" / "nodepools" / "multiple-arch.yaml"
# The CRDs go first: the render-to-directory provider learns from them that a NodePool is cluster-scoped
# ("failed to determine if the following GVK is namespaced" without them).
CRDS = [KARPENTER / "crds" / name for name in ("karpenter.sh_nodepools.yaml", "karpenter.k8s.aws_ec2nodeclasses.yaml")]
WORKLOADS = [KARPENTER / "examples" / "workloads" / name for name in ("arm64.yaml", "inflate.yaml", "spot.yaml")]

def documents(path: Path) -> list[dict]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document]


def crd_schema(name: str) -> dict:
    (crd,) = documents(KARPENTER / "crds" / name)
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    return version["schema"]["openAPIV3Schema"]


def fixed(tmp_path: Path) -> list[str]:
    """The fix: the arm64 NodePool may also start spot capacity, and 'inflate' and 'spot' are pinned."""
    pools = documents(POOLS)
    for pool in pools:
        if pool["kind"] == "NodePool" and pool["metadata"]["name"] == "arm64":
            for requirement in pool["spec"]["template"]["spec"]["requirements"]:
                if requirement["key"] == "karpenter.sh/capacity-type":
                    requirement["values"] = ["on-demand", "spot"]
    written = [tmp_path / "pools.yaml"]
    written[0].write_text(yaml.safe_dump_all(pools))
    for path in WORKLOADS:
        (workload,) = documents(path)
        workload = copy.deepcopy(workload)
        selector = workload["spec"]["template"]["spec"].setdefault("nodeSelector", {})
        selector.setdefault("kubernetes.io/arch", "arm64" if path.name == "spot.yaml" else "amd64")
        written.append(tmp_path / path.name)
        written[-1].write_text(yaml.safe_dump(workload))
    return [str(path) for path in written]


def test_every_nodepool_the_tests_use_validates_against_karpenters_crds(tmp_path):
    schemas = {"NodePool": crd_schema("karpenter.sh_nodepools.yaml"),
               "EC2NodeClass": crd_schema("karpenter.k8s.aws_ec2nodeclasses.yaml")}
    for path in [POOLS, *map(Path, fixed(tmp_path))]:
        for document in documents(path):
            if document["kind"] in schemas:
                jsonschema.validate(document, schemas[document["kind"]])


@pytest.mark.parametrize("program", ["karpenter", "karpenter-yaml"])
def test_karpenters_examples_are_judged_by_the_schedulers_rules_and_pass_once_fixed(program, toolchain, tmp_path):
    files = ",".join(str(path) for path in [*CRDS, POOLS, *WORKLOADS])
    stack = open_stack(toolchain, PROGRAMS / program, tmp_path, "dev", {"compute:platform": "aws", "manifests": files})
    output = stack.fails(*stack.preview())
    findings = policy_findings(output)
    assert [(f.level, f.policy, f.type, f.name) for f in findings] == [
        ("mandatory", "workload-node-architecture", "kubernetes:apps/v1:Deployment", "fleet:default/inflate"),
        ("mandatory", "workload-schedulable", "kubernetes:apps/v1:Deployment", "fleet:default/spot"),
    ]
    assert findings[0].message == (
        "Deployment 'fleet:default/inflate': its Pods may land on amd64 and arm64 nodes (pool 'amd64' (NodePool) runs "
        "amd64, pool 'arm64' (NodePool) runs arm64), but nothing pins them to one architecture; set "
        "spec.template.spec.nodeSelector['kubernetes.io/arch'] to the one its images are built for")
    assert findings[1].message == (
        "Deployment 'fleet:default/spot': no pool can run its Pods: pool 'amd64' (NodePool) does not have label "
        "karpenter.sh/capacity-type=spot; pool 'arm64' (NodePool) does not have label karpenter.sh/capacity-type=spot. "
        "They would stay Pending: change its nodeSelector, node affinity or tolerations to match a pool, or declare a "
        "pool that takes them")

    readme = (PROGRAMS.parent.parent.parent / "docs" / "platform-pools.md").read_text()  # shows these two, as printed
    assert all(f"{finding.policy}: {finding.message}" in readme for finding in findings)

    stack.config("manifests", ",".join([*map(str, CRDS), *fixed(tmp_path)]))
    out = stack.ok(*stack.preview())
    assert policy_findings(out) == []


def nodepool_file(tmp_path: Path, architecture: str) -> str:
    """A NodePool of m7i and m7g machines allowing one architecture."""
    (pool,) = [document for document in documents(POOLS) if document["kind"] == "NodePool"
               and document["metadata"]["name"] == "amd64"]
    pool = copy.deepcopy(pool)
    pool["metadata"]["name"] = "general"
    pool["spec"]["template"]["spec"]["requirements"] = [
        {"key": "kubernetes.io/arch", "operator": "In", "values": [architecture]},
        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m7i", "m7g"]}]
    path = tmp_path / f"general-{architecture}.yaml"
    path.write_text(yaml.safe_dump(pool))
    return ",".join([*map(str, CRDS), str(path)])


def test_a_nodepool_moved_to_another_architecture_after_up_is_refused_there_and_under_the_test_kit(toolchain,
                                                                                               tmp_path):
    """Issue 45 (pool-safe-update) under the real CLI: after `pulumi up`, a NodePool's kubernetes.io/arch requirement
    moves from amd64 to arm64, refused against the stack's own checkpoint; the same state from the CLI's own
    `pulumi stack export` is a baseline under the test kit too (its URNs are the engine's), with the same finding."""
    from compute_guard.testkit import evaluate

    stack = open_stack(toolchain, PROGRAMS / "karpenter", tmp_path, "dev",
                       {"compute:platform": "aws", "manifests": nodepool_file(tmp_path, "amd64")})
    stack.ok(*stack.up())
    stack.config("manifests", nodepool_file(tmp_path, "arm64"))
    findings = policy_findings(stack.fails(*stack.preview()))
    assert [(f.level, f.policy, f.type, f.name) for f in findings] == [
        ("mandatory", "pool-safe-update", "kubernetes:karpenter.sh/v1:NodePool", "fleet:general")]
    assert findings[0].message.startswith(
        "pool 'general' (NodePool): can't change its machines from the 11 instance types its requirements allow "
        "(amd64) to the 9 instance types its requirements allow (arm64): its nodes would run arm64 where they ran "
        "amd64")
    export = tmp_path / "export.json"
    stack.ok("stack", "export", "--file", str(export))
    result = evaluate(stack.work, project="karpenter", stack="dev", stack_config={
        "compute:platform": "aws", "karpenter:manifests": nodepool_file(tmp_path, "arm64")},
        policy_config={"pool-safe-update": {"baseline": str(export)}})
    assert [(v.policy, v.urn.rsplit("::", 1)[-1], v.finding) for v in result.mandatory] == [
        ("pool-safe-update", "fleet:general", findings[0].message)]
    assert [note for note in result.notes if note.policy == "pool-safe-update"] == []  # the export matched


def test_a_nodepool_allowing_windows_and_linux_refuses_an_unpinned_deployment_under_the_cli(toolchain, tmp_path):
    """Issue 48: a NodePool whose kubernetes.io/os requirement allows linux and windows, its EC2NodeClass of custom
    AMIs (amiFamily Custom: the AMIs decide the OS), and Karpenter's 'inflate' workload unpinned: refused with
    workload-node-os's exact message; pinned to linux, it passes. Both validate against Karpenter's CRDs."""
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "mixed"}, "spec": {"template": {
        "spec": {"requirements": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux", "windows"]},
                                  {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                                  {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m7i"]}],
                 "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "custom"}}}}}
    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "custom"},
                  "spec": {"amiFamily": "Custom", "role": "KarpenterNodeRole-fleet",
                           "amiSelectorTerms": [{"tags": {"fleet/images": "approved"}}],
                           "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "fleet"}}],
                           "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "fleet"}}]}}
    jsonschema.validate(pool, crd_schema("karpenter.sh_nodepools.yaml"))
    jsonschema.validate(node_class, crd_schema("karpenter.k8s.aws_ec2nodeclasses.yaml"))
    pools = tmp_path / "mixed.yaml"
    pools.write_text(yaml.safe_dump_all([pool, node_class]))
    (inflate,) = documents(KARPENTER / "examples" / "workloads" / "inflate.yaml")
    inflate["spec"]["template"]["spec"].setdefault("nodeSelector", {})["kubernetes.io/arch"] = "amd64"
    workload = tmp_path / "inflate.yaml"
    workload.write_text(yaml.safe_dump(inflate))
    files = ",".join(map(str, [*CRDS, pools, workload]))
    stack = open_stack(toolchain, PROGRAMS / "karpenter", tmp_path, "dev", {"compute:platform": "aws", "manifests": files})
    findings = policy_findings(stack.fails(*stack.preview()))
    assert [(f.level, f.policy, f.name) for f in findings] == [
        ("mandatory", "workload-node-os", "fleet:default/inflate")]
    assert findings[0].message == (
        "Deployment 'fleet:default/inflate': its Pods may land on linux and windows nodes (pool 'mixed' (NodePool) "
        "runs linux and windows), but nothing pins them to one operating system, and a Pod on a node of another never "
        "starts; set spec.template.spec.nodeSelector['kubernetes.io/os'] to the one its images are built for")
    inflate["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/os"] = "linux"
    workload.write_text(yaml.safe_dump(inflate))
    assert policy_findings(stack.ok(*stack.preview())) == []
