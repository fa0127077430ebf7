"""GKE ComputeClasses (issue 68, SPEC 22), through the providers' SDKs: a pulumi-gcp Cluster and NodePool, and a
ComputeClass as a kubernetes.apiextensions.CustomResource, as cloud.google.com/kubernetes-engine/docs/concepts/
about-custom-compute-classes (last updated 2026-04-13) writes them. On main (ad5dd4a) a Pod that requested a class was a
note whatever the class ("its platform sets labels under that prefix"), and a Pod too big for every machine the class
may make passed. Now a class of the stack that auto-creates its node pools and never scales up outside its priorities
(whenUnsatisfiable DoNotScaleUp) is the pool of the machines its priorities name, and its Pods run there and on the
declared pools labelled for it, on a cluster with or without node auto-provisioning; any other class is said, naming
the Pod, the class and what is missing, and nothing is refused for it."""

from __future__ import annotations

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
import pytest

from compute_guard.testkit import evaluate

GCP = {"compute:platform": "gcp", "gcp:project": "p", "gcp:region": "europe-west1"}
FITS, SCHEDULABLE = "workload-fits-pool", "workload-schedulable"
CLASS = "cloud.google.com/compute-class"
N4 = {"nodePoolAutoCreation": {"enabled": True}, "priorities": [{"machineFamily": "n4"}],
      "whenUnsatisfiable": "DoNotScaleUp"}


def gke(compute_class=None, cpu: str = "1", selector: str | None = "batch", nap: bool = False, pool_labels=None,
        pool_taints=None, replicas: int = 2, version: str = "1.35", autoscaling=None, gpus: int = 0,
        pod_selector=None):
    """A zonal GKE cluster at ``version`` (node auto-provisioning when ``nap``) with one declared pool of e2-standard-4
    (``pool_labels`` and ``pool_taints`` on its nodes), a ComputeClass 'batch' of spec ``compute_class`` when given,
    and a Deployment of ``cpu`` (and ``gpus``) per Pod whose nodeSelector requests the class ``selector``;
    ``autoscaling``: the cluster's clusterAutoscaling instead; ``pod_selector``: more of its nodeSelector."""
    def program():
        cluster = gcp.container.Cluster(
            "gke", name="gke", location="europe-west1-b", initial_node_count=1, remove_default_node_pool=True,
            min_master_version=version, release_channel={"channel": "REGULAR"},
            cluster_autoscaling=autoscaling if autoscaling is not None else {"enabled": True, "resource_limits": [
                {"resource_type": "cpu", "maximum": 1000}, {"resource_type": "memory", "maximum": 10000}]}
            if nap else None)
        gcp.container.NodePool("apps", name="apps", cluster=cluster.name, location="europe-west1-b",
                               initial_node_count=1, autoscaling={"min_node_count": 1, "max_node_count": 3},
                               node_config={"machine_type": "e2-standard-4", **({"labels": pool_labels}
                                                                                if pool_labels else {}),
                                            **({"taints": pool_taints} if pool_taints else {})})
        provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
        if compute_class is not None:
            k8s.apiextensions.CustomResource("batch", api_version="cloud.google.com/v1", kind="ComputeClass",
                                             metadata={"name": "batch"},
                                             spec=compute_class() if callable(compute_class) else compute_class,
                                             opts=pulumi.ResourceOptions(provider=provider))
        k8s.apps.v1.Deployment("api", spec={
            "replicas": replicas, "selector": {"matchLabels": {"app": "api"}}, "template": {
                "metadata": {"labels": {"app": "api"}}, "spec": {
                    **({"nodeSelector": {**({CLASS: selector} if selector else {}), **(pod_selector or {})}}
                       if selector or pod_selector else {}),
                    "containers": [{"name": "api", "image": "nginx",
                                    "resources": {"requests": {"cpu": cpu, "memory": "1Gi"},
                                                  **({"limits": {"nvidia.com/gpu": gpus}} if gpus else {})}}]}}},
            opts=pulumi.ResourceOptions(provider=provider))
    return program


