"""Scenarios through the engine's door: the pack process started as the engine starts it, fed the
resources that real Pulumi programs register under mocks (inputs to Analyze, outputs to
AnalyzeStack). One clean stack, then one mistake per policy: exactly that policy, on exactly
that resource, at exactly the expected level."""

import json
import os
from datetime import date, timedelta

import pulumi
import pulumi_kubernetes as k8s
import pytest
from builders import (
    AMD64,
    DECLARED,
    GIB,
    LET_THROUGH,
    REFUSED,
    aks_on_subnet,
    apps_pool,
    arch_requirement,
    besides_no_pool,
    budget,
    cluster,
    deployment,
    fargate_cluster,
    fargate_workload,
    namespaced_deployment,
    node_class,
    nodepool,
    placed,
    quota_part,
    role,
    subnet_pool,
    workload,
)
from google.protobuf import json_format

from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs, MachineProfile
from compute_guard.policies import BY_NAME
from compute_guard.testkit import capture_program, export_program, previous_deployment
from compute_guard.testkit.analyzer import ConfigError
from compute_guard.testkit.engine import PACK_DIR, EnginePack
from compute_guard.testkit.program import capture


def program(*parts):
    def run():
        for part in parts:
            part()
    return run


def bare(group_id="general", **changes):
    sizes = {"min_size": 1, "max_size": 2}
    sizes.update(changes)
    return CapacityGroup(group_id=group_id, **sizes)


def plain_cluster(*pools, id_="compute", name="compute", **changes):
    return cluster(ComputeClusterArgs(id=id_, capacity_groups=list(pools) or [bare()], **changes), name=name)


def node_group(machine, ami_type):
    def declare():
        import pulumi_aws as aws

        aws.eks.NodeGroup("general", cluster_name="fleet", node_group_name="general", instance_types=[machine],
                          ami_type=ami_type, node_role_arn="arn:aws:iam::123456789012:role/nodes",
                          subnet_ids=["subnet-1"],
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
    return declare


def eks_versions(plane, node=None, removed_autoscaler=False, ami=None):
    """An EKS cluster at Kubernetes ``plane``, its node group at ``node`` (of AMI type ``ami``), and
    (``removed_autoscaler``) an autoscaling/v2beta2 HorizontalPodAutoscaler applied to it."""
    def declare():
        import pulumi_aws as aws

        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="arn:aws:iam::123456789012:role/eks", version=plane,
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", instance_types=["m7i.large"],
                          node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"], version=node,
                          ami_type=ami,
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
        if removed_autoscaler:
            provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
            k8s.autoscaling.v2beta2.HorizontalPodAutoscaler("api", spec={
                "scale_target_ref": {"api_version": "apps/v1", "kind": "Deployment", "name": "api"},
                "min_replicas": 1, "max_replicas": 3}, opts=pulumi.ResourceOptions(provider=provider))
    return declare


def eks_replaced(machine):
    """An EKS node group named by the program ("general") at ``machine``, and a Deployment on its cluster that no
    other pool takes."""
    def declare():
        import pulumi_aws as aws

        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn="arn:aws:iam::123456789012:role/eks",
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", instance_types=[machine],
                          node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
        provider = k8s.Provider("k8s", kubeconfig=cluster.endpoint)
        k8s.apps.v1.Deployment("api", spec={"replicas": 2, "selector": {"match_labels": {"app": "api"}}, "template": {
            "metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{"name": "api", "image": "nginx",
                                                                             "resources": {"requests": DECLARED}}]}}},
            opts=pulumi.ResourceOptions(provider=provider))
    return declare


def verdicts(result):
    return sorted((v.policy, v.urn.rsplit("::", 1)[-1], v.level) for v in result.violations)


