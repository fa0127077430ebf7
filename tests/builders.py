"""Small Pulumi programs for the tests: a ComputeCluster component plus Kubernetes workloads.

Every builder returns a thunk that declares real resources with the real SDKs when the program
runs under mocks, so type tokens and camelCase shapes are what the engine would receive.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml

from compute_guard.component import (
    CapacityGroup,
    ComputeCluster,
    ComputeClusterArgs,
    MachineProfile,
)
from compute_guard.testkit import PolicyResult, evaluate

ROOT = Path(__file__).resolve().parent.parent  # the repository
# ../shared beside it: the nearest ancestor's (so a copy of the repository, like mutmut's, finds it too)
SHARED = next((parent / "shared" for parent in ROOT.parents if (parent / "shared").is_dir()), ROOT.parent / "shared")

Part = Callable[[], Any]
AMD64 = {"kubernetes.io/arch": "amd64"}
ARM64 = {"kubernetes.io/arch": "arm64"}
GIB = 1 << 30


def apps_pool(**changes: Any) -> CapacityGroup:
    """Seed K's pool: 'apps', x86_64, 2 cores, 4 GiB memory, 20 GiB disk, 1..3 machines."""
    pool = CapacityGroup(group_id="apps", min_size=1, max_size=3,
                         profile=MachineProfile(cpu="2", memory_bytes=4 * GIB, ephemeral_storage_bytes=20 * GIB,
                                                architecture="x86_64"))
    return dataclasses.replace(pool, **changes)


def seed_cluster_args(**changes: Any) -> ComputeClusterArgs:
    """Seed K's cluster: id 'compute', the apps pool, and apps as the dynamic container pool."""
    args = ComputeClusterArgs(id="compute", capacity_groups=[apps_pool()], dynamic_container_pool="apps")
    return dataclasses.replace(args, **changes)


def cluster(args: ComputeClusterArgs | None = None, name: str = "compute", after: Part | None = None) -> Part:
    """The ComputeCluster component; with ``after``, registered after what that part declares."""
    def declare() -> ComputeCluster:
        opts = pulumi.ResourceOptions(depends_on=[after()]) if after is not None else None
        return ComputeCluster(name, args or seed_cluster_args(), opts)

    return declare


def raw_cluster(props: Mapping[str, Any], name: str = "compute",
                type_token: str = "acme:infra:ComputeCluster", register_outputs: bool = False) -> Part:
    """A user's own ComputeCluster component, with whatever inputs it was given."""

    class UserCluster(pulumi.ComponentResource):
        def __init__(self) -> None:
            super().__init__(type_token, name, dict(props))
            if register_outputs:
                self.register_outputs(dict(props))

    return UserCluster


def _pod_spec(name: str, node_selector: Mapping[str, Any] | None, affinity: Mapping[str, Any] | None,
              restart: str | None = None, requests: Mapping[str, Any] | None = None,
              pod: Mapping[str, Any] | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": name, "image": f"example.test/{name}:1"}
    if requests is not None:
        container["resources"] = {"requests": dict(requests)}
    spec: dict[str, Any] = {"containers": [container], **(pod or {})}
    if node_selector is not None:
        spec["nodeSelector"] = dict(node_selector)
    if affinity is not None:
        spec["affinity"] = dict(affinity)
    if restart:
        spec["restartPolicy"] = restart
    return spec


def workload(kind: str, name: str, *, labels: Mapping[str, Any] | None = None,
             annotations: Mapping[str, Any] | None = None, template_labels: Mapping[str, Any] | None = None,
             template_annotations: Mapping[str, Any] | None = None,
             node_selector: Mapping[str, Any] | None = None, affinity: Mapping[str, Any] | None = None,
             group: Any = None, after: Part | None = None, requests: Mapping[str, Any] | None = None,
             pod: Mapping[str, Any] | None = None, spec: Mapping[str, Any] | None = None) -> Part:
    """A workload of any kind with the real pulumi-kubernetes class for it; with ``after`` (another
    part), registered after what that part declares, which it depends on. ``requests`` are its one
    container's, ``pod`` more pod-spec fields, ``spec`` more fields of the workload's own spec
    (replicas, parallelism)."""
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = dict(labels)
    if annotations:
        metadata["annotations"] = dict(annotations)
    template_metadata: dict[str, Any] = {"labels": {"app": name, **(template_labels or {})}}
    if template_annotations:
        template_metadata["annotations"] = dict(template_annotations)
    selector = {"matchLabels": {"app": name}}
    restart = "Never" if kind in ("Job", "CronJob") else None
    template = {"metadata": template_metadata, "spec": _pod_spec(name, node_selector, affinity, restart, requests, pod)}
    more = dict(spec or {})

    def declare() -> Any:
        opts = pulumi.ResourceOptions(depends_on=[after()]) if after is not None else None
        apps = group or k8s.apps.v1
        if kind == "Pod":
            return k8s.core.v1.Pod(name, opts=opts, metadata={**metadata, **template_metadata,
                                                   "labels": {**template_metadata["labels"], **(labels or {})}},
                                   spec=template["spec"])
        if kind == "PodTemplate":
            return k8s.core.v1.PodTemplate(name, opts=opts, metadata=metadata, template=template)
        if kind == "ReplicationController":
            return k8s.core.v1.ReplicationController(name, opts=opts, metadata=metadata,
                                                     spec={"selector": {"app": name}, "template": template})
        if kind == "Job":
            return k8s.batch.v1.Job(name, opts=opts, metadata=metadata, spec={"template": template, **more})
        if kind == "CronJob":
            return (group or k8s.batch.v1).CronJob(name, opts=opts, metadata=metadata, spec={
                "schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": template, **more}}})
        cls = getattr(apps, kind)
        return cls(name, opts=opts, metadata=metadata, spec={"selector": selector, "template": template, **more})

    return declare