def unknown(value):
    """A value not known during preview, as the SDK sends it (call it while the program runs)."""
    return k8s.core.v1.ConfigMap(f"source-{id(value)}", data={"a": "b"}).immutable.apply(lambda m: value)


def gke_reserved_cpu_millicores(cores: int) -> int:
    """GKE's CPU reservation, written out (cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes: 6% of the
    first core, 1% of the next, 0.5% of the next 2, 0.25% of any above 4)."""
    tiers = ((1, 60), (1, 10), (2, 5), (cores, 2.5))
    left, reserved = cores, 0.0
    for size, per_core in tiers:
        taken = min(left, size)
        reserved += taken * per_core
        left -= taken
    return int(reserved)


def said(result) -> str:
    return " ".join(note.finding for note in result.notes)


def test_a_pod_larger_than_every_machine_its_class_may_make_is_refused_with_the_largest_named():
    """The class's only priority is the N4 series: its largest machine, n4-highcpu-80, holds 80 cores less GKE's
    reservation (written out: 270m). A Pod of 79.73 cores fits with no note; one of 100 is refused with the
    arithmetic, on the class's pool, whether or not the cluster provisions nodes of its own (a Pod that requests the
    class runs only on nodes made for it). Twice in one process."""
    assert gke_reserved_cpu_millicores(80) == 270
    for nap in (False, True, False):
        fits = evaluate(gke(N4, cpu="79730m", nap=nap), stack_config=GCP)
        assert fits.violations == [], fits.violations
        assert "ComputeClass" not in said(fits)
        refused = evaluate(gke(N4, cpu="100", nap=nap), stack_config=GCP)
        assert refused.findings(FITS) == [
            "Deployment 'api': one Pod requests 100 cores of CPU and 1 GiB of memory, more than any node of the pools "
            "that can take it: pool 'batch' (ComputeClass) has at most 80 cores capacity - 270m kube-reserved = 79.73 "
            "cores allocatable of CPU (n4-highcpu-80); it can never be scheduled: lower its requests or allow larger "
            "machine types (the smallest GCP machine whose node holds one Pod: c2d-highcpu-112, 112 vCPUs, 224 GiB)"]
        assert [v.policy for v in refused.violations] == [FITS]


def test_a_machine_type_priority_holds_its_allocatable_to_the_millicore():
    """A priority that names n4-standard-8 (8 vCPUs): GKE reserves 90m (written out), so 7910m fits and 7911m is
    refused; a second priority of spot n4-standard-16 makes 7911m fit again (every priority is a machine the class
    may make)."""
    reserved = gke_reserved_cpu_millicores(8)
    assert reserved == 90
    one = {**N4, "priorities": [{"machineType": "n4-standard-8"}]}
    assert evaluate(gke(one, cpu=f"{8000 - reserved}m"), stack_config=GCP).violations == []
    refused = evaluate(gke(one, cpu=f"{8000 - reserved + 1}m"), stack_config=GCP)
    assert [v.policy for v in refused.violations] == [FITS]
    assert "pool 'batch' (ComputeClass) has at most 8 cores capacity - 90m kube-reserved = 7910m allocatable of " \
           "CPU (n4-standard-8)" in refused.findings(FITS)[0]
    two = {**N4, "priorities": [{"machineType": "n4-standard-8"}, {"machineType": "n4-standard-16", "spot": True}]}
    assert evaluate(gke(two, cpu=f"{8000 - reserved + 1}m"), stack_config=GCP).violations == []


