"""Clusters that provision their own nodes (issue 68, SPEC 22), through the providers' own SDKs. AKS Automatic
(sku.name Automatic) runs node auto-provisioning (learn.microsoft.com/azure/aks/intro-aks-automatic), so its tainted
system pool is not the only place a Pod may land; an AKS node auto-provisioning NodePool (its nodeClassRef an
AKSNodeClass of karpenter.azure.com) starts Azure VM sizes, never EC2 instances. Both were judged wrongly on main
(1866ecd): a small Deployment refused on AKS Automatic, the AKS NodePool read against the EC2 catalog. Both were then
said and not judged; now AKS's default NodePools and the stack's are read over the Azure catalog and judged as
declared pools are. GKE's resource limits cap the whole cluster."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
from pulumi_azure_native import containerservice

from compute_guard.testkit import evaluate

AZURE = {"compute:platform": "azure", "azure-native:location": "westeurope"}
CRITICAL = "CriticalAddonsOnly=true:NoSchedule"
FITS, SCHEDULABLE = "workload-fits-pool", "workload-schedulable"


def unknown(value):
    """A value not known during preview, as the SDK sends it (call it while the program runs)."""
    return k8s.core.v1.ConfigMap(f"source-{id(value)}", data={"a": "b"}).immutable.apply(lambda m: value)


def aks(sku: str | None = None, mode: str | None = None, azure_nodepool: bool = False, defaults=None,
        requirements=None, requests=None, pod=None, node_class=None, replicas: int = 2, limits=None, lifetime=None):
    """An AKS cluster whose only declared pool is its tainted system pool (as AKS Automatic's is), with node
    auto-provisioning as ``sku``, ``mode`` and ``defaults`` (defaultNodePools) say; an AKS NodePool of
    ``requirements`` (the D family's amd64 sizes unless given) on an AKSNodeClass (``node_class``: its spec) when asked; and a
    Deployment of ``requests`` (100m, 128Mi) with pod spec fields ``pod``."""
    def program():
        args = dict(resource_group_name="rg", resource_name_="aks", location="westeurope", dns_prefix="aks",
                    agent_pool_profiles=[{"name": "systempool", "mode": "System", "vm_size": "Standard_D4ds_v5",
                                          "count": 3, "node_taints": [CRITICAL]}])
        if sku:
            args["sku"] = {"name": sku() if callable(sku) else sku, "tier": "Standard"}
        if mode:
            profile = {"mode": mode() if callable(mode) else mode}
            if defaults is not None:
                profile["default_node_pools"] = defaults() if callable(defaults) else defaults
            args["node_provisioning_profile"] = profile
        cluster = containerservice.ManagedCluster("aks", **args)
        provider = k8s.Provider("k8s", kubeconfig=cluster.name)
        if node_class is not None:
            k8s.apiextensions.CustomResource("class", api_version="karpenter.azure.com/v1beta1", kind="AKSNodeClass",
                                             metadata={"name": "default"}, spec=node_class,
                                             opts=pulumi.ResourceOptions(provider=provider))
        if azure_nodepool:
            k8s.apiextensions.CustomResource("default", api_version="karpenter.sh/v1", kind="NodePool",
                                             metadata={"name": "mine"}, spec={**({"limits": limits} if limits else {}),
                                                                              "template": {"spec": {**(lifetime or {}),
                                                 "nodeClassRef": {"group": "karpenter.azure.com",
                                                                  "kind": "AKSNodeClass", "name": "default"},
                                                 "requirements": requirements or [
                                                     {"key": "karpenter.azure.com/sku-family", "operator": "In",
                                                      "values": ["D"]},
                                                     {"key": "kubernetes.io/arch", "operator": "In",
                                                      "values": ["amd64"]}]}}},
                                             opts=pulumi.ResourceOptions(provider=provider))
        k8s.apps.v1.Deployment("api", spec={
            "replicas": replicas, "selector": {"matchLabels": {"app": "api"}}, "template": {
                "metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{
                    "name": "api", "image": "nginx", "resources": {"requests": requests or {
                        "cpu": "100m", "memory": "128Mi"}}}], **(pod or {})}}},
            opts=pulumi.ResourceOptions(provider=provider))
    return program


def said(result) -> str:
    return " ".join(note.finding for note in result.notes)


def test_aks_automatic_runs_pods_on_the_default_nodepools_beside_its_tainted_system_pool():
    """Both sides: on AKS Standard the Deployment tolerates no pool's taint and is refused; on AKS Automatic (node
    auto-provisioning, and AKS's two default NodePools: learn.microsoft.com/azure/aks/node-autoprovision-node-pools) it
    runs on NodePool 'default', of the D family's amd64 sizes: clean, with no note. Before issue 68's AKS NodePools it
    was a note ("provisions nodes for its Pods on NodePools the stack does not declare"). Twice in one process."""
    standard = evaluate(aks(), stack_config=AZURE)
    assert [v.policy for v in standard.mandatory] == [SCHEDULABLE]
    for _ in range(2):
        automatic = evaluate(aks(sku="Automatic"), stack_config=AZURE)
        assert automatic.violations == [] and said(automatic) == ""
        pools = {pool.name: pool for pool in automatic.pools}
        assert sorted(pools) == ["default", "system-surge", "systempool"]
        for name in ("default", "system-surge"):
            assert pools[name].source == "node auto-provisioning NodePool"
            assert pools[name].systems == ("linux",) and pools[name].capacity == ("on-demand",)
            assert pools[name].machines and all(machine.startswith("Standard_D") for machine in pools[name].machines)
        assert pools["system-surge"].taints == (CRITICAL,) and pools["default"].taints == ()


def test_an_aks_node_auto_provisioning_nodepool_is_read_over_the_azure_catalog():
    """An AKS NodePool (its nodeClassRef an AKSNodeClass) starts Azure VM sizes, never EC2 instances: its machines
    are the D family's sizes of the Azure catalog, arm64 ones among them (it names no architecture)."""
    family = [{"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["D"]}]
    result = evaluate(aks(mode="Auto", azure_nodepool=True, requirements=family), stack_config=AZURE)
    mine = next(pool for pool in result.pools if pool.name == "mine")
    assert mine.source == "NodePool" and "Standard_D4pls_v6" in mine.machines and "Standard_D4s_v5" in mine.machines
    assert all(machine.startswith("Standard_D") for machine in mine.machines)
    assert "xlarge" not in said(result) and "machine catalog" not in said(result)  # no EC2 machine named


def test_node_auto_provisioning_mode_manual_keeps_the_declared_pools_all_the_nodes():
    result = evaluate(aks(mode="Manual"), stack_config=AZURE)
    assert [v.policy for v in result.mandatory] == [SCHEDULABLE]


def test_default_nodepools_none_leaves_the_stacks_own_nodepools():
    """defaultNodePools None: AKS creates no NodePool ("you must define your own"), so the Deployment, which tolerates
    no declared pool's taint, is refused; with a NodePool of the stack's it runs there. Both sides, twice."""
    for _ in range(2):
        alone = evaluate(aks(mode="Auto", defaults="None"), stack_config=AZURE)
        assert [v.policy for v in alone.mandatory] == [SCHEDULABLE]
        assert sorted(pool.name for pool in alone.pools) == ["systempool"]
        mine = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True), stack_config=AZURE)
        assert mine.violations == [] and said(mine) == ""


def test_default_nodepools_not_known_yet_are_said_and_nothing_is_refused():
    result = evaluate(aks(mode="Auto", defaults=lambda: unknown("Auto")), stack_config=AZURE)
    assert result.violations == []
    assert "AKS cluster 'aks' has node auto-provisioning whose default NodePools are not known yet (" \
           "nodeProvisioningProfile.defaultNodePools), so it may have pools the stack does not declare" in said(result)


def _allocatable_cpu(cores: int) -> int:
    """AKS's CPU reservation, written out (learn.microsoft.com/azure/aks/node-resource-reservations): 60m for the
    first core, 40m for the second, 20m each for cores 3-4, 10m for every core above 4; allocatable in millicores."""
    reserved = 60 * min(cores, 1) + 40 * min(max(cores - 1, 0), 1) + 20 * min(max(cores - 2, 0), 2) \
        + 10 * max(cores - 4, 0)
    return cores * 1000 - reserved


def test_a_pod_larger_than_every_size_a_nodepool_allows_is_refused_with_the_largest_named():
    """sku-cpu Lt 9 on the D family (karpenter.azure.com/sku-cpu, "Number of CPUs in VM"): its largest sizes have 8
    vCPUs, 7820m allocatable (AKS's reservation written out above). A Pod of that much fits, one more millicore does
    not: refused, naming an 8-vCPU size (Standard_D13, the D family's older name for one); with the default NodePools beside it, the default's larger sizes take it."""
    small = [{"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["D"]},
             {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
             {"key": "karpenter.azure.com/sku-cpu", "operator": "Lt", "values": ["9"]}]
    most = _allocatable_cpu(8)
    assert most == 7820
    for _ in range(2):
        fits = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, requirements=small,
                            requests={"cpu": f"{most}m"}), stack_config=AZURE)
        assert fits.violations == [] and said(fits) == ""
        over = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, requirements=small,
                            requests={"cpu": f"{most + 1}m"}), stack_config=AZURE)
        (message,) = over.findings(FITS)
        assert message.startswith(f"Deployment 'api': one Pod requests {most + 1}m of CPU, more than any node of the "
                                  f"pools that can take it: pool 'mine' (NodePool) has at most 8 cores capacity - "
                                  f"180m kube-reserved = {most}m allocatable of CPU (Standard_D"), message
        assert evaluate(aks(mode="Auto", azure_nodepool=True, requirements=small, requests={"cpu": f"{most + 1}m"}),
                        stack_config=AZURE).violations == []


