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
    assert violation.finding.startswith("ComputeCluster 'compute' pool 'apps': at its maxSize of 1 node (its profile)")
    assert ("of memory allocatable (a node: 4 GiB capacity - 100 MiB eviction threshold = 3996 MiB allocatable); its "
            "workloads request 4500 MiB (largest: Deployment 'w4' 3 x 500 MiB, Deployment "
            "'w3' 3 x 400 MiB, Deployment 'w2' 3 x 300 MiB and 2 more), 4500 MiB in all, more than it has: raise "
            "maxSize to at least 2,") in violation.finding


def test_a_secret_min_replicas_reads_secret_in_every_number_derived_from_it():
    """Issue 29: a HorizontalPodAutoscaler's minReplicas: Output.secret(7) printed '7 (HorizontalPodAutoscaler 'api'
    minReplicas)' and '7 cores' (int() dropped the mark); it still decides, and reads [secret]."""
    import pulumi

    parts = [pool(), on_apps("Deployment", "api", {"cpu": "1"}, 2)]
    (violation,) = capacity(*parts, autoscaler("api", "api", pulumi.Output.secret(7)))
    assert "Deployment 'api' [secret] (HorizontalPodAutoscaler 'api' minReplicas) x [secret]" in violation.finding
    assert "7" not in violation.finding.replace("ComputeCluster", "")
    assert capacity(*parts, autoscaler("api", "api", pulumi.Output.secret(1))) == []  # the verdict is the plain one's


def test_a_secret_autoscaler_target_hides_the_count_it_decides_and_the_autoscaler():
    """SPEC section 4 (the secret sweep's find): an HPA whose scaleTargetRef.kind is secret raises a workload to its
    minReplicas; which workload it scales is then secret, so the count it decides reads [secret] and the HPA is not
    named. The verdict is the plain one's."""
    import pulumi

    parts = [pool(), on_apps("Deployment", "api", {"cpu": "1"}, 2)]
    (violation,) = capacity(*parts, autoscaler("api", "api", 7, kind=pulumi.Output.secret("Deployment")))
    assert "Deployment 'api' [secret] x [secret]" in violation.finding, violation.finding
    assert "HorizontalPodAutoscaler" not in violation.finding and "7" not in violation.finding
    assert capacity(*parts, autoscaler("api", "api", 1, kind=pulumi.Output.secret("Deployment"))) == []


def test_a_horizontal_pod_autoscaler_that_asks_for_more_replicas():
    parts = [pool(), on_apps("Deployment", "api", {"cpu": "1"}, 2)]
    assert capacity(*parts) == []
    (violation,) = capacity(*parts, autoscaler("api", "api", 5))
    assert "Deployment 'api' 5 (HorizontalPodAutoscaler 'api' minReplicas) x 1 core" in violation.finding
    assert capacity(*parts, autoscaler("api", "api", 1)) == []  # asks for fewer: spec.replicas stands
    assert capacity(*parts, autoscaler("web", "web", 5)) == []  # another target
    assert capacity(*parts, autoscaler("api", "api", 5, kind="StatefulSet")) == []  # another kind
    assert capacity(*parts, autoscaler("api", "api", 5, namespace="other")) == []  # another namespace