def deployment(name: str = "api", **kwargs: Any) -> Part:
    return workload("Deployment", name, **kwargs)


def placed(cluster_id: str = "compute", pool: str = "apps", role: str | None = None) -> dict[str, str]:
    labels = {"compute.alien.dev/cluster": cluster_id, "compute.alien.dev/pool": pool}
    if role:
        labels["compute.alien.dev/workload"] = role
    return labels


def role(name: str) -> dict[str, str]:
    return {"compute.alien.dev/workload": name}


def run(*parts: Part, platform: str | None = "kubernetes", policy_config: Mapping[str, Any] | None = None,
        preview: bool = True, extra_config: Mapping[str, Any] | None = None) -> PolicyResult:
    """Evaluate every policy on a program made of ``parts``."""
    config: dict[str, Any] = dict(extra_config or {})
    if platform is not None:
        config["compute:platform"] = platform

    def program() -> None:
        for part in parts:
            part()

    return evaluate(program, stack_config=config, policy_config=policy_config, preview=preview)


def seed_stack(cluster_args: ComputeClusterArgs | None = None, **api: Any) -> tuple[Part, Part]:
    """Seed K's stack: the cluster, and container 'api' placed on compute/apps (pinned to amd64)."""
    api.setdefault("labels", placed())
    api.setdefault("node_selector", AMD64)
    return cluster(cluster_args), deployment("api", **api)


# --- straight to the analyzer: one resource's inputs, as the engine would send them -----------

CLUSTER_TYPE = "compute:index:ComputeCluster"


def valid_cluster_props(**changes: Any) -> dict[str, Any]:
    """Seed K's cluster in its JSON form."""
    props: dict[str, Any] = {
        "id": "compute",
        "capacityGroups": [{"groupId": "apps", "minSize": 1, "maxSize": 3,
                            "profile": {"cpu": "2", "memoryBytes": 4 * GIB, "ephemeralStorageBytes": 20 * GIB,
                                        "architecture": "x86_64"}}],
        "dynamicContainerPool": "apps",
    }
    props.update(changes)
    return props


def analyze(type_: str, props: Mapping[str, Any] | Any, *, name: str = "compute",
            platform: str | None = "kubernetes", policy_config: Mapping[str, Any] | None = None) -> PolicyResult:
    from compute_guard.testkit import Analyzer, Resource
    from compute_guard.testkit.analyzer import stack_environment

    config = {"compute:platform": platform} if platform else {}
    with stack_environment(config, "project", "stack", True):
        return Analyzer(policy_config).analyze(Resource.of(type_, name, props))


def cluster_findings(props: Mapping[str, Any], policy: str = "compute-cluster-valid", **kwargs: Any) -> list[str]:
    return analyze(CLUSTER_TYPE, props, **kwargs).findings(policy)


def arm_pool(group_id: str = "arm") -> CapacityGroup:
    pool = apps_pool(group_id=group_id)
    assert pool.profile is not None
    pool.profile.architecture = "arm64"
    return pool


def bare_pool(group_id: str) -> CapacityGroup:
    return CapacityGroup(group_id=group_id, min_size=0, max_size=1)