def test_an_aks_node_class_s_max_pods_decides_allocatable_memory():
    """Standard_D4s_v5 (16 GiB) on an AKSNodeClass of maxPods 30: AKS reserves the lesser of 20 MB x 30 + 50 MB = 650
    MB and 25% of 16 GiB, so 16384 MiB - 650 MB - 100 MiB eviction = 15664.11 MiB; with no maxPods, the cluster's
    default (250: 20 MB x 250 + 50 MB = 5050 MB, more than 4 GiB) leaves 16384 - 4096 - 100 = 12188 MiB. A Pod of 13
    GiB is refused on the second only."""
    d4 = [{"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_D4s_v5"]}]
    assert round(16384 - 650 * 10**6 / 2**20 - 100, 2) == 15664.11
    roomy = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, requirements=d4,
                         requests={"memory": "13Gi"}, node_class={"maxPods": 30}), stack_config=AZURE)
    assert roomy.violations == []
    (message,) = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, requirements=d4,
                              requests={"memory": "13Gi"}, node_class={}), stack_config=AZURE).findings(FITS)
    assert "has at most 16 GiB capacity - 4 GiB kube-reserved - 100 MiB eviction threshold = 11.9 GiB allocatable " \
           "of memory (Standard_D4s_v5)" in message, message