def test_an_hpa_that_may_scale_the_workload_is_said_and_the_count_stays_a_lower_bound():
    """A first preview: an HPA whose target's name is an output not known yet may keep 5 Pods of 'api' (one of 1 core
    counted): said, with the count it is counted at, where it was dropped silently (a pool of one 2-core node passed).
    What the certain count already overflows is refused as before, the note beside it."""
    def later_name():
        return k8s.core.v1.ConfigMap("source", data={"a": "b"}).immutable.apply(lambda _value: "api")

    def maybe(minimum):
        def declare():
            return autoscaler("api", later_name(), minimum)()
        return declare

    def judged(replicas, *more):
        result = run(pool(max_size=1), on_apps("Deployment", "api", {"cpu": "1"}, replicas), *more)
        return result.findings(CAPACITY), [note.finding for note in result.notes if note.policy == CAPACITY]

    refused, (note,) = judged(1, maybe(5))
    assert refused == [] and note.endswith(
        "HorizontalPodAutoscaler 'api' may keep 5 Pods of Deployment 'api', which is counted at 1 (its scaleTargetRef "
        "is not known yet), so the Pods beyond those are not counted"), note
    (over,), (beside,) = judged(3, maybe(5))
    assert "Deployment 'api' 3 x 1 core" in over and "counted at 3" in beside, (over, beside)
    assert judged(1, maybe(1)) == ([], [])  # asks no more than it runs
    # its own count not known yet: that is what is said, once
    def unknown_count():
        later = k8s.core.v1.ConfigMap("count", data={"a": "b"}).immutable.apply(lambda _value: 1)
        return on_apps("Deployment", "api", {"cpu": "1"}, later)()

    result = run(pool(max_size=1), unknown_count, maybe(5))
    said = [note.finding for note in result.notes if note.policy == CAPACITY]
    assert said and not any("HorizontalPodAutoscaler" in note for note in said), said
    assert judged(1) == ([], [])


def test_each_hpa_that_may_scale_a_workload_is_weighed_and_its_place_decides():
    """Of four HPAs whose targets are not known yet, one of another kind, one that keeps no more, one of another
    namespace: the fourth is said. A workload whose own namespace is not known yet is said so. On two clusters an HPA
    of the other cluster's provider scales nothing here, one of the same provider is said."""
    from builders import cluster_resource, kubernetes_provider, node_group

    def later(value):
        return k8s.core.v1.ConfigMap(f"source-{value}", data={"a": "b"}).immutable.apply(lambda _value: value)

    def four():
        autoscaler("a", later("a"), 5, kind="StatefulSet")()
        autoscaler("b", later("b"), 1)()
        autoscaler("c", later("c"), 5, namespace="other")()
        autoscaler("d", later("d"), 5)()

    result = run(pool(max_size=1), on_apps("Deployment", "api", {"cpu": "1"}, 1), four)
    (note,) = [note.finding for note in result.notes if note.policy == CAPACITY]
    assert "HorizontalPodAutoscaler 'd' may keep 5 Pods of Deployment 'api', which is counted at 1 (its " \
        "scaleTargetRef is not known yet)" in note, note

    def elsewhere():
        k8s.apps.v1.Deployment("api", metadata={"name": "api", "namespace": later("team"), "labels": placed()}, spec={
            "selector": {"matchLabels": {"app": "api"}}, "template": {"metadata": {"labels": {"app": "api"}}, "spec": {
                "nodeSelector": AMD64, "containers": [{"name": "api", "image": "api:1",
                                                       "resources": {"requests": {"cpu": "1"}}}]}}})
        autoscaler("api", "api", 5, namespace="team")()

    result = run(pool(max_size=1), elsewhere)
    assert any("(the workload's namespace is not known yet)" in note.finding for note in result.notes
               if note.policy == CAPACITY), result.notes

    clusters = [kubernetes_provider(name, cluster_resource("aws", name)) for name in ("east", "west")]
    groups = [node_group(f"apps-{name}", ["m7i.large"], cluster=name, declare_cluster=False, max_size=1)
              for name in ("east", "west")]

    def scaled(provider):
        def declare():
            import pulumi
            from builders import _PROVIDERS, _program_registry

            k8s.autoscaling.v2.HorizontalPodAutoscaler("api", metadata={"name": "api"}, spec={
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": later("api")},
                "minReplicas": 5, "maxReplicas": 9}, opts=pulumi.ResourceOptions(
                provider=_program_registry(_PROVIDERS)[provider]))
        return declare

    def notes(provider):
        result = run(*clusters, *groups, workload("Deployment", "api", requests={"cpu": "1"}, provider="east"),
                     scaled(provider), platform="aws")
        return [note.finding for note in result.notes if note.policy == CAPACITY]

    assert any("HorizontalPodAutoscaler 'api' may keep 5 Pods" in note for note in notes("east")), notes("east")
    assert not any("HorizontalPodAutoscaler" in note for note in notes("west")), notes("west")


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
    assert names([violation]) == ["compute"]
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


