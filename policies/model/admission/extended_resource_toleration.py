"""The ExtendedResourceToleration admission plugin: a Pod that requests an extended resource (nvidia.com/gpu) is given
a toleration for the NoSchedule taint of that resource's name, so that the nodes tainted for it admit it
(kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#extendedresourcetoleration). It is read where
a taint is matched (scheduling.py): a toleration for exactly the resources the Pod requests.
"""

from __future__ import annotations

from ..platform_admission import PodPlacement, Taint
from ..values import Unknown


def admitted(placement: PodPlacement, taint: Taint) -> bool:
    """The ExtendedResourceToleration admission tolerates the taint for the Pod: NoSchedule, keyed by an extended
    resource the Pod requests or limits (by any, while what it requests is not known yet: never refused for it).
    EKS enables the plugin on every platform version (docs.aws.amazon.com/eks/latest/userguide/platform-versions.html,
    "admission controllers enabled"), GKE runs it for its GPU taints (cloud.google.com/kubernetes-engine/docs/how-to/
    gpus), AKS added it (github.com/Azure/AKS/issues/1449, resolution shipped); on a cluster without it the Pod is
    passed, never refused."""
    if taint.effect != "NoSchedule":
        return False
    requested = placement.requested
    if isinstance(requested, Unknown):
        return "/" in taint.key
    return taint.key in requested
