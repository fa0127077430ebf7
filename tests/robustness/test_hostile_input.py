"""Hostile input: no policy raises, whatever the props hold, and unknowns hide nothing else.

The sweeps of any value anywhere (test_any_value_anywhere_*) have no right verdict to compare with: the
value may be any type, so answering without raising (and without the pack's "could not evaluate") is
the whole property. The tests after them check verdicts: exact findings that an unknown must not hide,
secrets read like plain values, a clean starting stack.

Every test goes through the SDK's servicer, so the props are the engine's proxies: unknown
preview values raise on access and secrets arrive wrapped. A policy that raised would make the
servicer raise here; a bug caught by the pack's own guard would show up as its "could not
evaluate" violation, which every test here rejects too.
"""

import copy
from typing import Any

import pytest
from builders import CLUSTER_TYPE, valid_cluster_props
from pulumi_policy.proxy import UNKNOWN_ARRAY_VALUE, UNKNOWN_OBJECT_VALUE, UNKNOWN_STRING_VALUE

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

SECRET_SIG = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
HOSTILE = [None, True, 1.5, -1, 1e308, -1e308, "", "x" * 300, [], {}, [1, "a", None], {"a": {"b": []}},
           UNKNOWN_STRING_VALUE, UNKNOWN_OBJECT_VALUE]
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def deployment_props() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "api", "namespace": "default", "labels": {"compute.alien.dev/cluster": "compute",
                                               "compute.alien.dev/pool": "apps"},
                     "annotations": {"compute.alien.dev/workload": "container"}},
        # one Pod may go before its replacement starts: the HPA's 3 Pods that repel fill the pool's 3 nodes
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "api"}},
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}},
                 "template": {
            "metadata": {"labels": {"app": "api"}},
            "spec": {"containers": [{"name": "api", "image": "example.test/api:1", "resources": {
                         "requests": {"cpu": "250m", "memory": "256Mi", "ephemeral-storage": "1Gi"},
                         "limits": {"memory": "512Mi", "nvidia.com/gpu": 0}}}],
                     "initContainers": [{"name": "proxy", "image": "x", "restartPolicy": "Always",
                                         "resources": {"requests": {"cpu": "50m"}}},
                                        {"name": "migrate", "image": "x", "resources": {"limits": {"cpu": "1"}}}],
                     "overhead": {"cpu": "10m", "memory": "16Mi"},
                     "resources": {"requests": {"memory": "300Mi"}},
                     "nodeSelector": {"kubernetes.io/arch": "amd64"},
                     "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                         "nodeSelectorTerms": [{"matchExpressions": [
                             {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]}]}]}},
                                  "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                                      {"topologyKey": "kubernetes.io/hostname", "namespaces": ["default"],
                                       "labelSelector": {"matchLabels": {"app": "api"}, "matchExpressions": [
                                           {"key": "app", "operator": "In", "values": ["api"]}]}}]}},
                     "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                                    "whenUnsatisfiable": "DoNotSchedule",
                                                    "labelSelector": {"matchLabels": {"app": "api"}}}]}}},
    }


