"""A Python program's ComputeCluster on AWS under the real CLI: levels and settings from
--policy-pack-config, safe machine changes against the stack's own checkpoint after `pulumi up`
and against an export, secrets, and `pulumi policy analyze` on the state `pulumi up` wrote."""

from __future__ import annotations

import json
from pathlib import Path

from pulumi_cli import ROOT, Finding, Stack, open_stack, policy_findings

MACHINES = Path(__file__).resolve().parent / "programs" / "machines"
CLUSTER = ("compute:index:ComputeCluster", "compute")


def aws_stack(toolchain, tmp_path, **config: str) -> Stack:
    return open_stack(toolchain, MACHINES, tmp_path, "dev", {"compute:platform": "aws", **config})


def only(out: str, policy: str) -> list[Finding]:
    return [f for f in policy_findings(out) if f.policy == policy]


def test_levels_settings_and_a_refused_config(toolchain, tmp_path):
    stack = aws_stack(toolchain, tmp_path, maxSize="11")
    out = stack.fails(*stack.preview())
    assert policy_findings(out) == [Finding(
        "mandatory", "compute-cluster-valid", *CLUSTER,
        "ComputeCluster 'compute' pool 'general': maxSize 11 is above the maximum of 10")]
    out = stack.ok(*stack.preview("--policy-pack-config", stack.policy_config({"compute-cluster-valid": "advisory"})))
    assert [f.level for f in policy_findings(out)] == ["advisory"]

    stack.config("maxSize", "3")
    stack.config("machine", "n2-standard-4")
    out = stack.fails(*stack.preview())
    assert [f.message for f in only(out, "cloud-machine-catalog")] == [
        "ComputeCluster 'compute' pool 'general': instanceType 'n2-standard-4' is not a machine type on AWS; "
        "use a machine type of AWS"]
    gcp = stack.policy_config({"cloud-machine-catalog": {"platform": "gcp"}})
    out = stack.ok(*stack.preview("--policy-pack-config", gcp))  # the setting overrides compute:platform
    assert policy_findings(out) == []

    refused = stack.fails(*stack.preview("--policy-pack-config",
                                         stack.policy_config({"cloud-machine-catalog": {"platform": "mars"}})))
    assert 'platform must be one of the following: "aws", "gcp", "azure", "kubernetes", "local"' in refused
    assert "error: validating policy config" in refused
    assert "Policies:" not in refused  # the CLI refused the config before analyzing anything
    unknown = stack.fails(*stack.preview("--policy-pack-config",
                                         stack.policy_config({"workload-pool-placement": {"helmReleases": "enforce"}})))
    # 0.1.0's setting, moved to a policy of its own: refused, saying where it went
    assert ('helmReleases must be one of the following: "moved: set the enforcementLevel of the policy '
            'helm-release-unchecked instead"') in unknown
    assert "error: validating policy config" in unknown and "Policies:" not in unknown


def test_machine_changes_after_up_are_checked_against_the_stacks_own_checkpoint(toolchain, tmp_path):
    stack = aws_stack(toolchain, tmp_path, machine="t4g.small")
    stack.ok(*stack.up())
    stack.config("machine", "t4g.medium")
    out = stack.ok(*stack.preview())  # arm64 -> arm64, both AWS machines: rolled in place
    assert policy_findings(out) == []
    stack.config("machine", "m7i.large")
    out = stack.fails(*stack.preview())
    assert only(out, "compute-cluster-safe-update") == [Finding(
        "mandatory", "compute-cluster-safe-update", *CLUSTER,
        "ComputeCluster 'compute' pool 'general': can't change machine from 't4g.small' (arm64) to 'm7i.large' "
        "(x86_64): only an AWS machine of the same CPU architecture can replace it; keep 't4g.small', or add a new pool with the "
        "new machine and move workloads to it")]
    assert policy_findings(out) == only(out, "compute-cluster-safe-update")

    # An exported baseline wins over the checkpoint.
    export = tmp_path / "export.json"
    stack.ok("stack", "export", "--file", str(export))
    state = json.loads(export.read_text())
    (entry,) = [r for r in state["deployment"]["resources"] if r["type"] == "compute:index:ComputeCluster"]
    entry["inputs"]["capacityGroups"][0]["instanceType"] = "m7g.large"
    export.write_text(json.dumps(state))
    baseline = stack.policy_config({"compute-cluster-safe-update": {"baseline": str(export)}})
    out = stack.fails(*stack.preview("--policy-pack-config", baseline))
    assert "can't change machine from 'm7g.large' (arm64) to 'm7i.large' (x86_64)" in \
        only(out, "compute-cluster-safe-update")[0].message

    # `pulumi policy analyze` on the state `pulumi up` wrote: still t4g.small, clean.
    out = stack.ok("policy", "analyze", "--policy-pack", str(ROOT), "--stack", "dev")
    assert "compute-guard" in out and policy_findings(out) == []