def test_no_max_size_to_suggest_beyond_ten_machines():
    """30 x 1 core on one 2-core node: 15 nodes would be needed, more than a pool may have."""
    (violation,) = capacity(pool(max_size=1), on_apps("Deployment", "api", {"cpu": "1"}, 30))
    assert violation.finding.endswith("30 cores in all, more than it has: use larger machines or move workloads to "
                                      "another pool")


def test_a_node_with_one_millicore_left_still_counts_as_room():
    """1001m nodes, a 1000m DaemonSet: 1m left per node, so five 1m Pods need 5 nodes."""
    tiny = MachineProfile(cpu="1001m", memory_bytes=4 * GIB, ephemeral_storage_bytes=0, architecture="x86_64")
    parts = [cluster(ComputeClusterArgs(id="compute", capacity_groups=[
        CapacityGroup(group_id="apps", min_size=0, max_size=1, profile=tiny)])),
        on_apps("DaemonSet", "logs", {"cpu": "1000m"}), on_apps("Deployment", "api", {"cpu": "1m"}, 5)]
    (violation,) = capacity(*parts)
    assert "(largest: Deployment 'api' 5 x 1m), 1005m in all, more than it has: raise maxSize to at least 5," in \
        violation.finding


def test_one_pod_slot_left_is_room_for_one_pod():
    """maxPods 3 with two DaemonSets: one slot per node; two replicas on one node do not fit."""
    config = {CAPACITY: {"allocatable": {"kubernetes": {"maxPods": 3}}}}
    parts = [pool(max_size=1), on_apps("DaemonSet", "logs"), on_apps("DaemonSet", "metrics")]
    assert capacity(*parts, on_apps("Deployment", "api", replicas=1), policy_config=config) == []
    (violation,) = capacity(*parts, on_apps("Deployment", "api", replicas=2), policy_config=config)
    assert "room for 1 x 3 = 3 Pods; its DaemonSets take 1 x 2 = 2 and its workloads run 2" in violation.finding


def secret_profile_cluster(field, max_size=1):
    import pulumi
    from builders import raw_cluster, valid_cluster_props

    props = valid_cluster_props()
    props["capacityGroups"][0]["maxSize"] = max_size
    props["capacityGroups"][0]["profile"][field] = pulumi.Output.secret(props["capacityGroups"][0]["profile"][field])
    return raw_cluster(props, register_outputs=True)


def test_numbers_derived_from_a_secret_read_secret():
    """Seed K's pool (2 cores, 4 GiB) with its memory secret: every memory amount of the pool's message."""
    (violation,) = capacity(secret_profile_cluster("memoryBytes"), on_apps("DaemonSet", "logs", {"memory": "1Gi"}),
                            on_apps("Deployment", "api", {"memory": "1Gi"}, 4))
    assert ("it has room for 1 x [secret] = [secret] of memory allocatable (a node: [secret] capacity - [secret] "
            "eviction threshold = [secret] allocatable); its DaemonSets take 1 x [secret] = [secret] and its workloads "
            "request [secret] (largest: Deployment 'api' 4 x [secret]), [secret] in all, more than it has: raise "
            "maxSize to at least [secret], use larger machines") in violation.finding
    # 3 x 1100m on two 2-core nodes: 3300m of 4000m, but one Pod per node
    (packed,) = capacity(secret_profile_cluster("cpu", max_size=2), on_apps("Deployment", "api", {"cpu": "1100m"}, 3))
    assert packed.finding.endswith(
        "a node (its profile) holds at most [secret] of them ([secret] of CPU left on a node after its DaemonSets / "
        "[secret] per Pod), so they need [secret], more than its maxSize of 2: raise maxSize to at least [secret], "
        "use larger machines or run fewer replicas")


