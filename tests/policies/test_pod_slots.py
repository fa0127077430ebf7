"""Pod slots as the platform's network gives them (issue 60, SPEC 20): EKS's VPC CNI with and without prefix
delegation, and a managed node group's cap, against EKS's own table and formulas written out here.

EKS (docs.aws.amazon.com/eks/latest/userguide/choosing-instance-type.html, "How maxPods is determined";
cni-increase-ip-addresses.html): ENIs x (IPv4 addresses per ENI - 1) + 2; with prefix delegation each of those
addresses is a /28 of 16, ENIs x (IPv4 addresses per ENI - 1) x 16 + 2; a managed node group on EKS's AMI caps it at
110 below 30 vCPUs and 250 from 30; kube-reserved memory is 11 MiB x maxPods + 255 MiB (nodeadm).
"""

import json

import pulumi_aws as aws
import pytest
from builders import AMD64, SHARED, declared_cluster, node_group, run, self_managed_group, workload

from compute_guard.policies.model.labels import ARCH
from compute_guard.policies.model.sources.common import machines_of
from compute_guard.policies.model.sources.eks import pod_slots
from compute_guard.policies.platforms.catalog import find_machine

TABLE = {item["instanceType"]: item for item in map(
    json.loads, (SHARED / "third_party" / "eks-instance-info" / "instance-info.jsonl").read_text().splitlines())}


def expected(name, prefix, managed):
    """The formula, from EKS's table and the docs (not the pack's)."""
    item = TABLE[name]
    count = item["defaultMaxENIs"] * (item["ipv4AddressesPerInterface"] - 1) * (16 if prefix else 1) + 2
    if managed:
        count = min(count, 110 if find_machine("aws", name).vcpus < 30 else 250)
    return count


@pytest.mark.parametrize(("prefix", "managed"), [(False, False), (False, True), (True, False), (True, True)])
def test_every_machine_in_eks_table_gets_eks_formula(prefix, managed):
    compared = 0
    for name in TABLE:
        if find_machine("aws", name) is None or find_machine("aws", name).vcpus is None:
            continue
        (option,) = pod_slots(machines_of("aws", (name,)), prefix, managed)
        assert option.hardware.max_pods == expected(name, prefix, managed), name
        compared += 1
    assert compared > 500


def test_a_managed_group_with_several_instance_types_gives_every_node_the_least():
    options = pod_slots(machines_of("aws", ("m5.large", "m5.24xlarge")), False, True)
    assert [option.hardware.max_pods for option in options] == [29, 29]
    assert options[1].hardware.max_pods_why == (
        "EKS's maximum for m5.large, the least of its instance types', which EKS gives every node")
    alone = pod_slots(machines_of("aws", ("m5.large", "m5.24xlarge")), False, False)  # self-managed: each its own
    assert [option.hardware.max_pods for option in alone] == [29, 737]


def big(memory):
    return workload("Deployment", "api", node_selector={ARCH: "amd64"}, requests={"memory": memory})


def test_a_managed_group_of_large_machines_reserves_memory_for_250_pods_not_737():
    """m5.24xlarge: 393216 MiB. A managed group caps its maxPods at 250 (96 vCPUs): 11 x 250 + 255 = 3005 MiB
    kube-reserved + 100 MiB eviction leaves 390111 MiB. Before, EKS's ENI formula's 737 (15 x 49 + 2) reserved 8362
    MiB and refused a Pod that fits. A self-managed group has no cap: 737 Pods, 384754 MiB."""
    group = node_group("large", ["m5.24xlarge"], ami_type="AL2023_x86_64_STANDARD")
    assert run(group, big("390111Mi"), platform="aws").findings("workload-fits-pool") == []
    (refused,) = run(group, big("390112Mi"), platform="aws").findings("workload-fits-pool")
    assert "384 GiB capacity - 3005 MiB kube-reserved - 100 MiB eviction threshold = 380.97 GiB" in refused
    own = self_managed_group("own", "m5.24xlarge")
    assert run(own, big("384754Mi"), platform="aws").findings("workload-fits-pool") == []
    assert run(own, big("384755Mi"), platform="aws").findings("workload-fits-pool") != []


def test_a_launch_template_that_may_name_its_own_ami_keeps_the_uncapped_table():
    """amiType unset and a launch template: the template may name an AMI of its own, whose bootstrap EKS's cap does
    not reach, so the table's 737 stands (11 x 737 + 255 = 8362 MiB reserved: 384754 MiB allocatable)."""
    def group():
        declared_cluster("aws", "fleet")
        return aws.eks.NodeGroup("custom", cluster_name="fleet", node_role_arn="arn:aws:iam::123456789012:role/n",
                                 subnet_ids=["subnet-1"], instance_types=["m5.24xlarge"],
                                 launch_template=aws.eks.NodeGroupLaunchTemplateArgs(id="lt-1", version="1"),
                                 scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1,
                                                                                   max_size=1))
    assert run(group, big("384754Mi"), platform="aws").findings("workload-fits-pool") == []
    assert run(group, big("384755Mi"), platform="aws").findings("workload-fits-pool") != []