def test_arm64_and_gpu_pods_run_only_where_a_nodepool_allows_them():
    """The default NodePools allow amd64 D sizes only: an arm64 Pod, and a Pod that asks for an NVIDIA GPU, are
    refused there, and run on a NodePool that allows them (any arm64 size; NVIDIA's amd64 sizes).
    Both sides, twice."""
    arm = {"nodeSelector": {"kubernetes.io/arch": "arm64"}}
    gpu = {"cpu": "1", "nvidia.com/gpu": "1"}
    for _ in range(2):
        assert [v.policy for v in evaluate(aks(mode="Auto", pod=arm), stack_config=AZURE).mandatory] == [SCHEDULABLE]
        assert evaluate(aks(mode="Auto", pod=arm, azure_nodepool=True, requirements=[
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]), stack_config=AZURE).violations == []
        refused = evaluate(aks(mode="Auto", requests=gpu), stack_config=AZURE)
        assert [v.policy for v in refused.mandatory] == [FITS], refused.violations
        assert evaluate(aks(mode="Auto", requests=gpu, azure_nodepool=True, requirements=[
            {"key": "karpenter.azure.com/sku-gpu-manufacturer", "operator": "In", "values": ["nvidia"]},
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]),
            stack_config=AZURE).violations == []


def gke(cpu_limit: int | None, max_nodes: int = 10, replicas: int = 20, other_min: Any = 0, memory_limit: int = 1024,
        compute_class: bool = False):
    """A zonal GKE cluster with node auto-provisioning and a cpu limit, a declared pool of e2-standard-4 (4 vCPUs)
    autoscaling to ``max_nodes``, another of ``other_min`` e2-standard-2 nodes at least (a function: one not known
    yet), a Deployment of 1-CPU Pods, and with ``compute_class`` a ComputeClass of n4 machines that no Pod requests."""
    import pulumi_gcp as gcp

    def program():
        autoscaling = {"enabled": True, "resource_limits": [
            {"resource_type": "cpu", "minimum": 1, "maximum": cpu_limit},
            {"resource_type": "memory", "minimum": 1, "maximum": memory_limit}]} if cpu_limit is not None else None
        cluster = gcp.container.Cluster("gke", name="gke", location="europe-west1-b", initial_node_count=1,
                                        remove_default_node_pool=True, min_master_version="1.34",
                                        cluster_autoscaling=autoscaling)
        gcp.container.NodePool("apps", name="apps", cluster=cluster.name, location="europe-west1-b",
                               initial_node_count=1, autoscaling={"min_node_count": 1, "max_node_count": max_nodes},
                               node_config={"machine_type": "e2-standard-4"})
        if other_min:
            least = other_min(cluster) if callable(other_min) else other_min
            gcp.container.NodePool("system", name="system", cluster=cluster.name, location="europe-west1-b",
                                   autoscaling={"min_node_count": least, "max_node_count": 30},
                                   node_config={"machine_type": "e2-standard-2",
                                                "taints": [{"key": "dedicated", "value": "system",
                                                            "effect": "NO_SCHEDULE"}]})
        provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
        if compute_class:
            k8s.apiextensions.CustomResource("n4", api_version="cloud.google.com/v1", kind="ComputeClass",
                                             metadata={"name": "n4"}, spec={
                                                 "priorities": [{"machineFamily": "n4"}], "whenUnsatisfiable":
                                                 "DoNotScaleUp", "nodePoolAutoCreation": {"enabled": True}},
                                             opts=pulumi.ResourceOptions(provider=provider))
        k8s.apps.v1.Deployment("api", spec={
            "replicas": replicas, "selector": {"matchLabels": {"app": "api"}}, "template": {
                "metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{
                    "name": "api", "image": "nginx", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}},
            opts=pulumi.ResourceOptions(provider=provider))
    return program


