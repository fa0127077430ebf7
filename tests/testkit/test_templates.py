"""The programs new users start from (issue 57): Pulumi's `pulumi new` templates kubernetes-aws-python,
kubernetes-gcp-python and kubernetes-azure-python, written again as they ship them (tests/testkit/programs/templates/,
from pulumi/templates), first as they ship, then extended as a team does in its first month (a Kubernetes provider,
a spot and a Windows node group, workloads), one fault planted at a time. Each fault certainly fails in Kubernetes or
at deploy time, and is refused (or, for a spot-only single replica, advised); each valid program is clean, with no
note. Every program runs twice in one process, with the same verdicts.

Before issue 57 the EKS template's default node group (pulumi-eks's, whose user data is not known in a first preview)
was taken as possible for every Pod, so every EKS fault on a managed group below passed with nothing said; the GKE
template's unnamed NodePool was taken as possibly any name, so its pinned Pods' faults passed; the AKS template's
Azure CNI (30 Pods a node) was counted as 250 Pods a node: a valid 13 GiB Pod on Standard_D4s_v5 was refused and 90
Pods on two nodes passed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compute_guard.testkit import evaluate

TEMPLATES = Path(__file__).resolve().parent / "programs" / "templates"
AWS = {"compute:platform": "aws"}
GCP = {"compute:platform": "gcp"}
AZURE = {"compute:platform": "azure"}
# what a team adds: workloads on the cluster's Kubernetes provider
WORKLOADS = '''
import pulumi_kubernetes as _k8s


def _deploy(name, provider, replicas=1, requests=None, spec=None, kind="Deployment", strategy=None):
    container = {"name": name, "image": "nginx"}
    if requests:
        container["resources"] = {"requests": requests}
    labels = {"app": name}
    body = {"selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container], **(spec or {})}}}
    if kind != "DaemonSet":
        body["replicas"] = replicas
    if strategy:
        body["strategy"] = strategy
    getattr(_k8s.apps.v1, kind)(name, metadata={"name": name}, spec=body,
                                 opts=pulumi.ResourceOptions(provider=provider))
'''
PENDING = ("They would stay Pending: change its nodeSelector, node affinity or tolerations to match a pool, or "
           "declare a pool that takes them")


def project(tmp_path: Path, template: str, code: str = "", replace: tuple[tuple[str, str], ...] = ()) -> Path:
    """A copy of the template as a user's project, with what the team adds appended."""
    work = tmp_path / template
    shutil.copytree(TEMPLATES / template, work)
    main = work / "__main__.py"
    text = main.read_text()
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    main.write_text(text + (WORKLOADS + code if code else ""))
    return work


def twice(path: Path, config: dict[str, str]):
    """The program evaluated twice in one process: the same verdicts and notes both times."""
    first = evaluate(path, stack_config=config)
    second = evaluate(path, stack_config=config)
    said = [[(v.policy, v.level, v.urn, v.finding) for v in result.violations] for result in (first, second)]
    noted = [[(n.policy, n.reasons) for n in result.notes] for result in (first, second)]
    assert said[0] == said[1] and noted[0] == noted[1]
    return second


def verdicts(result) -> dict[tuple[str, str, str], str]:
    return {(v.policy, v.level, v.urn.rsplit("::", 1)[-1]): v.finding for v in result.violations}


# --- as they ship ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("template, config, pools", [
    ("kubernetes-aws-python", AWS, [("autoscaling Group", "eks-cluster-475905a", "EKS cluster 'eks-cluster'", ("t3.medium",),
                                     6)]),
    ("kubernetes-gcp-python", GCP, [("GKE NodePool", "gke-nodepool-555a208", "GKE cluster 'gke-cluster'",
                                     ("e2-medium",), 3)]),
    ("kubernetes-azure-python", AZURE, [("ManagedCluster", "systempool", "AKS cluster 'cluster'", ("Standard_DS2_v2",),
                                         3)]),
])
def test_each_template_as_it_ships_reads_its_pool_and_says_nothing_against_it(tmp_path, template, config, pools):
    """The pool each template declares, as the providers make it: the EKS default group of 3 to 6 t3.medium nodes,
    the GKE NodePool the provider names (one e2-medium a zone, in the three zones GKE picks for a regional cluster),
    the AKS system pool. Nothing is refused; the AKS template's default Kubernetes version is said (below)."""
    result = twice(project(tmp_path, template), config)
    assert [(p.source, p.name, p.cluster, p.machines, p.max_size) for p in result.pools] == pools
    assert result.mandatory == [] and result.notes == []
    assert [v.policy for v in result.violations] == (["cluster-support-window"] if template.endswith("azure-python")
                                                     else [])
    assert all(not item.refused for item in result.unchecked)  # awsx's VPC: listed, declares no pool


# --- kubernetes-aws-python, extended ------------------------------------------------------------------------