def vpc_cni(enabled, cluster="fleet", *, yaml_values=False):
    def declare():
        values = {"env": {"ENABLE_PREFIX_DELEGATION": "true" if enabled else "false"}}
        text = f"env:\n  ENABLE_PREFIX_DELEGATION: \"{'true' if enabled else 'false'}\"\n" if yaml_values \
            else json.dumps(values)
        return aws.eks.Addon("vpc-cni", cluster_name=cluster, addon_name="vpc-cni", configuration_values=text)
    return declare


def tiny(replicas):
    return workload("Deployment", "api", node_selector=AMD64, requests={"cpu": "1m", "memory": "1Mi"},
                    spec={"replicas": replicas})


def test_prefix_delegation_on_the_clusters_vpc_cni_gives_a_managed_group_110_slots_on_m5_large():
    """m5.large: 3 ENIs x (10 - 1) + 2 = 29 Pods; with prefix delegation 3 x 9 x 16 + 2 = 434, capped at 110
    (2 vCPUs). One node: 29 Pods fit without it, 30 do not; with it 110 fit, 111 do not."""
    group = node_group("apps", ["m5.large"], max_size=1)
    capacity = "pool-capacity"
    assert run(group, tiny(29), platform="aws").findings(capacity) == []
    assert run(group, tiny(30), platform="aws").findings(capacity) != []
    for values in (False, True):
        assert run(group, vpc_cni(True, yaml_values=values), tiny(110), platform="aws").findings(capacity) == []
        (message,) = run(group, vpc_cni(True, yaml_values=values), tiny(111), platform="aws").findings(capacity)
        assert "it has room for 1 x 110 = 110 Pods" in message
    assert run(group, vpc_cni(False), tiny(30), platform="aws").findings(capacity) != []
    # another cluster's add-on leaves this one's slots alone
    assert run(group, vpc_cni(True, cluster="other"), tiny(30), platform="aws").findings(capacity) != []


def test_the_prefix_delegation_slots_are_said_with_their_arithmetic_and_a_fix_that_works():
    """110 DaemonSets fill a node's 110 slots: the Deployment has no slot, and the message says where the slots come
    from and the fix (before: "one Pod requests nothing, more than any node ... lower its requests or allow larger
    instance types", which no machine would mend); 109 leave one."""
    group = node_group("apps", ["m5.large"], max_size=1)
    daemons = [workload("DaemonSet", f"d{i}", node_selector=AMD64) for i in range(110)]
    api = workload("Deployment", "api", node_selector=AMD64)
    (message,) = run(group, vpc_cni(True), *daemons, api, platform="aws").findings("workload-fits-pool")
    assert message == (
        "Deployment 'api': no node of the pools that can take it has a Pod slot left: pool 'apps' (NodeGroup): a node "
        "(machine m5.large) holds at most 110 Pods (EKS's maximum for m5.large with prefix delegation: 3 ENIs x "
        "(10 - 1) addresses x 16 + 2 = 434, which a managed node group caps at 110 on 2 vCPUs) and its DaemonSets "
        "('d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9' and 100 more) take every slot; its Pods can "
        "never be scheduled: move DaemonSets to other pools or raise the nodes' maxPods")
    assert run(group, vpc_cni(True), *daemons[:109], api, platform="aws").findings("workload-fits-pool") == []


def test_a_self_managed_groups_kubelet_max_pods_flag_is_its_nodes_slots():
    """m5.large: 29 by EKS's table; user data passing the kubelet --max-pods=110 (the bootstrap script's
    --kubelet-extra-args, as EKS's prefix-delegation guide does for self-managed nodes) gives 110."""
    script = "#!/bin/bash\n/etc/eks/bootstrap.sh fleet --use-max-pods false --kubelet-extra-args '--max-pods=110'\n"
    own = self_managed_group("own", "m5.large", max_size=1, user_data=script)
    assert run(own, tiny(110), platform="aws").findings("pool-capacity") == []
    (message,) = run(own, tiny(111), platform="aws").findings("pool-capacity")
    assert "it has room for 1 x 110 = 110 Pods" in message
    plain = self_managed_group("own", "m5.large", max_size=1, user_data="#!/bin/bash\n/etc/eks/bootstrap.sh fleet\n")
    assert run(plain, tiny(29), platform="aws").findings("pool-capacity") == []
    assert run(plain, tiny(30), platform="aws").findings("pool-capacity") != []


def test_a_nodeadm_node_configs_max_pods_is_its_nodes_slots():
    """AL2023's user data: a NodeConfig whose spec.kubelet.config.maxPods is 110 (nodeadm's NodeConfig API), in a
    MIME part as EKS's guides write it; a --max-pods flag beside it wins, as the kubelet's flags do."""
    def user_data(flags=""):
        return ("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n--BOUNDARY\n"
                "Content-Type: application/node.eks.aws\n\n---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
                "spec:\n  cluster:\n    name: fleet\n  kubelet:\n    config:\n      maxPods: 110\n"
                f"{flags}\n--BOUNDARY--\n")
    own = self_managed_group("own", "m5.large", max_size=1, user_data=user_data())
    assert run(own, tiny(110), platform="aws").findings("pool-capacity") == []
    assert run(own, tiny(111), platform="aws").findings("pool-capacity") != []
    flagged = self_managed_group("own", "m5.large", max_size=1,
                                 user_data=user_data("    flags:\n      - --max-pods=50\n"))
    assert run(flagged, tiny(50), platform="aws").findings("pool-capacity") == []
    assert run(flagged, tiny(51), platform="aws").findings("pool-capacity") != []
