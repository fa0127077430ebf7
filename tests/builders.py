"""Small Pulumi programs for the tests: a ComputeCluster component plus Kubernetes workloads.

Every builder returns a thunk that declares real resources with the real SDKs when the program
runs under mocks, so type tokens and camelCase shapes are what the engine would receive.
"""

from __future__ import annotations

import copy
import dataclasses
import json
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
_PROVIDERS: dict[int, dict[str, Any]] = {}  # a program's Kubernetes providers by name (kubernetes_provider)


def _program_registry(registry: dict[int, dict[Any, Any]]) -> dict[Any, Any]:
    """What one running program registered, keyed by its mock monitor (each program run has its own), which the
    registry keeps alive so that no later monitor can reuse its id."""
    from pulumi.runtime import settings as runtime_settings

    monitor = runtime_settings.get_monitor()
    found = registry.setdefault(id(monitor), {"monitor": monitor})
    assert found["monitor"] is monitor
    return found

AMD64 = {"kubernetes.io/arch": "amd64"}
ARM64 = {"kubernetes.io/arch": "arm64"}
GIB = 1 << 30
# What a workload's one container requests where a test is not about requests: small, and declared (a workload that
# requests no CPU and no memory on a pool the capacity rules count is workload-requests-declared's finding)
DECLARED = {"cpu": "100m", "memory": "128Mi"}


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


def group_node(group: Any, platform: str | None, settings: Mapping[str, Any] | None = None,
               cluster_id: str = "compute") -> Any:
    """The node of one capacity group (policies/model/cluster.py CapacityGroup) of a ComputeCluster ``cluster_id``,
    as the stack's policies build it: the group as its source's pool, its nodes with the allocatable setting."""
    from compute_guard.policies.model.cluster import Cluster, ClusterEntry
    from compute_guard.policies.model.loads import pool_nodes
    from compute_guard.policies.model.sources.compute_cluster import pools
    from compute_guard.policies.model.stack import Stack

    cluster = Cluster(cluster_id, cluster_id, (group,), None, None, None)
    (pool,) = pools(ClusterEntry(f"urn:{cluster_id}", cluster_id, cluster))
    found = pool_nodes(Stack(), pool, platform, settings or {})
    return found[0][1] if isinstance(found, list) else found


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
             pod: Mapping[str, Any] | None = None, spec: Mapping[str, Any] | None = None,
             provider: str | None = None) -> Part:
    """A workload of any kind with the real pulumi-kubernetes class for it; with ``after`` (another
    part), registered after what that part declares, which it depends on. ``requests`` are its one
    container's, ``pod`` more pod-spec fields, ``spec`` more fields of the workload's own spec
    (replicas, parallelism); ``provider``: the name of a kubernetes_provider declared before it."""
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
        opts = pulumi.ResourceOptions(depends_on=[after()] if after is not None else None,
                                      provider=_program_registry(_PROVIDERS)[provider] if provider else None)
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
    api.setdefault("requests", DECLARED)
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
    {"pool-capacity": {"allocatable": {"pools": {"compute/apps/x": {"maxPods": 20}}}}},  # not '[<cluster>/]<pool>'
    {"pool-capacity": {"allocatable": {"mars": {"maxPods": 20}}}},
]
LET_THROUGH = [{"cloud-machine-catalog": {"platfrom": "aws"}}, {"no-such-policy": "advisory"}]


# --- Karpenter (SPEC section 14): NodePools and EC2NodeClasses as pulumi-kubernetes custom resources ----------

KARPENTER = SHARED / "third_party" / "karpenter"


