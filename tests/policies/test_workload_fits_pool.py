"""workload-fits-pool: one Pod of every workload fits one empty node of its pool, after the DaemonSets."""

import os

import pulumi
import pytest
from builders import (
    AMD64,
    CLUSTER_TYPE,
    GIB,
    CapacityGroup,
    ComputeClusterArgs,
    MachineProfile,
    cluster,
    dra_parts,
    exact_request,
    names,
    placed,
    raw_cluster,
    role,
    run,
    valid_cluster_props,
    workload,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

MIB = 1 << 20
FITS = "workload-fits-pool"
# 2 cores, 4 GiB, 20 GiB; on an existing cluster a node loses only the 100 MiB eviction threshold
PROFILE = MachineProfile(cpu="2", memory_bytes=4 * GIB, ephemeral_storage_bytes=20 * GIB, architecture="x86_64")


def pools(*groups, dynamic=None):
    return cluster(ComputeClusterArgs(id="compute", capacity_groups=list(groups), dynamic_container_pool=dynamic))


def apps(**changes):
    sizes = {"group_id": "apps", "min_size": 1, "max_size": 10, "profile": PROFILE}
    sizes.update(changes)
    return CapacityGroup(**sizes)


def on_apps(kind, name, requests=None, **more):
    more.setdefault("labels", placed())
    return workload(kind, name, requests=requests, node_selector=AMD64, **more)


def fits(*parts, platform="kubernetes", **kwargs):
    return run(*parts, platform=platform, **kwargs).of(FITS)


def test_daemonsets_take_their_share_of_every_node_first():
    parts = [pools(apps()), on_apps("DaemonSet", "logs", {"cpu": "300m", "memory": "200Mi"}),
             on_apps("DaemonSet", "metrics", {"cpu": "200m"})]
    assert fits(*parts, on_apps("Deployment", "api", {"cpu": "1500m", "memory": f"{4096 - 100 - 200}Mi"})) == []
    (violation,) = fits(*parts, on_apps("Deployment", "api", {"cpu": "1501m"}))
    assert names([violation]) == ["api"]
    assert violation.finding == (
        "Deployment 'api': one Pod requests 1501m of CPU, more than a node of pool 'apps' of ComputeCluster 'compute' "
        "(its profile) can give it: 2 cores allocatable, - 500m for DaemonSets ('logs' 300m, 'metrics' 200m) = 1500m "
        "left; it can never be scheduled there: request at most 1500m, or place the workload on a pool of larger "
        "machines")


def test_daemonsets_that_overflow_a_node_are_reported_on_each_of_them():
    parts = [pools(apps()), on_apps("DaemonSet", "logs", {"memory": "3Gi"}), on_apps("DaemonSet", "trace", {"memory": "1Gi"})]
    violations = fits(*parts)
    assert names(violations) == ["logs", "trace"]
    assert violations[1].finding == (
        "DaemonSet 'trace': the DaemonSets of pool 'apps' of ComputeCluster 'compute' request 4 GiB of memory on every "
        "node together ('logs' 3 GiB, 'trace' 1 GiB), more than a node of it (its profile) has: 4 GiB capacity - "
        "100 MiB eviction threshold = 3996 MiB allocatable; they can never all run on one node: lower their requests "
        "or use larger machines")
    parts[1] = on_apps("DaemonSet", "logs", {"memory": f"{3996 - 1024}Mi"})
    assert fits(*parts) == []  # exactly full


def test_a_pod_that_fits_the_node_alone_is_not_blamed_for_overflowing_daemonsets():
    parts = [pools(apps()), on_apps("DaemonSet", "logs", {"memory": "3Gi"}), on_apps("DaemonSet", "trace", {"memory": "1Gi"}),
             on_apps("Deployment", "api", {"memory": "3Gi"})]
    assert names(fits(*parts)) == ["logs", "trace"]
    parts[-1] = on_apps("Deployment", "api", {"memory": "3997Mi"})
    assert names(fits(*parts)) == ["api", "logs", "trace"]


def test_pod_slots_on_eks_t4g_small():
    """t4g.small holds 11 Pods on EKS (3 ENIs x (4 - 1) + 2): ten DaemonSets leave one slot, eleven none."""
    pool = pools(CapacityGroup(group_id="apps", min_size=1, max_size=3, instance_type="t4g.small"))
    daemons = [workload("DaemonSet", f"d{i}", labels=placed()) for i in range(10)]
    assert fits(pool, *daemons, workload("Deployment", "api", labels=placed()), platform="aws") == []
    violations = fits(pool, *daemons, workload("DaemonSet", "d10", labels=placed()),
                      workload("Deployment", "api", labels=placed()), platform="aws")
    assert names(violations) == ["api"]
    # ten DaemonSets named, and how many more (issue 39: a pool's hundreds of DaemonSets were each listed in full)
    assert violations[0].finding.endswith(
        "'d8', 'd9' and 1 more) take every slot; its Pods can never be scheduled there: move DaemonSets to other pools "
        "or raise the node's maxPods")
    assert violations[0].finding.startswith(
        "Deployment 'api': a node of pool 'apps' of ComputeCluster 'compute' (machine t4g.small) holds at most 11 Pods "
        "(EKS's maximum for t4g.small) and its DaemonSets ('d0', 'd1',")
    twelve = [*daemons, workload("DaemonSet", "d10", labels=placed()), workload("DaemonSet", "d11", labels=placed())]
    assert len(fits(pool, *twelve, platform="aws")) == 12  # on each DaemonSet


def test_the_machine_suggested_holds_the_pod_beside_the_daemonsets():
    """The smallest machine named is one whose node holds one Pod after every node's DaemonSets: 3000 MiB alone fits
    t4g.medium (3554 MiB allocatable on EKS), 3000 + 1000 MiB of DaemonSets needs t4g.large (7452 MiB)."""
    pool = pools(CapacityGroup(group_id="apps", min_size=1, max_size=3, instance_type="t4g.small"))
    api = workload("Deployment", "api", labels=placed(), requests={"memory": "3000Mi"})
    (alone,) = fits(pool, api, platform="aws")
    assert alone.finding.endswith("(the smallest AWS machine of its family whose node holds one Pod: t4g.medium, "
                                  "2 vCPUs, 4 GiB)")
    logs = workload("DaemonSet", "logs", labels=placed(), requests={"memory": "1000Mi"})
    (beside,) = fits(pool, logs, api, platform="aws")
    assert beside.finding.endswith("(the smallest AWS machine of its family whose node holds one Pod: t4g.large, "
                                   "2 vCPUs, 8 GiB)")


def test_the_allocatable_setting_changes_the_node():
    parts = [pools(apps()), on_apps("Deployment", "api", {"memory": "3900Mi"})]
    assert fits(*parts) == []
    config = {FITS: {"allocatable": {"kubernetes": {"kubeReserved": {"memory": "500Mi"}}}}}
    (violation,) = fits(*parts, policy_config=config)
    assert "4 GiB capacity - 500 MiB kube-reserved (as configured) - 100 MiB eviction threshold = 3496 MiB" in \
        violation.finding
    per_pool = {FITS: {"allocatable": {"pools": {"compute/apps": {"evictionHard": {"memory": "0"}}}}}}
    assert fits(pools(apps()), on_apps("Deployment", "api", {"memory": "4Gi"}), policy_config=per_pool) == []


def test_init_containers_and_sidecars_count_as_kubernetes_counts_them():
    pod = {"initContainers": [{"name": "proxy", "image": "x", "restartPolicy": "Always",
                               "resources": {"requests": {"cpu": "600m"}}},
                              {"name": "migrate", "image": "x", "resources": {"requests": {"cpu": "1500m"}}}]}
    # app 1500m + sidecar 600m = 2100m; migrate 1500m + proxy 600m = 2100m: both over 2 cores
    (violation,) = fits(pools(apps()), on_apps("Deployment", "api", {"cpu": "1500m"}, pod=pod))
    assert "one Pod requests 2100m of CPU" in violation.finding
    pod["initContainers"][0]["resources"]["requests"]["cpu"] = "500m"
    assert fits(pools(apps()), on_apps("Deployment", "api", {"cpu": "1500m"}, pod=pod)) == []


def test_a_malformed_quantity_is_a_violation_naming_its_field():
    (violation,) = fits(pools(apps()), on_apps("Deployment", "api", {"cpu": "2 cores"}))
    assert violation.finding == (
        "Deployment 'api': spec.template.spec.containers[0].resources.requests['cpu'] '2 cores' is not a Kubernetes "
        "quantity such as 500m, 0.5, 128Mi or 1G; the API server refuses it, so fix the quantity")
    # on any workload, placed or not
    assert len(fits(workload("Deployment", "free", requests={"memory": "1GB"}))) == 1


def test_gpus_on_a_profile_pool_without_one():
    (violation,) = fits(pools(apps()), on_apps("Job", "train", {"nvidia.com/gpu": "1"}))
    assert names([violation]) == ["train"]
    assert violation.finding == (
        "Job 'train': its Pods request 1 nvidia.com/gpu, but the machines of pool 'apps' of ComputeCluster 'compute' "
        "(its profile) have no GPU; they can never be scheduled there: place the workload on a pool whose machines "
        "have NVIDIA GPUs")


def test_dynamic_workloads_on_the_dynamic_pool_workers_and_patches_on_none():
    small = apps(group_id="small", profile=MachineProfile(cpu="1", memory_bytes=GIB, ephemeral_storage_bytes=0,
                                                           architecture="x86_64"))
    stack = [pools(apps(), small, dynamic="small"),
             workload("Deployment", "jobs", labels=role("dynamic"), requests={"cpu": "1500m"}, node_selector=AMD64),
             workload("Deployment", "batch", labels=role("worker"), requests={"cpu": "64"}, node_selector=AMD64),
             on_apps("Deployment", "api", {"cpu": "1500m"})]
    assert names(fits(*stack)) == ["jobs"]
    assert "pool 'small' of ComputeCluster 'compute'" in fits(*stack)[0].finding


def test_pools_without_a_known_machine_are_not_checked():
    bare = CapacityGroup(group_id="apps", min_size=1, max_size=3)
    assert fits(pools(bare), on_apps("Deployment", "api", {"cpu": "500"})) == []
    on_k8s = CapacityGroup(group_id="apps", min_size=1, max_size=3, instance_type="t4g.small")
    assert fits(pools(on_k8s), on_apps("Deployment", "api", {"cpu": "500"})) == []  # no catalog on kubernetes
    assert fits(pools(on_k8s), on_apps("Deployment", "api", {"cpu": "500"}), platform="aws") != []


def test_without_a_platform_it_is_not_applicable():
    result = run(pools(apps()), on_apps("Deployment", "api", {"cpu": "3"}), platform=None)
    assert result.of(FITS) == []
    assert any(n.policy == FITS and "platform is not known" in n.reason for n in result.not_applicable)


def test_unknown_values_give_one_note_and_hide_nothing_else():
    from compute_guard.testkit import Analyzer, Resource
    from compute_guard.testkit.analyzer import stack_environment

    def api(requests):
        return Resource.of("kubernetes:apps/v1:Deployment", "api", {
            "metadata": {"name": "api"}, "spec": {"template": {"spec": {"nodeSelector": {"kubernetes.io/arch": "amd64"},
                                                                        "containers": [{"name": "api", "image": "x",
                                                                                        "resources": {"requests": requests}}]}}}})

    def evaluate(*resources):
        with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
            return Analyzer().run([Resource.of(CLUSTER_TYPE, "compute", valid_cluster_props()), *resources])

    too_much = evaluate(api({"cpu": UNKNOWN_STRING_VALUE, "memory": "5Gi"}))
    assert names(too_much.of(FITS)) == ["api"] and "5 GiB of memory" in too_much.of(FITS)[0].finding
    # the CPU could not be checked; pool-capacity leaves out a Pod that fits no node
    assert [n.policy for n in too_much.notes] == [FITS]
    fine = evaluate(api({"cpu": UNKNOWN_STRING_VALUE, "memory": "1Gi"}))
    # workload-rollout-fits: whether a second Pod fits beside the first depends on the CPU too
    assert fine.of(FITS) == [] and sorted(n.policy for n in fine.notes) == ["pool-capacity", FITS,
                                                                           "workload-rollout-fits"]
    props = valid_cluster_props()
    props["capacityGroups"][0]["profile"]["memoryBytes"] = UNKNOWN_STRING_VALUE
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        unknown_node = Analyzer().run([Resource.of(CLUSTER_TYPE, "compute", props), api({"cpu": "3", "memory": "5Gi"})])
    assert names(unknown_node.of(FITS)) == ["api"] and "3 cores of CPU" in unknown_node.of(FITS)[0].finding
    assert FITS in [n.policy for n in unknown_node.notes]


@pytest.mark.parametrize("field", ["memoryBytes", "cpu", "ephemeralStorageBytes"])
def test_a_secret_profile_reads_secret_in_every_number_derived_from_it(field):
    props = valid_cluster_props()
    value = props["capacityGroups"][0]["profile"][field]
    props["capacityGroups"][0]["profile"][field] = pulumi.Output.secret(value)
    request = {"memoryBytes": {"memory": "5Gi"}, "cpu": {"cpu": "3"}, "ephemeralStorageBytes":
               {"ephemeral-storage": "30Gi"}}[field]
    (violation,) = fits(raw_cluster(props, register_outputs=True), on_apps("Deployment", "api", request))
    assert "[secret]" in violation.finding
    for shown in ("4 GiB", "3996 MiB", "2 cores", "20 GiB"):
        assert shown not in violation.finding


def test_daemonsets_of_any_size_are_named_and_secret_requests_read_secret():
    def logs():
        return workload("DaemonSet", "logs", labels=placed(), node_selector=AMD64,
                        requests={"cpu": pulumi.Output.secret("1m"), "memory": "1"})()

    parts = [pools(apps()), logs, on_apps("DaemonSet", "trace", {"cpu": "1m", "memory": "1"}),
             on_apps("Deployment", "api", {"cpu": "1999m", "memory": "3996Mi"})]
    findings = sorted(v.finding for v in fits(*parts))
    # what is left is derived from the secret request too: 1998m would tell it (2000m - 1m - 'logs')
    assert (", - [secret] for DaemonSets ('logs' [secret], 'trace' 1m) = [secret] left; it can never be scheduled "
            "there: request at most [secret]," in findings[0]
            and "for DaemonSets ('logs' 1 bytes, 'trace' 1 bytes) = 4190109694 bytes left" not in findings[1])
    assert "DaemonSets ('logs' 1 bytes, 'trace' 1 bytes)" in findings[1]


def test_a_secret_malformed_quantity_is_named_without_its_value():
    def api():
        return workload("Deployment", "api", labels=placed(), node_selector=AMD64,
                        requests={"memory": pulumi.Output.secret("lots")})()

    (violation,) = fits(pools(apps()), api)
    assert violation.finding == (
        "Deployment 'api': spec.template.spec.containers[0].resources.requests['memory'] is not a Kubernetes "
        "quantity such as 500m, 0.5, 128Mi or 1G; the API server refuses it, so fix the quantity")


def test_daemonsets_beyond_the_pod_slots_are_told_so():
    config = {FITS: {"allocatable": {"kubernetes": {"maxPods": 2}}}}
    daemons = [on_apps("DaemonSet", name) for name in ("a", "b", "c")]
    violations = fits(pools(apps()), *daemons, policy_config=config)
    assert [v.finding for v in violations] == [
        f"DaemonSet '{name}': the 3 DaemonSets of pool 'apps' of ComputeCluster 'compute' ('a', 'b', 'c') need one Pod "
        "slot each on every node, but a node of it (its profile) holds at most 2 Pods (the allocatable setting); some "
        "of them can never run there: move DaemonSets to other pools or raise the node's maxPods"
        for name in ("a", "b", "c")]


def test_more_gpus_than_a_node_of_the_profile_has():
    from compute_guard.component import GpuSpec

    gpus = MachineProfile(cpu="8", memory_bytes=32 * GIB, ephemeral_storage_bytes=0, architecture="x86_64",
                          gpu=GpuSpec(type="nvidia-t4", count=1))
    parts = [pools(apps(profile=gpus))]
    assert fits(*parts, on_apps("Job", "one", {"nvidia.com/gpu": "1"})) == []
    (violation,) = fits(*parts, on_apps("Job", "two", {"nvidia.com/gpu": "2"}))
    assert "one Pod requests 2 of nvidia.com/gpu, more than a node of pool 'apps' of ComputeCluster 'compute' " \
           "(its profile) can give it: 1 allocatable;" in violation.finding


def test_daemonsets_with_secret_requests_overflow_in_secret():
    def logs():
        return workload("DaemonSet", "logs", labels=placed(), node_selector=AMD64,
                        requests={"memory": pulumi.Output.secret("5Gi")})()

    (violation,) = fits(pools(apps()), logs)
    assert "request [secret] of memory on every node together ('logs' [secret])" in violation.finding


def test_every_resource_is_checked_and_daemonsets_are_named_only_where_they_take_something():
    """A GPU on a pool without one, CPU that fits, memory that does not: both misfits, and the DaemonSet, which
    requests memory only, is not in the CPU message (or the GPU one)."""
    parts = [pools(apps()), on_apps("DaemonSet", "logs", {"memory": "100Mi"}),
             on_apps("Deployment", "api", {"cpu": "3", "memory": "4Gi", "nvidia.com/gpu": "1", "amd.com/gpu": "1"})]
    findings = [v.finding for v in fits(*parts)]
    with_cpu = [v.finding for v in fits(*parts, on_apps("DaemonSet", "proxy", {"cpu": "100m"}))]
    assert "- 100m for DaemonSets ('proxy' 100m) = 1900m left" in with_cpu[0]  # 'logs' takes no CPU: not named
    assert [f.split(": ", 1)[1][:40] for f in findings] == [
        "one Pod requests 3 cores of CPU, more th", "one Pod requests 4 GiB of memory, more t",
        "its Pods request 1 nvidia.com/gpu, but t", "its Pods request 1 amd.com/gpu, but the "]
    assert "DaemonSets" not in findings[0] and "- 100 MiB for DaemonSets ('logs' 100 MiB) = 3896 MiB left" in findings[1]


def test_a_node_the_daemonsets_fill_leaves_nothing_to_ask_for():
    parts = [pools(apps()), on_apps("DaemonSet", "logs", {"memory": "3996Mi"}), on_apps("Deployment", "api", {"memory": "1"})]
    (violation,) = fits(*parts)
    assert violation.finding.endswith("= 0 bytes left; it can never be scheduled there: place the workload on a pool "
                                      "of larger machines")


def test_a_profile_without_memory_holds_no_memory():
    empty = MachineProfile(cpu="2", memory_bytes=0, ephemeral_storage_bytes=0, architecture="x86_64")
    (violation,) = fits(pools(apps(profile=empty)), on_apps("Deployment", "api", {"memory": "1Mi"}))
    assert "one Pod requests 1 MiB of memory, more than a node of pool 'apps' of ComputeCluster 'compute' (its " \
           "profile) can give it: 0 bytes capacity - 100 MiB eviction threshold = 0 bytes allocatable" in violation.finding


def test_a_gpu_of_another_vendor_is_named_in_the_message():
    """In process (the engine scenario on g5.xlarge is a subprocess mutation testing cannot see): a pool whose
    machines carry NVIDIA GPUs names them when a Pod asks for AMD's."""
    from compute_guard.component import GpuSpec

    gpus = MachineProfile(cpu="8", memory_bytes=32 * GIB, ephemeral_storage_bytes=0, architecture="x86_64",
                          gpu=GpuSpec(type="nvidia-t4", count=1))
    (violation,) = fits(pools(apps(profile=gpus)), on_apps("Job", "amd", {"amd.com/gpu": "1"}))
    assert violation.finding == (
        "Job 'amd': its Pods request 1 amd.com/gpu, but the machines of pool 'apps' of ComputeCluster 'compute' "
        "(its profile) have GPUs 'nvidia-t4'; they can never be scheduled there: place the workload on a pool whose "
        "machines have AMD GPUs")


def test_a_gpu_not_known_yet_is_a_note_never_a_violation():
    """A profile.gpu unknown during preview: a GPU request may fit, so it is judged when known (a note now)."""
    import pulumi_kubernetes as k8s

    def unknown_gpu():
        # an output of a resource not created yet during preview: unknown, as the SDK sends it
        later = k8s.core.v1.ConfigMap("source", data={"a": "b"}).immutable.apply(lambda m: {"type": "nvidia-t4",
                                                                                           "count": 1})
        profile = MachineProfile(cpu="8", memory_bytes=32 * GIB, ephemeral_storage_bytes=0, architecture="x86_64",
                                 gpu=later)
        return pools(apps(profile=profile))()

    from compute_guard.testkit import evaluate

    result = evaluate(lambda: [unknown_gpu(), on_apps("Job", "train", {"nvidia.com/gpu": "1"})()],
                      stack_config={"compute:platform": "kubernetes"})
    assert result.of(FITS) == []
    assert FITS in {note.policy for note in result.notes}


def test_a_gpu_type_not_known_yet_is_a_note_never_a_violation():
    import pulumi_kubernetes as k8s

    from compute_guard.component import GpuSpec

    def unknown_type():
        later = k8s.core.v1.ConfigMap("source", data={"a": "b"}).immutable.apply(lambda m: "nvidia-t4")
        profile = MachineProfile(cpu="8", memory_bytes=32 * GIB, ephemeral_storage_bytes=0, architecture="x86_64",
                                 gpu=GpuSpec(type=later, count=1))
        return pools(apps(profile=profile))()

    from compute_guard.testkit import evaluate

    result = evaluate(lambda: [unknown_type(), on_apps("Job", "train", {"nvidia.com/gpu": "1"})()],
                      stack_config={"compute:platform": "kubernetes"})
    assert result.of(FITS) == []
    assert FITS in {note.policy for note in result.notes}


# --- Karpenter NodePools (SPEC 14): one Pod fits one node of some machine of a pool that takes it -------------

def _karpenter(*parts, kubelet=None):
    from builders import node_class

    return run(node_class(kubelet=kubelet), *parts, platform="aws").findings(FITS)


def test_a_nodepool_of_t4g_medium_holds_3554_mib_and_no_more():
    """EKS on t4g.medium: 4096 MiB - (11 x 17 Pods + 255) MiB kube-reserved - 100 MiB eviction = 3554 MiB
    (SPEC 11)."""
    from builders import ARM64, instance_types, nodepool

    pool = nodepool("small", [instance_types("t4g.medium")])
    assert _karpenter(pool, workload("Deployment", "api", node_selector=ARM64, requests={"memory": "3554Mi"})) == []
    (message,) = _karpenter(pool, workload("Deployment", "api", node_selector=ARM64, requests={"memory": "3555Mi"}))
    assert message == (
        "Deployment 'api': one Pod requests 3555 MiB of memory, more than any node of the pools that can take it: "
        "pool 'small' (NodePool) has at most 4 GiB capacity - 442 MiB kube-reserved - 100 MiB eviction threshold = "
        "3554 MiB allocatable of memory (t4g.medium); it can never be scheduled: lower its requests or allow larger "
        "instance types (the smallest AWS machine of its family whose node holds one Pod: t4g.large, 2 vCPUs, 8 GiB)")


def test_the_largest_machine_a_nodepool_allows_is_what_a_pod_may_use():
    """t4g.medium or t4g.large: 7452 MiB on t4g.large (8192 - (11 x 35 + 255) - 100, with EKS's 35 Pods: 3 ENIs x
    (12 addresses - 1) + 2, ../shared/third_party/eks-instance-info), so 7452 MiB fits and 7453 MiB fits neither."""
    from builders import ARM64, instance_types, nodepool

    pool = nodepool("small", [instance_types("t4g.medium", "t4g.large")])
    assert _karpenter(pool, workload("Deployment", "api", node_selector=ARM64, requests={"memory": "7452Mi"})) == []
    (message,) = _karpenter(pool, workload("Deployment", "api", node_selector=ARM64, requests={"memory": "7453Mi"}))
    assert "8 GiB capacity - 640 MiB kube-reserved - 100 MiB eviction threshold = 7452 MiB allocatable of memory " \
           "(t4g.large)" in message


def test_the_node_classs_kubelet_settings_decide_allocatable():
    """maxPods 110 on the EC2NodeClass: 4096 - (11 x 110 + 255) - 100 = 2531 MiB on t4g.medium."""
    from builders import ARM64, instance_types, nodepool

    pool = nodepool("small", [instance_types("t4g.medium")])
    fits = workload("Deployment", "api", node_selector=ARM64, requests={"memory": "2531Mi"})
    assert _karpenter(pool, fits, kubelet={"maxPods": 110}) == []
    (message,) = _karpenter(pool, workload("Deployment", "api", node_selector=ARM64, requests={"memory": "2532Mi"}),
                            kubelet={"maxPods": 110})
    assert "4 GiB capacity - 1465 MiB kube-reserved - 100 MiB eviction threshold = 2531 MiB allocatable" in message


def test_only_the_machines_the_pods_constraints_allow_count():
    """A NodePool of t4g.large (arm64) and m7i.large (x86_64, 8 GiB too): an amd64 Pod of 7600 MiB fits neither's
    nodes, and is judged on m7i.large alone."""
    from builders import AMD64, instance_types, nodepool

    pool = nodepool("mixed", [instance_types("t4g.large", "m7i.large")])
    (message,) = _karpenter(pool, workload("Deployment", "api", node_selector=AMD64, requests={"memory": "7600Mi"}))
    assert "(m7i.large)" in message and "t4g.large" not in message


def test_an_eks_node_group_of_m7i_large_holds_7518_mib_and_its_default_t3_medium_3554():
    """m7i.large: 8192 - (11 x 29 + 255) - 100 = 7518 MiB; no instanceTypes: EKS's default t3.medium, 4096 - (11 x 17
    + 255) - 100 = 3554 MiB (SPEC 11)."""
    from builders import AMD64, node_group

    def api(memory):
        return workload("Deployment", "api", node_selector=AMD64, requests={"memory": memory})

    large = node_group("general", ["m7i.large"])
    assert run(large, api("7518Mi"), platform="aws").findings(FITS) == []
    (message,) = run(large, api("7519Mi"), platform="aws").findings(FITS)
    assert "pool 'general' (NodeGroup) has at most 8 GiB capacity - 574 MiB kube-reserved - 100 MiB eviction " \
           "threshold = 7518 MiB allocatable of memory (m7i.large)" in message
    default = node_group("general")
    assert run(default, api("3554Mi"), platform="aws").findings(FITS) == []
    (message,) = run(default, api("3555Mi"), platform="aws").findings(FITS)
    assert "= 3554 MiB allocatable of memory (t3.medium)" in message


def test_a_gke_e2_medium_holds_2972_mib_and_an_aks_d4s_v5_12188_mib():
    """GKE e2-medium (its default machine): 4096 MiB - 25% of 4 GiB - 100 MiB = 2972 MiB; AKS Standard_D4s_v5: 16384
    MiB - min(20 MB x 250 Pods + 50 MB, 25% of 16 GiB) = 4096 MiB - 100 MiB = 12188 MiB (SPEC 11)."""
    from builders import AMD64, aks_node_pool, gke_node_pool

    def api(memory):
        return workload("Deployment", "api", node_selector=AMD64, requests={"memory": memory})

    gke = gke_node_pool("general")
    assert run(gke, api("2972Mi"), platform="gcp").findings(FITS) == []
    (message,) = run(gke, api("2973Mi"), platform="gcp").findings(FITS)
    assert "pool 'general' (GKE NodePool) has at most 4 GiB capacity - 1 GiB kube-reserved - 100 MiB eviction " \
           "threshold = 2972 MiB allocatable of memory (e2-medium)" in message
    for native in (False, True):
        aks = aks_node_pool("apps", "Standard_D4s_v5", native=native)
        assert run(aks, api("12188Mi"), platform="azure").findings(FITS) == []
        (message,) = run(aks, api("12189Mi"), platform="azure").findings(FITS)
        assert "16 GiB capacity - 4 GiB kube-reserved - 100 MiB eviction threshold = 11.9 GiB allocatable of " \
               "memory (Standard_D4s_v5)" in message


def test_a_gke_gpu_pool_as_googles_docs_write_it_holds_its_attached_gpus():
    """GKE's "Create a node pool with GPUs": n1-standard-4 with one nvidia-tesla-t4 in nodeConfig.guestAccelerators.
    An N1 machine has no GPU of its own, so the pack refused every Pod that requests nvidia.com/gpu ("at most 0"):
    its node advertises one. Two are more than it has; with GPU time-sharing a node advertises more than its cards,
    so nothing is refused."""
    import pulumi_gcp as gcp
    from builders import deployment, gke_node_pool

    def gpu_pool(**accelerator: object) -> object:
        return gke_node_pool("gpu", "n1-standard-4", accelerator={"type": "nvidia-tesla-t4", "count": 1, **accelerator})

    one = {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}
    assert run(gpu_pool(), deployment("train", requests=one), platform="gcp").findings("workload-fits-pool") == []
    (message,) = run(gpu_pool(), deployment("train", requests={**one, "nvidia.com/gpu": "2"}),
                     platform="gcp").findings("workload-fits-pool")
    assert "pool 'gpu' (GKE NodePool) has at most 1 allocatable of nvidia.com/gpu (n1-standard-4)" in message, message
    shared = gcp.container.NodePoolNodeConfigGuestAcceleratorGpuSharingConfigArgs(
        gpu_sharing_strategy="TIME_SHARING", max_shared_clients_per_gpu=4)
    result = run(gpu_pool(gpu_sharing_config=shared), deployment("train", requests={**one, "nvidia.com/gpu": "2"}),
                 platform="gcp")
    assert result.findings("workload-fits-pool") == []


def test_an_eks_gpu_group_with_a_standard_ami_type_advertises_no_gpu():
    """A g5.xlarge has one NVIDIA A10G, but only EKS's accelerated AMI types install NVIDIA's driver and device plugin
    (ml-eks-optimized-ami.html): with AL2023_x86_64_STANDARD its nodes advertise no nvidia.com/gpu, and a Pod that
    requests one waits for ever; with AL2023_x86_64_NVIDIA it lands."""
    from builders import deployment, node_group

    gpu = {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}
    (message,) = run(node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_STANDARD"),
                     deployment("train", requests=gpu), platform="aws").findings("workload-fits-pool")
    assert message == (
        "Deployment 'train': one Pod requests 500m of CPU and 1 GiB of memory and 1 of nvidia.com/gpu, more than any "
        "node of the pools that can take it: pool 'gpu' (NodeGroup) runs g5.xlarge, whose GPUs its AMI type "
        "AL2023_x86_64_STANDARD does not advertise: it installs no NVIDIA driver, so its nodes have no nvidia.com/gpu; "
        "it can never be scheduled: use an accelerated AMI type (AL2023_x86_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA), "
        "or lower its requests")
    assert run(node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA"), deployment("train", requests=gpu),
               platform="aws").findings("workload-fits-pool") == []
    # no AMI type: EKS picks one for the instance type, so nothing is refused
    assert run(node_group("gpu", ["g5.xlarge"]), deployment("train", requests=gpu),
               platform="aws").findings("workload-fits-pool") == []


# --- Dynamic Resource Allocation (issue 78, SPEC 24) -----------------------------------------------------------------

def _dra(*parts: object) -> tuple[list[str], list[str]]:
    result = run(*parts, platform="aws")
    return result.findings(FITS), [n.finding.split(": ", 1)[1] if n.finding.startswith("can't") else n.finding
                                   for n in result.notes if n.policy == FITS]


def test_gpus_claimed_through_dra_are_counted_against_the_gpus_of_a_node():
    """NVIDIA's DRA driver publishes one gpu.nvidia.com device per GPU: two on a g5.xlarge (one A10G) never fit, one
    does, eight fit a p4d.24xlarge (eight A100s); with the driver's release in the stack nothing is left unsaid."""
    (message,) = _dra(*dra_parts("g5.xlarge", [exact_request(count=2)]))[0]
    assert message == (
        "Deployment 'train': one Pod requests 100m of CPU and 2 of DRA gpu.nvidia.com devices, more than any node of "
        "the pools that can take it: pool 'gpu' (NodeGroup) has at most 1 allocatable of DRA gpu.nvidia.com devices "
        "(g5.xlarge); it can never be scheduled: lower its requests or allow larger instance types (the smallest AWS "
        "machine of its family whose node holds one Pod: g5.12xlarge, 48 vCPUs, 192 GiB)")
    assert _dra(*dra_parts("g5.xlarge", [exact_request(count=1)])) == ([], [])
    assert _dra(*dra_parts("p4d.24xlarge", [exact_request(count=8)])) == ([], [])
    (nine,) = _dra(*dra_parts("p4d.24xlarge", [exact_request(count=9)]))[0]
    assert "has at most 8 allocatable of DRA gpu.nvidia.com devices (p4d.24xlarge)" in nine


def test_a_claim_on_a_machine_without_gpus_names_the_gpus_it_needs():
    (message,) = _dra(*dra_parts("m6i.large", [exact_request()]))[0]
    assert message == (
        "Deployment 'train': one Pod requests 100m of CPU and 1 of DRA gpu.nvidia.com devices, more than any node of "
        "the pools that can take it: pool 'gpu' (NodeGroup) has at most 0 allocatable of DRA gpu.nvidia.com devices "
        "(m6i.large); it can never be scheduled: lower its requests or allow instance types with NVIDIA GPUs (the "
        "smallest AWS machine whose node holds one Pod: g4dn.xlarge, 4 vCPUs, 16 GiB)")


def test_mig_devices_only_where_the_gpus_are_split():
    """An A10G is split into no MIG instance; an H100 into at most seven (NVIDIA's MIG user guide)."""
    (message,) = _dra(*dra_parts("g5.xlarge", [exact_request("mig.nvidia.com")]))[0]
    assert "has at most 0 allocatable of DRA mig.nvidia.com devices (g5.xlarge)" in message, message
    assert "allow instance types with NVIDIA GPUs that MIG splits (the smallest AWS machine whose node holds one Pod: " \
        "p5.4xlarge, 16 vCPUs, 170.67 GiB)" in message, message
    assert _dra(*dra_parts("p5.4xlarge", [exact_request("mig.nvidia.com", count=7)])) == ([], [])
    (more,) = _dra(*dra_parts("p5.4xlarge", [exact_request("mig.nvidia.com", count=8)]))[0]
    assert "has at most 7 allocatable of DRA mig.nvidia.com devices (p5.4xlarge)" in more, more


def test_every_version_of_the_claim_as_clusters_serve_it():
    """resource.k8s.io v1beta1 writes a request's class and count on the request itself; v1beta2 as v1 (exactly)."""
    flat = {"name": "gpu", "deviceClassName": "gpu.nvidia.com", "count": 2}
    assert len(_dra(*dra_parts("g5.xlarge", [flat], version="v1beta1"))[0]) == 1
    assert len(_dra(*dra_parts("g5.xlarge", [exact_request(count=2)], version="v1beta2"))[0]) == 1
    assert _dra(*dra_parts("g5.xlarge", [{**flat, "count": 1}], version="v1beta1")) == ([], [])


def test_all_devices_needs_at_least_one():
    """allocationMode All: every matching device of the node, and at least one (the structured allocator)."""
    assert len(_dra(*dra_parts("m6i.large", [exact_request(count=None, allocationMode="All")]))[0]) == 1
    assert _dra(*dra_parts("g5.xlarge", [exact_request(count=None, allocationMode="All")]))[0] == []


def test_two_requests_of_one_claim_take_distinct_devices():
    assert len(_dra(*dra_parts("g5.xlarge", [exact_request(), {**exact_request(), "name": "other"}]))[0]) == 1


def test_what_the_pack_cannot_count_or_check_is_said():
    """A firstAvailable list of two classes, a class the pack does not count, a class of the stack that selects
    otherwise than the driver's, and selectors are said, never refused; without the driver's release, whether it runs
    there is said."""
    first = {"name": "gpu", "firstAvailable": [{"name": "two", "deviceClassName": "gpu.nvidia.com", "count": 2},
                                               {"name": "one", "deviceClassName": "mig.nvidia.com", "count": 1}]}
    assert _dra(*dra_parts("m6i.large", [first])) == ([], [
        "Deployment 'train': the devices of its Pods' request 'gpu' of ResourceClaimTemplate 'gpus' (firstAvailable) "
        "are not counted (the pack counts what a claim asks exactly of DeviceClass gpu.nvidia.com and "
        "mig.nvidia.com)"])
    (other,) = _dra(*dra_parts("m6i.large", [exact_request("neuron.aws.com")]))[1]
    assert "request 'gpu' of ResourceClaimTemplate 'gpus' (DeviceClass 'neuron.aws.com')" in other
    elsewhere = {"selectors": [{"cel": {"expression": "device.driver == 'example.com'"}}]}
    assert _dra(*dra_parts("m6i.large", [exact_request()], device_class=elsewhere))[0] == []
    same = {"selectors": [{"cel": {"expression":
                                   'device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].type == "gpu"'}}]}
    assert len(_dra(*dra_parts("m6i.large", [exact_request()], device_class=same))[0]) == 1
    selected = exact_request(selectors=[{"cel": {"expression": "device.attributes['gpu.nvidia.com'].productName == 'x'"}}])
    assert _dra(*dra_parts("g5.xlarge", [selected])) == ([], [
        "Deployment 'train': its claims' devices fit a node of its pools by count; not checked: the CEL selectors of "
        "request 'gpu' of ResourceClaimTemplate 'gpus'"])
    assert _dra(*dra_parts("g5.xlarge", [exact_request()], driver=False)) == ([], [
        "Deployment 'train': its claims' devices fit a node of its pools by count; not checked: whether NVIDIA's DRA "
        "driver runs on its nodes (no release of its chart dra-driver-nvidia-gpu or nvidia-dra-driver-gpu is in the "
        "stack)"])
    # a refusal stands without the driver: a node without the GPUs publishes none, whichever driver runs there
    assert len(_dra(*dra_parts("g5.xlarge", [exact_request(count=2)], driver=False))[0]) == 1


def test_a_shared_claims_devices_are_on_the_node_of_every_pod_that_names_it():
    """A ResourceClaim shared by the Pods that name it is allocated once, on one node: its devices are there beside each
    Pod's own, so two GPUs shared never fit a g5.xlarge (one A10G), nor one shared beside one of the Pod's own; one
    shared fits, on one node for every replica (not once per replica: pool-capacity does not count it per Pod). A
    shared claim not in the Pods' namespace is said."""
    import pulumi_kubernetes as k8s
    from builders import deployment

    (message,) = _dra(*dra_parts("g5.xlarge", [exact_request(count=2)], shared=True))[0]
    assert message == (
        "Deployment 'train': one Pod's claims ask 2 of DRA gpu.nvidia.com devices of its node, the shared "
        "ResourceClaims its Pods name among them (a shared claim is allocated on the node of every Pod that names it, "
        "beside the Pod's own), more than any node of the pools that can take it: pool 'gpu' (NodeGroup) has at most 1 "
        "of DRA gpu.nvidia.com devices (g5.xlarge); it can never be scheduled: ask fewer devices, or allow machines "
        "with more GPUs")
    # on the Deployment, where the engine shows it
    assert [violation.urn.rsplit("::", 1)[-1] for violation in run(
        *dra_parts("g5.xlarge", [exact_request(count=2)], shared=True), platform="aws").of(FITS)] == ["train"]
    assert _dra(*dra_parts("g5.xlarge", [exact_request()], shared=True)) == ([], [])
    assert _dra(*dra_parts("g5.xlarge", [exact_request()], shared=True, replicas=4, max_size=1)) == ([], [])
    assert run(*dra_parts("g5.xlarge", [exact_request()], shared=True, replicas=4, max_size=1),
               platform="aws").findings("pool-capacity") == []
    # beside a claim of the Pod's own: two GPUs on its node
    parts = dra_parts("g5.xlarge", [exact_request()], shared=True)
    own = deployment("train", requests={"cpu": "100m"}, pod={"resourceClaims": [
        {"name": "gpus", "resourceClaimName": "gpus"}, {"name": "own", "resourceClaimTemplateName": "own"}]})

    def template() -> None:
        k8s.resource.v1.ResourceClaimTemplate("own", metadata={"name": "own", "namespace": "default"},
                                              spec={"spec": {"devices": {"requests": [exact_request()]}}})

    (beside,) = _dra(parts[0], parts[1], template, own)[0]
    assert "one Pod's claims ask 2 of DRA gpu.nvidia.com devices of its node" in beside, beside
    assert _dra(*dra_parts("g5.12xlarge", [exact_request()], shared=True)[:2], template, own) == ([], [])
    # a shared claim of another namespace is not the one its Pods name
    def elsewhere() -> None:
        k8s.resource.v1.ResourceClaim("gpus", metadata={"name": "gpus", "namespace": "ml"},
                                      spec={"devices": {"requests": [exact_request(count=2)]}})

    assert _dra(parts[0], elsewhere, parts[2]) == ([], [
        "Deployment 'train': the devices of its Pods' ResourceClaim 'gpus' (not in the stack) are not counted (the "
        "pack counts what a claim asks exactly of DeviceClass gpu.nvidia.com and mig.nvidia.com)"])


SHARED = {"resourceClaims": [{"name": "gpus", "resourceClaimName": "gpus"}]}


def _sharing(replicas: int, cpu: str, *more: object, pool: object = None) -> tuple[list[str], list[str]]:
    """A Deployment of ``replicas`` Pods of ``cpu`` each that share ResourceClaim 'gpus' (one GPU) on a group of
    g5.xlarge (one A10G, 4 vCPUs: 4000m - 80m kube-reserved = 3920m allocatable; 58 Pods, eks-instance-info)."""
    from builders import deployment

    parts = dra_parts("g5.xlarge", [exact_request()], shared=True, pool=pool)
    return _dra(parts[0], parts[1], deployment("train", spec={"replicas": replicas}, requests={"cpu": cpu},
                                               pod=SHARED), *more)


def test_the_pods_that_share_a_claim_run_together_on_its_node():
    """A shared ResourceClaim of a GPU is allocated on one node, and every Pod that names it runs there: all of them on
    one node beside its devices. Four Pods of 980m hold a g5.xlarge's 3920m; four of 981m (3924m) never do, and one of
    them stays Pending; 58 Pod slots hold 58 Pods, not 59."""
    assert _sharing(4, "980m") == ([], [])
    (message,) = _sharing(4, "981m")[0]
    assert message == (
        "Deployment 'train': its 4 Pods name the shared ResourceClaim 'gpus', allocated on one node for every Pod that "
        "names it, so they all run on that node: together they request 4 x 981m = 3924m of CPU, 1 of DRA "
        "gpu.nvidia.com devices (the shared claim's) and 4 Pod slots, more than any node of the pools that can take "
        "them: pool 'gpu' (NodeGroup) has at most 4 cores capacity - 80m kube-reserved = 3920m allocatable of CPU "
        "(g5.xlarge); the Pods beyond what one node holds are never scheduled: give each Pod its own claim (a "
        "ResourceClaimTemplate), run fewer replicas, or allow larger machines")
    assert _sharing(58, "1m") == ([], [])
    (slots,) = _sharing(59, "1m")[0]
    assert "together they request 59 x 1m = 59m of CPU, 1 of DRA gpu.nvidia.com devices (the shared claim's) and 59 " \
        "Pod slots, more than any node of the pools that can take them: pool 'gpu' (NodeGroup) has at most 58 " \
        "allocatable of Pod slots (g5.xlarge)" in slots, slots
    # memory alone, after a resource the Pods do not request: g5.xlarge's 16 GiB - 1,024 MiB - 100 MiB reserved
    from builders import deployment

    parts = dra_parts("g5.xlarge", [exact_request()], shared=True)

    def memory(each: str) -> tuple[list[str], list[str]]:
        return _dra(parts[0], parts[1], deployment("train", spec={"replicas": 4}, requests={"memory": each},
                                                   pod=SHARED))

    assert memory("3000Mi") == ([], [])
    (most,) = memory("4Gi")[0]
    assert "together they request 4 x 4 GiB = 16 GiB of memory, 1 of DRA gpu.nvidia.com devices" in most, most
    # a secret request reads [secret] in the arithmetic, and the verdict stands
    (hidden,) = _dra(parts[0], parts[1], deployment("train", spec={"replicas": 4},
                                                    requests={"cpu": pulumi.Output.secret("981m")}, pod=SHARED))[0]
    assert "together they request 4 x [secret] = [secret] of CPU" in hidden and "981" not in hidden, hidden
    # a larger machine of the group holds them all: clean
    from builders import node_group

    assert _sharing(4, "981m", pool=node_group("gpu", ["g5.xlarge", "g5.2xlarge"], ami_type="AL2023_x86_64_NVIDIA")) \
        == ([], [])
    # the group's DaemonSets take their share of the node first
    import pulumi_kubernetes as k8s

    def agent() -> None:
        k8s.apps.v1.DaemonSet("agent", metadata={"name": "agent", "namespace": "default"}, spec={
            "selector": {"matchLabels": {"app": "agent"}}, "template": {
                "metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [
                    {"name": "agent", "image": "agent:1", "resources": {"requests": {"cpu": "20m"}}}]}}})

    assert _sharing(4, "975m", agent) == ([], [])  # 4 x 975m = 3900m = 3920m - 20m
    (after,) = _sharing(4, "976m", agent)[0]
    assert "4 x 976m = 3904m of CPU" in after and "3920m allocatable, - 20m for DaemonSets ('agent' 20m) of CPU" \
        in after, after
    assert _sharing(4, "976m") == ([], [])


