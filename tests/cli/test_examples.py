"""The bundled examples under the real Pulumi CLI: a Python program with the ComputeCluster component
and pulumi-kubernetes workloads, and real Helm charts through kubernetes:helm.sh/v4:Chart."""

from __future__ import annotations

import re
import subprocess

import yaml
from pulumi_cli import CHARTS, ROOT, Finding, bare_shell_env, open_stack, policy_findings

from compute_guard.policies import PACK_VERSION

EXAMPLE = ROOT / "examples" / "kubernetes"
HELM = ROOT / "examples" / "helm"
STATUS_PAGE = ROOT / "tests" / "testkit" / "rendered" / "status-page.yaml"
PASSED = f"✅ compute-guard@v{PACK_VERSION}"
FAILED = f"❌ compute-guard@v{PACK_VERSION}"


def test_the_dev_stack_previews_clean(toolchain, tmp_path):
    stack = open_stack(toolchain, EXAMPLE, tmp_path, "dev")
    out = stack.ok(*stack.preview())
    assert PASSED in out and policy_findings(out) == []
    for name in ("compute", "api", "db", "log-agent", "report", "status", "status:default/status"):
        assert re.search(rf"\+  \S+ {name} create", out), name


def test_the_broken_stack_fails_with_exactly_what_it_demonstrates(toolchain, tmp_path):
    stack = open_stack(toolchain, EXAMPLE, tmp_path, "broken")
    out = stack.fails(*stack.preview())
    assert FAILED in out
    assert "KeyboardInterrupt" not in out  # the engine's SIGINT after the failure (docs/troubleshooting.md)
    legacy = ("kubernetes:apps/v1:Deployment", "legacy")
    assert policy_findings(out) == [
        Finding("mandatory", "workload-architecture-selector-valid", *legacy,
                "Deployment 'legacy': spec.template.spec.nodeSelector['kubernetes.io/arch'] 'x86_64' is not a "
                "Kubernetes architecture; Kubernetes calls it 'amd64'"),
        Finding("mandatory", "workload-fits-pool", "kubernetes:apps/v1:Deployment", "encoder",
                "Deployment 'encoder': one Pod requests 6 cores of CPU, more than a node of pool 'general' of "
                "ComputeCluster 'compute' (its profile) can give it: 4 cores allocatable, - 100m for DaemonSets "
                "('log-agent' 100m) = 3900m left; it can never be scheduled there: request at most 3900m, or place the "
                "workload on a pool of larger machines"),
        Finding("mandatory", "workload-node-architecture", *legacy,
                "Deployment 'legacy': its Pods need amd64 nodes (the stack's compute pools declare x86_64), but its "
                "architecture constraints exclude amd64 (they allow no architecture); set "
                "spec.template.spec.nodeSelector['kubernetes.io/arch'] to 'amd64'"),
        Finding("mandatory", "workload-pool-placement", *legacy,
                "Deployment 'legacy': references missing or ambiguous pool 'gpu' in ComputeCluster 'compute' (its "
                "pools: 'general', 'stateful'); set the label 'compute.alien.dev/pool' to one of them"),
        Finding("mandatory", "pool-capacity", "compute:index:ComputeCluster", "compute",
                "ComputeCluster 'compute' pool 'stateful': at its maxSize of 2 nodes (its profile) it has room for 2 x "
                "31.9 GiB = 63.8 GiB of memory allocatable (a node: 32 GiB capacity - 100 MiB eviction threshold = "
                "31.9 GiB allocatable); its workloads request 68 GiB (largest: StatefulSet 'cache' 5 x 12 GiB, "
                "StatefulSet 'db' 1 x 8 GiB), 68 GiB in all, more than it has: raise maxSize to at least 3, use larger "
                "machines or move workloads to another pool"),
    ]