def nodepool(name: str, requirements: list[dict[str, Any]] | None = None, *, taints: list[dict[str, Any]] | None = None,
             labels: Mapping[str, str] | None = None, node_class: str = "default",
             limits: Mapping[str, Any] | None = None, lifetime: Mapping[str, str] | None = None,
             auto_mode: bool = False) -> Part:
    """A karpenter.sh/v1 NodePool through apiextensions.CustomResource, as a Pulumi program declares one
    (``lifetime``: its template spec's expireAfter and terminationGracePeriod; ``auto_mode``: of EKS Auto Mode's
    NodeClass)."""
    template_spec: dict[str, Any] = {
        "requirements": requirements if requirements is not None else [],
        "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": node_class} if auto_mode
        else {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": node_class}}
    template_spec.update(lifetime or {})
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


def budget(name: str, selector: Mapping[str, Any] | None = None, *, namespace: str | None = None,
           after: Part | None = None, **spec: Any) -> Part:
    """A policy/v1 PodDisruptionBudget; ``selector`` defaults to the Pods of the workload named ``name`` (app=name),
    ``spec`` its minAvailable or maxUnavailable (camelCase, as written in a manifest)."""
    metadata: dict[str, Any] = {"name": name, **({"namespace": namespace} if namespace else {})}
    chosen = dict(selector) if selector is not None else {"matchLabels": {"app": name}}

    def declare() -> Any:
        opts = pulumi.ResourceOptions(depends_on=[after()] if after is not None else None)
        return k8s.policy.v1.PodDisruptionBudget(name, opts=opts, metadata=metadata,
                                                 spec={"selector": chosen, **spec})

    return declare


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


# --- The clusters platform pools join (SPEC 14.2) ---------------------------------------------------------------
# A pool joins the cluster its inputs name: the builders' pools name 'fleet', and declare it once per program (a
# pool of a cluster the stack does not declare is judged only as possible: pass declare=False to see that).

_DECLARED: dict[int, dict[str, Any]] = {}


def declared_cluster(platform: str, name: str = "fleet") -> Any:
    """The cluster resource named ``name`` on a platform, declared the first time a program asks for it."""
    declared = _program_registry(_DECLARED)
    if (platform, name) in declared:
        return None
    declared[(platform, name)] = True
    return cluster_resource(platform, name)()


def cluster_resource(platform: str, name: str = "fleet", resource_name: str | None = None, **more: Any) -> Part:
    """A platform's cluster resource named ``name`` (EKS, GKE, or an azure-native AKS ManagedCluster)."""
    def declare() -> Any:
        if platform == "aws":
            import pulumi_aws as aws

            return aws.eks.Cluster(resource_name or name, name=name, role_arn="arn:aws:iam::123456789012:role/eks",
                                   vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1", "subnet-2"]),
                                   **more)
        if platform == "gcp":
            import pulumi_gcp as gcp

            return gcp.container.Cluster(resource_name or name, name=name, location="europe-west1",
                                         remove_default_node_pool=True, initial_node_count=1, **more)
        import pulumi_azure_native as azure_native

        return azure_native.containerservice.ManagedCluster(resource_name or name, resource_name_=name,
                                                            resource_group_name="rg", dns_prefix=name, **more)

    return declare


# --- EKS managed node groups (SPEC section 14), through pulumi-aws as a program declares them ------------------

def node_group(name: str, instance_types: list[str] | None = None, *, ami_type: str | None = None,
               labels: Mapping[str, str] | None = None, taints: list[tuple[str, str, str]] | None = None,
               max_size: int = 3, node_group_name: str | None = None, cluster: str = "fleet",
               declare_cluster: bool = True, min_size: int = 1) -> Part:
    """An aws.eks.NodeGroup (pulumi-aws): taints as (key, value, effect) with the API's effects (NO_SCHEDULE)."""
    import pulumi_aws as aws

    def declare() -> Any:
        if declare_cluster:
            declared_cluster("aws", cluster)
        return aws.eks.NodeGroup(
            name, cluster_name=cluster, node_group_name=node_group_name or name,
            node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1", "subnet-2"],
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=min_size, max_size=max_size),
            instance_types=instance_types, ami_type=ami_type, labels=dict(labels) if labels else None,
            taints=[aws.eks.NodeGroupTaintArgs(key=k, value=v or None, effect=e) for k, v, e in taints or []] or None)

    return declare


