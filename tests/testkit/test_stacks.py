"""One organisation, many stacks (issue 58, SPEC 18): an app stack whose Kubernetes provider takes its kubeconfig from
a StackReference to its platform stack is judged on the platform's pools exactly as if they were declared in it.

A platform program (an EKS cluster, its node groups and DaemonSets, its kubeconfig exported as a secret) and an app
program (a StackReference, a provider from its kubeconfig output, workloads) run under the test kit, the app with
``stacks={name: <the platform's directory or export>}``; the pack reads the platform's state as it reads it through
``compute:stacks``. Each program runs twice in one process with the same verdicts."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from compute_guard.testkit import ProgramError, evaluate, export_program

PLATFORM_NAME = "acme/platform/prod"
AWS = {"compute:platform": "aws"}
PLATFORM = '''
import json
import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s


def kubeconfig(name, server):
    return json.dumps({"apiVersion": "v1", "kind": "Config", "current-context": name,
                       "clusters": [{"name": name, "cluster": {"server": server}}],
                       "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
                       "users": [{"name": name, "user": {"exec": {
                           "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "aws",
                           "args": ["eks", "get-token", "--cluster-name", name]}}}]})


def cluster(name, machine, arch="x86_64"):
    eks = aws.eks.Cluster(name, name=name, role_arn="arn:aws:iam::1:role/eks", vpc_config={"subnet_ids": ["subnet-1"]})
    aws.eks.NodeGroup(f"{name}-general", cluster_name=eks.name, node_group_name="general",
                      node_role_arn="arn:aws:iam::1:role/n", subnet_ids=["subnet-1"], instance_types=[machine],
                      ami_type="AL2023_ARM_64_STANDARD" if arch == "arm64" else "AL2023_x86_64_STANDARD",
                      scaling_config={"desired_size": 1, "min_size": 1, "max_size": 2})
    return eks


prod = cluster("prod", "m7i.large")
pulumi.export("kubeconfig", pulumi.Output.secret(prod.name.apply(
    lambda name: kubeconfig(name, "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com"))))
'''
# the platform's own DaemonSet, on its cluster's provider: 1 GiB of every node
DAEMONSET = '''
_provider = k8s.Provider("k8s", kubeconfig=prod.name.apply(lambda name: kubeconfig(name, "https://x")),
                         opts=pulumi.ResourceOptions(depends_on=[prod]))
k8s.apps.v1.DaemonSet("agent", metadata={"name": "agent", "namespace": "kube-system"}, spec={
    "selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {
        "containers": [{"name": "agent", "image": "agent", "resources": {"requests": {"memory": "1Gi"}}}]}}},
    opts=pulumi.ResourceOptions(provider=_provider))
'''
# a second cluster of arm64 machines beside it: the kubeconfig names which one the app's provider targets
SECOND = '''
staging = cluster("staging", "m7g.large", "arm64")
pulumi.export("stagingKubeconfig", staging.name.apply(lambda name: kubeconfig(name, "https://STAGING.eks.amazonaws.com")))
'''
APP = '''
import pulumi
import pulumi_kubernetes as k8s

platform = pulumi.StackReference("{stack}")
provider = k8s.Provider("k8s", kubeconfig=platform.get_output("{output}"))


def deploy(name, memory, selector=None, replicas=1):
    labels = {{"app": name}}
    k8s.apps.v1.Deployment(name, spec={{"replicas": replicas, "selector": {{"matchLabels": labels}}, "template": {{
        "metadata": {{"labels": labels}}, "spec": {{**({{"nodeSelector": selector}} if selector else {{}}),
                                                     "containers": [{{"name": name, "image": "nginx", "resources": {{
                                                         "requests": {{"cpu": "100m", "memory": memory}}}}}}]}}}}}},
        opts=pulumi.ResourceOptions(provider=provider))


{workloads}
'''
PENDING = ("They would stay Pending: change its nodeSelector, node affinity or tolerations to match a pool, or "
           "declare a pool that takes them")
POOL = "pool 'general' (NodeGroup) of EKS cluster 'prod' (stack acme/platform/prod)"


def program(root: Path, name: str, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "Pulumi.yaml").write_text(f"name: {name}\nruntime: python\n")
    (root / "__main__.py").write_text(textwrap.dedent(text))
    return root


def app(tmp_path: Path, workloads: str, stack: str = PLATFORM_NAME, output: str = "kubeconfig") -> Path:
    return program(tmp_path / "app", "shop", APP.format(stack=stack, output=output, workloads=workloads))


def twice(path: Path, **options):
    first, second = (evaluate(path, **options) for _ in range(2))
    assert [(v.policy, v.finding) for v in first.violations] == [(v.policy, v.finding) for v in second.violations]
    assert [n.reasons for n in first.notes] == [n.reasons for n in second.notes]
    return second


def verdicts(result):
    return {(v.policy, v.urn.rsplit("::", 1)[-1]): v.finding for v in result.violations if v.level == "mandatory"}


def test_an_app_stack_is_judged_on_its_platform_stacks_pool(tmp_path):
    """A Pod too big for the platform's node group and one pinned to arm64 on its amd64 group are refused, naming the
    platform's pool and stack; a Pod that fits is not. Before issue 58: no finding and no note."""
    platform = program(tmp_path / "platform", "platform", PLATFORM)
    workloads = 'deploy("api", "9Gi")\ndeploy("arm", "64Mi", {"kubernetes.io/arch": "arm64"})\ndeploy("ok", "64Mi")'
    result = twice(app(tmp_path, workloads), stack_config=AWS, stacks={PLATFORM_NAME: platform})
    assert verdicts(result) == {
        ("workload-fits-pool", "api"):
            f"Deployment 'api': one Pod requests 100m of CPU and 9 GiB of memory, more than any node of the pools that "
            f"can take it: {POOL} has at most 8 GiB capacity - 574 MiB kube-reserved - 100 MiB eviction threshold = "
            "7518 MiB allocatable of memory (m7i.large); it can never be scheduled: lower its requests or allow larger "
            "instance types (the smallest AWS machine of its family whose node holds one Pod: m7i.xlarge, 4 vCPUs, "
            "16 GiB)",
        ("workload-schedulable", "arm"):
            f"Deployment 'arm': no pool can run its Pods: {POOL} runs amd64 nodes, not arm64 (its nodeSelector's "
            f"kubernetes.io/arch). {PENDING}"}
    assert result.notes == []
    assert [(p.source, p.name, p.cluster) for p in result.pools] == [
        ("NodeGroup", "general", "EKS cluster 'prod' (stack acme/platform/prod)")]
    # its secret kubeconfig is matched, never shown
    said = " ".join(v.finding for v in result.violations)
    assert "ABCDEF" not in said and "get-token" not in said


