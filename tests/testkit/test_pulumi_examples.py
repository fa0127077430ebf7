"""Real cluster programs as users write them (issue 37, "Prove it"): each program of
../shared/third_party/pulumi-examples (pulumi/examples, Apache-2.0) as a user project under the test kit, with the
providers' own Python SDKs: first as it is (no false violation; the pools the pack read, with their source and
cluster), then with a fault planted in a copy, each refused with its exact message. The TypeScript programs are
written again in Python with the same resources (tests/testkit/programs/), with the real pulumi_eks SDK, whose
components the test kit builds as pulumi-eks registers them (compute_guard/testkit/components.py). Each program runs
twice in one process (issue 45: a second evaluate of a pulumi_eks program always crashed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from builders import SHARED

from compute_guard.testkit import SeenPool, evaluate

EXAMPLES = SHARED / "third_party" / "pulumi-examples"
OWN = Path(__file__).resolve().parent / "programs"
AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}
GCP = {"compute:platform": "gcp", "gcp:project": "example", "gcp:zone": "us-central1-a"}
AZURE = {"compute:platform": "azure"}
MULTI = {"compute:platform": "azure", "azure-py-aks-multicluster:sshPublicKey": "ssh-rsa AAAAexample"}
# azure-py-aks reads Application.application_id, which pulumi-azuread 6 (its requirements.txt's) no longer has: its
# client_id, as classic-azure-py-aks-multicluster reads it, is the same value
AZUREAD_6 = [("application_id=ad_app.application_id", "client_id=ad_app.client_id"),
             ('"client_id": ad_app.application_id', '"client_id": ad_app.client_id')]
PENDING = ("They would stay Pending: change its nodeSelector, node affinity or tolerations to match a pool, or "
           "declare a pool that takes them")
DEPLOY = '''
import pulumi as _pulumi
import pulumi_kubernetes as _k8s


def _deploy(name, provider, spec=None, requests=None):
    container = {{"name": name, "image": "nginx"}}
    if requests:
        container["resources"] = {{"requests": requests}}
    labels = {{"app": name}}
    _k8s.apps.v1.Deployment(name, metadata={{"name": name}}, spec={{
        "selector": {{"matchLabels": labels}},
        "template": {{"metadata": {{"labels": labels}}, "spec": {{"containers": [container], **(spec or {{}})}}}}}},
        opts=_pulumi.ResourceOptions(provider=provider))


_provider = {provider}
'''
ARM64 = '{"nodeSelector": {"kubernetes.io/arch": "arm64"}}'


def user_project(tmp_path: Path, name: str, replace: list[tuple[str, str]] | tuple = (), append: str = "") -> Path:
    """A copy of the program, as a user's project directory, with a fault planted: text replaced, code appended."""
    own = (OWN / name).is_dir()
    work = tmp_path / name
    shutil.copytree(OWN / name if own else EXAMPLES / name, work)
    main = work / "__main__.py"
    text = main.read_text()
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    main.write_text(text + append)
    return work


def verdicts(result):
    return {(v.policy, v.urn.rsplit("::", 1)[-1]): v.finding for v in result.violations if v.level == "mandatory"}


def pools(result):
    return sorted((pool.source, pool.name, pool.cluster, pool.machines, pool.max_size) for pool in result.pools)


# --- each program as it is: its pools read, no false violation -------------------------------------------------

@pytest.mark.parametrize("name, config, replace, expected", [
    ("aws-py-eks", AWS, (), [("NodeGroup", "pulumi-eks-nodegroup", "EKS cluster 'eks-cluster'", ("t3.medium",), 2)]),
    ("aws-ts-eks", AWS, (), [("autoscaling Group", "cluster-f591112", "EKS cluster 'cluster'", ("t3.medium",), 2)]),
    ("aws-ts-eks-gpu-dra", AWS, (), [
        ("NodeGroup", "gpu-nodes", "EKS cluster 'gpu-cluster'", ("p4d.24xlarge",), 2),
        ("NodeGroup", "system-nodes", "EKS cluster 'gpu-cluster'", ("m6i.large",), 4)]),
    # (sizes from the zone gcp:zone gives the GCP provider: a first preview knows them, issue 45)
    ("gcp-py-gke", GCP, (), [("GKE Cluster", "default-pool", "GKE cluster 'gke-cluster'", ("n1-standard-1",), 3)]),
    ("gcp-ts-gke", GCP, (), [("GKE NodePool", "primary-node-pool-75edbd3", "GKE cluster 'gke-cluster'", ("n1-standard-1",),
                              3)]),
    ("gcp-ts-agent-sandbox", GCP, (), [
        ("GKE NodePool", "gvisor-pool-e34917f", "GKE cluster 'agent-sandbox'", ("e2-standard-4",), 1),
        ("GKE NodePool", "system-pool-21c3013", "GKE cluster 'agent-sandbox'", ("e2-standard-2",), 1)]),
    ("azure-py-aks", AZURE, AZUREAD_6, [("ManagedCluster", "agentpool", "AKS cluster 'azure-native-aks'",
                                         ("Standard_DS2_v2",), 3)]),
    ("classic-azure-py-aks-multicluster", MULTI, (), [
        ("KubernetesCluster", "aksagentpool", "AKS cluster 'aksCluster-east'", ("Standard_D2_v2",), 2),
        ("KubernetesCluster", "aksagentpool", "AKS cluster 'aksCluster-west'", ("Standard_D2_v2",), 2)]),
])
def test_each_program_as_it_is_gives_its_pools_and_no_false_violation(tmp_path, name, config, replace, expected):
    project = user_project(tmp_path, name, replace)
    result = evaluate(project, stack_config=config)
    assert verdicts(result) == {}
    assert pools(result) == expected
    assert all(isinstance(pool, SeenPool) and pool.urn for pool in result.pools)
    again = evaluate(project, stack_config=config)  # a second run in the same process sees the same
    assert pools(again) == expected and [v.message for v in again.violations] == [v.message for v in result.violations]