def engine_run(parts, platform="kubernetes", policy_config=None, preview=True, env=None, previous=None):
    """The parts' program sent to the pack as the engine sends it: a first preview, or with ``previous`` (a previous
    deployment's export) an update preview, in which what does not change has its deployed outputs."""
    if previous is None:
        resources = capture_program(program(*parts), preview=preview)
    else:
        captured = capture(program(*parts), preview=preview, previous=previous_deployment(previous))
        resources = [captured.stack, *captured.resources]
    with EnginePack({"compute:platform": platform}, policy_config, preview=preview, env=env) as pack:
        return pack.run(resources)


def test_the_example_is_clean():
    resources = capture_program(PACK_DIR / "examples" / "kubernetes", stack_config={"compute:platform": "kubernetes"})
    assert {r.type for r in resources} >= {"compute:index:ComputeCluster", "kubernetes:apps/v1:Deployment",
                                           "kubernetes:apps/v1:StatefulSet", "kubernetes:apps/v1:DaemonSet",
                                           "kubernetes:batch/v1:CronJob"}
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run(resources)
    assert result.violations == [] and result.notes == []


def test_the_seed_stack_is_clean_on_every_platform():
    for platform in ("kubernetes", "aws", "gcp", "azure", "local"):
        result = engine_run([cluster(), deployment("api", labels=placed(), node_selector=AMD64, requests=DECLARED)],
                            platform)
        assert result.violations == [], platform


ARM = MachineProfile(cpu="2", memory_bytes=4 * GIB, ephemeral_storage_bytes=20 * GIB, architecture="arm64")
PIN_ARM64 = {"workload-architecture-pin": {"enforcementLevel": "mandatory", "architecture": "arm64"}}
# 2 cores, 4 GiB, no declared architecture: no workload needs a pin
TWO_CORES = MachineProfile(cpu="2", memory_bytes=4 * GIB, ephemeral_storage_bytes=20 * GIB)

# Pods of 'api' that may not share a node
REPELS = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "api"}}}]}}

