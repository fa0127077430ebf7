"""An app stack as an organisation writes one: its Kubernetes provider takes the kubeconfig its platform stack exports
(config `platform`: the stack's name) through a StackReference; its cluster is not reachable here, which a preview
allows. Two Deployments: 'api' requesting config `memory`, and 'pinned' pinned to config `arch`."""

import pulumi
import pulumi_kubernetes as k8s

config = pulumi.Config()
platform = pulumi.StackReference(config.require("platform"))
provider = k8s.Provider("k8s", kubeconfig=platform.get_output("kubeconfig"))


def deploy(name: str, memory: str, arch: str | None = None) -> None:
    labels = {"app": name}
    k8s.apps.v1.Deployment(name, metadata={"name": name}, spec={
        "replicas": 1, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
            **({"nodeSelector": {"kubernetes.io/arch": arch}} if arch else {}),
            "containers": [{"name": name, "image": "nginx", "resources": {"requests": {"cpu": "100m",
                                                                                        "memory": memory}}}]}}},
        opts=pulumi.ResourceOptions(provider=provider))


deploy("api", config.get("memory") or "64Mi")
deploy("pinned", "64Mi", config.get("arch") or "amd64")
