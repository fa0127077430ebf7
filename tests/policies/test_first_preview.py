"""A stack's first preview judged as surely as a deployed one (issue 75; SPEC 4, 14.2, 21).

In a first preview a Kubernetes provider's kubeconfig is built from its cluster's outputs, which are not known yet,
so the namespace of everything that writes none (its kubeconfig's current context's) is not known either. Its
property dependencies still name the cluster, and everything of that provider that writes no namespace is still in
one namespace: a workload and its budgets, quotas and LimitRanges match there whatever the kubeconfig says. Only a
match against a namespace's name (a Fargate profile's selector, a Namespace's labels, another provider's written
namespace) is not known, and it is said for that workload alone, unless every namespace it may be gives the same
verdict. On main these programs' first previews printed "can't run policy ...: string value at .kubeconfig can't be
known during preview", naming no resource, and lost every other verdict of the policy.

Each program here runs as a first preview with the kubeconfig built from the cluster's endpoint (not known yet) and
again with one built from its name (known): the verdicts are the same, reported on the same resources."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest

from compute_guard.testkit import evaluate

TEMPLATES = Path(__file__).resolve().parents[1] / "testkit" / "programs" / "templates"
AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}
ROLE = "arn:aws:iam::123456789012:role/eks"
SMALL = {"cpu": "100m", "memory": "128Mi"}


def kubeconfig(cluster: Any, known: bool) -> Any:
    """A kubeconfig as aws-py-eks builds one (its endpoint and certificate: not known in a first preview), or, with
    ``known``, one built from the cluster's name alone (known: an input)."""
    if known:
        return cluster.name.apply(lambda name: json.dumps({
            "apiVersion": "v1", "clusters": [{"name": name, "cluster": {"server": f"https://{name}.example"}}],
            "contexts": [{"name": name, "context": {"cluster": name}}], "current-context": name}))
    return pulumi.Output.all(cluster.endpoint, cluster.certificate_authority.data, cluster.name).apply(
        lambda values: json.dumps({
            "apiVersion": "v1", "clusters": [{"name": "kubernetes", "cluster": {
                "server": values[0], "certificate-authority-data": values[1]}}],
            "contexts": [{"name": "aws", "context": {"cluster": "kubernetes", "user": "aws"}}],
            "current-context": "aws", "users": [{"name": "aws", "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "aws",
                "args": ["eks", "get-token", "--cluster-name", values[2]]}}}]}))


def workload(kind: str, name: str, opts: pulumi.ResourceOptions, *, replicas: int = 1,
             requests: dict[str, str] | None = SMALL, namespace: Any = None, labels: dict[str, str] | None = None,
             pod: dict[str, Any] | None = None, container: dict[str, Any] | None = None,
             called: str | None = None) -> Any:
    """A workload of one nginx container, writing ``namespace`` when given (else its provider's); ``called``: its
    metadata.name, when not its resource's name."""
    labels = {"app": name, **(labels or {})}
    spec: dict[str, Any] = {"containers": [{"name": name, "image": "nginx", **(container or {}), **(
        {"resources": {"requests": requests}} if requests else {})}], **(pod or {})}
    body: dict[str, Any] = {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels},
                                                                              "spec": spec}}
    if kind != "DaemonSet":
        body["replicas"] = replicas
    if kind == "StatefulSet":
        body["serviceName"] = name
    metadata = {"name": called or name, **({"namespace": namespace} if namespace is not None else {})}
    return getattr(k8s.apps.v1, kind)(name, metadata=metadata, spec=body, opts=opts)


def budget(name: str, app: str, opts: pulumi.ResourceOptions, **spec: Any) -> Any:
    return k8s.policy.v1.PodDisruptionBudget(name, metadata={"name": name}, spec={
        "selector": {"matchLabels": {"app": app}}, **spec}, opts=opts)


def eks(known: bool, *, group: bool = True) -> tuple[Any, pulumi.ResourceOptions]:
    """An EKS cluster (with a node group of m7i.large, 1 to 3 nodes) and the Kubernetes provider built from it."""
    cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version="1.34",
                              vpc_config={"subnet_ids": ["subnet-1", "subnet-2"]})
    if group:
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                          subnet_ids=["subnet-1", "subnet-2"], instance_types=["m7i.large"],
                          scaling_config={"desired_size": 1, "min_size": 1, "max_size": 3})
    provider = k8s.Provider("fleet", kubeconfig=kubeconfig(cluster, known))
    return cluster, pulumi.ResourceOptions(provider=provider)