def test_the_same_through_compute_stacks_and_an_export_file(tmp_path):
    """What the test kit's stacks= does, an organisation does with the stack config compute:stacks, an object of the
    stack's name to its `pulumi stack export`: the same verdicts."""
    platform = program(tmp_path / "platform", "platform", PLATFORM)
    export = export_program(platform, tmp_path / "platform.json")
    workloads = 'deploy("api", "9Gi")'
    by_file = evaluate(app(tmp_path, workloads), stack_config={**AWS, "compute:stacks": json.dumps(
        {PLATFORM_NAME: str(export)})}, stacks={PLATFORM_NAME: export})
    assert list(verdicts(by_file)) == [("workload-fits-pool", "api")]


def test_the_platforms_own_daemonsets_take_room_on_its_nodes(tmp_path):
    """The platform stack's DaemonSet takes 1 GiB of every node of its pool: an app Pod of 7 GiB fits m7i.large's
    7518 MiB alone, not beside it; the message names the DaemonSet."""
    platform = program(tmp_path / "platform", "platform", PLATFORM + DAEMONSET)
    result = twice(app(tmp_path, 'deploy("api", "7Gi")'), stack_config=AWS, stacks={PLATFORM_NAME: platform})
    (message,) = [finding for (policy, _name), finding in verdicts(result).items() if policy == "workload-fits-pool"]
    assert "'agent' 1 GiB" in message and POOL in message, message
    alone = program(tmp_path / "alone", "platform", PLATFORM)
    assert verdicts(evaluate(app(tmp_path / "other", 'deploy("api", "7Gi")'), stack_config=AWS,
                             stacks={PLATFORM_NAME: alone})) == {}


def test_capacity_on_the_platforms_pool_is_reported_on_the_app_workload(tmp_path):
    """Two nodes of m7i.large hold 2 x 7518 MiB: three Pods of 6 GiB (18 GiB) need three. Reported on the app's
    Deployment, never on the platform's node group, saying other app stacks' Pods there are not counted."""
    platform = program(tmp_path / "platform", "platform", PLATFORM)
    result = twice(app(tmp_path, 'deploy("api", "6Gi", replicas=3)'), stack_config=AWS,
                   stacks={PLATFORM_NAME: platform})
    found = verdicts(result)
    assert list(found) == [("pool-capacity", "api")]
    assert found[("pool-capacity", "api")].startswith(
        "NodeGroup 'general' of EKS cluster 'prod' (stack acme/platform/prod): at its maxSize of 2 nodes (machine "
        "m7i.large) it has room for 2 x 7518 MiB = 14.68 GiB of memory allocatable")
    assert "raise scalingConfig.maxSize to at least 3, " in found[("pool-capacity", "api")]
    assert found[("pool-capacity", "api")].endswith(
        "(this stack's Deployment 'api' beside stack acme/platform/prod's own; other app stacks' Pods on it are not "
        "counted)")


