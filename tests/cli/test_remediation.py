"""workload-architecture-pin under the real CLI: the engine runs the remediation before analysis
and deploys what it returns."""

from __future__ import annotations

from pathlib import Path

import yaml
from pulumi_cli import CHARTS, open_stack, policy_findings

PROGRAM = Path(__file__).resolve().parent / "programs" / "remediation"
REMEDIATE = {"workload-architecture-pin": "remediate"}
API = "rendered/1-manifest/apps_v1-deployment-default-api.yaml"


def node_selector(stack, manifest: str) -> dict:
    return yaml.safe_load((stack.work / manifest).read_text())["spec"]["template"]["spec"]["nodeSelector"]


def test_by_default_nothing_changes_and_the_unpinned_deployment_is_rejected(toolchain, tmp_path):
    stack = open_stack(toolchain, PROGRAM, tmp_path, "dev", {"compute:platform": "kubernetes"})
    out = stack.fails(*stack.preview())
    assert [(f.policy, f.name) for f in policy_findings(out)] == [("workload-node-architecture", "api")]
    assert "workload-architecture-pin" not in out


def test_remediate_pins_on_up_and_a_second_preview_has_nothing_to_change(toolchain, tmp_path):
    stack = open_stack(toolchain, PROGRAM, tmp_path, "dev", {"compute:platform": "kubernetes"})
    config = ("--policy-pack-config", stack.policy_config(REMEDIATE))
    out = stack.ok(*stack.preview(*config))
    assert policy_findings(out) == []
    assert "- [remediate]  workload-architecture-pin  (1 resource)" in out  # the CLI's own summary
    stack.ok(*stack.up(*config))
    assert node_selector(stack, API) == {"disktype": "ssd", "kubernetes.io/arch": "amd64"}
    again = stack.ok(*stack.preview(*config, "--expect-no-changes"))  # idempotent: nothing to update
    assert policy_findings(again) == []


def test_a_wrong_pin_is_not_rewritten_and_still_rejected(toolchain, tmp_path):
    stack = open_stack(toolchain, PROGRAM, tmp_path, "dev", {"compute:platform": "kubernetes", "wrongPin": "true"})
    out = stack.fails(*stack.preview("--policy-pack-config", stack.policy_config(REMEDIATE)))
    findings = policy_findings(out)
    assert [(f.level, f.policy, f.name) for f in findings] == [("mandatory", "workload-node-architecture", "legacy")]
    assert "exclude amd64 (they allow arm64)" in findings[0].message


def test_helm_chart_children_are_remediated(toolchain, tmp_path):
    stack = open_stack(toolchain, PROGRAM, tmp_path, "dev", {"compute:platform": "kubernetes",
                                                             "chartsDir": str(CHARTS)})
    config = ("--policy-pack-config", stack.policy_config(REMEDIATE))
    out = stack.ok(*stack.up(*config))
    assert "- [remediate]  workload-architecture-pin  (3 resources)" in out
    assert node_selector(stack, "rendered/1-manifest/apps_v1-daemonset-kube-system-istio-cni-node.yaml") == {
        "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
    assert node_selector(stack, "rendered/1-manifest/apps_v1-deployment-istio-ingress-ingress.yaml") == {
        "kubernetes.io/arch": "amd64"}
    assert policy_findings(stack.ok(*stack.preview(*config, "--expect-no-changes"))) == []
