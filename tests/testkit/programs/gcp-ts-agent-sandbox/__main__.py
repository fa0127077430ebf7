"""pulumi/examples' gcp-ts-agent-sandbox (../shared/third_party/pulumi-examples/gcp-ts-agent-sandbox: cluster.ts,
config.ts) in Python: a GKE cluster without its default pool, a system pool (e2-standard-2) and a GKE Sandbox pool
(e2-standard-4, gVisor: GKE labels and taints its nodes), and a Kubernetes provider from the cluster's outputs. The
agent-sandbox controller (a ConfigGroup of a release URL), the Tailscale operator (a Helm v3 Release) and the Sandbox
custom resources are left out: no workload kind the pack reads."""

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

config = pulumi.Config()
node_machine_type = config.get("nodeMachineType") or "e2-standard-4"
sandbox_node_count = config.get_int("sandboxNodeCount") or 1
system_node_count = config.get_int("systemNodeCount") or 1
master_version = config.get("masterVersion") or gcp.container.get_engine_versions().latest_master_version
GVISOR = "gvisor"

network = gcp.compute.Network("agent-sandbox-net", auto_create_subnetworks=False)
subnet = gcp.compute.Subnetwork("agent-sandbox-subnet", network=network.id, ip_cidr_range="10.60.0.0/20",
                                region="us-central1", secondary_ip_ranges=[
                                    gcp.compute.SubnetworkSecondaryIpRangeArgs(range_name="pods",
                                                                               ip_cidr_range="10.61.0.0/16"),
                                    gcp.compute.SubnetworkSecondaryIpRangeArgs(range_name="services",
                                                                               ip_cidr_range="10.62.0.0/20")])
cluster = gcp.container.Cluster("agent-sandbox", initial_node_count=1, remove_default_node_pool=True,
                                min_master_version=master_version, deletion_protection=False, network=network.id,
                                subnetwork=subnet.id, ip_allocation_policy=gcp.container.ClusterIpAllocationPolicyArgs(
                                    cluster_secondary_range_name="pods", services_secondary_range_name="services"))
system_pool = gcp.container.NodePool("system-pool", cluster=cluster.name, location=cluster.location,
                                     initial_node_count=system_node_count, version=master_version,
                                     node_config=gcp.container.NodePoolNodeConfigArgs(
                                         machine_type="e2-standard-2",
                                         oauth_scopes=["https://www.googleapis.com/auth/cloud-platform"]),
                                     management=gcp.container.NodePoolManagementArgs(auto_repair=True),
                                     opts=pulumi.ResourceOptions(depends_on=[cluster]))
gvisor_pool = gcp.container.NodePool("gvisor-pool", cluster=cluster.name, location=cluster.location,
                                     initial_node_count=sandbox_node_count, version=master_version,
                                     node_config=gcp.container.NodePoolNodeConfigArgs(
                                         machine_type=node_machine_type, image_type="COS_CONTAINERD",
                                         sandbox_config=gcp.container.NodePoolNodeConfigSandboxConfigArgs(
                                             sandbox_type=GVISOR),
                                         oauth_scopes=["https://www.googleapis.com/auth/cloud-platform"]),
                                     management=gcp.container.NodePoolManagementArgs(auto_repair=True),
                                     opts=pulumi.ResourceOptions(depends_on=[cluster]))
kubeconfig = pulumi.Output.all(cluster.name, cluster.endpoint).apply(
    lambda values: f"apiVersion: v1\nclusters:\n- cluster:\n    server: https://{values[1]}\n  name: {values[0]}\n")
k8s_provider = k8s.Provider("gke", kubeconfig=kubeconfig,
                            opts=pulumi.ResourceOptions(depends_on=[system_pool, gvisor_pool]))
pulumi.export("kubeConfig", kubeconfig)