def test_the_gpu_dra_programs_helm_releases_are_said_unchecked(tmp_path):
    result = evaluate(user_project(tmp_path, "aws-ts-eks-gpu-dra"), stack_config=AWS)
    assert sorted(v.urn.rsplit("::", 1)[-1] for v in result.of("helm-release-unchecked")) == [
        "gpu-operator", "kube-prometheus-stack", "nvidia-dra-driver"]
    # its MIG Pods claim one MIG slice each through DRA (issue 78): a p4d.24xlarge's eight A100s give at most 56, so
    # they fit by count; which profile a slice has is their CEL selectors', not checked, and said so
    (dra,) = [note.finding for note in result.notes if note.policy == "workload-fits-pool"]
    assert dra.endswith(": (1) Pod 'mig-large-training': its claims' devices fit a node of its pools by count; not "
                        "checked: the CEL selectors of request 'mig-large' of ResourceClaimTemplate 'mig-large-template'; "
                        "(2) Pod 'mig-medium-training': its claims' devices fit a node of its pools by count; not checked: "
                        "the CEL selectors of request 'mig-medium' of ResourceClaimTemplate 'mig-medium-template'; (3) Pod "
                        "'mig-small-inference': its claims' devices fit a node of its pools by count; not checked: the "
                        "CEL selectors of request 'mig-small' of ResourceClaimTemplate 'mig-small-template'"), dra


# --- planted faults: a Pod too large for its machine, an arm64 pin on an amd64 pool, an untolerated taint ----------

def test_aws_py_eks_with_planted_faults(tmp_path):
    on_cluster = DEPLOY.format(provider='_k8s.Provider("eks-k8s", kubeconfig=utils.generate_kube_config(eks_cluster))')
    result = evaluate(user_project(tmp_path, "aws-py-eks", append=on_cluster + (
        '_deploy("too-big", _provider, requests={"memory": "3555Mi"})\n'
        f'_deploy("arm", _provider, spec={ARM64})\n')), stack_config=AWS)
    assert verdicts(result) == {
        ("workload-fits-pool", "too-big"):
            "Deployment 'too-big': one Pod requests 3555 MiB of memory, more than any node of the pools that can take "
            "it: pool 'pulumi-eks-nodegroup' (NodeGroup) has at most 4 GiB capacity - 442 MiB kube-reserved - 100 MiB "
            "eviction threshold = 3554 MiB allocatable of memory (t3.medium); it can never be scheduled: lower its "
            "requests or allow larger instance types (the smallest AWS machine of its family whose node holds one "
            "Pod: t3.large, 2 vCPUs, 8 GiB)",
        ("workload-schedulable", "arm"):
            "Deployment 'arm': no pool can run its Pods: pool 'pulumi-eks-nodegroup' (NodeGroup) runs amd64 nodes, not "
            f"arm64 (its nodeSelector's kubernetes.io/arch). {PENDING}"}
    tainted = evaluate(user_project(tmp_path / "tainted", "aws-py-eks", [(
        '    node_group_name="pulumi-eks-nodegroup",\n', '    node_group_name="pulumi-eks-nodegroup",\n'
        '    taints=[eks.NodeGroupTaintArgs(key="dedicated", value="batch", effect="NO_SCHEDULE")],\n')],
        on_cluster + '_deploy("api", _provider)\n'), stack_config=AWS)
    assert verdicts(tainted) == {("workload-schedulable", "api"): (
        "Deployment 'api': no pool can run its Pods: pool 'pulumi-eks-nodegroup' (NodeGroup) has taint "
        f"dedicated=batch:NoSchedule that it does not tolerate. {PENDING}")}


def test_aws_ts_eks_with_planted_faults(tmp_path):
    """pulumi-eks's default node group: its launch template's user data holds the cluster's endpoint, not known in a
    preview, but its labels and taints are the component's own inputs (none here), which the engine sends to Analyze:
    what its machine decides (amd64, t3.medium's memory) refuses, and nothing is left unsaid (issue 57: before, the
    pool's labels were taken as not known, which made it possible for every Pod and hid faults elsewhere)."""
    on_cluster = DEPLOY.format(provider='_k8s.Provider("eks-k8s", kubeconfig=cluster.kubeconfig)')
    result = evaluate(user_project(tmp_path, "aws-ts-eks", append=on_cluster + (
        '_deploy("too-big", _provider, requests={"memory": "3555Mi"})\n'
        f'_deploy("arm", _provider, spec={ARM64})\n_deploy("api", _provider)\n')), stack_config=AWS)
    assert verdicts(result) == {
        ("workload-fits-pool", "too-big"):
            "Deployment 'too-big': one Pod requests 3555 MiB of memory, more than any node of the pools that can take "
            "it: pool 'cluster-f591112' (autoscaling Group) has at most 4 GiB capacity - 442 MiB kube-reserved - 100 MiB "
            "eviction threshold = 3554 MiB allocatable of memory (t3.medium); it can never be scheduled: lower its "
            "requests or allow larger instance types (the smallest AWS machine of its family whose node holds one "
            "Pod: t3.large, 2 vCPUs, 8 GiB)",
        ("workload-schedulable", "arm"):
            "Deployment 'arm': no pool can run its Pods: pool 'cluster-f591112' (autoscaling Group) runs amd64 nodes, not "
            f"arm64 (its nodeSelector's kubernetes.io/arch). {PENDING}"}
    assert [note.reasons for note in result.notes] == []