GCP = {"compute:platform": "gcp", "gcp:project": "p", "gcp:region": "europe-west1"}


def test_gke_resource_limits_cap_the_whole_cluster_with_the_arithmetic():
    """SPEC 22, "How much in all": GKE's resourceLimits cap every node of the cluster, declared pools and
    auto-provisioned ones together (kubernetes/k8s.io#2003). 20 Pods of 1 CPU on a cluster whose cpu limit is 16 cores:
    4 cores of Pods never schedule, whatever pools GKE adds (refused on the cluster, whose limit it is). Without a
    limit, or with one of 64 cores, nothing is refused. Twice in one process."""
    assert evaluate(gke(None), stack_config=GCP).findings("pool-capacity") == []
    assert evaluate(gke(64), stack_config=GCP).findings("pool-capacity") == []
    for _ in range(2):
        result = evaluate(gke(16), stack_config=GCP)
        assert result.findings("pool-capacity") == [
            "GKE cluster 'gke': its workloads request 20 cores of CPU (largest: Deployment 'api' 20 x 1 core), more "
            "than the 16 cores its clusterAutoscaling.resourceLimits let all its nodes have together (declared pools "
            "and auto-provisioned ones alike), so at least 4 cores of Pods never schedule (\"max cluster cpu limit "
            "reached\"): raise the cpu maximum, or run fewer replicas"]
        assert result.of("pool-capacity")[0].urn.endswith("gcp:container/cluster:Cluster::gke")
    assert evaluate(gke(16, replicas=16), stack_config=GCP).findings("pool-capacity") == []


def test_a_compute_class_on_the_cluster_leaves_its_cap_judged():
    """Issue 75: a ComputeClass on the cluster (its pools start from no node) silenced the cap's refusal: the class's
    pool had no minimum size. 20 cores of Pods under a 16-core cap are refused with or without the class."""
    for with_class in (False, True):
        (message,) = evaluate(gke(16, compute_class=with_class), stack_config=GCP).findings("pool-capacity")
        assert message.startswith("GKE cluster 'gke': its workloads request 20 cores of CPU"), message


def test_nodes_the_pools_keep_at_their_minimum_count_above_the_cap():
    """Issue 76's ninth survivor: the declared pools' minimum nodes exist whatever the cap. A system pool of at least
    12 e2-standard-2 nodes (24 cores) under a 16-core cap: 20 cores of Pods may run there (nothing refused), 30 do
    not, and the shortfall is counted from the 24 cores (+4 of the apps pool's one node: 28), not the cap. A minimum
    not known yet: the refusal is said, not made."""
    assert evaluate(gke(16, replicas=20, other_min=12), stack_config=GCP).findings("pool-capacity") == []
    (message,) = evaluate(gke(16, replicas=30, other_min=12), stack_config=GCP).findings("pool-capacity")
    assert "more than the 16 cores its clusterAutoscaling.resourceLimits let all its nodes have together (declared " \
           "pools and auto-provisioned ones alike) or the 28 cores its pools keep at their minimum sizes, so at " \
           "least 2 cores of Pods never schedule" in message, message
    late = evaluate(gke(16, replicas=30, other_min=lambda cluster: cluster.endpoint.apply(lambda _: 12)),
                    stack_config=GCP)
    assert late.findings("pool-capacity") == []
    assert any("but the minimum size or machine of pool 'system'" in note.finding for note in late.notes
               if note.policy == "pool-capacity"), late.notes


