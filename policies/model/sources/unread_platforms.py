"""Clusters of platforms the pack does not read (SPEC 14.4): DigitalOcean, Linode, Oracle, Civo, Vultr, Scaleway,
Alibaba Cloud, Exoscale, OVHcloud, Rancher. Their node pools' machines are not in the catalog, so no pool is read
from them; each cluster (and node pool) resource is named once in a note, and is a cluster whose pools are not known:
a workload whose provider's kubeconfig comes from it is judged there by nothing that needs its pools (a 64Gi Pod on
a DigitalOcean cluster got no pool, no finding and no note)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..clusters import KubeCluster
from ..resources import StackResource
from ..values import child
from . import Context, Read, Source, Unread

# The managed Kubernetes clusters and node pools of other platforms' Pulumi providers, by type token, with how
# messages name the platform (each provider's registry page: pulumi.com/registry/packages/<package>).
CLUSTERS = {
    "digitalocean:index/kubernetesCluster:KubernetesCluster": "DigitalOcean",
    "linode:index/lkeCluster:LkeCluster": "Linode (LKE)",
    "oci:ContainerEngine/cluster:Cluster": "Oracle Container Engine (OKE)",
    "civo:index/kubernetesCluster:KubernetesCluster": "Civo",
    "vultr:index/kubernetes:Kubernetes": "Vultr",
    "scaleway:index/kubernetesCluster:KubernetesCluster": "Scaleway",
    "scaleway:kubernetes/cluster:Cluster": "Scaleway",
    "alicloud:cs/managedKubernetes:ManagedKubernetes": "Alibaba Cloud (ACK)",
    "alicloud:cs/kubernetes:Kubernetes": "Alibaba Cloud (ACK)",
    "exoscale:index/sksCluster:SksCluster": "Exoscale (SKS)",
    "ovh:CloudProject/kube:Kube": "OVHcloud",
    "rancher2:index/cluster:Cluster": "Rancher",
}
NODE_POOLS = {
    "digitalocean:index/kubernetesNodePool:KubernetesNodePool": "DigitalOcean",
    "linode:index/lkeNodePool:LkeNodePool": "Linode (LKE)",
    "oci:ContainerEngine/nodePool:NodePool": "Oracle Container Engine (OKE)",
    "civo:index/kubernetesNodePool:KubernetesNodePool": "Civo",
    "vultr:index/kubernetesNodePool:KubernetesNodePool": "Vultr",
    "scaleway:index/kubernetesNodePool:KubernetesNodePool": "Scaleway",
    "scaleway:kubernetes/pool:Pool": "Scaleway",
    "alicloud:cs/nodePool:NodePool": "Alibaba Cloud (ACK)",
    "exoscale:index/sksNodepool:SksNodepool": "Exoscale (SKS)",
    "ovh:CloudProject/kubeNodePool:KubeNodePool": "OVHcloud",
}
# A cluster of a provider the table does not list yet: a type whose own name says it is a Kubernetes cluster
# (KubernetesCluster, ManagedKubernetes, ...), of any package but Kubernetes' own and those the pack reads.
_LIKE_A_CLUSTER = re.compile(r"^(?:Kubernetes(?:Cluster)?|ManagedKubernetes|[A-Z][a-z]*[Kk]8s[A-Za-z]*Cluster|"
                             r"(?:Lke|Sks|Oke|Doks)Cluster)$")
_READ_ELSEWHERE = ("kubernetes", "aws", "gcp", "google-native", "azure", "azure-native", "eks", "compute")


def _foreign(resource_type: str) -> bool:
    if resource_type in CLUSTERS or resource_type in NODE_POOLS:
        return True
    parts = resource_type.split(":")
    return len(parts) == 3 and parts[0] not in _READ_ELSEWHERE and bool(_LIKE_A_CLUSTER.match(parts[2]))


def read(resources: Sequence[StackResource], context: Context) -> Read:
    found = Read()
    for resource in resources:
        platform = CLUSTERS.get(resource.type) or NODE_POOLS.get(resource.type) \
            or resource.type.split(":", 1)[0]
        what = "node pool" if resource.type in NODE_POOLS else "cluster"
        found.unread.append(Unread(resource.urn, resource.name, f"{platform} {what}",
                                   "is of a platform whose pools the pack does not read (its machines are not in the "
                                   "catalog), so the workloads on it are not judged for fit, capacity or placement"))
        if what == "cluster":
            declared = child(resource.props, "name")
            names = frozenset({declared}) if isinstance(declared, str) and declared else frozenset()
            found.clusters.append(KubeCluster(resource.urn, resource.name, f"{platform} cluster", names,
                                              pools_known=False))
    return found


SOURCES = (Source("clusters of platforms the pack does not read", (), read, accepts=_foreign, judged_alone=False),)
