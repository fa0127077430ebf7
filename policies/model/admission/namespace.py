"""The namespace a Pod is created in, and what a Namespace's labels ask of the Pods in it (SPEC 21): the API server puts
a namespaced object that names no namespace in the one its request names (pulumi-kubernetes: its provider's
namespace, else its kubeconfig's current context's, else default: clusters.provider_namespace), before any admission
plugin reads it (NamespaceLifecycle first, admission/__init__.py). Every rule that reads a namespace (quotas,
LimitRanges, Pod Security, budgets, autoscalers, Fargate selectors) reads the one this step gives.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..values import Unknown, child

NAMESPACE = "kubernetes:core/v1:Namespace"
ENFORCE = "pod-security.kubernetes.io/enforce"  # kubernetes.io/docs/concepts/security/pod-security-admission
ENFORCE_VERSION = "pod-security.kubernetes.io/enforce-version"
# A namespace's default GKE ComputeClass: "If the namespace has a default ComputeClass, GKE modifies the Pod
# specification to select that ComputeClass" (cloud.google.com/kubernetes-engine/docs/how-to/
# run-pods-default-compute-classes), for every Pod that selects none, or (the -non-daemonset label) every such Pod but a
# DaemonSet's
DEFAULT_CLASS = "cloud.google.com/default-compute-class"
DEFAULT_CLASS_NON_DAEMONSET = "cloud.google.com/default-compute-class-non-daemonset"


@dataclass(frozen=True)
class Namespace:
    """A Namespace of the stack and the Pod Security Standard its enforce label makes the API server enforce."""

    urn: str
    name: str | Unknown | None
    provider: str
    enforce: str | Unknown | None  # privileged | baseline | restricted, as written
    version: str | Unknown | None  # its enforce-version, as written (None: latest)
    # the GKE ComputeClass it makes the Pods that select none select (DEFAULT_CLASS, else DEFAULT_CLASS_NON_DAEMONSET),
    # and a DaemonSet's (DEFAULT_CLASS only), as written
    compute_class: str | Unknown | None = None
    daemonset_class: str | Unknown | None = None


def parse_namespace(urn: str, props: Any, provider: str) -> Namespace:
    metadata = child(props, "metadata")
    labels = child(metadata, "labels")
    name = child(metadata, "name")
    enforce, version = child(labels, ENFORCE), child(labels, ENFORCE_VERSION)
    every, non_daemonset = child(labels, DEFAULT_CLASS), child(labels, DEFAULT_CLASS_NON_DAEMONSET)
    chosen = every if every is not None else non_daemonset
    return Namespace(urn, name if isinstance(name, (str, Unknown)) else None, provider,
                     enforce if isinstance(enforce, (str, Unknown)) else None,
                     version if isinstance(version, (str, Unknown)) else None,
                     chosen if isinstance(chosen, (str, Unknown)) else None,
                     every if isinstance(every, (str, Unknown)) else None)


def written_namespace(props: Any) -> str | Unknown | None:
    """A namespaced object's metadata.namespace, as written (None: it names none)."""
    found = child(child(props, "metadata"), "namespace")
    return found if isinstance(found, (str, Unknown)) else None


def object_name(props: Any) -> str | Unknown | None:
    """A cluster-scoped object's metadata.name (a PriorityClass's, a RuntimeClass's): what Pods name it by."""
    found = child(child(props, "metadata"), "name")
    return found if isinstance(found, (str, Unknown)) else None


def prepare(stack: Any) -> Any:
    """Every namespaced object of the stack that names no namespace, in the one its provider creates it in (quotas,
    LimitRanges, budgets and autoscalers here, once); for workloads, the step that gives each its namespace."""
    default = stack.namespace_of  # (called for what names no namespace: its provider's)
    stack.quotas = [item if item.namespace is not None else replace(item, namespace=default(item.urn))
                    for item in stack.quotas]
    stack.limit_ranges = [item if item.namespace is not None else replace(item, namespace=default(item.urn))
                          for item in stack.limit_ranges]
    stack.budgets = [item if item.namespace is not None else replace(item, namespace=default(item.urn))
                     for item in stack.budgets]
    stack.autoscalers = [item if item.namespace is not None else replace(item, namespace=default(item.urn))
                         for item in stack.autoscalers]

    def admit(workload: Any) -> Any:
        if child(child(workload.props, "metadata"), "namespace") is None:
            return replace(workload, default_namespace=default(workload.urn))
        return workload

    return admit
