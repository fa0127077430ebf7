"""A platform stack: its pools are Karpenter NodePools (config `manifests`, files, comma-separated, through a
kubernetes:yaml/v2:ConfigGroup rendered to a directory: no cluster needed), and it exports the kubeconfig its app
stacks' providers take."""

import pulumi
import pulumi_kubernetes as k8s

config = pulumi.Config()
render = k8s.Provider("render", render_yaml_to_directory="rendered")
k8s.yaml.v2.ConfigGroup("pools", files=config.require("manifests").split(","),
                        opts=pulumi.ResourceOptions(provider=render))
pulumi.export("kubeconfig", pulumi.Output.secret(
    '{"apiVersion": "v1", "kind": "Config", "clusters": [{"name": "fleet", "cluster": {"server": "https://fleet"}}]}'))