def test_a_declared_pool_is_counted_at_the_nodes_the_cap_allows():
    """The declared pool's count under the cap, with the arithmetic: 16 cores / 4 cores a node = 4 of its maxSize 10;
    with another pool's 4 minimum e2-standard-2 nodes taking 8 cores, 2. On a cluster that provisions its own nodes
    the Pods may run elsewhere, so the pool's shortfall is a note (the cluster's cap is the refusal)."""
    def said(result):
        return " ".join(note.finding for note in result.notes)
    text = said(evaluate(gke(16, replicas=14), stack_config=GCP))
    assert "the 4 nodes of its maxSize 10 that its GKE cluster 'gke' allows under its cpu limit " \
           "(clusterAutoscaling.resourceLimits: 16 cores / 4 cores a node)" in text
    assert "raise the cpu maximum of GKE cluster 'gke''s clusterAutoscaling.resourceLimits (it caps every node of the " \
           "cluster together)" in text
    text = said(evaluate(gke(16, replicas=8, other_min=4), stack_config=GCP))
    assert "the 2 nodes of its maxSize 10 that its GKE cluster 'gke' allows under its cpu limit " \
           "(clusterAutoscaling.resourceLimits: 16 cores - 8 cores the other pools' minimum nodes take = 8 cores / " \
           "4 cores a node)" in text


def test_gke_memory_limit_caps_the_whole_cluster_read_in_its_larger_unit():
    """GKE's memory maximum is in gigabytes; the pack reads it in GiB, the larger unit, so a refusal holds whichever
    its autoscaler counts in. 20 Pods of 1 GiB (20 GiB) under a memory maximum of 16: refused with the arithmetic;
    under 20 (20 GiB read as GiB, though only 18.6 GiB if GKE counts 20 x 10^9 bytes) not refused, since whether they
    schedule hangs on the unit; under 1024 nothing is said. Twice in one process."""
    for _ in range(2):
        result = evaluate(gke(64, memory_limit=16), stack_config=GCP)
        assert result.findings("pool-capacity") == [
            "GKE cluster 'gke': its workloads request 20 GiB of memory (largest: Deployment 'api' 20 x 1 GiB), more "
            "than the 16 GiB its clusterAutoscaling.resourceLimits let all its nodes have together (declared pools "
            "and auto-provisioned ones alike; its maximum read in GiB, the larger of the gigabytes GKE counts in and "
            "GiB), so at least 4 GiB of Pods never schedule (\"max cluster cpu, memory limit reached\"): raise the "
            "memory maximum, or run fewer replicas"]
        assert result.of("pool-capacity")[0].urn.endswith("gcp:container/cluster:Cluster::gke")
    assert evaluate(gke(64, memory_limit=20), stack_config=GCP).findings("pool-capacity") == []
    assert evaluate(gke(64, memory_limit=1024), stack_config=GCP).findings("pool-capacity") == []


@pytest.mark.parametrize("size, expected, absent", [
    # Azure/karpenter-provider-azure pkg/apis/v1beta1/labels.go at 352646f, its own examples: sku-name
    # "Standard_D4pls_v6", sku-family "D", sku-series "Dpls_v6"; sku-version "numerical (without v)"
    ("Standard_D4pls_v6", {"kubernetes.io/arch": "arm64", "karpenter.azure.com/sku-family": "D",
                           "karpenter.azure.com/sku-series": "Dpls_v6", "karpenter.azure.com/sku-version": "6",
                           "karpenter.azure.com/sku-cpu": "4", "kubernetes.azure.com/sku-cpu": "4"}, ()),
    # sku-version "with 1 backfilled" for a name without one (the same file)
    ("Standard_F2s", {"karpenter.azure.com/sku-family": "F", "karpenter.azure.com/sku-series": "Fs",
                      "karpenter.azure.com/sku-version": "1"}, ()),
    # sku-memory "Memory in VM in MiB" (learn.microsoft.com/azure/aks/node-autoprovision-node-pools, "SKU selectors
    # with well known labels"): Standard_D4s_v5 has 16 GiB; no GPU: a count of 0, no maker, no GPU name
    ("Standard_D4s_v5", {"karpenter.azure.com/sku-memory": "16384", "kubernetes.azure.com/sku-memory": "16384",
                         "karpenter.azure.com/sku-gpu-count": "0", "kubernetes.io/arch": "amd64"},
     ("karpenter.azure.com/sku-gpu-manufacturer", "karpenter.azure.com/sku-gpu-name")),
    # GPU sizes: the maker, and the accelerator the name carries (sku-gpu-name "A100"; the page's example); the N
    # family, whose series leaves the accelerator out (Azure/skewer's size parser: NCads_v4)
    ("Standard_NC24ads_A100_v4", {"karpenter.azure.com/sku-family": "N", "karpenter.azure.com/sku-series": "NCads_v4",
                                  "karpenter.azure.com/sku-gpu-manufacturer": "nvidia",
                                  "karpenter.azure.com/sku-gpu-name": "A100", "karpenter.azure.com/sku-gpu-count": "1"},
     ()),
    # a name with no accelerator in it has no GPU name; a fraction of a GPU has no count the pack can give
    ("Standard_NV4as_v4", {"karpenter.azure.com/sku-gpu-manufacturer": "amd"},
     ("karpenter.azure.com/sku-gpu-name", "karpenter.azure.com/sku-gpu-count")),
    # a constrained size: its active vCPUs or the full size's, which one the label counts is not said
    ("Standard_E4-2s_v3", {"karpenter.azure.com/sku-family": "E", "karpenter.azure.com/sku-series": "Es_v3"},
     ("karpenter.azure.com/sku-cpu", "kubernetes.azure.com/sku-cpu")),
])
def test_the_labels_an_azure_vm_size_decides(size, expected, absent):
    from compute_guard.policies.model.sources.karpenter import azure_machine_labels
    from compute_guard.policies.platforms.catalog import find_machine

    machine = find_machine("azure", size)
    assert machine is not None
    labels = azure_machine_labels(machine)
    assert {key: labels.get(key) for key in expected} == expected
    assert [key for key in absent if key in labels] == []
    assert labels["node.kubernetes.io/instance-type"] == labels["karpenter.azure.com/sku-name"] == size


