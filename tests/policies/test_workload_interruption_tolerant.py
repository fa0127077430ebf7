"""workload-interruption-tolerant: a workload that can run only on spot or preemptible capacity can lose a Pod
(SPEC 16, policy 24). Each pool's capacity is worked out here from its platform's field: EKS capacityType SPOT, AKS
scaleSetPriority Spot (with AKS's taint, tolerated here), GKE spot / preemptible, Karpenter's karpenter.sh/capacity-type
requirement. Node lifetimes (SPEC 23): a Karpenter NodePool's expireAfter and terminationGracePeriod (its v1 CRD in
../shared/third_party/karpenter: 720h by default, a grace that "bypasses any blocked PDBs"), EKS Auto Mode's built-in
pools (336h and 24h, within 21 days whatever the budgets), GKE's automatic upgrades (management.autoUpgrade, true by
default: GKE waits an hour on a budget, then drains anyway)."""

from typing import Any

from builders import (
    auto_mode_cluster,
    budget,
    cluster_resource,
    deployment,
    managed_cluster,
    node_class,
    node_group,
    nodepool,
    run,
    workload,
)

POLICY = "workload-interruption-tolerant"
TINY = {"cpu": "100m"}  # CPU only: some machines a NodePool allows have no memory in the catalog (a note)
SPOT_ONLY = {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}
AMD64 = {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}


def findings(*parts: Any, platform: str = "aws") -> list[str]:
    return run(*parts, platform=platform).findings(POLICY)


def test_one_replica_on_spot_only_capacity_is_advised_against():
    (message,) = findings(node_class(), nodepool("spot", [AMD64, SPOT_ONLY]), deployment("api", requests=TINY))
    assert message == (
        "Deployment 'api': its Pods can run only on capacity the provider reclaims (pool 'spot' (NodePool) (spot)), "
        "and it runs one replica: the first reclaim takes it down (spot nodes are taken back at two minutes' notice "
        "on AWS, 30 seconds on GCP and Azure): run at least two replicas with a budget that allows one eviction, or "
        "give it a pool of on-demand nodes")
    result = run(node_class(), nodepool("spot", [AMD64, SPOT_ONLY]), deployment("api", requests=TINY), platform="aws")
    assert [(found.policy, found.level) for found in result.of(POLICY)] == [(POLICY, "advisory")]


def test_three_replicas_with_a_budget_allowing_one_eviction_are_clean_and_one_allowing_none_is_not():
    spot = nodepool("spot", [AMD64, SPOT_ONLY])
    three = deployment("api", requests=TINY, spec={"replicas": 3})
    assert findings(node_class(), spot, three, budget("api", maxUnavailable=1)) == []
    assert findings(node_class(), spot, three) == []  # three replicas, no budget: a reclaim takes one
    (message,) = findings(node_class(), spot, three, budget("api", minAvailable=3))
    assert "and PodDisruptionBudget 'api' allows no eviction of its Pods:" in message


def test_one_replica_an_hpa_may_scale_up_is_not_advised_against():
    """An HPA whose target's name is not known yet (a first preview) may keep 3 Pods of 'api': one replica is not
    certain, so nothing is advised (pool-capacity says the HPA); its target known, 3 Pods, clean too; no HPA, advised."""
    import pulumi_kubernetes as k8s

    def hpa(known: bool) -> Any:
        def declare() -> Any:
            name: Any = "api" if known else k8s.core.v1.ConfigMap("source", data={"a": "b"}).immutable.apply(
                lambda _value: "api")
            return k8s.autoscaling.v2.HorizontalPodAutoscaler("api", metadata={"name": "api"}, spec={
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}, "minReplicas": 3,
                "maxReplicas": 6})
        return declare

    spot = nodepool("spot", [AMD64, SPOT_ONLY])
    assert findings(node_class(), spot, deployment("api", requests=TINY), hpa(False)) == []
    assert findings(node_class(), spot, deployment("api", requests=TINY), hpa(True)) == []
    assert len(findings(node_class(), spot, deployment("api", requests=TINY))) == 1