def gke_node_pool(name: str, machine_type: str | None = None, *, labels: Mapping[str, str] | None = None,
                  taints: list[tuple[str, str, str]] | None = None, cluster: str = "fleet",
                  declare_cluster: bool = True, accelerator: Mapping[str, Any] | None = None,
                  location: str = "europe-west1", autoscaling: Mapping[str, Any] | None = None) -> Part:
    """A gcp.container.NodePool (pulumi-gcp): taints with the API's effects (NO_SCHEDULE); ``accelerator``, the
    arguments of one entry of nodeConfig.guestAccelerators (type, count, gpu_sharing_config), as GKE's GPU guide
    attaches a T4 to an n1-standard-4."""
    import pulumi_gcp as gcp

    def declare() -> Any:
        if declare_cluster:
            declared_cluster("gcp", cluster)
        config = gcp.container.NodePoolNodeConfigArgs(
            machine_type=machine_type, labels=(dict(labels) if isinstance(labels, Mapping) else labels) or None,
            taints=[gcp.container.NodePoolNodeConfigTaintArgs(key=k, value=v, effect=e) for k, v, e in taints or []]
            or None,
            guest_accelerators=[gcp.container.NodePoolNodeConfigGuestAcceleratorArgs(**accelerator)]
            if accelerator else None)
        return gcp.container.NodePool(name, name=name, cluster=cluster, location=location, node_count=1,
                                      node_config=config, autoscaling=gcp.container.NodePoolAutoscalingArgs(
                                          **autoscaling) if autoscaling else None)

    return declare


def aks_node_pool(name: str, vm_size: str, *, labels: Mapping[str, str] | None = None,
                  taints: list[str] | None = None, native: bool = False, cluster: str = "fleet",
                  declare_cluster: bool = True, min_count: int | None = None) -> Part:
    """An AKS node pool: azure.containerservice.KubernetesClusterNodePool (pulumi-azure), or with ``native`` an
    azure-native AgentPool; taints as AKS writes them, key=value:NoSchedule; ``min_count``: autoscaling from it to
    three nodes."""

    def declare() -> Any:
        if declare_cluster:
            declared_cluster("azure", cluster)
        if native:
            import pulumi_azure_native as azure_native

            return azure_native.containerservice.AgentPool(
                name, agent_pool_name=name, resource_name_=cluster, resource_group_name="rg", vm_size=vm_size,
                count=1, node_labels=dict(labels) if labels else None, node_taints=taints,
                enable_auto_scaling=min_count is not None or None, min_count=min_count,
                max_count=3 if min_count is not None else None)
        import pulumi_azure as azure

        return azure.containerservice.KubernetesClusterNodePool(
            name, name=name, kubernetes_cluster_id="/subscriptions/0/resourceGroups/rg/providers/"
            f"Microsoft.ContainerService/managedClusters/{cluster}", vm_size=vm_size, node_count=1,
            node_labels=dict(labels) if labels else None, node_taints=taints)

    return declare


# --- A cluster's own pools (SPEC 14.1), and Kubernetes providers that target a cluster (SPEC 14.2) ---------------

def kubernetes_provider(name: str, cluster: Part | None = None) -> Part:
    """A Kubernetes provider whose kubeconfig is built from what ``cluster`` declares (its name: a property
    dependency on it, as a program's kubeconfig has), rendering to a directory; workloads name it by ``name``."""
    def declare() -> Any:
        resource = cluster() if cluster is not None else None
        source = getattr(resource, "name", None) if resource is not None else None
        kubeconfig = source.apply(lambda cluster_name: f"kubeconfig for {cluster_name}") if source is not None \
            else "kubeconfig"
        provider = k8s.Provider(name, kubeconfig=kubeconfig, render_yaml_to_directory=f"rendered-{name}")
        _program_registry(_PROVIDERS)[name] = provider
        return provider

    return declare


def self_managed_group(name: str, instance_type: str | None = "t3.medium", *, max_size: int = 2,
                       user_data: str | None = None, cluster: str = "fleet", declare_cluster: bool = True,
                       overrides: list[str] | None = None) -> Part:
    """EKS self-managed nodes as pulumi-eks registers them (nodes/nodegroup.ts createNodeGroupV2): a LaunchTemplate
    (base64 user data) and an autoscaling Group tagged kubernetes.io/cluster/<cluster>."""
    import base64

    import pulumi_aws as aws

    def declare() -> Any:
        if declare_cluster:
            declared_cluster("aws", cluster)
        encoded = base64.b64encode(user_data.encode()).decode() if user_data is not None else None
        template = aws.ec2.LaunchTemplate(f"{name}-launchTemplate", image_id="ami-0123456789abcdef0",
                                          instance_type=instance_type, user_data=encoded)
        tags = [aws.autoscaling.GroupTagArgs(key=f"kubernetes.io/cluster/{cluster}", value="owned",
                                             propagate_at_launch=True)]
        if overrides:
            policy = aws.autoscaling.GroupMixedInstancesPolicyArgs(
                launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
                    launch_template_specification=aws.autoscaling
                    .GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                        launch_template_id=template.id),
                    overrides=[aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(instance_type=kind)
                               for kind in overrides]))
            return aws.autoscaling.Group(name, min_size=1, max_size=max_size, mixed_instances_policy=policy,
                                         tags=tags)
        return aws.autoscaling.Group(name, min_size=1, max_size=max_size, tags=tags,
                                     launch_template=aws.autoscaling.GroupLaunchTemplateArgs(id=template.id,
                                                                                             version="$Latest"))

    return declare


