"""The well-known node labels the pack reads, one table (kubernetes.io/docs/reference/labels-annotations-taints/):
set on every node by the kubelet and the cloud provider, with the deprecated beta spellings the scheduler still
matches. Every module names them from here; a platform's own labels (eks.amazonaws.com/nodegroup, ...) stay with
its source."""

from __future__ import annotations

ARCH = "kubernetes.io/arch"
ARCH_BETA = "beta.kubernetes.io/arch"
OS = "kubernetes.io/os"
OS_BETA = "beta.kubernetes.io/os"
LINUX, WINDOWS = "linux", "windows"  # the kubernetes.io/os values of the operating systems nodes run
HOSTNAME = "kubernetes.io/hostname"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type"
ZONE = "topology.kubernetes.io/zone"
ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
REGION_BETA = "failure-domain.beta.kubernetes.io/region"

ARCH_LABELS = (ARCH, ARCH_BETA)
ZONE_KEYS = (ZONE, ZONE_BETA)
# the labels a node's machine decides
MACHINE_KEYS = (ARCH, ARCH_BETA, INSTANCE_TYPE, INSTANCE_TYPE_BETA)
