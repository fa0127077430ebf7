"""A fleet nobody here wrote, through the test kit (issue "Pools as the platforms declare them", "Done when"):
Karpenter's own example NodePools and workloads (../shared/third_party/karpenter/examples/) through a
kubernetes:yaml/v2:ConfigGroup, beside an EKS managed node group for the cluster's add-ons as pulumi-aws declares
it (tainted CriticalAddonsOnly, as Karpenter's getting-started guide runs its controller)."""

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from builders import KARPENTER

from compute_guard.testkit import evaluate

FILES = [str(KARPENTER / "crds" / "karpenter.sh_nodepools.yaml"), str(KARPENTER / "examples" / "nodepools" /
                                                                       "multiple-arch.yaml"),
         *(str(KARPENTER / "examples" / "workloads" / name) for name in ("arm64.yaml", "inflate.yaml", "spot.yaml"))]


def program():
    aws.eks.Cluster("fleet", name="fleet", role_arn="arn:aws:iam::123456789012:role/eks",
                    vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
    aws.eks.NodeGroup("system", cluster_name="fleet", node_group_name="system",
                      node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
                      instance_types=["m7i.large"], scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                          desired_size=2, min_size=2, max_size=3),
                      taints=[aws.eks.NodeGroupTaintArgs(key="CriticalAddonsOnly", value="true", effect="NO_SCHEDULE")])
    render = k8s.Provider("render", render_yaml_to_directory="rendered")
    k8s.yaml.v2.ConfigGroup("fleet", files=FILES, opts=pulumi.ResourceOptions(provider=render))


def test_karpenters_examples_beside_an_eks_node_group_get_the_schedulers_verdicts():
    result = evaluate(program, stack_config={"compute:platform": "aws"})
    verdicts = sorted((v.policy, v.urn.rsplit("::", 1)[-1]) for v in result.violations)
    assert verdicts == [("workload-node-architecture", "fleet:default/inflate"),
                        ("workload-schedulable", "fleet:default/spot")]
    (spot,) = result.findings("workload-schedulable")
    assert spot == (
        "Deployment 'fleet:default/spot': no pool can run its Pods: pool 'amd64' (NodePool) does not have label "
        "karpenter.sh/capacity-type=spot; pool 'arm64' (NodePool) does not have label karpenter.sh/capacity-type=spot; "
        "pool 'system' (NodeGroup) has taint CriticalAddonsOnly=true:NoSchedule that it does not tolerate and does not "
        "have label karpenter.sh/capacity-type=spot. They would stay Pending: change its nodeSelector, node affinity or "
        "tolerations to match a pool, or declare a pool that takes them")
    (inflate,) = result.findings("workload-node-architecture")
    assert "(pool 'amd64' (NodePool) runs amd64, pool 'arm64' (NodePool) runs arm64)" in inflate  # not 'system'
