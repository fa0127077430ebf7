"""Node labels as the platforms set them (issues 45 and 46): every label a real node of a platform carries (or the
platform documents on every node), asked for by a Pod's nodeSelector on the pool that made the node, is never
refused by the scheduler's rules as the pack applies them (tests/nodes/: each file names its source). A label value
the pool certainly has otherwise (another pool's name) still refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compute_guard.policies.model.landing import judge
from compute_guard.policies.model.sources import pools_of
from compute_guard.policies.model.workloads import parse_workload

NODES = sorted((Path(__file__).resolve().parent.parent / "nodes").glob("*.json"))


def placement(selector):
    props = {"metadata": {"name": "api"}, "spec": {"selector": {"matchLabels": {"app": "api"}}, "template": {
        "metadata": {"labels": {"app": "api"}},
        "spec": {"nodeSelector": selector, "containers": [{"name": "api", "image": "nginx"}]}}}}
    workload = parse_workload("kubernetes:apps/v1:Deployment", props, "urn:pulumi:s::p::kubernetes:apps/v1:Deployment::api",
                              "api")
    assert workload is not None
    return workload.scheduling


def the_pool(node):
    resource = node["resource"]
    urn = f"urn:pulumi:s::p::{resource['type']}::{resource['name']}"
    (pool,) = pools_of(resource["type"], resource["props"], urn, resource["name"])
    return pool


@pytest.mark.parametrize("path", NODES, ids=lambda path: path.stem)
def test_every_label_a_node_of_the_pool_carries_is_never_refused(path):
    node = json.loads(path.read_text())
    assert node["source"] and node["kind"] in ("real node", "documented labels")
    pool = the_pool(node)
    refused = [(key, value, verdict.mismatch) for key, value in node["labels"].items()
               if (verdict := judge(pool, placement({key: value}))).refuses]
    assert refused == []


POOL_LABELS = ("agentpool", "kubernetes.azure.com/agentpool", "eks.amazonaws.com/nodegroup",
               "cloud.google.com/gke-nodepool", "karpenter.sh/nodepool")
NAMED = [path for path in NODES if any(key in json.loads(path.read_text())["labels"] for key in POOL_LABELS)]


def test_most_nodes_show_their_pools_name():
    assert len(NAMED) >= len(NODES) - 1  # (one excerpt of a real node shows none)


@pytest.mark.parametrize("path", NAMED, ids=lambda path: path.stem)
def test_the_pool_names_label_with_another_value_still_refuses(path):
    node = json.loads(path.read_text())
    pool = the_pool(node)
    own = [key for key in POOL_LABELS if key in node["labels"]]
    for key in own:
        assert judge(pool, placement({key: "another-pool"})).refuses, key
    assert judge(pool, placement({"kubernetes.io/arch": "s390x"})).refuses


def test_an_aks_pool_carries_agentpool_as_well_as_its_namespaced_label():
    """Issue 45's false violation: nodeSelector agentpool=agentpool on an AKS pool named agentpool was refused."""
    pool = the_pool({"resource": {"type": "azure-native:containerservice:AgentPool", "name": "agentpool", "props": {
        "agentPoolName": "agentpool", "resourceName": "aks", "vmSize": "Standard_DS2_v2", "count": 3}}})
    assert not judge(pool, placement({"agentpool": "agentpool"})).refuses
    assert judge(pool, placement({"agentpool": "userpool"})).refuses


@pytest.mark.parametrize("key", ["feature.node.kubernetes.io/cpu-cpuid.AVX2", "nvidia.com/gpu.product",
                                 "node-role.kubernetes.io/worker", "amd.com/gpu.family"])
def test_a_node_agents_label_is_possible_on_every_platform(key):
    """Node feature discovery and NVIDIA's and AMD's GPU feature discovery label nodes at run time: a Pod asking for
    such a label may land on any pool (possible), never refused."""
    for path in NODES:
        pool = the_pool(json.loads(path.read_text()))
        assert not judge(pool, placement({key: "true"})).refuses, (path.stem, key)
