"""What pulumi-eks registers, written in Python for the test kit: its component provider (Node.js) does not run
under mocks, so the TypeScript examples written again in Python declare the resources pulumi-eks's own code
registers (../shared/third_party/pulumi-eks/nodejs/eks: cluster/cluster.ts, nodes/nodegroup.ts, nodes/userdata.ts),
with the same types, names, parents and dependencies.

* ``Cluster`` (``eks:index:Cluster``): its ``aws:eks/cluster:Cluster`` (``<name>-eksCluster``), and unless
  ``skip_default_node_group`` its default node group (createNodeGroupV2): an ``aws:ec2/launchTemplate:LaunchTemplate``
  (``<name>-launchTemplate``, instanceType t3.medium by default, base64 user data holding the cluster's endpoint)
  and an ``aws:autoscaling/group:Group`` named as the cluster, tagged ``kubernetes.io/cluster/<cluster name>``;
  its kubeconfig is built from the cluster's outputs.
* ``ManagedNodeGroup`` (``eks:index:ManagedNodeGroup``): an ``aws:eks/nodeGroup:NodeGroup`` child.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pulumi
import pulumi_aws as aws

DEFAULT_INSTANCE_TYPE = "t3.medium"  # nodes/instances.ts


class Cluster(pulumi.ComponentResource):
    def __init__(self, name: str, *, instance_type: str | None = None, desired_capacity: int = 2, min_size: int = 1,
                 max_size: int = 2, skip_default_node_group: bool = False, cluster_name: str | None = None,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("eks:index:Cluster", name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.eks_cluster = aws.eks.Cluster(
            f"{name}-eksCluster", name=cluster_name, role_arn="arn:aws:iam::123456789012:role/eks",
            vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-a", "subnet-b"]), opts=child)
        self.kubeconfig = pulumi.Output.all(self.eks_cluster.name, self.eks_cluster.endpoint).apply(
            lambda values: json.dumps({"apiVersion": "v1", "kind": "Config", "clusters": [
                {"name": "kubernetes", "cluster": {"server": values[1]}}]}))
        if not skip_default_node_group:
            user_data = self.eks_cluster.endpoint.apply(lambda endpoint: base64.b64encode(
                f'#!/bin/bash\n\n/etc/eks/bootstrap.sh --apiserver-endpoint "{endpoint}"'.encode()).decode())
            template = aws.ec2.LaunchTemplate(f"{name}-launchTemplate", image_id="ami-0123456789abcdef0",
                                              instance_type=instance_type or DEFAULT_INSTANCE_TYPE,
                                              user_data=user_data, opts=child)
            tags = self.eks_cluster.name.apply(lambda cluster: [
                aws.autoscaling.GroupTagArgs(key=f"kubernetes.io/cluster/{cluster}", value="owned",
                                             propagate_at_launch=True),
                aws.autoscaling.GroupTagArgs(key="Name", value=f"{cluster}-worker", propagate_at_launch=True)])
            aws.autoscaling.Group(name, min_size=min_size, max_size=max_size, desired_capacity=desired_capacity,
                                  launch_template=aws.autoscaling.GroupLaunchTemplateArgs(
                                      name=template.name, version=template.latest_version.apply(str)),
                                  tags=tags, opts=child)
        self.register_outputs({"kubeconfig": self.kubeconfig})


class ManagedNodeGroup(pulumi.ComponentResource):
    def __init__(self, name: str, *, cluster: Cluster, node_group_name: str, instance_types: list[str],
                 scaling: tuple[int, int, int], labels: dict[str, str] | None = None,
                 taints: list[dict[str, Any]] | None = None, ami_type: str | None = None,
                 capacity_type: str | None = None, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("eks:index:ManagedNodeGroup", name, {}, opts)
        desired, low, high = scaling
        aws.eks.NodeGroup(
            name, cluster_name=cluster.eks_cluster.name, node_group_name=node_group_name,
            node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-a", "subnet-b"],
            instance_types=instance_types, ami_type=ami_type, capacity_type=capacity_type, labels=labels,
            taints=[aws.eks.NodeGroupTaintArgs(**taint) for taint in taints or []] or None,
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=desired, min_size=low, max_size=high),
            opts=pulumi.ResourceOptions(parent=self))
