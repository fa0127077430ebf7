"""Which cluster a resource is on: one answer (issue 67, SPEC 14.2), read by every rule.

The stack answers it (``Stack.target``, ``clusters_of``, ``cluster_for``, ``pooled``); no policy resolves a provider
or a pool's claim itself, and no policy keeps its own fallback for a resource whose cluster the pack cannot tell (six
rules had five). Here the answer is held to SPEC 14.2 written out (the oracle below), and the policies that read it
are held to give one verdict per cluster the answer names."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest

from compute_guard.testkit.analyzer import Analyzer, stack_environment
from compute_guard.testkit.program import capture_program

POLICIES = Path(__file__).resolve().parents[2] / "policies"
ROLE = "arn:aws:iam::123456789012:role/eks"
AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}


def program(clusters: tuple[str, ...], workloads: dict[str, str | None], *, fargate: str | None = None,
            depends: bool = True) -> Any:
    """EKS clusters, each with a node group and a Kubernetes provider whose kubeconfig depends on it (or, with
    ``depends`` False, on nothing: a kubeconfig from elsewhere); each workload on its cluster's provider (None: the
    default provider). ``fargate``: a cluster whose Fargate profile selects the namespace 'default'."""
    def build() -> None:
        providers = {}
        for name in clusters:
            cluster = aws.eks.Cluster(name, name=name, role_arn=ROLE, version="1.34",
                                      vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
            aws.eks.NodeGroup(f"{name}-general", cluster_name=cluster.name, node_group_name="general",
                              node_role_arn=ROLE, subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                              scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                               max_size=3))
            if name == fargate:
                aws.eks.FargateProfile(f"{name}-default", cluster_name=cluster.name, pod_execution_role_arn=ROLE,
                                       subnet_ids=["subnet-1"],
                                       selectors=[aws.eks.FargateProfileSelectorArgs(namespace="default")])
            providers[name] = k8s.Provider(name, kubeconfig=cluster.endpoint if depends else "apiVersion: v1")
        for workload, on in workloads.items():
            opts = pulumi.ResourceOptions(provider=providers[on]) if on is not None else None
            labels = {"app": workload}
            k8s.apps.v1.Deployment(workload, metadata={"name": workload, "namespace": "default"}, spec={
                "replicas": 1, "selector": {"matchLabels": labels}, "template": {
                    "metadata": {"labels": labels}, "spec": {"hostNetwork": True, "containers": [{
                        "name": workload, "image": "nginx",
                        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}}, opts=opts)
    return build


def judged(build: Any) -> tuple[Any, Any]:
    resources = capture_program(build, stack_config=AWS)
    with stack_environment(AWS, "project", "stack", True):
        analyzer = Analyzer()
        result = analyzer.run(resources)
    return result, analyzer.state.last_stack()


def oracle(clusters: tuple[str, ...], on: str | None, depends: bool) -> tuple[str, ...]:
    """SPEC 14.2 written out: a resource is on the cluster its provider's kubeconfig depends on; where the pack cannot
    tell (the default provider, a kubeconfig that depends on no cluster of the stack), every cluster is a candidate."""
    return (on,) if on is not None and depends else clusters


CASES = [(("east",), {"api": "east", "web": None}, True), (("east", "west"), {"api": "east", "web": None}, True),
         (("east", "west"), {"api": "west", "web": "east"}, False), (("east",), {"api": "east"}, False)]


@pytest.mark.parametrize("clusters, workloads, depends", CASES)
def test_the_stack_answers_which_cluster_as_spec_14_2_says(clusters, workloads, depends):
    _, stack = judged(program(clusters, workloads, depends=depends))
    for workload in stack.workloads:
        expected = oracle(clusters, workloads[workload.name], depends)
        assert tuple(cluster.name for cluster in stack.clusters_of(workload.urn)) == expected, workload.name
        one = stack.cluster_for(workload.urn)
        assert (one.name if one is not None else None) == (expected[0] if len(expected) == 1 else None)
    for pool in stack.platform_pools:  # a node group is on the cluster its clusterName depends on
        assert [cluster.name for cluster in stack.clusters_of(pool)] == [pool.urn.rsplit("::", 1)[-1].split("-")[0]]
    assert stack.pooled == {cluster.urn for cluster in stack.kube_clusters}


@pytest.mark.parametrize("clusters, on, depends, refused", [
    (("east",), "east", True, True),  # its provider's cluster: Fargate's
    (("east",), None, True, True),  # the default provider: the stack's one cluster is every candidate
    (("east", "west"), None, True, False),  # two candidates, one without Fargate: not refused
    (("east", "west"), "west", True, False),  # the other cluster
    (("east", "west"), "east", False, False),  # a kubeconfig that depends on no cluster: two candidates
])
def test_a_rule_that_reads_the_cluster_refuses_only_on_the_one_the_answer_names(clusters, on, depends, refused):
    """platform-admits-workload (a host-network Pod on Fargate) reads the one answer: it refuses where the stack
    says the workload's one cluster is the Fargate one, and nowhere else."""
    result, stack = judged(program(clusters, {"api": on}, fargate="east", depends=depends))
    (workload,) = stack.workloads
    found = result.findings("platform-admits-workload")
    assert bool(found) is refused, found
    one = stack.cluster_for(workload.urn)
    assert refused is (one is not None and one.name == "east")


