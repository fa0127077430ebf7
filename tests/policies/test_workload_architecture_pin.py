"""workload-architecture-pin: disabled by default; at remediate it pins unconstrained workloads to
the architecture their pool needs, and at advisory or mandatory it says what it would add."""

from types import MappingProxyType
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
from builders import AMD64, ARM64, DECLARED, KINDS, cluster, deployment, placed, run, workload
from google.protobuf import json_format

from compute_guard.testkit import Analyzer, PolicyResult, Resource

POLICY = "workload-architecture-pin"
REMEDIATE = {POLICY: "remediate"}


def api(**kwargs: Any):
    """Deployment 'api' on the 'apps' pool, registered after (and depending on) its ComputeCluster:
    the remediation knows the clusters analyzed before the workload."""
    kwargs.setdefault("requests", DECLARED)
    return deployment("api", labels=placed(), after=cluster(), **kwargs)


def unknown(value: Any) -> pulumi.Output:
    """A value not known during preview, as the SDK sends it (call it while the program runs)."""
    return k8s.core.v1.ConfigMap(f"source-{id(value)}", data={"a": "b"}).immutable.apply(lambda m: value)


def api_with(pod_spec_fields: Any) -> Any:
    """Deployment 'api' after its ComputeCluster, with pod spec fields made while the program runs."""
    def program() -> None:
        compute = cluster()()
        k8s.apps.v1.Deployment("api", metadata={"labels": placed()}, spec={
            "selector": {"matchLabels": {"app": "api"}}, "template": {
                "metadata": {"labels": {"app": "api"}},
                "spec": {"containers": [{"name": "api", "image": "i"}], **pod_spec_fields()}}},
            opts=pulumi.ResourceOptions(depends_on=[compute]))

    return program


def pod_spec(props: dict[str, Any], path: str) -> dict[str, Any]:
    for field in path.split("."):
        props = props[field]
    return props


def test_disabled_by_default_nothing_changes_and_policy_7_still_reports():
    result = run(cluster(), deployment("api", labels=placed(), requests=DECLARED))
    assert result.remediations == [] and result.of(POLICY) == []
    assert [v.policy for v in result.violations] == ["workload-node-architecture"]


def test_remediate_pins_keeping_the_other_selector_keys_and_clears_policy_7():
    result = run(api(node_selector={"disktype": "ssd"}),
                 policy_config=REMEDIATE)
    ((urn, props),) = result.remediated.items()
    assert urn.endswith("::api")
    assert pod_spec(props, "spec.template.spec")["nodeSelector"] == {"disktype": "ssd", "kubernetes.io/arch": "amd64"}
    assert props["spec"]["selector"] == {"matchLabels": {"app": "api"}}  # nothing else changed
    assert [r.policy for r in result.remediations] == [POLICY]
    assert result.violations == [] and result.notes == []


def test_remediation_is_idempotent_and_deterministic():
    first = run(api(), policy_config=REMEDIATE)
    again = run(api(), policy_config=REMEDIATE)
    assert first.remediations == again.remediations
    ((urn, props),) = first.remediated.items()
    analyzer = Analyzer(REMEDIATE)
    for resource in (Resource.of("compute:index:ComputeCluster", "compute", {
            "id": "compute", "capacityGroups": [{"groupId": "apps", "minSize": 1, "maxSize": 3, "profile": {
                "cpu": "2", "memoryBytes": 1, "ephemeralStorageBytes": 1, "architecture": "x86_64"}}]}),
            Resource.of("kubernetes:apps/v1:Deployment", "api", props)):
        assert analyzer.remediate(resource) is resource  # nothing left to change


@pytest.mark.parametrize("kind, group, path", KINDS, ids=[f"{k}-{g.__name__ if g else 'core'}" for k, g, _ in KINDS])
def test_every_kind_and_api_version_is_pinned_at_its_pod_spec(kind, group, path):
    result = run(workload(kind, "w", group=group, labels=placed(), after=cluster(), requests=DECLARED),
                 policy_config=REMEDIATE)
    (props,) = result.remediated.values()
    assert pod_spec(props, path)["nodeSelector"] == AMD64
    assert result.violations == []


def test_advisory_reports_what_it_would_add_and_changes_nothing():
    result = run(api(), policy_config={POLICY: "advisory"})
    assert result.remediations == []
    assert result.findings(POLICY) == [
        "Deployment 'api': its Pods need amd64 nodes (the stack's compute pools declare x86_64) and carry no "
        "architecture constraint; at level remediate this policy adds "
        "spec.template.spec.nodeSelector['kubernetes.io/arch'] = 'amd64'"]
    assert [v.level for v in result.of(POLICY)] == ["advisory"]


@pytest.mark.parametrize("constraint", [
    dict(node_selector=ARM64),  # wrong for the pool: stays a finding of workload-node-architecture
    dict(node_selector={"kubernetes.io/arch": "x86_64"}),  # not a Kubernetes name: policy 4's finding
    dict(node_selector={"beta.kubernetes.io/arch": "arm64"}),
    dict(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]}]}}}),
])
def test_an_existing_architecture_constraint_is_never_rewritten(constraint):
    result = run(api(**constraint), policy_config=REMEDIATE)
    assert result.remediations == []
    assert "workload-node-architecture" in {v.policy for v in result.mandatory}