def test_on_aws_a_machine_change_to_arm64_is_refused_for_the_pins_and_the_update(toolchain, tmp_path):
    """Issue 'One model of the stack', under the real CLI: the stack 'aws' gives pool 'general' by its machine alone.
    Up with m7i.xlarge (x86_64, clean), then m7g.xlarge (arm64): the amd64-pinned workloads on it, the two
    architectures of the stack's pools and the in-place machine change are all refused."""
    stack = open_stack(toolchain, EXAMPLE, tmp_path, "aws")
    stack.ok(*stack.up())
    stack.config("generalMachine", "m7g.xlarge")
    findings = policy_findings(stack.fails(*stack.preview()))
    assert [(f.policy, f.name) for f in findings] == [
        ("compute-cluster-safe-update", "compute"), ("compute-pools-single-architecture", "compute"),
        ("workload-node-architecture", "log-agent"), ("workload-node-architecture", "api"),
        ("workload-node-architecture", "status:default/status")]  # the Helm chart's Deployment, pinned by its values
    assert findings[0].message.startswith(
        "ComputeCluster 'compute' pool 'general': can't change machine from 'm7i.xlarge' (x86_64) to 'm7g.xlarge' "
        "(arm64)")
    assert findings[3].message == (
        "Deployment 'api': its Pods need arm64 nodes (pool 'general' of ComputeCluster 'compute' runs m7g.xlarge, an "
        "arm64 machine), but its architecture constraints exclude arm64 (they allow amd64); set "
        "spec.template.spec.nodeSelector['kubernetes.io/arch'] to 'arm64'")


def test_up_renders_the_manifests_without_a_cluster(toolchain, tmp_path):
    stack = open_stack(toolchain, EXAMPLE, tmp_path, "dev")
    stack.ok(*stack.up())
    rendered = sorted(p.name for p in (stack.work / "rendered" / "1-manifest").iterdir())
    assert rendered == ["apps_v1-daemonset-default-log-agent.yaml", "apps_v1-deployment-default-api.yaml",
                        "apps_v1-deployment-default-status.yaml", "apps_v1-statefulset-default-db.yaml",
                        "batch_v1-cronjob-default-report.yaml"]
    api = yaml.safe_load((stack.work / "rendered" / "1-manifest" / rendered[1]).read_text())
    assert api["spec"]["template"]["spec"]["nodeSelector"] == {"kubernetes.io/arch": "amd64"}
    # the Helm chart, placed by its values; the offline twins (tests/test_example.py) give this render as --rendered
    status = stack.work / "rendered" / "1-manifest" / rendered[2]
    assert yaml.safe_load(status.read_text()) == yaml.safe_load(STATUS_PAGE.read_text())
    out = stack.ok(*stack.preview())  # the deployed stack still passes, now as an update
    assert PASSED in out and policy_findings(out) == []