EKS = '''
import pulumi_eks as _eks
_provider = _k8s.Provider("k8s", kubeconfig=cluster.kubeconfig_json)
_eks.ManagedNodeGroup("spot", cluster=cluster, node_group_name="spot", capacity_type="SPOT",
                      instance_types=["t3.large"], node_role=cluster.instance_roles[0],
                      scaling_config={"min_size": 1, "max_size": 2, "desired_size": 1})
'''
WINDOWS = '''
_eks.ManagedNodeGroup("win", cluster=cluster, node_group_name="win", ami_type="WINDOWS_CORE_2022_x86_64",
                      instance_types=["m5.large"], node_role=cluster.instance_roles[0],
                      scaling_config={"min_size": 1, "max_size": 2, "desired_size": 1})
'''
SPOT = '{"nodeSelector": {"eks.amazonaws.com/nodegroup": "spot"}}'
OS_FIX = ("but nothing pins them to one operating system, and a Pod on a node of another never starts; set "
          "spec.template.spec.nodeSelector['kubernetes.io/os'] to the one its images are built for")
OS_POOLS = ("(pool 'eks-cluster-475905a' (autoscaling Group) runs linux, pool 'spot' (NodeGroup) runs linux, pool 'win' "
            "(NodeGroup) runs windows)")


@pytest.mark.parametrize("fault, code, expected", [
    ("valid", '_deploy("web", _provider, 2, {"cpu": "250m", "memory": "256Mi"})', {}),
    ("valid pinned to the spot group, two replicas",
     f'_deploy("web", _provider, 2, {{"cpu": "500m"}}, {SPOT})', {}),
    ("three Pods of 1.5 CPU on a 2-node group of t3.large", f'_deploy("web", _provider, 3, {{"cpu": "1500m"}}, {SPOT})',
     {("pool-capacity", "mandatory", "spot"):
      "NodeGroup 'spot': at its maxSize of 2 nodes (machine t3.large) it has room for 2 x 1930m = 3860m of CPU "
      "allocatable (a node: 2 cores capacity - 70m kube-reserved = 1930m allocatable); the workloads only it can take "
      "request 4500m (largest: Deployment 'web' 3 x 1500m), 4500m in all, more than it has: raise "
      "scalingConfig.maxSize to at least 3, use larger machines or move workloads to another pool"}),
    ("a rollout that keeps every Pod on a full group",
     f'_deploy("web", _provider, 2, {{"cpu": "1500m"}}, {SPOT}, strategy={{"rollingUpdate": {{"maxUnavailable": 0}}}})',
     {("workload-rollout-fits", "mandatory", "web"):
      "Deployment 'web': it rolls out 2 replicas with maxUnavailable 0, maxSurge 25% of 2 = 1 (rounded up): it keeps "
      "all 2 Pods until a new one is available, so it needs room for 2 + 1 Pods at once (up to 3), but NodeGroup "
      "'spot' at its maxSize of 2 nodes has 2 x 1930m = 3860m of CPU allocatable and what is placed on it takes 3 "
      "cores, leaving 860m, less than one more Pod's 1500m: the new Pod never schedules and the rollout never "
      "finishes: allow maxUnavailable: 1, or give the pool more room (maxSize, larger machines)"}),
    ("80 Pods past the group's 70 Pod slots", f'_deploy("web", _provider, 80, {{"cpu": "10m"}}, {SPOT})',
     {("pool-capacity", "mandatory", "spot"):
      "NodeGroup 'spot': at its maxSize of 2 nodes (machine t3.large) it has room for 2 x 35 = 70 Pods; the workloads "
      "only it can take run 80 (largest: Deployment 'web' 80), 80 in all, more than it has: raise "
      "scalingConfig.maxSize to at least 3, use larger machines or move workloads to another pool"}),
    ("a single replica only on the spot group", f'_deploy("web", _provider, 1, {{"cpu": "100m"}}, {SPOT})',
     {("workload-interruption-tolerant", "advisory", "web"):
      "Deployment 'web': its Pods can run only on capacity the provider reclaims (pool 'spot' (NodeGroup) (spot)), "
      "and it runs one replica: the first reclaim takes it down (spot nodes are taken back at two minutes' notice on "
      "AWS, 30 seconds on GCP and Azure): run at least two replicas with a budget that allows one eviction, or give "
      "it a pool of on-demand nodes"}),
    ("an unpinned Linux Deployment beside a Windows group", WINDOWS + '_deploy("web", _provider, 2, {"cpu": "100m"})',
     {("workload-node-os", "mandatory", "web"):
      f"Deployment 'web': its Pods may land on linux and windows nodes {OS_POOLS}, {OS_FIX}"}),
    ("an unpinned DaemonSet beside a Windows group",
     WINDOWS + '_deploy("agent", _provider, kind="DaemonSet", requests={"cpu": "50m"})',
     {("workload-node-os", "mandatory", "agent"):
      "DaemonSet 'agent': its Pods run on every node of the pools that take them: linux and windows nodes "
      f"{OS_POOLS}, {OS_FIX}"}),
    ("a Pod larger than any node", '_deploy("web", _provider, 1, {"memory": "9Gi"})',
     {("workload-fits-pool", "mandatory", "web"):
      "Deployment 'web': one Pod requests 9 GiB of memory, more than any node of the pools that can take it: pool "
      "'eks-cluster-475905a' (autoscaling Group) has at most 4 GiB capacity - 442 MiB kube-reserved - 100 MiB eviction "
      "threshold = 3554 MiB allocatable of memory (t3.medium); pool 'spot' (NodeGroup) has at most 8 GiB capacity - "
      "640 MiB kube-reserved - 100 MiB eviction threshold = 7452 MiB allocatable of memory (t3.large); it can never "
      "be scheduled: lower its requests or allow larger instance types (the smallest AWS machine of its family whose "
      "node holds one Pod: t3.xlarge, 4 vCPUs, 16 GiB)"}),
    ("pinned to arm64 on amd64 groups", '_deploy("web", _provider, 1, {"cpu": "100m"}, '
     '{"nodeSelector": {"kubernetes.io/arch": "arm64"}})',
     {("workload-schedulable", "mandatory", "web"):
      "Deployment 'web': no pool can run its Pods: pool 'eks-cluster-475905a' (autoscaling Group) runs amd64 nodes, not arm64 "
      "(its nodeSelector's kubernetes.io/arch); pool 'spot' (NodeGroup) runs amd64 nodes, not arm64 (its "
      f"nodeSelector's kubernetes.io/arch). {PENDING}"}),
])
def test_the_eks_template_extended_with_planted_faults(tmp_path, fault, code, expected):
    result = twice(project(tmp_path, "kubernetes-aws-python", EKS + code + "\n"), AWS)
    assert verdicts(result) == expected, fault
    assert [(n.policy, n.reasons) for n in result.notes if n.policy != "workload-fits-pool"] == [], fault


