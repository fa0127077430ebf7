"""platform-admits-workload (issue 61, SPEC 21, policy 30): what EKS Fargate and GKE Autopilot refuse, each rule at
both sides, as their documentation writes it (docs.aws.amazon.com/eks/latest/userguide/fargate.html, "Fargate
considerations"; cloud.google.com/kubernetes-engine/docs/concepts/autopilot-security)."""

import pulumi_gcp as gcp
from builders import fargate_cluster, fargate_workload, run

POLICY = "platform-admits-workload"


def workload(kind="Deployment", namespace="apps", labels=None, **pod):
    return fargate_workload(kind, namespace, labels, **pod)


def on(cluster_parts, *parts, platform="aws"):
    return run(*cluster_parts, *parts, platform=platform).findings(POLICY)


def test_fargate_refuses_privileged_host_network_host_ports_and_gpus_of_the_pods_it_selects():
    assert on(fargate_cluster(), workload()) == []
    (message,) = on(fargate_cluster(), workload(hostNetwork=True, container={
        "securityContext": {"privileged": True}, "ports": [{"containerPort": 80, "hostPort": 80}],
        "resources": {"limits": {"nvidia.com/gpu": "1"}}}))
    assert message == (
        "Deployment 'app': on EKS cluster 'fleet', its Pods match Fargate profile 'apps', and Fargate does not run "
        "them: Fargate runs no privileged containers (app); Fargate runs no Pods on the host's network (hostNetwork); "
        "Fargate runs no Pods with host ports (app); Fargate has no GPUs; run it on a node group (a selector its Pods "
        "do not match), or drop what Fargate refuses")


def test_a_pod_no_profile_selects_on_a_fargate_only_cluster_stays_pending():
    (message,) = on(fargate_cluster(), workload(namespace="other"))
    assert message == (
        "Deployment 'app': its Pods (namespace 'other') match no Fargate profile of EKS cluster 'fleet', and the "
        "cluster has no node group in the stack: no node ever runs them, and they stay Pending; add a Fargate profile "
        "selector for them, or a node group")
    assert on(fargate_cluster(({"namespace": "o*"},)), workload(namespace="other")) == []  # a wildcard selects it
    assert on(fargate_cluster(with_group=True), workload(namespace="other")) == []  # a node group runs it
    # a selector's labels must all match
    labelled = ({"namespace": "apps", "labels": {"tier": "web"}},)
    assert len(on(fargate_cluster(labelled), workload())) == 1
    assert on(fargate_cluster(labelled), workload(labels={"tier": "web"})) == []


def test_a_daemonset_on_a_fargate_only_cluster_never_runs():
    (message,) = on(fargate_cluster(), workload("DaemonSet"))
    assert "Fargate runs no DaemonSets, and the cluster has no node group to run it on" in message
    assert on(fargate_cluster(with_group=True), workload("DaemonSet")) == []


def test_gke_autopilot_refuses_privileged_host_namespaces_and_host_paths_outside_var_log():
    def autopilot():
        return gcp.container.Cluster("auto", name="auto", location="europe-west1", enable_autopilot=True)

    assert on([autopilot], workload(namespace="default"), platform="gcp") == []
    logs = [{"name": "logs", "hostPath": {"path": "/var/log/"}}]
    assert on([autopilot], workload(namespace="default", volumes=logs), platform="gcp") == []
    (message,) = on([autopilot], workload(namespace="default", hostPID=True, volumes=[
        {"name": "docker", "hostPath": {"path": "/var/run/docker.sock"}}], container={
        "securityContext": {"privileged": True}}), platform="gcp")
    assert message == (
        "Deployment 'app': on GKE cluster 'auto', GKE Autopilot's admission refuses its Pods: Autopilot refuses "
        "privileged containers (app); Autopilot refuses the host's namespaces (hostPID); Autopilot allows hostPath "
        "volumes under /var/log/ only (/var/run/docker.sock); run it on a GKE Standard cluster's node pool, or drop "
        "what Autopilot refuses")


def test_a_karpenter_nodepool_beside_fargate_may_run_what_no_profile_selects():
    """Karpenter's controller on Fargate, its NodePools for the rest (Karpenter's getting-started shape): a NodePool
    joins its provider's cluster, which the pack cannot tell apart, so a Pod no profile selects may run there."""
    from builders import node_class, nodepool

    pools = [nodepool("general", [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]),
             node_class()]
    assert len(on(fargate_cluster(), workload(namespace="other"))) == 1
    assert on(fargate_cluster(), *pools, workload(namespace="other")) == []


def test_an_autopilot_partner_allowlist_makes_a_refusal_a_note():
    """An AllowlistSynchronizer (auto.gke.io) installs partner allowlists that may admit a Pod Autopilot otherwise
    refuses: not certain, so a note naming what it asks."""
    import pulumi_kubernetes as k8s

    def autopilot():
        return gcp.container.Cluster("auto", name="auto", location="europe-west1", enable_autopilot=True)

    def synchronizer():
        return k8s.apiextensions.CustomResource("partners", api_version="auto.gke.io/v1",
                                                kind="AllowlistSynchronizer", metadata={"name": "partners"},
                                                spec={"allowlistPaths": ["Datadog/datadog/*"]})

    privileged = workload(namespace="default", container={"securityContext": {"privileged": True}})
    assert len(on([autopilot], privileged, platform="gcp")) == 1
    result = run(autopilot, synchronizer, privileged, platform="gcp")
    assert result.findings(POLICY) == []
    (note,) = [note for note in result.notes if note.policy == POLICY]
    assert "the stack installs Autopilot partner allowlists (AllowlistSynchronizer), which may admit it" in str(note)


def pulumi_eks_fargate(profile: bool = False):
    """An EKS cluster through pulumi-eks with Fargate (eks.Cluster(fargate=True): a profile of the default and
    kube-system namespaces, no node group), or with a FargateProfile of pulumi-aws on it."""
    def declare():
        import pulumi_aws as aws
        import pulumi_eks as eks

        if profile:
            cluster = eks.Cluster("fleet", skip_default_node_group=True)
            aws.eks.FargateProfile("apps", cluster_name=cluster.eks_cluster.name,
                                   pod_execution_role_arn="arn:aws:iam::1:role/f", subnet_ids=["subnet-1"],
                                   selectors=[{"namespace": "default"}])
        else:
            eks.Cluster("fleet", fargate=True)
    return [declare]


def test_fargate_through_pulumi_eks_refuses_what_fargate_does_not_run():
    """Before issue 66 the component was a cluster with no Fargate profile of its own: a DaemonSet, a privileged Pod
    and a GPU Pod in its Fargate namespace got only a note that the cluster "has a Fargate profile"."""
    for profile, name in ((False, "fleet-fargateProfile"), (True, "apps")):
        assert on(pulumi_eks_fargate(profile), workload(namespace="default")) == []
        (privileged,) = on(pulumi_eks_fargate(profile), workload(namespace="default", container={
            "securityContext": {"privileged": True}}))
        assert f"its Pods match Fargate profile '{name}', and Fargate does not run them: Fargate runs no " \
            "privileged containers (app)" in privileged
        (gpu,) = on(pulumi_eks_fargate(profile), workload(namespace="default", container={
            "resources": {"limits": {"nvidia.com/gpu": "1"}}}))
        assert "Fargate has no GPUs" in gpu
        (daemons,) = on(pulumi_eks_fargate(profile), workload("DaemonSet", namespace="default"))
        assert "Fargate runs no DaemonSets, and the cluster has no node group to run it on" in daemons