def test_capacity_on_the_platforms_pool_is_said_once_naming_the_apps_workloads(tmp_path):
    """Issue 66: one pool too small for three app Deployments was refused three times, once on each, one that requests
    no memory included. Once, on the one that requests the most, naming all three; its hint applied (a maxSize of 3
    in the platform) leaves workload-rollout-fits' room for the rollout's surge Pod, whose own hint leaves nothing."""
    workloads = 'deploy("web", "1Gi")\ndeploy("api", "6Gi", replicas=3)\ndeploy("idle", "0")'
    platform = program(tmp_path / "platform", "platform", PLATFORM)
    found = verdicts(twice(app(tmp_path, workloads), stack_config=AWS, stacks={PLATFORM_NAME: platform}))
    assert list(found) == [("pool-capacity", "api")]
    assert "raise scalingConfig.maxSize to at least 3, " in found[("pool-capacity", "api")]
    assert found[("pool-capacity", "api")].endswith(
        "(this stack's Deployment 'api', Deployment 'idle', Deployment 'web' beside stack acme/platform/prod's own; "
        "other app stacks' Pods on it are not counted)")
    raised = program(tmp_path / "raised", "platform", PLATFORM.replace('"max_size": 2', '"max_size": 3'))
    left = verdicts(twice(app(tmp_path / "fixed", workloads), stack_config=AWS, stacks={PLATFORM_NAME: raised}))
    assert list(left) == [("workload-rollout-fits", "api")]  # its surge Pod needs a fourth node: its own hint
    assert "room for 3 + 1 Pods" in left[("workload-rollout-fits", "api")]
    four = program(tmp_path / "four", "platform", PLATFORM.replace('"max_size": 2', '"max_size": 4'))
    assert verdicts(twice(app(tmp_path / "four-app", workloads), stack_config=AWS, stacks={PLATFORM_NAME: four})) == {}


@pytest.mark.parametrize("output, expected", [
    ("kubeconfig", "runs amd64 nodes, not arm64"),  # names prod (its exec plugin's --cluster-name, its server)
    ("stagingKubeconfig", None),  # names staging, of arm64 machines: the Pod pinned to arm64 lands there
])
def test_of_two_clusters_the_one_its_kubeconfig_names(tmp_path, output, expected):
    platform = program(tmp_path / "platform", "platform", PLATFORM + SECOND)
    result = twice(app(tmp_path, 'deploy("arm", "64Mi", {"kubernetes.io/arch": "arm64"})', output=output),
                   stack_config=AWS, stacks={PLATFORM_NAME: platform})
    found = verdicts(result)
    if expected is None:
        assert found == {} and result.notes == []
    else:
        assert list(found) == [("workload-schedulable", "arm")] and expected in found[("workload-schedulable", "arm")]
        assert "staging" not in found[("workload-schedulable", "arm")]  # judged on prod's pools only


def test_a_stack_that_cannot_be_read_is_said_with_why(tmp_path, monkeypatch):
    """The app's StackReference names a stack the test gives no state for, and no backend holds: one note naming it
    and why, and the workloads it leaves unjudged (issue 66: it named none); no violation; and not the no-pool note (a
    stack is named)."""
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "home"))  # not logged in to any backend
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no Pulumi CLI either
    result = twice(app(tmp_path, 'deploy("api", "9Gi")'), stack_config=AWS)
    assert result.violations == []
    # (the test kit's first preview is a stack never deployed in a local backend of its own, the same each time: the
    # platform stack is not there, as it would not be in a real one)
    (reason,) = [reason for note in result.notes for reason in note.reasons]
    assert re.fullmatch("stack acme/platform/prod cannot be read \\(the local backend \\(.*compute-guard-first-"
                        "preview-[0-9a-f-]+\\) holds no checkpoint of it: it was never deployed there\\), so the "
                        "placement, fit and capacity of Deployment 'api' on its clusters are not judged", reason), \
        reason


