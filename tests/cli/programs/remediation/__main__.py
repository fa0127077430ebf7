"""An x86_64 ComputeCluster and workloads that do not pin their Pods: a Deployment with another node
selector key, optionally one pinned to the wrong architecture (config `wrongPin`), and optionally
the two Helm charts of `chartsDir`. The workloads depend on the ComputeCluster, so it is analyzed
before them and workload-architecture-pin knows which architecture they need."""

import pulumi
import pulumi_kubernetes as k8s

from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs, MachineProfile

config = pulumi.Config()
compute = ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
    CapacityGroup(group_id="general", min_size=1, max_size=3,
                  profile=MachineProfile(cpu="4", memory_bytes=16 << 30, ephemeral_storage_bytes=100 << 30,
                                         architecture="x86_64")),
]))
render = k8s.Provider("render", render_yaml_to_directory="rendered")
opts = pulumi.ResourceOptions(provider=render, depends_on=[compute])


def deployment(name: str, node_selector: dict) -> None:
    k8s.apps.v1.Deployment(name, metadata={"name": name}, spec={
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
                     "spec": {"containers": [{"name": name, "image": f"registry.example.com/{name}:1",
                                              "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}],
                              "nodeSelector": node_selector}}}, opts=opts)


deployment("api", {"disktype": "ssd"})
if config.get_bool("wrongPin"):
    deployment("legacy", {"kubernetes.io/arch": "arm64"})
charts = config.get("chartsDir")
if charts:
    k8s.helm.v4.Chart("ingress", chart=f"{charts}/gateway", namespace="istio-ingress", opts=opts)
    k8s.helm.v4.Chart("cni", chart=f"{charts}/istio-cni", namespace="kube-system", opts=opts)
