"""Two real Helm charts (istio's gateway and istio-cni) on an existing Kubernetes cluster.

The charts render through `kubernetes:helm.sh/v4:Chart`, whose children reach compute-guard as
ordinary workloads. Neither chart pins its Pods to a CPU architecture, so the stack `unpinned`
is rejected; the default stack passes them through the transforms of compute_placement.py.
The provider renders YAML to a directory, so no cluster is needed.
"""

import signal
import sys

import pulumi
import pulumi_kubernetes as k8s
from compute_placement import pin_architecture, place_on

from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs, MachineProfile

config = pulumi.Config()
charts = config.require("chartsDir")  # ../shared/corpus/charts in this repository's tests
architecture = config.get("architecture") or "x86_64"
machine_cpu = config.get("machineCpu") or "4"  # smaller machines show what the charts' requests need
GIB = 1 << 30
# After a failed preview the engine stops the program with SIGINT: exit quietly rather than print Python's
# KeyboardInterrupt traceback (docs/troubleshooting.md).
signal.signal(signal.SIGINT, lambda signum, frame: sys.exit(1))

ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
    CapacityGroup(group_id="general", min_size=1, max_size=3,
                  profile=MachineProfile(cpu=machine_cpu, memory_bytes=16 * GIB, ephemeral_storage_bytes=100 * GIB,
                                         architecture=architecture)),
]))

render = k8s.Provider("render", render_yaml_to_directory="rendered")
transforms = [] if config.get_bool("unpinned") else [pin_architecture(architecture), place_on("compute", "general")]
opts = pulumi.ResourceOptions(provider=render, transforms=transforms)

# The chart's own values may pin its Pods already; the transforms leave such a pin as it is.
gateway_arch = config.get("gatewayArch")
gateway_values: dict = {"nodeSelector": {"kubernetes.io/arch": gateway_arch}} if gateway_arch else {}
# The chart scales its gateway with a HorizontalPodAutoscaler (minReplicas 1 by default).
if config.get_int("gatewayMinReplicas"):
    gateway_values["autoscaling"] = {"minReplicas": config.get_int("gatewayMinReplicas")}
k8s.helm.v4.Chart("ingress", chart=f"{charts}/gateway", namespace="istio-ingress", values=gateway_values or None,
                  opts=opts)
k8s.helm.v4.Chart("cni", chart=f"{charts}/istio-cni", namespace="kube-system", opts=opts)