@pytest.mark.parametrize("compute_class, selector, why", [
    (None, "batch", "which is not in the stack"),
    ({**N4, "whenUnsatisfiable": "ScaleUpAnyway"}, "batch",
     "which has whenUnsatisfiable ScaleUpAnyway: a node of the cluster's default machine configuration when no "
     "priority can be met"),
    ({**N4, "priorities": [{"gpu": {"type": "nvidia-l4", "count": 1}}]}, "batch",
     "which its priorities[0] asks for GPUs, whose machines GKE picks"),
    ({**N4, "priorities": [{"machineType": "n4-custom-8-20480"}]}, "batch",
     "which its priorities[0] names machineType 'n4-custom-8-20480', which the catalog does not know"),
    (N4, "autopilot", "which is GKE's own (no class of yours may begin with gke or autopilot), whose nodes GKE picks"),
    (N4, "default", "which may be the cluster's default class"),
])
def test_a_class_whose_nodes_are_not_all_known_is_said_and_refuses_nothing(compute_class, selector, why):
    """A class the stack does not show every node of: GKE may make nodes of other machines (ScaleUpAnyway, an unwritten
    whenUnsatisfiable, GPU priorities whose machine GKE picks, a custom machine type), the class is not the stack's,
    or it is GKE's own. A Pod of 100 cores, too big for the declared pool, on a cluster without node
    auto-provisioning: said, naming the Pod and the class, never refused."""
    result = evaluate(gke(compute_class, cpu="100", selector=selector), stack_config=GCP)
    assert result.mandatory == [], result.violations
    assert f"Deployment 'api': its Pods request ComputeClass '{selector}', {why}" in said(result), said(result)


def test_an_unwritten_when_unsatisfiable_bounds_the_nodes_from_gke_1_33():
    """"In GKE version 1.33 and later, this [DoNotScaleUp] is the default behavior if you omit this field": on a
    cluster whose minMasterVersion is 1.33 (GKE only upgrades past a minimum), a class that writes none is judged as
    one that writes DoNotScaleUp; at 1.32, or with no version written, it may scale up anyway, so its Pods are said."""
    unwritten = {key: value for key, value in N4.items() if key != "whenUnsatisfiable"}
    for version in ("1.33", "1.35.1-gke.1396000"):
        refused = evaluate(gke(unwritten, cpu="100", version=version), stack_config=GCP)
        assert [v.policy for v in refused.mandatory] == [FITS], (version, refused.violations)
    for version in ("1.32", None):
        result = evaluate(gke(unwritten, cpu="100", version=version), stack_config=GCP)
        assert result.mandatory == [], result.violations
        assert "Deployment 'api': its Pods request ComputeClass 'batch', which writes no whenUnsatisfiable, whose " \
               "default before GKE 1.33 (ScaleUpAnyway) makes a node of the cluster's default machine configuration " \
               "when no priority can be met, and its cluster's version is not known to be 1.33 or later" \
               in said(result), said(result)


def test_a_class_that_creates_no_pool_runs_its_pods_on_the_declared_pools_labelled_for_it():
    """Without nodePoolAutoCreation, "Pods with ComputeClasses that don't configure node pool auto-creation continue to
    only scale up existing node pools", and only those labelled and tainted for the class: with no such pool its Pods
    never schedule (refused, naming the label); on a pool labelled cloud.google.com/compute-class=batch and tainted
    for it (as the page's gcloud commands do) they run, with no toleration of their own, and are judged there."""
    manual = {"priorities": [{"nodepools": ["apps"]}]}
    refused = evaluate(gke(manual), stack_config=GCP)
    assert refused.findings(SCHEDULABLE) == [
        "Deployment 'api': no pool can run its Pods: pool 'apps' (GKE NodePool) does not have label "
        "cloud.google.com/compute-class=batch. They would stay Pending: change its nodeSelector, node affinity or "
        "tolerations to match a pool, or declare a pool that takes them"]
    labelled = {"pool_labels": {CLASS: "batch"},
                "pool_taints": [{"key": CLASS, "value": "batch", "effect": "NO_SCHEDULE"}]}
    assert evaluate(gke(manual, **labelled), stack_config=GCP).violations == []
    big = evaluate(gke(manual, cpu="8", **labelled), stack_config=GCP)
    assert [v.policy for v in big.violations] == [FITS]
    assert "pool 'apps' (GKE NodePool) has at most 4 cores" in big.findings(FITS)[0]