def test_the_eks_default_group_whose_user_data_is_its_own_is_said_where_it_decides(tmp_path):
    """A default group given its own user data (nodeUserDataOverride, not known here) may carry any label or taint: it
    may take the Pods pinned to the spot group, so what fails there is a note naming the workload and the pool that
    may take it instead, never a violation and never nothing."""
    override = (("    instance_type=instance_type,\n    desired_capacity=desired,\n    min_size=min_size,\n"
                 "    max_size=max_size,\n",
                 "    node_group_options={\"instance_type\": instance_type, \"desired_capacity\": desired, "
                 "\"min_size\": min_size,\n                        \"max_size\": max_size, "
                 "\"node_user_data_override\": vpc.vpc_id},\n"),)
    code = EKS + f'_deploy("web", _provider, 3, {{"cpu": "1500m"}}, {SPOT})\n'
    result = twice(project(tmp_path, "kubernetes-aws-python", code, override), AWS)
    assert verdicts(result) == {}
    (note,) = [reason for n in result.notes if n.policy == "pool-capacity" for reason in n.reasons]
    assert note.startswith("NodeGroup 'spot': at its maxSize of 2 nodes (machine t3.large) it has room for "), note
    assert note.endswith(
        "; but Deployment 'web' may run on pool 'eks-cluster-475905a' (autoscaling Group) instead, which may take it (the user "
        "data of LaunchTemplate 'eks-cluster-launchTemplate', which sets its nodes' labels and taints, is not known "
        "yet), so this is not judged"), note


# --- kubernetes-gcp-python, extended ------------------------------------------------------------------------

GKE = '\n_provider = _k8s.Provider("k8s", kubeconfig=kubeconfig)\n'
ON_POOL = '{"nodeSelector": {"cloud.google.com/gke-nodepool": nodepool.name}}'
SPREAD = ('{"topologySpreadConstraints": [{"maxSkew": 1, "minDomains": 4, "topologyKey": "topology.kubernetes.io/zone",'
          ' "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]}')
SPREAD_THREE = SPREAD.replace('"minDomains": 4', '"minDomains": 3')
TAINTED = (('"service_account": account.email},',
            '"service_account": account.email,\n                 "taints": [{"key": "dedicated", "value": "web", '
            '"effect": "NO_SCHEDULE"}]},'),)