def test_workloads_that_share_claims_are_judged_together():
    """Two Deployments that name one shared claim run on its node together, and a third joins them through a second
    claim one of them names: each is refused with the same arithmetic, or none is."""
    import pulumi_kubernetes as k8s
    from builders import deployment

    parts = dra_parts("p4d.24xlarge", [exact_request()], shared=True)

    def second() -> None:
        k8s.resource.v1.ResourceClaim("more", metadata={"name": "more", "namespace": "default"},
                                      spec={"devices": {"requests": [exact_request()]}})

    both = {"resourceClaims": [*SHARED["resourceClaims"], {"name": "more", "resourceClaimName": "more"}]}
    more = {"resourceClaims": [{"name": "more", "resourceClaimName": "more"}]}

    def program(cpu: str) -> list:
        return [parts[0], parts[1], second,
                deployment("a", spec={"replicas": 2}, requests={"cpu": cpu}, pod=SHARED),
                deployment("b", spec={"replicas": 1}, requests={"cpu": cpu}, pod=both),
                deployment("c", spec={"replicas": 3}, requests={"cpu": cpu}, pod=more)]

    def three(cpu: str) -> tuple[list[str], list[str]]:
        return _dra(*program(cpu))

    # each on its own Deployment
    assert [violation.urn.rsplit("::", 1)[-1] for violation in run(*program("15949m"), platform="aws").of(FITS)] \
        == ["a", "b", "c"]

    # p4d.24xlarge: 96 vCPUs, 96000m - 310m kube-reserved = 95690m allocatable; six Pods
    assert three("15948m") == ([], [])  # 6 x 15948m = 95688m
    refused, notes = three("15949m")
    assert notes == [] and [message.split(": ", 1)[0] for message in refused] == [
        "Deployment 'a'", "Deployment 'b'", "Deployment 'c'"]
    assert len({message.split(": ", 1)[1] for message in refused}) == 1
    assert "the 6 Pods of Deployment 'a' (2) and Deployment 'b' (1) and Deployment 'c' (3) name the shared " \
        "ResourceClaims 'gpus', 'more', allocated on one node for every Pod that names them, so they all run on that " \
        "node: together they request 2 x 15.949 cores + 1 x 15.949 cores + 3 x 15.949 cores = 95.694 cores of CPU, 1 " \
        "(ResourceClaim 'gpus') + 1 (ResourceClaim 'more') = 2 of DRA gpu.nvidia.com devices and 6 Pod slots" \
        in refused[0], refused[0]