def test_a_stack_read_from_its_local_backend_checkpoint_and_one_that_holds_no_cluster(tmp_path, monkeypatch):
    """On a local (file://) backend the pack reads a named stack's checkpoint (<root>/.pulumi/stacks/<project>/
    <stack>.json); a stack that holds no cluster is said."""
    root = tmp_path / "backend"
    stacks = root / ".pulumi" / "stacks" / "platform"
    stacks.mkdir(parents=True)
    platform = program(tmp_path / "platform", "platform", PLATFORM)
    export = json.loads(export_program(platform, tmp_path / "export.json").read_text())
    (stacks / "prod.json").write_text(json.dumps({"version": 3, "checkpoint": {"latest": export["deployment"]}}))
    (stacks / "empty.json").write_text(json.dumps({"version": 3, "checkpoint": {"latest": {"resources": []}}}))
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{root}")
    result = evaluate(app(tmp_path, 'deploy("api", "9Gi")'), stack_config={**AWS, "compute:stacks": json.dumps(
        ["acme/platform/prod"])})
    assert list(verdicts(result)) == [("workload-fits-pool", "api")]
    empty = evaluate(app(tmp_path / "empty", 'deploy("api", "9Gi")', stack="acme/platform/empty"), stack_config=AWS)
    assert empty.violations == []
    assert [reason for note in empty.notes for reason in note.reasons] == [
        "stack acme/platform/empty holds no cluster, so no workload is judged on its pools"]


def test_a_compute_stacks_setting_that_cannot_be_read_is_said(tmp_path):
    result = evaluate(program(tmp_path / "plain", "shop", 'import pulumi\n'), stack_config={
        **AWS, "compute:stacks": '{"acme/platform/prod": 3}'})
    assert result.violations == []
    result = evaluate(app(tmp_path, 'deploy("api", "9Gi")'), stack_config={**AWS, "compute:stacks": "[1, 2]"},
                      stacks={PLATFORM_NAME: program(tmp_path / "platform", "platform", PLATFORM)})
    assert any(reason.startswith("the stack config compute:stacks is not a JSON list of stack names")
               for note in result.notes for reason in note.reasons)


COMPUTE = '''
import pulumi
from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs, MachineProfile

ComputeCluster("compute", ComputeClusterArgs(id="shop", capacity_groups=[
    CapacityGroup(group_id="apps", min_size=1, max_size=3,
                  profile=MachineProfile(cpu="4", memory_bytes=16 << 30, ephemeral_storage_bytes=50 << 30,
                                         architecture="arm64"))]))
pulumi.export("kubeconfig", "apiVersion: v1")
'''


def test_an_app_stack_on_its_platform_stacks_compute_cluster(tmp_path):
    """The app's workloads name the platform stack's ComputeCluster by its labels: found there (before: "references
    missing ComputeCluster 'shop'", a false violation), and judged on its pool: an amd64 pin on its arm64 pool is
    refused; one pinned to arm64 is not."""
    platform = program(tmp_path / "platform", "platform", COMPUTE)
    labels = '{"compute.alien.dev/cluster": "shop", "compute.alien.dev/pool": "apps"}'
    workloads = f'''
def labelled(name, selector=None):
    k8s.apps.v1.Deployment(name, metadata={{"labels": {labels}}}, spec={{"replicas": 1, "selector": {{"matchLabels": {{
        "app": name}}}}, "template": {{"metadata": {{"labels": {{"app": name, **{labels}}}}}, "spec": {{
            **({{"nodeSelector": selector}} if selector else {{}}), "containers": [{{"name": name, "image": "nginx",
            "resources": {{"requests": {{"cpu": "100m", "memory": "64Mi"}}}}}}]}}}}}},
        opts=pulumi.ResourceOptions(provider=provider))


labelled("ok", {{"kubernetes.io/arch": "arm64"}})
labelled("amd", {{"kubernetes.io/arch": "amd64"}})
'''
    result = twice(app(tmp_path, workloads), stack_config={"compute:platform": "kubernetes"},
                   stacks={PLATFORM_NAME: platform})
    found = verdicts(result)
    assert not any("missing" in message for message in found.values())
    assert [key for key in found] == [("workload-node-architecture", "amd")], found


