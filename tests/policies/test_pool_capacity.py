"""pool-capacity: at its maxSize, each pool holds every Pod placed on it (necessary conditions only)."""

import pulumi_kubernetes as k8s
from builders import (
    AMD64,
    GIB,
    CapacityGroup,
    ComputeClusterArgs,
    MachineProfile,
    cluster,
    names,
    placed,
    run,
    workload,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

CAPACITY = "pool-capacity"
# 2 cores, 4 GiB: on an existing cluster, 2000m and 3996 MiB allocatable, 110 Pods
PROFILE = MachineProfile(cpu="2", memory_bytes=4 * GIB, ephemeral_storage_bytes=20 * GIB, architecture="x86_64")


def pool(max_size=2, **changes):
    return cluster(ComputeClusterArgs(id="compute", capacity_groups=[
        CapacityGroup(group_id="apps", min_size=0, max_size=max_size, profile=PROFILE, **changes)]))


def on_apps(kind, name, requests=None, replicas=None, **more):
    spec = dict(more.pop("spec", {}))
    if replicas is not None:
        spec["replicas"] = replicas
    return workload(kind, name, labels=placed(), node_selector=AMD64, requests=requests, spec=spec, **more)


def capacity(*parts, **kwargs):
    return run(*parts, **kwargs).of(CAPACITY)


def autoscaler(name, target, minimum, kind="Deployment", namespace=None):
    def declare():
        metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
        return k8s.autoscaling.v2.HorizontalPodAutoscaler(name, metadata=metadata, spec={
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": target},
            "minReplicas": minimum, "maxReplicas": 20})
    return declare


def test_the_sum_of_requests_against_max_size_nodes():
    """2 nodes x 2000m = 4000m; the DaemonSet takes 2 x 200m; api 3 x 900m + web 2 x 450m = 3600m: full."""
    parts = [pool(), on_apps("DaemonSet", "logs", {"cpu": "200m"}), on_apps("Deployment", "api", {"cpu": "900m"}, 3)]
    assert capacity(*parts, on_apps("Deployment", "web", {"cpu": "450m"}, 2)) == []
    (violation,) = capacity(*parts, on_apps("Deployment", "web", {"cpu": "451m"}, 2))
    assert names([violation]) == ["compute"]  # on the ComputeCluster
    assert violation.finding == (
        "ComputeCluster 'compute' pool 'apps': at its maxSize of 2 nodes (its profile) it has room for 2 x 2 cores = "
        "4 cores of CPU allocatable; its DaemonSets take 2 x 200m = 400m and its workloads request 3602m (largest: "
        "Deployment 'api' 3 x 900m, Deployment 'web' 2 x 451m), 4002m in all, more than it has: raise maxSize to at "
        "least 3, use larger machines or move workloads to another pool")


def test_the_largest_consumers_are_named_and_the_rest_counted():
    """One node of 3996 MiB: 2 x (100 + 200 + 300 + 400 + 500) MiB = 3000 MiB fits, 3 x ... = 4500 MiB does not."""
    def parts(replicas):
        return [pool(max_size=1), *(on_apps("Deployment", f"w{i}", {"memory": f"{i + 1}00Mi"}, replicas)
                                    for i in range(5))]

    assert capacity(*parts(2)) == []
    (violation,) = capacity(*parts(3))
    assert ("of memory allocatable (a node: 4 GiB capacity - 100 MiB eviction threshold = 3996 MiB allocatable); its "
            "workloads request 4500 MiB (largest: Deployment 'w4' 3 x 500 MiB, Deployment "
            "'w3' 3 x 400 MiB, Deployment 'w2' 3 x 300 MiB and 2 more), 4500 MiB in all, more than it has: raise "
            "maxSize to at least 2,") in violation.finding


def test_a_horizontal_pod_autoscaler_that_asks_for_more_replicas():
    parts = [pool(), on_apps("Deployment", "api", {"cpu": "1"}, 2)]
    assert capacity(*parts) == []
    (violation,) = capacity(*parts, autoscaler("api", "api", 5))
    assert "Deployment 'api' 5 (HorizontalPodAutoscaler 'api' minReplicas) x 1 core" in violation.finding
    assert capacity(*parts, autoscaler("api", "api", 1)) == []  # asks for fewer: spec.replicas stands
    assert capacity(*parts, autoscaler("web", "web", 5)) == []  # another target
    assert capacity(*parts, autoscaler("api", "api", 5, kind="StatefulSet")) == []  # another kind
    assert capacity(*parts, autoscaler("api", "api", 5, namespace="other")) == []  # another namespace


def test_pods_that_repel_each_other_need_a_node_each():
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "db"}}}]}}}
    db = on_apps("StatefulSet", "db", {"cpu": "100m"}, 4, pod=anti)
    assert capacity(pool(max_size=4), db) == []
    (violation,) = capacity(pool(max_size=3), db)
    assert violation.finding == (
        "ComputeCluster 'compute' pool 'apps': StatefulSet 'db' runs 4 Pods that may not share a node (required pod "
        "anti-affinity on kubernetes.io/hostname), but the pool has at most 3 nodes (maxSize); 1 of them can never be "
        "scheduled: raise maxSize to at least 4, or run fewer replicas")


