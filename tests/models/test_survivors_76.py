"""Issue 76: realistic bugs planted one at a time in the last round's code survived every fast test, each changing a
verdict on a real input. Each test here holds the variant of a fact the planted bug got wrong, on both sides of it (0
and more, the documented unit and its neighbour, the first and the last of a list), and fails for that bug.

Planted and killed here: (1) the auto-name form widened, (3) a GPU limit of maximum 0 read as a cap, (4) a rule's
minMemoryGb read in GiB, (5) the smallest of the rules' maxPodsPerNode taken, (6) EKS Auto Mode's node lifetime
dropped for expireAfter Never, (8) a class requested by a required node affinity term not granted its taint, (10) a
kubeconfig's first context taken instead of its current one. (9), the declared pools' minimum dropped from the cap's
floor, is tests/policies/test_self_provisioning_clusters.py's test_nodes_the_pools_keep_at_their_minimum_count_above_
the_cap."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compute_guard.policies.model.clusters import provider_namespace
from compute_guard.policies.model.resources import StackResource
from compute_guard.policies.model.sources import Replacing, bridged_deletes_first
from compute_guard.policies.model.sources.gke import gpu_capped
from compute_guard.policies.model.sources.gke_compute_classes import parse
from compute_guard.testkit import bridged

RULE = Replacing(("nodeGroupName",), "nodeGroupName", "nodeGroupNamePrefix")
OLD = {"nodeGroupName": "general", "__defaults": []}  # a name the program set


@pytest.mark.parametrize("name, deletes_first", [
    ("general-1a2b3c4", False),  # the bridge's auto-name: the program stopped setting the name
    ("general-1a2b3c4d", True),  # eight hex digits: not the bridge's, the program's
    ("general-1a2b3c", True),  # six
    ("general-xyzxyzx", True),  # not hex
    ("general-1A2B3C4", True),  # the bridge's are lowercase
    ("other-1a2b3c4", True),  # another resource's name
])
def test_a_name_has_the_bridges_auto_name_form_exactly(name, deletes_first):
    """(1) The pack's auto-name form is pulumi-terraform-bridge's (`<resource name>-` and 7 lowercase hex digits): a
    name of any other form is the program's, so a replaced group that takes it is deleted first."""
    assert bridged_deletes_first(RULE, {"nodeGroupName": name}, OLD, "general") is deletes_first


def test_the_test_kits_auto_names_have_the_form_the_pack_reads():
    """(1) The test kit names as the bridge does, in the form the pack reads as an auto-name."""
    for urn in ("urn:pulumi:stack::project::aws:eks/nodeGroup:NodeGroup::general", "urn:a", "urn:b"):
        name = bridged.auto_name(urn, "general")
        assert bridged_deletes_first(RULE, {"nodeGroupName": name}, OLD, "general") is False, name


def limits(*items: tuple[str, Any]) -> dict[str, Any]:
    return {"clusterAutoscaling": {"enabled": True, "resourceLimits": [
        {"resourceType": kind, "maximum": most} for kind, most in items]}}


def test_a_gpu_limit_of_maximum_zero_caps_no_gpu():
    """(3) Node auto-provisioning creates GPU nodes only of the types its limits cap above zero: a maximum of 0 caps
    none (the tests used 4 only)."""
    assert gpu_capped(limits(("cpu", 16), ("nvidia-tesla-t4", 0))) is False
    assert gpu_capped(limits(("cpu", 16), ("nvidia-tesla-t4", 1))) is True
    assert gpu_capped(limits(("cpu", 16))) is False


def compute_class(*rules: dict[str, Any]) -> Any:
    props = {"metadata": {"name": "batch"}, "spec": {"priorities": list(rules), "whenUnsatisfiable": "DoNotScaleUp",
                                                     "nodePoolAutoCreation": {"enabled": True}}}
    return parse(StackResource("kubernetes:cloud.google.com/v1:ComputeClass", "urn:batch", "batch", props))


def machines(pool: Any) -> set[str]:
    return {option.hardware.name for option in pool.options}


