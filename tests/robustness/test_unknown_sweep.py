"""A value not known yet during preview never fails it: for every policy (resource, stack, remediation) on
every platform, any one field of a valid stack replaced by an unknown gives notes and no violation; and
in a broken stack, every violation that does not depend on the unknown field is still reported.

The stacks exercise every policy's inputs: a ComputeCluster with a profile pool (sizes, scale policy,
architecture) and, on the clouds, a machine pool with failure domains; placed, pinned workloads with
requests (a Deployment scaled by an HPA, a DaemonSet, a dynamic one, a worker); a baseline of the same
stack for compute-cluster-safe-update; workload-architecture-pin at level remediate.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from pulumi_policy.proxy import UNKNOWN_ARRAY_VALUE, UNKNOWN_OBJECT_VALUE, UNKNOWN_STRING_VALUE

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

GIB = 1 << 30
MACHINES = {"aws": "m8i.large", "gcp": "n2-standard-2", "azure": "Standard_D2s_v5"}  # nested virtualization
PLATFORMS = ("aws", "gcp", "azure", "kubernetes", "local")
CLUSTER_TYPE = "compute:index:ComputeCluster"


def cluster(platform: str) -> dict[str, Any]:
    pools: list[dict[str, Any]] = [{
        "groupId": "apps", "minSize": 1, "maxSize": 3,
        "profile": {"cpu": "2", "memoryBytes": 8 * GIB, "ephemeralStorageBytes": 20 * GIB, "architecture": "x86_64"},
        "scalePolicy": {"type": "autoscale", "min": {"min": 1, "max": 2, "default": 1},
                        "max": {"min": 2, "max": 3, "default": 3}}}]
    props: dict[str, Any] = {"id": "compute", "capacityGroups": pools, "dynamicContainerPool": "apps",
                             "containerCidr": "10.244.0.0/16"}
    if platform in MACHINES:
        pools.append({"groupId": "metal", "minSize": 0, "maxSize": 2, "instanceType": MACHINES[platform],
                      "nestedVirtualization": True, "profile": {"cpu": "2", "memoryBytes": 8 * GIB,
                                                                "ephemeralStorageBytes": 0, "architecture": "x86_64"}})
        props["failureDomainSpread"] = {"metal": 2}
        props["selectedFailureDomains"] = {"metal": ["zone-a", "zone-b"]}
    return props


def workload(name: str, labels: dict[str, str], spec: dict[str, Any] | None = None) -> dict[str, Any]:
    pod = {"containers": [{"name": name, "image": f"example.test/{name}:1",
                           "resources": {"requests": {"cpu": "250m", "memory": "256Mi"},
                                         "limits": {"memory": "512Mi"}}}],
           "nodeSelector": {"kubernetes.io/arch": "amd64"}}
    return {"metadata": {"name": name, "namespace": "apps", "labels": labels},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": pod}, **(spec or {})}}


PLACED = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "apps"}


def stack(platform: str) -> list[tuple[str, str, dict[str, Any]]]:
    worker = workload("report", {"compute.alien.dev/workload": "worker"})
    cron = {"metadata": worker["metadata"], "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {
        "template": worker["spec"]["template"]}}}}
    return [
        (CLUSTER_TYPE, "compute", cluster(platform)),
        ("kubernetes:apps/v1:Deployment", "api", workload("api", PLACED, {"replicas": 2})),
        ("kubernetes:apps/v1:DaemonSet", "logs", workload("logs", {**PLACED, "compute.alien.dev/workload": "daemon"})),
        ("kubernetes:apps/v1:Deployment", "jobs", workload("jobs", {"compute.alien.dev/workload": "dynamic"})),
        ("kubernetes:batch/v1:CronJob", "report", cron),
        ("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "api", {
            "metadata": {"name": "api", "namespace": "apps"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"},
                     "minReplicas": 3, "maxReplicas": 6}}),
    ]


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += paths(value, (*prefix, index))
    return found


def unknown_like(value: Any) -> str:
    return UNKNOWN_OBJECT_VALUE if isinstance(value, dict) else UNKNOWN_ARRAY_VALUE if isinstance(value, list) \
        else UNKNOWN_STRING_VALUE


def replaced(doc: Any, path: tuple) -> Any:
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = unknown_like(target[path[-1]])
    return doc


def evaluate(platform: str, documents: list[tuple[str, str, dict[str, Any]]], tmp_path):
    """Every policy, workload-architecture-pin at remediate, against a baseline of the valid stack."""
    resources = [Resource.of(kind, name, props) for kind, name, props in documents]
    valid = Resource.of(CLUSTER_TYPE, "compute", cluster(platform))
    baseline = tmp_path / f"baseline-{platform}.json"
    baseline.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": valid.urn, "type": CLUSTER_TYPE, "inputs": cluster(platform)}]}}))
    config = {"workload-architecture-pin": "remediate",
              "compute-cluster-safe-update": {"baseline": str(baseline)}}
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        result = Analyzer(config).run(resources)
    for item in result.violations + result.notes:
        assert "could not evaluate" not in item.message, item.message
    return result, resources


SPOTS = [(platform, index, path) for platform in PLATFORMS
         for index, (_, _, props) in enumerate(stack(platform)) for path in paths(props)]


def spot_id(spot: tuple) -> str:
    platform, index, path = spot
    return f"{platform}-{stack(platform)[index][1]}-{'.'.join(map(str, path))}"


def test_the_valid_stacks_are_clean_everywhere(tmp_path):
    for platform in PLATFORMS:
        result, _ = evaluate(platform, stack(platform), tmp_path)
        assert result.violations == [] and result.notes == [] and result.remediations == [], platform


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_unknown_anywhere_gives_notes_never_a_violation(platform, tmp_path):
    """One evaluation per field of the stack; every failure is listed at once."""
    failures = []
    for _, index, path in [spot for spot in SPOTS if spot[0] == platform]:
        documents = stack(platform)
        kind, name, props = documents[index]
        documents[index] = (kind, name, replaced(props, path))
        result, _ = evaluate(platform, documents, tmp_path)
        if result.violations or result.remediations:
            failures.append((spot_id((platform, index, path)),
                             [(v.policy, v.finding) for v in result.violations], len(result.remediations)))
        # a stack policy's one note lists every check it could not make: each names the resource it is about
        # (issue 57: "unknown value at .spec.replicas" alone did not say which workload went unjudged)
        names = {f"'{name}'" for _, name, _ in documents}
        unnamed = [(note.policy, reason) for note in result.notes if not note.urn for reason in note.reasons
                   if not any(name in reason for name in names)]
        if unnamed:
            failures.append((spot_id((platform, index, path)), unnamed, 0))
    assert failures == []


# --- a broken stack keeps what does not depend on the unknown ---------------------------------------

def broken(platform: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The valid stack, plus a pool whose sizes contradict (compute-cluster-valid) and a workload pinned with a
    name no node carries (workload-architecture-selector-valid): two mistakes that depend on nothing else."""
    documents = stack(platform)
    documents[0][2]["capacityGroups"].append({"groupId": "broken", "minSize": 3, "maxSize": 2})
    bad = workload("bad", {"compute.alien.dev/workload": "worker"})
    bad["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/arch": "x86_64"}
    documents.append(("kubernetes:apps/v1:Deployment", "bad", bad))
    return documents