@pytest.mark.parametrize("fault, code, replace, expected", [
    ("valid, pinned to its pool by the name the provider gives it",
     f'_deploy("web", _provider, 2, {{"cpu": "250m", "memory": "256Mi"}}, {ON_POOL})', (), {}),
    ("pinned by the resource's name, which is not the pool's",
     '_deploy("web", _provider, 1, {"cpu": "100m"}, {"nodeSelector": {"cloud.google.com/gke-nodepool": '
     '"gke-nodepool"}})', (),
     {("workload-schedulable", "mandatory", "web"):
      "Deployment 'web': no pool can run its Pods: pool 'gke-nodepool-555a208' (GKE NodePool) does not have label "
      f"cloud.google.com/gke-nodepool=gke-nodepool. {PENDING}"}),
    ("four Pods of 1.5 CPU on three e2-medium nodes", f'_deploy("web", _provider, 4, {{"cpu": "1500m"}}, {ON_POOL})', (),
     {("pool-capacity", "mandatory", "gke-nodepool"):
      "GKE NodePool 'gke-nodepool-555a208': at its maxSize of 3 nodes (nodeCount 1 x 3 zones) (machine e2-medium) it "
      "has room for 3 x 1930m = 5790m of CPU allocatable (a node: 2 cores capacity - 70m kube-reserved = 1930m "
      "allocatable); the workloads only it can take request 6 cores (largest: Deployment 'web' 4 x 1500m), 6 cores "
      "in all, more than it has: raise nodeCount to at least 2 (2 x 3 zones = 6 nodes), use larger machines or move "
      "workloads to another pool"}),
    ("a rollout that keeps every Pod on a full pool",
     f'_deploy("web", _provider, 3, {{"cpu": "1500m"}}, {ON_POOL}, strategy={{"rollingUpdate": {{"maxUnavailable": 0}}}})',
     (), {("workload-rollout-fits", "mandatory", "web"):
          "Deployment 'web': it rolls out 3 replicas with maxUnavailable 0, maxSurge 25% of 3 = 1 (rounded up): it "
          "keeps all 3 Pods until a new one is available, so it needs room for 3 + 1 Pods at once (up to 4), but GKE "
          "NodePool 'gke-nodepool-555a208' at its maxSize of 3 nodes (nodeCount 1 x 3 zones) has 3 x 1930m = 5790m of "
          "CPU allocatable and what is placed on it takes 4500m, leaving 1290m, less than one more Pod's 1500m: the "
          "new Pod never schedules and the rollout never finishes: allow maxUnavailable: 1, or give the pool more room "
          "(maxSize, larger machines)"}),
    ("four replicas spread over four zones, of the three GKE picks",
     f'_deploy("web", _provider, 4, {{"cpu": "100m"}}, {{**{ON_POOL}, **{SPREAD}}})', (),
     {("workload-zone-spread", "mandatory", "web"):
      "Deployment 'web': its topologySpreadConstraints[0] (topology.kubernetes.io/zone, maxSkew 1, minDomains 4, "
      "DoNotSchedule) asks for 4 zones, but its pools offer 3; with fewer zones than minDomains the scheduler counts "
      "the smallest zone as 0 Pods, so at most 3 x 1 = 3 of its 4 Pods can run and 1 stays Pending: lower minDomains "
      "to 3, or add zones to its pools"}),
    ("valid: spread over the three zones", f'_deploy("web", _provider, 4, {{"cpu": "100m"}}, '
     f'{{**{ON_POOL}, **{SPREAD_THREE}}})', (), {}),
    # a /23 Pod range: two /24 node blocks for the pool's three nodes (issue 60)
    ("a Pod range too small for the pool's nodes", f'_deploy("web", _provider, 1, {{"cpu": "100m"}}, {ON_POOL})',
     (('"cluster_ipv4_cidr_block": "/14"', '"cluster_ipv4_cidr_block": "/23"'),),
     {("pool-address-space", "mandatory", "gke-nodepool"):
      "GKE NodePool 'gke-nodepool-555a208': at its maxSize of 3 nodes (nodeCount 1 x 3 zones) its nodes take 3 x 256 "
      "= 768 addresses (a /24 a node: the smallest block of twice its 110 Pods) of the Pod range of GKE cluster "
      "'gke-cluster' (/23), which has 512 addresses: room for 2 nodes, so it can never reach 3: use a larger Pod range "
      "(ipAllocationPolicy.clusterIpv4CidrBlock), a lower maxPodsPerNode, or a Pod range of the pool's own "
      "(networkConfig.podRange)"}),
    ("valid: a /22 Pod range holds its three nodes", f'_deploy("web", _provider, 1, {{"cpu": "100m"}}, {ON_POOL})',
     (('"cluster_ipv4_cidr_block": "/14"', '"cluster_ipv4_cidr_block": "/22"'),), {}),
    ("a taint its pinned Pods do not tolerate", f'_deploy("web", _provider, 1, {{"cpu": "100m"}}, {ON_POOL})', TAINTED,
     {("workload-schedulable", "mandatory", "web"):
      "Deployment 'web': no pool can run its Pods: pool 'gke-nodepool-555a208' (GKE NodePool) has taint "
      f"dedicated=web:NoSchedule that it does not tolerate. {PENDING}"}),
])
def test_the_gke_template_extended_with_planted_faults(tmp_path, fault, code, replace, expected):
    result = twice(project(tmp_path, "kubernetes-gcp-python", GKE + code + "\n", replace), GCP)
    assert verdicts(result) == expected, fault
    assert result.notes == [], fault


# --- kubernetes-gcp-python with node auto-provisioning, as a team turns it on (issue 68, SPEC 22) ------------------

NAP = (('release_channel={"channel": "STABLE"},',
        'release_channel={"channel": "STABLE"},\n    cluster_autoscaling={"enabled": True, "resource_limits": ['
        '{"resource_type": "cpu", "maximum": 8}, {"resource_type": "memory", "maximum": 64}]},'),
       ('node_count=nodes_per_zone,', 'autoscaling={"min_node_count": 1, "max_node_count": 2},'))
N4_CLASS = ('_k8s.apiextensions.CustomResource("n4-class", api_version="cloud.google.com/v1", kind="ComputeClass", '
            'metadata={"name": "n4-class"}, spec={"priorities": [{"machineFamily": "n4", "spot": True}, '
            '{"machineFamily": "n4"}], "nodePoolAutoCreation": {"enabled": True}, "whenUnsatisfiable": '
            '"DoNotScaleUp"}, opts=pulumi.ResourceOptions(provider=_provider))')
NAP_NOTE = ("GKE cluster 'gke-cluster' has node auto-provisioning (clusterAutoscaling.enabled): GKE creates node pools "
            "the stack does not declare for Pods its pools cannot take; the placement of workloads on it is not judged")


