"""And back (issue 58, SPEC 18): a platform stack whose config compute:dependents names its app stacks has its pools'
changes judged against their workloads: an architecture moved under pinned Pods, machines too small, a taint no
workload tolerates, a pool removed that workloads select, a maxSize below what they need. Reported on the platform's
pool, naming the app stack and its workload; what the app stack had already is its own preview's to report.

The platform's previous deployment is its checkpoint in a local (file://) backend, as section 5 reads it; the app
program runs as deployed, its StackReference reading the platform's outputs (evaluate's dependents=)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from compute_guard.testkit import evaluate, export_program

sys.path.insert(0, str(Path(__file__).parent))
from test_stacks import APP, AWS, DAEMONSET, PLATFORM, PLATFORM_NAME, program  # noqa: E402

APP_NAME = "acme/shop/prod"
BATCH = '''
aws.eks.NodeGroup("prod-batch", cluster_name=prod.name, node_group_name="batch", node_role_arn="r", subnet_ids=["s"],
                  instance_types=["m7i.large"], scaling_config={"desired_size": 1, "min_size": 1, "max_size": 2})
'''
BREAKS = f"This change breaks a workload of stack {APP_NAME} (compute:dependents): "
FIX = f". Change it in stack {APP_NAME} first, or keep what it needs here"
POOL = "pool 'general' (NodeGroup) of EKS cluster 'prod' (this stack)"


def deployed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """The platform as deployed: its checkpoint in a local backend, where the pack reads its previous deployment."""
    root = tmp_path / "backend"
    stacks = root / ".pulumi" / "stacks" / "platform"
    stacks.mkdir(parents=True)
    export = json.loads(export_program(program(tmp_path / "deployed", "platform", text),
                                       tmp_path / "deployed.json").read_text())
    (stacks / "stack.json").write_text(json.dumps({"version": 3, "checkpoint": {"latest": export["deployment"]}}))
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{root}")


def app(tmp_path: Path, workloads: str) -> Path:
    return program(tmp_path / "app", "shop", APP.format(stack=PLATFORM_NAME, output="kubeconfig", workloads=workloads))


def judged(tmp_path: Path, text: str, workloads: str, **options) -> dict:
    """The platform program's verdicts with the app as its dependent, twice in one process (the same both times)."""
    platform = program(tmp_path / "changed", "platform", text)
    first, second = (evaluate(platform, stack_config=AWS, dependents={APP_NAME: app(tmp_path, workloads)}, **options)
                     for _ in range(2))
    assert [(v.policy, v.urn, v.finding) for v in first.violations] == \
        [(v.policy, v.urn, v.finding) for v in second.violations]
    assert [n.reasons for n in first.notes] == [n.reasons for n in second.notes]
    return {"violations": [(v.policy, v.urn.rsplit("::", 1)[-1] if v.urn else None, v.finding)
                           for v in second.violations if v.policy != "pool-safe-update"],
            "notes": [reason for note in second.notes for reason in note.reasons]}


ARM = PLATFORM.replace('prod = cluster("prod", "m7i.large")', 'prod = cluster("prod", "m7g.large", "arm64")')


def test_moving_a_node_group_to_arm64_under_amd64_pinned_pods(tmp_path, monkeypatch):
    """The app pins Pods to amd64 on the platform's amd64 group; the platform moves it to arm64: refused on the
    group, naming the app stack and its Deployment. Unchanged, nothing is said."""
    deployed(tmp_path, monkeypatch, PLATFORM)
    pinned = 'deploy("api", "64Mi", {"kubernetes.io/arch": "amd64"})'
    assert judged(tmp_path / "same", PLATFORM, pinned) == {"violations": [], "notes": []}
    assert judged(tmp_path / "arm", ARM, pinned) == {"violations": [(
        "workload-schedulable", "prod-general",
        f"{BREAKS}Deployment 'api': no pool can run its Pods: {POOL} runs arm64 nodes, not amd64 (its nodeSelector's "
        "kubernetes.io/arch). They would stay Pending: change its nodeSelector, node affinity or tolerations to match a "
        f"pool, or declare a pool that takes them{FIX}")], "notes": []}