# One mistake per public policy: (program parts, platform, the resource it is reported on, policy config,
# the previously deployed parts for a baseline). tests/test_layout.py checks every policy has one.
SCENARIOS = {
    "compute-cluster-valid": ([plain_cluster(bare(min_size=3, max_size=2))], "kubernetes", "compute", None, None),
    "kubernetes-compute-enforceable": (
        [plain_cluster(bare(nested_virtualization=True))], "kubernetes", "compute", None, None),
    "cloud-machine-catalog": ([plain_cluster(bare(instance_type="m7g.xlarg"))], "aws", "compute", None, None),
    "workload-architecture-selector-valid": (
        [plain_cluster(), deployment("api", node_selector={"kubernetes.io/arch": "x86_64"})], "kubernetes", "api",
        None, None),
    "compute-cluster-safe-update": ([plain_cluster(bare(instance_type="m7i.large"))], "aws", "compute", None,
                                    [plain_cluster(bare(instance_type="t4g.small"))]),
    "compute-pools-single-architecture": (
        [plain_cluster(apps_pool(), bare("arm", profile=ARM))], "kubernetes", "compute", None, None),
    "workload-pool-placement": (
        [plain_cluster(), deployment("api", labels=placed(pool="nope"))], "kubernetes", "api", None, None),
    "workload-node-architecture": ([cluster(), deployment("api", labels=placed(), requests=DECLARED)], "kubernetes",
                                   "api", None, None),
    "dynamic-container-pool": (
        [plain_cluster(), plain_cluster(id_="two", name="two"), deployment("jobs", labels=role("dynamic"))],
        "kubernetes", "jobs", None, None),
    "workload-architecture-pin": ([deployment("api")], "kubernetes", "api", PIN_ARM64, None),
    "workload-fits-pool": ([plain_cluster(bare(profile=TWO_CORES)), deployment("api", requests={"cpu": "3"})],
                           "kubernetes", "api", None, None),
    "pool-capacity": ([plain_cluster(bare(profile=TWO_CORES, max_size=1)),
                       workload("Deployment", "api", requests={"cpu": "1"}, spec={"replicas": 3})],
                      "kubernetes", "compute", None, None),
    "workload-schedulable": ([node_class(), nodepool("batch", [arch_requirement("amd64")], taints=[
        {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]), deployment("api")], "aws", "api", None, None),
    "helm-release-unchecked": ([plain_cluster(), lambda: k8s.helm.v3.Release("ingress", chart="gateway")],
                               "kubernetes", "ingress", None, None),
    "cloud-machine-new-family": ([plain_cluster(bare(instance_type="m9i.large"))], "aws", "compute", None, None),
    # two budgets select api's Pods, each allowing an eviction at its 3 replicas: the eviction API refuses them both
    "workload-disruption-allowed": ([plain_cluster(bare(profile=TWO_CORES, max_size=3)),
                                     deployment("api", labels=placed(pool="general"), spec={"replicas": 3},
                                                requests=DECLARED),
                                     budget("api", maxUnavailable=1),
                                     budget("api-web", {"matchLabels": {"app": "api"}}, minAvailable=1)],
                                    "kubernetes", "api", None, None),
    "disruption-budget-useful": ([plain_cluster(bare(profile=TWO_CORES)),
                                  deployment("api", labels=placed(pool="general"), requests=DECLARED),
                                  budget("api", {"matchLabels": {"app": "apii"}}, maxUnavailable=1)],
                                 "kubernetes", "api", None, None),
    "workload-rollout-fits": ([plain_cluster(bare(profile=TWO_CORES, max_size=3)),
                               deployment("api", labels=placed(pool="general"), affinity=REPELS,
                                          spec={"replicas": 3}, requests=DECLARED)], "kubernetes", "api", None, None),
    "workload-zone-spread": ([node_class(), nodepool("general", [arch_requirement("amd64"), {
        "key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a", "us-east-1b"]}]),
        # CPU only: some machines the NodePool allows have no memory in the catalog (a memory request is a note)
        deployment("api", spec={"replicas": 3}, requests={"cpu": "100m"}, pod={"topologySpreadConstraints": [{
            "maxSkew": 1, "minDomains": 3, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "api"}}}]})],
        "aws", "api", None, None),
    "workload-requests-declared": ([plain_cluster(bare(profile=TWO_CORES)), deployment("api", labels=placed(
        pool="general"))], "kubernetes", "api", None, None),
    # an EKS node group moved from t3.medium (amd64) to t4g.medium (arm64), its AMI type following (the in-process
    # twin: tests/policies/test_pool_safe_update.py)
    "pool-safe-update": ([node_group("t4g.medium", "AL2023_ARM_64_STANDARD")], "aws", "general", None,
                         [node_group("t3.medium", "AL2023_x86_64_STANDARD")]),
    # a NodePool allowing linux and windows nodes (its EC2NodeClass is another stack's), an unpinned Deployment (the
    # in-process twin: tests/policies/test_workload_node_os.py)
    "workload-node-os": ([nodepool("mixed", [arch_requirement("amd64"), {
        "key": "kubernetes.io/os", "operator": "In", "values": ["linux", "windows"]}]),
        deployment("api", requests={"cpu": "100m"})], "aws", "api", None, None),
    # one replica on a NodePool of spot capacity only (the in-process twin:
    # tests/policies/test_workload_interruption_tolerant.py)
    "workload-interruption-tolerant": ([node_class(), nodepool("spot", [arch_requirement("amd64"), {
        "key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}]),
        deployment("api", requests={"cpu": "100m"})], "aws", "api", None, None),
    # a node group named by the program moved from m7i.large to m7i.xlarge, which replaces it: deleted first, under a
    # Deployment no other pool takes (the in-process twin: tests/policies/test_pool_replacement_safe.py)
    "pool-replacement-safe": ([eks_replaced("m7i.xlarge")], "aws", "general", None, [eks_replaced("m7i.large")]),
    # a deployed node group at 1.34 moved to 1.35, ahead of its control plane at 1.34 (the in-process twin:
    # tests/policies/test_cluster_version_skew.py); with the previous deployment, as a team's preview has it (without
    # one, whether the control plane moves one minor at a time is not judged, and a note says so)
    "cluster-version-skew": ([eks_versions("1.34", "1.35")], "aws", "general", None, [eks_versions("1.34", "1.34")]),
    # an autoscaling/v2beta2 autoscaler (removed in 1.26) on a 1.34 cluster (the in-process twin:
    # tests/policies/test_workload_api_available.py)
    "workload-api-available": ([eks_versions("1.34", removed_autoscaler=True)], "aws", "api", None, None),
    # an AKS pool of Azure CNI whose maxCount its /24 subnet cannot address (the in-process twin:
    # tests/policies/test_pool_address_space.py)
    "pool-address-space": ([aks_on_subnet(subnet_pool(max_count=8))], "azure", "aks", None, None),
    # eleven Pods in a namespace whose ResourceQuota allows ten (the in-process twin:
    # tests/policies/test_namespace_admits_workload.py)
    "namespace-admits-workload": ([quota_part({"pods": "10"}), namespaced_deployment("api", 11)], "kubernetes",
                                  "team-quota", None, None),
    # a Deployment on the host's network whose Pods a Fargate profile selects (the in-process twin:
    # tests/policies/test_platform_admits_workload.py)
    "platform-admits-workload": ([*fargate_cluster(), fargate_workload(hostNetwork=True)], "aws", "app",
                                 {"workload-schedulable": {"enforcementLevel": "disabled"}}, None),
    # an Amazon Linux 2 node group at 1.34 with its control plane (the in-process twin:
    # tests/policies/test_node_image_supported.py)
    "node-image-supported": ([eks_versions("1.34", "1.34", ami="AL2_x86_64")], "aws", "general", None, None),
    # a control plane at 1.32, in paid extended support on the suite's date (the in-process twin:
    # tests/policies/test_cluster_support_window.py)
    "cluster-support-window": ([eks_versions("1.32")], "aws", "fleet", None, None),
    # the pack process judges exemptions on the suite's date (tests/conftest.py): one that expires in a month
    "exemptions-in-force": ([plain_cluster(bare(min_size=3, max_size=2))], "kubernetes", "compute",
                            {"compute-cluster-valid": {"exemptions": [
                                {"resource": "compute", "reason": "OPS-42",
                                 "expires": (date.fromisoformat(os.environ["COMPUTE_GUARD_TODAY"]) + timedelta(days=30)).isoformat()}]}},
                            None),
}


def scenario(policy, tmp_path, env=None):
    parts, platform, resource, config, deployed = SCENARIOS[policy]
    previous = None
    if deployed is not None:  # the previous deployment, as `pulumi stack export` writes it
        previous = export_program(program(*deployed), tmp_path / "export.json")
        config = {policy: {"baseline": str(previous)}}
    return engine_run(parts, platform, config, env=env, previous=previous)


@pytest.mark.parametrize("policy", list(SCENARIOS))
def test_one_mistake_one_violation(policy, tmp_path):
    result = scenario(policy, tmp_path)
    _, _, resource, config, _ = SCENARIOS[policy]
    level = (config or {}).get(policy, {}).get("enforcementLevel", BY_NAME[policy].level.value)
    assert verdicts(result) == [(policy, resource, level)]  # at the policy's own level (advisory ones too)
    assert besides_no_pool(result.notes) == []


@pytest.mark.parametrize("policy", list(SCENARIOS))
def test_every_scenario_gives_the_same_results_without_the_sdk_shim(policy, tmp_path):
    """policies/adapters/sdk.py only reads props faster: on the SDK's own path (COMPUTE_GUARD_SDK_SHIM=off, as on an
    SDK version the shim does not know) every verdict, level, message and note is the same."""
    shimmed = scenario(policy, tmp_path)
    plain = scenario(policy, tmp_path, env={"COMPUTE_GUARD_SDK_SHIM": "off"})
    assert plain.violations == shimmed.violations and plain.notes == shimmed.notes
    assert plain.violations  # the scenario's finding is there both ways


def test_levels_and_settings_come_from_the_policy_pack_config():
    parts = SCENARIOS["workload-node-architecture"][0]
    result = engine_run(parts, policy_config={"workload-node-architecture": "advisory"})
    assert verdicts(result) == [("workload-node-architecture", "api", "advisory")]
    assert engine_run(parts, policy_config={"workload-node-architecture": "disabled"}).violations == []
    parts = SCENARIOS["kubernetes-compute-enforceable"][0]
    config = {"kubernetes-compute-enforceable": {"enforcementLevel": "advisory", "platform": "kubernetes"}}
    assert verdicts(engine_run(parts, platform="aws", policy_config=config)) == [
        ("kubernetes-compute-enforceable", "compute", "advisory")]


def test_all_sets_every_policys_level_and_a_policys_own_entry_wins():
    parts = SCENARIOS["workload-node-architecture"][0]
    everything = engine_run(parts, policy_config={"all": "advisory"})
    # disabled by default, workload-architecture-pin is turned on by "all" too, as the engine does
    assert verdicts(everything) == [("workload-architecture-pin", "api", "advisory"),
                                    ("workload-node-architecture", "api", "advisory")]
    mixed = {"all": {"enforcementLevel": "advisory"}, "workload-node-architecture": "mandatory",
             "environments": ["org/policy-settings"]}
    assert verdicts(engine_run(parts, policy_config=mixed)) == [("workload-architecture-pin", "api", "advisory"),
                                                                ("workload-node-architecture", "api", "mandatory")]
    assert engine_run(parts, policy_config={"all": "disabled"}).violations == []


def test_schema_defaults_are_filled_in_and_given_settings_added_to_them():
    """The engine's reconcile step on a pack whose schema declares a default (this pack's do not)."""
    from google.protobuf import struct_pb2
    from pulumi.runtime import proto

    from compute_guard.testkit.analyzer import reconcile_policy_config

    properties = struct_pb2.Struct()
    properties.update({"mode": {"type": "string", "enum": ["a", "b"], "default": "a"}, "limit": {"type": "number"}})
    info = proto.AnalyzerInfo(policies=[
        proto.PolicyInfo(name="p", enforcementLevel=proto.ADVISORY,
                         configSchema=proto.PolicyConfigSchema(properties=properties)),
        proto.PolicyInfo(name="q", enforcementLevel=proto.DISABLED)])
    assert reconcile_policy_config(info, {}) == {"p": (proto.ADVISORY, {"mode": "a"}), "q": (proto.DISABLED, {})}
    assert reconcile_policy_config(info, {"all": "mandatory", "p": {"limit": 3}}) == {
        "p": (proto.MANDATORY, {"mode": "a", "limit": 3}), "q": (proto.MANDATORY, {})}
    assert reconcile_policy_config(info, {"p": {"mode": "b", "enforcementLevel": "remediate"}})["p"] == (
        proto.REMEDIATE, {"mode": "b"})
    with pytest.raises(ConfigError, match="p: 'c' is not one of"):
        reconcile_policy_config(info, {"p": {"mode": "c"}})
    with pytest.raises(ConfigError, match="all: 'loud' is not a valid enforcement level"):
        reconcile_policy_config(info, {"all": "loud"})


@pytest.mark.parametrize("config", REFUSED)
def test_the_test_kit_refuses_what_the_engine_refuses(config):
    """The test kit's copy of the engine's config check, against the schemas the pack reports;
    tests/cli/test_policy_analyze.py holds the same configs to the real CLI."""
    with pytest.raises(ConfigError):
        with EnginePack({"compute:platform": "kubernetes"}, config):
            pass


@pytest.mark.parametrize("config", LET_THROUGH)
def test_the_test_kit_lets_through_what_the_engine_lets_through(config):
    with EnginePack({"compute:platform": "kubernetes"}, config) as pack:
        assert [p.name for p in pack.info().policies]


def test_preview_unknowns_and_secrets_from_the_sdk():
    def unknown_and_secret():
        config_map = k8s.core.v1.ConfigMap("settings", data={"a": "b"})
        unknown = config_map.immutable.apply(lambda m: (m or {}).get("uid"))
        ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
            CapacityGroup(group_id="general", min_size=3, max_size=2, instance_type=unknown),
            CapacityGroup(group_id="secret", min_size=1, max_size=1,
                          instance_type=pulumi.Output.secret("m7g.large")),
        ]))

    resources = capture_program(unknown_and_secret, preview=True)
    (compute,) = [r for r in resources if r.type == "compute:index:ComputeCluster"]
    raw = json.dumps(json_format.MessageToDict(compute.inputs))
    assert "04da6b54-80e4-46f7-96ec-b56ff0331ba9" in raw and "1b47061264138c4ac30d75fd1eb44270" in raw
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run(resources)
    found = {(v.policy, v.finding.split(":")[1].strip()) for v in result.violations}
    assert ("compute-cluster-valid", "minSize 3 is greater than maxSize 2; lower minSize or raise maxSize") in found
    enforceable = result.findings("kubernetes-compute-enforceable")
    assert any("pool 'general': instanceType is set (its value is not known yet)" in f for f in enforceable)
    assert any("pool 'secret': instanceType '[secret]' cannot be enforced" in f for f in enforceable)
    assert not any("m7g.large" in v.message for v in result.violations + result.notes)
    assert [n.policy for n in result.notes] == ["compute-cluster-valid"]  # it could not check the unknown one


