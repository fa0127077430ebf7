"""What a namespace admits (SPEC 21, namespace-admits-workload) under the real CLI: a Kubernetes program with a
Namespace, a ResourceQuota and a Deployment over it (beside a Karpenter NodePool its Pods land on), refused with the
exact message and passing once fixed; the in-process twins are tests/policies/test_namespace_admits_workload.py."""

from __future__ import annotations

from pathlib import Path

import yaml
from pulumi_cli import SHARED, open_stack, policy_findings

PROGRAMS = Path(__file__).resolve().parent / "programs"
KARPENTER = SHARED / "third_party" / "karpenter"
CRDS = [KARPENTER / "crds" / name for name in ("karpenter.sh_nodepools.yaml", "karpenter.k8s.aws_ec2nodeclasses.yaml")]
POOL = [
    {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"}, "spec": {"template": {
        "spec": {"requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                                  {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m7i"]}],
                 "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}},
    {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
     "spec": {"role": "KarpenterNodeRole-fleet", "amiSelectorTerms": [{"alias": "al2023@latest"}],
              "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "fleet"}}],
              "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "fleet"}}]}},
]


def team(replicas: int) -> list[dict]:
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
        {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "team-quota", "namespace": "team"},
         "spec": {"hard": {"pods": "4"}}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api", "namespace": "team"},
         "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "api"}},
                  "template": {"metadata": {"labels": {"app": "api"}}, "spec": {
                      "nodeSelector": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
                      "containers": [{"name": "api", "image": "nginx",
                                      "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}}},
    ]


def test_a_deployment_past_its_namespaces_quota_is_refused_and_passes_when_fixed(toolchain, tmp_path):
    pools = tmp_path / "pools.yaml"
    pools.write_text(yaml.safe_dump_all(POOL))
    manifests = tmp_path / "team.yaml"
    manifests.write_text(yaml.safe_dump_all(team(5)))
    files = ",".join(map(str, [*CRDS, pools, manifests]))
    stack = open_stack(toolchain, PROGRAMS / "karpenter", tmp_path, "dev", {"compute:platform": "aws", "manifests": files})
    findings = policy_findings(stack.fails(*stack.preview()))
    assert [(f.level, f.policy, f.name) for f in findings] == [
        ("mandatory", "namespace-admits-workload", "fleet:team/team-quota")]
    assert findings[0].message == (
        "ResourceQuota 'team-quota' of namespace 'team' allows 4 of spec.hard.pods, but the stack's workloads there "
        "take 5 (Deployment 'fleet:team/api' 5 x 1): the API server refuses their Pods past 4, which never run; raise "
        "spec.hard.pods to at least 5, or run fewer replicas")
    manifests.write_text(yaml.safe_dump_all(team(4)))
    assert policy_findings(stack.ok(*stack.preview())) == []


def test_a_pod_a_restricted_namespace_forbids_is_refused_and_passes_when_hardened(toolchain, tmp_path):
    """A Namespace labelled pod-security.kubernetes.io/enforce: restricted and a Deployment that leaves
    allowPrivilegeEscalation and its capabilities as they come: refused with the exact message; hardened, it passes."""
    pools = tmp_path / "pools.yaml"
    pools.write_text(yaml.safe_dump_all(POOL))

    def manifests(hardened: bool) -> list[dict]:
        context = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}} if hardened else {}
        return [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {
                "name": "team", "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}},
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api", "namespace": "team"},
             "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "api"}},
                      "template": {"metadata": {"labels": {"app": "api"}}, "spec": {
                          "nodeSelector": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
                          "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
                          "containers": [{"name": "api", "image": "nginx", "securityContext": context,
                                          "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}}},
        ]

    team = tmp_path / "team.yaml"
    team.write_text(yaml.safe_dump_all(manifests(False)))
    files = ",".join(map(str, [*CRDS, pools, team]))
    stack = open_stack(toolchain, PROGRAMS / "karpenter", tmp_path, "dev", {"compute:platform": "aws", "manifests": files})
    findings = policy_findings(stack.fails(*stack.preview()))
    assert [(f.level, f.policy, f.name) for f in findings] == [
        ("mandatory", "namespace-admits-workload", "fleet:team/api")]
    assert findings[0].message == (
        "Deployment 'fleet:team/api': namespace 'team' enforces the Pod Security Standard restricted "
        "(pod-security.kubernetes.io/enforce), which forbids what its Pods ask: allowPrivilegeEscalation != false "
        "(api); capabilities (drop ALL, add at most NET_BIND_SERVICE); the API server refuses every Pod of it: change "
        "its pod spec to meet restricted (kubernetes.io/docs/concepts/security/pod-security-standards), or lower the "
        "namespace's level")
    team.write_text(yaml.safe_dump_all(manifests(True)))
    assert policy_findings(stack.ok(*stack.preview())) == []