def test_machines_too_small_for_a_dependents_pod(tmp_path, monkeypatch):
    """m7i.large's 7518 MiB holds a 5 GiB Pod; t3.medium's 3554 MiB does not."""
    deployed(tmp_path, monkeypatch, PLATFORM)
    small = PLATFORM.replace('prod = cluster("prod", "m7i.large")', 'prod = cluster("prod", "t3.medium")')
    found = judged(tmp_path, small, 'deploy("big", "5Gi")')
    assert found["notes"] == []
    # (the machine change also replaces the group under the Deployment: test_a_replacement_under_a_dependents_pods)
    ((policy, urn, message),) = [found for found in found["violations"] if found[0] != "pool-replacement-safe"]
    assert (policy, urn) == ("workload-fits-pool", "prod-general")
    assert message.startswith(f"{BREAKS}Deployment 'big': one Pod requests 100m of CPU and 5 GiB of memory, more than "
                              f"any node of the pools that can take it: {POOL} has at most 4 GiB capacity - 442 MiB "
                              "kube-reserved - 100 MiB eviction threshold = 3554 MiB allocatable of memory (t3.medium)")
    assert message.endswith(FIX)


def test_a_taint_no_dependent_workload_tolerates(tmp_path, monkeypatch):
    deployed(tmp_path, monkeypatch, PLATFORM)
    tainted = PLATFORM.replace('"max_size": 2}', '"max_size": 2}, taints=[{"key": "dedicated", "value": "gpu", '
                                                 '"effect": "NO_SCHEDULE"}]')
    found = judged(tmp_path, tainted, 'deploy("api", "64Mi")')
    assert [(policy, urn) for policy, urn, _ in found["violations"]] == [("workload-schedulable", "prod-general")]
    assert f"{POOL} has taint dedicated=gpu:NoSchedule that it does not tolerate" in found["violations"][0][2]


def test_a_max_size_below_what_they_need_is_said_once(tmp_path, monkeypatch):
    """Two nodes of 7518 MiB hold 4 x 3 GiB; one does not. pool-capacity reports it on each app workload there; the
    platform's preview, once on its pool."""
    deployed(tmp_path, monkeypatch, PLATFORM)
    fewer = PLATFORM.replace('"max_size": 2', '"max_size": 1')
    found = judged(tmp_path, fewer, 'deploy("many", "3Gi", replicas=4)\ndeploy("api", "64Mi")')
    ((policy, urn, message),) = found["violations"]
    assert (policy, urn) == ("pool-capacity", "prod-general")
    assert "the workloads only it can take request 12.06 GiB (largest: Deployment 'many' 4 x 3 GiB" in message
    assert "raise scalingConfig.maxSize to at least 2" in message
    assert f"(stack {APP_NAME}'s Deployment 'api', Deployment 'many' beside this stack's own; other app stacks' Pods " \
        "on it are not counted)" in message


def test_a_pool_removed_that_workloads_select(tmp_path, monkeypatch):
    """The app selects the 'batch' group by its node group label; the platform replaces it with 'other'."""
    deployed(tmp_path, monkeypatch, PLATFORM + BATCH)
    other = PLATFORM + BATCH.replace('"prod-batch"', '"prod-other"').replace('"batch"', '"other"')
    found = judged(tmp_path, other, 'deploy("batch", "64Mi", {"eks.amazonaws.com/nodegroup": "batch"})')
    assert [(policy, urn) for policy, urn, _ in found["violations"]] == [("workload-schedulable", "prod-other")]
    assert "does not have label eks.amazonaws.com/nodegroup=batch" in found["violations"][0][2]


def test_the_platforms_own_daemonsets_count(tmp_path, monkeypatch):
    """Its DaemonSet growing from 1 GiB to 2 GiB leaves 5518 MiB of a node: a 6 GiB Pod fitted beside 1 GiB."""
    deployed(tmp_path, monkeypatch, PLATFORM + DAEMONSET)
    grown = PLATFORM + DAEMONSET.replace('"1Gi"', '"2Gi"')
    found = judged(tmp_path, grown, 'deploy("seven", "6Gi")')
    assert [(policy, urn) for policy, urn, _ in found["violations"]] == [("workload-fits-pool", "prod")]
    assert "- 2 GiB for DaemonSets ('agent' 2 GiB) of memory" in found["violations"][0][2]


