"""kubernetes-compute-enforceable: only what Kubernetes cannot enforce, only on Kubernetes."""

import copy

import pytest
from builders import CLUSTER_TYPE, analyze, cluster_findings, valid_cluster_props
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

POLICY = "kubernetes-compute-enforceable"


def with_pool(**changes):
    props = valid_cluster_props()
    props["capacityGroups"] = [dict(copy.deepcopy(props["capacityGroups"][0]), **changes)]
    return props


def gpu_profile():
    profile = copy.deepcopy(valid_cluster_props()["capacityGroups"][0]["profile"])
    profile["gpu"] = {"type": "nvidia-a10g", "count": 1}
    return profile


POOL = "ComputeCluster 'compute' pool 'apps': "
CLUSTER = "ComputeCluster 'compute': "


@pytest.mark.parametrize("props, expected", [
    (with_pool(instanceType="m7g.xlarge"),
     POOL + "instanceType 'm7g.xlarge' cannot be enforced, Kubernetes nodes are administrator-managed; remove "
            "instanceType and describe the pool with profile"),
    (with_pool(instanceType="no-such-machine"),
     POOL + "instanceType 'no-such-machine' cannot be enforced, Kubernetes nodes are administrator-managed; remove "
            "instanceType and describe the pool with profile"),
    (with_pool(instanceType=UNKNOWN_STRING_VALUE),
     POOL + "instanceType is set (its value is not known yet), but Kubernetes nodes are administrator-managed and no "
            "machine type can be chosen; remove instanceType"),
    (with_pool(profile=gpu_profile()),
     POOL + "profile.gpu cannot be enforced, Kubernetes node GPUs are administrator-managed; remove profile.gpu"),
    (with_pool(nestedVirtualization=True),
     POOL + "nestedVirtualization is true, but Kubernetes cannot guarantee nested virtualization on "
            "administrator-managed nodes; remove it or set it to false"),
    (valid_cluster_props(failureDomainSpread={"apps": 1}, selectedFailureDomains={"apps": ["zone-a"]}),
     CLUSTER + "selectedFailureDomains cannot be enforced, node topology of an existing Kubernetes cluster is "
               "administrator-managed; remove selectedFailureDomains"),
    (valid_cluster_props(containerCidr="172.30.0.0/16"),
     CLUSTER + "containerCidr '172.30.0.0/16' cannot be applied, the Pod network of an existing Kubernetes cluster "
               "is administrator-managed; remove containerCidr or set it to 10.244.0.0/16"),
])
def test_each_unenforceable_requirement(props, expected):
    assert cluster_findings(props, POLICY) == [expected]


def test_each_requirement_of_one_pool_is_its_own_violation():
    findings = cluster_findings(with_pool(instanceType="m7g.xlarge", nestedVirtualization=True, profile=gpu_profile()),
                                POLICY)
    assert [f.split(": ", 1)[1].split(" ", 1)[0] for f in findings] == ["instanceType", "profile.gpu",
                                                                        "nestedVirtualization"]


@pytest.mark.parametrize("props", [
    valid_cluster_props(),
    valid_cluster_props(containerCidr="10.244.0.0/16"),
    with_pool(nestedVirtualization=False),
    valid_cluster_props(selectedFailureDomains={}),
    valid_cluster_props(failureDomainSpread={"apps": 2}),
])
def test_what_kubernetes_can_live_with(props):
    assert cluster_findings(props, POLICY) == []


@pytest.mark.parametrize("platform", ["aws", "gcp", "azure", "local"])
def test_other_platforms_are_not_applicable(platform):
    result = analyze(CLUSTER_TYPE, with_pool(instanceType="m7g.xlarge"), platform=platform)
    assert result.of(POLICY) == []
    assert [platform in n.reason for n in result.not_applicable if n.policy == POLICY] == [True]


def test_unknown_platform_is_not_applicable_and_says_how_to_set_it():
    result = analyze(CLUSTER_TYPE, with_pool(instanceType="m7g.xlarge"), platform=None)
    assert result.of(POLICY) == []
    (reason,) = [n.reason for n in result.not_applicable if n.policy == POLICY]
    assert "compute:platform" in reason


def test_policy_config_platform_overrides_the_stack_config():
    config = {POLICY: {"platform": "kubernetes"}}
    result = analyze(CLUSTER_TYPE, with_pool(nestedVirtualization=True), platform="aws", policy_config=config)
    assert [f.split(": ", 1)[1].split(" ", 1)[0] for f in result.findings(POLICY)] == ["nestedVirtualization"]
    config = {POLICY: {"platform": "aws"}}
    result = analyze(CLUSTER_TYPE, with_pool(nestedVirtualization=True), platform="kubernetes", policy_config=config)
    assert result.of(POLICY) == []


def test_the_platform_check_lives_here_not_in_compute_cluster_valid():
    assert cluster_findings(with_pool(instanceType="m7g.xlarge")) == []


@pytest.mark.parametrize("cidr", ["ten.two", "10.244.0.1/16", "10.244.0.0/25"])
def test_a_malformed_custom_cidr_still_cannot_be_applied(cidr):
    """compute-cluster-valid says what is wrong with the network; this policy still says that no
    network other than the default can be applied to an existing cluster."""
    assert cluster_findings(valid_cluster_props(containerCidr=cidr), POLICY) == [
        f"ComputeCluster 'compute': containerCidr '{cidr}' cannot be applied, the Pod network of an existing "
        "Kubernetes cluster is administrator-managed; remove containerCidr or set it to 10.244.0.0/16"]
    assert len(cluster_findings(valid_cluster_props(containerCidr=cidr))) == 1  # compute-cluster-valid's own


def test_a_gpu_that_cannot_be_read_is_reported_once_by_compute_cluster_valid():
    props = with_pool(profile=dict(gpu_profile(), gpu="nvidia-a10g"))
    assert cluster_findings(props, POLICY) == []
    assert cluster_findings(props) == [POOL + "profile.gpu must be an object, not a string"]


def test_nested_virtualization_not_known_yet_waits():
    result = analyze(CLUSTER_TYPE, with_pool(nestedVirtualization=UNKNOWN_STRING_VALUE), platform="kubernetes")
    assert result.of(POLICY) == []
    assert [n.policy for n in result.notes].count(POLICY) == 1


@pytest.mark.parametrize("platform, reason", [
    (None, "the platform is not known: set the stack config 'compute:platform' (one of aws, gcp, azure, kubernetes, "
           "local) or this policy's 'platform' config"),
    ("mars", "stack config 'compute:platform' must be one of aws, gcp, azure, kubernetes, local"),
    ('"kubernetes"', None),  # as `pulumi config set --path` may quote it
])
def test_what_the_platform_config_says_exactly(platform, reason):
    result = analyze(CLUSTER_TYPE, with_pool(instanceType="m7g.xlarge"), platform=platform)
    said = [n.reason for n in result.not_applicable if n.policy == POLICY]
    assert said == ([reason] if reason else [])
    assert len(result.of(POLICY)) == (0 if reason else 1)