@pytest.mark.parametrize("kubeconfig", [
    'platform.require_output("{output}")',
    'pulumi.Output.from_input(platform.get_output_details("{output}")).apply(lambda d: d.secret_value or d.value)',
])
def test_every_way_to_read_a_stack_output_is_answered(tmp_path, kubeconfig):
    """require_output and get_output_details read the platform's outputs as get_output does: the Pod too big for its
    node group is refused on its pool (a kubeconfig the test kit did not answer would name no cluster)."""
    text = APP.replace('platform.get_output("{output}")', kubeconfig)
    path = program(tmp_path / "app", "shop", text.format(stack=PLATFORM_NAME, output="kubeconfig",
                                                         workloads='deploy("api", "9Gi")'))
    result = evaluate(path, stack_config=AWS, stacks={PLATFORM_NAME: program(tmp_path / "platform", "platform",
                                                                              PLATFORM + SECOND)})
    found = verdicts(result)
    assert list(found) == [("workload-fits-pool", "api")] and POOL in found[("workload-fits-pool", "api")], found
    assert "staging" not in found[("workload-fits-pool", "api")]  # judged on the cluster its kubeconfig names
    assert result.notes == []


def test_an_app_stacks_budget_is_judged_at_its_platform_clusters_version(tmp_path):
    """workload-api-available (issue 59) on an app stack: its cluster, and so the release it runs, is the platform
    stack's. A policy/v1beta1 budget on the platform's 1.25 cluster is refused; at 1.24 it is served."""
    workloads = '''
k8s.policy.v1beta1.PodDisruptionBudget("api", spec={"min_available": 1, "selector": {"match_labels": {"app": "api"}}},
                                       opts=pulumi.ResourceOptions(provider=provider))
'''
    for version, refused in (("1.25", True), ("1.24", False)):
        text = PLATFORM.replace('vpc_config={"subnet_ids": ["subnet-1"]})', f'vpc_config={{"subnet_ids": ["subnet-1"]}}, '
                                f'version="{version}")')
        platform = program(tmp_path / f"platform-{version}", "platform", text)
        result = twice(app(tmp_path, workloads), stack_config=AWS, stacks={PLATFORM_NAME: platform})
        found = result.findings("workload-api-available")
        assert found == ([
            "PodDisruptionBudget 'api': its apiVersion policy/v1beta1 is removed in Kubernetes 1.25, and EKS cluster "
            f"'prod' (stack {PLATFORM_NAME}) runs 1.25: the API server no longer serves it, so it fails to apply; use "
            "apiVersion policy/v1"] if refused else []), found


REQUIRED = APP.replace('platform.get_output("{output}")', 'platform.require_output("{output}")')


def test_require_output_answered_from_the_export_compute_stacks_names(tmp_path):
    """An app written the usual way (require_output) whose platform is named only as docs/stacks.md names it for real
    previews, the stack config compute:stacks: its StackReference reads the export's outputs, and the Pod too big for
    the platform's group is refused. Before issue 65 the program failed with a bare KeyError: 'kubeconfig'."""
    export = export_program(program(tmp_path / "platform", "platform", PLATFORM), tmp_path / "platform.json")
    path = program(tmp_path / "app", "shop", REQUIRED.format(stack=PLATFORM_NAME, output="kubeconfig",
                                                             workloads='deploy("api", "9Gi")'))
    result = twice(path, stack_config={**AWS, "compute:stacks": json.dumps({PLATFORM_NAME: str(export)})})
    assert list(verdicts(result)) == [("workload-fits-pool", "api")]
    assert POOL in verdicts(result)[("workload-fits-pool", "api")]


def test_a_stack_reference_the_test_kit_cannot_read_names_itself_and_how_to_answer_it(tmp_path):
    """Nothing names the platform: require_output fails as it would on a stack without that output, and the error
    names the StackReference and the three ways to give the test kit its stack (not a bare KeyError)."""
    path = program(tmp_path / "app", "shop", REQUIRED.format(stack=PLATFORM_NAME, output="kubeconfig",
                                                             workloads='deploy("api", "9Gi")'))
    with pytest.raises(ProgramError) as raised:
        evaluate(path, stack_config=AWS)
    text = str(raised.value)
    assert "KeyError: 'kubeconfig'" in text  # the program's own error
    assert (f"the test kit could not read the stack of StackReference '{PLATFORM_NAME}', so its outputs were empty: "
            f"give it with evaluate(..., stacks={{'{PLATFORM_NAME}': <its `pulumi stack export` file or program "
            "directory>}), or name its export in the stack config compute:stacks") in text