def test_aws_ts_eks_default_group_with_a_taint_its_options_declare(tmp_path):
    """The default group's nodeGroupOptions taint its nodes (pulumi-eks passes them to the kubelet's
    --register-with-taints): a Pod that does not tolerate it has no pool, one that does lands there; read in a first
    preview, where the user data is not known (issue 57: the taint could not be planted before)."""
    taint = ('desired_capacity=2, min_size=1, max_size=2)',
             'node_group_options={"desired_capacity": 2, "min_size": 1, "max_size": 2, "labels": {"tier": "batch"}, '
             '"taints": {"dedicated": {"value": "batch", "effect": "NoSchedule"}}})')
    on_cluster = DEPLOY.format(provider='_k8s.Provider("eks-k8s", kubeconfig=cluster.kubeconfig)')
    tolerating = '{"tolerations": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}], ' \
        '"nodeSelector": {"tier": "batch"}}'
    program = user_project(tmp_path, "aws-ts-eks", [taint], append=on_cluster + (
        f'_deploy("api", _provider)\n_deploy("batch", _provider, spec={tolerating})\n'))
    for _ in range(2):
        result = evaluate(program, stack_config=AWS)
        assert verdicts(result) == {("workload-schedulable", "api"): (
            "Deployment 'api': no pool can run its Pods: pool 'cluster-f591112' (autoscaling Group) has taint "
            f"dedicated=batch:NoSchedule that it does not tolerate. {PENDING}")}
        assert result.notes == []


def test_aws_ts_eks_gpu_dra_with_planted_faults(tmp_path):
    """The GPU group (p4d.24xlarge, tainted nvidia.com/gpu=true:NoSchedule): a MIG Pod without the toleration, one
    pinned to arm64, one asking for more memory than a p4d.24xlarge has (1152 GiB)."""
    result = evaluate(user_project(tmp_path, "aws-ts-eks-gpu-dra", [
        ('        "restartPolicy": "Never", "tolerations": [GPU_TOLERATION],\n',
         '        "restartPolicy": "Never", "tolerations": [] if name == "mig-small-inference" else [GPU_TOLERATION],\n'),
        ('        "nodeSelector": {"node-role": "gpu", "nvidia.com/gpu.present": "true"},\n',
         '        "nodeSelector": {"node-role": "gpu", "nvidia.com/gpu.present": "true",\n'
         '                         **({"kubernetes.io/arch": "arm64"} if name == "mig-medium-training" else {})},\n'),
        ('"resources": {"claims": [{"name": claim}]}}],',
         '"resources": {"claims": [{"name": claim}],\n'
         '                                      "requests": {"memory": "2Ti" if name == "mig-large-training" else "1Gi"}}}],')]),
        stack_config=AWS)
    found = verdicts(result)
    assert found[("workload-schedulable", "mig-small-inference")] == (
        "Pod 'mig-small-inference': no pool can run its Pods: pool 'gpu-nodes' (NodeGroup) has taint "
        "nvidia.com/gpu=true:NoSchedule that it does not tolerate; pool 'system-nodes' (NodeGroup) does not have label "
        f"node-role=gpu. {PENDING}")
    assert found[("workload-schedulable", "mig-medium-training")] == (  # (the first key of its nodeSelector by name)
        "Pod 'mig-medium-training': no pool can run its Pods: pool 'gpu-nodes' (NodeGroup) runs amd64 nodes, not "
        "arm64 (its nodeSelector's kubernetes.io/arch); pool 'system-nodes' (NodeGroup) runs amd64 nodes, not arm64 "
        f"(its nodeSelector's kubernetes.io/arch). {PENDING}")
    assert found[("workload-fits-pool", "mig-large-training")].startswith(
        "Pod 'mig-large-training': one Pod requests 2048 GiB of memory and 1 of DRA mig.nvidia.com devices, more than "
        "any node of the pools that can take it: "
        "pool 'gpu-nodes' (NodeGroup) has at most 1152 GiB capacity")
    assert len(found) == 3


