"""A GKE cluster as Pulumi's `pulumi new kubernetes-gcp-python` template declares one (pulumi/templates; written again
for these tests, not copied): a network and a /12 subnetwork, a regional VPC-native cluster (location is the region,
no nodeLocations; its pod range a bare "/14") whose default pool is removed, and one NodePool the program names none
(its provider names it `gke-nodepool-<random suffix>`) of nodesPerZone e2-medium nodes, and a kubeconfig built from
the cluster's endpoint. The tests add what a team adds in its first month, and plant one fault at a time in a copy
(tests/testkit/test_templates.py)."""

import pulumi
import pulumi_gcp as gcp

gcp_config = pulumi.Config("gcp")
project = gcp_config.require("project")
region = gcp_config.get("region") or "us-central1"
nodes_per_zone = pulumi.Config().get_int("nodesPerZone") or 1

net = gcp.compute.Network("gke-network", auto_create_subnetworks=False)
subnet = gcp.compute.Subnetwork("gke-subnet", ip_cidr_range="10.128.0.0/12", network=net.id,
                                private_ip_google_access=True)

cluster = gcp.container.Cluster(
    "gke-cluster",
    location=region,
    initial_node_count=1,
    remove_default_node_pool=True,
    networking_mode="VPC_NATIVE",
    network=net.name,
    subnetwork=subnet.name,
    datapath_provider="ADVANCED_DATAPATH",
    ip_allocation_policy={"cluster_ipv4_cidr_block": "/14", "services_ipv4_cidr_block": "/20"},
    release_channel={"channel": "STABLE"},
    private_cluster_config={"enable_private_nodes": True, "enable_private_endpoint": False,
                            "master_ipv4_cidr_block": "10.100.0.0/28"},
    workload_identity_config={"workload_pool": f"{project}.svc.id.goog"},
)

account = gcp.serviceaccount.Account("gke-nodepool-sa", account_id=cluster.name.apply(lambda name: f"{name}-np"),
                                     display_name="Node pool service account")
nodepool = gcp.container.NodePool(
    "gke-nodepool",
    cluster=cluster.id,
    node_count=nodes_per_zone,
    node_config={"oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"],
                 "service_account": account.email},
)

kubeconfig = pulumi.Output.all(cluster.master_auth.cluster_ca_certificate, cluster.endpoint, cluster.name).apply(
    lambda parts: f"""apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: {parts[0]}
    server: https://{parts[1]}
  name: {parts[2]}
contexts:
- context:
    cluster: {parts[2]}
    user: {parts[2]}
  name: {parts[2]}
current-context: {parts[2]}
kind: Config
users:
- name: {parts[2]}
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      provideClusterInfo: true
""")
pulumi.export("clusterName", cluster.name)
pulumi.export("kubeconfig", kubeconfig)