def test_a_pod_that_requests_no_class_never_lands_on_a_class_s_nodes():
    """The class's nodes are tainted for it, and only Pods that request it are given the toleration: a Pod of 8 cores
    that requests no class is refused against the declared pool of 4-core machines, though the class's N4 machines
    would hold it."""
    result = evaluate(gke(N4, cpu="8", selector=None), stack_config=GCP)
    assert [v.policy for v in result.violations] == [FITS]
    assert "pool 'apps' (GKE NodePool)" in result.findings(FITS)[0]
    assert "ComputeClass" not in result.findings(FITS)[0]


def test_a_class_s_spot_priorities_are_its_nodes_interruption():
    """Spot VMs only: one replica on them is said by workload-interruption-tolerant (SPEC 16); a class that also makes
    on-demand nodes is not all reclaimable, and nothing is said."""
    spot = {**N4, "priorities": [{"machineFamily": "n4", "spot": True}]}
    said_spot = evaluate(gke(spot, replicas=1), stack_config=GCP)
    assert said_spot.findings("workload-interruption-tolerant"), said_spot.violations
    both = {**N4, "priorities": [{"machineFamily": "n4", "spot": True}, {"machineFamily": "n4"}]}
    assert evaluate(gke(both, replicas=1), stack_config=GCP).findings("workload-interruption-tolerant") == []


@pytest.mark.parametrize("spec, why", [
    ({**N4, "autopilot": {"enabled": True}}, "which runs its Pods in Autopilot mode, on nodes GKE picks"),
    ({**N4, "priorities": [{"podFamily": "general-purpose"}]},
     "which its priorities[0] sets podFamily, which the pack does not read"),
])
def test_a_class_that_runs_its_pods_in_autopilot_mode_is_said(spec, why):
    """An Autopilot ComputeClass (spec.autopilot.enabled, or a podFamily rule: Autopilot's container-optimized compute
    platform; cloud.google.com/kubernetes-engine/docs/how-to/autopilot-classes-standard-clusters: "If a workload
    selects a ComputeClass that has the autopilot field enabled, GKE runs the Pods in Autopilot mode") runs its Pods
    on nodes GKE picks: a rule without a machine is not the e2 series there. Said, never refused."""
    result = evaluate(gke(spec, cpu="100"), stack_config=GCP)
    assert result.mandatory == [], result.violations
    assert f"Deployment 'api': its Pods request ComputeClass 'batch', {why}" in said(result), said(result)


def test_a_cluster_whose_default_class_serves_pods_that_request_none_is_not_all_its_pools():
    """clusterAutoscaling.defaultComputeClassEnabled: "cluster autoscaler will use Compute Class with name default for
    all the workloads, if not overriden" (pulumi-gcp): a Pod of 8 cores that requests no class, refused on the
    declared 4-core pool of a cluster without it, is said on one with it (the class named default may make larger
    nodes for it), once, naming the workload it leaves unjudged and why (issue 75: it was said of the whole cluster,
    beside the fit note)."""
    assert [v.policy for v in evaluate(gke(None, cpu="8", selector=None), stack_config=GCP).violations] == [FITS]
    for _ in range(2):
        result = evaluate(gke(None, cpu="8", selector=None, autoscaling={"default_compute_class_enabled": True}),
                          stack_config=GCP)
        assert result.violations == [], result.violations
        reasons = [reason for note in result.notes for reason in note.reasons]
        (reason,) = reasons
        assert reason.startswith("Deployment 'api': one Pod requests 8 cores of CPU"), reason
        assert reason.endswith("; but GKE cluster 'gke' gives the Pods that request no ComputeClass the one named "
                               "default (clusterAutoscaling.defaultComputeClassEnabled): GKE may create node pools the "
                               "stack does not declare for them, so this is not judged"), reason