def test_an_hpa_whose_target_is_not_known_yet_refuses_no_budget_in_a_first_preview():
    """A first preview: the HPA's scaleTargetRef.name is an output not known yet, so it may keep 3 Pods of 'api', and
    minAvailable 1 may let two go: notes, never disruption-budget-useful's refusal at one replica (a false violation
    before); with no HPA the budget is refused (test_an_hpa_that_may_scale_the_workload_keeps_a_budget_from_being_
    refused's twin)."""
    def hpa() -> None:
        name = k8s.core.v1.ConfigMap("settings", data={"a": "b"}).immutable.apply(lambda _value: "api")
        k8s.autoscaling.v2.HorizontalPodAutoscaler("api", metadata={"name": "api"}, spec={
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}, "minReplicas": 3,
            "maxReplicas": 6})

    parts = [deployment("api", requests=DECLARED), budget("api", minAvailable=1)]
    maybe = engine_run([*parts, hpa])
    assert maybe.of("disruption-budget-useful") == [], maybe.violations
    assert any(note.policy == "disruption-budget-useful" and "HorizontalPodAutoscaler 'api' may keep 3 Pods of "
               "Deployment 'api', which is counted at 1 (its scaleTargetRef is not known yet)" in note.finding
               for note in maybe.notes), maybe.notes
    assert [found.policy for found in engine_run(parts).of("disruption-budget-useful")] == ["disruption-budget-useful"]


