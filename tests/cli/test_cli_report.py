"""compute-guard report on files the real CLI wrote: `pulumi preview --json` and `pulumi stack export` of the
bundled examples (Python + pulumi-kubernetes, Helm charts) and of Google's microservices demo, a stack we did
not write. The findings in the report are the findings `pulumi preview --policy-pack` printed for the same
stack, and the picture's numbers are the manifests' own requests, summed here."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import yaml
from pulumi_cli import CHARTS, ROOT, SHARED, Finding, open_stack, policy_findings, preview_json, report

EXAMPLE = ROOT / "examples" / "kubernetes"
HELM = ROOT / "examples" / "helm"
MANIFESTS = Path(__file__).resolve().parent / "programs" / "manifests"
SHOP = SHARED / "corpus" / "GoogleCloudPlatform_microservices-demo" / "release" / "kubernetes-manifests.yaml"


def findings_of(document: dict) -> list[Finding]:
    return sorted((Finding(f["level"], f["policy"], f["type"] or "", f["name"] or "", f["message"])
                   for f in document["findings"] if not f["note"]), key=str)


def printed(stack, fails: bool) -> list[Finding]:
    out = stack.fails(*stack.preview()) if fails else stack.ok(*stack.preview())
    return sorted(policy_findings(out), key=str)


def test_the_examples_preview_json_gives_the_findings_the_cli_printed(toolchain, tmp_path):
    for name, fails in (("dev", False), ("broken", True)):
        stack = open_stack(toolchain, EXAMPLE, tmp_path / name, name)
        code, document = report(stack, preview_json(stack))
        assert findings_of(document) == printed(stack, fails), name
        assert code == (1 if fails else 0) and document["stack"]["platform"] == "kubernetes"
        assert len(findings_of(document)) == (5 if fails else 0)


def test_a_stack_export_after_up_gives_the_previews_findings_and_pools(toolchain, tmp_path):
    stack = open_stack(toolchain, EXAMPLE, tmp_path, "broken")
    _, from_preview = report(stack, preview_json(stack))
    stack.ok("up", "--yes", "--skip-preview")  # deployed without the pack (it would refuse the stack)
    stack.ok("stack", "export", "--file", "export.json")
    code, exported = report(stack, stack.work / "export.json")
    assert code == 1 and exported["stack"]["input"] == "export"
    assert findings_of(exported) == findings_of(from_preview) == printed(stack, True)
    assert exported["pools"] == from_preview["pools"]


def test_the_helm_charts_through_the_report(toolchain, tmp_path):
    stack = open_stack(toolchain, HELM, tmp_path, "unpinned", {"chartsDir": str(CHARTS)})
    code, document = report(stack, preview_json(stack))
    assert code == 1 and findings_of(document) == printed(stack, True)
    (general,) = [pool for pool in document["pools"] if pool["pool"] == "general"]
    uses = {w["name"]: w for w in general["workloads"]}
    # the charts' own requests: 100m per Pod for the gateway Deployment and the istio-cni DaemonSet
    assert uses["cni:kube-system/istio-cni-node"]["daemon"] and uses["cni:kube-system/istio-cni-node"]["perPod"]["cpu"] == 100
    assert uses["ingress:istio-ingress/ingress"]["perPod"]["cpu"] == 100
    assert not uses["ingress:istio-ingress/ingress"]["pinned"]


UNITS = {"m": Decimal("0.001"), "Ki": Decimal(1 << 10), "Mi": Decimal(1 << 20), "Gi": Decimal(1 << 30)}


def quantity(text: str) -> Decimal:
    """The few quantity forms the demo uses (100m, 64Mi, 1Gi, 2), written out here."""
    for suffix, factor in UNITS.items():
        if text.endswith(suffix):
            return Decimal(text[: -len(suffix)]) * factor
    return Decimal(text)


def requested(path: Path) -> dict[str, Decimal]:
    """The demo's own numbers over its Deployments: replicas x the sum of its containers' requests."""
    total = {"cpu": Decimal(0), "memory": Decimal(0), "pods": Decimal(0)}
    for document in yaml.safe_load_all(path.read_text()):
        if not document or document.get("kind") != "Deployment":
            continue
        replicas = Decimal(document["spec"].get("replicas", 1))
        for container in document["spec"]["template"]["spec"]["containers"]:
            requests = container.get("resources", {}).get("requests", {})
            total["cpu"] += replicas * quantity(str(requests.get("cpu", "0"))) * 1000
            total["memory"] += replicas * quantity(str(requests.get("memory", "0")))
        total["pods"] += replicas
    return total


def test_a_stack_we_did_not_write_the_microservices_demo(toolchain, tmp_path):
    stack = open_stack(toolchain, MANIFESTS, tmp_path, "dev", {"compute:platform": "kubernetes",
                                                               "manifest": str(SHOP)})
    code, document = report(stack, preview_json(stack))
    assert code == 1 and findings_of(document) == printed(stack, True)
    assert {f.policy for f in findings_of(document)} == {"workload-node-architecture"}  # unpinned on arm64 pools
    (general,) = document["pools"]
    assert len(general["workloads"]) == 12
    assert general["used"] == {resource: int(amount) for resource, amount in requested(SHOP).items()}
    # 3 nodes of 2 cores, with only the kubelet's 100 MiB eviction threshold held back on platform kubernetes
    assert general["capacity"] == {"cpu": 3 * 2000, "memory": 3 * ((8 << 30) - (100 << 20)), "pods": 3 * 110}
    assert not any(w["pinned"] for w in general["workloads"])
    assert all(w["flaggedBy"] == ["workload-node-architecture"] for w in general["workloads"])
