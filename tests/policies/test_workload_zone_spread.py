"""workload-zone-spread: hard topology spread constraints can be met on the workload's pools (SPEC section 15,
policy 20)."""

import pytest

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

POLICY = "workload-zone-spread"
ZONE = "topology.kubernetes.io/zone"


def nodepool(zones=("us-east-1a", "us-east-1b"), name="general"):
    requirements = [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]
    if zones is not None:
        requirements.append({"key": ZONE, "operator": "In", "values": list(zones)})
    return Resource.of("kubernetes:karpenter.sh/v1:NodePool", name, {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
        "spec": {"template": {"spec": {"requirements": requirements, "nodeClassRef": {
            "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}})


def constraint(key=ZONE, skew=1, min_domains=None, when="DoNotSchedule", app="web"):
    found = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when,
             "labelSelector": {"matchLabels": {"app": app}}}
    if min_domains is not None:
        found["minDomains"] = min_domains
    return found


def deployment(replicas=3, *constraints, labels=None):
    pod = {"containers": [{"name": "web", "image": "example.test/web:1"}],
           "nodeSelector": {"kubernetes.io/arch": "amd64"}, "topologySpreadConstraints": list(constraints)}
    metadata = {"name": "web", **({"labels": labels} if labels else {})}
    return Resource.of("kubernetes:apps/v1:Deployment", "web", {"metadata": metadata, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod}}})


def run(*resources, platform="aws"):
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        return Analyzer({}).run(list(resources))


def findings(*resources, platform="aws"):
    return run(*resources, platform=platform).findings(POLICY)


def test_min_domains_above_the_zones_caps_the_pods_at_zones_times_max_skew():
    assert findings(nodepool(), deployment(3, constraint(min_domains=3))) == [
        "Deployment 'web': its topologySpreadConstraints[0] (topology.kubernetes.io/zone, maxSkew 1, minDomains 3, "
        "DoNotSchedule) asks for 3 zones, but its pools offer 2 ('us-east-1a', 'us-east-1b'); with fewer zones than "
        "minDomains the scheduler counts the smallest zone as 0 Pods, so at most 2 x 1 = 2 of its 3 Pods can run and "
        "1 stays Pending: lower minDomains to 2, or add zones to its pools"]
    assert findings(nodepool(), deployment(2, constraint(min_domains=3))) == []  # two Pods fit two zones
    assert findings(nodepool(), deployment(4, constraint(skew=2, min_domains=3))) == []  # 2 x 2
    assert findings(nodepool(), deployment(3, constraint(min_domains=2))) == []
    assert findings(nodepool(), deployment(3, constraint(min_domains=3, when="ScheduleAnyway"))) == []
    # a selector that does not select its own Pods does not count them
    assert findings(nodepool(), deployment(3, constraint(min_domains=3, app="other"))) == []


def test_a_key_no_node_carries_leaves_every_pod_pending():
    assert findings(nodepool(), deployment(3, constraint(key="example.com/rack"))) == [
        "Deployment 'web': its topologySpreadConstraints[0] (example.com/rack, maxSkew 1, DoNotSchedule) spreads its "
        "Pods over the label 'example.com/rack', which no node of its pools carries (pool 'general' (NodePool)): the "
        "scheduler places none of them on a node without it, so they stay Pending: spread over a label its nodes "
        "carry (topology.kubernetes.io/zone, kubernetes.io/hostname) or use whenUnsatisfiable: ScheduleAnyway"]
    for carried in ("kubernetes.io/hostname", ZONE, "karpenter.sh/nodepool", "node.kubernetes.io/instance-type"):
        assert findings(nodepool(), deployment(3, constraint(key=carried))) == [], carried


def test_unknown_zones_are_a_note():
    result = run(nodepool(zones=None), deployment(3, constraint(min_domains=3)))
    assert result.findings(POLICY) == []
    assert any("zones of pool 'general' (NodePool) are not known" in note.finding
               for note in result.notes if note.policy == POLICY)


@pytest.mark.parametrize(("domains", "blocks"), [
    ({"selectedFailureDomains": {"general": ["a", "b"]}, "failureDomainSpread": {"general": 2}}, True),
    ({"selectedFailureDomains": {"general": ["a", "b", "c"]}, "failureDomainSpread": {"general": 3}}, False),
])
def test_a_compute_cluster_pools_failure_domains_are_its_zones(domains, blocks):
    cluster = Resource.of("compute:index:ComputeCluster", "compute", {"id": "compute", "capacityGroups": [
        {"groupId": "general", "minSize": 1, "maxSize": 6, "instanceType": "m7i.large"}], **domains})
    placed = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "general"}
    found = findings(cluster, deployment(3, constraint(min_domains=3), labels=placed))
    assert bool(found) == blocks, found


def test_a_key_no_node_of_many_pools_carries_names_ten_and_counts_the_rest():
    pools = [nodepool(name=f"p{index:02}") for index in range(12)]
    (message,) = findings(*pools, deployment(3, constraint(key="example.com/rack")))
    named = ", ".join(f"pool 'p{index:02}' (NodePool)" for index in range(10))
    assert f"which no node of its pools carries ({named} and 2 more)" in message, message
    (message,) = findings(*pools[:10], deployment(3, constraint(key="example.com/rack")))
    assert f"which no node of its pools carries ({named}):" in message, message