def namespaced(labels: dict, cpu: str = "100", kind: str = "Deployment"):
    """The N4 class, a Namespace 'apps' of ``labels``, and a workload of ``kind`` in it that requests no class."""
    def program():
        cluster = gcp.container.Cluster("gke", name="gke", location="europe-west1-b", initial_node_count=1,
                                        remove_default_node_pool=True, min_master_version="1.35",
                                        release_channel={"channel": "REGULAR"})
        gcp.container.NodePool("apps", name="apps", cluster=cluster.name, location="europe-west1-b",
                               initial_node_count=1, node_config={"machine_type": "e2-standard-4"})
        provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
        opts = pulumi.ResourceOptions(provider=provider)
        k8s.apiextensions.CustomResource("batch", api_version="cloud.google.com/v1", kind="ComputeClass",
                                         metadata={"name": "batch"}, spec=N4, opts=opts)
        k8s.core.v1.Namespace("apps", metadata={"name": "apps", "labels": labels}, opts=opts)
        template = {"metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{
            "name": "api", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}}
        metadata = {"name": "api", "namespace": "apps"}
        if kind == "DaemonSet":
            k8s.apps.v1.DaemonSet("api", metadata=metadata, spec={"selector": {"matchLabels": {"app": "api"}},
                                                                  "template": template}, opts=opts)
        else:
            k8s.apps.v1.Deployment("api", metadata=metadata, spec={"replicas": 1, "selector": {
                "matchLabels": {"app": "api"}}, "template": template}, opts=opts)
    return program


def test_a_namespace_s_default_class_is_the_class_of_the_pods_that_request_none():
    """"If the namespace has a default ComputeClass, GKE modifies the Pod specification to select that ComputeClass"
    (cloud.google.com/kubernetes-engine/docs/how-to/run-pods-default-compute-classes): a Deployment that requests no
    class in a namespace labelled cloud.google.com/default-compute-class=batch runs on the class's N4 machines, not the
    declared 4-core pool: 8 cores fit, 100 are refused on the class's pool. A namespace whose default is a class the
    stack does not declare is said. Twice in one process."""
    for _ in range(2):
        assert evaluate(namespaced({"cloud.google.com/default-compute-class": "batch"}, cpu="8"),
                        stack_config=GCP).mandatory == []
        refused = evaluate(namespaced({"cloud.google.com/default-compute-class": "batch"}), stack_config=GCP)
        assert [v.policy for v in refused.mandatory] == [FITS]
        assert "pool 'batch' (ComputeClass) has at most 80 cores" in refused.findings(FITS)[0]
    other = evaluate(namespaced({"cloud.google.com/default-compute-class": "other"}), stack_config=GCP)
    assert other.mandatory == [], other.violations
    assert "Deployment 'api': its Pods request ComputeClass 'other' (its namespace 'apps''s default, which GKE writes " \
           "into them), which is not in the stack" in said(other), said(other)


def test_the_non_daemonset_default_leaves_a_daemonset_s_pods_as_they_are():
    """cloud.google.com/default-compute-class-non-daemonset gives the class to every Pod but a DaemonSet's: a Deployment
    of 8 cores there fits on the class's machines, a DaemonSet of 8 cores is refused on the declared 4-core pool."""
    label = {"cloud.google.com/default-compute-class-non-daemonset": "batch"}
    assert evaluate(namespaced(label, cpu="8"), stack_config=GCP).mandatory == []
    refused = evaluate(namespaced(label, cpu="8", kind="DaemonSet"), stack_config=GCP)
    assert [v.policy for v in refused.mandatory] == [FITS], refused.violations
    assert "pool 'apps' (GKE NodePool)" in refused.findings(FITS)[0]


