"""A Kubernetes provider whose kubeconfig is built from another resource's output (a ConfigMap standing for a cluster
resource: no cloud provider runs here), a workload on it, and one on a provider that renders to a directory. The
kubeconfig's server is 127.0.0.1 on a closed port: a preview goes on without the cluster (the provider plans the
resources and warns it cannot reach it). What the engine tells a policy pack of them is what
tests/cli/test_provider_dependencies.py probes."""

import pulumi
import pulumi_kubernetes as k8s

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: {name}
  cluster: {{server: "https://127.0.0.1:9"}}
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
east = k8s.Provider("east", kubeconfig=cluster.metadata.apply(lambda meta: KUBECONFIG.format(name=meta["name"])))
# a kubeconfig that depends on nothing (as an output invoke whose arguments are not known yet leaves it), linked to its
# cluster by dependsOn
west_cluster = k8s.core.v1.ConfigMap("west-cluster", metadata={"name": "west-cluster"}, data={"endpoint": "west"},
                                     opts=pulumi.ResourceOptions(provider=render))
west = k8s.Provider("west", kubeconfig=KUBECONFIG.format(name="west-cluster"),
                    opts=pulumi.ResourceOptions(depends_on=[west_cluster]))


def deployment(name: str, provider: k8s.Provider) -> None:
    labels = {"app": name}
    k8s.apps.v1.Deployment(name, metadata={"name": name}, spec={
        "selector": {"matchLabels": labels},
        "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": name, "image": "nginx"}]}}},
        opts=pulumi.ResourceOptions(provider=provider))


deployment("api", east)
deployment("other", render)
deployment("web", west)