@pytest.mark.parametrize("fault, code, expected", [
    # a Pod larger than every node the cluster may have: its 8-core cap holds declared and auto-provisioned ones
    ("a Pod too big for any node the cap allows", '_deploy("web", _provider, 1, {"cpu": "10"})',
     {("pool-capacity", "mandatory", "gke-cluster"):
      "GKE cluster 'gke-cluster': its workloads request 10 cores of CPU (largest: Deployment 'web' 1 x 10 cores), more "
      "than the 8 cores its clusterAutoscaling.resourceLimits let all its nodes have together (declared pools and "
      "auto-provisioned ones alike), so at least 2 cores of Pods never schedule (\"max cluster cpu limit reached\"): "
      "raise the cpu maximum, or run fewer replicas"}),
    # the declared pool's 6 nodes (2 a zone x 3) of 2 cores need 12, the cap allows 8: 4 nodes; the Pods pinned to it
    # by its name run on no pool auto-provisioning adds (a pool's name is unique in its cluster)
    ("a declared pool the cap keeps below its maxSize", f'_deploy("web", _provider, 5, {{"cpu": "1600m"}}, {ON_POOL})',
     {("pool-capacity", "mandatory", "gke-nodepool"):
      "GKE NodePool 'gke-nodepool-555a208': at the 4 nodes of its maxSize 6 that its GKE cluster 'gke-cluster' allows "
      "under its cpu limit (clusterAutoscaling.resourceLimits: 8 cores / 2 cores a node) (machine e2-medium) it has "
      "room for 4 x 1930m = 7720m of CPU allocatable (a node: 2 cores capacity - 70m kube-reserved = 1930m "
      "allocatable); the workloads only it can take request 8 cores (largest: Deployment 'web' 5 x 1600m), 8 cores in "
      "all, more than it has: raise the cpu maximum of GKE cluster 'gke-cluster''s clusterAutoscaling.resourceLimits "
      "(it caps every node of the cluster together), use larger machines or move workloads to another pool"}),
    ("valid: four such Pods on the four nodes", f'_deploy("web", _provider, 4, {{"cpu": "1600m"}}, {ON_POOL})', {}),
    # not pinned: node auto-provisioning may add a pool of larger machines for them (within the cap)
    ("valid: the same Pods left to the autoscaler", '_deploy("web", _provider, 5, {"cpu": "1600m"})', {}),
    # pinned by node affinity to its pool or to one no pool of the stack is: that other pool may be one it adds
    ("valid: pinned to the pool or to another", '_deploy("web", _provider, 5, {"cpu": "1600m"}, {"affinity": '
     '{"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": '
     '[{"key": "cloud.google.com/gke-nodepool", "operator": "In", "values": [nodepool.name, "batch"]}]}]}}}})', {}),
    # node auto-provisioning creates no pool of Windows nodes (its "Unsupported features"): such Pods run on declared
    # pools or nowhere, so they are judged on them as on a cluster whose pools are all declared
    ("a Windows Pod on a cluster whose pools are all Linux",
     '_deploy("win", _provider, 1, {"cpu": "100m"}, {"nodeSelector": {"kubernetes.io/os": "windows"}})',
     {("workload-schedulable", "mandatory", "win"):
      "Deployment 'win': no pool can run its Pods: pool 'gke-nodepool-555a208' (GKE NodePool) does not have label "
      "kubernetes.io/os=windows; GKE cluster 'gke-cluster''s node auto-provisioning creates no pool of Windows nodes. "
      f"{PENDING}"}),
    # a ComputeClass as GKE's page writes one (N4, Spot first; node pools auto-created; DoNotScaleUp): its Pods run only
    # on the machines it names, so one larger than n4-highcpu-80 (80 cores - 270m) never runs, cap or not
    ("a Pod too big for every machine its ComputeClass may make", f'{N4_CLASS}\n_deploy("batch", _provider, 1, '
     '{"cpu": "79731m"}, {"nodeSelector": {"cloud.google.com/compute-class": "n4-class"}})',
     {("workload-fits-pool", "mandatory", "batch"):
      "Deployment 'batch': one Pod requests 79.731 cores of CPU, more than any node of the pools that can take it: "
      "pool 'n4-class' (ComputeClass) has at most 80 cores capacity - 270m kube-reserved = 79.73 cores allocatable of "
      "CPU (n4-highcpu-80); it can never be scheduled: lower its requests or allow larger machine types (the smallest "
      "GCP machine whose node holds one Pod: c3-highcpu-88, 88 vCPUs, 176 GiB)",
      # (issue 75: the class's pool, which starts from no node, silenced the cluster's cap)
      ("pool-capacity", "mandatory", "gke-cluster"):
      "GKE cluster 'gke-cluster': its workloads request 79.731 cores of CPU (largest: Deployment 'batch' 1 x 79.731 "
      "cores), more than the 8 cores its clusterAutoscaling.resourceLimits let all its nodes have together (declared "
      "pools and auto-provisioned ones alike), so at least 71.731 cores of Pods never schedule (\"max cluster cpu limit "
      "reached\"): raise the cpu maximum, or run fewer replicas"}),
    ("valid: a Pod its ComputeClass's machines hold", f'{N4_CLASS}\n_deploy("batch", _provider, 1, {{"cpu": "2"}}, '
     '{"nodeSelector": {"cloud.google.com/compute-class": "n4-class"}})', {}),
    ("valid: the same Pod beside a declared Windows pool",
     '_deploy("win", _provider, 1, {"cpu": "100m"}, {"nodeSelector": {"kubernetes.io/os": "windows"}})\n'
     'gcp.container.NodePool("windows", cluster=cluster.id, node_count=1, node_config={"machine_type": '
     '"e2-standard-4", "image_type": "WINDOWS_LTSC_CONTAINERD"})', {}),
])
def test_the_gke_template_with_node_auto_provisioning(tmp_path, fault, code, expected):
    """Issue 75: no note on the whole cluster (NAP_NOTE, said on main beside every verdict here): what node
    auto-provisioning leaves unjudged is said of the workload or pool it concerns."""
    result = twice(project(tmp_path, "kubernetes-gcp-python", GKE + code + "\n", NAP), GCP)
    assert verdicts(result) == expected, fault
    reasons = [reason for note in result.notes for reason in note.reasons]
    assert NAP_NOTE not in reasons, fault
    assert all(reason.startswith(("Deployment '", "GKE NodePool '", "the allocatable of pool ")) for reason in reasons), \
        reasons