def test_a_constraint_not_known_yet_is_left_alone():
    for fields in (lambda: {"nodeSelector": {"kubernetes.io/arch": unknown("amd64")}},
                   lambda: {"nodeSelector": unknown({"kubernetes.io/arch": "amd64"})}):
        result = run(api_with(fields), policy_config=REMEDIATE)
        assert result.remediations == []


def test_unknown_values_stay_unknown_and_secrets_stay_secret():
    result = run(api_with(lambda: {"containers": [{
        "name": "api", "image": unknown("registry.example/api:1"),
        "env": [{"name": "TOKEN", "value": pulumi.Output.secret("s3cr3t")}]}]}), policy_config=REMEDIATE)
    (props,) = result.remediated.values()
    container = pod_spec(props, "spec.template.spec")["containers"][0]
    assert container["image"] == "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # still the engine's unknown marker
    assert container["env"][0]["value"] == {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
                                            "value": "s3cr3t"}  # still a secret
    assert pod_spec(props, "spec.template.spec")["nodeSelector"] == AMD64


def test_the_setting_covers_workloads_without_a_known_cluster():
    config = {POLICY: {"enforcementLevel": "remediate", "architecture": "arm64"}}
    result = run(deployment("api"), policy_config=config)
    (props,) = result.remediated.values()
    assert pod_spec(props, "spec.template.spec")["nodeSelector"] == ARM64
    # the pools' own architecture comes first
    result = run(api(), policy_config=config)
    (props,) = result.remediated.values()
    assert pod_spec(props, "spec.template.spec")["nodeSelector"] == AMD64


def test_a_workload_registered_before_its_cluster_is_left_to_policy_7():
    result = run(deployment("api"), policy_config=REMEDIATE)
    assert result.remediations == [] and result.violations == []  # no ComputeCluster: nothing needed
    result = run(cluster(after=deployment("api", labels=placed())), policy_config=REMEDIATE)
    assert result.remediations == []
    assert [v.policy for v in result.mandatory] == ["workload-node-architecture"]


def test_a_patch_is_pinned_only_where_it_sets_a_pod_template():
    def patches():
        opts = pulumi.ResourceOptions(depends_on=[cluster()()])
        k8s.apps.v1.DeploymentPatch("with-template", metadata={"name": "a", "labels": placed()}, spec={
            "template": {"spec": {"containers": [{"name": "a", "image": "i"}]}}}, opts=opts)
        k8s.apps.v1.DeploymentPatch("replicas-only", metadata={"name": "b", "labels": placed()},
                                    spec={"replicas": 3}, opts=opts)

    result = run(patches, policy_config=REMEDIATE)
    assert [urn.rsplit("::", 1)[-1] for urn in result.remediated] == ["with-template"]
    (props,) = result.remediated.values()
    assert pod_spec(props, "spec.template.spec")["nodeSelector"] == AMD64
    assert result.violations == []


@pytest.mark.parametrize("spec, pinned", [
    (None, False), (3, False), ("text", False), ([], False),  # no pod spec to change
    ({"nodeSelector": 5}, False), ({"nodeSelector": ["a"]}, False),  # a selector that cannot be read
    ({"affinity": "x"}, True), ({"affinity": {"nodeAffinity": []}}, True),  # no architecture constraint
    ({}, True), ({"nodeSelector": None}, True),
])
def test_remediation_never_raises_on_hostile_shapes(spec, pinned):
    resource = Resource.of("kubernetes:apps/v1:Deployment", "api", {
        "metadata": {"labels": placed()}, "spec": {"template": {"spec": spec}}})
    analyzer = Analyzer({POLICY: {"enforcementLevel": "remediate", "architecture": "x86_64"}})
    result = PolicyResult()
    remediated = analyzer.remediate(resource, result)
    if pinned:
        changed = json_format.MessageToDict(remediated.inputs)["spec"]["template"]["spec"]
        assert changed == {**{k: v for k, v in spec.items() if v is not None}, "nodeSelector": AMD64}
    else:
        assert remediated is resource and result.remediations == []
    assert result.notes == []


def test_a_secret_selector_is_pinned_inside_the_secret():
    secret = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": {"disktype": "ssd"}}
    resource = Resource.of("kubernetes:apps/v1:Deployment", "api", {
        "metadata": {"labels": placed()}, "spec": {"template": {"spec": {"nodeSelector": secret}}}})
    analyzer = Analyzer({POLICY: {"enforcementLevel": "remediate", "architecture": "x86_64"}})
    remediated = analyzer.remediate(resource, PolicyResult())
    assert json_format.MessageToDict(remediated.inputs)["spec"]["template"]["spec"]["nodeSelector"] == {
        **secret, "value": {"disktype": "ssd", "kubernetes.io/arch": "amd64"}}


@pytest.mark.parametrize("props", [
    {"spec": {"template": {"spec": MappingProxyType({})}}},                                   # a read-only pod spec
    {"spec": {"template": {"spec": {"nodeSelector": MappingProxyType({"disktype": "ssd"})}}}},  # a read-only selector
    {"spec": {"template": None}},
    {"spec": {"template": {"spec": {"nodeSelector": "ssd"}}}},
])
def test_pin_changes_nothing_it_cannot_write_and_says_so(props):
    from compute_guard.policies.model.workloads import pin_architecture as pin

    before = repr(props)
    assert pin(props, "Deployment", "amd64") is False
    assert repr(props) == before