def test_what_the_app_stack_had_already_is_its_own_previews(tmp_path, monkeypatch):
    """A Pod already too big for the deployed platform is not this change's doing: nothing is reported on an
    unrelated change (a larger maxSize)."""
    deployed(tmp_path, monkeypatch, PLATFORM)
    larger = PLATFORM.replace('"max_size": 2', '"max_size": 3')
    assert judged(tmp_path, larger, 'deploy("api", "9Gi")') == {"violations": [], "notes": []}


def test_in_a_first_preview_on_the_pools_it_adds(tmp_path, monkeypatch):
    """The platform stack's first preview (a stack never deployed: every pool of it is added by this change, SPEC 5):
    what fails is reported on the pool its workloads would run on, the node group, not the cluster (issue 75: on main
    it landed on the cluster, as where no previous deployment can be read); the app's secret kubeconfig is never
    shown."""
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    found = judged(tmp_path, ARM, 'deploy("api", "64Mi", {"kubernetes.io/arch": "amd64"})')
    assert [(policy, urn) for policy, urn, _ in found["violations"]] == [("workload-schedulable", "prod-general")]
    assert "ABCDEF" not in json.dumps(found)


def test_a_dependent_that_cannot_be_read_is_said(tmp_path, monkeypatch):
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    result = evaluate(program(tmp_path / "platform", "platform", PLATFORM), stack_config={
        **AWS, "compute:dependents": json.dumps([APP_NAME])})
    assert result.violations == []
    # (the test kit's first preview is a stack never deployed in a local backend of its own: the app stack is not
    # there, as it would not be in a real one)
    (reason,) = [reason for note in result.notes for reason in note.reasons]
    assert re.fullmatch(f"stack {APP_NAME} cannot be read \\(the local backend \\(.*compute-guard-first-preview-"
                        "[0-9a-f-]+\\) holds no checkpoint of it: it was never deployed there\\), so what this change "
                        "does to its workloads on this stack's pools is not judged", reason), reason


