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