def test_secret_replicas_read_secret():
    import pulumi

    def api():
        return workload("Deployment", "api", labels=placed(), node_selector=AMD64, requests={"cpu": "1"},
                        spec={"replicas": pulumi.Output.secret(9)})()

    (violation,) = capacity(pool(max_size=1), api)
    assert "(largest: Deployment 'api' [secret] x [secret])" in violation.finding


def test_secret_replicas_that_repel_each_other_read_secret():
    import pulumi

    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "db"}}}]}}}

    def db():
        return workload("StatefulSet", "db", labels=placed(), node_selector=AMD64, requests={"cpu": "100m"}, pod=anti,
                        spec={"replicas": pulumi.Output.secret(4)})()

    (violation,) = capacity(pool(max_size=3), db)
    assert violation.finding.endswith("runs [secret] Pods that may not share a node (required pod anti-affinity on "
                                      "kubernetes.io/hostname), but the pool has at most 3 nodes (maxSize); [secret] of "
                                      "them can never be scheduled: raise maxSize to at least [secret], or run fewer "
                                      "replicas")


def test_what_fits_no_node_after_the_daemonsets_is_left_out_of_the_totals():
    """1500m of DaemonSets on 2-core nodes leave 500m: 1-core Pods fit no node (workload-fits-pool says so), and
    3 of them must not be counted as if the DaemonSets left room."""
    result = run(pool(max_size=3), on_apps("DaemonSet", "logs", {"cpu": "1500m"}),
                 on_apps("Deployment", "api", {"cpu": "1"}, 3))
    assert result.of(CAPACITY) == [] and names(result.of("workload-fits-pool")) == ["api"]


# --- Karpenter NodePools (SPEC 14): spec.limits against the workloads only that NodePool can take ---------------

def _limited(*parts):
    from builders import node_class

    return run(node_class(), *parts, platform="aws").findings("pool-capacity")


def test_a_nodepools_cpu_limit_holds_the_pods_only_it_can_take():
    from builders import AMD64, arch_requirement, nodepool, workload

    capped = nodepool("capped", [arch_requirement("amd64")], limits={"cpu": "4"})

    def api(replicas):
        return workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "2"}, spec={"replicas": replicas})

    assert _limited(capped, api(2)) == []  # 2 x 2 cores = 4 cores: at the limit
    (message,) = _limited(capped, api(3))
    assert message == (
        "NodePool 'capped': its spec.limits.cpu allows 4 cores of CPU on all its nodes together, but the workloads only "
        "it can take request 6 cores (largest: Deployment 'api' 3 x 2 cores); Karpenter launches no node past its "
        "limits, so some of their Pods would stay Pending: raise spec.limits.cpu to at least 6 cores or let another "
        "pool take some of them")


def test_a_limit_is_judged_only_where_it_is_certain():
    """With a second NodePool that can take the same Pods, the capped one need not hold them: no finding."""
    from builders import AMD64, arch_requirement, nodepool, workload

    capped = nodepool("capped", [arch_requirement("amd64")], limits={"cpu": "4", "memory": "1Gi"})
    other = nodepool("other", [arch_requirement("amd64")])
    big = workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "2", "memory": "1Gi"},
                   spec={"replicas": 3})
    assert _limited(capped, other, big) == []
    cpu, memory = _limited(capped, big)
    assert "its spec.limits.cpu allows 4 cores of CPU on all its nodes together, but the workloads only it can take " \
           "request 6 cores" in cpu
    assert "its spec.limits.memory allows 1 GiB of memory on all its nodes together, but the workloads only it can " \
           "take request 3 GiB" in memory