# --- kubernetes-azure-python, extended ----------------------------------------------------------------------

AKS = '\n_provider = _k8s.Provider("k8s", kubeconfig=kubeconfig)\n'
# The template's default Kubernetes version, 1.33, left AKS's community support on 2026-07-31 (the test below): the
# extended template runs a version in it, so that each test says what it plants and nothing else.
AKS_CURRENT = {**AZURE, "aks-template:kubernetesVersion": "1.35"}


def test_the_aks_template_s_default_version_has_left_aks_s_community_support(tmp_path):
    """Issue 68, SPEC 23: the template creates its cluster at Kubernetes 1.33 unless configured otherwise; on the
    tests' date (2026-12-01) AKS's calendar has it out of community support since 2026-07-31, and AKS creates no
    cluster at a version in platform support: cluster-support-window says so (advisory), and nothing at 1.35."""
    result = twice(project(tmp_path / "default", "kubernetes-azure-python"), AZURE)
    assert verdicts(result) == {("cluster-support-window", "advisory", "cluster"): (
        "AKS cluster 'cluster': Kubernetes 1.33 left AKS's community support on 2026-07-31: AKS gives it platform "
        "support only, with no Kubernetes fixes or security patches, and creates no cluster at it (calendar of "
        "2026-08-21: learn.microsoft.com/azure/aks/supported-kubernetes-versions, \"AKS Kubernetes release calendar "
        "and upcoming versions\" and \"LTS versions\" (MicrosoftDocs/azure-aks-docs at fb060ab); a month without a "
        "day is its last day, as the page says; today 2026-12-01); upgrade it one minor at a time to 1.35, the oldest "
        "in standard support, or keep it supported until 2027-07-31 with long-term support (supportPlan "
        "AKSLongTermSupport, on the Premium tier)")}
    assert verdicts(twice(project(tmp_path / "current", "kubernetes-azure-python"), AKS_CURRENT)) == {}
WINDOWS_POOL = (('"enable_node_public_ip": False, "vnet_subnet_id": subnets[0].id,\n    }],',
                 '"enable_node_public_ip": False, "vnet_subnet_id": subnets[0].id,\n    }, {"name": "npwin", '
                 '"mode": "User", "count": 2, "vm_size": "Standard_D4s_v5", "os_type": "Windows",\n'
                 '        "vnet_subnet_id": subnets[1].id}],'),)