def team(known: bool, mystery: Any = "apps") -> Any:
    """A team's first month on EKS, one fault of each kind the namespace decides: a StatefulSet two budgets select, a
    budget that allows no eviction, one that selects nothing, a quota of 10 Pods under 11 replicas, a LimitRange whose
    default request no node holds, a privileged Pod in a restricted namespace; and 'mystery', a Deployment in the
    namespace ``mystery`` (a value, or a function of the cluster: one not known yet)."""
    def program() -> None:
        cluster, opts = eks(known)
        workload("StatefulSet", "db", opts, replicas=3)
        budget("db-a", "db", opts, maxUnavailable=1)
        budget("db-b", "db", opts, maxUnavailable=1)
        workload("Deployment", "api", opts, replicas=2)
        budget("api", "api", opts, maxUnavailable=0)
        budget("typo", "apii", opts, maxUnavailable=1)
        k8s.core.v1.ResourceQuota("pods", metadata={"name": "pods"}, spec={"hard": {"pods": "14"}}, opts=opts)
        workload("Deployment", "web", opts, replicas=11)
        k8s.core.v1.LimitRange("defaults", metadata={"name": "defaults", "namespace": "batch"}, spec={"limits": [
            {"type": "Container", "defaultRequest": {"cpu": "4"}}]}, opts=opts)
        workload("Deployment", "lean", opts, namespace="batch", requests=None)
        k8s.core.v1.Namespace("secure", metadata={"name": "secure", "labels": {
            "pod-security.kubernetes.io/enforce": "restricted"}}, opts=opts)
        workload("Deployment", "root", opts, namespace="secure", container={"securityContext": {"privileged": True}})
        workload("Deployment", "big", opts, requests={"cpu": "100m", "memory": "16Gi"})
        workload("Deployment", "mystery", opts, namespace=mystery(cluster) if callable(mystery) else mystery,
                 replicas=2)
    return program


def unnamed(result: Any) -> list[str]:
    """The notes that say a value is not known without naming the resource whose verdict it decides (the SDK's own
    "string value at .kubeconfig can't be known during preview")."""
    return [reason for note in result.notes for reason in note.reasons
            if reason.startswith(("string value", "a value")) or "can't run policy" in reason]


def said(result: Any) -> dict[tuple[str, str], str]:
    return {(found.policy, found.urn.rsplit("::", 1)[-1]): found.finding for found in result.violations}


EXPECTED = {("workload-disruption-allowed", "db"), ("disruption-budget-useful", "api"),
            ("disruption-budget-useful", "typo"), ("namespace-admits-workload", "pods"),
            ("namespace-admits-workload", "root"), ("workload-fits-pool", "lean"), ("workload-fits-pool", "big")}


def test_every_verdict_of_a_first_preview_is_the_known_kubeconfigs():
    """The same program, its kubeconfig known and not known yet: the same findings on the same resources, and no note
    that a kubeconfig can't be known. Twice in one process."""
    known = evaluate(team(True), stack_config=AWS)
    assert set(said(known)) == EXPECTED, said(known)
    for _ in range(2):
        first = evaluate(team(False), stack_config=AWS)
        assert set(said(first)) == EXPECTED, said(first)
        assert unnamed(first) == []
        # a workload whose namespace is its provider's may be in the restricted namespace 'secure': said of each
    # the quota's words say which namespace it is, the provider's own
    assert said(first)[("namespace-admits-workload", "pods")].startswith(
        "ResourceQuota 'pods' of the namespace provider 'fleet' gives what names none (its name not known yet) "
        "allows 14 of spec.hard.pods, but the stack's workloads there take 17 (StatefulSet 'db' 3 x 1, Deployment "
        "'api' 2 x 1, Deployment 'web' 11 x 1, Deployment 'big' 1 x 1)")
    assert said(known)[("namespace-admits-workload", "pods")].startswith(
        "ResourceQuota 'pods' of namespace 'default' allows 14 of spec.hard.pods, but the stack's workloads there take "
        "17")


def test_one_workload_whose_namespace_is_not_known_leaves_every_other_verdict_standing():
    """'mystery' writes a namespace that is not known yet (a function of the cluster's endpoint; 'apps' once known):
    every policy still judges every other workload, budget and quota as when it is known, and what is not known is said
    of 'mystery' alone. Both with the provider's kubeconfig known and not known yet. (Had it been 'default', the quota
    there would count it too: its count is a lower bound while 'mystery' may be elsewhere, still refused.)"""
    for known in (True, False):
        written = evaluate(team(known, "apps"), stack_config=AWS)
        late = evaluate(team(known, lambda cluster: cluster.endpoint.apply(lambda _: "apps")), stack_config=AWS)
        others = {key: value for key, value in said(written).items() if key[1] != "mystery"}
        assert {key: value for key, value in said(late).items() if key[1] != "mystery"} == others
        assert unnamed(late) == []
        for note in late.notes:
            for reason in note.reasons:
                assert "Deployment 'mystery'" in reason or "mystery" not in reason, reason
        assert any(reason.startswith("Deployment 'mystery'") for note in late.notes for reason in note.reasons)


