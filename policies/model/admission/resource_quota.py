"""What a namespace admits (SPEC 21): the ResourceQuotas, LimitRanges and PriorityClasses a stack declares, read once
into facts that namespace-admits-workload judges its workloads' Pods against.

* A ResourceQuota's ``spec.hard`` (kubernetes.io/docs/concepts/policy/resource-quotas): ``pods``, ``requests.cpu`` and
  ``requests.memory`` (``cpu`` and ``memory`` are the same), ``limits.cpu`` and ``limits.memory``. A quota with
  ``scopes`` or a ``scopeSelector`` counts only the Pods they match: not read.
* A LimitRange's ``Container`` limits with a ``default`` or ``defaultRequest`` give the containers that set none one
  (its LimitRanger admission runs before the quota's, kubernetes.io/docs/concepts/policy/limit-range).
* A PriorityClass by its name; ``system-cluster-critical`` and ``system-node-critical`` exist in every cluster
  (kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..platforms.quantity import CPU, MEMORY, parse_quantity
from .values import Unknown, child, is_list, is_mapping, plain

RESOURCE_QUOTA = "kubernetes:core/v1:ResourceQuota"
LIMIT_RANGE = "kubernetes:core/v1:LimitRange"
NAMESPACE = "kubernetes:core/v1:Namespace"
ENFORCE = "pod-security.kubernetes.io/enforce"  # kubernetes.io/docs/concepts/security/pod-security-admission
ENFORCE_VERSION = "pod-security.kubernetes.io/enforce-version"
# A namespace's default GKE ComputeClass: "If the namespace has a default ComputeClass, GKE modifies the Pod
# specification to select that ComputeClass" (cloud.google.com/kubernetes-engine/docs/how-to/
# run-pods-default-compute-classes), for every Pod that selects none, or (the -non-daemonset label) every such Pod but a
# DaemonSet's
DEFAULT_CLASS = "cloud.google.com/default-compute-class"
DEFAULT_CLASS_NON_DAEMONSET = "cloud.google.com/default-compute-class-non-daemonset"
PRIORITY_CLASS = re.compile(r"^kubernetes:scheduling\.k8s\.io/v1(beta1|alpha1)?:PriorityClass$")
SYSTEM_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")
RUNTIME_CLASS = re.compile(r"^kubernetes:node\.k8s\.io/v1(beta1|alpha1)?:RuntimeClass$")

PODS_KEY = "pods"
# a hard key -> (what it counts: "pods", or a resource of the Pod's request or limits, and which)
# count/<resource>.<group> keys and the workload kinds they count (kubernetes.io/docs/concepts/policy/resource-quotas,
# "Object count quota")
# (count/pods counts Pods, every Pod whatever made it: kube-apiserver's pod evaluator, "count/pods tracks all pods
# independent of state", pkg/quota/v1/evaluator/core/pods.go; it is a Pod key below)
COUNTED_KINDS = {"count/deployments.apps": "Deployment", "count/statefulsets.apps": "StatefulSet",
                 "count/replicasets.apps": "ReplicaSet", "count/daemonsets.apps": "DaemonSet",
                 "count/jobs.batch": "Job", "count/cronjobs.batch": "CronJob",
                 "count/replicationcontrollers": "ReplicationController"}
# the objects a workload's controller makes of a counted kind, which its quota counts too: a Deployment's ReplicaSet
# (at least one, its current revision: the deployment controller), a CronJob's Job (one each time it runs: the
# cronjob controller)
MADE_BY = {"ReplicaSet": ("Deployment",), "Job": ("CronJob",)}
QUOTA_KEYS = {"pods": ("pods", ""), "count/pods": ("pods", ""), "requests.cpu": ("requests", CPU),
              "cpu": ("requests", CPU),
              "requests.memory": ("requests", MEMORY), "memory": ("requests", MEMORY),
              "limits.cpu": ("limits", CPU), "limits.memory": ("limits", MEMORY)}


@dataclass(frozen=True)
class Quota:
    urn: str
    name: str
    namespace: str | Unknown | None
    provider: str
    hard: Mapping[str, Decimal | Unknown]  # the keys of QUOTA_KEYS it sets, in base units (millicores, bytes, Pods)
    scoped: bool = False  # scopes or a scopeSelector: it counts only some Pods
    # object counts it sets ("count/deployments.apps": 2), by the kind they count (Deployment)
    counts: Mapping[str, tuple[str, Decimal]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"ResourceQuota '{self.name}'"


@dataclass(frozen=True)
class LimitRange:
    urn: str
    name: str
    namespace: str | Unknown | None
    provider: str
    # what its Container limits give a container that sets none, per resource (millicores, bytes), as the API server
    # defaults a LimitRange (pkg/apis/core/v1 SetDefaults_LimitRangeItem: default from max, defaultRequest from
    # default, then from min) and the LimitRanger admission applies it
    requests: Mapping[str, Decimal] = field(default_factory=dict)
    limits: Mapping[str, Decimal] = field(default_factory=dict)
    unknown: Unknown | None = None
    # its Container limits' min, max and maxLimitRequestRatio, per resource (millicores, bytes; a ratio as is)
    minimum: Mapping[str, Decimal] = field(default_factory=dict)
    maximum: Mapping[str, Decimal] = field(default_factory=dict)
    ratio: Mapping[str, Decimal] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"LimitRange '{self.name}'"


def _namespace(props: Any) -> str | Unknown | None:
    found = child(child(props, "metadata"), "namespace")
    return found if isinstance(found, (str, Unknown)) else None


def parse_quota(urn: str, name: str, props: Any, provider: str) -> Quota:
    spec = child(props, "spec")
    hard = child(spec, "hard")
    found: dict[str, Decimal | Unknown] = {}
    if isinstance(hard, Unknown):
        found = dict.fromkeys(QUOTA_KEYS, hard)
    elif is_mapping(hard):
        for key, (_what, resource) in QUOTA_KEYS.items():
            value = child(hard, key)
            if isinstance(value, Unknown):
                found[key] = value
            elif value is not None:
                amount = parse_quantity(value)
                if amount is not None:
                    found[key] = amount * 1000 if resource == CPU else amount
    counts: dict[str, tuple[str, Decimal]] = {}
    if is_mapping(hard):
        for key, kind in COUNTED_KINDS.items():
            amount = parse_quantity(child(hard, key))
            if amount is not None:
                counts[key] = (kind, amount)
    scoped = child(spec, "scopes") is not None or child(spec, "scopeSelector") is not None
    written = child(child(props, "metadata"), "name")
    return Quota(urn, written if isinstance(written, str) else name, _namespace(props), provider, found, scoped,
                 counts)


def parse_limit_range(urn: str, name: str, props: Any, provider: str) -> LimitRange:
    limits = plain(child(child(props, "spec"), "limits"))
    if isinstance(limits, Unknown):
        return LimitRange(urn, name, _namespace(props), provider, unknown=limits)
    bounds: dict[str, dict[str, Decimal]] = {"min": {}, "max": {}, "maxLimitRequestRatio": {}, "default": {},
                                             "defaultRequest": {}}
    for item in limits if is_list(limits) else ():
        if not is_mapping(item) or item.get("type") not in ("Container", None):
            continue
        for key, found in bounds.items():
            given = item.get(key)
            for resource in (CPU, MEMORY):
                value = parse_quantity(given.get(resource)) if is_mapping(given) else None
                if value is not None:
                    found[resource] = value * 1000 if resource == CPU and key != "maxLimitRequestRatio" else value
    limit_defaults = {**bounds["max"], **bounds["default"]}
    request_defaults = {**bounds["min"], **limit_defaults, **bounds["defaultRequest"]}
    written = child(child(props, "metadata"), "name")
    return LimitRange(urn, written if isinstance(written, str) else name, _namespace(props), provider,
                      request_defaults, limit_defaults, None, bounds["min"], bounds["max"],
                      bounds["maxLimitRequestRatio"])


def object_name(props: Any) -> str | Unknown | None:
    """A cluster-scoped object's metadata.name (a PriorityClass's, a RuntimeClass's): what Pods name it by."""
    found = child(child(props, "metadata"), "name")
    return found if isinstance(found, (str, Unknown)) else None


@dataclass(frozen=True)
class RuntimeScheduling:
    """What a RuntimeClass gives the Pods that name it: its scheduling's nodeSelector, merged into theirs, and its
    tolerations, added to theirs, by the RuntimeClass admission plugin before the scheduler sees them
    (kubernetes.io/docs/concepts/containers/runtime-class, "Scheduling"). Plain values, or Unknown."""

    node_selector: Any = None
    tolerations: Any = None


def parse_runtime_class(props: Any) -> tuple[str | Unknown | None, RuntimeScheduling]:
    """A RuntimeClass's name and scheduling."""
    scheduling = child(props, "scheduling")
    if isinstance(scheduling, Unknown):
        return object_name(props), RuntimeScheduling(scheduling, scheduling)
    return object_name(props), RuntimeScheduling(plain(child(scheduling, "nodeSelector")),
                                                         plain(child(scheduling, "tolerations")))


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
