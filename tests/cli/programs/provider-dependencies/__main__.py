"""A Kubernetes provider whose kubeconfig is built from another resource's output (a ConfigMap standing for a cluster
resource: no cloud provider runs here), a workload on it, and one on the default provider; both render to a
directory. What the engine tells a policy pack of them is what tests/cli/test_provider_dependencies.py probes."""

import pulumi
import pulumi_kubernetes as k8s

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: {name}
  cluster: {{server: "https://{name}.example.test"}}
contexts:
- name: {name}
  context: {{cluster: {name}, user: {name}}}
current-context: {name}
users:
- name: {name}
  user: {{token: example}}
"""

render = k8s.Provider("render", render_yaml_to_directory="rendered")
cluster = k8s.core.v1.ConfigMap("east-cluster", metadata={"name": "east-cluster"}, data={"endpoint": "east"},
                                opts=pulumi.ResourceOptions(provider=render))
east = k8s.Provider("east", kubeconfig=cluster.metadata.apply(lambda meta: KUBECONFIG.format(name=meta["name"])),
                    render_yaml_to_directory="rendered-east")


def deployment(name: str, provider: k8s.Provider) -> None:
    labels = {"app": name}
    k8s.apps.v1.Deployment(name, metadata={"name": name}, spec={
        "selector": {"matchLabels": labels},
        "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": name, "image": "nginx"}]}}},
        opts=pulumi.ResourceOptions(provider=provider))


deployment("api", east)
deployment("other", render)