def test_a_pool_of_on_demand_nodes_beside_spot_ones_is_clean():
    both = nodepool("both", [AMD64, {"key": "karpenter.sh/capacity-type", "operator": "In",
                                     "values": ["spot", "on-demand"]}])
    assert findings(node_class(), both, deployment("api", requests=TINY)) == []
    assert findings(node_class(), nodepool("spot", [AMD64, SPOT_ONLY]), nodepool("steady", [AMD64]),
                    deployment("api", requests=TINY)) == []
    # a DaemonSet runs one Pod per node wherever it lands: not this policy's
    assert findings(node_class(), nodepool("spot", [AMD64, SPOT_ONLY]), workload("DaemonSet", "agent",
                                                                                 requests=TINY)) == []


def test_a_pod_that_selects_spot_on_a_nodepool_that_allows_more_runs_on_spot_only():
    """A NodePool allowing spot and on-demand (or naming no capacity type: Karpenter starts on-demand unless a Pod
    asks otherwise) starts spot nodes for a Pod whose nodeSelector or required affinity asks for
    karpenter.sh/capacity-type spot: its one replica is as fragile as on a spot-only pool (it passed: the pool, not
    the Pod's selection, was asked). Selecting on-demand, or nothing, it is clean."""
    both = nodepool("both", [AMD64, {"key": "karpenter.sh/capacity-type", "operator": "In",
                                     "values": ["spot", "on-demand"]}])
    for pool in (both, nodepool("plain", [AMD64])):
        (message,) = findings(node_class(), pool, deployment(
            "api", requests=TINY, node_selector={"karpenter.sh/capacity-type": "spot"}))
        assert "its Pods can run only on capacity the provider reclaims (pool '" in message and "(spot)), and it " \
            "runs one replica" in message, message
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "NotIn",
                                   "values": ["on-demand", "reserved"]}]}]}}}
        assert len(findings(node_class(), pool, deployment("api", requests=TINY, affinity=affinity))) == 1
        assert findings(node_class(), pool, deployment(
            "api", requests=TINY, node_selector={"karpenter.sh/capacity-type": "on-demand"})) == []
        assert findings(node_class(), pool, deployment("api", requests=TINY)) == []


