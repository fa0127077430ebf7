"""The ResourceQuota admission plugin (SPEC 21): a ResourceQuota's ``spec.hard`` (kubernetes.io/docs/concepts/policy/
resource-quotas): ``pods``, ``requests.cpu`` and ``requests.memory`` (``cpu`` and ``memory`` are the same),
``limits.cpu`` and ``limits.memory``, and object counts. A quota with ``scopes`` or a ``scopeSelector`` counts only the
Pods they match: not read. The API server runs it last (admission/__init__.py); namespace-admits-workload judges a
namespace's Pods together against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ...platforms.quantity import CPU, MEMORY, parse_quantity
from ..values import Unknown, child, is_mapping
from .namespace import written_namespace

RESOURCE_QUOTA = "kubernetes:core/v1:ResourceQuota"

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
    return Quota(urn, written if isinstance(written, str) else name, written_namespace(props), provider, found, scoped,
                 counts)