def gke_cluster(name: str = "gke", machine_type: str | None = "n1-standard-1", *, initial_node_count: int = 3,
                location: str = "europe-west1-b", node_locations: list[str] | None = None,
                node_pools: list[Mapping[str, Any]] | None = None, remove_default: bool = False,
                autopilot: bool = False, taints: list[tuple[str, str, str]] | None = None,
                labels: Mapping[str, str] | None = None) -> Part:
    """A gcp.container.Cluster with its default pool (nodeConfig, initialNodeCount per zone) or inline nodePools."""
    import pulumi_gcp as gcp

    def declare() -> Any:
        config = gcp.container.ClusterNodeConfigArgs(
            machine_type=machine_type, labels=dict(labels) if labels else None,
            taints=[gcp.container.ClusterNodeConfigTaintArgs(key=k, value=v, effect=e) for k, v, e in taints or []]
            or None) if not autopilot else None
        return gcp.container.Cluster(name, name=name, location=location, node_locations=node_locations,
                                     initial_node_count=None if autopilot else initial_node_count, node_config=config,
                                     node_pools=[dict(pool) for pool in node_pools] if node_pools else None,
                                     remove_default_node_pool=remove_default or None,
                                     enable_autopilot=autopilot or None)

    return declare


def managed_cluster(name: str = "aks", pools: list[Mapping[str, Any]] | None = None, location: str = "westus",
                    cluster_name: str | None = None, **more: Any) -> Part:
    """An azure-native ManagedCluster with inline agentPoolProfiles (azure-py-aks's shape); ``more``: its other
    arguments."""
    import pulumi_azure_native as azure_native

    def declare() -> Any:
        profiles = [dict(pool) for pool in pools] if pools is not None else [
            {"count": 3, "max_pods": 110, "mode": "System", "name": "agentpool", "os_type": "Linux",
             "type": "VirtualMachineScaleSets", "vm_size": "Standard_DS2_v2"}]
        return azure_native.containerservice.ManagedCluster(
            name, resource_name_=cluster_name, resource_group_name="rg", location=location, dns_prefix=name,
            agent_pool_profiles=profiles, **more)

    return declare


def aks_on_subnet(*profiles: Mapping[str, Any], plugin: str = "azure", mode: str | None = None,
                  pod_cidr: str | None = None, cidr: str = "10.0.1.0/24", subnet_id: str | None = None) -> Part:
    """An azure-native ManagedCluster whose agentPoolProfiles take their nodes' addresses from a Subnet of the stack,
    by the subnet's output (a first preview: by dependency), or by ``subnet_id`` written out."""
    import pulumi_azure_native as azure_native

    def declare() -> Any:
        made = azure_native.network.Subnet("aks-nodes", subnet_name="aks-nodes", resource_group_name="rg",
                                           virtual_network_name="vnet", address_prefix=cidr)
        network = {"network_plugin": plugin, **({"network_plugin_mode": mode} if mode else {}),
                   **({"pod_cidr": pod_cidr} if pod_cidr else {})}
        pools = [{**item, "vnet_subnet_id": subnet_id or made.id} for item in profiles]
        return azure_native.containerservice.ManagedCluster(
            "aks", resource_group_name="rg", location="westeurope", dns_prefix="aks", agent_pool_profiles=pools,
            network_profile=network)

    return declare


def subnet_pool(name: str = "nodes", *, max_count: int = 7, min_count: int = 1, max_pods: int = 30,
                **more: Any) -> dict[str, Any]:
    """One autoscaling agentPoolProfiles entry of Standard_D4s_v5 (aks_on_subnet's)."""
    return {"name": name, "mode": "System", "vm_size": "Standard_D4s_v5", "enable_auto_scaling": True,
            "min_count": min_count, "max_count": max_count, "count": min_count, "max_pods": max_pods,
            "os_type": "Linux", "type": "VirtualMachineScaleSets", **more}