def test_a_dependent_app_reads_its_platforms_deployed_outputs(tmp_path, monkeypatch):
    """In a platform's preview with dependents=, the app (require_output) runs as it was deployed: against the
    platform's deployed outputs, where its kubeconfig is known. Before issue 65 it ran against the preview's outputs
    and failed with KeyError: 'kubeconfig'. Moving the group to arm64 under the app's amd64 pin is refused."""
    arm = PLATFORM.replace('prod = cluster("prod", "m7i.large")', 'prod = cluster("prod", "m7g.large", "arm64")')
    app_path = program(tmp_path / "app", "shop", REQUIRED.format(stack=PLATFORM_NAME, output="kubeconfig", workloads=(
        'deploy("api", "64Mi", {"kubernetes.io/arch": "amd64"})')))
    deployed = export_program(program(tmp_path / "before", "platform", PLATFORM), tmp_path / "deployed.json")
    result = twice(program(tmp_path / "after", "platform", arm), stack_config=AWS, deployed=deployed,
                   dependents={"acme/shop/prod": app_path})
    assert [(v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations if v.policy == "workload-schedulable"] \
        == [("workload-schedulable", "prod-general")]


GKE_TEMPLATE = Path(__file__).resolve().parent / "programs" / "templates" / "kubernetes-gcp-python"
GCP = {"compute:platform": "gcp"}


def test_the_gke_template_as_a_platform_is_judged_from_its_export(tmp_path):
    """The GKE template's NodePool names its cluster by ID (cluster=gke_cluster.id): its export must hold the IDs and
    dependencies `pulumi stack export` writes, or the pool joins no cluster and every app fault is a note. A Pod too
    big for its e2-medium nodes is refused, naming the template's pool."""
    export = export_program(GKE_TEMPLATE, tmp_path / "gke.json")
    entries = json.loads(export.read_text())["deployment"]["resources"]
    pool = next(entry for entry in entries if entry["type"] == "gcp:container/nodePool:NodePool")
    assert pool["id"] and pool["dependencies"] and "cluster" in pool["propertyDependencies"]
    path = program(tmp_path / "app", "shop", REQUIRED.format(stack="acme/gke/dev", output="kubeconfig",
                                                             workloads='deploy("api", "6Gi")'))
    result = twice(path, stack_config=GCP, stacks={"acme/gke/dev": export})
    found = verdicts(result)
    assert list(found) == [("workload-fits-pool", "api")], (found, [n.reasons for n in result.notes])
    assert "pool 'gke-nodepool-" in found[("workload-fits-pool", "api")]
    assert "(stack acme/gke/dev)" in found[("workload-fits-pool", "api")]


def test_an_app_kubeconfig_that_names_no_platform_cluster_is_told_what_to_give(tmp_path):
    """Issue 66: in an app stack over two platform clusters, a kubeconfig that names neither left the Pod pinned to
    arm64 unjudged with a hint to add depends_on=[<its cluster>] (a cluster of another stack) and an Azure invoke. The
    hint now says what the pack matches; given the staging cluster's kubeconfig (the hint applied), it is judged."""
    elsewhere = PLATFORM + SECOND + '''
pulumi.export("otherKubeconfig", kubeconfig("elsewhere", "https://ELSEWHERE.example.com"))
'''
    platform = program(tmp_path / "platform", "platform", elsewhere)
    pinned = 'deploy("arm", "64Mi", {"kubernetes.io/arch": "arm64"})'
    result = twice(app(tmp_path, pinned, output="otherKubeconfig"), stack_config=AWS, stacks={PLATFORM_NAME: platform})
    assert verdicts(result) == {}
    (said,) = [reason for note in result.notes for reason in note.reasons if "Deployment 'arm'" in reason]
    assert said.endswith(
        "give that Provider the kubeconfig of one cluster of its platform stack (the pack matches its clusters' and "
        "contexts' names, its server and an exec plugin's --cluster-name to the platform's clusters, and this one "
        "names none of them, or more than one)"), said
    assert "list_managed_cluster_user_credentials_output" not in said and "depends_on" not in said
    fixed = twice(app(tmp_path / "fixed", pinned, output="stagingKubeconfig"), stack_config=AWS,
                  stacks={PLATFORM_NAME: platform})
    assert verdicts(fixed) == {} and not [reason for note in fixed.notes for reason in note.reasons
                                          if "Deployment 'arm'" in reason]


AKS_AUTOMATIC = '''
import json
import pulumi
from pulumi_azure_native import containerservice

aks = containerservice.ManagedCluster(
    "aks", resource_group_name="rg", resource_name_="aks", location="westeurope", dns_prefix="aks",
    kubernetes_version="1.35", sku={"name": "Automatic", "tier": "Standard"},
    agent_pool_profiles=[{"name": "systempool", "mode": "System", "vm_size": "Standard_D4ds_v5", "count": 3,
                          "node_taints": ["CriticalAddonsOnly=true:NoSchedule"]}])
pulumi.export("kubeconfig", pulumi.Output.secret(aks.name.apply(lambda name: json.dumps({
    "apiVersion": "v1", "kind": "Config", "current-context": name,
    "clusters": [{"name": name, "cluster": {"server": "https://aks-abc.hcp.westeurope.azmk8s.io:443"}}],
    "contexts": [{"name": name, "context": {"cluster": name, "user": name}}], "users": [{"name": name, "user": {}}]}))))
'''


def test_an_app_stack_on_a_platform_stacks_aks_automatic_cluster(tmp_path):
    """Issue 68 across stacks: the platform declares an AKS Automatic cluster (its one declared pool tainted for system
    Pods); the app's Pods are judged on the NodePools AKS creates for it, read from the platform's state: a Pod of 2 GiB
    fits the D family, one of 900 GiB fits no D size (the largest, 768 GiB), an arm64 one runs on no NodePool."""
    platform = program(tmp_path / "platform", "platform", AKS_AUTOMATIC)
    workloads = 'deploy("big", "900Gi")\ndeploy("ok", "2Gi")\ndeploy("arm", "64Mi", {"kubernetes.io/arch": "arm64"})'
    result = twice(app(tmp_path, workloads), stack_config={"compute:platform": "azure"},
                   stacks={PLATFORM_NAME: platform})
    found = verdicts(result)
    assert sorted(found) == [("workload-fits-pool", "big"), ("workload-schedulable", "arm")]
    assert "NodePool 'default' of AKS cluster 'aks' (stack acme/platform/prod) has at most 768 GiB capacity" in \
        found[("workload-fits-pool", "big")]
    assert result.notes == []
    assert [(p.source, p.name) for p in result.pools] == [
        ("node auto-provisioning NodePool", "default"), ("node auto-provisioning NodePool", "system-surge"),
        ("ManagedCluster", "systempool")]


GKE_CLASSES = '''
import json
import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

cluster = gcp.container.Cluster("gke", name="gke", location="europe-west1-b", initial_node_count=1,
                                remove_default_node_pool=True, min_master_version="1.35",
                                release_channel={"channel": "REGULAR"})
gcp.container.NodePool("apps", name="apps", cluster=cluster.name, location="europe-west1-b", initial_node_count=1,
                       node_config={"machine_type": "e2-standard-4"})
kubeconfig = cluster.endpoint.apply(lambda server: json.dumps({
    "apiVersion": "v1", "kind": "Config", "current-context": "gke",
    "clusters": [{"name": "gke", "cluster": {"server": f"https://{server}"}}],
    "contexts": [{"name": "gke", "context": {"cluster": "gke", "user": "gke"}}], "users": [{"name": "gke", "user": {}}]}))
provider = k8s.Provider("k8s", kubeconfig=kubeconfig)
k8s.apiextensions.CustomResource("n4", api_version="cloud.google.com/v1", kind="ComputeClass", metadata={"name": "n4"},
                                 spec={"nodePoolAutoCreation": {"enabled": True}, "whenUnsatisfiable": "DoNotScaleUp",
                                       "priorities": [{"machineFamily": "n4"}]},
                                 opts=pulumi.ResourceOptions(provider=provider))
pulumi.export("kubeconfig", pulumi.Output.secret(kubeconfig))
'''


def test_an_app_stack_requests_its_platform_stacks_compute_class(tmp_path):
    """Issue 68 across stacks: the platform declares a GKE cluster and a ComputeClass of the N4 series on it; the app's
    Pods that request the class are judged on its machines, read from the platform's state: 64 GiB fits, 700 GiB fits
    no N4 machine (the largest, n4-highmem-80, 640 GiB); one that requests a class neither stack declares is said."""
    platform = program(tmp_path / "platform", "platform", GKE_CLASSES)
    workloads = ('deploy("big", "700Gi", {"cloud.google.com/compute-class": "n4"})\n'
                 'deploy("ok", "64Gi", {"cloud.google.com/compute-class": "n4"})\n'
                 'deploy("other", "700Gi", {"cloud.google.com/compute-class": "c4"})')
    result = twice(app(tmp_path, workloads), stack_config={"compute:platform": "gcp", "gcp:project": "p"},
                   stacks={PLATFORM_NAME: platform})
    found = verdicts(result)
    assert sorted(found) == [("workload-fits-pool", "big")], found
    assert "pool 'n4' (ComputeClass) of GKE cluster 'gke' (stack acme/platform/prod) has at most" in \
        found[("workload-fits-pool", "big")]
    assert "Deployment 'other': its Pods request ComputeClass 'c4', which is not in the stack, so the nodes GKE makes " \
        "for them are not known and where they run is not judged" in [reason for note in result.notes
                                                                     for reason in note.reasons]


def test_a_platforms_secret_output_stays_secret_in_the_app_stack(tmp_path):
    """Issue 76, survivor 12: the platform exports a pool label as a secret; the app pins a Deployment to it through
    its StackReference (no pool carries it: refused). The test kit answers the reference with the output's name among
    its secretOutputNames, as the engine does, so the app's nodeSelector value is secret and never printed; a test kit
    that dropped the mark printed it in clear."""
    platform = program(tmp_path / "platform", "platform",
                       PLATFORM + 'pulumi.export("poolLabel", pulumi.Output.secret("gpu-a7x"))\n')
    workloads = 'deploy("pinned", "64Mi", {"pool": platform.get_output("poolLabel")})'
    for given in (platform, export_program(platform, tmp_path / "platform.json")):
        result = twice(app(tmp_path, workloads), stack_config=AWS, stacks={PLATFORM_NAME: given})
        (finding,) = [v.finding for v in result.violations if v.policy == "workload-schedulable"]
        assert finding.startswith(f"Deployment 'pinned': no pool can run its Pods: {POOL} "), finding
        assert "gpu-a7x" not in finding and "gpu-a7x" not in " ".join(r for n in result.notes for r in n.reasons)
        assert "[secret]" in finding, finding


DRA_DRIVER = '''
_provider = k8s.Provider("k8s", kubeconfig=prod.name.apply(lambda name: kubeconfig(name, "https://x")),
                         opts=pulumi.ResourceOptions(depends_on=[prod]))
k8s.helm.v3.Release("nvidia-dra-driver", chart="nvidia-dra-driver-gpu", namespace="nvidia-dra-driver",
                    repository_opts={"repo": "https://helm.ngc.nvidia.com/nvidia"},
                    opts=pulumi.ResourceOptions(provider=_provider))
'''
CLAIMING = '''
k8s.resource.v1.ResourceClaimTemplate("gpus", metadata={{"name": "gpus", "namespace": "default"}}, spec={{"spec": {{
    "devices": {{"requests": [{{"name": "gpus", "exactly": {{"deviceClassName": "gpu.nvidia.com", "count": {count}}}}}]}}}}}},
    opts=pulumi.ResourceOptions(provider=provider))
k8s.apps.v1.Deployment("train", metadata={{"namespace": "default"}}, spec={{
    "selector": {{"matchLabels": {{"app": "train"}}}}, "template": {{"metadata": {{"labels": {{"app": "train"}}}}, "spec": {{
        "containers": [{{"name": "train", "image": "nvcr.io/nvidia/pytorch:25.12-py3",
                        "resources": {{"requests": {{"cpu": "100m"}}, "claims": [{{"name": "gpus"}}]}}}}],
        "resourceClaims": [{{"name": "gpus", "resourceClaimTemplateName": "gpus"}}]}}}}}},
    opts=pulumi.ResourceOptions(provider=provider))
'''


def test_gpus_an_app_claims_through_dra_on_its_platforms_gpu_pool(tmp_path):
    """Issue 78 across stacks: the platform's node group of g5.xlarge (one A10G, the accelerated AMI type) and NVIDIA's
    DRA driver's release are
    in the platform stack, the ResourceClaimTemplate and the Deployment in the app: two GPUs a Pod never gets, one it
    does, and the driver the platform installs is seen (nothing is left unsaid)."""
    gpus = PLATFORM.replace("m7i.large", "g5.xlarge").replace('"AL2023_x86_64_STANDARD"', '"AL2023_x86_64_NVIDIA"')
    platform = program(tmp_path / "platform", "platform", gpus + DRA_DRIVER)
    two = twice(app(tmp_path / "two", CLAIMING.format(count=2)), stack_config=AWS, stacks={PLATFORM_NAME: platform})
    assert verdicts(two) == {("workload-fits-pool", "train"): (
        "Deployment 'train': one Pod requests 100m of CPU and 2 of DRA gpu.nvidia.com devices, more than any node of "
        f"the pools that can take it: {POOL} has at most 1 allocatable of DRA gpu.nvidia.com devices (g5.xlarge); it "
        "can never be scheduled: lower its requests or allow larger instance types (the smallest AWS machine of its "
        "family whose node holds one Pod: g5.12xlarge, 48 vCPUs, 192 GiB)")}
    one = twice(app(tmp_path / "one", CLAIMING.format(count=1)), stack_config=AWS, stacks={PLATFORM_NAME: platform})
    assert verdicts(one) == {} and one.notes == []