@pytest.mark.parametrize("platform", ["aws", "kubernetes"])
def test_an_unknown_hides_no_violation_that_does_not_depend_on_it(platform, tmp_path):
    result, resources = evaluate(platform, broken(platform), tmp_path)
    cluster_urn, bad_urn = resources[0].urn, resources[-1].urn
    broken_pool = len(broken(platform)[0][2]["capacityGroups"]) - 1
    # the worker needs the stack's declared architecture (amd64), which its pin excludes
    mistakes = {("compute-cluster-valid", cluster_urn), ("workload-architecture-selector-valid", bad_urn),
                ("workload-node-architecture", bad_urn)}
    assert {(v.policy, v.urn) for v in result.violations} == mistakes
    failures = []
    documents = broken(platform)
    for index, (kind, name, props) in enumerate(documents):
        for path in paths(props):
            changed = [*documents[:index], (kind, name, replaced(props, path)), *documents[index + 1:]]
            found = {(v.policy, v.urn) for v in evaluate(platform, changed, tmp_path)[0].violations}
            # what the unknown may stand in for: the broken pool (or the pool list), the bad workload itself, and
            # for the architecture it needs, the stack's declared architectures (the cluster)
            in_broken_pool = index == 0 and path[:1] == ("capacityGroups",) and (len(path) == 1 or
                                                                                  path[1] == broken_pool)
            in_bad = index == len(documents) - 1
            depends = {m for m in mistakes if (m[0] == "compute-cluster-valid" and in_broken_pool)
                       or (m[1] == bad_urn and in_bad) or (m[0] == "workload-node-architecture" and index == 0)}
            if not (found <= mistakes and mistakes - depends <= found):
                failures.append((name, ".".join(map(str, path)), sorted(found)))
    assert failures == []