def gke_on_range(*pools: tuple[Any, ...], cidr: str = "/22", secondary: str | None = None,
                 default_max_pods: int | None = None) -> Part:
    """A zonal GKE cluster (one zone) without its default pool, and NodePools of ``(name, max_nodes, max_pods)``, or
    ``(name, max_nodes, max_pods, min_nodes)`` (0 by default)."""
    import pulumi_gcp as gcp

    def declare() -> Any:
        policy = {"cluster_secondary_range_name": "pods"} if secondary else {"cluster_ipv4_cidr_block": cidr}
        subnetwork = None
        if secondary:
            subnetwork = gcp.compute.Subnetwork("nodes", name="nodes", network="default", region="europe-west1",
                                                ip_cidr_range="10.0.0.0/24", secondary_ip_ranges=[
                                                    {"range_name": "pods", "ip_cidr_range": secondary}])
        cluster = gcp.container.Cluster("gke", name="gke", location="europe-west1-b", initial_node_count=1,
                                        remove_default_node_pool=True, ip_allocation_policy=policy,
                                        subnetwork=subnetwork.name if subnetwork is not None else None,
                                        default_max_pods_per_node=default_max_pods)
        for name, most, max_pods, *least in pools:
            gcp.container.NodePool(name, name=name, cluster=cluster.name, location="europe-west1-b",
                                   autoscaling={"min_node_count": least[0] if least else 0, "max_node_count": most},
                                   max_pods_per_node=max_pods, node_config={"machine_type": "n2-standard-4"})
    return declare


def eks_on_subnets(max_size: int, *cidrs: str, instance_type: str = "m5.large",
                   cni: Mapping[str, str] | None = None, self_managed: bool = False) -> Part:
    """An EKS cluster whose node group (or, ``self_managed``, autoscaling group) of ``instance_type`` takes its nodes
    from subnets of the stack of ``cidrs`` (a /26 when none), with a vpc-cni add-on setting ``cni`` as its env."""
    import json

    import pulumi_aws as aws

    def declare() -> Any:
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="arn:aws:iam::123456789012:role/eks",
                                  vpc_config={"subnet_ids": ["subnet-1"]})
        subnets = [aws.ec2.Subnet(f"nodes-{index}", vpc_id="vpc-1", cidr_block=cidr) for index, cidr in
                   enumerate(cidrs or ("10.0.1.0/26",))]
        if cni is not None:
            aws.eks.Addon("vpc-cni", cluster_name=cluster.name, addon_name="vpc-cni",
                          configuration_values=json.dumps({"env": cni}))
        if self_managed:
            template = aws.ec2.LaunchTemplate("nodes-template", image_id="ami-0123456789abcdef0",
                                              instance_type=instance_type)
            aws.autoscaling.Group("nodes", min_size=0, max_size=max_size,
                                  vpc_zone_identifiers=[subnet.id for subnet in subnets],
                                  tags=[{"key": "kubernetes.io/cluster/fleet", "value": "owned",
                                         "propagate_at_launch": True}],
                                  launch_template={"id": template.id, "version": "$Latest"})
            return
        aws.eks.NodeGroup("nodes", cluster_name=cluster.name, node_group_name="nodes",
                          node_role_arn="arn:aws:iam::123456789012:role/nodes",
                          subnet_ids=[subnet.id for subnet in subnets], instance_types=[instance_type],
                          scaling_config={"desired_size": 1, "min_size": 0, "max_size": max_size})
    return declare


def quota_part(hard: Mapping[str, str], name: str = "team-quota", namespace: str = "team",
               scopes: list[str] | None = None) -> Part:
    """A ResourceQuota of ``namespace`` with ``hard``."""
    import pulumi_kubernetes as k8s

    def declare() -> Any:
        spec = {"hard": dict(hard), **({"scopes": scopes} if scopes else {})}
        return k8s.core.v1.ResourceQuota(name, metadata={"name": name, "namespace": namespace}, spec=spec)

    return declare