@pytest.mark.parametrize("fault, code, config, replace, expected", [
    ("valid", '_deploy("web", _provider, 2, {"cpu": "250m", "memory": "256Mi"})', {}, (), {}),
    # Azure CNI reserves memory for 30 Pods a node (650 MB), not 250 (5050 MB): the Pod fits (a false violation before)
    ("valid: a 13 GiB Pod on Standard_D4s_v5", '_deploy("web", _provider, 1, {"memory": "13Gi"})',
     {"aks-template:nodeVmSize": "Standard_D4s_v5"}, (), {}),
    ("90 Pods on two nodes of 30 Pod slots", '_deploy("web", _provider, 90, {"cpu": "10m"})',
     {"aks-template:numWorkerNodes": "2"}, (),
     {("pool-capacity", "mandatory", "cluster"):
      "AKS cluster 'cluster' pool 'systempool': at its maxSize of 2 nodes (machine Standard_DS2_v2) it has room for 2 "
      "x 30 = 60 Pods; the workloads only it can take run 90 (largest: Deployment 'web' 90), 90 in all, more than it "
      "has: raise count to at least 3, use larger machines or move workloads to another pool"}),
    # Azure CNI: (32 + 1 surge) x (30 + 1) = 1023 addresses of the /22's 1024 - 5 = 1019 (issue 60)
    ("32 nodes in the template's /22 subnet", '_deploy("web", _provider, 2, {"cpu": "100m"})',
     {"aks-template:numWorkerNodes": "32"}, (),
     {("pool-address-space", "mandatory", "cluster"):
      "AKS cluster 'cluster' pool 'systempool': at its maxSize of 32 nodes + 1 while it upgrades (AKS's default maxSurge) "
      "its nodes take 33 x 31 = 1023 addresses (maxPods 30 + 1 a node: Azure CNI gives a node its Pods' addresses "
      "when it starts) of subnet 'subnet-1' (10.0.0.0/22), which has 1024 - 5 reserved by Azure = 1019 addresses: "
      "room for 32 nodes, so it can never reach 32: use a larger subnet, a lower maxPods, or Azure CNI Overlay (a "
      "node then takes one address), or lower count to at most 31"}),
    ("valid: 31 nodes in the /22", '_deploy("web", _provider, 2, {"cpu": "100m"})',
     {"aks-template:numWorkerNodes": "31"}, (), {}),
    ("a Pod larger than any node", '_deploy("web", _provider, 1, {"memory": "7Gi"})', {}, (),
     {("workload-fits-pool", "mandatory", "web"):
      "Deployment 'web': one Pod requests 7 GiB of memory, more than any node of the pools that can take it: pool "
      "'systempool' of AKS cluster 'cluster' has at most 7 GiB capacity - 619.89 MiB kube-reserved - 100 MiB eviction "
      "threshold = 6448.11 MiB allocatable of memory (Standard_DS2_v2); it can never be scheduled: lower its requests "
      "or allow larger VM sizes (the smallest Azure machine of its family whose node holds one Pod: "
      "Standard_DS11_v2, 2 vCPUs, 14 GiB)"}),
    ("an unpinned Deployment beside a Windows pool", '_deploy("web", _provider, 2, {"cpu": "100m"})', {},
     WINDOWS_POOL,
     {("workload-node-os", "mandatory", "web"):
      "Deployment 'web': its Pods may land on linux and windows nodes (pool 'npwin' of AKS cluster 'cluster' runs "
      "windows, pool 'systempool' of AKS cluster 'cluster' runs linux), but nothing pins them to one operating "
      "system, and a Pod on a node of another never starts; set spec.template.spec.nodeSelector['kubernetes.io/os'] "
      "to the one its images are built for"}),
])
def test_the_aks_template_extended_with_planted_faults(tmp_path, fault, code, config, replace, expected):
    result = twice(project(tmp_path, "kubernetes-azure-python", AKS + code + "\n", replace), {**AKS_CURRENT, **config})
    assert verdicts(result) == expected, fault
    assert [(n.policy, n.reasons) for n in result.notes if n.policy != "workload-fits-pool"] == [], fault


AKS_NAP = (('    api_server_access_profile=', '    node_provisioning_profile={"mode": "Auto"},\n    api_server_access_profile='),)


def test_the_aks_template_with_node_auto_provisioning_judges_pods_on_the_vm_sizes_it_may_start(tmp_path):
    """Issue 68, SPEC 22: the AKS template with node auto-provisioning turned on, as a team would. A Pod of 7 GiB,
    larger than any node of its one declared pool (refused there without it, above), runs on a D-family VM size of the
    default NodePool AKS creates: clean, with no note. A Pod larger than every size auto-provisioning may start (the
    default NodePool's D family, amd64: its largest, 192 vCPUs) is refused with the arithmetic. Twice in one
    process."""
    code = '_deploy("web", _provider, 1, {"memory": "7Gi"})'
    result = twice(project(tmp_path / "fits", "kubernetes-azure-python", AKS + code + "\n", AKS_NAP), AKS_CURRENT)
    assert verdicts(result) == {}
    assert [(n.policy, n.reasons) for n in result.notes] == []
    code = '_deploy("web", _provider, 1, {"cpu": "189"})'
    result = twice(project(tmp_path / "largest", "kubernetes-azure-python", AKS + code + "\n", AKS_NAP), AKS_CURRENT)
    assert verdicts(result) == {}
    code = '_deploy("web", _provider, 1, {"cpu": "200"})'
    result = twice(project(tmp_path / "huge", "kubernetes-azure-python", AKS + code + "\n", AKS_NAP), AKS_CURRENT)
    assert verdicts(result) == {("workload-fits-pool", "mandatory", "web"):
                                "Deployment 'web': one Pod requests 200 cores of CPU, more than any node of the pools "
                                "that can take it: NodePool 'default' of AKS cluster 'cluster' has at most 192 cores "
                                "capacity - 2020m kube-reserved = 189.98 cores allocatable of CPU (Standard_D192ds_v6); "
                                "pool 'systempool' of AKS cluster 'cluster' has at most 2 cores capacity - 100m "
                                "kube-reserved = 1900m allocatable of CPU (Standard_DS2_v2); it can never be scheduled: "
                                "lower its requests or allow larger VM sizes"}


def test_the_aks_template_with_node_auto_provisioning_judges_a_windows_pod_on_its_declared_pools(tmp_path):
    """Node auto-provisioning on AKS starts Linux nodes only (Karpenter's AKS provider: Windows nodes are not
    supported), so a Pod that needs Windows nodes runs on a declared Windows pool or nowhere: refused beside the
    template's Linux pool, naming the default NodePools AKS creates for it (Linux only); clean beside a declared
    Windows pool.
    Twice in one process."""
    code = '_deploy("win", _provider, 1, {"cpu": "100m"}, {"nodeSelector": {"kubernetes.io/os": "windows"}})'
    result = twice(project(tmp_path / "linux", "kubernetes-azure-python", AKS + code + "\n", AKS_NAP), AKS_CURRENT)
    assert verdicts(result) == {("workload-schedulable", "mandatory", "win"):
                                "Deployment 'win': no pool can run its Pods: NodePool 'default' of AKS cluster "
                                "'cluster' does not have label kubernetes.io/os=windows; NodePool 'system-surge' of AKS "
                                "cluster 'cluster' has taint CriticalAddonsOnly=true:NoSchedule that it does not "
                                "tolerate and does not have label kubernetes.io/os=windows; pool 'systempool' of AKS "
                                f"cluster 'cluster' does not have label kubernetes.io/os=windows. {PENDING}"}
    both = twice(project(tmp_path / "windows", "kubernetes-azure-python", AKS + code + "\n", AKS_NAP + WINDOWS_POOL),
                 AKS_CURRENT)
    assert verdicts(both) == {}