def test_a_class_s_nodes_are_upgraded_by_gke_as_a_node_pool_s_are():
    """The pools GKE creates for a class auto-upgrade unless nodePoolConfig.autoUpgrade is false (the CRD reference's
    nodePoolConfig.autoUpgrade), and GKE's surge upgrade drains past a budget after an hour (gke.UPGRADES): a single
    replica there is advised against where the class writes autoUpgrade: true, as on a node pool that writes
    management.autoUpgrade; nothing where it writes false or leaves GKE's default."""
    def one(config):
        return evaluate(gke({**N4, **({"nodePoolConfig": config} if config is not None else {})}, replicas=1),
                        stack_config=GCP).findings("workload-interruption-tolerant")
    (message,) = one({"autoUpgrade": True})
    assert "pool 'batch' (ComputeClass) (GKE replaces each node at each automatic upgrade of its version " \
           "(nodePoolConfig.autoUpgrade), and deletes their Pods an hour into the drain whatever their budgets)), and " \
           "it runs one replica" in message, message
    assert one({"autoUpgrade": False}) == []
    assert one(None) == []


def test_node_auto_provisioning_makes_gpu_nodes_only_of_the_types_its_limits_cap():
    """"Configure cluster-wide GPU limits for node auto-provisioning" (cloud.google.com/kubernetes-engine/docs/concepts/
    node-auto-provisioning, "GPU selection"): a Pod that requests an NVIDIA GPU on a cluster whose resourceLimits cap
    cpu and memory only runs on its declared pools, none of which has GPUs: refused, saying why auto-provisioning adds
    none; with a T4 limit, auto-provisioning may add one, and the Pod is said, not refused. Twice in one process."""
    def program(limits):
        return gke(None, selector=None, gpus=1, autoscaling={"enabled": True, "resource_limits": [
            {"resource_type": "cpu", "maximum": 100}, {"resource_type": "memory", "maximum": 1000}, *limits]})
    for _ in range(2):
        refused = evaluate(program([]), stack_config=GCP)
        assert [v.policy for v in refused.mandatory] == [FITS], refused.violations
        assert "pool 'apps' (GKE NodePool) has at most 0 allocatable of nvidia.com/gpu (e2-standard-4); GKE cluster " \
               "'gke''s node auto-provisioning creates GPU nodes only of the types its clusterAutoscaling." \
               "resourceLimits cap, and they cap none; it can never be scheduled" in refused.findings(FITS)[0]
    capped = evaluate(program([{"resource_type": "nvidia-tesla-t4", "maximum": 4}]), stack_config=GCP)
    assert capped.mandatory == [], capped.violations
    assert "; but GKE cluster 'gke' has node auto-provisioning (clusterAutoscaling.enabled): GKE creates node pools " \
           "the stack does not declare for Pods its pools cannot take, so this is not judged" in said(capped)


def test_a_secret_machine_type_is_judged_and_never_told():
    """A priority whose machineType is a secret: the Pod is still refused on it (7911m on n4-standard-8), and the
    message names neither the machine nor its size."""
    secret = {**N4, "priorities": [{"machineType": pulumi.Output.secret("n4-standard-8")}]}
    refused = evaluate(gke(secret, cpu="7911m"), stack_config=GCP)
    assert [v.policy for v in refused.mandatory] == [FITS], refused.violations
    (message,) = refused.findings(FITS)
    assert "pool 'batch' (ComputeClass)" in message and "[secret]" in message, message
    assert "n4-standard-8" not in message and "7910m" not in message and "8 cores" not in message, message
    assert evaluate(gke(secret, cpu="7910m"), stack_config=GCP).mandatory == []


def class_said(spec) -> str:
    """What is said of a Pod of 100 cores that requests the class of ``spec`` (never refused for it)."""
    result = evaluate(gke(spec, cpu="100"), stack_config=GCP)
    assert result.mandatory == [], result.violations
    return said(result)