def test_a_nodepool_whose_requirements_leave_no_azure_size_says_so_in_azure_s_words():
    """An arm64 requirement beside a named amd64 size leaves nothing (cloud-machine-catalog); the same size with
    amd64 is clean."""
    def catalog(arch):
        return evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, requirements=[
            {"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_D4s_v5"]},
            {"key": "kubernetes.io/arch", "operator": "In", "values": [arch]}]),
            stack_config=AZURE).findings("cloud-machine-catalog")

    assert catalog("arm64") == [
        "NodePool 'mine': its requirements allow no VM size of the Azure catalog (the VM sizes or families they name "
        "are excluded by the others); Karpenter can launch no node for it: loosen the requirements"]
    assert catalog("amd64") == []


def test_an_aks_nodepool_s_limits_cap_its_own_nodes():
    """SPEC 22, "How much in all": spec.limits.cpu 8 on the stack's only NodePool; 20 Pods of one core are refused with
    the arithmetic (Karpenter launches no node past its limits), 4 pass. Both sides, twice."""
    for _ in range(2):
        over = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, requests={"cpu": "1"}, replicas=20,
                            limits={"cpu": "8"}), stack_config=AZURE)
        assert over.findings("pool-capacity") == [
            "NodePool 'mine': its spec.limits.cpu allows 8 cores of CPU on all its nodes together, but the workloads "
            "only it can take request 20 cores (largest: Deployment 'api' 20 x 1 core); Karpenter launches no node "
            "past its limits, so some of their Pods would stay Pending: raise spec.limits.cpu to at least 20 cores or "
            "let another pool take some of them"]
        within = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, requests={"cpu": "1"}, replicas=4,
                              limits={"cpu": "8"}), stack_config=AZURE)
        assert within.violations == [] and said(within) == ""


def test_an_aks_nodepool_s_node_lifetime_is_said_for_a_workload_that_cannot_lose_a_pod():
    """SPEC 23, node lifetimes: an AKS NodePool that expires its nodes after 720h and deletes their Pods 1h into a
    drain, and a single replica on it: said (advisory), as on a Karpenter NodePool of EKS; expireAfter Never: not."""
    for _ in range(2):
        expiring = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, replicas=1,
                                lifetime={"expireAfter": "720h", "terminationGracePeriod": "1h"}), stack_config=AZURE)
        (message,) = expiring.findings("workload-interruption-tolerant")
        assert message.startswith("Deployment 'api': its Pods run only on pools whose nodes are replaced on a schedule "
                                  "(pool 'mine' (NodePool) (Karpenter replaces each node after 720h (spec.template."
                                  "spec.expireAfter), and deletes their Pods 1h into the drain whatever their budgets "
                                  "(terminationGracePeriod))), and it runs one replica"), message
        never = evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, replicas=1,
                             lifetime={"expireAfter": "Never"}), stack_config=AZURE)
        assert never.violations == []


