"""An arm64 ComputeCluster, a real-world manifest through a ConfigGroup, and, when config
`release` names a chart directory, a Helm v3 Release of it, whose workloads no policy sees."""

import pulumi
import pulumi_kubernetes as k8s

from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs, MachineProfile

config = pulumi.Config()
ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
    CapacityGroup(group_id="general", min_size=1, max_size=3,
                  profile=MachineProfile(cpu="2", memory_bytes=8 << 30, ephemeral_storage_bytes=50 << 30,
                                         architecture="arm64")),
]))
render = k8s.Provider("render", render_yaml_to_directory="rendered")
opts = pulumi.ResourceOptions(provider=render)
k8s.yaml.v2.ConfigGroup("shop", files=[config.require("manifest")], opts=opts)
release = config.get("release")
if release:
    k8s.helm.v3.Release("legacy", chart=release, namespace="legacy", opts=opts)