def test_the_eks_template_moved_to_arm_against_its_previous_deployment(tmp_path):
    """A previous deployment written without the CLI (export_program: the program as deployed, as `pulumi stack export`
    writes it, its URNs the project's own, read from Pulumi.yaml as evaluate reads them: issue 57, the export of a
    directory named URNs with project 'project' and matched nothing), then the template's instance type moved to
    t4g.medium by its config: pool-safe-update refuses the default group's launch template; at t3.large it passes."""
    from compute_guard.testkit import export_program

    program = project(tmp_path, "kubernetes-aws-python")
    baseline = export_program(program, tmp_path / "deployed.json", stack_config=AWS)
    settings = {"pool-safe-update": {"baseline": str(baseline)}}
    moved = evaluate(program, stack_config={**AWS, "eks-template:eksNodeInstanceType": "t4g.medium"},
                     policy_config=settings)
    assert [(v.policy, v.urn.rsplit("::", 1)[-1]) for v in moved.mandatory] == [
        ("pool-safe-update", "eks-cluster-launchTemplate")]
    assert moved.mandatory[0].finding.startswith(
        "LaunchTemplate 'eks-cluster-launchTemplate' (the machines of the autoscaling groups that run it): can't "
        "change its machines from 't3.medium' (amd64) to 't4g.medium' (arm64)"), moved.mandatory[0].finding
    assert not any("matches no resource of this stack" in reason for note in moved.notes for reason in note.reasons)
    larger = evaluate(program, stack_config={**AWS, "eks-template:eksNodeInstanceType": "t3.large"},
                      policy_config=settings)
    assert larger.mandatory == [] and larger.notes == []


def test_the_kubernetes_template_says_once_that_its_workloads_are_not_judged(tmp_path):
    """kubernetes-python deploys on the ambient kubeconfig's cluster, which no resource of the stack declares (the
    usual app stack): one note says what is not judged and how to name the cluster's stack (issue 58: before, no
    finding and no word), never a violation; twice in one process alike."""
    from builders import NO_POOL

    result = twice(project(tmp_path, "kubernetes-python"), {"compute:platform": "kubernetes"})
    assert result.violations == []
    assert [reason for note in result.notes for reason in note.reasons] == [
        f"{NO_POOL}, so the placement, fit and capacity of Deployment 'nginx' are not judged: name the stack that holds "
        "their cluster in the stack config compute:stacks (a JSON list of org/project/stack names, or of names to "
        "`pulumi stack export` files)"]


def test_the_gke_and_aks_templates_export_as_deployed_and_a_move_to_arm_is_refused_against_it(tmp_path):
    """export_program writes a template as deployed: a deployed cluster's credentials are known (the GKE cluster's
    endpoint and CA certificate, the AKS credentials invoke's kubeconfig), so the templates' kubeconfig code runs
    (before, both raised under the test kit). Against that export, the AKS template moved to Standard_D4ps_v5 and the
    GKE template's pool moved to t2a-standard-2 are refused by pool-safe-update; kept, they pass it."""
    from compute_guard.testkit import export_program

    aks = project(tmp_path / "aks", "kubernetes-azure-python")
    settings = {"pool-safe-update": {"baseline": str(export_program(aks, tmp_path / "aks.json", stack_config=AZURE))}}
    moved = evaluate(aks, stack_config={**AZURE, "aks-template:nodeVmSize": "Standard_D4ps_v5"}, policy_config=settings)
    assert [v.urn.rsplit("::", 1)[-1] for v in moved.mandatory if v.policy == "pool-safe-update"] == ["cluster"]
    kept = evaluate(aks, stack_config=AZURE, policy_config=settings)
    assert [v for v in kept.mandatory if v.policy == "pool-safe-update"] == []

    gke = project(tmp_path / "gke", "kubernetes-gcp-python")
    baseline = export_program(gke, tmp_path / "gke.json", stack_config=GCP)
    arm = project(tmp_path / "arm", "kubernetes-gcp-python", replace=(
        ('node_config={"oauth_scopes"', 'node_config={"machine_type": "t2a-standard-2", "oauth_scopes"'),))
    moved = evaluate(arm, stack_config=GCP, policy_config={"pool-safe-update": {"baseline": str(baseline)}})
    assert [v.urn.rsplit("::", 1)[-1] for v in moved.mandatory if v.policy == "pool-safe-update"] == ["gke-nodepool"]
    kept = evaluate(gke, stack_config=GCP, policy_config={"pool-safe-update": {"baseline": str(baseline)}})
    assert [v for v in kept.mandatory if v.policy == "pool-safe-update"] == []
