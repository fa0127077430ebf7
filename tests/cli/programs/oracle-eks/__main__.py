"""An EKS cluster as pulumi/examples write one with pulumi-aws (aws-py-eks): an IAM role its node group takes, the
cluster, a managed node group, and a Deployment on the cluster (rendered to a directory: no cluster runs here).

Config: `machine` (the group's instance type), `groupName` (unset: the provider names it), `second` (a second group
that takes the Deployment too), `secretRole` (the group's role ARN a secret), `deleteFirst` (deleteBeforeReplace), and a
self-managed group (`selfManaged`: a launch template and an autoscaling group, for another cluster) whose machine is
`selfMachine`. A stack's first preview as a team writes it (issue 75): `kubeconfig` (the Kubernetes provider's
kubeconfig built from the cluster's endpoint and certificate, as aws-py-eks builds it: not known in a first preview),
`budgets` (two PodDisruptionBudgets select the Deployment's Pods; none writes a namespace), `fargate` (a Fargate profile
selecting `default`, and a DaemonSet that writes no namespace) and `noGroup` (no managed node group). `ignoreMachine`:
the group ignores changes to its instanceTypes (the ignoreChanges option); `maxSize` (its scalingConfig's, 3 unset) and
`replaceOnSize` (the replaceOnChanges option on scalingConfig.maxSize: a change the provider updates in place that the
engine replaces)."""

import json

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

config = pulumi.Config()
role = aws.iam.Role("nodes", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [{
    "Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}}]}))
cluster = aws.eks.Cluster("fleet", role_arn=role.arn, version="1.34",
                          vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1", "subnet-2"]))
node_role = pulumi.Output.secret(role.arn) if config.get_bool("secretRole") else role.arn
if not config.get_bool("noGroup"):
    aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name=config.get("groupName"),
                      node_role_arn=node_role, subnet_ids=["subnet-1", "subnet-2"],
                      instance_types=[config.get("machine") or "m7i.large"],
                      scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                        max_size=config.get_int("maxSize") or 3),
                      opts=pulumi.ResourceOptions(delete_before_replace=config.get_bool("deleteFirst") or None,
                                                  ignore_changes=["instanceTypes"] if config.get_bool("ignoreMachine")
                                                  else None,
                                                  replace_on_changes=["scalingConfig.maxSize"]
                                                  if config.get_bool("replaceOnSize") else None))
if config.get_bool("fargate"):
    aws.eks.FargateProfile("default", cluster_name=cluster.name, pod_execution_role_arn=role.arn,
                           subnet_ids=["subnet-1", "subnet-2"],
                           selectors=[aws.eks.FargateProfileSelectorArgs(namespace="default")])
if config.get_bool("second"):
    aws.eks.NodeGroup("spare", cluster_name=cluster.name, node_group_name="spare", node_role_arn=role.arn,
                      subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                      scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
if config.get_bool("selfManaged"):
    template = aws.ec2.LaunchTemplate("batch", image_id="ami-0123456789abcdef0",
                                      instance_type=config.get("selfMachine") or "c7i.large")
    aws.autoscaling.Group("batch", min_size=1, max_size=2, vpc_zone_identifiers=["subnet-1"],
                          launch_template=aws.autoscaling.GroupLaunchTemplateArgs(id=template.id, version="$Latest"),
                          tags=[aws.autoscaling.GroupTagArgs(key="kubernetes.io/cluster/batch", value="owned",
                                                             propagate_at_launch=True)])

kubeconfig = pulumi.Output.all(cluster.endpoint, cluster.certificate_authority.data, cluster.name).apply(
    lambda values: json.dumps({
        "apiVersion": "v1", "clusters": [{"name": "kubernetes", "cluster": {
            "server": values[0], "certificate-authority-data": values[1]}}],
        "contexts": [{"name": "aws", "context": {"cluster": "kubernetes", "user": "aws"}}], "current-context": "aws",
        "users": [{"name": "aws", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                                    "command": "aws", "args": ["eks", "get-token", "--cluster-name",
                                                                               values[2]]}}}]})) \
    if config.get_bool("kubeconfig") else None
provider = k8s.Provider("k8s", kubeconfig=kubeconfig, render_yaml_to_directory="rendered")
opts = pulumi.ResourceOptions(provider=provider)
labels = {"app": "api"}
k8s.apps.v1.Deployment("api", metadata={"name": "api"}, spec={
    "replicas": 2, "selector": {"match_labels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
        "containers": [{"name": "api", "image": "nginx", "resources": {"requests": {"cpu": "100m",
                                                                                    "memory": "128Mi"}}}]}}},
    opts=opts)
if config.get_bool("budgets"):
    for name in ("api-a", "api-b"):
        k8s.policy.v1.PodDisruptionBudget(name, metadata={"name": name}, spec={
            "max_unavailable": 1, "selector": {"match_labels": labels}}, opts=opts)
if config.get_bool("fargate"):
    k8s.apps.v1.DaemonSet("agent", metadata={"name": "agent"}, spec={
        "selector": {"match_labels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {
            "containers": [{"name": "agent", "image": "agent", "resources": {"requests": {"cpu": "50m"}}}]}}},
        opts=opts)
pulumi.export("clusterName", cluster.name)