def test_through_compute_dependents_and_an_export_file(tmp_path, monkeypatch):
    """What dependents= does, an organisation does with compute:dependents naming the app stack's export."""
    deployed(tmp_path, monkeypatch, PLATFORM)
    export = export_program(app(tmp_path, 'deploy("api", "64Mi", {"kubernetes.io/arch": "amd64"})'),
                            tmp_path / "app.json")
    result = evaluate(program(tmp_path / "arm", "platform", ARM), stack_config={
        **AWS, "compute:dependents": json.dumps({APP_NAME: str(export)})})
    assert [(v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations if v.policy != "pool-safe-update"] == [
        ("workload-schedulable", "prod-general")]


def test_a_check_it_cannot_make_now_is_said_of_the_app_stack(tmp_path, monkeypatch):
    """The node group's machine comes from a value not known during preview: whether the app's Pod fits is said not
    judged, naming the app stack and its Deployment (before, it was judged: m7i.large holds it)."""
    deployed(tmp_path, monkeypatch, PLATFORM)
    late = PLATFORM.replace('instance_types=[machine]', 'instance_types=[k8s.core.v1.ConfigMap(f"{name}-m", data={'
                                                        '"a": "b"}).immutable.apply(lambda _: machine)]')
    found = judged(tmp_path, late, 'deploy("big", "5Gi")')
    assert found["violations"] == []
    assert f"stack {APP_NAME}: Deployment 'big': whether one Pod fits a node of the pools that may take it is not " \
        f"judged: whether {POOL} takes its Pods is not known (string value at .instanceTypes.0 can't be known during " \
        "preview)" in found["notes"]


def test_a_replacement_under_a_dependents_pods(tmp_path, monkeypatch):
    """pool-replacement-safe (issue 59) in the back direction: the platform's node group, named by its program, moved
    to m7i.xlarge is replaced, deleted first, under the app's Deployment that no other pool takes: refused on the
    group, naming the app stack. A second group that takes it makes the replacement safe."""
    deployed(tmp_path, monkeypatch, PLATFORM)
    larger = PLATFORM.replace('prod = cluster("prod", "m7i.large")', 'prod = cluster("prod", "m7i.xlarge")')
    found = judged(tmp_path, larger, 'deploy("api", "64Mi")')
    assert found == {"notes": [], "violations": [("pool-replacement-safe", "prod-general", (
        f"{BREAKS}pool 'general' (NodeGroup): its instanceTypes changes from 'm7i.large' to 'm7i.xlarge', which the "
        "AWS provider cannot apply in place: it replaces the pool. Its nodeGroupName 'general' is set by the program, "
        "so the replacement cannot be created while the old pool holds the name: the old pool is deleted first "
        "(Pulumi deletes before replacing a resource whose name the program set), and Deployment 'api' run on no "
        "other pool of its cluster: every Pod of them is down until the new nodes join; add a second pool that takes "
        f"them first, or leave nodeGroupName unset so the new pool is created before the old one goes{FIX}"))]}
    deployed(tmp_path / "two", monkeypatch, PLATFORM + BATCH)
    assert judged(tmp_path / "two", larger + BATCH, 'deploy("api", "64Mi")')["violations"] == []


def test_a_control_plane_upgrade_that_removes_a_dependents_api(tmp_path, monkeypatch):
    """workload-api-available (issue 59) in the back direction: the platform's cluster moved from 1.24 to 1.25 stops
    serving the app's policy/v1beta1 budget: refused on the platform's cluster, naming the app stack."""
    def at(version):
        return PLATFORM.replace('vpc_config={"subnet_ids": ["subnet-1"]})',
                                f'vpc_config={{"subnet_ids": ["subnet-1"]}}, version="{version}")')
    budget = ('k8s.policy.v1beta1.PodDisruptionBudget("api", spec={"min_available": 1, "selector": {"match_labels": '
              '{"app": "api"}}}, opts=pulumi.ResourceOptions(provider=provider))\ndeploy("api", "64Mi", replicas=2)')
    deployed(tmp_path, monkeypatch, at("1.24"))
    found = judged(tmp_path, at("1.25"), budget)
    # (and, on the suite's date, 1.25 is past EKS's extended support: cluster-support-window's advisory)
    assert [(policy, urn) for policy, urn, _ in found["violations"]] == [("workload-api-available", "prod"),
                                                                         ("cluster-support-window", "prod")]
    assert found["violations"][0][2] == (
        f"{BREAKS}PodDisruptionBudget 'api': its apiVersion policy/v1beta1 is removed in Kubernetes 1.25, and EKS "
        f"cluster 'prod' (this stack) runs 1.25: the API server no longer serves it, so it fails to apply; use "
        f"apiVersion policy/v1{FIX}")
    assert [(policy, urn) for policy, urn, _ in judged(tmp_path, at("1.24"), budget)["violations"]] == [
        ("cluster-support-window", "prod")]


FARGATE = '''
aws.eks.FargateProfile("apps", cluster_name=prod.name, pod_execution_role_arn="arn:aws:iam::1:role/f",
                       subnet_ids=["subnet-1"], selectors=[{"namespace": "default"}])
'''
PRIVILEGED = '''
k8s.apps.v1.Deployment("agent", spec={"replicas": 1, "selector": {"matchLabels": {"app": "agent"}}, "template": {
    "metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "agent", "image": "agent",
                                                                        "securityContext": {"privileged": True}}]}}},
    opts=pulumi.ResourceOptions(provider=provider))
'''


def test_a_new_fargate_profile_under_a_dependents_privileged_pods(tmp_path, monkeypatch):
    """Issue 66: platform-admits-workload judges the dependents too (the policies that do are the ones that declare
    it, not a list kept by hand): a Fargate profile the platform adds over the app's namespace would run its
    privileged Deployment on Fargate, which refuses it. Before, the platform's preview said nothing. Reported on the
    profile, the resource whose change causes it."""
    deployed(tmp_path, monkeypatch, PLATFORM)
    found = judged(tmp_path, PLATFORM + FARGATE, PRIVILEGED)
    assert [(policy, urn) for policy, urn, _ in found["violations"]] == [("platform-admits-workload", "apps")], found
    assert "match Fargate profile 'apps', and Fargate does not run them: Fargate runs no privileged containers " \
        "(agent)" in found["violations"][0][2]
    assert judged(tmp_path / "none", PLATFORM, PRIVILEGED)["violations"] == []