def names(violations: Any) -> list[str]:
    """The Pulumi names of the resources the violations are reported on, sorted."""
    return sorted(v.urn.rsplit("::", 1)[-1] for v in violations)


# --- ComputeCluster props, one field changed at a time ------------------------------------------

def changed(base: Any, changes: Mapping[str, Any]) -> Any:
    """A deep copy of ``base`` with fields set, or removed where the value is DROP."""
    result = copy.deepcopy(base)
    for key, value in changes.items():
        if value is DROP:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def pool(**changes: Any) -> Any:
    return changed(valid_cluster_props()["capacityGroups"][0], changes)


def profile(**changes: Any) -> Any:
    return changed(pool()["profile"], changes)


DROP: Any = object()
POOL = "ComputeCluster 'compute' pool 'apps': "
CLUSTER = "ComputeCluster 'compute': "


def with_pool(**changes: Any) -> Any:
    return valid_cluster_props(capacityGroups=[pool(**changes)])


# --- every workload kind and API version, with where it keeps its pod spec ----------------------

KINDS: list[tuple[str, Any, str]] = [
    ("Deployment", k8s.apps.v1, "spec.template.spec"),
    ("Deployment", k8s.apps.v1beta1, "spec.template.spec"),
    ("Deployment", k8s.apps.v1beta2, "spec.template.spec"),
    ("Deployment", k8s.extensions.v1beta1, "spec.template.spec"),
    ("StatefulSet", k8s.apps.v1, "spec.template.spec"),
    ("DaemonSet", k8s.apps.v1, "spec.template.spec"),
    ("DaemonSet", k8s.extensions.v1beta1, "spec.template.spec"),
    ("ReplicaSet", k8s.apps.v1, "spec.template.spec"),
    ("Job", None, "spec.template.spec"),
    ("CronJob", k8s.batch.v1, "spec.jobTemplate.spec.template.spec"),
    ("CronJob", k8s.batch.v1beta1, "spec.jobTemplate.spec.template.spec"),
    ("Pod", None, "spec"),
    ("PodTemplate", None, "template.spec"),
    ("ReplicationController", None, "spec.template.spec"),
]


# Configs the engine refuses before any resource, and configs it lets through although the pack has no
# such policy or setting (it ignores them).
REFUSED = [
    {"kubernetes-compute-enforceable": {"platform": "mars"}},
    {"compute-cluster-safe-update": {"baseline": 7}},
    {"workload-pool-placement": "sometimes"},
    {"workload-architecture-pin": {"architecture": "amd64"}},
    {"workload-pool-placement": {"helmReleases": "enforce"}},  # a stack policy's setting (moved in 0.2.0)
    {"workload-fits-pool": {"allocatable": {"aws": {"maxPods": 0}}}},
    {"workload-fits-pool": {"allocatable": {"gcp": {"kubeReserved": {"memory": "1 GiB"}}}}},  # not a quantity
    {"pool-capacity": {"allocatable": {"pools": {"apps": {"maxPods": 20}}}}},  # not '<cluster id>/<pool id>'
    {"pool-capacity": {"allocatable": {"mars": {"maxPods": 20}}}},
]
LET_THROUGH = [{"cloud-machine-catalog": {"platfrom": "aws"}}, {"no-such-policy": "advisory"}]


# --- Karpenter (SPEC section 14): NodePools and EC2NodeClasses as pulumi-kubernetes custom resources ----------

KARPENTER = SHARED / "third_party" / "karpenter"


def nodepool(name: str, requirements: list[dict[str, Any]] | None = None, *, taints: list[dict[str, Any]] | None = None,
             labels: Mapping[str, str] | None = None, node_class: str = "default",
             limits: Mapping[str, Any] | None = None) -> Part:
    """A karpenter.sh/v1 NodePool through apiextensions.CustomResource, as a Pulumi program declares one."""
    template_spec: dict[str, Any] = {
        "requirements": requirements if requirements is not None else [],
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": node_class}}
    if taints is not None:
        template_spec["taints"] = taints
    template: dict[str, Any] = {"spec": template_spec}
    if labels:
        template["metadata"] = {"labels": dict(labels)}
    spec: dict[str, Any] = {"template": template}
    if limits:
        spec["limits"] = dict(limits)
    return lambda: k8s.apiextensions.CustomResource(name, api_version="karpenter.sh/v1", kind="NodePool",
                                                    metadata={"name": name}, spec=spec)


def node_class(name: str = "default", kubelet: Mapping[str, Any] | None = None) -> Part:
    spec: dict[str, Any] = {"role": "KarpenterNodeRole-test", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}],
                            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}]}
    if kubelet is not None:
        spec["kubelet"] = dict(kubelet)
    return lambda: k8s.apiextensions.CustomResource(name, api_version="karpenter.k8s.aws/v1", kind="EC2NodeClass",
                                                    metadata={"name": name}, spec=spec)