def test_a_budget_that_allows_no_eviction_refuses_a_machine_change_that_replaces_its_nodes(toolchain, tmp_path):
    """Issue 38 under the real CLI: t4g.small -> t4g.medium is a machine change compute-cluster-safe-update allows,
    and it replaces the pool's nodes; a budget with maxUnavailable 0 on the Deployment they run makes the drain
    wait for ever (workload-disruption-allowed, against the stack's own checkpoint); maxUnavailable 1 lets it go;
    two budgets on one Deployment are refused whatever the machine."""
    stack = aws_stack(toolchain, tmp_path, machine="t4g.small", pin="arm64", maxUnavailable="0")
    stack.ok(*stack.up())
    out = stack.ok(*stack.preview())  # nothing changes: nothing to drain (disruption-budget-useful is advisory)
    assert only(out, "workload-disruption-allowed") == []
    stack.config("machine", "t4g.medium")
    out = stack.fails(*stack.preview())
    assert only(out, "workload-disruption-allowed") == [Finding(
        "mandatory", "workload-disruption-allowed", "kubernetes:apps/v1:Deployment", "api",
        "Deployment 'api': its PodDisruptionBudget 'api' allows no eviction (maxUnavailable 0 keeps its one Pod), and "
        "this preview replaces the nodes its Pods run on (pool 'general' of ComputeCluster 'compute': its machine "
        "changes from 't4g.small' to 't4g.medium'): the replacement drains every node and the budget lets none of "
        "them go (a drain fails, or retries until the budget allows an eviction): allow an eviction (maxUnavailable: 1, "
        "or a minAvailable below its replicas) or add replicas before the pool changes")]
    assert [f.policy for f in policy_findings(out) if f.level == "mandatory"] == ["workload-disruption-allowed"]
    stack.config("maxUnavailable", "1")
    out = stack.ok(*stack.preview())
    assert policy_findings(out) == []
    stack.config("budgets", "2")
    out = stack.fails(*stack.preview())
    assert [(f.policy, f.name) for f in policy_findings(out)] == [("workload-disruption-allowed", "api")]
    assert "its Pods are selected by 2 PodDisruptionBudgets ('api', 'api-1')" in policy_findings(out)[0].message


def test_policy_analyze_reports_what_is_wrong_in_deployed_state(toolchain, tmp_path):
    stack = aws_stack(toolchain, tmp_path, machine="t4g.small")
    stack.ok(*stack.up())
    export = tmp_path / "export.json"
    stack.ok("stack", "export", "--file", str(export))
    state = json.loads(export.read_text())
    (entry,) = [r for r in state["deployment"]["resources"] if r["type"] == "compute:index:ComputeCluster"]
    entry["outputs"]["capacityGroups"][0]["instanceType"] = "t4g.smal"
    entry["inputs"]["capacityGroups"][0]["instanceType"] = "t4g.smal"
    export.write_text(json.dumps(state))
    config = stack.policy_config({"cloud-machine-catalog": {"platform": "aws"}})  # no stack config here
    out = stack.fails("policy", "analyze", "--policy-pack", str(ROOT), "--file", str(export),
                      "--policy-pack-config", config)
    assert [f.message for f in only(out, "cloud-machine-catalog")] == [
        "ComputeCluster 'compute' pool 'general': instanceType 't4g.smal' is not a machine type on AWS; did you "
        "mean 't4g.small'?"]


def test_secret_pool_ids_and_machines_are_checked_but_never_printed(toolchain, tmp_path):
    stack = aws_stack(toolchain, tmp_path, secretMachine="true", secretPool="true")
    stack.config("machine", "zz9.s3cr3t", secret=True)
    stack.config("pool", "S3cr3t_Pool", secret=True)
    out = stack.fails(*stack.preview())
    assert "s3cr3t" not in out.lower() and "zz9." not in out
    assert policy_findings(out) == [
        Finding("mandatory", "cloud-machine-catalog", *CLUSTER,
                "ComputeCluster 'compute' capacityGroups[0]: instanceType '[secret]' is not a machine type on AWS; "
                "use a machine type of AWS"),
        Finding("mandatory", "compute-cluster-valid", *CLUSTER,
                "ComputeCluster 'compute' capacityGroups[0]: groupId must be non-empty lowercase letters, digits "
                "and hyphens"),
    ]
    stack.config("machine", "t4g.small", secret=True)
    stack.config("pool", "general", secret=True)
    out = stack.ok(*stack.preview())
    assert policy_findings(out) == []


def test_a_pool_given_by_its_machine_alone_needs_its_machines_architecture(toolchain, tmp_path):
    """Issue 'One model of the stack', the first case, under the real CLI: a t4g.medium pool declares no
    architecture; its machine's (arm64) is the pool's, so the amd64-pinned and the unpinned Deployment fail and
    the arm64-pinned one passes; moved to an m7i machine (x86_64), the amd64 pin passes."""
    stack = aws_stack(toolchain, tmp_path, machine="t4g.medium", pin="amd64")
    out = stack.fails(*stack.preview())
    assert policy_findings(out) == [Finding(
        "mandatory", "workload-node-architecture", "kubernetes:apps/v1:Deployment", "api",
        "Deployment 'api': its Pods need arm64 nodes (the stack's compute pools run arm64), but its architecture "
        "constraints exclude arm64 (they allow amd64); set spec.template.spec.nodeSelector['kubernetes.io/arch'] "
        "to 'arm64'")]
    stack.config("pin", "none")
    out = stack.fails(*stack.preview())
    assert [f.policy for f in policy_findings(out)] == ["workload-node-architecture"]
    stack.config("pin", "arm64")
    assert policy_findings(stack.ok(*stack.preview())) == []
    stack.config("machine", "m7i.large")
    stack.config("pin", "amd64")
    assert policy_findings(stack.ok(*stack.preview())) == []
