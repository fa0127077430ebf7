"""An EKS cluster as Pulumi's `pulumi new kubernetes-aws-python` template declares one (pulumi/templates; written
again for these tests, not copied): awsx's VPC, and pulumi-eks's Cluster with its default node group of t3.medium
nodes (3 to 6), which the test kit builds as pulumi-eks registers it. The tests add what a team adds in its first
month (a Kubernetes provider, managed node groups, workloads), and plant one fault at a time in a copy
(tests/testkit/test_templates.py)."""

import pulumi
import pulumi_awsx as awsx
import pulumi_eks as eks

config = pulumi.Config()
min_size = config.get_int("minClusterSize") or 3
max_size = config.get_int("maxClusterSize") or 6
desired = config.get_int("desiredClusterSize") or 3
instance_type = config.get("eksNodeInstanceType") or "t3.medium"

vpc = awsx.ec2.Vpc("eks-vpc", enable_dns_hostnames=True, cidr_block="10.0.0.0/16")
cluster = eks.Cluster(
    "eks-cluster",
    vpc_id=vpc.vpc_id,
    authentication_mode=eks.AuthenticationMode.API,
    public_subnet_ids=vpc.public_subnet_ids,
    private_subnet_ids=vpc.private_subnet_ids,
    instance_type=instance_type,
    desired_capacity=desired,
    min_size=min_size,
    max_size=max_size,
    node_associate_public_ip_address=False,
    endpoint_private_access=False,
    endpoint_public_access=True,
)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("vpcId", vpc.vpc_id)