def test_a_jobs_parallelism_and_identical_pods_per_node():
    """A node of 3996 MiB holds 3 Pods of 1 GiB: 6 fit 2 nodes, 7 do not, though 7 GiB < 2 x 3996 MiB."""
    def job(parallelism):
        return on_apps("Job", "batch", {"memory": "1Gi"}, spec={"parallelism": parallelism})

    assert capacity(pool(max_size=2), job(6)) == []
    (violation,) = capacity(pool(max_size=2), job(7))
    assert violation.finding == (
        "ComputeCluster 'compute' pool 'apps': Job 'batch' runs 7 Pods and a node (its profile) holds at most 3 of "
        "them (3996 MiB of memory left on a node after its DaemonSets / 1 GiB per Pod), so they need 3 nodes, more "
        "than its maxSize of 2: raise maxSize to at least 3, use larger machines or run fewer replicas")
    assert capacity(pool(max_size=1), on_apps("Pod", "one", {"memory": "3Gi"})) == []


def test_pod_slots_against_max_size_times_max_pods():
    config = {CAPACITY: {"allocatable": {"kubernetes": {"maxPods": 3}}}}
    parts = [pool(max_size=2), on_apps("DaemonSet", "logs")]
    assert capacity(*parts, on_apps("Deployment", "api", replicas=4), policy_config=config) == []
    (violation,) = capacity(*parts, on_apps("Deployment", "api", replicas=5), policy_config=config)
    assert ("it has room for 2 x 3 = 6 Pods; its DaemonSets take 2 x 1 = 2 and its workloads run 5 (largest: "
            "Deployment 'api' 5), 7 in all") in violation.finding


def test_a_pool_of_max_size_zero_holds_nothing():
    (violation,) = capacity(pool(max_size=0), on_apps("Deployment", "api"))
    assert "at its maxSize of 0 nodes" in violation.finding
    assert capacity(pool(max_size=0), on_apps("Deployment", "api", replicas=0)) == []


def test_a_pod_that_fits_no_node_is_left_to_workload_fits_pool():
    result = run(pool(max_size=1), on_apps("Deployment", "huge", {"cpu": "3"}, 5))
    assert result.of(CAPACITY) == [] and names(result.of("workload-fits-pool")) == ["huge"]


def test_unknown_replicas_give_a_note_and_the_rest_is_still_counted():
    from builders import CLUSTER_TYPE, valid_cluster_props

    from compute_guard.testkit import Analyzer, Resource
    from compute_guard.testkit.analyzer import stack_environment

    def deployment(name, replicas, cpu):
        return Resource.of("kubernetes:apps/v1:Deployment", name, {
            "metadata": {"name": name, "labels": placed()}, "spec": {"replicas": replicas, "template": {"spec": {
                "nodeSelector": {"kubernetes.io/arch": "amd64"},
                "containers": [{"name": name, "image": "x", "resources": {"requests": {"cpu": cpu}}}]}}}})

    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        result = Analyzer().run([Resource.of(CLUSTER_TYPE, "compute", valid_cluster_props()),
                                 deployment("late", UNKNOWN_STRING_VALUE, "1"), deployment("api", 7, "1")])
    # seed K's pool: 3 x 2 cores; api alone needs 7 cores
    assert names(result.of(CAPACITY)) == ["compute"] and [n.policy for n in result.notes] == [CAPACITY]
