"""workload-rollout-fits: a Deployment's rolling update can finish on its pool (SPEC section 15, policy 19)."""

import pytest

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

POLICY = "workload-rollout-fits"
GIB = 1 << 30
PLACED = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "general"}
ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "api"}}}]}}


def cluster(max_size=3):
    return Resource.of("compute:index:ComputeCluster", "compute", {"id": "compute", "capacityGroups": [
        {"groupId": "general", "minSize": 1, "maxSize": max_size,
         "profile": {"cpu": "4", "memoryBytes": 16 * GIB, "architecture": "x86_64"}}]})


def deployment(replicas=3, strategy=None, memory=None, affinity=None, name="api"):
    container = {"name": name, "image": f"example.test/{name}:1"}
    if memory is not None:
        container["resources"] = {"requests": {"memory": memory}}
    pod = {"containers": [container], "nodeSelector": {"kubernetes.io/arch": "amd64"},
           **({"affinity": affinity} if affinity else {})}
    spec = {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod}}
    if strategy is not None:
        spec["strategy"] = strategy
    return Resource.of("kubernetes:apps/v1:Deployment", name, {"metadata": {"name": name, "labels": PLACED},
                                                                "spec": spec})


def findings(*resources):
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        return Analyzer({}).run(list(resources)).findings(POLICY)


def rolling(surge, unavailable):
    return {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}


def test_pods_that_repel_need_a_free_node_for_the_new_one():
    assert findings(cluster(3), deployment(3, rolling(1, 0), affinity=ANTI)) == [
        "Deployment 'api': it rolls out 3 replicas with maxUnavailable 0, maxSurge 1: it keeps all 3 Pods until a new "
        "one is available, so it needs room for 3 + 1 Pods at once (up to 4), but its Pods may not share a node "
        "(required pod anti-affinity on kubernetes.io/hostname, old and new Pods alike) and ComputeCluster 'compute' "
        "pool 'general' has at most 3 nodes (maxSize): the new Pod never schedules and the rollout never finishes: "
        "allow maxUnavailable: 1, or raise maxSize to at least 4"]
    assert findings(cluster(4), deployment(3, rolling(1, 0), affinity=ANTI)) == []  # a fourth node
    assert findings(cluster(3), deployment(3, rolling(1, 1), affinity=ANTI)) == []  # an old Pod goes first
    assert findings(cluster(3), deployment(3, {"type": "Recreate"}, affinity=ANTI)) == []


@pytest.mark.parametrize(("replicas", "strategy", "blocks"), [
    # the defaults, 25% and 25%: maxUnavailable rounds down (0 below four replicas), maxSurge up
    (3, None, True),
    (4, None, False),  # 25% of 4 = 1 may be unavailable
    (3, rolling("50%", "34%"), False),  # 34% of 3 = 1.02, rounded down to 1
    (3, rolling("50%", "33%"), True),  # 33% of 3 = 0.99, rounded down to 0
    (3, rolling(0, "0%"), False),  # both 0: the controller takes maxUnavailable 1
])
def test_percentages_round_as_the_deployment_controller_rounds_them(replicas, strategy, blocks):
    found = findings(cluster(replicas), deployment(replicas, strategy, affinity=ANTI))
    assert bool(found) == blocks, found


def test_pods_that_fill_the_pool_leave_no_room_for_one_more():
    # 3 x 15 GiB fit 3 nodes of 16 GiB - 100 MiB = 15.9 GiB allocatable (47.71 GiB); a fourth Pod does not
    (message,) = findings(cluster(3), deployment(3, rolling(1, 0), memory="15Gi"))
    assert message.endswith(
        "but ComputeCluster 'compute' pool 'general' at its maxSize of 3 nodes has 3 x 15.9 GiB = 47.71 GiB of "
        "memory allocatable and what is placed on it takes 45 GiB, leaving 2772 MiB, less than one more Pod's 15 "
        "GiB: the new Pod never schedules and the rollout never finishes: allow maxUnavailable: 1, or give the pool "
        "more room (maxSize, larger machines)")
    # two replicas leave a node's room for the third Pod; a pool already too small is pool-capacity's
    assert findings(cluster(3), deployment(2, rolling(1, 0), memory="15Gi")) == []
    assert findings(cluster(3), deployment(4, rolling(1, 0), memory="15Gi")) == []
    # every other workload of the pool takes its share: 2 x 15 GiB of 'api' and 15 GiB of 'batch'
    other = deployment(1, {"type": "Recreate"}, memory="15Gi", name="batch")
    assert len(findings(cluster(3), deployment(2, rolling(1, 0), memory="15Gi"), other)) == 1


def test_pods_that_fill_every_node_leave_no_room_though_the_pool_has_memory_left():
    """6 Pods of 6 GiB: a node (15.9 GiB allocatable) holds 2, 3 nodes hold 6; the pool has 47.71 - 36 = 11.71 GiB left
    in all, more than one Pod asks, but 3.9 GiB on each node: the new Pod fits none."""
    (message,) = findings(cluster(3), deployment(6, rolling(1, 0), memory="6Gi"))
    assert message.endswith(
        "but a node of ComputeCluster 'compute' pool 'general' (its profile) holds at most 2 of its Pods (15.9 GiB of "
        "memory left after its DaemonSets / 6 GiB per Pod) and the pool has at most 3 nodes (maxSize): 2 x 3 = 6 Pods, "
        "no room for one more: the new Pod never schedules and the rollout never finishes: allow maxUnavailable: 1, "
        "or give the pool more room (maxSize, larger machines)")
    assert findings(cluster(3), deployment(5, rolling(1, 0), memory="6Gi")) == []  # a node keeps room for the sixth
    assert findings(cluster(4), deployment(6, rolling(1, 0), memory="6Gi")) == []  # a fourth node


def test_the_new_pod_that_exactly_fills_the_room_left_still_schedules():
    """A node's allocatable is 16 GiB - 100 MiB = 16284 MiB: 3 + 1 Pods of 4071 MiB take exactly that, so the new Pod
    schedules (NodeResourcesFit admits a request equal to what is free); at 4072 MiB it does not."""
    assert findings(cluster(1), deployment(3, rolling(1, 0), memory="4071Mi")) == []
    (message,) = findings(cluster(1), deployment(3, rolling(1, 0), memory="4072Mi"))
    assert message.endswith("takes 11.93 GiB, leaving 4068 MiB, less than one more Pod's 4072 MiB: the new Pod never "
                            "schedules and the rollout never finishes: allow maxUnavailable: 1, or give the pool more "
                            "room (maxSize, larger machines)")