def test_aws_ts_eks_gpu_dra_with_a_gpu_group_that_advertises_no_gpu(tmp_path):
    """Issue 48's planted fault: the GPU group's AMI type changed to AL2023_x86_64_STANDARD, which installs no NVIDIA
    driver, and a CUDA test Pod as NVIDIA's device plugin guide writes it (nvidia.com/gpu: 1 in its limits, the
    group's toleration): p4d.24xlarge's eight A100s are never advertised, so it waits for ever. As written (the
    accelerated AMI type) the same Pod fits and the admission plugin would add its toleration anyway."""
    cuda = (
        'k8s.core.v1.Pod("cuda-vectoradd", metadata={"name": "cuda-vectoradd"}, spec={\n'
        '    "restartPolicy": "OnFailure", "tolerations": [GPU_TOLERATION],\n'
        '    "containers": [{"name": "cuda", "image": "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0",\n'
        '                    "resources": {"limits": {"nvidia.com/gpu": 1}}}]}, opts=on_cluster)\n')
    planted = evaluate(user_project(tmp_path / "planted", "aws-ts-eks-gpu-dra", [
        ('ami_type="AL2023_x86_64_NVIDIA"', 'ami_type="AL2023_x86_64_STANDARD"')], append=cuda), stack_config=AWS)
    assert verdicts(planted) == {("workload-fits-pool", "cuda-vectoradd"): (
        "Pod 'cuda-vectoradd': one Pod requests 1 of nvidia.com/gpu, more than any node of the pools that can take "
        "it: pool 'gpu-nodes' (NodeGroup) runs p4d.24xlarge, whose GPUs its AMI type AL2023_x86_64_STANDARD does not "
        "advertise: it installs no NVIDIA driver, so its nodes have no nvidia.com/gpu; pool 'system-nodes' (NodeGroup) "
        "has at most 0 allocatable of nvidia.com/gpu (m6i.large); it can never be scheduled: use an accelerated AMI "
        "type (AL2023_x86_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA), or lower its requests")}
    as_written = evaluate(user_project(tmp_path / "written", "aws-ts-eks-gpu-dra", append=cuda), stack_config=AWS)
    assert verdicts(as_written) == {}


GPU_CLAIM = """
k8s.apiextensions.CustomResource("gpus", api_version="resource.k8s.io/v1", kind="ResourceClaimTemplate",
                                 metadata={{"name": "gpus", "namespace": "mig-test"}},
                                 spec={{"spec": {{"devices": {{"requests": [{{"name": "gpus", "exactly": {{
                                     "deviceClassName": "gpu.nvidia.com", "count": {count}}}}}]}}}}}}, opts=on_cluster)
k8s.apps.v1.Deployment("trainer", metadata={{"name": "trainer", "namespace": "mig-test"}}, spec={{
    "selector": {{"matchLabels": {{"app": "trainer"}}}},
    "template": {{"metadata": {{"labels": {{"app": "trainer"}}}}, "spec": {{
        "tolerations": [GPU_TOLERATION], "nodeSelector": {{"node-role": "gpu"}},
        "containers": [{{"name": "train", "image": "nvcr.io/nvidia/pytorch:25.12-py3",
                        "resources": {{"claims": [{{"name": "gpus"}}]}}}}],
        "resourceClaims": [{{"name": "gpus", "resourceClaimTemplateName": "gpus"}}]}}}}}}, opts=on_cluster)
"""


@pytest.mark.parametrize("machine, count, refused", [
    # issue 78's cases: two GPUs where every GPU node is a g5.xlarge with one; one GPU where no node has any
    ("g5.xlarge", 2, "one Pod requests 2 of DRA gpu.nvidia.com devices, more than any node of the pools that can take "
                     "it: pool 'gpu-nodes' (NodeGroup) has at most 1 allocatable of DRA gpu.nvidia.com devices "
                     "(g5.xlarge); it can never be scheduled: lower its requests or allow larger instance types (the "
                     "smallest AWS machine of its family whose node holds one Pod: g5.12xlarge, 48 vCPUs, 192 GiB)"),
    ("m7i.large", 1, "one Pod requests 1 of DRA gpu.nvidia.com devices, more than any node of the pools that can take "
                     "it: pool 'gpu-nodes' (NodeGroup) has at most 0 allocatable of DRA gpu.nvidia.com devices "
                     "(m7i.large); it can never be scheduled: lower its requests or allow instance types with NVIDIA "
                     "GPUs (the smallest AWS machine whose node holds one Pod: g4dn.xlarge, 4 vCPUs, 16 GiB)"),
    ("g5.xlarge", 1, None),  # the valid twins: one GPU on a node that has one, eight on a p4d.24xlarge's eight A100s
    ("p4d.24xlarge", 8, None),
])
def test_aws_ts_eks_gpu_dra_with_gpus_claimed_through_dra(tmp_path, machine, count, refused):
    """A Deployment whose Pods each claim ``count`` gpu.nvidia.com devices through a ResourceClaimTemplate, on the GPU
    group of ``machine``: NVIDIA's DRA driver (its Helm release is in the program) publishes one device per GPU, so a
    node holds the claim only with that many GPUs. The program's MIG Pods ask a mig.nvidia.com device each: an A10G
    or no GPU is split into none, so they are refused too where the group has no A100. Twice in one process."""
    program = user_project(tmp_path, "aws-ts-eks-gpu-dra", [('instance_types=["p4d.24xlarge"]',
                                                             f'instance_types=["{machine}"]')],
                           append=GPU_CLAIM.format(count=count))
    for _ in range(2):
        result = evaluate(program, stack_config=AWS)
        found = verdicts(result)
        assert found.pop(("workload-fits-pool", "trainer"), None) == (
            f"Deployment 'trainer': {refused}" if refused else None)
        assert not [note for note in result.notes if "trainer" in note.finding]
        mig = "p4d" not in machine  # (an A100 is split into seven: the MIG Pods fit there)
        assert sorted(found) == ([("workload-fits-pool", name) for name in (
            "mig-large-training", "mig-medium-training", "mig-small-inference")] if mig else [])
        if mig:
            assert found[("workload-fits-pool", "mig-small-inference")] == (
                "Pod 'mig-small-inference': one Pod requests 1 of DRA mig.nvidia.com devices, more than any node of "
                "the pools that can take it: pool 'gpu-nodes' (NodeGroup) has at most 0 allocatable of DRA "
                f"mig.nvidia.com devices ({machine}); it can never be scheduled: lower its requests or allow instance "
                "types with NVIDIA GPUs that MIG splits (the smallest AWS machine whose node holds one Pod: "
                "p5.4xlarge, 16 vCPUs, 170.67 GiB)")