def test_values_the_program_marks_secret_never_appear_in_messages():
    secret = pulumi.Output.secret
    marked = ["s3cr3t-cluster", "s3cr3t-pool", "zz9.s3cr3t", "10.99.0.1/16", "s3cr3t-label"]

    def leaky():
        ComputeCluster("compute", ComputeClusterArgs(
            id=secret(marked[0]), container_cidr=secret(marked[3]), capacity_groups=[
                CapacityGroup(group_id=secret(marked[1]), min_size=secret(7), max_size=secret(3),
                              instance_type=secret(marked[2]))]))
        k8s.apps.v1.Deployment("api", metadata={"labels": {"compute.alien.dev/pool": secret(marked[4]),
                                                           "compute.alien.dev/cluster": secret(marked[0])}},
                               spec={"selector": {"matchLabels": {"app": "api"}}, "template": {
                                   "metadata": {"labels": {"app": "api"}},
                                   "spec": {"containers": [{"name": "api", "image": "i"}],
                                            "nodeSelector": {"kubernetes.io/arch": secret("x86-64")}}}})

    resources = capture_program(leaky, preview=False)
    for platform in ("kubernetes", "aws"):
        with EnginePack({"compute:platform": platform}) as pack:
            result = pack.run(resources)
        messages = [v.message for v in result.violations + result.notes]
        # the secrets are checked, just never quoted: minSize 7 > maxSize 3, the CIDR's host bits,
        # the architecture spelling, and the placement on a pool that does not exist
        assert {v.policy for v in result.violations} >= {"compute-cluster-valid", "workload-architecture-selector-valid",
                                                         "workload-pool-placement"}, messages
        assert any("[secret]" in message for message in messages)
        for value in marked + ["7", "x86-64"]:
            assert not any(f"'{value}'" in m or f" {value} " in m for m in messages), (value, messages)