# --- the platforms' pools: an unknown anywhere is a note naming its resource, never a violation (issue 57) --------

def platform_stack(platform: str) -> list[tuple[str, str, dict[str, Any]]]:
    """A valid stack of each platform's own pools and a workload that fits them, pinned to its architecture."""
    api = {"metadata": {"name": "api", "namespace": "apps"}, "spec": {
        "replicas": 2, "selector": {"matchLabels": {"app": "api"}},
        "strategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
        "template": {"metadata": {"labels": {"app": "api"}}, "spec": {
            "nodeSelector": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
            "tolerations": [{"key": "dedicated", "operator": "Exists"}],
            "containers": [{"name": "api", "image": "i", "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}}]}}}}
    deployment = ("kubernetes:apps/v1:Deployment", "api", api)
    if platform == "aws":
        return [("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"}),
                ("aws:eks/nodeGroup:NodeGroup", "general", {
                    "clusterName": "fleet", "nodeGroupName": "general", "instanceTypes": ["m7i.large"],
                    "amiType": "AL2023_x86_64_STANDARD", "capacityType": "ON_DEMAND", "labels": {"tier": "web"},
                    "taints": [{"key": "dedicated", "value": "web", "effect": "NO_SCHEDULE"}],
                    "scalingConfig": {"desiredSize": 2, "minSize": 1, "maxSize": 3}}), deployment]
    if platform == "gcp":
        return [("gcp:container/cluster:Cluster", "gke", {"name": "gke", "location": "europe-west1-b",
                                                          "initialNodeCount": 1, "removeDefaultNodePool": True}),
                ("gcp:container/nodePool:NodePool", "general", {
                    "name": "general", "cluster": "gke", "location": "europe-west1-b", "nodeCount": 3,
                    "nodeConfig": {"machineType": "n2-standard-4", "imageType": "COS_CONTAINERD",
                                   "labels": {"tier": "web"}, "spot": False,
                                   "taints": [{"key": "dedicated", "value": "web", "effect": "NO_SCHEDULE"}]}}),
                deployment]
    if platform == "gke-class":  # a GKE ComputeClass (issue 68) whose nodes are all read, which the Pods request
        classed = {**api, "spec": {**api["spec"], "template": {**api["spec"]["template"], "spec": {
            **api["spec"]["template"]["spec"], "nodeSelector": {
                **api["spec"]["template"]["spec"]["nodeSelector"], "cloud.google.com/compute-class": "batch"}}}}}
        return [*platform_stack("gcp")[:2], ("kubernetes:cloud.google.com/v1:ComputeClass", "batch", {
                    "apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "batch"},
                    "spec": {"nodePoolAutoCreation": {"enabled": True}, "whenUnsatisfiable": "DoNotScaleUp",
                             "nodePoolConfig": {"nodeLabels": {"tier": "web"},
                                                "taints": [{"key": "dedicated", "value": "web",
                                                            "effect": "NoSchedule"}]},
                             "priorities": [{"machineFamily": "n2", "minCores": 4, "spot": True},
                                            {"machineType": "n2-standard-8", "maxPodsPerNode": 64}]}}),
                ("kubernetes:apps/v1:Deployment", "api", classed)]
    if platform == "gke-default-class":  # the same class given by its namespace (GKE writes it into the Pods), on a
        # cluster that gives Pods no cluster-level default class
        gke, pool, compute_class, _ = platform_stack("gke-class")
        gke = (gke[0], gke[1], {**gke[2], "clusterAutoscaling": {"defaultComputeClassEnabled": False}})
        return [gke, pool, compute_class, ("kubernetes:core/v1:Namespace", "apps", {
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "apps", "labels": {"cloud.google.com/default-compute-class": "batch"}}}), deployment]
    if platform == "karpenter":
        return [("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "default", {
                    "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
                    "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                             "kubelet": {"maxPods": 58}}}),
                ("kubernetes:karpenter.sh/v1:NodePool", "general", {
                    "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"},
                    "spec": {"limits": {"cpu": "64"}, "template": {
                        "metadata": {"labels": {"tier": "web"}},
                        "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                  "name": "default"},
                                 "taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}],
                                 "requirements": [
                                     {"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                      "values": ["m7i"]},
                                     {"key": "karpenter.sh/capacity-type", "operator": "In",
                                      "values": ["on-demand"]},
                                     {"key": "topology.kubernetes.io/zone", "operator": "In",
                                      "values": ["us-west-2a", "us-west-2b"]}]}}}}), deployment]
    if platform == "aks-nap":  # AKS node auto-provisioning (issue 68): its default NodePools and one of the stack's
        return [("azure-native:containerservice:ManagedCluster", "aks", {
            "resourceName": "aks", "location": "westeurope", "kubernetesVersion": "1.35",
            "supportPlan": "KubernetesOfficial", "sku": {"name": "Base", "tier": "Standard"},
            "nodeProvisioningProfile": {"mode": "Auto", "defaultNodePools": "Auto"},
            "agentPoolProfiles": [{"name": "system", "vmSize": "Standard_D4s_v5", "count": 3, "osType": "Linux",
                                   "mode": "System", "nodeTaints": ["CriticalAddonsOnly=true:NoSchedule"]}]}),
                ("kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass", "default", {
                    "apiVersion": "karpenter.azure.com/v1beta1", "kind": "AKSNodeClass",
                    "metadata": {"name": "default"}, "spec": {"imageFamily": "Ubuntu", "maxPods": 50}}),
                ("kubernetes:karpenter.sh/v1:NodePool", "general", {
                    "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"},
                    "spec": {"limits": {"cpu": "64"}, "template": {
                        "metadata": {"labels": {"tier": "web"}},
                        "spec": {"nodeClassRef": {"group": "karpenter.azure.com", "kind": "AKSNodeClass",
                                                  "name": "default"},
                                 "taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}],
                                 "requirements": [
                                     {"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["D"]},
                                     {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                                     {"key": "karpenter.sh/capacity-type", "operator": "In",
                                      "values": ["on-demand"]}]}}}}), deployment]
    return [("azure-native:containerservice:ManagedCluster", "aks", {
        "resourceName": "aks", "location": "westeurope", "networkProfile": {"networkPlugin": "azure"},
        "agentPoolProfiles": [{"name": "general", "vmSize": "Standard_D4s_v5", "count": 3, "osType": "Linux",
                               "osSKU": "AzureLinux", "availabilityZones": ["1", "2"], "nodeLabels": {"tier": "web"},
                               "nodeTaints": ["dedicated=web:NoSchedule"], "maxPods": 50}]}), deployment]


PLATFORMS = ["aws", "gcp", "azure", "karpenter", "aks-nap", "gke-class", "gke-default-class"]
PLATFORM_SPOTS = [(platform, index, path) for platform in PLATFORMS
                  for index, (_, _, props) in enumerate(platform_stack(platform)) for path in paths(props)]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_unknown_anywhere_in_a_platforms_pools_gives_notes_naming_it_never_a_violation(platform, tmp_path):
    """Each field of a valid stack of the platform's own pools and a workload on them, in turn not known yet: no
    violation, and every stack policy's note names the resource it is about (the platform sources' Unknown branches,
    each reached: issue 57)."""
    documents = platform_stack(platform)
    resources = [Resource.of(kind, name, props) for kind, name, props in documents]
    config = {"compute:platform": {"karpenter": "aws", "aks-nap": "azure", "gke-class": "gcp",
                                   "gke-default-class": "gcp"}.get(platform, platform)}
    with stack_environment(config, "project", "stack", True):
        clean = Analyzer().run(resources)
    assert clean.violations == [] and clean.notes == [], [(v.policy, v.finding) for v in clean.violations + clean.notes]
    failures = []
    for _, index, path in [spot for spot in PLATFORM_SPOTS if spot[0] == platform]:
        changed = platform_stack(platform)
        kind, name, props = changed[index]
        changed[index] = (kind, name, replaced(props, path))
        with stack_environment(config, "project", "stack", True):
            result = Analyzer().run([Resource.of(*document) for document in changed])
        where = f"{name}.{'.'.join(map(str, path))}"
        if result.violations:
            failures.append((where, [(v.policy, v.finding) for v in result.violations]))
        names = {f"'{document[1]}'" for document in changed} | {"'general'", "'fleet'", "'gke'", "'aks'"}
        unnamed = [(note.policy, reason) for note in result.notes if not note.urn for reason in note.reasons
                   if not any(found in reason for found in names)]
        if unnamed:
            failures.append((where, unnamed))
    assert failures == []
