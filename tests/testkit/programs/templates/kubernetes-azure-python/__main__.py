"""An AKS cluster as Pulumi's `pulumi new kubernetes-azure-python` template declares one (pulumi/templates; written
again for these tests, not copied): a resource group, a virtual network of three /22 subnets, a ManagedCluster whose
one system pool of Standard_DS2_v2 nodes sits in the first subnet, Azure CNI networking (networkPlugin azure, no
overlay: 30 Pods a node), and kubeconfigs from list_managed_cluster_*_credentials_output. The tests add what a team
adds in its first month, and plant one fault at a time in a copy (tests/testkit/test_templates.py)."""

import base64

import pulumi
from pulumi_azure_native import containerservice, network, resources

config = pulumi.Config()
node_count = config.get_int("numWorkerNodes") or 3
version = config.get("kubernetesVersion") or "1.33"
vm_size = config.get("nodeVmSize") or "Standard_DS2_v2"
admins = config.get("mgmtGroupId") or "00000000-0000-0000-0000-000000000000"
ssh_key = config.get("sshPubKey") or "ssh-rsa AAAAB3NzaC1yc2E example"

group = resources.ResourceGroup("rg")
vnet = network.VirtualNetwork("vnet", resource_group_name=group.name,
                              address_space={"address_prefixes": ["10.0.0.0/16"]})
subnets = [network.Subnet(f"subnet-{index + 1}", resource_group_name=group.name, virtual_network_name=vnet.name,
                          address_prefix=f"10.0.{index * 4}.0/22") for index in range(3)]

cluster = containerservice.ManagedCluster(
    "cluster",
    resource_group_name=group.name,
    dns_prefix="aks-template",
    kubernetes_version=version,
    enable_rbac=True,
    identity={"type": containerservice.ResourceIdentityType.SYSTEM_ASSIGNED},
    aad_profile={"managed": True, "enable_azure_rbac": True, "admin_group_object_ids": [admins]},
    agent_pool_profiles=[{
        "name": "systempool", "mode": "System", "count": node_count, "vm_size": vm_size, "os_type": "Linux",
        "os_disk_size_gb": 30, "type": "VirtualMachineScaleSets", "availability_zones": ["1", "2", "3"],
        "enable_node_public_ip": False, "vnet_subnet_id": subnets[0].id,
    }],
    linux_profile={"admin_username": "azureuser", "ssh": {"public_keys": [{"key_data": ssh_key}]}},
    network_profile={"network_plugin": "azure", "network_policy": "azure", "service_cidr": "10.96.0.0/16",
                     "dns_service_ip": "10.96.0.10"},
    api_server_access_profile={"authorized_ip_ranges": ["0.0.0.0/0"], "enable_private_cluster": False},
)

admin = containerservice.list_managed_cluster_admin_credentials_output(resource_group_name=group.name,
                                                                      resource_name=cluster.name)
kubeconfig = admin.kubeconfigs[0].value.apply(lambda encoded: base64.b64decode(encoded).decode())
pulumi.export("clusterName", cluster.name)
pulumi.export("kubeconfig", pulumi.Output.secret(kubeconfig))

