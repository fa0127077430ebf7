"""pulumi/examples' aws-ts-eks (../shared/third_party/pulumi-examples/aws-ts-eks/index.ts) in Python, with the real
pulumi_eks SDK: its Cluster with the default node group (desiredCapacity 2, minSize 1, maxSize 2), which the test kit
builds as pulumi-eks registers it (compute_guard/testkit/components.py). awsx's VPC declares no pool and is left
out (its subnets are given as ids)."""

import pulumi
import pulumi_eks as eks

cluster = eks.Cluster("cluster", subnet_ids=["subnet-a", "subnet-b"],
                      authentication_mode=eks.AuthenticationMode.API, desired_capacity=2, min_size=1, max_size=2)
pulumi.export("kubeconfig", cluster.kubeconfig)