def test_a_node_groups_max_size_holds_the_pods_only_it_can_take():
    """maxSize 2 of m7i.large (2 vCPUs: 2000m - 70m kube-reserved = 1930m each, 3860m in all): 4 Pods of 965m fit
    (two a node, 3860m), 4 of 966m (3864m) do not; and 3 Pods of 1286m, 3858m in all, still need a node each (a node
    holds floor(1930m / 1286m) = 1 of them), 3 nodes (SPEC 11's certain packing bound, on a platform pool as on a
    ComputeCluster pool)."""
    from builders import AMD64, node_group, workload

    group = node_group("general", ["m7i.large"], max_size=2)

    def api(cpu, replicas):
        return workload("Deployment", "api", node_selector=AMD64, requests={"cpu": cpu}, spec={"replicas": replicas})

    assert run(group, api("965m", 4), platform="aws").findings("pool-capacity") == []
    (message,) = run(group, api("966m", 4), platform="aws").findings("pool-capacity")
    assert message == (
        "NodeGroup 'general': at its maxSize of 2 nodes (machine m7i.large) it has room for 2 x 1930m = 3860m of CPU "
        "allocatable (a node: 2 cores capacity - 70m kube-reserved = 1930m allocatable); the workloads only it can "
        "take request 3864m (largest: Deployment 'api' 4 x 966m), 3864m in all, more than it has: raise "
        "scalingConfig.maxSize to at least 4, use larger machines or move workloads to another pool")
    # (a node holds floor(1930m / 966m) = 1 of them: 4 nodes, the packing the totals' hint left out before, issue 57)
    (packing,) = run(group, api("1286m", 3), platform="aws").findings("pool-capacity")
    assert packing == (
        "NodeGroup 'general': Deployment 'api' runs 3 Pods and a node (machine m7i.large) holds at most 1 of them "
        "(1930m of CPU left on a node after its DaemonSets / 1286m per Pod), so they need 3 nodes, more than its "
        "maxSize of 2: raise scalingConfig.maxSize to at least 3, use larger machines or run fewer replicas")


def test_the_node_that_holds_the_most_bounds_a_workloads_pods_not_each_resources_best_machine():
    """A node group of c5.2xlarge and r5.xlarge (EKS: 58 Pods each, so 11 x 58 + 255 = 893 MiB kube-reserved and
    100 MiB eviction). c5.2xlarge: 16384 - 993 = 15391 MiB and 8000m - 90m = 7910m, so floor(15391 / 8192) = 1 Pod of
    (2 cores, 8 GiB); r5.xlarge: 32768 - 993 = 31775 MiB and 4000m - 80m = 3920m, floor(3920 / 2000) = 1. No node
    holds two, so 3 replicas need 3 nodes, more than maxSize 2. (The bound was taken per resource from a different
    machine each, c5.2xlarge's CPU and r5.xlarge's memory, 'a node holds 3', and passed.)"""
    from builders import AMD64, node_group, workload

    group = node_group("mixed", ["c5.2xlarge", "r5.xlarge"], max_size=2)
    api = workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "2", "memory": "8Gi"},
                   spec={"replicas": 3})
    (packing,) = run(group, api, platform="aws").findings("pool-capacity")
    assert packing == (
        "NodeGroup 'mixed': Deployment 'api' runs 3 Pods and a node (its machine that holds the most of them, "
        "c5.2xlarge) holds at most 1 of them (15.03 GiB of memory left on a node after its DaemonSets / 8 GiB per "
        "Pod), so they need 3 nodes, more than its maxSize of 2: raise scalingConfig.maxSize to at least 3, use larger "
        "machines or run fewer replicas")
    two = workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "2", "memory": "8Gi"},
                   spec={"replicas": 2})
    assert run(group, two, platform="aws").findings("pool-capacity") == []