def test_pods_that_share_a_claim_are_judged_on_every_pool_that_may_take_them():
    """Two groups of g5.xlarge, one running a DaemonSet of 20m: four Pods of 976m (3904m) fit a node of the other, so
    nothing is refused; of 981m they fit neither, and both pools are named, each with what it lacks (CPU, and memory:
    16 GiB - (11 x 58 + 255) MiB kube-reserved - 100 MiB = 15.03 GiB, under 4 x 4 GiB); a group whose machine is not
    known yet may hold them: not refused; the allocatable setting is the policy's."""
    import pulumi_kubernetes as k8s
    from builders import deployment, node_group

    claim = dra_parts("g5.xlarge", [exact_request()], shared=True)[1]
    quiet = node_group("a", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA")
    busy = node_group("b", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", labels={"tier": "b"})

    def agent() -> None:
        k8s.apps.v1.DaemonSet("agent", metadata={"name": "agent", "namespace": "default"}, spec={
            "selector": {"matchLabels": {"app": "agent"}}, "template": {
                "metadata": {"labels": {"app": "agent"}}, "spec": {"nodeSelector": {"tier": "b"}, "containers": [
                    {"name": "agent", "image": "agent:1", "resources": {"requests": {"cpu": "20m"}}}]}}})

    def train(cpu: str, memory: str = "1Gi") -> object:
        return deployment("train", spec={"replicas": 4}, requests={"cpu": cpu, "memory": memory}, pod=SHARED)

    assert _dra(quiet, busy, agent, claim, train("976m")) == ([], [])
    (both,) = _dra(quiet, busy, agent, claim, train("981m", "4Gi"))[0]
    assert "more than any node of the pools that can take them: pool 'a' (NodeGroup) has at most 4 cores capacity - " \
        "80m kube-reserved = 3920m allocatable of CPU (g5.xlarge) and at most 16 GiB capacity - 893 MiB kube-reserved " \
        "- 100 MiB eviction threshold = 15.03 GiB allocatable of memory (g5.xlarge); pool 'b' (NodeGroup) has at " \
        "most 4 cores capacity - 80m kube-reserved = 3920m allocatable, - 20m for DaemonSets ('agent' 20m) of CPU " \
        "(g5.xlarge) and at most" in both, both
    unknown = node_group("c", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA")

    def not_known() -> None:
        import pulumi_aws as aws

        aws.eks.NodeGroup("c", cluster_name="fleet", node_group_name="c", node_role_arn="arn:aws:iam::1:role/n",
                          subnet_ids=["subnet-1"], instance_types=[pulumi.Output.from_input(UNKNOWN_STRING_VALUE)],
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))

    assert unknown  # (declares the cluster)
    assert _dra(quiet, not_known, claim, train("981m")) == ([], [
        "Deployment 'train': whether one Pod fits a node of the pools that may take it is not judged: whether pool 'c' "
        "(NodeGroup) takes its Pods is not known (string value at .instanceTypes.0 can't be known during preview)"])
    # the policy's allocatable setting: kube-reserved CPU of 50m leaves 3950m, which four of 981m fit
    config = {FITS: {"allocatable": {"aws": {"kubeReserved": {"cpu": "50m"}}}}}
    assert run(quiet, claim, train("981m"), platform="aws", policy_config=config).findings(FITS) == []


def test_the_shared_claims_of_two_classes_read_each_as_theirs():
    """Two claims the Pods share, one of a GPU, one of a MIG instance, on a p4d.24xlarge: each class's devices are the
    shared claims'."""
    import pulumi_kubernetes as k8s
    from builders import deployment

    parts = dra_parts("p4d.24xlarge", [exact_request()], shared=True)

    def mig() -> None:
        k8s.resource.v1.ResourceClaim("slice", metadata={"name": "slice", "namespace": "default"},
                                      spec={"devices": {"requests": [exact_request("mig.nvidia.com")]}})

    both = {"resourceClaims": [*SHARED["resourceClaims"], {"name": "slice", "resourceClaimName": "slice"}]}
    (message,) = _dra(parts[0], parts[1], mig, deployment("train", spec={"replicas": 6}, requests={"cpu": "15949m"},
                                                          pod=both))[0]
    assert "6 x 15.949 cores = 95.694 cores of CPU, 1 of DRA gpu.nvidia.com devices (the shared claims'), 1 of DRA " \
        "mig.nvidia.com devices (the shared claims') and 6 Pod slots" in message, message


def test_pods_that_run_to_completion_wait_for_each_other_and_are_not_refused_together():
    """A Job's Pods that share a claim and find no room beside each other wait until one completes: four of 981m on a
    g5.xlarge's 3920m run three at a time, and the Job completes. A Job beside a Deployment is not counted with it;
    the Deployment's own Pods are."""
    import pulumi_kubernetes as k8s
    from builders import deployment

    parts = dra_parts("g5.xlarge", [exact_request()], shared=True)

    def job(parallelism: int) -> object:
        def declare() -> None:
            k8s.batch.v1.Job("batch", metadata={"name": "batch", "namespace": "default"}, spec={
                "parallelism": parallelism, "completions": 8, "template": {"spec": {
                    "restartPolicy": "Never", "resourceClaims": SHARED["resourceClaims"], "containers": [{
                        "name": "batch", "image": "batch:1", "resources": {"requests": {"cpu": "981m"}}}]}}})
        return declare

    assert _dra(parts[0], parts[1], job(4)) == ([], [])
    assert _dra(parts[0], parts[1], job(300)) == ([], [])
    assert _dra(parts[0], parts[1], job(4), deployment("serve", spec={"replicas": 3}, requests={"cpu": "981m"},
                                                       pod=SHARED)) == ([], [])
    (alone,) = _dra(parts[0], parts[1], job(1), deployment("serve", spec={"replicas": 4}, requests={"cpu": "981m"},
                                                           pod=SHARED))[0]
    assert alone.startswith("Deployment 'serve': its 4 Pods name the shared ResourceClaim 'gpus'"), alone


def test_each_group_of_pods_that_share_a_claim_is_judged():
    """Two groups, each of its own claim: the first fits, the second does not, and is refused."""
    import pulumi_kubernetes as k8s
    from builders import deployment

    parts = dra_parts("g5.xlarge", [exact_request()], shared=True)

    def second() -> None:
        k8s.resource.v1.ResourceClaim("more", metadata={"name": "more", "namespace": "default"},
                                      spec={"devices": {"requests": [exact_request()]}})

    more = {"resourceClaims": [{"name": "more", "resourceClaimName": "more"}]}
    (message,) = _dra(parts[0], parts[1], second,
                      deployment("fits", spec={"replicas": 2}, requests={"cpu": "100m"}, pod=SHARED),
                      deployment("over", spec={"replicas": 4}, requests={"cpu": "981m"}, pod=more))[0]
    assert message.startswith("Deployment 'over': its 4 Pods name the shared ResourceClaim 'more'"), message
    # the first group's workload refused for its own Pod (100 cores): the second group is still judged
    refused = _dra(parts[0], parts[1], second,
                   deployment("huge", spec={"replicas": 2}, requests={"cpu": "100"}, pod=SHARED),
                   deployment("over", spec={"replicas": 4}, requests={"cpu": "981m"}, pod=more))[0]
    assert [text.split("'")[1] for text in refused] == ["huge", "over"], refused


def test_one_pod_needs_its_room_and_the_shared_devices_on_one_node():
    """A Pod whose CPU only the group's m6i.4xlarge holds and whose shared GPU only its g5.xlarge has fits neither
    node: refused, naming both halves; on a g5.4xlarge (16 vCPUs, one A10G) it fits."""
    from builders import node_group

    split = node_group("gpu", ["g5.xlarge", "m6i.4xlarge"], ami_type="AL2023_x86_64_NVIDIA")
    (message,) = _sharing(1, "8", pool=split)[0]
    assert message == (
        "Deployment 'train': its one Pod names the shared ResourceClaim 'gpus', so it runs on the node the claim's "
        "devices are allocated on, beside them: it requests 8 cores of CPU, 1 of DRA gpu.nvidia.com devices (the "
        "shared claim's) of that node, more than any node of the pools that can take it: pool 'gpu' (NodeGroup) has "
        "machines with enough of each, but none with all of them together; it can never be scheduled: lower its "
        "requests, or allow machines that have the devices and the room for it")
    whole = node_group("gpu", ["g5.4xlarge", "m6i.4xlarge"], ami_type="AL2023_x86_64_NVIDIA")
    assert _sharing(1, "8", pool=whole) == ([], [])


def test_pods_that_share_a_claim_on_a_cluster_with_pools_not_shown_are_said():
    """SPEC 14.2: the cluster may have pools the stack does not declare, whose nodes may hold them all: a note, for
    the Pods together and for one Pod's devices beside the shared ones."""
    from builders import node_group

    elsewhere = node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", declare_cluster=False)
    refused, (note,) = _sharing(4, "981m", pool=elsewhere)
    assert refused == [] and note.endswith("; but cluster 'fleet' may have pools this stack does not declare, so this "
                                           "is not judged"), note
    assert "together they request 4 x 981m = 3924m of CPU" in note
    # said once: the Pods together are not said again beside one Pod's devices
    refused, (beside,) = _dra(*dra_parts("g5.xlarge", [exact_request(count=2)], shared=True, pool=elsewhere,
                                         replicas=3))
    assert refused == [] and "one Pod's claims ask 2 of DRA gpu.nvidia.com devices of its node" in beside
    assert beside.endswith("so this is not judged"), beside


def test_a_shared_claim_is_reserved_for_at_most_256_pods():
    """ResourceClaimStatus.reservedFor holds at most 256 Pods: 257 Pods of one claim, in one workload or two, leave one
    never started, whatever the claim asks (here a class the pack does not count, so nothing else is judged)."""
    from builders import deployment

    parts = dra_parts("g5.xlarge", [exact_request("example.com")], shared=True)

    def program(*counts: int) -> list:
        return [parts[0], parts[1], *(deployment(f"w{index}", spec={"replicas": count}, requests={"cpu": "1m"},
                                                 pod=SHARED) for index, count in enumerate(counts))]

    def pods(*counts: int) -> tuple[list[str], list[str]]:
        return _dra(*program(*counts))

    assert [violation.urn.rsplit("::", 1)[-1] for violation in run(*program(200, 57), platform="aws").of(FITS)] \
        == ["w0", "w1"]

    assert pods(256)[0] == [] and pods(200, 56)[0] == []
    (message,) = pods(257)[0]
    assert message == (
        "Deployment 'w0': its 257 Pods name the shared ResourceClaim 'gpus', more than the 256 Pods a claim can be "
        "reserved for (ResourceClaimStatus.reservedFor, resource.k8s.io/v1), so the Pods beyond them are never "
        "started: give each Pod its own claim (a ResourceClaimTemplate), or split them across claims")
    two = pods(200, 57)[0]
    assert len(two) == 2 and "the 257 Pods of Deployment 'w0' (200) and Deployment 'w1' (57) name" in two[1], two

    # a workload refused for its own Pod runs none, so reserves nothing: the other's 257 are refused alone; and a
    # claim whose Pods are not known yet is not judged, the next claim is
    import pulumi_kubernetes as k8s

    def other_claim() -> None:
        k8s.resource.v1.ResourceClaim("more", metadata={"name": "more", "namespace": "default"},
                                      spec={"devices": {"requests": [exact_request("example.com")]}})

    huge = deployment("huge", spec={"replicas": 10}, requests={"cpu": "100"}, pod=SHARED)
    refused = _dra(parts[0], parts[1], huge, deployment("w0", spec={"replicas": 257}, requests={"cpu": "1m"},
                                                        pod=SHARED))[0]
    assert [message.split("'")[1] for message in refused] == ["huge", "w0"], refused
    assert "Deployment 'w0': its 257 Pods name the shared ResourceClaim 'gpus'" in refused[1], refused
    late = deployment("late", spec={"replicas": pulumi.Output.from_input(UNKNOWN_STRING_VALUE)},
                      requests={"cpu": "1m"}, pod=SHARED)
    more = {"resourceClaims": [{"name": "more", "resourceClaimName": "more"}]}
    (second,) = _dra(parts[0], parts[1], other_claim, late,
                     deployment("w1", spec={"replicas": 300}, requests={"cpu": "1m"}, pod=more))[0]
    assert second.startswith("Deployment 'w1': its 300 Pods name the shared ResourceClaim 'more'"), second

    # a claim within its 256 stops no later claim's check; a secret count reads [secret]
    (after,) = _dra(parts[0], parts[1], other_claim, deployment("one", requests={"cpu": "1m"}, pod=SHARED),
                    deployment("w1", spec={"replicas": 300}, requests={"cpu": "1m"}, pod=more))[0]
    assert after.startswith("Deployment 'w1': its 300 Pods name the shared ResourceClaim 'more'"), after
    (hidden,) = _dra(parts[0], parts[1], deployment("w0", spec={"replicas": pulumi.Output.secret(300)},
                                                    requests={"cpu": "1m"}, pod=SHARED))[0]
    assert hidden.startswith("Deployment 'w0': its [secret] Pods name the shared ResourceClaim 'gpus'") and \
        "300" not in hidden, hidden
    # refused once: a claim of a GPU past its 256 Pods is not judged again for the Pods together
    gpu = dra_parts("g5.xlarge", [exact_request()], shared=True)
    (once,) = _dra(gpu[0], gpu[1], deployment("w0", spec={"replicas": 300}, requests={"cpu": "1m"}, pod=SHARED))[0]
    assert "more than the 256 Pods a claim can be reserved for" in once, once

    # a Patch of a Deployment changes its Pods, it runs none of its own: 200 Pods, not 400
    def patch() -> None:
        import pulumi_kubernetes as k8s

        k8s.apps.v1.DeploymentPatch("w0-patch", metadata={"name": "w0", "namespace": "default"}, spec={
            "replicas": 200, "template": {"spec": {"resourceClaims": SHARED["resourceClaims"]}}})

    assert _dra(parts[0], parts[1], patch, deployment("w0", spec={"replicas": 200}, requests={"cpu": "1m"},
                                                      pod=SHARED))[0] == []


def test_a_secret_replica_count_of_pods_that_share_a_claim_reads_secret():
    """SPEC 4: the count, and what is derived from it, read [secret]; the verdict stands."""
    import pulumi
    from builders import deployment

    parts = dra_parts("g5.xlarge", [exact_request()], shared=True)
    (message,) = _dra(parts[0], parts[1], deployment("train", spec={"replicas": pulumi.Output.secret(4)},
                                                     requests={"cpu": "981m"}, pod=SHARED))[0]
    assert "its [secret] Pods name" in message and "[secret] x 981m = [secret] of CPU" in message and \
        "[secret] Pod slots" in message and "3924" not in message, message


def test_a_secret_device_count_reads_secret_in_every_message_derived_from_it():
    """SPEC 4: a claim's count that comes from a secret is [secret] wherever a message would show it or what follows
    from it (the devices one Pod asks, the shared ones beside them, the total past a claim's 32, the machine that
    would hold them): a secret count of two and one of three give the very same messages, and the same verdicts as in
    plain text."""
    from builders import deployment

    def messages(count: object, **more: object) -> tuple[list[str], list[str]]:
        return _dra(*dra_parts("g5.xlarge", [exact_request(count=count)], **more))

    for more in ({}, {"shared": True}):
        two, three = messages(pulumi.Output.secret(2), **more), messages(pulumi.Output.secret(3), **more)
        assert two == three and len(two[0]) == 1 and "[secret] of DRA gpu.nvidia.com devices" in two[0][0], two
        assert len(messages(2, **more)[0]) == 1 and messages(pulumi.Output.secret(1), **more) == ([], [])
    over = messages(pulumi.Output.secret(40))
    assert messages(pulumi.Output.secret(41)) == over and any("asks [secret] devices in all" in message
                                                               for message in over[0]), over
    parts = dra_parts("g5.xlarge", [exact_request(count=pulumi.Output.secret(1))], shared=True)
    (together,) = _dra(parts[0], parts[1], deployment("train", spec={"replicas": 4}, requests={"cpu": "981m"},
                                                      pod=SHARED))[0]
    assert "3924m of CPU, [secret] of DRA gpu.nvidia.com devices (the shared claim's)" in together, together


def test_a_claim_named_twice_by_one_pod_is_allocated_once():
    """Two entries of a Pod's resourceClaims that name one ResourceClaim: one claim, its device counted once."""
    from builders import deployment

    twice = {"resourceClaims": [{"name": "a", "resourceClaimName": "gpus"}, {"name": "b", "resourceClaimName": "gpus"}]}
    parts = dra_parts("g5.xlarge", [exact_request()], shared=True)
    assert _dra(parts[0], parts[1], deployment("train", requests={"cpu": "100m"}, pod=twice)) == ([], [])


def _shared_daemonset(*pools: object, pod: object = None) -> tuple[list[str], list[str]]:
    """A DaemonSet whose Pods name the shared ResourceClaim 'gpus' (one GPU), on ``pools`` of g5.xlarge."""
    from builders import workload

    parts = dra_parts("g5.xlarge", [exact_request()], shared=True, pool=pools[0])
    return _dra(*pools, parts[1], workload("DaemonSet", "agent", requests={"cpu": "10m"}, pod=pod or SHARED))


def test_a_daemonset_that_names_a_shared_claim_runs_on_one_node_only():
    """A shared claim of a GPU is allocated on one node, and each Pod of a DaemonSet is bound to its own node: on a
    group of at least two nodes the Pods on every node but one are never scheduled (refused, with the nodes counted);
    where a second node may start (a maximum above one, a size not known) it is said; one node at most, or a claim per
    Pod (a template), is clean."""
    from builders import node_group

    def group(name: str = "gpu", least: int = 1, most: int = 3, machine: str = "g5.xlarge") -> object:
        return node_group(name, [machine], ami_type="AL2023_x86_64_NVIDIA", min_size=least, max_size=most)

    (message,) = _shared_daemonset(group(least=2))[0]
    assert message == (
        "DaemonSet 'agent': its Pods run one on every node of the pools it runs on (pool 'gpu' (NodeGroup) at least 2 "
        "= 2 nodes), and each names the shared ResourceClaim 'gpus', allocated on one node: the Pods on every other "
        "node are never scheduled: give each Pod its own claim (a ResourceClaimTemplate), or run one Pod (a Deployment "
        "of one replica)")
    # on the DaemonSet, where the engine shows it
    assert [violation.urn.rsplit("::", 1)[-1] for violation in run(
        group(least=2), dra_parts("g5.xlarge", [exact_request()], shared=True)[1],
        __import__("builders").workload("DaemonSet", "agent", requests={"cpu": "10m"}, pod=SHARED),
        platform="aws").of(FITS)] == ["agent"]
    (two,) = _shared_daemonset(group("a"), group("b"))[0]
    assert "(pool 'a' (NodeGroup) at least 1 + pool 'b' (NodeGroup) at least 1 = 2 nodes)" in two, two
    assert _shared_daemonset(group(least=1, most=1)) == ([], [])
    assert _shared_daemonset(group(least=0, most=1)) == ([], [])
    refused, (note,) = _shared_daemonset(group(least=1, most=2))
    assert refused == [] and note == (
        "DaemonSet 'agent': its Pods run one on every node of the pools it runs on (pool 'gpu' (NodeGroup)), and each "
        "names the shared ResourceClaim 'gpus', allocated on one node: once a second node runs, its Pod there is never "
        "scheduled: give each Pod its own claim (a ResourceClaimTemplate), or run one Pod (a Deployment of one "
        "replica)"), note
    refused, (none,) = _shared_daemonset(group(least=0, most=3))
    assert refused == [] and "once a second node runs" in none, none
    # a cluster that may have pools the stack does not show: its nodes would run a Pod too
    elsewhere = node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", min_size=1, max_size=1,
                           declare_cluster=False)
    refused, (unseen,) = _shared_daemonset(elsewhere)
    assert refused == [] and "once a second node runs" in unseen, unseen
    assert _shared_daemonset(node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", min_size=2,
                                        declare_cluster=False))[0], "two nodes seen: refused whatever else runs"
    # two shared claims, each allocated on one node; a shared claim of a class the pack does not count says nothing
    import pulumi_kubernetes as k8s

    def second() -> None:
        k8s.resource.v1.ResourceClaim("more", metadata={"name": "more", "namespace": "default"},
                                      spec={"devices": {"requests": [exact_request()]}})

    both = {"resourceClaims": [*SHARED["resourceClaims"], {"name": "more", "resourceClaimName": "more"}]}
    (plural,) = _shared_daemonset(group(least=2, machine="g5.12xlarge"), second, pod=both)[0]
    assert "each names the shared ResourceClaims 'gpus', 'more', each allocated on one node: the Pods" in plural, \
        plural

    def other() -> None:
        k8s.resource.v1.ResourceClaim("nic", metadata={"name": "nic", "namespace": "default"},
                                      spec={"devices": {"requests": [exact_request("nic.example.com")]}})

    refused, notes = _shared_daemonset(group(least=2), other,
                                       pod={"resourceClaims": [{"name": "nic", "resourceClaimName": "nic"}]})
    assert refused == [] and not any("every node" in note for note in notes), notes
    # every DaemonSet judged, after workloads and DaemonSets with nothing of this; a pool of no minimum counts no node
    from builders import deployment, instance_types, nodepool, workload

    claim = dra_parts("g5.xlarge", [exact_request()], shared=True)[1]
    own = {"resourceClaims": [{"name": "own", "resourceClaimTemplateName": "own"}]}
    before = [deployment("web", requests={"cpu": "10m"}), workload("DaemonSet", "logs", requests={"cpu": "10m"}),
              workload("DaemonSet", "own", requests={"cpu": "10m"}, pod=own)]
    (after,) = _dra(group(least=2), claim, *before, workload("DaemonSet", "agent", requests={"cpu": "10m"},
                                                                pod=SHARED))[0]
    assert after.startswith("DaemonSet 'agent': its Pods run one on every node"), after
    two = _dra(group(least=2), claim, *(workload("DaemonSet", name, requests={"cpu": "10m"}, pod=SHARED)
                                        for name in ("first", "second")))[0]
    assert [text.split("'")[1] for text in two] == ["first", "second"], two
    # one on a group of one node (clean), one after it on a group of two
    single = node_group("single", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", min_size=1, max_size=1,
                        labels={"size": "one"})
    pair = node_group("pair", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", min_size=2, max_size=2,
                      labels={"size": "two"})
    (later,) = _dra(single, pair, claim, *(workload("DaemonSet", name, requests={"cpu": "10m"}, pod=SHARED,
                                                    node_selector={"size": size})
                                           for name, size in (("one", "one"), ("two", "two"))))[0]
    assert later.startswith("DaemonSet 'two': its Pods run one on every node of the pools it runs on (pool 'pair' "), \
        later
    (counted,) = _shared_daemonset(group("a", least=0), group("b", least=2))[0]
    assert "(pool 'b' (NodeGroup) at least 2 = 2 nodes)" in counted, counted
    # a NodePool (no minimum: Karpenter starts nodes as Pods need them) may run a second node: said
    refused, (karpenter,) = _dra(nodepool("gpu", [instance_types("g5.xlarge")]), claim,
                                 workload("DaemonSet", "agent", requests={"cpu": "10m"}, pod=SHARED))
    assert refused == [] and "pool 'gpu' (NodePool)), and each names the shared ResourceClaim 'gpus'" in karpenter, \
        karpenter
    # refused already for its own Pod (more CPU than a node has): not refused twice
    (own,) = _dra(group(least=2), claim, workload("DaemonSet", "agent", requests={"cpu": "100"}, pod=SHARED))[0]
    assert "on every node together" in own, own
    # each Pod its own claim (a template): nothing of this
    template = {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpus"}]}
    assert _dra(group(least=2), dra_parts("g5.xlarge", [exact_request()])[1],
                __import__("builders").workload("DaemonSet", "agent", requests={"cpu": "10m"}, pod=template)) \
        == ([], [])


def test_shared_claims_on_one_of_two_clusters_name_its_pools_by_cluster():
    """Two EKS clusters of one group each (g5.xlarge, at least two nodes): the Pods that share a claim through cluster
    'east''s provider are judged on its pools alone, and the words name each pool with its cluster: the Pods together,
    one Pod's devices beside the shared ones, a DaemonSet's Pods on every node."""
    from builders import cluster_resource, kubernetes_provider, node_group, workload

    clusters = [kubernetes_provider(name, cluster_resource("aws", name)) for name in ("east", "west")]
    groups = [node_group(f"gpu-{name}", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", cluster=name,
                         declare_cluster=False, min_size=2) for name in ("east", "west")]

    def judged(count: int, *pods: object) -> list[str]:
        parts = dra_parts("g5.xlarge", [exact_request(count=count)], shared=True, provider="east")
        return _dra(*clusters, *groups, parts[1], *pods)[0]

    where = "pool 'gpu-east' (NodeGroup) of EKS cluster 'east' has at most "
    (together,) = judged(1, workload("Deployment", "train", spec={"replicas": 4}, requests={"cpu": "981m"},
                                     pod=SHARED, provider="east"))
    assert f"than any node of the pools that can take them: {where}4 cores capacity" in together, together
    (beside,) = judged(2, workload("Deployment", "train", requests={"cpu": "100m"}, pod=SHARED, provider="east"))
    assert f"more than any node of the pools that can take it: {where}1 of DRA gpu.nvidia.com" in beside, beside
    (every,) = judged(1, workload("DaemonSet", "agent", requests={"cpu": "10m"}, pod=SHARED, provider="east"))
    assert "(pool 'gpu-east' (NodeGroup) of EKS cluster 'east' at least 2 = 2 nodes)" in every, every
    # on groups of one node that may grow: said, naming the pool with its cluster
    groups[:] = [node_group(f"gpu-{name}", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", cluster=name,
                            declare_cluster=False, min_size=1) for name in ("east", "west")]
    parts = dra_parts("g5.xlarge", [exact_request()], shared=True, provider="east")
    _none, (grows,) = _dra(*clusters, *groups, parts[1], workload("DaemonSet", "agent", requests={"cpu": "10m"},
                                                                  pod=SHARED, provider="east"))
    assert "on every node of the pools it runs on (pool 'gpu-east' (NodeGroup) of EKS cluster 'east'), and" in grows, \
        grows
    assert "west" not in together + beside + every


@settings(max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@st.composite
def _sharers(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int]:
    """Deployments (replicas, millicores) and a DaemonSet's millicores, drawn near where they stop fitting a
    g5.xlarge: now and then the Pods together one slot below, at, or above what is left, or their CPU so."""
    daemon = draw(st.sampled_from([0, 20, 150]))
    sharing = draw(st.lists(st.tuples(st.integers(1, 60), st.integers(1, 4000)), min_size=1, max_size=3))
    free_cpu, free_slots = 3920 - daemon, 58 - (1 if daemon else 0)
    aim = draw(st.sampled_from(["slots", "cpu", None]))
    others = sum(replicas for replicas, _cpu in sharing[:-1])
    if aim == "slots" and others < free_slots:
        sharing = [*((replicas, 1) for replicas, _cpu in sharing[:-1]),
                   (free_slots - others + draw(st.sampled_from([-1, 0, 1])) or 1, 1)]
    elif aim == "cpu":
        replicas = draw(st.sampled_from([1, 2, 4, 8]))
        sharing = [(replicas, max(1, free_cpu // replicas + draw(st.sampled_from([0, 1]))))]
    return sharing, daemon


@settings(max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_sharers())
def test_pods_sharing_a_claim_are_refused_exactly_where_the_arithmetic_says(drawn: tuple) -> None:
    """The oracle, written out: on a group of g5.xlarge (4000m - 80m kube-reserved = 3920m of CPU, 58 Pod slots,
    eks-instance-info), with a DaemonSet of ``daemon`` millicores (and one Pod slot) if any, Deployments of (replicas,
    millicores) that share one claim of one GPU are all refused when their Pods together ask more CPU than is left or
    more slots; a Deployment whose one Pod fits no node is refused for that alone, and the others are then not
    judged together."""
    import pulumi_kubernetes as k8s
    from builders import deployment

    sharing, daemon = drawn

    def agent() -> None:
        k8s.apps.v1.DaemonSet("agent", metadata={"name": "agent", "namespace": "default"}, spec={
            "selector": {"matchLabels": {"app": "agent"}}, "template": {
                "metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [
                    {"name": "agent", "image": "agent:1", "resources": {"requests": {"cpu": f"{daemon}m"}}}]}}})

    parts = dra_parts("g5.xlarge", [exact_request()], shared=True)
    found = run(parts[0], parts[1], *([agent] if daemon else []),
                *(deployment(f"w{index}", spec={"replicas": replicas}, requests={"cpu": f"{cpu}m"}, pod=SHARED)
                  for index, (replicas, cpu) in enumerate(sharing)), platform="aws")
    refused = sorted(message.split("'")[1] for message in found.findings(FITS))
    free_cpu, free_slots = 3920 - daemon, 58 - (1 if daemon else 0)
    alone = sorted(f"w{index}" for index, (_replicas, cpu) in enumerate(sharing) if cpu > free_cpu)
    together = sum(replicas * cpu for replicas, cpu in sharing) > free_cpu or \
        sum(replicas for replicas, _cpu in sharing) > free_slots
    assert refused == (alone or (sorted(f"w{index}" for index in range(len(sharing))) if together else [])), \
        (sharing, daemon, found.findings(FITS))


def test_a_first_available_list_takes_the_fewest_devices_of_its_class():
    """A firstAvailable list of one counted class: its Pods take at least the fewest devices of its subrequests, so no
    GPU at all never holds it, one GPU holds "two, else one", and a list none of whose subrequests selects a device is
    refused; a list of two classes is said (the fewest of either is not one count)."""
    def first(*subrequests: dict) -> dict:
        return {"name": "gpu", "firstAvailable": [{"name": f"s{index}", **subrequest}
                                                  for index, subrequest in enumerate(subrequests)]}

    two, one = {"deviceClassName": "gpu.nvidia.com", "count": 2}, {"deviceClassName": "gpu.nvidia.com", "count": 1}
    (message,) = _dra(*dra_parts("m6i.large", [first(two, one)]))[0]
    assert "one Pod requests 100m of CPU and 1 of DRA gpu.nvidia.com devices, more than any node" in message, message
    assert _dra(*dra_parts("g5.xlarge", [first(two, one)])) == ([], [])
    assert len(_dra(*dra_parts("g5.xlarge", [first(two, {**one, "count": 3})]))[0]) == 1
    mig = [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].type == 'mig'"}}]
    (never,) = _dra(*dra_parts("g5.12xlarge", [first({**two, "selectors": mig}, {**one, "selectors": mig})]))[0]
    assert "request 'gpu' of ResourceClaimTemplate 'gpus' selects no gpu.nvidia.com device: the CEL selectors of its " \
        "subrequests (`device.attributes['gpu.nvidia.com'].type == 'mig'`, `device.attributes['gpu.nvidia.com']" \
        ".type == 'mig'`) are false for every device of that class" in never, never
    assert _dra(*dra_parts("g5.xlarge", [first({**one, "selectors": mig}, one)])) == ([], [])


def test_selectors_decided_over_what_every_device_of_the_class_publishes():
    """A request's CEL selectors, evaluated by cel-python over what NVIDIA's driver publishes alike for every device of
    its class: one no device matches (a gpu.nvidia.com request that asks MIG instances) is refused on the machine
    that holds it by count, naming the selector; one every device matches narrows nothing (neither said nor in the
    way of All beside another); one over what differs per GPU is said, as is one the library cannot compile."""
    def cel(*expressions: str) -> list:
        return [{"cel": {"expression": expression}} for expression in expressions]

    mig = "device.attributes['gpu.nvidia.com'].type == 'mig'"
    assert _dra(*dra_parts("g5.xlarge", [exact_request(selectors=cel(mig))])) == ([
        "Deployment 'train': request 'gpu' of ResourceClaimTemplate 'gpus' selects no gpu.nvidia.com device: its CEL "
        f"selector `{mig}` is false for every device of that class, each of which NVIDIA's DRA driver publishes with "
        "driver 'gpu.nvidia.com' and type 'gpu': no node can ever hold its claims, so its Pods are never scheduled: "
        "correct the selector"], [])
    # the false one of several is named, also where another is not decided
    name = "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A10G'"
    (refused,), [] = _dra(*dra_parts("g5.xlarge", [exact_request(selectors=cel(name, mig))]))
    assert f"its CEL selector `{mig}` is false" in refused
    # a side not known beside a false one, a ternary on the known type: decided
    assert len(_dra(*dra_parts("g5.xlarge", [exact_request(selectors=cel(f"{name} && {mig}"))]))[0]) == 1
    every = "device.driver == 'gpu.nvidia.com' && (has(device.attributes['gpu.nvidia.com'].productName) || " + name + ")"
    assert _dra(*dra_parts("g5.xlarge", [exact_request(selectors=cel(every))])) == ([], [])
    assert _dra(*dra_parts("g5.xlarge", [exact_request(selectors=cel(f"{mig} ? {name} : true"))])) == ([], [])
    # every device matches: All beside another of the class is refused as without selectors
    both = [exact_request(count=None, allocationMode="All", selectors=cel(every)),
            {**exact_request(selectors=cel(every)), "name": "other"}]
    assert len(_dra(*dra_parts("p4d.24xlarge", both))[0]) == 1
    for undecided in (name, "device.attributes['gpu.nvidia.com'].index == 0", "device.capacity['gpu.nvidia.com']"
                      ".memory.compareTo(quantity('40Gi')) >= 0", "has(device.attributes['gpu.nvidia.com'].minor)",
                      "device.attributes['gpu.nvidia.com'].type ==", "size(device.attributes['gpu.nvidia.com']) == 9"):
        assert _dra(*dra_parts("g5.xlarge", [exact_request(selectors=cel(undecided))])) == ([], [
            "Deployment 'train': its claims' devices fit a node of its pools by count; not checked: the CEL selectors "
            "of request 'gpu' of ResourceClaimTemplate 'gpus'"]), undecided
    # a MIG instance's type, under mig.nvidia.com: every device; its profile differs per GPU: said
    assert _dra(*dra_parts("p4d.24xlarge", [exact_request("mig.nvidia.com", selectors=cel(mig))])) == ([], [])
    profile = "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'"
    assert len(_dra(*dra_parts("p4d.24xlarge", [exact_request("mig.nvidia.com", selectors=cel(profile))]))[1]) == 1
    # a class of the stack that is not the driver's: its requests are not counted, their selectors not decided
    elsewhere = {"selectors": [{"cel": {"expression": "device.driver == 'example.com'"}}]}
    assert _dra(*dra_parts("g5.xlarge", [exact_request(selectors=cel(mig))], device_class=elsewhere))[0] == []


def test_constraints_over_what_a_nodes_gpus_share_are_not_said():
    """matchAttribute over a GPU's model (the same for the eight A100s of a p4d.24xlarge) narrows nothing: two requests
    of two GPUs each fit, and nothing is said; over each GPU's uuid or PCIe root it is said, never refused."""
    requests = [exact_request(count=2), {**exact_request(count=2), "name": "other"}]
    alike = [{"requests": ["gpu", "other"], "matchAttribute": "gpu.nvidia.com/productName"}]
    assert _dra(*dra_parts("p4d.24xlarge", requests, constraints=alike)) == ([], [])
    for attribute in ("gpu.nvidia.com/uuid", "resource.kubernetes.io/pcieRoot"):
        assert _dra(*dra_parts("p4d.24xlarge", requests, constraints=[{"matchAttribute": attribute}])) == ([], [
            "Deployment 'train': its claims' devices fit a node of its pools by count; not checked: the constraints "
            "of ResourceClaimTemplate 'gpus'"]), attribute
    # a refusal by count stands whatever the constraints
    assert len(_dra(*dra_parts("g5.xlarge", requests, constraints=alike))[0]) == 1


def test_a_pod_that_claims_a_template_the_stack_does_not_have_is_said():
    from builders import deployment, node_group
    pods = deployment("train", requests={"cpu": "100m"},
                      pod={"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "missing"}]})
    assert _dra(node_group("gpu", ["m6i.large"]), pods) == ([], [
        "Deployment 'train': the devices of its Pods' ResourceClaimTemplate 'missing' (not in the stack) are not "
        "counted (the pack counts what a claim asks exactly of DeviceClass gpu.nvidia.com and "
        "mig.nvidia.com)"])


def _gke_gpu_node_pool(name: str = "gpu", cluster: str = "fleet", labels: dict | None = None, **accelerator: object):
    """A pulumi-gcp NodePool of n1-standard-4 (4 vCPUs, 15 GB) with one T4 attached, as GKE's GPU guide writes it."""
    from builders import gke_node_pool

    return gke_node_pool(name, "n1-standard-4", cluster=cluster, declare_cluster=False, location="europe-west1-b",
                         labels=labels, accelerator={"type": "nvidia-tesla-t4", "count": 1, **accelerator})


# GKE's DRA setup (.../how-to/set-up-dra, "Create a GKE node pool with GPUs"): no driver installed by GKE, its device
# plugin kept off by a node label, and the label NVIDIA's DRA driver's kubelet plugin selects its nodes by
DRA_SETUP = {"labels": {"gke-no-default-nvidia-gpu-device-plugin": "true", "nvidia.com/gpu.present": "true"},
             "gpu_driver_installation_config": {"gpu_driver_version": "INSTALLATION_DISABLED"}}


def test_gkes_gpu_taint_keeps_pods_that_request_no_gpu_off_a_gpu_pool_and_grants_those_that_do():
    """GKE taints the nodes of a GPU pool added to a cluster that already runs a pool without GPUs (nvidia.com/gpu,
    NoSchedule), and its ExtendedResourceToleration admission adds the toleration to Pods that request nvidia.com/gpu
    (.../how-to/gpus). A cluster's default pool of e2-medium (2972 MiB allocatable, the test above) and a NodePool of
    n1-standard-4 with a T4, made after the cluster it names: a Pod asking 6 GiB and no GPU would fit only the GPU
    nodes, which it cannot reach (the pack counted them, and passed); asking a GPU too, it lands there with no
    toleration of its own."""
    from builders import deployment, gke_cluster

    cluster = gke_cluster("fleet", "e2-medium", initial_node_count=1)
    ordinary = {"cpu": "500m", "memory": "6Gi"}
    (message,) = run(cluster, _gke_gpu_node_pool(), deployment("big", requests=ordinary),
                     platform="gcp").findings(FITS)
    assert "pool 'default-pool' of GKE cluster 'fleet' has at most" in message and "'gpu'" not in message, message
    result = run(cluster, _gke_gpu_node_pool(), deployment("train", requests={**ordinary, "nvidia.com/gpu": "1"}),
                 platform="gcp")
    assert result.findings(FITS) == [] and result.findings("workload-schedulable") == []
    # the toleration is GKE's, not every cluster's: a GPU Pod that fits no node is still refused
    (message,) = run(cluster, _gke_gpu_node_pool(),
                     deployment("train", requests={**ordinary, "nvidia.com/gpu": "2"}), platform="gcp").findings(FITS)
    assert "pool 'gpu' (GKE NodePool) has at most 1 allocatable of nvidia.com/gpu (n1-standard-4)" in message


def test_gkes_gpu_taint_is_not_known_when_the_pools_may_be_made_together():
    """Two NodePools of one cluster, made at once (nothing orders them): GKE taints the GPU pool only if the other was
    there first, so the pack cannot tell whether a Pod that requests no GPU may land on it. It neither refuses the
    6 GiB Pod (it may fit the GPU nodes) nor passes it silently; a cluster of GPU pools only is never tainted."""
    from builders import cluster_resource, deployment, gke_node_pool

    fleet = cluster_resource("gcp", "fleet")
    ordinary = {"cpu": "500m", "memory": "6Gi"}
    result = run(fleet, gke_node_pool("cpu", "e2-medium", declare_cluster=False), _gke_gpu_node_pool(),
                 deployment("big", requests=ordinary), platform="gcp")
    assert result.findings(FITS) == []
    notes = [note.finding for note in result.notes if note.policy == FITS]
    assert any("nvidia.com/gpu" in note and "'gpu'" in note for note in notes), result.notes
    alone = run(fleet, _gke_gpu_node_pool(), deployment("big", requests=ordinary), platform="gcp")
    assert alone.findings(FITS) == [] and not [note for note in alone.notes if note.policy == FITS], alone.notes


def test_a_gke_gpu_pool_that_installs_no_driver_may_advertise_no_gpu():
    """gpuDriverInstallationConfig.gpuDriverVersion INSTALLATION_DISABLED: GKE installs no NVIDIA driver, so the nodes
    advertise nvidia.com/gpu only once the user's own driver DaemonSet runs (.../how-to/gpus, "Manually install NVIDIA
    GPU drivers"): a GPU Pod is not refused, and not passed silently either."""
    import pulumi_gcp as gcp
    from builders import declared_cluster, deployment

    disabled = gcp.container.NodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs(
        gpu_driver_version="INSTALLATION_DISABLED")

    def fleet() -> object:
        return declared_cluster("gcp", "fleet")

    gpu = {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}
    result = run(fleet, _gke_gpu_node_pool(gpu_driver_installation_config=disabled), deployment("train", requests=gpu),
                 platform="gcp")
    assert result.findings(FITS) == []
    notes = [note.finding for note in result.notes if note.policy == FITS]
    assert any("INSTALLATION_DISABLED" in note for note in notes), result.notes
    latest = gcp.container.NodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs(gpu_driver_version="LATEST")
    result = run(fleet, _gke_gpu_node_pool(gpu_driver_installation_config=latest), deployment("train", requests=gpu),
                 platform="gcp")
    assert result.findings(FITS) == [] and not [note for note in result.notes if note.policy == FITS], result.notes


def test_a_gpu_request_names_the_smallest_machine_that_has_the_gpus():
    """SPEC 16: a fit message for a GPU count names the smallest machine with those GPUs, as one for CPU or memory
    names the smallest with the room (it named none on a ComputeCluster pool: 'place the workload on a pool whose
    machines have NVIDIA GPUs'). Whole GPUs first: g6f.large (2 vCPUs, an eighth of an L4) is not the answer to a
    Pod that asks for a GPU; g4dn.xlarge (4 vCPUs, 16 GiB, one T4) is. Within the pool's family first: two GPUs on
    g4dn.xlarge lead to g4dn.12xlarge (four T4s), the family's smallest with two or more."""
    from builders import CapacityGroup, ComputeClusterArgs, deployment, node_group

    def on(machine: str, gpus: str) -> list[str]:
        group = CapacityGroup(group_id="general", instance_type=machine, min_size=1, max_size=3)
        return run(cluster(ComputeClusterArgs(id="compute", capacity_groups=[group])),
                   deployment("train", labels=placed(pool="general"), node_selector=AMD64,
                              requests={"cpu": "1", "nvidia.com/gpu": gpus}), platform="aws").findings(FITS)

    (message,) = on("m7i.large", "1")
    assert message == (
        "Deployment 'train': its Pods request 1 nvidia.com/gpu, but the machines of pool 'general' of ComputeCluster "
        "'compute' (machine m7i.large) have no GPU; they can never be scheduled there: place the workload on a pool "
        "whose machines have NVIDIA GPUs (the smallest AWS machine whose node holds one Pod: g4dn.xlarge, 4 vCPUs, "
        "16 GiB)")
    (message,) = on("g4dn.xlarge", "2")
    assert message == (
        "Deployment 'train': one Pod requests 2 of nvidia.com/gpu, more than a node of pool 'general' of "
        "ComputeCluster 'compute' (machine g4dn.xlarge) can give it: 1 allocatable; it can never be scheduled there: "
        "request at most 1, or place the workload on a pool of machines with more GPUs (the smallest AWS machine of "
        "its family whose node holds one Pod: g4dn.12xlarge, 48 vCPUs, 192 GiB)")
    (message,) = run(node_group("general", ["m5.large"], ami_type="AL2023_x86_64_STANDARD"),
                     deployment("train", node_selector=AMD64, requests={"cpu": "1", "nvidia.com/gpu": "1"}),
                     platform="aws").findings(FITS)
    assert message.endswith("(the smallest AWS machine whose node holds one Pod: g4dn.xlarge, 4 vCPUs, 16 GiB)"), \
        message
    # ephemeral storage: the catalog says nothing of disks, so no machine is named (CPU on the same pool: one is)
    group = CapacityGroup(group_id="general", profile=PROFILE, min_size=1, max_size=3)
    for request, named in (({"ephemeral-storage": "30Gi"}, False), ({"cpu": "3"}, True)):
        (message,) = run(cluster(ComputeClusterArgs(id="compute", capacity_groups=[group])),
                         deployment("logs", labels=placed(pool="general"), node_selector=AMD64, requests=request),
                         platform="aws").findings(FITS)
        assert ("(the smallest AWS machine" in message) == named, message


def test_a_suggestion_keeps_the_pools_architecture_and_names_gpus_current_drivers_run():
    """Issue 57: an unpinned Pod asking for GPUs on an amd64 group of m6i.large was sent to g5g.xlarge (arm64: its
    images would not run) and, for four GPUs, to g2.8xlarge (Kepler K520s, which no current NVIDIA driver supports:
    R470 was their last branch). A suggestion is of an architecture the pools that take the Pod run, never a GPU of
    UNSUPPORTED_GPUS, and asks for machines with the GPUs, not larger ones; a GKE shared-core pool's family is its
    series' (e2-medium: e2-standard-2, not c4a-highmem-1, an arm64 machine)."""
    from builders import deployment, gke_node_pool, node_group

    from compute_guard.policies.platforms.catalog import UNSUPPORTED_GPUS, machines

    assert {machine.name for machine in machines("aws") if machine.gpu_type in UNSUPPORTED_GPUS} >= {
        "g2.2xlarge", "g2.8xlarge", "p2.xlarge"}
    tail = "it can never be scheduled: lower its requests or allow instance types with nvidia.com/gpu (the smallest " \
           "AWS machine whose node holds one Pod: "
    for gpus, machine in (("1", "g4dn.xlarge, 4 vCPUs, 16 GiB)"), ("4", "p3.8xlarge, 32 vCPUs, 244 GiB)")):
        (message,) = run(node_group("general", ["m6i.large"]), deployment("train", requests={"nvidia.com/gpu": gpus}),
                         platform="aws").findings(FITS)
        assert message.endswith(tail + machine), message
    (message,) = run(gke_node_pool("small", "e2-medium", location="europe-west1-b"),
                     deployment("web", requests={"memory": "5Gi"}), platform="gcp").findings(FITS)
    assert message.endswith("(the smallest GCP machine of its family whose node holds one Pod: e2-standard-2, 2 vCPUs, "
                            "8 GiB)"), message


@pytest.mark.parametrize("platform, pool, machine, suggested, kinds", [
    ("azure", "aks", "Standard_D4s_v5", "Standard_NC4as_T4_v3, 4 vCPUs, 28 GiB", "VM sizes"),
    ("gcp", "gke", "e2-medium", "g2-standard-4, 4 vCPUs, 16 GiB", "machine types"),
    ("aws", "eks", "m7i.large", "g4dn.xlarge, 4 vCPUs, 16 GiB", "instance types"),
])
def test_a_gpu_hint_names_the_platforms_machines_and_works_when_applied(platform, pool, machine, suggested, kinds):
    """Issue 66: an AKS GPU refusal named no machine (its catalog had no memory for Azure's GPU sizes), and GKE and AKS
    were told to allow "instance types". Each names its platform's word and the smallest machine with the GPU; a
    pool of that machine takes the Pod."""
    from builders import AMD64, aks_node_pool, deployment, gke_node_pool, node_group

    declared = {"aks": lambda size: aks_node_pool("apps", size), "gke": lambda size: gke_node_pool("apps", size),
                "eks": lambda size: node_group("apps", [size])}[pool]
    train = deployment("train", node_selector=AMD64, requests={"cpu": "1", "memory": "8Gi", "nvidia.com/gpu": "1"})
    (message,) = run(declared(machine), train, platform=platform).findings(FITS)
    assert message.endswith(f"lower its requests or allow {kinds} with nvidia.com/gpu (the smallest "
                            f"{ {'aws': 'AWS', 'gcp': 'GCP', 'azure': 'Azure'}[platform]} machine whose node holds "
                            f"one Pod: {suggested})"), message
    assert run(declared(suggested.split(",")[0]), train, platform=platform).findings(FITS) == []


def test_every_device_of_a_class_beside_another_request_of_it_never_fits():
    """allocationMode All takes every matching device of the node, each device is allocated once: another request of
    the class finds none on any node (the structured allocator); narrowed by selectors, the two may take devices
    apart, and nothing is refused."""
    every = exact_request(count=None, allocationMode="All")
    (message,) = _dra(*dra_parts("p4d.24xlarge", [every, {**exact_request(), "name": "one"}]))[0]
    assert message == (
        "Deployment 'train': request 'gpu' of ResourceClaimTemplate 'gpus' asks every gpu.nvidia.com device of its "
        "node (allocationMode All) and request 'one' of ResourceClaimTemplate 'gpus' asks another, and a node's "
        "devices are allocated once each: no node can ever hold its claims, so its Pods are never scheduled: ask a "
        "count instead of All, or narrow the requests by selectors to devices apart")
    narrowed = {**exact_request(selectors=[{"cel": {"expression": "device.attributes['gpu.nvidia.com'].index == 0"}}]),
                "name": "one"}
    assert _dra(*dra_parts("p4d.24xlarge", [every, narrowed]))[0] == []
    # alone, it takes what the node has: at least one, and how many is said (a claim holds at most 32)
    assert _dra(*dra_parts("p4d.24xlarge", [every])) == ([], [
        "Deployment 'train': its claims' devices fit a node of its pools by count; not checked: how many devices "
        "request 'gpu' of ResourceClaimTemplate 'gpus' takes (allocationMode All: every one of its node, which the "
        "allocator refuses past 32 in a claim)"])


def test_a_gke_gpu_pool_without_gkes_device_plugin_may_advertise_no_gpu():
    """GKE's DRA setup labels a GPU pool gke-no-default-nvidia-gpu-device-plugin=true, which keeps GKE's device plugin
    off its nodes (.../how-to/set-up-dra): nvidia.com/gpu is then advertised only by a device plugin of the user's own
    or a DeviceClass that maps it to DRA devices (KEP-5004). A Pod asking for one T4 passed silently, and one asking for
    two was refused by the device plugin's count (a time-slicing plugin of the user's advertises more): both said now.
    Labels not known yet may carry it; the label absent, GKE's plugin counts as before."""
    import pulumi_kubernetes as k8s
    from builders import deployment, gke_node_pool

    def judged(gpus: str, labels: object) -> tuple[list[str], list[str]]:
        def pool() -> None:
            cluster_labels = labels() if callable(labels) else labels
            gke_node_pool("gpu", "n1-standard-4", declare_cluster=True, location="europe-west1-b",
                          labels=cluster_labels, accelerator={"type": "nvidia-tesla-t4", "count": 1})()

        result = run(pool, deployment("train", requests={"cpu": "500m", "nvidia.com/gpu": gpus}), platform="gcp")
        return result.findings(FITS), [note.finding for note in result.notes if note.policy == FITS]

    off = {"gke-no-default-nvidia-gpu-device-plugin": "true"}
    for gpus in ("1", "2"):
        refused, notes = judged(gpus, off)
        assert refused == [] and any(
            "node pool 'gpu' runs no GPU device plugin of GKE's (its node label "
            "gke-no-default-nvidia-gpu-device-plugin=true, as GKE's DRA setup writes it): its nodes advertise "
            "nvidia.com/gpu only where a device plugin of your own runs, or a DeviceClass maps it to DRA devices "
            "(extendedResourceName, KEP-5004), so the GPUs its Pods request are not checked" in note
            for note in notes), notes

    def later() -> object:
        return k8s.core.v1.ConfigMap("source", data={"a": "b"}).immutable.apply(lambda _m: {"team": "ml"})

    refused, notes = judged("2", later)
    assert refused == [] and any("may run no GPU device plugin of GKE's (its node label "
                                 "gke-no-default-nvidia-gpu-device-plugin may be there: its labels are not known yet"
                                 in note for note in notes), notes
    assert judged("1", {"team": "ml"}) == ([], [])
    (two,) = judged("2", {"team": "ml"})[0]
    assert "pool 'gpu' (GKE NodePool) has at most 1 allocatable of nvidia.com/gpu (n1-standard-4)" in two, two


def test_gpus_claimed_through_dra_on_a_gke_pool_set_up_for_dra():
    """GKE's DRA setup as its page writes it: a node pool whose attached GPUs GKE installs no driver for (gpuDriverVersion
    INSTALLATION_DISABLED) and runs no device plugin on (gke-no-default-nvidia-gpu-device-plugin=true), NVIDIA's driver
    and DRA driver installed by the user. nvidia.com/gpu is not known there, but the DRA driver publishes at most one
    device per attached T4: one fits, two never do."""
    from builders import cluster_resource

    def pool():
        cluster_resource("gcp")()
        _gke_gpu_node_pool(**DRA_SETUP)()

    result = run(*dra_parts("n1-standard-4", [exact_request()], pool=pool), platform="gcp")
    assert result.findings(FITS) == []
    (message,) = run(*dra_parts("n1-standard-4", [exact_request(count=2)], pool=pool), platform="gcp").findings(FITS)
    assert "pool 'gpu' (GKE NodePool) has at most 1 allocatable of DRA gpu.nvidia.com devices (n1-standard-4)" \
        in message, message


def test_a_dra_pod_kept_off_the_gpu_pools_by_their_taint_is_told_why():
    """A Pod that claims GPUs through DRA requests no extended resource, so the ExtendedResourceToleration admission
    adds no toleration of a GPU pool's nvidia.com/gpu taint for it: a g5.xlarge group tainted as NVIDIA's guides taint
    it, beside an m7i.large group, leaves it only the machines without GPUs. Refused (as before), and now told which
    pools have the devices and why they do not take it, with the fix that lets it there; tolerating the taint, clean.
    On GKE, a GPU pool made after the cluster's own pool carries GKE's taint: the same."""
    from builders import deployment, gke_cluster, node_group

    gpus = node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA",
                      taints=[("nvidia.com/gpu", "", "NO_SCHEDULE")])
    parts = dra_parts("g5.xlarge", [exact_request()])
    # a tainted pool without GPUs is not one of them
    other = node_group("batch", ["m7i.xlarge"], taints=[("dedicated", "batch", "NO_SCHEDULE")])
    (message,) = _dra(gpus, node_group("cpu", ["m7i.large"]), other, parts[1], parts[2])[0]
    assert message == (
        "Deployment 'train': one Pod requests 100m of CPU and 1 of DRA gpu.nvidia.com devices, more than any node of "
        "the pools that can take it: pool 'cpu' (NodeGroup) has at most 0 allocatable of DRA gpu.nvidia.com devices "
        "(m7i.large); the pools whose machines have them do not take it: pool 'gpu' (NodeGroup) has taint "
        "nvidia.com/gpu:NoSchedule that it does not tolerate; it can never be scheduled: let its Pods onto a pool that "
        "has them (the tolerations or labels it needs), or lower its requests")
    tolerates = {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpus"}],
                 "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
    tolerated = deployment("train", requests={"cpu": "100m"}, pod=tolerates)
    assert _dra(gpus, node_group("cpu", ["m7i.large"]), parts[1], tolerated) == ([], [])
    # no pool with the devices at all: the machines that have them, as before
    (plain,) = _dra(node_group("cpu", ["m7i.large"]), parts[1], parts[2])[0]
    assert "do not take it" not in plain and "allow instance types with NVIDIA GPUs" in plain, plain

    def gke() -> None:
        gke_cluster("fleet", "e2-medium", initial_node_count=1)()
        _gke_gpu_node_pool()()

    result = run(gke, parts[1], parts[2], platform="gcp")
    (kept,) = result.findings(FITS)
    assert "the pools whose machines have them do not take it: pool 'gpu' (GKE NodePool) has taint " \
        "nvidia.com/gpu=present:NoSchedule that it does not tolerate" in kept, kept
    assert run(gke, parts[1], tolerated, platform="gcp").findings(FITS) == []


def test_a_claim_of_more_devices_than_the_allocator_gives_one_never_fits():
    """The structured allocator gives one claim at most 32 devices (resource.k8s.io AllocationResultsMaxSize: "exceeds
    the claim limit of 32"), whatever the node: 40 MIG slices of a p5.48xlarge's 56 never come in one claim; 32 do,
    and requests of a DeviceClass the pack does not count are counted toward the limit."""
    (message,) = _dra(*dra_parts("p5.48xlarge", [exact_request("mig.nvidia.com", count=40)]))[0]
    assert message == (
        "Deployment 'train': ResourceClaimTemplate 'gpus' asks 40 devices in all, more than the 32 the allocator gives "
        "one claim: no node can ever hold its claims, so its Pods are never scheduled: split its requests across "
        "claims")
    assert _dra(*dra_parts("p5.48xlarge", [exact_request("mig.nvidia.com", count=32)]))[0] == []
    other = {**exact_request("neuron.aws.com", count=2), "name": "other"}
    assert len(_dra(*dra_parts("p5.48xlarge", [exact_request("mig.nvidia.com", count=31), other]))[0]) == 1


def test_what_the_autoscalers_do_not_do_for_dra_claims_is_said_where_it_decides():
    """Karpenter picks a machine without a Pod's DRA claims unless it is set to reason about DRA (ignoreDRARequests):
    a NodePool of machines with and without the devices is said, one of machines that all hold them is not;
    cluster-autoscaler does not scale a group up from zero for Pods with DRA claims: said where every pool that holds
    them has a minimum of 0 and the autoscaler runs there (GKE's autoscaling; an EKS group beside its chart), not
    where one keeps a node or nothing shrinks the group."""
    import pulumi_kubernetes as k8s
    from builders import (
        aks_node_pool,
        cluster_resource,
        deployment,
        gke_node_pool,
        instance_types,
        node_group,
        nodepool,
    )

    said = ("Karpenter may start a node without the devices its Pods claim for them on pool 'gpu' (NodePool) "
            "(m7i.large, say): it picks their machine without their DRA claims unless it is set to reason about DRA "
            "(its ignoreDRARequests setting, on by default; kubernetes-sigs/karpenter#3228), so keep the NodePool's "
            "requirements to machines that hold them")
    mixed = nodepool("gpu", [instance_types("g5.xlarge", "m7i.large")])
    assert _dra(*dra_parts("", [exact_request()], pool=mixed)) == ([], [f"Deployment 'train': {said}"])
    gpus = nodepool("gpu", [instance_types("g5.xlarge", "g5.2xlarge")])
    assert _dra(*dra_parts("", [exact_request()], pool=gpus)) == ([], [])
    # Pods whose labels allow only machines that hold them: Karpenter starts one of those
    pinned = dra_parts("", [exact_request()], pool=mixed)
    pinned[-1] = deployment("train", requests={"cpu": "100m"}, node_selector={"node.kubernetes.io/instance-type": "g5.xlarge"},
                            pod={"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpus"}]})
    assert _dra(*pinned) == ([], [])
    # (refused where no machine of it holds them: nothing more to say)
    assert _dra(*dra_parts("", [exact_request(count=2)], pool=mixed))[1] == []

    def autoscaler() -> None:
        k8s.helm.v3.Release("autoscaler", chart="cluster-autoscaler",
                            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo="https://kubernetes.github.io/autoscaler"))

    zero = node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", min_size=0)
    ca = ("Deployment 'train': the pools whose machines hold its claims (pool 'gpu' (NodeGroup)) may have no node: "
          "cluster-autoscaler does not scale a group up from zero nodes for Pods with DRA claims "
          "(kubernetes/autoscaler#10199), so set the minimum size of one of them to 1 or more")
    assert _dra(autoscaler, *dra_parts("", [exact_request()], pool=zero)) == ([], [ca])
    assert _dra(*dra_parts("", [exact_request()], pool=zero)) == ([], [])  # nothing shrinks it
    one = node_group("gpu", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA")
    assert _dra(autoscaler, *dra_parts("", [exact_request()], pool=one)) == ([], [])
    # a pool that keeps a node beside the one of minimum 0: a node with the devices is there
    other = node_group("other", ["g5.xlarge"], ami_type="AL2023_x86_64_NVIDIA", declare_cluster=False)
    assert _dra(autoscaler, other, *dra_parts("", [exact_request()], pool=zero)) == ([], [])
    # (a pool of no machine that holds them does not count either way)
    small = node_group("small", ["m7i.large"], declare_cluster=False, min_size=1)
    assert _dra(autoscaler, small, *dra_parts("", [exact_request()], pool=zero))[1] == [ca]

    def gke(minimum: int) -> object:
        def declare() -> None:
            cluster_resource("gcp")()
            gke_node_pool("gpu", "n1-standard-4", declare_cluster=False, location="europe-west1-b",
                          accelerator={"type": "nvidia-tesla-t4", "count": 1},
                          autoscaling={"min_node_count": minimum, "max_node_count": 3})()
        return declare

    notes = [note.finding for note in run(*dra_parts("", [exact_request()], pool=gke(0)), platform="gcp").notes
             if note.policy == FITS]
    assert len(notes) == 1 and "(pool 'gpu' (GKE NodePool)) may have no node: cluster-autoscaler" in notes[0], notes
    assert [note for note in run(*dra_parts("", [exact_request()], pool=gke(1)), platform="gcp").notes
            if note.policy == FITS] == []
    # AKS's autoscaling pool, an NC-series VM with one T4 (azure-native's AgentPool)
    for minimum, found in ((0, 1), (1, 0)):
        aks = aks_node_pool("gpu", "Standard_NC4as_T4_v3", native=True, min_count=minimum)
        notes = [note.finding for note in run(*dra_parts("", [exact_request()], pool=aks), platform="azure").notes
                 if note.policy == FITS]
        assert len(notes) == found and all("may have no node: cluster-autoscaler" in note for note in notes), notes


def test_eks_auto_mode_runs_the_dra_driver_from_1_36():
    """EKS Auto Mode's nodes run NVIDIA's DRA driver from Kubernetes 1.36, and Auto Mode provisions for DRA claims
    there (EKS's user guide): a GPU claim on an Auto Mode NodePool of machines with and without GPUs, with no chart of
    the driver in the stack, is clean at 1.36; at 1.35 whether the driver runs and Karpenter's choice are said."""
    from builders import auto_mode_cluster, instance_types, nodepool

    pool = nodepool("gpu", [instance_types("g5.xlarge", "m7i.large")], auto_mode=True)

    def at(version: str) -> list[str]:
        found, notes = _dra(auto_mode_cluster("auto", ["system"], version=version),
                            *dra_parts("", [exact_request()], pool=pool, driver=False))
        assert found == []
        return notes

    assert at("1.36") == []
    (said,) = at("1.35")
    assert "not checked: whether NVIDIA's DRA driver runs on its nodes" in said and \
        "Karpenter may start a node without the devices its Pods claim for them on pool 'gpu'" in said, said
