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


def test_a_spread_key_under_a_prefix_a_node_may_carry_is_never_refused():
    """Node agents label nodes under their own prefixes (Node Feature Discovery's feature.node.kubernetes.io/, the
    NVIDIA GPU operator's nvidia.com/): a node of the pool may carry such a key, so a spread over it is not refused
    (issue 46's audit: the prefix check dropped passed its own tests)."""
    for key in ("feature.node.kubernetes.io/cpu-model.vendor_id", "nvidia.com/gpu.product"):
        assert findings(nodepool(), deployment(3, constraint(key=key))) == [], key


SECRET_SIG = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}


def test_a_secret_min_domains_is_never_shown_nor_anything_derived_from_it():
    """minDomains from a secret: the verdict stands (3 zones asked of 2), but neither it nor the Pods it leaves
    Pending (derived from it) appear in the message."""
    secret = {**SECRET_SIG, "value": 3}
    (message,) = findings(nodepool(), deployment(3, constraint(min_domains=secret)))
    assert "3 zones" not in message and "1 stays" not in message and "x 1 = 2" not in message
    assert message.startswith("Deployment 'web': its topologySpreadConstraints[0] (topology.kubernetes.io/zone, "
                              "maxSkew [secret], minDomains [secret], DoNotSchedule) asks for [secret] zones, but its "
                              "pools offer 2")