def arch_requirement(*architectures: str) -> dict[str, Any]:
    return {"key": "kubernetes.io/arch", "operator": "In", "values": list(architectures)}


def instance_types(*names: str) -> dict[str, Any]:
    return {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(names)}


def karpenter_manifests(relative: str) -> list[dict[str, Any]]:
    """The documents of one of Karpenter's own example files (../shared/third_party/karpenter/examples/)."""
    return [document for document in yaml.safe_load_all((KARPENTER / "examples" / relative).read_text()) if document]


def from_manifest(document: Mapping[str, Any], name: str | None = None) -> Part:
    """One manifest as the pulumi-kubernetes resource a program would declare for it."""
    document = copy.deepcopy(dict(document))
    kind, api_version = document["kind"], document["apiVersion"]
    resource_name = name or document["metadata"]["name"]
    if kind == "Deployment":
        return lambda: k8s.apps.v1.Deployment(resource_name, metadata=document["metadata"], spec=document["spec"])
    return lambda: k8s.apiextensions.CustomResource(resource_name, api_version=api_version, kind=kind,
                                                    metadata=document["metadata"], spec=document["spec"])


# --- EKS managed node groups (SPEC section 14), through pulumi-aws as a program declares them ------------------

def node_group(name: str, instance_types: list[str] | None = None, *, ami_type: str | None = None,
               labels: Mapping[str, str] | None = None, taints: list[tuple[str, str, str]] | None = None,
               max_size: int = 3, node_group_name: str | None = None) -> Part:
    """An aws.eks.NodeGroup (pulumi-aws): taints as (key, value, effect) with the API's effects (NO_SCHEDULE)."""
    import pulumi_aws as aws

    def declare() -> Any:
        return aws.eks.NodeGroup(
            name, cluster_name="fleet", node_group_name=node_group_name or name,
            node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1", "subnet-2"],
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=max_size),
            instance_types=instance_types, ami_type=ami_type, labels=dict(labels) if labels else None,
            taints=[aws.eks.NodeGroupTaintArgs(key=k, value=v or None, effect=e) for k, v, e in taints or []] or None)

    return declare


def gke_node_pool(name: str, machine_type: str | None = None, *, labels: Mapping[str, str] | None = None,
                  taints: list[tuple[str, str, str]] | None = None) -> Part:
    """A gcp.container.NodePool (pulumi-gcp): taints with the API's effects (NO_SCHEDULE)."""
    import pulumi_gcp as gcp

    def declare() -> Any:
        config = gcp.container.NodePoolNodeConfigArgs(
            machine_type=machine_type, labels=dict(labels) if labels else None,
            taints=[gcp.container.NodePoolNodeConfigTaintArgs(key=k, value=v, effect=e) for k, v, e in taints or []]
            or None)
        return gcp.container.NodePool(name, name=name, cluster="fleet", location="europe-west1", node_count=1,
                                      node_config=config)

    return declare


def aks_node_pool(name: str, vm_size: str, *, labels: Mapping[str, str] | None = None,
                  taints: list[str] | None = None, native: bool = False) -> Part:
    """An AKS node pool: azure.containerservice.KubernetesClusterNodePool (pulumi-azure), or with ``native`` an
    azure-native AgentPool; taints as AKS writes them, key=value:NoSchedule."""

    def declare() -> Any:
        if native:
            import pulumi_azure_native as azure_native

            return azure_native.containerservice.AgentPool(
                name, agent_pool_name=name, resource_name_="fleet", resource_group_name="rg", vm_size=vm_size,
                count=1, node_labels=dict(labels) if labels else None, node_taints=taints)
        import pulumi_azure as azure

        return azure.containerservice.KubernetesClusterNodePool(
            name, name=name, kubernetes_cluster_id="/subscriptions/0/resourceGroups/rg/providers/"
            "Microsoft.ContainerService/managedClusters/fleet", vm_size=vm_size, node_count=1,
            node_labels=dict(labels) if labels else None, node_taints=taints)

    return declare