def test_gcp_py_gke_with_planted_faults(tmp_path):
    """The issue's first case: gcp-py-gke's default pool (n1-standard-1, 3.75 GB) with a Deployment requesting 4 GiB."""
    canary = 'spec=PodSpecArgs(containers=[ContainerArgs(name="nginx", image="nginx")]),'
    big = evaluate(user_project(tmp_path / "big", "gcp-py-gke", [(canary, canary.replace(
        'image="nginx")', 'image="nginx", resources={"requests": {"memory": "4Gi"}})'))]), stack_config=GCP)
    assert verdicts(big) == {("workload-fits-pool", "canary"): (
        "Deployment 'canary': one Pod requests 4 GiB of memory, more than any node of the pools that can take it: pool "
        "'default-pool' of GKE cluster 'gke-cluster' has at most 3840 MiB capacity - 960 MiB kube-reserved - 100 MiB "
        "eviction threshold = 2780 MiB allocatable of memory (n1-standard-1); it can never be scheduled: lower its "
        "requests or allow larger machine types (the smallest GCP machine of its family whose node holds one Pod: "
        "n1-standard-2, 2 vCPUs, 7680 MiB)")}
    arm = evaluate(user_project(tmp_path / "arm", "gcp-py-gke", [(canary, canary.replace(
        "spec=PodSpecArgs(", 'spec=PodSpecArgs(node_selector={"kubernetes.io/arch": "arm64"}, '))]), stack_config=GCP)
    assert verdicts(arm) == {("workload-schedulable", "canary"): (
        "Deployment 'canary': no pool can run its Pods: pool 'default-pool' of GKE cluster 'gke-cluster' runs amd64 "
        f"nodes, not arm64 (its nodeSelector's kubernetes.io/arch). {PENDING}")}
    tainted = evaluate(user_project(tmp_path / "tainted", "gcp-py-gke", [(
        "        machine_type=NODE_MACHINE_TYPE,\n", "        machine_type=NODE_MACHINE_TYPE,\n"
        '        taints=[{"key": "dedicated", "value": "batch", "effect": "NO_SCHEDULE"}],\n')]), stack_config=GCP)
    assert verdicts(tainted) == {("workload-schedulable", "canary"): (
        "Deployment 'canary': no pool can run its Pods: pool 'default-pool' of GKE cluster 'gke-cluster' has taint "
        f"dedicated=batch:NoSchedule that it does not tolerate. {PENDING}")}


def test_gcp_ts_gke_on_an_arm_pool_refuses_an_unpinned_canary(tmp_path):
    """The issue's fourth case: an unpinned Deployment on a GKE cluster whose only pool is Arm (GKE taints Arm nodes
    kubernetes.io/arch=arm64:NoSchedule and tolerates it only for Pods that select arm64)."""
    arm = evaluate(user_project(tmp_path, "gcp-ts-gke", [('config.get("nodeMachineType") or "n1-standard-1"',
                                                          'config.get("nodeMachineType") or "t2a-standard-2"')]),
                   stack_config=GCP)
    assert verdicts(arm) == {("workload-schedulable", "canary"): (
        "Deployment 'canary': no pool can run its Pods: pool 'primary-node-pool-75edbd3' (GKE NodePool) has taint "
        f"kubernetes.io/arch=arm64:NoSchedule that it does not tolerate. {PENDING}")}


def test_gcp_ts_agent_sandbox_with_planted_faults(tmp_path):
    on_cluster = DEPLOY.format(provider="k8s_provider")
    result = evaluate(user_project(tmp_path, "gcp-ts-agent-sandbox", append=on_cluster + (
        '_deploy("agent", _provider, spec={"runtimeClassName": "gvisor", "nodeSelector": '
        '{"sandbox.gke.io/runtime": "gvisor"}}, requests={"memory": "14Gi"})\n'
        '_deploy("unsandboxed", _provider, spec={"nodeSelector": {"sandbox.gke.io/runtime": "gvisor"}})\n'
        '_deploy("fits", _provider, spec={"runtimeClassName": "gvisor"}, requests={"memory": "13Gi"})\n')),
        stack_config=GCP)
    assert verdicts(result) == {
        ("workload-fits-pool", "agent"):
            "Deployment 'agent': one Pod requests 14 GiB of memory, more than any node of the pools that can take it: "
            "pool 'gvisor-pool-e34917f' (GKE NodePool) has at most 16 GiB capacity - 2662.4 MiB kube-reserved - 100 MiB "
            "eviction threshold = 13.3 GiB allocatable of memory (e2-standard-4); it can never be scheduled: lower its "
            "requests or allow larger machine types (the smallest GCP machine of its family whose node holds one "
            "Pod: e2-highmem-4, 4 vCPUs, 32 GiB)",
        ("workload-schedulable", "unsandboxed"):
            "Deployment 'unsandboxed': no pool can run its Pods: pool 'gvisor-pool-e34917f' (GKE NodePool) has taint "
            "sandbox.gke.io/runtime=gvisor:NoSchedule that it does not tolerate; pool 'system-pool-21c3013' (GKE NodePool) does "
            f"not have label sandbox.gke.io/runtime=gvisor. {PENDING}"}