def test_the_readme_main_command_runs_the_real_cli_once_it_is_built(toolchain, tmp_path):
    env = bare_shell_env(toolchain, tmp_path)
    done = subprocess.run([str(ROOT / "scripts" / "preview")], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Previewing update (dev):")  # the CLI's own output, not the offline one
    assert PASSED in done.stdout and policy_findings(done.stdout) == []
    broken = subprocess.run([str(ROOT / "scripts" / "preview"), str(EXAMPLE), "broken"], capture_output=True,
                            text=True, env=env, timeout=600)
    assert broken.returncode != 0 and FAILED in broken.stdout
    assert "KeyboardInterrupt" not in broken.stdout + broken.stderr
    assert len(policy_findings(broken.stdout)) == 5


# Helm charts -------------------------------------------------------------------------------------

def helm_stack(toolchain, tmp_path, name: str, **config: str):
    return open_stack(toolchain, HELM, tmp_path, name, {"chartsDir": str(CHARTS), **config})


def test_unpinned_chart_workloads_are_rejected_by_name(toolchain, tmp_path):
    stack = helm_stack(toolchain, tmp_path, "unpinned")
    out = stack.fails(*stack.preview())
    fix = ("its Pods need amd64 nodes (the stack's compute pools declare x86_64), but nothing pins them there and "
           "they could be scheduled on another architecture in a mixed cluster; set "
           "spec.template.spec.nodeSelector['kubernetes.io/arch'] to 'amd64'")
    assert policy_findings(out) == [
        Finding("mandatory", "workload-node-architecture", "kubernetes:apps/v1:DaemonSet",
                "cni:kube-system/istio-cni-node", f"DaemonSet 'cni:kube-system/istio-cni-node': {fix}"),
        Finding("mandatory", "workload-node-architecture", "kubernetes:apps/v1:Deployment",
                "ingress:istio-ingress/ingress", f"Deployment 'ingress:istio-ingress/ingress': {fix}"),
    ]


def test_charts_pinned_by_the_readme_transforms_pass_and_render_pinned(toolchain, tmp_path):
    stack = helm_stack(toolchain, tmp_path, "dev")
    out = stack.ok(*stack.preview())
    assert PASSED in out and policy_findings(out) == []
    stack.ok(*stack.up())
    manifests = stack.work / "rendered" / "1-manifest"
    cni = yaml.safe_load((manifests / "apps_v1-daemonset-kube-system-istio-cni-node.yaml").read_text())
    gateway = yaml.safe_load((manifests / "apps_v1-deployment-istio-ingress-ingress.yaml").read_text())
    # the chart's own node selector keys stay; the pin and the placement labels are added
    assert cni["spec"]["template"]["spec"]["nodeSelector"] == {"kubernetes.io/os": "linux",
                                                              "kubernetes.io/arch": "amd64"}
    assert gateway["spec"]["template"]["spec"]["nodeSelector"] == {"kubernetes.io/arch": "amd64"}
    for workload in (cni, gateway):
        labels = workload["metadata"]["labels"]
        assert labels["compute.alien.dev/cluster"] == "compute" and labels["compute.alien.dev/pool"] == "general"
        assert "app.kubernetes.io/name" in labels or "app" in labels  # the chart's labels are kept


def test_the_pin_never_rewrites_a_wrong_architecture(toolchain, tmp_path):
    """Pools declare arm64 and the transforms pin to arm64, but the chart's values pin amd64: the pin
    leaves that constraint alone and compute-guard reports it."""
    stack = helm_stack(toolchain, tmp_path, "dev", architecture="arm64", gatewayArch="amd64")
    findings = policy_findings(stack.fails(*stack.preview()))
    assert [(f.policy, f.name) for f in findings] == [
        ("workload-node-architecture", "ingress:istio-ingress/ingress")]
    assert "its Pods need arm64 nodes" in findings[0].message
    assert "exclude arm64 (they allow amd64)" in findings[0].message


def test_the_charts_real_requests_against_small_machines(toolchain, tmp_path):
    """The charts request 100m per Pod (gateway Deployment, istio-cni DaemonSet); the gateway's HPA keeps
    minReplicas. On 150m machines the DaemonSet leaves 50m: the gateway never fits. On 300m machines,
    3 nodes hold 900m: the DaemonSet takes 3 x 100m, so 7 gateways (700m) are 100m too many, 6 fit; with
    200m left per node, 7 gateways need 4 nodes."""
    stack = helm_stack(toolchain, tmp_path / "small", "dev", machineCpu="150m")
    assert policy_findings(stack.fails(*stack.preview())) == [Finding(
        "mandatory", "workload-fits-pool", "kubernetes:apps/v1:Deployment", "ingress:istio-ingress/ingress",
        "Deployment 'ingress:istio-ingress/ingress': one Pod requests 100m of CPU, more than a node of pool 'general' "
        "of ComputeCluster 'compute' (its profile) can give it: 150m allocatable, - 100m for DaemonSets "
        "('cni:kube-system/istio-cni-node' 100m) = 50m left; it can never be scheduled there: request at most 50m, or "
        "place the workload on a pool of larger machines")]
    fits = helm_stack(toolchain, tmp_path / "six", "dev", machineCpu="300m", gatewayMinReplicas="6")
    assert policy_findings(fits.ok(*fits.preview())) == []
    stack = helm_stack(toolchain, tmp_path / "seven", "dev", machineCpu="300m", gatewayMinReplicas="7")
    assert policy_findings(stack.fails(*stack.preview())) == [Finding(
        "mandatory", "pool-capacity", "compute:index:ComputeCluster", "compute",
        "ComputeCluster 'compute' pool 'general': at its maxSize of 3 nodes (its profile) it has room for 3 x 300m = "
        "900m of CPU allocatable; its DaemonSets take 3 x 100m = 300m and its workloads request 700m (largest: "
        "Deployment 'ingress:istio-ingress/ingress' 7 (HorizontalPodAutoscaler 'ingress:istio-ingress/ingress' "
        "minReplicas) x 100m), 1 core in all, more than it has: raise maxSize to at least 4, use larger machines or "
        "move workloads to another pool")]


def test_the_helm_guide_points_at_the_tested_transforms_and_shows_the_examples_chart_as_written():
    guide = (ROOT / "docs" / "helm.md").read_text()
    assert "](../examples/helm/compute_placement.py)" in guide  # the file the tests above run, not a copy
    usage, values = re.findall(r"```python\n(.*?)```", guide, re.S)
    recipe = (HELM / "compute_placement.py").read_text()
    for name in re.findall(r"\b(pin_architecture|place_on)\(", usage):
        assert f"def {name}(" in recipe
    assert values.strip() in (EXAMPLE / "__main__.py").read_text()  # the status-page chart, placed by its values
