"""Pulumi transforms that place Kubernetes workloads for compute-guard (copy this file).

Helm charts and YAML manifests rarely pin their Pods to a CPU architecture, and they never carry
the ``compute.alien.dev/*`` labels. Pass these transforms to a ``kubernetes:helm.sh/v4:Chart``,
a ``kubernetes:yaml/v2:ConfigGroup`` or any parent: Pulumi applies them to every child resource
before it is registered, so the rendered workloads reach the policies already placed.

    chart = k8s.helm.v4.Chart("ingress", chart="./charts/gateway", opts=pulumi.ResourceOptions(
        transforms=[pin_architecture("x86_64"), place_on("compute", "general")]))
"""

from __future__ import annotations

from typing import Any

import pulumi

# Where each workload kind keeps its pod spec, as a path of fields.
POD_SPEC_PATHS = {
    "Pod": ("spec",),
    "PodTemplate": ("template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
# A ComputeCluster's architecture, as Kubernetes nodes label it.
NODE_ARCHITECTURE = {"x86_64": "amd64", "arm64": "arm64"}
ARCH_LABELS = ("kubernetes.io/arch", "beta.kubernetes.io/arch")


def _workload_kind(type_token: str) -> str | None:
    """'kubernetes:apps/v1:Deployment' -> 'Deployment'; None for anything that is not a workload."""
    kind = type_token.rsplit(":", 1)[-1]
    return kind if type_token.startswith("kubernetes:") and kind in POD_SPEC_PATHS else None


def _copy_along(props: dict[str, Any], path: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A copy of ``props`` whose objects along ``path`` are copies too, and the last of them;
    None when one of them is missing or not known yet."""
    copied = dict(props)
    node = copied
    for field in path:
        child = node.get(field)
        if not isinstance(child, dict):
            return None
        node[field] = node = dict(child)
    return copied, node


def _constrains_architecture(pod_spec: dict[str, Any]) -> bool:
    """Whether the Pods already carry an architecture constraint (or one that cannot be read)."""
    selector = pod_spec.get("nodeSelector")
    if selector is not None and (not isinstance(selector, dict) or any(k in selector for k in ARCH_LABELS)):
        return True
    node_affinity = (pod_spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    for term in required.get("nodeSelectorTerms") or []:
        for expression in term.get("matchExpressions") or []:
            if expression.get("key") in ARCH_LABELS:
                return True
    return False


def pin_architecture(architecture: str) -> pulumi.ResourceTransform:
    """Add ``nodeSelector: {kubernetes.io/arch: <node architecture>}`` to every workload whose Pods
    carry no architecture constraint yet; ``architecture`` is the pools' ``arm64`` or ``x86_64``.
    An existing constraint is left alone, so compute-guard still reports a wrong one."""
    node_architecture = NODE_ARCHITECTURE[architecture]

    def transform(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        kind = _workload_kind(args.type_)
        copied = _copy_along(dict(args.props), POD_SPEC_PATHS[kind]) if kind else None
        if copied is None:
            return None
        props, pod_spec = copied
        try:
            if _constrains_architecture(pod_spec):
                return None
        except AttributeError:  # a part of the affinity is not an object: leave it to the policies
            return None
        pod_spec["nodeSelector"] = {**(pod_spec.get("nodeSelector") or {}), "kubernetes.io/arch": node_architecture}
        return pulumi.ResourceTransformResult(props, args.opts)

    return transform


def place_on(cluster: str, pool: str, role: str | None = None) -> pulumi.ResourceTransform:
    """Label every workload with the ComputeCluster id and pool its Pods run on (and its role when
    given: container, daemon, worker or dynamic). Labels a workload already has are kept."""
    wanted = {"compute.alien.dev/cluster": cluster, "compute.alien.dev/pool": pool}
    if role is not None:
        wanted["compute.alien.dev/workload"] = role

    def transform(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        copied = _copy_along(dict(args.props), ("metadata",)) if _workload_kind(args.type_) else None
        if copied is None:
            return None
        props, metadata = copied
        labels = metadata.get("labels") or {}
        if not isinstance(labels, dict):
            return None
        metadata["labels"] = {**wanted, **labels}
        return pulumi.ResourceTransformResult(props, args.opts)

    return transform
