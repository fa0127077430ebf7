"""A GKE cluster as Pulumi's `pulumi new kubernetes-gcp-python` template declares one (written again for these tests):
a network and subnetwork, a zonal VPC-native cluster whose default pool is removed, a service account, one NodePool fed
by it, and a Deployment on the cluster (rendered to a directory: no cluster runs here).

Config: `poolName` (unset: the provider names it), `spot` (unset: not written), `machine` (the pool's machine type);
`nap` (node auto-provisioning on, with cpu and memory limits), `napImage` (the image of the pools it creates), `version`
(the cluster's minimum master version), `windows` (the Deployment's Pods select Windows nodes)."""

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

config = pulumi.Config()
net = gcp.compute.Network("gke-network", auto_create_subnetworks=False)
subnet = gcp.compute.Subnetwork("gke-subnet", ip_cidr_range="10.128.0.0/12", network=net.id,
                                private_ip_google_access=True)
autoscaling = None
if config.get_bool("nap"):
    autoscaling = {"enabled": True, "resource_limits": [{"resource_type": "cpu", "maximum": 64},
                                                        {"resource_type": "memory", "maximum": 256}]}
    if config.get("napImage"):
        autoscaling["auto_provisioning_defaults"] = {"image_type": config.get("napImage")}
cluster = gcp.container.Cluster("gke-cluster", location="us-central1-a", initial_node_count=1,
                                min_master_version=config.get("version"), cluster_autoscaling=autoscaling,
                                remove_default_node_pool=True, networking_mode="VPC_NATIVE", network=net.name,
                                subnetwork=subnet.name, deletion_protection=False,
                                ip_allocation_policy={"cluster_ipv4_cidr_block": "/14",
                                                      "services_ipv4_cidr_block": "/20"})
account = gcp.serviceaccount.Account("gke-nodepool-sa", account_id="gke-nodepool-sa",
                                     display_name="Node pool service account")
node_config = {"machine_type": config.get("machine") or "e2-standard-4",
               "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"], "service_account": account.email}
if config.get("spot") is not None:
    node_config["spot"] = config.get_bool("spot")
gcp.container.NodePool("gke-nodepool", name=config.get("poolName"), cluster=cluster.id, node_count=2,
                       node_config=node_config)

provider = k8s.Provider("k8s", render_yaml_to_directory="rendered")
labels = {"app": "api"}
pods = {"node_selector": {"kubernetes.io/os": "windows"}} if config.get_bool("windows") else {}
k8s.apps.v1.Deployment("api", metadata={"name": "api"}, spec={
    "replicas": 2, "selector": {"match_labels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
        **pods, "containers": [{"name": "api", "image": "nginx", "resources": {"requests": {"cpu": "100m",
                                                                                            "memory": "128Mi"}}}]}}},
    opts=pulumi.ResourceOptions(provider=provider))
pulumi.export("clusterName", cluster.name)