def test_azure_py_aks_with_planted_faults(tmp_path):
    """The issue's second case: azure-py-aks (Standard_DS2_v2, amd64) with a Deployment pinned to arm64; its kubeconfig
    comes from list_managed_cluster_user_credentials_output, which depends on the cluster."""
    on_cluster = DEPLOY.format(provider='_k8s.Provider("aks-k8s", kubeconfig=kubeconfig)')
    result = evaluate(user_project(tmp_path, "azure-py-aks", AZUREAD_6, on_cluster + (
        f'_deploy("arm", _provider, spec={ARM64})\n_deploy("too-big", _provider, requests={{"memory": "8Gi"}})\n')),
        stack_config=AZURE)
    assert verdicts(result) == {
        ("workload-schedulable", "arm"):
            "Deployment 'arm': no pool can run its Pods: pool 'agentpool' of AKS cluster 'azure-native-aks' runs amd64 "
            f"nodes, not arm64 (its nodeSelector's kubernetes.io/arch). {PENDING}",
        ("workload-fits-pool", "too-big"):
            "Deployment 'too-big': one Pod requests 8 GiB of memory, more than any node of the pools that can take it: "
            "pool 'agentpool' of AKS cluster 'azure-native-aks' has at most 7 GiB capacity - 1792 MiB kube-reserved - "
            "100 MiB eviction threshold = 5276 MiB allocatable of memory (Standard_DS2_v2); it can never be "
            "scheduled: lower its requests or allow larger VM sizes (the smallest Azure machine of its family "
            "whose node holds one Pod: Standard_DS11_v2, 2 vCPUs, 14 GiB)"}
    tainted = evaluate(user_project(tmp_path / "tainted", "azure-py-aks", [*AZUREAD_6, (
        '            "node_labels": {},\n',
        '            "node_labels": {},\n            "node_taints": ["sku=gpu:NoSchedule"],\n')],
        on_cluster + '_deploy("api", _provider)\n'), stack_config=AZURE)
    assert verdicts(tainted) == {("workload-schedulable", "api"): (
        "Deployment 'api': no pool can run its Pods: pool 'agentpool' of AKS cluster 'azure-native-aks' has taint "
        f"sku=gpu:NoSchedule that it does not tolerate. {PENDING}")}


def test_two_aks_clusters_each_workload_on_its_own_cluster(tmp_path):
    """The issue's fifth case: two AKS clusters in one stack (classic-azure-py-aks-multicluster), a Kubernetes
    provider for each from its own kubeconfig: each workload is judged on its own cluster's pool, and named so."""
    providers = [("cluster_names = []\n", "cluster_names = []\n_providers = {}\n"), (
        "    cluster_names.append(cluster.name)\n",
        "    cluster_names.append(cluster.name)\n"
        "    _providers[config['name']] = __import__('pulumi_kubernetes').Provider(\n"
        "        f\"k8s-{config['name']}\", kubeconfig=cluster.kube_config_raw)\n")]
    result = evaluate(user_project(tmp_path, "classic-azure-py-aks-multicluster", providers, DEPLOY.format(
        provider='_providers["east"]') + '_deploy("too-big", _provider, requests={"memory": "8Gi"})\n'
        f'_deploy("arm", _providers["west"], spec={ARM64})\n'), stack_config=MULTI)
    found = verdicts(result)
    assert set(found) == {("workload-fits-pool", "too-big"), ("workload-schedulable", "arm")}
    assert "pool 'aksagentpool' of AKS cluster 'aksCluster-east' has at most 7 GiB capacity" in \
        found[("workload-fits-pool", "too-big")]
    assert found[("workload-schedulable", "arm")] == (
        "Deployment 'arm': no pool can run its Pods: pool 'aksagentpool' of AKS cluster 'aksCluster-west' runs amd64 "
        f"nodes, not arm64 (its nodeSelector's kubernetes.io/arch). {PENDING}")
    critical = evaluate(user_project(tmp_path / "critical", "classic-azure-py-aks-multicluster", [*providers, (
        '            vm_size=config["node_size"],\n',
        '            vm_size=config["node_size"],\n            only_critical_addons_enabled=config["name"] == "east",\n')],
        DEPLOY.format(provider='_providers["east"]') + '_deploy("api", _provider)\n_deploy("anywhere", None)\n'),
        stack_config=MULTI)
    assert verdicts(critical) == {("workload-schedulable", "api"): (
        "Deployment 'api': no pool can run its Pods: pool 'aksagentpool' of AKS cluster 'aksCluster-east' has taint "
        f"CriticalAddonsOnly=true:NoSchedule that it does not tolerate. {PENDING}")}  # 'anywhere' may run on west


class _TwoZones:
    """A test's own answer to one invoke (the documented hook, evaluate(..., mocks=...)): two zones of eu-west-1; None
    leaves every other invoke to the test kit."""

    def __init__(self):
        self.calls = []

    def call(self, args):
        self.calls.append(args.token)
        if args.token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            return {"id": "eu-west-1", "names": ["eu-west-1a", "eu-west-1b"], "zoneIds": ["euw1-az1", "euw1-az2"]}
        return None

    def new_resource(self, args):  # not called: resources are the test kit's
        raise AssertionError(args)