def autoscaler_props() -> dict[str, Any]:
    return {"metadata": {"name": "api", "namespace": "default"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"},
                     "minReplicas": 3, "maxReplicas": 5}}


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every position in a JSON document."""
    found = [prefix] if prefix else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += paths(value, prefix + (key,))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += paths(value, prefix + (index,))
    return found


def replaced(doc: Any, path: tuple, value: Any) -> Any:
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


def evaluate(cluster_props: Any, workload_props: Any, platform: str = "kubernetes", hpa: Any = None):
    resources = [Resource.of(CLUSTER_TYPE, "compute", cluster_props),
                 Resource.of(DEPLOYMENT, "api", workload_props),
                 Resource.of("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "api",
                             autoscaler_props() if hpa is None else hpa)]
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        result = Analyzer().run(resources)
    for item in result.violations + result.notes:
        assert "could not evaluate" not in item.message, item.message
    return result


CLUSTER_PATHS = paths(valid_cluster_props(failureDomainSpread={"apps": 1}, selectedFailureDomains={"apps": ["a"]},
                                          containerCidr="10.244.0.0/16"))
WORKLOAD_PATHS = paths(deployment_props())


@pytest.mark.parametrize("path", CLUSTER_PATHS, ids=[".".join(map(str, p)) for p in CLUSTER_PATHS])
def test_any_value_anywhere_in_a_cluster(path):
    base = valid_cluster_props(failureDomainSpread={"apps": 1}, selectedFailureDomains={"apps": ["a"]},
                               containerCidr="10.244.0.0/16")
    for value in HOSTILE:
        evaluate(replaced(base, path, value), deployment_props())


@pytest.mark.parametrize("path", WORKLOAD_PATHS, ids=[".".join(map(str, p)) for p in WORKLOAD_PATHS])
def test_any_value_anywhere_in_a_workload(path):
    for value in HOSTILE:
        evaluate(valid_cluster_props(), replaced(deployment_props(), path, value))


AUTOSCALER_PATHS = paths(autoscaler_props())


@pytest.mark.parametrize("path", AUTOSCALER_PATHS, ids=[".".join(map(str, p)) for p in AUTOSCALER_PATHS])
def test_any_value_anywhere_in_an_autoscaler(path):
    for value in HOSTILE:
        evaluate(valid_cluster_props(), deployment_props(), hpa=replaced(autoscaler_props(), path, value))


def test_the_swept_stack_is_clean_and_fits():
    """The documents every sweep starts from give no finding, so each sweep starts from a clean verdict: the seed
    pool (2 cores, 4 GiB) holds 3 replicas (the HPA's minReplicas, which repel each other) of a Pod of
    max(250m + 50m sidecar, 1 core init + 50m) + 10m = 1060m and 300Mi + 16Mi."""
    result = evaluate(valid_cluster_props(), deployment_props())
    assert result.violations == [] and result.notes == []
    props = deployment_props()
    props["spec"]["replicas"] = 4  # 4 Pods that repel each other on 3 nodes (and one Pod per node besides)
    findings = evaluate(valid_cluster_props(), props).findings("pool-capacity")
    assert [f.split(": ", 1)[1][:52] for f in findings] == ["Deployment 'api' runs 4 Pods that may not share a no",
                                                            "Deployment 'api' runs 4 Pods and a node (its profile"]
    hpa = autoscaler_props()
    hpa["spec"]["minReplicas"] = 4  # the HPA asks for more than spec.replicas
    findings = evaluate(valid_cluster_props(), deployment_props(), hpa=hpa).findings("pool-capacity")
    assert "Deployment 'api' runs 4 (HorizontalPodAutoscaler 'api' minReplicas) Pods that may not share" in findings[0]


@pytest.mark.parametrize("props", [{}, {"spec": "nope"}, {"spec": {"template": []}}, {"metadata": 7},
                                   {"metadata": {"labels": "x", "annotations": [1]}}])
def test_empty_and_non_mapping_documents(props):
    evaluate({}, props)
    evaluate({"id": None, "capacityGroups": None}, props)


def broken_pool() -> dict[str, Any]:
    return {"groupId": "broken", "minSize": 3, "maxSize": 2}


def with_broken_pool() -> dict[str, Any]:
    props = valid_cluster_props()
    props["capacityGroups"].append(broken_pool())
    return props


KNOWN = "ComputeCluster 'compute' pool 'broken': minSize 3 is greater than maxSize 2"
UNKNOWN_SPOTS = [p for p in paths(with_broken_pool()) if p[:2] != ("capacityGroups", 1) and p != ("capacityGroups",)]


@pytest.mark.parametrize("path", UNKNOWN_SPOTS, ids=[".".join(map(str, p)) for p in UNKNOWN_SPOTS])
def test_an_unknown_value_hides_no_other_violation(path):
    result = evaluate(replaced(with_broken_pool(), path, UNKNOWN_STRING_VALUE), deployment_props())
    assert any(f.startswith(KNOWN) for f in result.findings("compute-cluster-valid"))
    notes = [n for n in result.notes if n.policy == "compute-cluster-valid"]
    assert len(notes) == 1  # exactly one "can't run policy ... during preview" note per resource and rule
    assert "during preview" in notes[0].message


def test_unknown_workload_fields_hide_no_selector_violation():
    props = deployment_props()
    props["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/arch"] = "x86_64"
    props["spec"]["template"]["spec"]["affinity"] = UNKNOWN_OBJECT_VALUE
    props["metadata"]["labels"] = UNKNOWN_OBJECT_VALUE
    result = evaluate(valid_cluster_props(), props)
    assert any("'x86_64' is not a Kubernetes architecture" in f
               for f in result.findings("workload-architecture-selector-valid"))
    assert [n.policy for n in result.notes if n.policy == "workload-architecture-selector-valid"] == [
        "workload-architecture-selector-valid"]


def test_an_unknown_cluster_list_makes_stack_policies_wait_not_fail():
    result = evaluate({"id": "compute", "capacityGroups": UNKNOWN_ARRAY_VALUE}, deployment_props())
    assert result.violations == []
    assert {n.policy for n in result.notes} >= {"compute-cluster-valid", "workload-node-architecture"}


def test_a_known_exclusion_is_reported_even_when_the_rest_is_unknown():
    props = deployment_props()
    props["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/arch"] = "arm64"
    props["spec"]["template"]["spec"]["affinity"]["nodeAffinity"] = UNKNOWN_OBJECT_VALUE
    result = evaluate(valid_cluster_props(), props)
    (finding,) = result.findings("workload-node-architecture")
    assert "its Pods need amd64 nodes" in finding and "exclude amd64 (they allow arm64)" in finding


def test_secrets_are_read_like_plain_values():
    props = valid_cluster_props()
    props["capacityGroups"][0]["minSize"] = dict(SECRET_SIG, value=5)
    props["id"] = dict(SECRET_SIG, value="compute")
    workload = deployment_props()
    workload["spec"]["template"]["spec"]["nodeSelector"] = dict(SECRET_SIG, value={"kubernetes.io/arch": "arm64"})
    result = evaluate(props, workload)
    assert any("minSize [secret] is greater than maxSize 3" in f for f in result.findings("compute-cluster-valid"))
    (finding,) = result.findings("workload-node-architecture")
    assert "exclude amd64 (they allow arm64)" in finding  # the secret selector was read


def test_huge_and_deep_documents():
    props = valid_cluster_props()
    props["capacityGroups"] = [dict(copy.deepcopy(props["capacityGroups"][0]), groupId=f"p{i}") for i in range(500)]
    deep: Any = "leaf"
    for _ in range(60):
        deep = {"d": [deep]}
    props["capacityGroups"][0]["profile"]["dataDisk"] = deep
    result = evaluate(props, deployment_props())
    (finding,) = result.findings("compute-cluster-valid")
    assert "dynamicContainerPool names pool 'apps', which does not exist" in finding


def test_a_cluster_is_parsed_once_per_analyze_request(monkeypatch):
    from compute_guard.policies.adapters import state

    calls = []
    real = state.parse_cluster
    monkeypatch.setattr(state, "parse_cluster", lambda props, name: calls.append(name) or real(props, name))
    props = with_broken_pool()
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        analyzer = Analyzer()
        first = analyzer.analyze(Resource.of(CLUSTER_TYPE, "compute", props))
        second = analyzer.analyze(Resource.of(CLUSTER_TYPE, "compute", props))
    assert calls == ["compute", "compute"]  # four policies read each request; each request is parsed once
    assert first.findings("compute-cluster-valid") == second.findings("compute-cluster-valid") != []


def test_a_pod_template_not_known_yet_makes_the_workload_policies_wait():
    props = deployment_props()
    props["spec"]["template"] = UNKNOWN_OBJECT_VALUE
    result = evaluate(valid_cluster_props(), props)
    waiting = sorted(n.policy for n in result.notes)
    assert result.violations == []
    assert "workload-node-architecture" in waiting and "workload-architecture-selector-valid" in waiting