def test_gpus_claimed_through_dra_are_counted_at_max_size():
    """issue 78: each Pod's ResourceClaimTemplate gives it its own claim, so three Pods claiming one GPU each need three
    GPUs, and two g5.xlarge (one A10G each) at maxSize hold two."""
    from builders import dra_parts, exact_request

    (message,) = run(*dra_parts("g5.xlarge", [exact_request()], replicas=3, max_size=2),
                     platform="aws").findings("pool-capacity")
    assert message == (
        "NodeGroup 'gpu': at its maxSize of 2 nodes (machine g5.xlarge) it has room for 2 x 1 = 2 of DRA "
        "gpu.nvidia.com devices allocatable; the workloads only it can take request 3 (largest: Deployment 'train' "
        "3 x 1), 3 in all, more than it has: raise scalingConfig.maxSize to at least 3, use larger machines or move "
        "workloads to another pool")
    assert run(*dra_parts("g5.xlarge", [exact_request()], replicas=2, max_size=2),
               platform="aws").findings("pool-capacity") == []


def test_a_shared_claims_devices_are_counted_once_beside_the_pods_own():
    """A ResourceClaim Pods share is allocated once: on a group of one g5.xlarge (one A10G), a Deployment whose Pod
    claims a GPU of its own and another whose three Pods share one claim of a GPU ask two GPUs, never four; on two
    nodes they fit. A claim that a workload of no counted pool also names (a Job, whose Pods are not counted here) is
    not counted: it may be on another node. A secret count reads [secret]."""
    import pulumi
    import pulumi_kubernetes as k8s
    from builders import deployment, dra_parts, exact_request

    shared = {"resourceClaims": [{"name": "gpus", "resourceClaimName": "gpus"}]}
    own = {"resourceClaims": [{"name": "own", "resourceClaimTemplateName": "own"}]}

    def template() -> None:
        k8s.resource.v1.ResourceClaimTemplate("own", metadata={"name": "own", "namespace": "default"},
                                              spec={"spec": {"devices": {"requests": [exact_request()]}}})

    def program(max_size: int, count: object = 1, *more: object) -> list:
        parts = dra_parts("g5.xlarge", [exact_request(count=count)], shared=True, max_size=max_size)
        return [parts[0], parts[1], template, deployment("a", requests={"cpu": "100m"}, pod=own),
                deployment("b", spec={"replicas": 3}, requests={"cpu": "100m"}, pod=shared), *more]

    (message,) = run(*program(1), platform="aws").findings("pool-capacity")
    assert message == (
        "NodeGroup 'gpu': at its maxSize of 1 node (machine g5.xlarge) it has room for 1 x 1 = 1 of DRA gpu.nvidia.com "
        "devices allocatable; the workloads only it can take request 2 (largest: Deployment 'a' 1 x 1; and the shared "
        "ResourceClaim 'gpus' 1, once), 2 in all, more than it has: raise scalingConfig.maxSize to at least 2, use "
        "larger machines or move workloads to another pool")
    assert run(*program(2), platform="aws").findings("pool-capacity") == []

    def job() -> None:
        k8s.batch.v1.Job("batch", metadata={"name": "batch", "namespace": "default"}, spec={"template": {"spec": {
            "restartPolicy": "Never", "nodeSelector": {"elsewhere": "yes"}, "resourceClaims": shared["resourceClaims"],
            "containers": [{"name": "batch", "image": "batch:1", "resources": {"requests": {"cpu": "100m"}}}]}}})

    assert run(*program(1, 1, job), platform="aws").findings("pool-capacity") == []
    (hidden,) = run(*program(1, pulumi.Output.secret(1)), platform="aws").findings("pool-capacity")
    assert "request [secret] (largest: Deployment 'a' 1 x [secret]; and the shared ResourceClaim 'gpus' [secret], " \
        "once), [secret] in all" in hidden, hidden  # (a row with a secret in it reads [secret] throughout)