def test_min_memory_gb_counts_gigabytes():
    """(4) minMemoryGb counts gigabytes (10^9 bytes): n4-standard-2's 8 GiB (8.59 GB) is at least 8.5 GB, and not 8.6
    GB; read in GiB it would be neither (8 GiB < 8.5 GiB)."""
    _, pool = compute_class({"machineFamily": "n4", "minMemoryGb": 8.5})
    assert "n4-standard-2" in machines(pool)
    _, pool = compute_class({"machineFamily": "n4", "minMemoryGb": 8.6})
    assert "n4-standard-2" not in machines(pool)


def test_the_largest_of_the_rules_max_pods_per_node():
    """(5) Rules with different maxPodsPerNode: a node of the class may have the largest (no Pod refused for a slot
    another rule's nodes have), whichever rule comes first."""
    for rules in (({"machineFamily": "n4", "maxPodsPerNode": 32}, {"machineFamily": "e2", "maxPodsPerNode": 64}),
                  ({"machineFamily": "e2", "maxPodsPerNode": 64}, {"machineFamily": "n4", "maxPodsPerNode": 32})):
        _, pool = compute_class(*rules)
        assert pool.kubelet == {"maxPods": 64}, rules


@pytest.mark.parametrize("contexts, current, namespace", [
    ([("a", "first"), ("b", "second")], "b", "second"),  # the current context last
    ([("a", "first"), ("b", "second"), ("c", "third")], "b", "second"),  # in the middle
    ([("a", "first"), ("b", None)], "b", "default"),  # the current one names none: default, not another's
    ([("a", "first")], "missing", "default"),  # no such context
])
def test_the_namespace_is_the_current_contexts_wherever_it_is_listed(contexts, current, namespace):
    """(10) Every test listed the current context first: one that takes the first context passed them all."""
    kubeconfig = json.dumps({"apiVersion": "v1", "current-context": current, "contexts": [
        {"name": name, "context": {"cluster": "c", **({"namespace": space} if space else {})}}
        for name, space in contexts]})
    assert provider_namespace({"kubeconfig": kubeconfig}) == namespace


def test_eks_auto_mode_limits_node_lifetimes_whatever_expire_after_says():
    """(6) EKS Auto Mode replaces every node within 21 days whatever its NodePool's expireAfter says, Never included
    (docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html: "maximum of 21 days"); plain Karpenter's Never
    is never."""
    import builders

    amd64 = {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}
    one = builders.deployment("api", requests={"cpu": "100m"})

    def auto_pool(expire: str) -> Any:
        import pulumi_kubernetes as k8s

        def declare() -> None:
            k8s.apiextensions.CustomResource("never", api_version="karpenter.sh/v1", kind="NodePool",
                                             metadata={"name": "never"}, spec={"template": {"spec": {
                                                 "expireAfter": expire, "requirements": [amd64],
                                                 "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass",
                                                                  "name": "default"}}}})
        return declare

    found = builders.run(builders.auto_mode_cluster("auto", node_pools=[]), auto_pool("Never"), one,
                         platform="aws").findings("workload-interruption-tolerant")
    assert len(found) == 1 and "EKS Auto Mode" in found[0] and "21 days" in found[0], found
    plain = builders.run(builders.node_class(), builders.nodepool("never", [amd64], lifetime={"expireAfter": "Never"}),
                         one, platform="aws").findings("workload-interruption-tolerant")
    assert plain == []


def test_a_class_requested_by_a_required_node_affinity_term_is_granted_its_taint():
    """(8) Every test requested the class by nodeSelector: a Pod that requests it by a required node affinity term is
    granted the class's taint too, so it lands on the class's nodes (refused there for its size, never for the
    taint)."""
    from compute_guard.policies.model.platform_admission import class_granted, grants
    from compute_guard.policies.model.scheduling import Expression, PodPlacement

    by_affinity = PodPlacement((), ((Expression("cloud.google.com/compute-class", "In", ("batch",)),),), ())
    assert class_granted("batch") in grants(by_affinity)
    assert class_granted("batch") not in grants(PodPlacement((), None, ()))


