"""The pack's model and the tests' own model held to Kubernetes' own code (issue 46, SPEC 17): the Go oracle
(tests/oracle/main.go) runs kube-scheduler's Filter plugins (NodeAffinity, TaintToleration, NodeUnschedulable,
NodeResourcesFit, PodTopologySpread, InterPodAffinity) and the controllers' arithmetic from k8s.io/kubernetes.

Cases are generated from a fixed seed (ORACLE_SEED), ORACLE_EXAMPLES of each (a few thousand in CI; more on
demand), sent in one request per test; every disagreement is printed as the smallest object that shows it.
"""

from __future__ import annotations

import os
import random
from decimal import Decimal
from typing import Any

from kube_oracle import ask, node, pod
from scheduler_model import disruptions_allowed, fits_node

from compute_guard.policies.model.budgets import parse_budget
from compute_guard.policies.model.pods import extended_resources, pod_request
from compute_guard.policies.model.rollout import rollout
from compute_guard.policies.model.scheduling import Taint, pod_placement, untolerated

SEED = int(os.environ.get("ORACLE_SEED", "46"))
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000"))

KEYS = ("team", "tier", "n", "kubernetes.io/arch", "node.kubernetes.io/instance-type")
VALUES = ("a", "b", "1", "2", "3", "amd64", "arm64", "m5.large")
TAINT_KEYS = ("dedicated", "spot", "kubernetes.io/arch")
EFFECTS = ("NoSchedule", "NoExecute", "PreferNoSchedule")


def _labels(rng: random.Random) -> dict[str, str]:
    return {key: rng.choice(VALUES) for key in rng.sample(KEYS, rng.randint(0, 4))}


def _taints(rng: random.Random) -> list[tuple[str, str, str]]:
    found: dict[tuple[str, str], tuple[str, str, str]] = {}
    for _ in range(rng.randint(0, 2)):
        key, effect = rng.choice(TAINT_KEYS), rng.choice(EFFECTS)
        found[(key, effect)] = (key, rng.choice(("", "x", "arm64")), effect)
    return list(found.values())


def _expression(rng: random.Random) -> dict[str, Any]:
    operator = rng.choice(("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"))
    if operator in ("Gt", "Lt"):
        return {"key": "n", "operator": operator, "values": [rng.choice(("0", "1", "2", "3"))]}
    key = rng.choice(KEYS)
    if operator in ("Exists", "DoesNotExist"):
        return {"key": key, "operator": operator}
    return {"key": key, "operator": operator, "values": rng.sample(VALUES, rng.randint(1, 2))}


def _toleration(rng: random.Random) -> dict[str, Any]:
    effect = rng.choice(("", *EFFECTS))
    if rng.random() < 0.5:
        found: dict[str, Any] = {"operator": "Exists"}
        if rng.random() < 0.8:
            found["key"] = rng.choice(TAINT_KEYS)
    else:
        found = {"key": rng.choice(TAINT_KEYS), "operator": "Equal", "value": rng.choice(("", "x", "arm64"))}
    return {**found, "effect": effect} if effect else found


