"""Rendered manifests under the real CLI: a corpus manifest through kubernetes:yaml/v2:ConfigGroup
reaches the policies, and a kubernetes:helm.sh/v3:Release, whose workloads no policy sees, is shown."""

from __future__ import annotations

from pathlib import Path

import yaml
from pulumi_cli import CHARTS, SHARED, open_stack, policy_findings

MANIFESTS = Path(__file__).resolve().parent / "programs" / "manifests"
SHOP = SHARED / "corpus" / "GoogleCloudPlatform_microservices-demo" / "release" / "kubernetes-manifests.yaml"


def deployments_of(path: Path) -> list[str]:
    return sorted(d["metadata"]["name"] for d in yaml.safe_load_all(path.read_text())
                  if d and d.get("kind") == "Deployment")


def test_config_group_workloads_reach_the_policies_and_a_helm_release_is_shown(toolchain, tmp_path):
    stack = open_stack(toolchain, MANIFESTS, tmp_path, "dev", {"compute:platform": "kubernetes",
                                                               "manifest": str(SHOP)})
    out = stack.fails(*stack.preview())
    findings = policy_findings(out)
    expected = deployments_of(SHOP)
    assert len(expected) == 12
    assert [(f.level, f.policy, f.type, f.name) for f in findings] == [
        ("mandatory", "workload-node-architecture", "kubernetes:apps/v1:Deployment", f"shop:default/{name}")
        for name in expected]
    assert all("its Pods need arm64 nodes" in f.message for f in findings)

    stack.config("release", str(CHARTS / "gateway"))
    findings = policy_findings(stack.fails(*stack.preview()))
    assert findings[-1].level == "advisory" and findings[-1].policy == "helm-release-unchecked"
    assert (findings[-1].type, findings[-1].name) == ("kubernetes:helm.sh/v3:Release", "legacy")
    assert findings[-1].message.startswith(f"Release 'legacy' installs chart '{CHARTS / 'gateway'}' through Helm")
    assert len(findings) == 13