def test_every_supported_kind_through_the_engine():
    from builders import KINDS

    def every_kind(node_selector):
        return [cluster()] + [workload(kind, f"w{i}", group=group, node_selector=node_selector, requests=DECLARED)
                              for i, (kind, group, _) in enumerate(KINDS)]

    pinned = engine_run(every_kind(AMD64))
    assert pinned.violations == []
    # the kinds at versions Kubernetes removed, on a cluster whose version the stack does not say: one note names each
    # (workload-api-available; its removals are k8s.io/api's, tests/oracle/test_removed_apis_oracle.py)
    (note,) = pinned.notes
    assert note.policy == "workload-api-available"
    removed = sorted(f"{kind} 'w{i}': its apiVersion {group.__name__.split('.', 1)[1].replace('.', '/')} is removed in "
                     f"Kubernetes {'1.25' if kind == 'CronJob' else '1.16'}" for i, (kind, group, _) in enumerate(KINDS)
                     if group is not None and group.__name__.rsplit(".", 1)[-1].startswith("v1beta"))
    assert sorted(reason.split(", and the cluster")[0] for reason in note.reasons) == removed
    unpinned = engine_run(every_kind(None))
    assert sorted(v.urn.rsplit("::", 1)[-1] for v in unpinned.of("workload-node-architecture")) == sorted(
        f"w{i}" for i in range(len(KINDS)))
    assert len(unpinned.violations) == len(KINDS)


def test_a_secret_machine_typo_gets_no_did_you_mean():
    """The closest machine name of a secret typo is a near copy of the secret."""
    def typo(secret: bool):
        machine = pulumi.Output.secret("m7g.xlarg") if secret else "m7g.xlarg"
        return lambda: ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
            CapacityGroup(group_id="general", min_size=1, max_size=1, instance_type=machine)]))

    with EnginePack({"compute:platform": "aws"}) as pack:
        plain = pack.run(capture_program(typo(False), preview=False)).of("cloud-machine-catalog")
        hidden = pack.run(capture_program(typo(True), preview=False)).of("cloud-machine-catalog")
    assert [v.message.split("\n")[-1] for v in plain] == [
        "ComputeCluster 'compute' pool 'general': instanceType 'm7g.xlarg' is not a machine type on AWS; "
        "did you mean 'm7g.xlarge'?"]
    assert [v.message.split("\n")[-1] for v in hidden] == [
        "ComputeCluster 'compute' pool 'general': instanceType '[secret]' is not a machine type on AWS; "
        "use a machine type of AWS"]