READERS = re.compile(r"\.cluster\.key\b|\bindex\.(?:provider|owner|clusters)\b|kube_clusters\[0\]|"
                     r"len\((?:stack\.)?kube_clusters\) == 1")


def test_no_policy_resolves_a_cluster_itself():
    """A policy module asks the stack which cluster; it never resolves a provider, reads a claim's key, or falls back
    to the stack's only cluster on its own (the second readers issue 67 found: six rules, five fallbacks)."""
    slips = {}
    for path in sorted(POLICIES.glob("*.py")):
        code = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
        found = READERS.findall(code)
        if found:
            slips[path.name] = found
    assert slips == {}


def test_every_namespaced_object_reads_the_one_namespace_answer():
    """Which namespace (issue 67, SPEC 21): a Deployment, a PodDisruptionBudget, a ResourceQuota, a LimitRange, an
    autoscaler and a custom resource an operator makes Pods for, none naming a namespace, on a provider whose
    namespace is 'team': each is read in 'team', the namespace Stack.namespace_of gives (a custom resource's was read
    from its metadata alone: none). One written namespace wins over its provider's."""
    def build() -> None:
        provider = k8s.Provider("team", namespace="team", kubeconfig="apiVersion: v1")
        opts = pulumi.ResourceOptions(provider=provider)
        labels = {"app": "api"}
        k8s.apps.v1.Deployment("api", metadata={"name": "api"}, spec={
            "replicas": 2, "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "api", "image": "api"}]}}},
            opts=opts)
        k8s.apps.v1.Deployment("web", metadata={"name": "web", "namespace": "web"}, spec={
            "replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": {
                "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "web"}]}}},
            opts=opts)
        k8s.policy.v1.PodDisruptionBudget("api", metadata={"name": "api"}, spec={
            "maxUnavailable": 1, "selector": {"matchLabels": labels}}, opts=opts)
        k8s.core.v1.ResourceQuota("quota", metadata={"name": "quota"}, spec={"hard": {"pods": "10"}}, opts=opts)
        k8s.core.v1.LimitRange("limits", metadata={"name": "limits"}, spec={"limits": [
            {"type": "Container", "defaultRequest": {"cpu": "100m"}}]}, opts=opts)
        k8s.autoscaling.v2.HorizontalPodAutoscaler("api", metadata={"name": "api"}, spec={
            "minReplicas": 2, "maxReplicas": 4, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                                                   "name": "api"}}, opts=opts)
        k8s.apiextensions.CustomResource("runners", api_version="actions.example.com/v1", kind="RunnerSet",
                                         metadata={"name": "runners"}, opts=opts)

    _, stack = judged(build)
    read = {"Deployment": {workload.name: workload.namespace for workload in stack.workloads},
            "PodDisruptionBudget": [budget.namespace for budget in stack.budgets],
            "ResourceQuota": [quota.namespace for quota in stack.quotas],
            "LimitRange": [limits.namespace for limits in stack.limit_ranges],
            "HorizontalPodAutoscaler": [autoscaler.namespace for autoscaler in stack.autoscalers],
            "RunnerSet": [stack.namespace_of(resource.urn) for resource in stack.operated]}
    assert read == {"Deployment": {"api": "team", "web": "web"}, "PodDisruptionBudget": ["team"],
                    "ResourceQuota": ["team"], "LimitRange": ["team"], "HorizontalPodAutoscaler": ["team"],
                    "RunnerSet": ["team"]}
    for workload in stack.workloads:
        assert workload.namespace == stack.namespace_of(workload.urn)


def test_no_rule_reads_a_written_namespace_itself():
    """The parsers read what an object writes (a workload's, a budget's, a quota's), and the stack gives what names
    none its provider's (the admission step admission/namespace.py, Stack.namespace_of); no other module reads
    metadata.namespace (a budget's operator-made Pods were looked for in the written namespace of the custom resource:
    none when it names none). The admission package (model/admission/) is where namespaces are read: not globbed."""
    parsers = {"stack.py", "workloads.py", "budgets.py", "clusters.py"}
    written = re.compile(r'"metadata"\), "namespace"\)|\.get\("namespace"\)')
    slips = {path.name: written.findall(path.read_text()) for path in sorted((POLICIES / "model").glob("*.py"))
             if path.name not in parsers}
    slips.update({path.name: written.findall(path.read_text()) for path in sorted(POLICIES.glob("*.py"))})
    assert {name: found for name, found in slips.items() if found} == {}


NAMESPACE_COMPARED = re.compile(r"namespace\s*[!=]=|[!=]=\s*\w+(?:\.\w+)*\.namespace\b|\.provider\s*==")


def test_no_rule_compares_namespaces_or_providers_itself():
    """Issue 75: where two namespaced resources are is compared in one place (Stack.place and Place.meets: a namespace
    of a cluster, or a provider's one namespace while its kubeconfig is not known yet). Quotas and LimitRange defaults
    matched by provider object, and budgets by a namespace's name alone; a rule that compares namespaces or providers
    itself again fails here."""
    allowed = {"stack.py", "clusters.py"}  # (Place.meets, Unwritten.__eq__)
    slips = {}
    for path in sorted([*POLICIES.glob("*.py"), *(POLICIES / "model").glob("*.py")]):
        if path.name in allowed:
            continue
        code = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
        found = NAMESPACE_COMPARED.findall(code)
        if found:
            slips[path.name] = found
    assert slips == {}