def test_aws_py_eks_runs_with_its_invoke_answered_through_the_documented_hook(tmp_path):
    """Issue 39: aws-py-eks calls aws.get_availability_zones(); a test answers it with mocks=. The program makes a
    subnet per zone it is given (two, not the test kit's three), and the rest of its invokes are still answered."""
    from compute_guard.testkit import capture_program

    project = user_project(tmp_path, "aws-py-eks")
    mocks = _TwoZones()
    resources = capture_program(project, stack_config=AWS, mocks=mocks)
    zones = sorted(r.inputs["availabilityZone"] for r in resources if r.type == "aws:ec2/subnet:Subnet")
    assert zones == ["eu-west-1a", "eu-west-1b"]
    assert "aws:index/getAvailabilityZones:getAvailabilityZones" in mocks.calls
    result = evaluate(project, stack_config=AWS, mocks=_TwoZones())
    assert pools(result) == [("NodeGroup", "pulumi-eks-nodegroup", "EKS cluster 'eks-cluster'", ("t3.medium",), 2)]
    assert not result.mandatory, result.violations
    without = capture_program(project, stack_config=AWS)  # the test kit's own answer: the region's three zones
    assert sorted(r.inputs["availabilityZone"] for r in without if r.type == "aws:ec2/subnet:Subnet") == [
        "us-west-2a", "us-west-2b", "us-west-2c"]


def test_a_stack_whose_pools_are_all_one_clouds_needs_no_compute_platform(tmp_path):
    """Issue 45: without compute:platform a Pod too big for aws-py-eks's t3.medium nodes passed (workload-fits-pool
    was not applicable, which no terminal shows); every pool is an EKS node group, so the platform is aws."""
    on_cluster = DEPLOY.format(provider='_k8s.Provider("eks-k8s", kubeconfig=utils.generate_kube_config(eks_cluster))')
    result = evaluate(user_project(tmp_path, "aws-py-eks", append=on_cluster + (
        '_deploy("too-big", _provider, requests={"memory": "3555Mi"})\n')), stack_config={"aws:region": "us-west-2"})
    assert list(verdicts(result)) == [("workload-fits-pool", "too-big")]
    assert [item for item in result.not_applicable if "platform" in item.reason] == [] and result.notes == []


def test_a_policy_that_did_not_run_for_want_of_a_platform_is_a_note_of_the_result():
    """A ComputeCluster's pools take the stack's platform (its instanceType provides the machine on aws, gcp and
    azure only): without compute:platform the fit is not judged, and the result says so, once per policy."""
    from builders import DECLARED, cluster, deployment, placed, run

    result = run(cluster(), deployment("api", labels=placed(), requests=DECLARED), platform=None)
    missed = sorted(note.policy for note in result.notes if "did not run" in note.finding)
    assert missed == ["cloud-machine-catalog", "cloud-machine-new-family", "kubernetes-compute-enforceable",
                      "pool-capacity", "workload-fits-pool", "workload-requests-declared", "workload-rollout-fits"]
    note = next(n for n in result.notes if n.policy == "workload-fits-pool")
    assert note.finding == ("policy 'workload-fits-pool' did not run: the platform is not known: set the stack config "
                            "'compute:platform' (one of aws, gcp, azure, kubernetes, local) or this policy's "
                            "'platform' config")


def test_azure_py_aks_a_pod_selecting_the_agentpool_label_as_aks_nodes_carry_it_is_clean(tmp_path):
    """Issue 45's false violation: nodeSelector {agentpool: agentpool} on azure-py-aks's pool 'agentpool' was refused,
    but AKS nodes carry agentpool=<pool> beside kubernetes.azure.com/agentpool; another pool's name still refuses."""
    on_cluster = DEPLOY.format(provider='_k8s.Provider("aks-k8s", kubeconfig=kubeconfig)')
    result = evaluate(user_project(tmp_path, "azure-py-aks", AZUREAD_6, on_cluster + (
        '_deploy("pinned", _provider, spec={"nodeSelector": {"agentpool": "agentpool"}})\n'
        '_deploy("elsewhere", _provider, spec={"nodeSelector": {"agentpool": "userpool"}})\n')), stack_config=AZURE)
    assert verdicts(result) == {("workload-schedulable", "elsewhere"): (
        "Deployment 'elsewhere': no pool can run its Pods: pool 'agentpool' of AKS cluster 'azure-native-aks' does not "
        f"have label agentpool=userpool. {PENDING}")}



def test_gcp_py_gke_sized_from_the_providers_zone_and_in_a_region_from_gkes_three_zones(tmp_path):
    """Issue 45: gcp-py-gke as published has no location: its cluster is in the GCP provider's zone (gcp:zone), where
    initialNodeCount 3 is its size; a capacity fault passed with nothing said. In a region (issue 57), GKE runs the
    pool in three of the region's zones: 3 x 3 nodes, where 5 Pods of 2 GiB fit (one a node) and 10 do not; before,
    "its cluster's zones are not known" and no capacity was judged."""
    canary = 'spec=PodSpecArgs(containers=[ContainerArgs(name="nginx", image="nginx")]),'
    fault = [(canary, canary.replace('image="nginx")', 'image="nginx", resources={"requests": {"memory": "2Gi"}})')),
             ("        replicas=1,\n", "        replicas=5,\n")]
    zoned = evaluate(user_project(tmp_path / "zone", "gcp-py-gke", fault), stack_config=GCP)
    assert list(verdicts(zoned)) == [("pool-capacity", "gke-cluster")]
    assert "at its maxSize of 3 nodes (machine n1-standard-1) it has room for 3 x 2780 MiB = 8340 MiB of memory" in \
        verdicts(zoned)[("pool-capacity", "gke-cluster")]
    regional = {**GCP, "gcp:region": "us-central1"}
    del regional["gcp:zone"]
    result = evaluate(user_project(tmp_path / "region", "gcp-py-gke", fault), stack_config=regional)
    assert verdicts(result) == {}
    assert [note for note in result.notes if note.policy == "pool-capacity"] == []
    ten = [*fault[:1], ("        replicas=1,\n", "        replicas=10,\n")]
    result = evaluate(user_project(tmp_path / "ten", "gcp-py-gke", ten), stack_config=regional)
    assert verdicts(result) == {("pool-capacity", "gke-cluster"): (
        "GKE cluster 'gke-cluster' pool 'default-pool': Deployment 'canary' runs 10 Pods and a node (machine "
        "n1-standard-1) holds at most 1 of them (2780 MiB of memory left on a node after its DaemonSets / 2 GiB per "
        "Pod), so they need 10 nodes, more than its maxSize of 9: raise initialNodeCount to at least 4 (4 x 3 zones "
        "= 12 nodes), use larger machines or run fewer replicas")}


