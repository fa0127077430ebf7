"""pulumi/examples' aws-ts-eks (../shared/third_party/pulumi-examples/aws-ts-eks/index.ts) in Python: pulumi-eks's
Cluster with its default node group (desiredCapacity 2, minSize 1, maxSize 2), as pulumi-eks registers it
(pulumi_eks_stand_in.py). awsx's VPC declares no pool and is left out."""

import pulumi
from pulumi_eks_stand_in import Cluster

cluster = Cluster("cluster", desired_capacity=2, min_size=1, max_size=2)
pulumi.export("kubeconfig", cluster.kubeconfig)
