"""Karpenter NodePools and workloads as a fleet declares them: manifests (config `manifests`, a list of
files, comma-separated) through a kubernetes:yaml/v2:ConfigGroup, rendered to a directory (no cluster needed)."""

import pulumi
import pulumi_kubernetes as k8s

config = pulumi.Config()
render = k8s.Provider("render", render_yaml_to_directory="rendered")
k8s.yaml.v2.ConfigGroup("fleet", files=config.require("manifests").split(","),
                        opts=pulumi.ResourceOptions(provider=render))
