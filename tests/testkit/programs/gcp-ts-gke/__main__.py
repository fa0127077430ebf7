"""pulumi/examples' gcp-ts-gke (../shared/third_party/pulumi-examples/gcp-ts-gke: cluster.ts, index.ts, config.ts) in
Python: a GKE cluster without its default pool, a NodePool of nodeCount (3) preemptible n1-standard-1 nodes, a
Kubernetes provider from the cluster's outputs and the canary Deployment."""

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

config = pulumi.Config()
node_count = config.get_int("nodeCount") or 3
node_machine_type = config.get("nodeMachineType") or "n1-standard-1"
master_version = config.get("masterVersion") or gcp.container.get_engine_versions().latest_master_version

k8s_cluster = gcp.container.Cluster("gke-cluster", initial_node_count=1, remove_default_node_pool=True,
                                    datapath_provider="ADVANCED_DATAPATH", min_master_version=master_version)
node_pool = gcp.container.NodePool("primary-node-pool", cluster=k8s_cluster.name, initial_node_count=node_count,
                                   location=k8s_cluster.location, version=master_version,
                                   node_config=gcp.container.NodePoolNodeConfigArgs(
                                       preemptible=True, machine_type=node_machine_type,
                                       oauth_scopes=["https://www.googleapis.com/auth/compute"]),
                                   management=gcp.container.NodePoolManagementArgs(auto_repair=True),
                                   opts=pulumi.ResourceOptions(depends_on=[k8s_cluster]))
k8s_config = pulumi.Output.all(k8s_cluster.name, k8s_cluster.endpoint).apply(
    lambda values: f"apiVersion: v1\nclusters:\n- cluster:\n    server: https://{values[1]}\n  name: {values[0]}\n")
k8s_provider = k8s.Provider("gkeK8s", kubeconfig=k8s_config, opts=pulumi.ResourceOptions(depends_on=[node_pool]))

name = f"{pulumi.get_project()}-{pulumi.get_stack()}"
canary_labels = {"app": f"canary-{name}"}
k8s.apps.v1.Deployment("canary", spec={
    "selector": {"matchLabels": canary_labels}, "replicas": 1,
    "template": {"metadata": {"labels": canary_labels}, "spec": {"containers": [{"name": name, "image": "nginx"}]}}},
    opts=pulumi.ResourceOptions(provider=k8s_provider))
pulumi.export("kubeConfig", k8s_config)
