"""Clusters that provision their own nodes (issue 68, SPEC 22): what the pack may not judge as if the declared pools
were all the nodes, through the providers' own SDKs. AKS Automatic (sku.name Automatic) runs node auto-provisioning
(learn.microsoft.com/azure/aks/intro-aks-automatic), so its tainted system pool is not the only place a Pod may land;
an AKS node auto-provisioning NodePool (its nodeClassRef an AKSNodeClass of karpenter.azure.com) starts Azure VM
sizes, never EC2 instances. Both were judged wrongly on main (1866ecd): a small Deployment refused on AKS Automatic,
the AKS NodePool read against the EC2 catalog."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pulumi_azure_native import containerservice

from compute_guard.testkit import evaluate

AZURE = {"compute:platform": "azure", "azure-native:location": "westeurope"}
CRITICAL = "CriticalAddonsOnly=true:NoSchedule"


def aks(sku: str | None = None, mode: str | None = None, azure_nodepool: bool = False):
    def program():
        args = dict(resource_group_name="rg", resource_name_="aks", location="westeurope", dns_prefix="aks",
                    agent_pool_profiles=[{"name": "systempool", "mode": "System", "vm_size": "Standard_D4ds_v5",
                                          "count": 3, "node_taints": [CRITICAL]}])
        if sku:
            args["sku"] = {"name": sku, "tier": "Standard"}
        if mode:
            args["node_provisioning_profile"] = {"mode": mode}
        cluster = containerservice.ManagedCluster("aks", **args)
        provider = k8s.Provider("k8s", kubeconfig=cluster.name)
        if azure_nodepool:
            k8s.apiextensions.CustomResource("default", api_version="karpenter.sh/v1", kind="NodePool",
                                             metadata={"name": "default"}, spec={"template": {"spec": {
                                                 "nodeClassRef": {"group": "karpenter.azure.com",
                                                                  "kind": "AKSNodeClass", "name": "default"},
                                                 "requirements": [{"key": "karpenter.azure.com/sku-family",
                                                                   "operator": "In", "values": ["D"]}]}}},
                                             opts=pulumi.ResourceOptions(provider=provider))
        k8s.apps.v1.Deployment("api", spec={
            "replicas": 2, "selector": {"matchLabels": {"app": "api"}}, "template": {
                "metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{
                    "name": "api", "image": "nginx", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}},
            opts=pulumi.ResourceOptions(provider=provider))
    return program


def said(result) -> str:
    return " ".join(note.finding for note in result.notes)


def test_aks_automatic_provisions_nodes_beside_its_tainted_system_pool():
    """Both sides: on AKS Standard the Deployment tolerates no pool's taint and is refused; on AKS Automatic it is
    said, never refused. Twice in one process."""
    standard = evaluate(aks(), stack_config=AZURE)
    assert [v.policy for v in standard.mandatory] == ["workload-schedulable"]
    for _ in range(2):
        automatic = evaluate(aks(sku="Automatic"), stack_config=AZURE)
        assert automatic.violations == []
        assert "AKS cluster 'aks' is an AKS Automatic cluster (sku.name Automatic), which provisions nodes for its " \
               "Pods on NodePools the stack does not declare" in said(automatic)


def test_an_aks_node_auto_provisioning_nodepool_is_never_read_as_ec2_capacity():
    result = evaluate(aks(mode="Auto", azure_nodepool=True), stack_config=AZURE)
    assert result.violations == []
    assert [pool.source for pool in result.pools] == ["ManagedCluster"]  # the AKS NodePool is no EC2 pool
    text = said(result)
    assert "NodePool 'default' is an AKS node auto-provisioning NodePool (its nodeClassRef is an AKSNodeClass): the " \
           "VM sizes it may start are not read yet, so what it runs is not judged" in text
    assert "xlarge" not in text and "machine catalog" not in text  # no EC2 machine named


def test_node_auto_provisioning_mode_manual_keeps_the_declared_pools_all_the_nodes():
    result = evaluate(aks(mode="Manual"), stack_config=AZURE)
    assert [v.policy for v in result.mandatory] == ["workload-schedulable"]


def gke(cpu_limit: int | None, max_nodes: int = 10, replicas: int = 20, other_min: int = 0, memory_limit: int = 1024):
    """A zonal GKE cluster with node auto-provisioning and a cpu limit, a declared pool of e2-standard-4 (4 vCPUs)
    autoscaling to ``max_nodes``, another of ``other_min`` e2-standard-2 nodes at least, and a Deployment of 1-CPU
    Pods."""
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
            gcp.container.NodePool("system", name="system", cluster=cluster.name, location="europe-west1-b",
                                   autoscaling={"min_node_count": other_min, "max_node_count": other_min + 2},
                                   node_config={"machine_type": "e2-standard-2",
                                                "taints": [{"key": "dedicated", "value": "system",
                                                            "effect": "NO_SCHEDULE"}]})
        provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
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