def test_auto_provisioning_known_from_either_input_while_the_other_is_not_known_yet():
    """mode Auto with sku.name not known yet, or sku.name Automatic with mode not known yet: node auto-provisioning
    runs either way, so the default NodePools are read and nothing is said; mode not known yet beside sku.name Base:
    it may or may not run, said, and nothing refused."""
    for program in (aks(mode="Auto", sku=lambda: unknown("Base")), aks(sku="Automatic", mode=lambda: unknown("Auto"))):
        result = evaluate(program, stack_config=AZURE)
        assert result.violations == [] and said(result) == ""
        assert "default" in [pool.name for pool in result.pools]
    result = evaluate(aks(mode=lambda: unknown("Auto"), sku="Base"), stack_config=AZURE)
    assert result.violations == []
    assert "AKS cluster 'aks' may have node auto-provisioning (nodeProvisioningProfile.mode or sku.name is not known " \
           "yet), so it may have pools the stack does not declare" in said(result)


def test_an_aks_nodepool_s_nodes_carry_no_aws_label():
    """Karpenter's EC2 nodes carry topology.k8s.aws/zone-id; the nodes of AKS's NodePools do not (its provider sets
    the Azure labels above, and kubernetes.azure.com/ ones): a Pod that requires it is refused there, one that requires
    a kubernetes.azure.com/ label is said, not refused."""
    aws_zone = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "topology.k8s.aws/zone-id", "operator": "Exists"}]}]}}}}
    refused = evaluate(aks(sku="Automatic", pod=aws_zone), stack_config=AZURE)
    assert [v.policy for v in refused.mandatory] == [SCHEDULABLE]
    assert "NodePool 'default' of AKS cluster 'aks' has no node its required node affinity on topology.k8s.aws/" \
           "zone-id matches" in refused.findings(SCHEDULABLE)[0]
    azure_label = {"nodeSelector": {"kubernetes.azure.com/os-sku": "Ubuntu"}}
    said_only = evaluate(aks(sku="Automatic", pod=azure_label), stack_config=AZURE)
    assert said_only.violations == [] and "kubernetes.azure.com/os-sku" in said(said_only)


def test_aks_automatic_s_baseline_pod_security_is_said_for_a_pod_it_forbids():
    """SPEC 21: AKS Automatic enforces Deployment Safeguards and the baseline Pod Security Standard (learn.microsoft.com/
    azure/aks/deployment-safeguards): a Pod on the host's network is denied unless its namespace is excluded, which is
    set outside the stack, so it is said, never refused; a baseline Pod, and the same Pod on AKS Standard, say
    nothing. Twice."""
    for _ in range(2):
        host = evaluate(aks(sku="Automatic", pod={"hostNetwork": True}), stack_config=AZURE)
        assert host.violations == []
        (note,) = [note.finding for note in host.notes if note.policy == "platform-admits-workload"]
        assert note.endswith("Deployment 'api': on AKS cluster 'aks', AKS Automatic's Deployment Safeguards enforce "
                             "the baseline Pod Security Standard: hostNetwork=true; drop what baseline forbids; but its "
                             "namespace may be excluded from Deployment Safeguards (az aks safeguards update "
                             "--excluded-ns), which the stack does not show, so this is not judged"), note
        assert said(evaluate(aks(sku="Automatic"), stack_config=AZURE)) == ""
        standard = evaluate(aks(mode="Auto", pod={"hostNetwork": True}), stack_config=AZURE)
        assert [note for note in standard.notes if note.policy == "platform-admits-workload"] == []