def test_two_policies_configured_differently_on_one_stack_each_count_their_own_nodes():
    """(7) A pool's totals are counted once per stack and load, and per allocatable setting: pool-capacity configured
    with 8 GiB of kube-reserved memory (nodes of 16 GiB - 8 GiB - 100 MiB = 7.9 GiB: one 4 GiB Pod each) beside
    workload-rollout-fits at its defaults (15.9 GiB: three each). Three Pods of 4 GiB rolled out with maxSurge 1 and
    maxUnavailable 0 need a fourth: room on the default nodes, none on the reserved ones. Each policy counts with its
    own setting, whichever runs first: keyed without the setting, the rollout read pool-capacity's nodes and was
    refused."""
    from compute_guard.testkit import Analyzer, Resource
    from compute_guard.testkit.analyzer import stack_environment

    gib = 1 << 30
    placed = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "general"}
    cluster = Resource.of("compute:index:ComputeCluster", "compute", {"id": "compute", "capacityGroups": [
        {"groupId": "general", "minSize": 1, "maxSize": 3,
         "profile": {"cpu": "4", "memoryBytes": 16 * gib, "architecture": "x86_64"}}]})
    api = Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api", "labels": placed}, "spec": {
        "replicas": 3, "selector": {"matchLabels": {"app": "api"}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
        "template": {"metadata": {"labels": {"app": "api"}}, "spec": {
            "nodeSelector": {"kubernetes.io/arch": "amd64"},
            "containers": [{"name": "api", "image": "api", "resources": {"requests": {"memory": "4Gi"}}}]}}}})
    reserved = {"allocatable": {"kubernetes": {"kubeReserved": {"memory": "8Gi"}}}}

    def run(config: dict[str, Any]) -> Any:
        with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
            return Analyzer(config).run([cluster, api])

    both = run({"pool-capacity": reserved})
    assert both.findings("workload-rollout-fits") == [] and both.findings("pool-capacity") == []
    (refused,) = run({"workload-rollout-fits": reserved}).findings("workload-rollout-fits")
    assert refused.startswith("Deployment 'api': it rolls out 3 replicas with maxUnavailable 0, maxSurge 1"), refused


@pytest.mark.parametrize("machine, ami", [("m7g.large", "AL2023_ARM_64_STANDARD"), ("c8g.xlarge", "AL2023_ARM_64_STANDARD"),
                                          ("a1.large", "AL2023_ARM_64_STANDARD"), ("m7i.large", "AL2023_x86_64_STANDARD"),
                                          ("g5.xlarge", "AL2023_x86_64_STANDARD")])
def test_the_test_kits_deployed_ami_type_is_the_machines_architectures(tmp_path, machine, ami):
    """(11) The test kit's deployed amiType (EKS's default: the AL2023 AMI of the instance types' architecture) for a
    group that writes none: Graviton families arm64 (m7g, c8g, a1), the others x86_64 (g5: a "g" not after the
    generation digit). Wrong, an unchanged program previewed against its own deployment was refused as an AMI type
    change under the test kit."""
    import builders

    from compute_guard.testkit import evaluate, export_program

    program = builders.node_group("general", [machine])
    deployed = export_program(program, tmp_path / "deployed.json", stack_config={"compute:platform": "aws"})
    (group,) = [entry for entry in json.loads(deployed.read_text())["deployment"]["resources"]
                if entry["type"] == "aws:eks/nodeGroup:NodeGroup"]
    assert group["outputs"]["amiType"] == ami
    result = evaluate(program, stack_config={"compute:platform": "aws"}, deployed=deployed)
    assert [v for v in result.violations if v.policy in ("pool-replacement-safe", "pool-safe-update")] == []


def test_each_provider_has_its_own_namespace_not_known_yet():
    """A provider's namespace not known yet (its kubeconfig, or its own namespace input) is one namespace: the same
    provider's, never another's; a context list with a malformed entry still gives the current context's."""
    from pulumi_policy.proxy import UNKNOWN_OBJECT_VALUE, UnknownValueError

    from compute_guard.policies.model.values import Unknown

    late = Unknown(UnknownValueError(UNKNOWN_OBJECT_VALUE, []))
    for key in ("namespace", "kubeconfig"):
        east = provider_namespace({key: late}, "urn:east", "east")
        assert east == provider_namespace({key: late}, "urn:east", "east")
        assert east != provider_namespace({key: late}, "urn:west", "west")
    kubeconfig = json.dumps({"current-context": "b", "contexts": ["junk", {"name": "b", "context": {"namespace": "x"}}]})
    assert provider_namespace({"kubeconfig": kubeconfig}) == "x"