def test_each_platforms_spot_capacity():
    assert findings(node_group("spot", ["m5.large"], ami_type="AL2023_x86_64_STANDARD"),
                    deployment("api", requests=TINY)) == []  # ON_DEMAND by default
    import pulumi_aws as aws

    def eks_spot() -> Any:
        from builders import declared_cluster

        declared_cluster("aws", "fleet")
        return aws.eks.NodeGroup("spot", cluster_name="fleet", node_group_name="spot", capacity_type="SPOT",
                                 node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
                                 instance_types=["m5.large"], ami_type="AL2023_x86_64_STANDARD",
                                 scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                                   max_size=3))

    (message,) = findings(eks_spot, deployment("api", requests=TINY))
    assert "(pool 'spot' (NodeGroup) (spot))" in message
    tolerates = {"tolerations": [{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Exists"}]}
    aks = managed_cluster("aks", [{"count": 1, "mode": "User", "name": "spot", "os_type": "Linux",
                                   "vm_size": "Standard_D4s_v5", "scale_set_priority": "Spot"}])
    (message,) = findings(aks, deployment("api", requests=TINY, pod=tolerates), platform="azure")
    assert "(pool 'spot' of AKS cluster 'aks' (spot))" in message
    import pulumi_gcp as gcp

    def gke_preemptible() -> Any:
        from builders import declared_cluster

        declared_cluster("gcp", "fleet")
        return gcp.container.NodePool("cheap", name="cheap", cluster="fleet", location="europe-west1", node_count=1,
                                      node_config=gcp.container.NodePoolNodeConfigArgs(machine_type="n2-standard-4",
                                                                                       preemptible=True))

    (message,) = findings(gke_preemptible, deployment("api", requests=TINY), platform="gcp")
    assert "(pool 'cheap' (GKE NodePool) (preemptible))" in message


def test_a_job_on_spot_is_told_what_a_job_can_do():
    """Issue 66: a CronJob on spot was told to "run at least two replicas" (a Job has none): a reclaim kills the Pod
    its Job runs, which starts over and counts against its backoffLimit unless a podFailurePolicy rule ignores the
    DisruptionTarget condition; with such a rule (the hint applied), nothing is said."""
    spot = nodepool("spot", [AMD64, SPOT_ONLY])
    ignore = {"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}
    for kind in ("CronJob", "Job"):
        (message,) = findings(node_class(), spot, workload(kind, "nightly", requests=TINY))
        assert message == (
            f"{kind} 'nightly': its Pods can run only on capacity the provider reclaims (pool 'spot' (NodePool) "
            "(spot)), and it runs one Pod at a time: a reclaim (spot nodes are taken back at two minutes' notice on "
            "AWS, 30 seconds on GCP and Azure) kills the Pod it runs, whose work starts over, and the Job counts it "
            "against its backoffLimit: give the Job a podFailurePolicy rule that ignores the DisruptionTarget "
            "condition (action: Ignore), make its work resumable, or give it a pool of on-demand nodes")
        assert findings(node_class(), spot, workload(kind, "nightly", requests=TINY, spec=ignore)) == []
        failing = {"podFailurePolicy": {"rules": [{"action": "FailJob", "onPodConditions": [
            {"type": "DisruptionTarget"}]}]}}
        assert len(findings(node_class(), spot, workload(kind, "nightly", requests=TINY, spec=failing))) == 1


WEEKLY = {"expireAfter": "168h", "terminationGracePeriod": "24h"}


def test_one_replica_on_nodes_replaced_every_week_is_advised_against():
    """The karpenter repository's own max-node-lifetime example: nodes replaced after 168h, their Pods deleted 24h into
    the drain whatever their budgets. Twice in one process."""
    for _ in range(2):
        (message,) = findings(node_class(), nodepool("weekly", [AMD64], lifetime=WEEKLY),
                              deployment("api", requests=TINY))
        assert message == (
            "Deployment 'api': its Pods run only on pools whose nodes are replaced on a schedule (pool 'weekly' "
            "(NodePool) (Karpenter replaces each node after 168h (spec.template.spec.expireAfter), and deletes their "
            "Pods 24h into the drain whatever their budgets (terminationGracePeriod))), and it runs one replica: each "
            "replacement evicts it and it is down until its Pod starts again: run at least two replicas with a budget "
            "that allows one eviction, or give it a pool whose nodes do not expire")


def test_a_budget_that_allows_no_eviction_holds_only_where_the_drain_is_not_forced():
    """Without terminationGracePeriod Karpenter waits on the budget for ever (workload-disruption-allowed says that
    drain never finishes); with it, the Pods are deleted past the budget: the workload goes down on the schedule."""
    three = deployment("api", requests=TINY, spec={"replicas": 3})
    blocked = budget("api", minAvailable=3)
    (message,) = findings(node_class(), nodepool("weekly", [AMD64], lifetime=WEEKLY), three, blocked)
    assert "and PodDisruptionBudget 'api' allows no eviction of its Pods: each replacement's drain waits on the " \
           "budget only until its grace runs out, then deletes the Pods anyway" in message
    waits = nodepool("weekly", [AMD64], lifetime={"expireAfter": "168h"})
    assert findings(node_class(), waits, three, blocked) == []
    assert findings(node_class(), nodepool("weekly", [AMD64], lifetime=WEEKLY), three,
                    budget("api", maxUnavailable=1)) == []


def test_only_schedules_the_stack_declares_are_judged():
    """Karpenter's 720h default is not written by the stack (every pool's nodes are drained now and then): one replica
    there is not advised against; an expireAfter of Never neither; a pool beside it whose nodes do not expire keeps
    the workload safe."""
    one = deployment("api", requests=TINY)
    assert findings(node_class(), nodepool("plain", [AMD64]), one) == []
    assert findings(node_class(), nodepool("never", [AMD64], lifetime={"expireAfter": "Never",
                                                                       "terminationGracePeriod": "1h"}), one) == []
    (message,) = findings(node_class(), nodepool("monthly", [AMD64], lifetime={"expireAfter": "720h"}), one)
    assert "(Karpenter replaces each node after 720h (spec.template.spec.expireAfter))" in message
    assert findings(node_class(), nodepool("weekly", [AMD64], lifetime=WEEKLY), nodepool("never", [AMD64], lifetime={
        "expireAfter": "Never"}), one) == []


def test_eks_auto_mode_replaces_its_nodes_whatever_the_budgets():
    """EKS Auto Mode's built-in general-purpose pool: its nodes live 336h, their Pods deleted 24h into the drain."""
    amd64 = {"kubernetes.io/arch": "amd64"}
    (message,) = findings(auto_mode_cluster("auto"), deployment("api", requests=TINY, node_selector=amd64))
    assert "(pool 'general-purpose' of EKS cluster 'auto' (EKS Auto Mode replaces each node after 336h, and deletes " \
           "their Pods 24h into the drain whatever their budgets (terminationGracePeriod)))" in message
    assert findings(auto_mode_cluster("auto"), deployment("api", requests=TINY, node_selector=amd64,
                                                          spec={"replicas": 2})) == []


def gke_pool(management: dict[str, Any] | None = None) -> Any:
    """A pulumi-gcp NodePool of three n2-standard-4 nodes on a regional cluster; ``management``: its autoUpgrade."""
    import pulumi_gcp as gcp

    def declare() -> Any:
        cluster = cluster_resource("gcp")()
        return gcp.container.NodePool("general", name="general", cluster=cluster.name, location="europe-west1",
                                      node_count=1, node_config=gcp.container.NodePoolNodeConfigArgs(
                                          machine_type="n2-standard-4"),
                                      management=gcp.container.NodePoolManagementArgs(**management)
                                      if management is not None else None)
    return declare


def test_gkes_automatic_upgrades_drain_past_a_budget_after_an_hour():
    """Issue 68, SPEC 23: GKE upgrades a pool's nodes on its own (management.autoUpgrade, true by default) and its surge
    upgrade waits at most an hour on a PodDisruptionBudget: a budget that allows no eviction keeps nothing there.
    One replica is advised against only where the stack writes the schedule (as Karpenter's 720h default is not).
    Twice in one process."""
    three = deployment("api", requests=TINY, spec={"replicas": 3})
    blocked = budget("api", minAvailable=3)
    for _ in range(2):
        (message,) = findings(gke_pool(), three, blocked, platform="gcp")
        assert message == (
            "Deployment 'api': its Pods run only on pools whose nodes are replaced on a schedule (pool 'general' "
            "(GKE NodePool) (GKE replaces each node at each automatic upgrade of its version, and deletes their Pods "
            "an hour into the drain whatever their budgets)), and PodDisruptionBudget 'api' allows no eviction of its "
            "Pods: each replacement's drain waits on the budget only until its grace runs out, then deletes the Pods "
            "anyway, and the workload goes down on that schedule: let the budget allow one eviction with at least "
            "two replicas, or give it a pool whose nodes do not expire")
    assert findings(gke_pool(), three, budget("api", maxUnavailable=1), platform="gcp") == []
    assert findings(gke_pool({"auto_upgrade": False}), three, blocked, platform="gcp") == []
    one = deployment("api", requests=TINY)
    assert findings(gke_pool(), one, platform="gcp") == []  # GKE's default: not a schedule the stack chose
    (message,) = findings(gke_pool({"auto_upgrade": True}), one, platform="gcp")
    assert "(GKE replaces each node at each automatic upgrade of its version (management.autoUpgrade), and deletes " \
           "their Pods an hour into the drain whatever their budgets)), and it runs one replica" in message


def test_an_aks_upgrade_channel_replaces_every_node_on_aks_schedule():
    """Issue 68, SPEC 23: a cluster that writes an upgrade channel (or the NodeImage node OS channel) has AKS drain and
    replace every node of its pools on AKS's schedule: one replica goes down each time. AKS stops an upgrade on a
    blocking budget rather than force it: no forced drain, so a budget is workload-disruption-allowed's."""
    def aks(**profile: str) -> Any:
        return managed_cluster("aks", [{"name": "system", "mode": "System", "vm_size": "Standard_D4s_v5",
                                        "count": 2}], auto_upgrade_profile=profile or None)

    one = deployment("api", requests=TINY)
    for _ in range(2):
        (message,) = findings(aks(upgrade_channel="stable"), one, platform="azure")
        assert message == (
            "Deployment 'api': its Pods run only on pools whose nodes are replaced on a schedule (pool 'system' of AKS "
            "cluster 'aks' (AKS replaces each node at each automatic upgrade (stable channel) "
            "(autoUpgradeProfile.upgradeChannel))), and it runs one replica: each replacement evicts it and it is "
            "down until its Pod starts again: run at least two replicas with a budget that allows one eviction, or "
            "give it a pool whose nodes do not expire")
    (message,) = findings(aks(node_os_upgrade_channel="NodeImage"), one, platform="azure")
    assert "(AKS replaces each node at each weekly node image upgrade (autoUpgradeProfile.nodeOSUpgradeChannel))" \
        in message
    assert findings(aks(), one, platform="azure") == []
    assert findings(aks(upgrade_channel="none", node_os_upgrade_channel="None"), one, platform="azure") == []
    three = deployment("api", requests=TINY, spec={"replicas": 3})
    assert findings(aks(upgrade_channel="stable"), three, budget("api", minAvailable=3), platform="azure") == []


def test_a_classic_aks_clusters_upgrade_channel_too():
    """pulumi-azure names it automaticUpgradeChannel (v6) and nodeOsUpgradeChannel."""
    import pulumi_azure as azure_classic

    def cluster(**channels: str) -> Any:
        return lambda: azure_classic.containerservice.KubernetesCluster(
            "aks", name="aks", resource_group_name="rg", location="westeurope", dns_prefix="aks",
            identity={"type": "SystemAssigned"},
            default_node_pool={"name": "system", "vm_size": "Standard_D4s_v5", "node_count": 2}, **channels)

    one = deployment("api", requests=TINY)
    (message,) = findings(cluster(automatic_upgrade_channel="patch"), one, platform="azure")
    assert "(AKS replaces each node at each automatic upgrade (patch channel) (automaticUpgradeChannel))" in message
    (message,) = findings(cluster(node_os_upgrade_channel="NodeImage"), one, platform="azure")
    assert "(AKS replaces each node at each weekly node image upgrade (nodeOsUpgradeChannel))" in message
    assert findings(cluster(node_os_upgrade_channel="SecurityPatch"), one, platform="azure") == []


def test_a_nodepool_that_writes_its_consolidation_evicts_one_replica_when_it_consolidates():
    """Issue 68, SPEC 23: consolidation (spec.disruption.consolidationPolicy WhenEmptyOrUnderutilized or Balanced)
    removes a node Karpenter finds underused, evicting its Pods within their budgets: written, one replica is advised
    against; the CRD's default (unwritten) and WhenEmpty (empty nodes only) are not; a budget that allows no eviction
    keeps consolidation off the node (not forced)."""
    import pulumi_kubernetes as k8s

    def consolidating(policy: str | None) -> Any:
        spec = {"template": {"spec": {"requirements": [AMD64], "nodeClassRef": {
            "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}
        if policy is not None:
            spec["disruption"] = {"consolidationPolicy": policy, "consolidateAfter": "1m"}
        return lambda: k8s.apiextensions.CustomResource("general", api_version="karpenter.sh/v1", kind="NodePool",
                                                        metadata={"name": "general"}, spec=spec)

    one = deployment("api", requests=TINY)
    (message,) = findings(node_class(), consolidating("WhenEmptyOrUnderutilized"), one)
    assert "(pool 'general' (NodePool) (Karpenter replaces each node whenever consolidation (WhenEmptyOrUnderutilized) " \
           "finds it underused (spec.disruption.consolidationPolicy))), and it runs one replica" in message
    (message,) = findings(node_class(), consolidating("Balanced"), one)
    assert "whenever consolidation (Balanced) finds it underused" in message
    assert findings(node_class(), consolidating(None), one) == []
    assert findings(node_class(), consolidating("WhenEmpty"), one) == []
    three = deployment("api", requests=TINY, spec={"replicas": 3})
    assert findings(node_class(), consolidating("WhenEmptyOrUnderutilized"), three,
                    budget("api", minAvailable=3)) == []