def test_aws_py_eks_node_group_zones_are_its_subnets_zones(tmp_path):
    """Issue 45: aws-py-eks's node group runs in the zones of the subnets it names, which are resources of the stack
    (one per zone the region has: us-west-2a, b and c): four replicas that need four zones are refused; before, a
    note that the zones were not known."""
    program = DEPLOY.format(provider='_k8s.Provider("eks-k8s", kubeconfig=utils.generate_kube_config(eks_cluster))') + \
        """
_labels = {"app": "api"}
_k8s.apps.v1.Deployment("api", spec={"replicas": 4, "selector": {"matchLabels": _labels}, "template": {
    "metadata": {"labels": _labels}, "spec": {"topologySpreadConstraints": [{
        "maxSkew": 1, "minDomains": 4, "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": _labels}}],
        "containers": [{"name": "api", "image": "nginx", "resources": {"requests": {"cpu": "10m"}}}]}}},
    opts=_pulumi.ResourceOptions(provider=_provider))
"""
    result = evaluate(user_project(tmp_path, "aws-py-eks", append=program), stack_config=AWS)
    found = verdicts(result)
    assert list(found) == [("workload-zone-spread", "api")], [n.finding for n in result.notes]
    assert "asks for 4 zones, but its pools offer 3 ('us-west-2a', 'us-west-2b', 'us-west-2c')" in \
        found[("workload-zone-spread", "api")]


def test_azure_py_aks_pins_a_kubernetes_version_aks_no_longer_runs(tmp_path):
    """Issue 68, SPEC 23: the example creates its cluster at kubernetesVersion 1.26.3, older than every version of
    AKS's calendar (its oldest, 1.29, left long-term support on 2026-04-30): AKS creates no cluster at it, said
    (advisory, with the version to move to); at 1.35 nothing is said."""
    result = evaluate(user_project(tmp_path / "as-is", "azure-py-aks", AZUREAD_6), stack_config=AZURE)
    (said,) = [v.finding for v in result.violations if v.policy == "cluster-support-window"]
    assert [v.level for v in result.of("cluster-support-window")] == ["advisory"]
    assert said.startswith("AKS cluster 'azure-native-aks': Kubernetes 1.26 (kubernetesVersion '1.26.3') is older "
                           "than every version of the calendar, whose oldest, 1.29, left long-term support on "
                           "2026-04-30"), said
    assert said.endswith("AKS creates no cluster at it and may upgrade an existing one itself; upgrade it one minor at "
                         "a time to 1.35, the oldest in standard support"), said
    moved = evaluate(user_project(tmp_path / "moved", "azure-py-aks", (*AZUREAD_6, ('kubernetes_version="1.26.3"',
                                                                                    'kubernetes_version="1.35"'))),
                     stack_config=AZURE)
    assert moved.of("cluster-support-window") == []


# --- every program deployed, then previewed unchanged (issue 75: an unchanged program is never a change) ----------

UNCHANGED_POLICIES = ("pool-replacement-safe", "workload-disruption-allowed", "pool-safe-update",
                      "compute-cluster-safe-update")
TEMPLATES = OWN / "templates"


@pytest.mark.parametrize("name, config, replace", [
    ("aws-py-eks", AWS, ()), ("aws-ts-eks", AWS, ()),
    ("aws-ts-eks-gpu-dra", AWS, ()),
    ("gcp-py-gke", GCP, ()),
    ("gcp-ts-gke", GCP, ()), ("gcp-ts-agent-sandbox", GCP, ()), ("azure-py-aks", AZURE, AZUREAD_6),
    ("classic-azure-py-aks-multicluster", MULTI, ()),
    ("templates/kubernetes-aws-python", AWS, ()), ("templates/kubernetes-gcp-python", GCP, ()),
    ("templates/kubernetes-azure-python", AZURE, ()),
])
def test_each_program_deployed_then_previewed_unchanged_is_no_change(tmp_path, name, config, replace):
    """Each program the suite runs (pulumi/examples', the `pulumi new` templates), exported as deployed
    (export_program: its inputs as its provider's Check returned them, its outputs after an up) and previewed again
    unchanged against that deployment: no policy that judges a change finds one, and none says it could not compare
    (twice in one process)."""
    from compute_guard.testkit import export_program

    project = user_project(tmp_path, name, replace)
    deployed = export_program(project, tmp_path / "deployed.json", stack_config=config)
    for _ in range(2):
        result = evaluate(project, stack_config=config, deployed=deployed)
        assert [(v.policy, v.finding) for v in result.violations if v.policy in UNCHANGED_POLICIES] == [], name
        assert [note.finding for note in result.notes if note.policy in UNCHANGED_POLICIES] == [], name
