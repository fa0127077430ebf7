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

# GKE's ComputeClass label: its nodes carry cloud.google.com/compute-class=<class> and its taint of that key and value,
# NoSchedule, and a Pod requests a class by a nodeSelector on it (cloud.google.com/kubernetes-engine/docs/concepts/
# about-custom-compute-classes, "Configure manually-created node pools for ComputeClass use", "Request ComputeClasses in
# workloads"). Here because admission (platform_admission.grants) and landing read it, as they read the OS labels.
COMPUTE_CLASS = "cloud.google.com/compute-class"

ARCH_LABELS = (ARCH, ARCH_BETA)
ZONE_KEYS = (ZONE, ZONE_BETA)
# the labels a node's machine decides
MACHINE_KEYS = (ARCH, ARCH_BETA, INSTANCE_TYPE, INSTANCE_TYPE_BETA)