@pytest.mark.parametrize("spec, why", [
    ({**N4, "priorities": [{"machineFamily": "n4", "taints": [{"key": "a", "value": "b", "effect": "NoSchedule"}]}]},
     "its priorities[0] sets taints of its own, which the pack does not read"),
    ({**N4, "priorities": [{"tpu": {"type": "tpu-v5p-slice", "count": 4, "topology": "2x2x1"}}]},
     "its priorities[0] asks for TPUs, which the pack does not read"),
    # "minCores: Minimum vCPUs per node" and "minMemoryGb: Minimum memory per node": no N4 machine has 96 vCPUs, or
    # 700 GB (n4-highmem-80: 640 GiB, 687 GB)
    ({**N4, "priorities": [{"machineFamily": "n4", "minCores": 96}]},
     "has priorities no machine type of the catalog meets"),
    ({**N4, "priorities": [{"machineFamily": "n4", "minMemoryGb": 700}]},
     "has priorities no machine type of the catalog meets"),
    ({**N4, "nodePoolConfig": {"imageType": "windows_ltsc_containerd"}},
     "makes nodes of imageType windows_ltsc_containerd, which the pack does not read"),
    ({**N4, "nodePoolConfig": {"nodeLabels": {"tier": 1}}},
     "sets nodePoolConfig nodeLabels or taints that cannot be read"),
    (["not", "a", "spec"], "cannot be read"),
])
def test_what_a_class_makes_that_the_pack_does_not_read_is_said(spec, why):
    """A class whose nodes are not all read: said, naming the class and why, never refused (a Pod of 100 cores)."""
    assert f"Deployment 'api': its Pods request ComputeClass 'batch', which {why}" in class_said(spec)


def test_a_class_whose_spec_is_not_known_yet_is_said_by_its_name():
    """The class's name is known and its spec is not yet: its Pods are said with the class's own words."""
    assert "Deployment 'api': its Pods request ComputeClass 'batch', which is not known yet" in class_said(
        lambda: unknown({**N4}))


def test_a_nodepools_rule_beside_declarative_ones_leaves_the_class_read():
    """A `nodepools` rule names manually created pools, which must carry the class's label anyway: beside an N4 rule
    the class is still read, and a Pod of 100 cores is refused on its N4 machines."""
    spec = {**N4, "priorities": [{"nodepools": ["apps"]}, {"machineFamily": "n4", "minMemoryGb": 64}]}
    refused = evaluate(gke(spec, cpu="100"), stack_config=GCP)
    assert [v.policy for v in refused.mandatory] == [FITS], refused.violations
    assert "pool 'batch' (ComputeClass) has at most 80 cores" in refused.findings(FITS)[0]


