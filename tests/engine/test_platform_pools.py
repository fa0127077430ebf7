"""Pools as the platforms declare them (SPEC 14), through the engine's door: the engine-started pack judges Karpenter
NodePools and EKS node groups (pulumi-aws) at both sides of each boundary, as tests/policies/ judge them in process
(test_workload_schedulable.py, test_workload_fits_pool.py, test_pool_capacity.py, test_cloud_machine_catalog.py).
The numbers are SPEC 11's EKS reservations: t4g.medium 4096 - (11 x 17 + 255) - 100 = 3554 MiB; m7i.large
8192 - (11 x 29 + 255) - 100 = 7518 MiB."""

from builders import (
    AMD64,
    ARM64,
    arch_requirement,
    deployment,
    instance_types,
    node_class,
    node_group,
    nodepool,
    workload,
)
from test_engine_protocol import engine_run

TAINT = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
TOLERATES = {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]}


def verdicts(result):
    return sorted((v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations)


def test_karpenter_taints_labels_and_fit_at_both_sides():
    batch = nodepool("batch", [instance_types("t4g.medium")], taints=TAINT)

    def api(memory, pod=None):
        return workload("Deployment", "api", node_selector=ARM64, requests={"memory": memory}, pod=pod)

    assert engine_run([node_class(), batch, api("3554Mi", TOLERATES)], "aws").violations == []
    assert verdicts(engine_run([node_class(), batch, api("3555Mi", TOLERATES)], "aws")) == [
        ("workload-fits-pool", "api")]
    refused = engine_run([node_class(), batch, api("1Gi")], "aws")
    assert verdicts(refused) == [("workload-schedulable", "api")]
    assert "pool 'batch' (NodePool) has taint dedicated=batch:NoSchedule that it does not tolerate" in \
        refused.violations[0].finding


def test_karpenter_limits_and_requirements_at_both_sides():
    capped = nodepool("capped", [arch_requirement("amd64")], limits={"cpu": "4"})

    def api(replicas):
        return workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "2"}, spec={"replicas": replicas})

    assert engine_run([node_class(), capped, api(2)], "aws").violations == []
    assert verdicts(engine_run([node_class(), capped, api(3)], "aws")) == [("pool-capacity", "capped")]
    none = nodepool("none", [instance_types("m7g.large"), arch_requirement("amd64")])
    assert verdicts(engine_run([node_class(), none], "aws")) == [("cloud-machine-catalog", "none")]


def test_eks_node_groups_at_both_sides():
    general = node_group("general", ["m7i.large"], labels={"tier": "general"})
    assert engine_run([general, deployment("api", node_selector={"tier": "general", **AMD64},
                                           requests={"memory": "7518Mi"})], "aws").violations == []
    assert verdicts(engine_run([general, deployment("api", node_selector=AMD64, requests={"memory": "7519Mi"})],
                               "aws")) == [("workload-fits-pool", "api")]
    assert verdicts(engine_run([general, deployment("api", node_selector={"tier": "batch"})], "aws")) == [
        ("workload-schedulable", "api")]
    mixed = node_group("mixed", ["m7g.large", "m7i.large"], ami_type="AL2023_ARM_64_STANDARD")
    assert verdicts(engine_run([mixed], "aws")) == [("cloud-machine-catalog", "mixed")]


def test_gke_and_aks_node_pools_at_both_sides():
    from builders import aks_node_pool, gke_node_pool

    def api(memory, **more):
        return deployment("api", node_selector=AMD64, requests={"memory": memory}, **more)

    assert engine_run([gke_node_pool("general"), api("2972Mi")], "gcp").violations == []
    assert verdicts(engine_run([gke_node_pool("general"), api("2973Mi")], "gcp")) == [("workload-fits-pool", "api")]
    tainted = aks_node_pool("apps", "Standard_D4s_v5", taints=["sku=gpu:NoSchedule"], native=True)
    tolerates = {"tolerations": [{"key": "sku", "operator": "Exists"}]}
    assert engine_run([tainted, api("12188Mi", pod=tolerates)], "azure").violations == []
    assert verdicts(engine_run([tainted, api("1Gi")], "azure")) == [("workload-schedulable", "api")]