def test_aks_s_spot_label_on_the_capacity_a_nodepool_allows():
    """AKS node auto-provisioning's nodes carry kubernetes.azure.com/scalesetpriority, spot or regular by their capacity
    type (Azure/karpenter-provider-azure's labels.go: "we write it to make scheduling easier"): a Pod that selects
    AKS's spot label is refused on the default NodePools (on-demand only), and runs on a NodePool that allows spot.
    Twice."""
    spot = {"nodeSelector": {"kubernetes.azure.com/scalesetpriority": "spot"},
            "tolerations": [{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Exists"}]}
    for _ in range(2):
        refused = evaluate(aks(sku="Automatic", pod=spot), stack_config=AZURE)
        assert [v.policy for v in refused.mandatory] == [SCHEDULABLE]
        assert "NodePool 'default' of AKS cluster 'aks' does not have label kubernetes.azure.com/scalesetpriority=spot" \
            in refused.findings(SCHEDULABLE)[0]
        allowed = evaluate(aks(mode="Auto", defaults="None", pod=spot, azure_nodepool=True, requirements=[
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
            {"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["D"]},
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]), stack_config=AZURE)
        assert allowed.violations == [] and said(allowed) == ""


def test_a_nodepool_of_every_size_says_nothing_of_unknown_memory_where_a_known_size_holds_the_pod():
    """An AKS NodePool that names no family allows the Azure sizes whose memory the catalog does not know (the
    confidential EC sizes, HPC ones): a Pod of 128 MiB, which a size of known memory holds, is judged with no note
    (it was said that its memory was not checked); one of 32 TiB, more than any size whose memory is known, is said,
    never refused, since a size whose memory is not known may hold it."""
    amd64 = [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]
    small = evaluate(aks(mode="Auto", azure_nodepool=True, defaults="None", requirements=amd64), stack_config=AZURE)
    assert small.violations == [] and small.notes == [], said(small)
    huge = evaluate(aks(mode="Auto", azure_nodepool=True, defaults="None", requirements=amd64,
                        requests={"cpu": "100m", "memory": "32Ti"}), stack_config=AZURE)
    assert huge.mandatory == [], huge.violations
    assert "the machine catalog has no memory for Standard_EC128eds_v5" in said(huge), said(huge)


def nap(cpu: str, *, declared: bool = True, selector: dict[str, str] | None = None, cap: int = 16):
    """A GKE cluster with node auto-provisioning capped at ``cap`` cores and 64 GB, with or without a declared pool of
    e2-standard-4, and a Deployment of one ``cpu`` Pod (``selector``: its nodeSelector)."""
    import pulumi_gcp as gcp

    def program():
        cluster = gcp.container.Cluster("gke", name="gke", location="europe-west1-b", initial_node_count=1,
                                        remove_default_node_pool=True, min_master_version="1.35",
                                        release_channel={"channel": "REGULAR"},
                                        cluster_autoscaling={"enabled": True, "resource_limits": [
                                            {"resource_type": "cpu", "maximum": cap},
                                            {"resource_type": "memory", "maximum": 64}]})
        if declared:
            gcp.container.NodePool("apps", name="apps", cluster=cluster.name, location="europe-west1-b",
                                   initial_node_count=1, autoscaling={"min_node_count": 1, "max_node_count": 3},
                                   node_config={"machine_type": "e2-standard-4"})
        provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
        k8s.apps.v1.Deployment("api", spec={
            "replicas": 1, "selector": {"matchLabels": {"app": "api"}}, "template": {
                "metadata": {"labels": {"app": "api"}}, "spec": {
                    **({"nodeSelector": selector} if selector else {}),
                    "containers": [{"name": "api", "image": "nginx",
                                    "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}}},
            opts=pulumi.ResourceOptions(provider=provider))
    return program


def placement_notes(result) -> list[str]:
    return [reason for note in result.notes if note.policy in ("workload-schedulable", "workload-fits-pool")
            for reason in note.reasons]


def test_a_pod_the_default_machines_hold_within_the_caps_is_judged_without_a_note():
    """Issue 75, SPEC 22: node auto-provisioning adds an E2 node ("If you don't explicitly select a machine, GKE uses
    the E2 machine series") for a Pod that asks nothing in particular, within the cluster's caps. A 2-core Pod, and a
    6-core one no declared pool holds (e2-standard-8 does), are scheduled: no note, with or without a declared pool
    (on main: "the placement of workloads on it is not judged" for the whole cluster, and a fit note for 6 cores).
    What they do not hold is still said, naming the workload: 20 cores under a 16-core cap (no E2 node within it
    holds them), a Pod that selects a label the pack does not know GKE gives its nodes. A Windows Pod is refused, with
    no note on the whole cluster beside it."""
    for declared in (True, False):
        for cpu in ("2", "6"):
            result = evaluate(nap(cpu, declared=declared), stack_config=GCP)
            assert placement_notes(result) == [] and result.mandatory == [], (declared, cpu, result.notes)
    big = placement_notes(evaluate(nap("20", declared=False), stack_config=GCP))
    assert big == ["GKE cluster 'gke' has node auto-provisioning (clusterAutoscaling.enabled): GKE creates node pools "
                   "the stack does not declare for Pods its pools cannot take; the placement of Deployment 'api' on it "
                   "is not judged"], big
    assert placement_notes(evaluate(nap("20"), stack_config=GCP)) != []
    assert placement_notes(evaluate(nap("2", selector={"team": "batch"}), stack_config=GCP)) != []
    windows = evaluate(nap("2", selector={"kubernetes.io/os": "windows"}), stack_config=GCP)
    assert [v.policy for v in windows.mandatory] == ["workload-schedulable"]
    assert placement_notes(windows) == []