def test_two_budgets_a_quota_and_a_forced_drain_in_a_first_preview():
    """The issue's three: two budgets select one StatefulSet (the eviction API refuses to evict its Pods); a quota of
    10 Pods under a Deployment of 11; a budget of 0 on a Karpenter NodePool whose nodes expire weekly with a grace
    that deletes Pods past it: each refused (or advised) in the first preview as when the kubeconfig is known."""
    def program(known: bool) -> Any:
        def declare() -> None:
            _, opts = eks(known)
            workload("StatefulSet", "db", opts, replicas=3)
            budget("db-a", "db", opts, maxUnavailable=1)
            budget("db-b", "db", opts, minAvailable=1)
            k8s.core.v1.ResourceQuota("ten", metadata={"name": "ten"}, spec={"hard": {"pods": "13"}}, opts=opts)
            workload("Deployment", "web", opts, replicas=11)
            k8s.apiextensions.CustomResource("default", api_version="karpenter.k8s.aws/v1", kind="EC2NodeClass",
                                             metadata={"name": "default"}, spec={
                                                 "amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "nodes"},
                                             opts=opts)
            k8s.apiextensions.CustomResource("weekly", api_version="karpenter.sh/v1", kind="NodePool",
                                             metadata={"name": "weekly"}, spec={"template": {
                                                 "metadata": {"labels": {"team": "batch"}}, "spec": {
                                                     "nodeClassRef": {"group": "karpenter.k8s.aws",
                                                                      "kind": "EC2NodeClass", "name": "default"},
                                                     "expireAfter": "168h", "terminationGracePeriod": "24h",
                                                     "requirements": [{"key": "kubernetes.io/arch", "operator": "In",
                                                                       "values": ["amd64"]}]}}}, opts=opts)
            workload("Deployment", "batch", opts, replicas=2, pod={"nodeSelector": {"team": "batch"}})
            budget("batch", "batch", opts, maxUnavailable=0)
        return declare

    for known in (True, False):
        result = evaluate(program(known), stack_config=AWS)
        found = said(result)
        assert "StatefulSet 'db': its Pods are selected by 2 PodDisruptionBudgets ('db-a', 'db-b')" in found[
            ("workload-disruption-allowed", "db")]
        assert "allows 13 of spec.hard.pods, but the stack's workloads there take 16 (" in found[
            ("namespace-admits-workload", "ten")]
        assert "and PodDisruptionBudget 'batch' allows no eviction of its Pods: each replacement's drain waits on " \
               "the budget only until its grace runs out" in found[("workload-interruption-tolerant", "batch")]
        assert unnamed(result) == []


# --- EKS Fargate: a namespace not known yet, and the verdict in every namespace it may be ------------------------

FARGATE = '''
import pulumi_kubernetes as k8s

provider = k8s.Provider("k8s", kubeconfig=cluster.kubeconfig_json)
opts = pulumi.ResourceOptions(provider=provider)
labels = {"app": "agent"}
k8s.apps.v1.DaemonSet("agent", metadata={"name": "agent"}, spec={
    "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
        "containers": [{"name": "agent", "image": "agent", "resources": {"requests": {"cpu": "100m"}}}]}}}, opts=opts)
labels = {"app": "root"}
k8s.apps.v1.Deployment("root", metadata={"name": "root"}, spec={
    "replicas": 2, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
        "containers": [{"name": "root", "image": "root", "securityContext": {"privileged": True},
                        "resources": {"requests": {"cpu": "100m"}}}]}}}, opts=opts)
labels = {"app": "web"}
k8s.apps.v1.Deployment("web", metadata={"name": "web"}, spec={
    "replicas": 2, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
        "containers": [{"name": "web", "image": "web", "resources": {"requests": {"cpu": "100m"}}}]}}}, opts=opts)
'''


@pytest.mark.parametrize("group", [False, True])
def test_the_eks_template_on_fargate_refuses_what_no_namespace_runs(tmp_path, group):
    """Pulumi's kubernetes-aws-python template with eks.Cluster(fargate=True): pulumi-eks skips its default node group
    and its Fargate profile selects default and kube-system. A DaemonSet and a privileged Deployment that write no
    namespace, in the first preview: wherever the kubeconfig puts them nothing runs them (the profile selects them and
    Fargate refuses them, or it does not and the cluster has no node), so both are refused, each naming both; a plain
    Deployment is clean. With a managed node group beside Fargate, the DaemonSet runs on its nodes (as aws-node and
    kube-proxy do beside CoreDNS on Fargate) and the privileged Deployment may too: neither refused, the Deployment
    said."""
    group_code = '''
eks.ManagedNodeGroup("apps", cluster=cluster, instance_types=["m7i.large"], node_role=cluster.instance_roles[0],
                     scaling_config={"min_size": 1, "desired_size": 1, "max_size": 2})
''' if group else ""
    path = tmp_path / "eks"
    shutil.copytree(TEMPLATES / "kubernetes-aws-python", path)
    main = path / "__main__.py"
    text = main.read_text()
    assert "    endpoint_public_access=True,\n" in text
    main.write_text(text.replace("    endpoint_public_access=True,\n", "    endpoint_public_access=True,\n    fargate=True,\n")
                    + group_code + FARGATE)
    for _ in range(2):
        result = evaluate(path, stack_config={"compute:platform": "aws"})
        found = {key[1]: value for key, value in said(result).items() if key[0] == "platform-admits-workload"}
        notes = [reason for note in result.notes if note.policy == "platform-admits-workload" for reason in note.reasons]
        if group:
            assert found == {}, found
            assert any("Deployment 'root': on EKS cluster 'eks-cluster', its Pods are created in the namespace "
                       "provider 'k8s' gives what names none (its name not known yet): where they match Fargate "
                       "profile" in note for note in notes), notes
            continue
        assert set(found) == {"agent", "root"}, found
        assert found["root"].startswith(
            "Deployment 'root': on EKS cluster 'eks-cluster', its Pods are created in the namespace provider 'k8s' "
            "gives what names none (its name not known yet), and in every namespace that may be, nothing runs them: "
            "where they match Fargate profile 'eks_clusterfargateProfile', and Fargate does not run them: Fargate "
            "runs no privileged containers (root); where they match no Fargate profile, the cluster has no node group "
            "in the stack: no node ever runs them, and they stay Pending"), found["root"]
        assert "Fargate runs no DaemonSets, and the cluster has no node group to run it on" in found["agent"]
        assert not [note for note in notes if "kubeconfig" in note and "its name not known yet" not in note], notes


def test_an_autoscaler_scales_the_workload_of_its_own_cluster_only():
    """One answer for "which cluster and namespace" (SPEC 14.2), for autoscalers too: two EKS clusters each run a
    Deployment 'api' of 2 replicas in `default`; an HPA of minReplicas 3 on the first scales the first only. On the
    second, a budget of minAvailable 2 keeps both its Pods (every drain blocks: advised against); on main the HPA of
    the other cluster counted there too (3 Pods, one eviction allowed) and nothing was said."""
    def program() -> None:
        providers = {}
        for name in ("east", "west"):
            cluster = aws.eks.Cluster(name, name=name, role_arn=ROLE, vpc_config={"subnet_ids": ["subnet-1"]})
            aws.eks.NodeGroup(f"{name}-general", cluster_name=cluster.name, node_group_name="general",
                              node_role_arn=ROLE, subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                              scaling_config={"desired_size": 1, "min_size": 1, "max_size": 3})
            providers[name] = pulumi.ResourceOptions(provider=k8s.Provider(name, kubeconfig=kubeconfig(cluster, True)))
            workload("Deployment", f"api-{name}", providers[name], replicas=2, labels={"tier": "api"}, called="api")
        k8s.autoscaling.v2.HorizontalPodAutoscaler("api", metadata={"name": "api"}, spec={
            "minReplicas": 3, "maxReplicas": 6, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                                                   "name": "api"}}, opts=providers["east"])
        k8s.policy.v1.PodDisruptionBudget("west", metadata={"name": "west"}, spec={
            "minAvailable": 2, "selector": {"matchLabels": {"tier": "api"}}}, opts=providers["west"])

    found = said(evaluate(program, stack_config=AWS))
    assert ("disruption-budget-useful", "west") in found, found
    assert found[("disruption-budget-useful", "west")].startswith(
        "PodDisruptionBudget 'west': it selects the 2 Pods of Deployment 'api-west', and minAvailable 2 keeps all 2")
    # the HPA still scales its own: a budget there over 3 Pods would allow one eviction