def _spec(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if rng.random() < 0.5:
        spec["nodeSelector"] = {key: rng.choice(VALUES) for key in rng.sample(KEYS, rng.randint(1, 2))}
    if rng.random() < 0.6:
        terms = [{"matchExpressions": [_expression(rng) for _ in range(rng.randint(1, 3))]}
                 for _ in range(rng.randint(1, 2))]
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": terms}}}
    if rng.random() < 0.6:
        spec["tolerations"] = [_toleration(rng) for _ in range(rng.randint(1, 3))]
    return spec


def test_the_scheduler_model_agrees_with_kube_schedulers_node_affinity_and_taint_toleration():
    """tests/scheduler_model.py's fits_node (the fast oracle of the property tests) against kube-scheduler's own
    NodeAffinity and TaintToleration plugins, on generated nodes (labels, taints of every effect) and Pods
    (nodeSelector, required node affinity with every operator, tolerations)."""
    rng = random.Random(SEED)
    cases = []
    for index in range(max(1, EXAMPLES // 4)):
        nodes = [(f"n{i}", _labels(rng), _taints(rng)) for i in range(4)]
        cases.append((nodes, _spec(rng), index))
    answer = ask({"filter": [{"nodes": [node(name, labels, taints) for name, labels, taints in nodes],
                              "pods": [], "pod": pod(f"p{index}", spec), "replicas": 0}
                             for nodes, spec, index in cases]})
    disagreements = []
    for (nodes, spec, _index), found in zip(cases, answer["filter"], strict=True):
        for name, labels, taints in nodes:
            theirs = found["nodes"][name]
            if fits_node(spec, labels, taints) != (theirs == ""):
                disagreements.append((spec, labels, taints, theirs))
    smallest = min(disagreements, key=lambda case: len(repr(case)), default=None)
    assert not disagreements, f"{len(disagreements)} disagreements; the smallest: {smallest}"


EXTENDED = ("nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron", "example.com/dongle")


def _extended_spec(rng: random.Random) -> dict[str, Any]:
    """A Pod whose containers and init containers request or limit some extended resources (a request beside its
    equal limit, as validation wants), with tolerations of their keys or none."""
    spec: dict[str, Any] = {}
    for kind in ("containers", "initContainers"):
        found = []
        for index in range(rng.randint(0 if kind == "initContainers" else 1, 2)):
            limits = {name: "1" for name in rng.sample(EXTENDED, rng.randint(0, 2))}
            resources: dict[str, Any] = {"limits": limits} if limits else {}
            if limits and rng.random() < 0.5:
                resources["requests"] = dict(limits)
            found.append({"name": f"{kind[0]}{index}", "image": "nginx", "resources": resources})
        if found:
            spec[kind] = found
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": rng.choice(EXTENDED), "operator": "Exists", "effect": rng.choice(EFFECTS)}]
    return spec


def test_the_extended_resource_admission_is_the_api_servers_plugin():
    """scheduling.admitted (EKS, GKE and AKS run the ExtendedResourceToleration admission plugin) against the plugin
    itself (k8s.io/kubernetes/plugin/pkg/admission/extendedresourcetoleration) and TaintToleration: on nodes tainted
    by extended resources' keys with every effect, the Pod passes the pack's taints exactly where the admitted Pod
    passes kube-scheduler's."""
    rng = random.Random(SEED)
    cases = []
    plenty = {"cpu": "64", "memory": "256Gi", "pods": "110", **{name: "16" for name in EXTENDED}}
    for index in range(max(1, EXAMPLES // 4)):
        nodes = [(f"n{i}", [(key, rng.choice(("", "present")), rng.choice(EFFECTS))
                            for key in rng.sample(EXTENDED, rng.randint(0, 2))]) for i in range(3)]
        cases.append((nodes, _extended_spec(rng), index))
    answer = ask({"filter": [{"nodes": [node(name, {}, taints, plenty) for name, taints in nodes], "pods": [],
                              "pod": pod(f"p{index}", spec), "replicas": 0, "admit": True}
                             for nodes, spec, index in cases]})
    disagreements = []
    for (nodes, spec, _index), found in zip(cases, answer["filter"], strict=True):
        requested = extended_resources(spec)
        placement = pod_placement(None, None, spec.get("tolerations", []), None, requested)
        for name, taints in nodes:
            ours = not untolerated(placement, [Taint(key, value, effect) for key, value, effect in taints])
            if ours != (found["nodes"][name] == ""):
                disagreements.append((spec, taints, found["nodes"][name]))
    smallest = min(disagreements, key=lambda case: len(repr(case)), default=None)
    assert not disagreements, f"{len(disagreements)} disagreements; the smallest: {smallest}"
    assert any(found["nodes"][name] == "" and any(effect == "NoSchedule" for _k, _v, effect in taints)
               for (nodes, _spec, _i), found in zip(cases, answer["filter"], strict=True) for name, taints in nodes)


def _label_selector(rng: random.Random) -> dict[str, Any] | None:
    """A LabelSelector as programs write one: null, empty, matchLabels, matchExpressions (no Gt or Lt: the API
    refuses them in a label selector, and the pack must match nothing then), or both."""
    kind = rng.choice(("null", "empty", "labels", "expressions", "both", "expressions"))
    if kind == "null":
        return None
    selector: dict[str, Any] = {}
    if kind in ("labels", "both"):
        selector["matchLabels"] = {key: rng.choice(VALUES) for key in rng.sample(KEYS, rng.randint(1, 2))}
    if kind in ("expressions", "both"):
        selector["matchExpressions"] = [_expression(rng) for _ in range(rng.randint(1, 3))]
    return selector


def test_one_label_selector_matches_as_label_selector_as_selector_does():
    """selectors.label_selector (every LabelSelector the pack reads: budgets, spreads, pod anti-affinity) against
    k8s.io/apimachinery's LabelSelectorAsSelector + Matches, asked through the eviction endpoint with one policy/v1
    budget per selector (a selector it cannot convert matches nothing, as the eviction code skips it)."""
    from compute_guard.policies.model.selectors import label_selector

    rng = random.Random(SEED)
    pods = [pod("p", {}, _labels(rng)) for _ in range(EXAMPLES)]
    cases = [(_label_selector(rng), found["metadata"]["labels"]) for found in pods]
    answer = ask({"eviction": [{"budgets": [{"apiVersion": "policy/v1", "metadata": {"name": "b"},
                                             "spec": {"selector": selector}}], "pods": [found]}
                               for (selector, _labels), found in zip(cases, pods, strict=True)]})
    wrong = [(selector, labels, theirs) for (selector, labels), theirs in zip(cases, answer["eviction"], strict=True)
             if label_selector(selector, {**labels}) != (theirs[0] == [0])]
    assert not wrong, f"{len(wrong)} disagreements; the smallest: {min(wrong, key=lambda case: len(repr(case)))}"
    verdicts = [theirs[0] == [0] for theirs in answer["eviction"]]
    assert any(verdicts) and not all(verdicts)


def _quantity(rng: random.Random, resource: str) -> str:
    if resource == "cpu":
        return rng.choice(("100m", "250m", "500m", "1", "1500m", "2"))
    if resource == "nvidia.com/gpu":
        return str(rng.randint(0, 2))
    return rng.choice(("64Mi", "128Mi", "1Gi", "1.5Gi", "2G", "500M"))


def _resources(rng: random.Random) -> dict[str, Any]:
    chosen = rng.sample(("cpu", "memory", "ephemeral-storage", "nvidia.com/gpu"), rng.randint(0, 3))
    requests = {resource: _quantity(rng, resource) for resource in chosen}
    if "nvidia.com/gpu" in requests or rng.random() < 0.2:
        # an extended resource's request is its limit (the API server requires them equal); a limit alone is the
        # request too
        limits = {resource: value for resource, value in requests.items() if resource == "nvidia.com/gpu"}
        return {"requests": requests, "limits": limits} if limits else {"limits": requests}
    return {"requests": requests}


def _pod_spec(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": f"c{i}", "image": "x", "resources": _resources(rng)}
                                           for i in range(rng.randint(1, 3))]}
    inits = []
    for i in range(rng.randint(0, 3)):
        init: dict[str, Any] = {"name": f"i{i}", "image": "x", "resources": _resources(rng)}
        if rng.random() < 0.4:
            init["restartPolicy"] = "Always"  # a sidecar: it runs beside the app containers
        inits.append(init)
    if inits:
        spec["initContainers"] = inits
    if rng.random() < 0.3:
        spec["overhead"] = {"cpu": "250m", "memory": "120Mi"}
    return spec


def test_a_pods_requests_are_component_helpers_pod_requests():
    """policies/model/pods.py's pod_request (what every fit and capacity rule counts) against
    k8s.io/component-helpers/resource.PodRequests: app containers summed, each init container's peak over the
    sidecars started before it, sidecars for the Pod's whole life, RuntimeClass overhead, limits as requests."""
    rng = random.Random(SEED)
    specs = [_pod_spec(rng) for _ in range(EXAMPLES)]
    answer = ask({"requests": [{"metadata": {"name": "p"}, "spec": spec} for spec in specs]})
    disagreements = []
    for spec, theirs in zip(specs, answer["requests"], strict=True):
        mine = pod_request(spec, "spec")
        for resource in ("cpu", "memory", "ephemeral-storage", "nvidia.com/gpu"):
            expected = Decimal(theirs.get(resource, 0))
            if mine.get(resource) != expected:
                disagreements.append((resource, mine.get(resource), expected, spec))
    smallest = min(disagreements, key=lambda case: len(repr(case)), default=None)
    assert not disagreements, f"{len(disagreements)} disagreements; the smallest: {smallest}"


AMOUNTS: tuple[int | str | None, ...] = (None, 0, 1, 2, 3, 5, "0%", "1%", "10%", "25%", "33%", "50%", "75%",
                                         "90%", "100%")


def test_a_rolling_updates_bounds_are_the_deployment_controllers_fenceposts():
    """policies/model/rollout.py against pkg/controller/deployment/util.ResolveFenceposts: maxSurge rounded up,
    maxUnavailable down, both 0 made maxUnavailable 1; 25% each when unset."""
    cases = [(surge, unavailable, replicas) for surge in AMOUNTS for unavailable in AMOUNTS
             for replicas in (0, 1, 2, 3, 4, 5, 7, 10, 13, 100)]
    answer = ask({"rollout": [{**({"maxSurge": surge} if surge is not None else {"maxSurge": "25%"}),
                               **({"maxUnavailable": unavailable} if unavailable is not None
                                  else {"maxUnavailable": "25%"}), "replicas": replicas}
                              for surge, unavailable, replicas in cases]})
    disagreements = []
    for (surge, unavailable, replicas), theirs in zip(cases, answer["rollout"], strict=True):
        rolling = {key: value for key, value in (("maxSurge", surge), ("maxUnavailable", unavailable))
                   if value is not None}
        mine = rollout("Deployment", {"spec": {"strategy": {"rollingUpdate": rolling}}}, replicas)
        assert mine is not None and not hasattr(mine, "error")
        if (mine.max_surge, mine.max_unavailable) != (theirs["maxSurge"], theirs["maxUnavailable"]):
            disagreements.append((rolling, replicas, (mine.max_surge, mine.max_unavailable), theirs))
    assert not disagreements, f"{len(disagreements)} disagreements; the first: {disagreements[0]}"


def test_a_budgets_allowed_disruptions_are_the_disruption_controllers():
    """policies/model/budgets.py's Budget.allowed and tests/scheduler_model.py's disruptions_allowed against
    pkg/controller/disruption's arithmetic (percentages of the expected Pods rounded up), every Pod healthy."""
    cases = [(field, amount, expected) for field in ("minAvailable", "maxUnavailable") for amount in AMOUNTS
             if amount is not None for expected in (1, 2, 3, 4, 5, 7, 10, 13, 100)]
    answer = ask({"disruption": [{field: amount, "expected": expected, "healthy": expected}
                                 for field, amount, expected in cases]})
    disagreements = []
    for (field, amount, expected), theirs in zip(cases, answer["disruption"], strict=True):
        budget = parse_budget("kubernetes:policy/v1:PodDisruptionBudget", {"spec": {field: amount}}, "urn", "b")
        assert budget is not None
        model = disruptions_allowed(expected, amount if field == "minAvailable" else None,
                                    amount if field == "maxUnavailable" else None)
        if budget.allowed(expected) != theirs["allowed"] or model != theirs["allowed"]:
            disagreements.append((field, amount, expected, budget.allowed(expected), model, theirs))
    assert not disagreements, f"{len(disagreements)} disagreements; the first: {disagreements[0]}"


def test_disruption_budget_useful_refuses_exactly_the_budgets_the_disruption_controller_lets_evict_none():
    """Policy 18 on generated stacks (one to three Deployments a budget selects, its minAvailable or maxUnavailable
    an int or a percentage): a finding exactly when pkg/controller/disruption allows no disruption over their Pods,
    all healthy."""
    from compute_guard.testkit import Resource
    from compute_guard.testkit.analyzer import Analyzer, stack_environment

    rng = random.Random(SEED)
    cases = []
    for _ in range(max(1, EXAMPLES // 10)):
        counts = [rng.randint(0, 6) for _ in range(rng.randint(1, 3))]
        field = rng.choice(("minAvailable", "maxUnavailable"))
        amount = rng.choice([value for value in AMOUNTS if value is not None])
        resources = [Resource.of("kubernetes:apps/v1:Deployment", f"d{index}", {
            "metadata": {"name": f"d{index}"}, "spec": {"replicas": count, "selector": {"matchLabels": {
                "app": f"d{index}"}}, "template": {"metadata": {"labels": {"app": f"d{index}", "team": "shop"}},
                "spec": {"containers": [{"name": "a", "image": "i"}]}}}}) for index, count in enumerate(counts)]
        resources.append(Resource.of("kubernetes:policy/v1:PodDisruptionBudget", "pdb", {
            "metadata": {"name": "pdb"}, "spec": {"selector": {"matchLabels": {"team": "shop"}}, field: amount}}))
        with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
            found = Analyzer({}).run(resources).findings("disruption-budget-useful")
        cases.append((counts, field, amount, found))
    answer = ask({"disruption": [{field: amount, "expected": sum(counts), "healthy": sum(counts)}
                                 for counts, field, amount, _found in cases]})
    wrong = [(counts, field, amount, found, theirs) for (counts, field, amount, found), theirs
             in zip(cases, answer["disruption"], strict=True)
             if sum(counts) > 0 and bool(found) != (theirs["allowed"] == 0)]
    assert not wrong, f"{len(wrong)} disagreements; the first: {wrong[0]}"
    assert any(found for *_rest, found in cases) and not all(found for *_rest, found in cases)
