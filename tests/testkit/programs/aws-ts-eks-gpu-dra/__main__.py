"""pulumi/examples' aws-ts-eks-gpu-dra (../shared/third_party/pulumi-examples/aws-ts-eks-gpu-dra/index.ts) in Python,
with the real pulumi_eks SDK: its Cluster without its default node group, two ManagedNodeGroups (system m6i.large; gpu p4d.24xlarge,
tainted nvidia.com/gpu), a Kubernetes provider from the cluster's kubeconfig, the Helm v3 Releases (GPU operator, DRA
driver, monitoring), the MIG test Pods and the ResourceClaimTemplates they name (one mig.nvidia.com device of a profile
each), and the node role both groups take (pulumi-eks refuses a managed node group without one). Its role policy
attachments, add-ons, StorageClass and ConfigMap of scripts declare no pool and no workload and are left out."""

import json

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
import pulumi_kubernetes as k8s

cluster = eks.Cluster("gpu-cluster", name="gpu-dra-cluster", public_subnet_ids=["subnet-a", "subnet-b"],
                      private_subnet_ids=["subnet-c", "subnet-d"], authentication_mode=eks.AuthenticationMode.API,
                      skip_default_node_group=True, version="1.34")
node_role = aws.iam.Role("system-node-role", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [{
    "Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}}]}))
eks.ManagedNodeGroup("system-nodes", cluster=cluster, node_group_name="system-nodes", node_role=node_role,
                     instance_types=["m6i.large"],
                     capacity_type="ON_DEMAND", scaling_config={"desired_size": 2, "min_size": 1, "max_size": 4},
                     labels={"node-role": "system"}, taints=[], opts=pulumi.ResourceOptions(depends_on=[cluster]))
eks.ManagedNodeGroup("gpu-nodes", cluster=cluster, node_group_name="gpu-nodes", node_role=node_role,
                     instance_types=["p4d.24xlarge"],
                     capacity_type="ON_DEMAND", scaling_config={"desired_size": 1, "min_size": 0, "max_size": 2},
                     disk_size=100, ami_type="AL2023_x86_64_NVIDIA",
                     labels={"node-role": "gpu", "nvidia.com/gpu.present": "true",
                             "nvidia.com/mig.config": "all-balanced"},
                     taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}],
                     opts=pulumi.ResourceOptions(depends_on=[cluster]))
provider = k8s.Provider("k8s-provider", kubeconfig=cluster.kubeconfig_json, enable_server_side_apply=True)
on_cluster = pulumi.ResourceOptions(provider=provider)
for release, chart, repo in (("gpu-operator", "gpu-operator", "https://helm.ngc.nvidia.com/nvidia"),
                             ("nvidia-dra-driver", "nvidia-dra-driver-gpu", "https://helm.ngc.nvidia.com/nvidia"),
                             ("kube-prometheus-stack", "kube-prometheus-stack",
                              "https://prometheus-community.github.io/helm-charts")):
    k8s.helm.v3.Release(release, chart=chart, repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=repo),
                        skip_await=True, opts=on_cluster)

for claim, profile in (("mig-large", "3g.20gb"), ("mig-medium", "2g.10gb"), ("mig-small", "1g.5gb")):
    k8s.apiextensions.CustomResource(f"{claim}-template", api_version="resource.k8s.io/v1", kind="ResourceClaimTemplate",
                                     metadata={"name": f"{claim}-template", "namespace": "mig-test"},
                                     spec={"spec": {"devices": {"requests": [{"name": claim, "exactly": {
                                         "deviceClassName": "mig.nvidia.com", "count": 1, "selectors": [{"cel": {
                                             "expression": 'device.attributes["gpu.nvidia.com"].type == "mig" && '
                                                           f'device.attributes["gpu.nvidia.com"].profile == "{profile}"'
                                         }}]}}]}}}, opts=on_cluster)

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
for name, claim in (("mig-large-training", "mig-large"), ("mig-medium-training", "mig-medium"),
                    ("mig-small-inference", "mig-small")):
    k8s.core.v1.Pod(name, metadata={"name": f"{name}-pod", "namespace": "mig-test"}, spec={
        "restartPolicy": "Never", "tolerations": [GPU_TOLERATION],
        "nodeSelector": {"node-role": "gpu", "nvidia.com/gpu.present": "true"},
        "containers": [{"name": "training", "image": "nvcr.io/nvidia/pytorch:25.12-py3",
                        "resources": {"claims": [{"name": claim}]}}],
        "resourceClaims": [{"name": claim, "resourceClaimTemplateName": f"{claim}-template"}]}, opts=on_cluster)