def test_a_class_s_node_labels_and_taints_are_its_nodes():
    """nodePoolConfig's nodeLabels and taints are on every node the class makes, a rule's nodeLabels on that rule's
    nodes: a Pod that requests the class and selects tier=batch runs there; one that does not tolerate the class's own
    taint dedicated=batch is refused, naming it; a Pod that requests no class but selects tier=batch is refused for
    the class's taint cloud.google.com/compute-class=batch, which only the Pods that request the class tolerate."""
    config = {"nodeLabels": {"tier": "batch"}}
    assert evaluate(gke({**N4, "nodePoolConfig": config}, pod_selector={"tier": "batch"}),
                    stack_config=GCP).mandatory == []
    rule = {**N4, "priorities": [{"machineFamily": "n4", "nodeLabels": {"tier": "batch"}}]}
    assert evaluate(gke(rule, pod_selector={"tier": "batch"}), stack_config=GCP).mandatory == []
    tainted = {**N4, "nodePoolConfig": {"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]}}
    refused = evaluate(gke(tainted), stack_config=GCP)
    assert "pool 'batch' (ComputeClass) has taint dedicated=batch:NoSchedule that it does not tolerate" in \
        refused.findings(SCHEDULABLE)[0], refused.violations
    unclassed = evaluate(gke({**N4, "nodePoolConfig": config}, selector=None, pod_selector={"tier": "batch"}),
                         stack_config=GCP)
    assert "pool 'batch' (ComputeClass) has taint cloud.google.com/compute-class=batch:NoSchedule that it does not " \
           "tolerate" in unclassed.findings(SCHEDULABLE)[0], unclassed.violations


def test_a_class_without_spot_rules_makes_no_spot_node():
    """GKE labels Spot nodes only: a Pod that requests a class of no spot rule and selects cloud.google.com/gke-spot
    never runs (GKE also rejects a Pod that requests a class and Spot VMs together)."""
    refused = evaluate(gke(N4, pod_selector={"cloud.google.com/gke-spot": "true"}), stack_config=GCP)
    assert [v.policy for v in refused.mandatory] == [SCHEDULABLE], refused.violations


def test_a_class_is_on_the_cluster_its_provider_targets():
    """Two GKE clusters, each with its Kubernetes provider: the class and the Pod that requests it are on cluster 'a',
    and the refusal names the class's pool with its cluster; the same Pod on cluster 'b', where no class of that name
    is, is said."""
    def program(pod_on: str):
        def declare():
            providers = {}
            for name in ("a", "b"):
                cluster = gcp.container.Cluster(name, name=name, location="europe-west1-b", initial_node_count=1,
                                                remove_default_node_pool=True, min_master_version="1.35",
                                                release_channel={"channel": "REGULAR"})
                gcp.container.NodePool(f"{name}-apps", name=f"{name}-apps", cluster=cluster.name,
                                       location="europe-west1-b", initial_node_count=1,
                                       node_config={"machine_type": "e2-standard-4"})
                providers[name] = k8s.Provider(f"k8s-{name}", kubeconfig=cluster.endpoint)
            k8s.apiextensions.CustomResource("batch", api_version="cloud.google.com/v1", kind="ComputeClass",
                                             metadata={"name": "batch"}, spec=N4,
                                             opts=pulumi.ResourceOptions(provider=providers["a"]))
            k8s.apps.v1.Deployment("api", spec={
                "replicas": 1, "selector": {"matchLabels": {"app": "api"}}, "template": {
                    "metadata": {"labels": {"app": "api"}}, "spec": {"nodeSelector": {CLASS: "batch"}, "containers": [{
                        "name": "api", "image": "nginx", "resources": {"requests": {"cpu": "100"}}}]}}},
                opts=pulumi.ResourceOptions(provider=providers[pod_on]))
        return declare
    refused = evaluate(program("a"), stack_config=GCP)
    assert "pool 'batch' (ComputeClass) of GKE cluster 'a' has at most 80 cores" in refused.findings(FITS)[0]
    elsewhere = evaluate(program("b"), stack_config=GCP)
    assert elsewhere.mandatory == [], elsewhere.violations
    assert "its Pods request ComputeClass 'batch', which the stack declares on another cluster" in said(elsewhere)


def test_a_rule_s_max_pods_per_node_is_its_nodes_pod_slots():
    """maxPodsPerNode on every rule (the CRD's priorities[].maxPodsPerNode, 8 here) is each node's Pod slots: eight
    DaemonSets that tolerate everything take every slot of the class's nodes, so a Pod that requests the class never
    schedules; with GKE's default of 110 it does."""
    def program(max_pods):
        def declare():
            gke({**N4, "priorities": [{"machineType": "n4-standard-8", **max_pods}]})()
            provider = k8s.Provider("k8s-ds", kubeconfig="{}")
            for index in range(8):
                k8s.apps.v1.DaemonSet(f"agent-{index}", spec={
                    "selector": {"matchLabels": {"app": f"agent-{index}"}}, "template": {
                        "metadata": {"labels": {"app": f"agent-{index}"}}, "spec": {
                            "tolerations": [{"operator": "Exists"}], "containers": [{
                                "name": "agent", "image": "agent", "resources": {"requests": {"cpu": "1m"}}}]}}},
                    opts=pulumi.ResourceOptions(provider=provider))
        return declare
    full = evaluate(program({"maxPodsPerNode": 8}), stack_config=GCP)
    assert "no node of the pools that can take it has a Pod slot left: pool 'batch' (ComputeClass): a node " \
           "(machine n4-standard-8) holds at most 8 Pods" in " ".join(full.findings(FITS)), full.violations
    assert evaluate(program({}), stack_config=GCP).findings(FITS) == []
