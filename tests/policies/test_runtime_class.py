"""A RuntimeClass's scheduling (kubernetes.io/docs/concepts/containers/runtime-class, "Scheduling"): the RuntimeClass
admission plugin merges the class's nodeSelector into the Pod's and adds its tolerations before the scheduler sees the
Pod. Before this, a Pod whose class tolerates a pool's taint was refused for that taint (a false violation), and one
whose class selects nodes no pool has passed. Through pulumi-kubernetes' own RuntimeClass, twice in one process."""

from __future__ import annotations

import pulumi_kubernetes as k8s
from builders import deployment, instance_types, nodepool, run

TAINT = {"key": "kata", "value": "true", "effect": "NoSchedule"}
AMD64 = {"kubernetes.io/arch": "amd64"}


def runtime_class(selector=None, tolerations=None, name="kata"):
    def part():
        scheduling = {}
        if selector is not None:
            scheduling["node_selector"] = selector
        if tolerations is not None:
            scheduling["tolerations"] = tolerations
        k8s.node.v1.RuntimeClass(name, metadata={"name": name}, handler="kata", scheduling=scheduling or None)
    return part


def kata_pool():
    return nodepool("kata", [instance_types("m7i.large")], taints=[TAINT], labels={"kata": "true"})


def pod(node_selector=None):
    return deployment("api", node_selector=node_selector or AMD64, requests={"cpu": "100m"},
                      pod={"runtimeClassName": "kata"})


def said(result, policy="workload-schedulable"):
    return [note.reasons[0] for note in result.notes if note.policy == policy]


def test_a_runtime_class_that_tolerates_the_pools_taint_is_no_refusal():
    tolerating = runtime_class({"kata": "true"}, [{"key": "kata", "operator": "Exists", "effect": "NoSchedule"}])
    for _ in range(2):
        result = run(kata_pool(), tolerating, pod(), platform="aws")
        assert result.violations == [] and said(result) == []
    # without the class's toleration the taint keeps the Pods off, as written
    refused = run(kata_pool(), runtime_class({"kata": "true"}), pod(), platform="aws")
    assert [v.policy for v in refused.violations] == ["workload-schedulable"]
    assert "has taint kata=true:NoSchedule that it does not tolerate" in refused.violations[0].finding


def test_a_runtime_class_that_selects_nodes_no_pool_has_is_refused():
    """Its nodeSelector is the Pods' too: no pool carries sandbox=gvisor, so no pool takes them."""
    for _ in range(2):
        result = run(nodepool("general", [instance_types("m7i.large")]), runtime_class({"sandbox": "gvisor"}),
                     pod(), platform="aws")
        (found,) = result.violations
        assert found.policy == "workload-schedulable"
        assert found.finding.startswith("Deployment 'api': no pool can run its Pods: pool 'general' (NodePool) does not "
                                        "have label sandbox=gvisor")


def test_a_runtime_class_the_stack_does_not_show_is_said_never_judged():
    for _ in range(2):
        result = run(kata_pool(), pod(), platform="aws")
        assert result.violations == []
        assert said(result) == ["Deployment 'api': its Pods' RuntimeClass 'kata' is not in the stack, so the node "
                                "selector and tolerations it gives them (RuntimeClass scheduling) are not known and "
                                "where they can run is not judged"]


def test_a_runtime_class_whose_selector_disagrees_with_the_pods_is_said():
    result = run(kata_pool(), runtime_class({"kubernetes.io/arch": "arm64"}), pod(), platform="aws")
    assert result.violations == []
    assert said(result) == ["Deployment 'api': its nodeSelector and its RuntimeClass's disagree on "
                            "'kubernetes.io/arch': the RuntimeClass admission plugin rejects such a Pod, so where it "
                            "runs is not judged"]


def test_two_clusters_that_each_declare_kata_give_each_its_own():
    """Issue 75: RuntimeClasses were kept by name for the whole stack, so of two clusters that each declare 'kata' the
    one declared last gave every workload its scheduling: a Pod on the cluster whose kata tolerates its tainted pool
    was refused for the taint when the other cluster's kata came last (a false violation one way round). Each cluster
    gives its own, in either order."""
    import pulumi
    import pulumi_aws as aws

    role = "arn:aws:iam::123456789012:role/eks"

    def program(order: tuple[str, ...]):
        def declare():
            providers = {}
            for name in ("east", "west"):
                cluster = aws.eks.Cluster(name, name=name, role_arn=role, vpc_config={"subnet_ids": ["subnet-1"]})
                aws.eks.NodeGroup(f"{name}-kata", cluster_name=cluster.name, node_group_name="kata",
                                  node_role_arn=role, subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                                  labels={"kata": "true"}, scaling_config={"desired_size": 1, "min_size": 1,
                                                                           "max_size": 2},
                                  taints=[{"key": "kata", "value": "true", "effect": "NO_SCHEDULE"}] if name == "east"
                                  else None)
                providers[name] = pulumi.ResourceOptions(provider=k8s.Provider(name, kubeconfig=cluster.endpoint))
            for name in order:  # east's kata tolerates its taint; west's gives nothing
                scheduling = {"node_selector": {"kata": "true"}, "tolerations": [
                    {"key": "kata", "operator": "Exists", "effect": "NoSchedule"}]} if name == "east" else None
                k8s.node.v1.RuntimeClass(f"{name}-kata", metadata={"name": "kata"}, handler="kata",
                                         scheduling=scheduling, opts=providers[name])
            k8s.apps.v1.Deployment("api", metadata={"name": "api"}, spec={
                "replicas": 1, "selector": {"matchLabels": {"app": "api"}}, "template": {
                    "metadata": {"labels": {"app": "api"}}, "spec": {
                        "runtimeClassName": "kata", "nodeSelector": AMD64,
                        "containers": [{"name": "api", "image": "api", "resources": {"requests": {"cpu": "100m"}}}]}}},
                opts=providers["east"])
        return declare

    for order in (("east", "west"), ("west", "east")):
        result = run(program(order), platform="aws")
        assert [v.policy for v in result.violations if v.policy == "workload-schedulable"] == [], (order, result)
        assert said(result) == [], order