def namespaced_deployment(name: str, replicas: int, requests: Mapping[str, str] | None = None, *,
                          namespace: str = "team", strategy: Mapping[str, Any] | None = None,
                          limits: Mapping[str, str] | None = None, priority: str | None = None) -> Part:
    """A Deployment of one nginx container in ``namespace``, with its requests, limits, strategy and priority class."""
    import pulumi_kubernetes as k8s

    def declare() -> Any:
        resources = {**({"requests": dict(requests)} if requests else {}), **({"limits": dict(limits)} if limits
                                                                             else {})}
        spec: dict[str, Any] = {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                                "template": {"metadata": {"labels": {"app": name}}, "spec": {
                                    "containers": [{"name": name, "image": "nginx", "resources": resources}],
                                    **({"priorityClassName": priority} if priority else {})}}}
        if strategy:
            spec["strategy"] = dict(strategy)
        return k8s.apps.v1.Deployment(name, metadata={"name": name, "namespace": namespace}, spec=spec)

    return declare


def fargate_cluster(selectors: tuple[Mapping[str, Any], ...] = ({"namespace": "apps"},),
                    with_group: bool = False) -> list[Part]:
    """An EKS cluster with a Fargate profile of ``selectors``, and with ``with_group`` a node group beside it."""
    import pulumi_aws as aws

    def declare() -> Any:
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="arn:aws:iam::123456789012:role/eks",
                                  vpc_config={"subnet_ids": ["subnet-1"]})
        aws.eks.FargateProfile("apps", cluster_name=cluster.name, pod_execution_role_arn="arn:aws:iam::1:role/f",
                               subnet_ids=["subnet-1"], selectors=list(selectors))
        return cluster
    parts: list[Part] = [declare]
    if with_group:
        parts.append(node_group("general", ["m7i.large"], declare_cluster=False))
    return parts


def fargate_workload(kind: str = "Deployment", namespace: str = "apps", labels: Mapping[str, str] | None = None,
                     **pod: Any) -> Part:
    """A Deployment (or DaemonSet) 'app' of one nginx container in ``namespace``, with ``pod`` in its pod spec
    (``container``: more of its container)."""
    import pulumi_kubernetes as k8s

    def declare() -> Any:
        more = {key: value for key, value in pod.items() if key != "container"}
        spec = {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}},
                                **pod.get("container", {})}], **more}
        template = {"metadata": {"labels": {"app": "app", **(labels or {})}}, "spec": spec}
        body = {"selector": {"matchLabels": {"app": "app"}}, "template": template}
        if kind == "Deployment":
            return k8s.apps.v1.Deployment("app", metadata={"name": "app", "namespace": namespace}, spec=body)
        return k8s.apps.v1.DaemonSet("app", metadata={"name": "app", "namespace": namespace}, spec=body)
    return declare


def classic_aks_cluster(name: str = "aks", vm_size: str = "Standard_D2_v2", *, node_count: int = 2,
                        critical_only: bool = False, location: str = "eastus") -> Part:
    """A pulumi-azure KubernetesCluster with its defaultNodePool (classic-azure-py-aks-multicluster's shape)."""
    import pulumi_azure as azure

    def declare() -> Any:
        return azure.containerservice.KubernetesCluster(
            name, resource_group_name="rg", location=location, dns_prefix="sample-kube",
            default_node_pool=azure.containerservice.KubernetesClusterDefaultNodePoolArgs(
                name="aksagentpool", node_count=node_count, vm_size=vm_size,
                only_critical_addons_enabled=critical_only or None))

    return declare


def auto_mode_cluster(name: str = "auto", node_pools: list[str] | None = None, version: str | None = None) -> Part:
    """An EKS cluster in Auto Mode (computeConfig.enabled) with its built-in NodePools, at ``version``."""
    import pulumi_aws as aws

    def declare() -> Any:
        return aws.eks.Cluster(name, name=name, role_arn="arn:aws:iam::123456789012:role/eks", version=version,
                               vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1", "subnet-2"]),
                               compute_config=aws.eks.ClusterComputeConfigArgs(
                                   enabled=True, node_pools=node_pools if node_pools is not None
                                   else ["general-purpose", "system"],
                                   node_role_arn="arn:aws:iam::123456789012:role/auto"),
                               bootstrap_self_managed_addons=False)

    return declare


def digitalocean(memory, with_cluster=True):
    """A DigitalOcean cluster (pulumi-digitalocean), its node pool, and a Deployment on a provider built from it."""
    def program():
        import pulumi
        import pulumi_digitalocean as do
        import pulumi_kubernetes as k8s

        cluster = do.KubernetesCluster("do", name="do", region="nyc1", version="1.31.1-do.0", node_pool={
            "name": "workers", "size": "s-2vcpu-4gb", "node_count": 2}) if with_cluster else None
        provider = k8s.Provider("do-k8s", kubeconfig=cluster.kube_configs[0].raw_config if cluster else "{}")
        labels = {"app": "api"}
        k8s.apps.v1.Deployment("api", spec={"selector": {"matchLabels": labels}, "template": {
            "metadata": {"labels": labels}, "spec": {"containers": [{
                "name": "api", "image": "nginx", "resources": {"requests": {"cpu": "1", "memory": memory}}}]}}},
            opts=pulumi.ResourceOptions(provider=provider))
    return program


NO_POOL = "the stack declares no cluster and no pool, and names no stack that does"  # workload-schedulable's note


def besides_no_pool(notes: Any) -> list[Any]:
    """A result's notes but workload-schedulable's for a stack of workloads and no pool (SPEC 18: said once, and only
    when no cluster, pool or other stack is known; tests/testkit/test_templates.py holds its words)."""
    return [note for note in notes if not (note.policy == "workload-schedulable"
                                           and any(reason.startswith(NO_POOL) for reason in note.reasons))]


def exported(program: Any, path: Path, stack_config: Mapping[str, Any] | None = None) -> Path:
    """The program as deployed: its resources as `pulumi stack export` writes them (URN, type, inputs, outputs), at
    ``path``: a previous deployment for a policy's baseline setting."""
    from google.protobuf import json_format

    from compute_guard.testkit import capture_program
    from compute_guard.testkit.program import _as_stored

    resources = capture_program(program, stack_config=stack_config)
    path.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": r.urn, "type": r.type, "custom": bool(r.provider),
         # with the internal keys a state keeps, and without the preview's unknowns, which no state holds
         "inputs": _as_stored(json_format.MessageToDict(r.state_inputs or r.inputs)),
         "outputs": _as_stored(json_format.MessageToDict(r.outputs))} for r in resources]}}))
    return path


# --- Dynamic Resource Allocation (issue 78) ---------------------------------------------------------------------

def dra_parts(machine: str, requests: list, *, version: str = "v1", driver: bool = True, shared: bool = False,
               device_class: dict | None = None, replicas: int = 1, max_size: int = 3, pool: Part | None = None,
               constraints: list | None = None, provider: str | None = None) -> list:
    """A GPU node group of ``machine`` (or ``pool``), NVIDIA's DRA driver's Helm release (or not), a ResourceClaimTemplate (or a
    shared ResourceClaim) of ``requests`` in the pulumi-kubernetes class of ``version``, and a Deployment whose Pods
    claim it, as the driver's docs write them; all through the Kubernetes provider named ``provider`` (declared by
    kubernetes_provider before them), else the default one."""
    def declare() -> None:
        api = getattr(k8s.resource, version)
        opts = pulumi.ResourceOptions(provider=_program_registry(_PROVIDERS)[provider] if provider else None)
        if driver:
            k8s.helm.v3.Release("nvidia-dra-driver", chart="nvidia-dra-driver-gpu", opts=opts,
                                repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo="https://helm.ngc.nvidia.com/nvidia"))
        if device_class is not None:
            api.DeviceClass("class", metadata={"name": "gpu.nvidia.com"}, spec=device_class, opts=opts)
        devices: dict = {"requests": requests}
        if constraints is not None:
            devices["constraints"] = constraints
        if shared:
            api.ResourceClaim("gpus", metadata={"name": "gpus", "namespace": "default"}, spec={"devices": devices},
                              opts=opts)
        else:
            api.ResourceClaimTemplate("gpus", metadata={"name": "gpus", "namespace": "default"},
                                      spec={"spec": {"devices": devices}}, opts=opts)

    ref = {"name": "gpus", ("resourceClaimName" if shared else "resourceClaimTemplateName"): "gpus"}
    pods = deployment("train", spec={"replicas": replicas}, requests={"cpu": "100m"}, pod={"resourceClaims": [ref]},
                      provider=provider)
    return [pool or node_group("gpu", [machine], ami_type="AL2023_x86_64_NVIDIA", max_size=max_size), declare, pods]


def exact_request(device_class: str = "gpu.nvidia.com", count: int | None = 1, **more: object) -> dict:
    fields: dict = {"deviceClassName": device_class, **more}
    if count is not None:
        fields["count"] = count
    return {"name": "gpu", "exactly": fields}
