"""Policies 17 and 18 held to Kubernetes' own code on generated stacks (issue 46, SPEC 17): which budgets select a
workload's Pods is what the eviction subresource finds (pkg/registry/core/pod/storage/eviction.go: the budgets of
the Pod's namespace whose selector matches its labels, a policy/v1beta1 budget read through the API's own
conversion), and what a budget allows is pkg/controller/disruption's arithmetic over the Pods it selects.

Each stack: a ComputeCluster whose pool this preview replaces (t4g.small -> t4g.medium against the baseline), one to
three Deployments on it in two namespaces with template labels drawn from a few keys, and zero to three budgets
(policy/v1 or policy/v1beta1, in either namespace, selecting by matchLabels, matchExpressions with every operator,
both, or an empty selector; minAvailable or maxUnavailable, an int or a percentage). Then, with every Pod healthy:

* workload-disruption-allowed refuses a workload exactly when the eviction API finds two or more budgets for its
  Pods (every eviction is refused), or one that allows no disruption (the replacement cannot drain it);
* disruption-budget-useful reports a budget exactly when the disruption controller lets it evict none: it
  selects no Pod of the stack, or its Pods' count leaves no disruption.

ORACLE_SEED and ORACLE_EXAMPLES as in test_kubernetes_oracle.py.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from kube_oracle import ask, pod

from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment

SEED = int(os.environ.get("ORACLE_SEED", "46"))
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000")) // 6
LABELS = {"app": ("a", "b"), "tier": ("web", "db")}
NAMESPACES = ("default", "shop")
PLACED = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "general"}
CLUSTER = "compute:index:ComputeCluster"


def _cluster(machine: str) -> dict[str, Any]:
    return {"id": "compute", "capacityGroups": [{"groupId": "general", "minSize": 1, "maxSize": 10,
                                                 "instanceType": machine}]}


def _labels(rng: random.Random) -> dict[str, str]:
    return {key: rng.choice(values) for key, values in LABELS.items() if rng.random() < 0.7}


def _metadata(name: str, namespace: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, **({"namespace": namespace} if namespace else {}), **extra}


def _selector(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(("labels", "labels", "expressions", "both", "empty"))
    selector: dict[str, Any] = {}
    if kind in ("labels", "both"):
        selector["matchLabels"] = _labels(rng) or {"app": "a"}
    if kind in ("expressions", "both"):
        expressions = []
        for key in rng.sample(sorted(LABELS), rng.randint(1, 2)):
            operator = rng.choice(("In", "NotIn", "Exists", "DoesNotExist"))
            expression: dict[str, Any] = {"key": key, "operator": operator}
            if operator in ("In", "NotIn"):
                expression["values"] = rng.sample(LABELS[key], rng.randint(1, 2))
            expressions.append(expression)
        selector["matchExpressions"] = expressions
    return selector


def _amount(rng: random.Random) -> int | str:
    return rng.choice((0, 1, 2, 3, 5)) if rng.random() < 0.6 else rng.choice(("0%", "10%", "34%", "50%", "90%",
                                                                            "100%"))


def _stack(rng: random.Random) -> tuple[list[Resource], list[dict[str, Any]], list[dict[str, Any]]]:
    workloads, budgets = [], []
    # a stack that names no namespace puts every object in its provider's one default namespace
    namespaces = NAMESPACES if rng.random() < 0.85 else ("",)
    for index in range(rng.randint(1, 3)):
        name = f"w{index}"
        labels = {"id": name, **_labels(rng)}
        workloads.append({"name": name, "namespace": rng.choice(namespaces), "labels": labels,
                          "replicas": rng.randint(1, 5)})
    for index in range(rng.choice((0, 1, 1, 2, 2, 3))):
        field = rng.choice(("minAvailable", "maxUnavailable"))
        budgets.append({"apiVersion": rng.choice(("policy/v1", "policy/v1", "policy/v1", "policy/v1beta1")),
                        "kind": "PodDisruptionBudget", "metadata": _metadata(f"b{index}", rng.choice(namespaces)),
                        "spec": {"selector": _selector(rng), field: _amount(rng)}})
    resources = [Resource.of(CLUSTER, "compute", _cluster("t4g.medium"))]
    for found in workloads:
        resources.append(Resource.of("kubernetes:apps/v1:Deployment", found["name"], {
            "metadata": _metadata(found["name"], found["namespace"], labels=PLACED), "spec": {
                "replicas": found["replicas"], "selector": {"matchLabels": {"id": found["name"]}},
                "template": {"metadata": {"labels": found["labels"]}, "spec": {
                    "containers": [{"name": "a", "image": "example.test/a:1"}],
                    "nodeSelector": {"kubernetes.io/arch": "arm64"}}}}}))
    for budget in budgets:
        version = budget["apiVersion"].split("/")[1]
        resources.append(Resource.of(f"kubernetes:policy/{version}:PodDisruptionBudget", budget["metadata"]["name"],
                                     budget))
    return resources, workloads, budgets


def _pod(workload: dict[str, Any]) -> dict[str, Any]:
    found = pod(workload["name"], {}, workload["labels"])
    if workload["namespace"]:
        found["metadata"]["namespace"] = workload["namespace"]
    return found


def test_budget_verdicts_are_the_eviction_apis_and_the_disruption_controllers(tmp_path: Path):
    baseline = tmp_path / "export.json"
    baseline.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": "urn:pulumi:stack::project::compute:index:ComputeCluster::compute", "custom": False, "type": CLUSTER,
         "inputs": _cluster("t4g.small")}]}}))
    config = {"workload-disruption-allowed": {"baseline": str(baseline)}}
    rng = random.Random(SEED)
    cases = []
    for _ in range(max(1, EXAMPLES)):
        resources, workloads, budgets = _stack(rng)
        with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
            result = Analyzer(config).run(resources)
        refused = {v.urn for v in result.of("workload-disruption-allowed")}
        useless = {v.urn for v in result.of("disruption-budget-useful")}
        cases.append((resources, workloads, budgets, refused, useless))
    selected = ask({"eviction": [{"budgets": budgets, "pods": [_pod(found) for found in workloads]}
                                 for _resources, workloads, budgets, *_rest in cases]})["eviction"]
    asked = []
    for (_resources, workloads, budgets, *_rest), found in zip(cases, selected, strict=True):
        for index, budget in enumerate(budgets):
            count = sum(workload["replicas"] for workload, of in zip(workloads, found, strict=True) if index in of)
            field = "minAvailable" if "minAvailable" in budget["spec"] else "maxUnavailable"
            asked.append({field: budget["spec"][field], "expected": count, "healthy": count})
    allowed = iter(found["allowed"] for found in ask({"disruption": asked})["disruption"])
    wrong = []
    reached = {"two budgets": 0, "blocks": 0, "drains": 0, "useless": 0, "useful": 0}
    for (resources, workloads, budgets, refused, useless), found in zip(cases, selected, strict=True):
        evicts = [next(allowed) for _budget in budgets]
        urns = {resource.name: resource.urn for resource in resources}
        for workload, of in zip(workloads, found, strict=True):
            blocked = len(of) > 1 or any(evicts[index] == 0 for index in of)
            reached["two budgets" if len(of) > 1 else "blocks" if blocked else "drains"] += 1
            if blocked != (urns[workload["name"]] in refused):
                wrong.append(("workload-disruption-allowed", workload, [budgets[i] for i in of], evicts, budgets))
        for index, budget in enumerate(budgets):
            reached["useless" if evicts[index] == 0 else "useful"] += 1
            if (evicts[index] == 0) != (urns[budget["metadata"]["name"]] in useless):
                wrong.append(("disruption-budget-useful", budget, evicts[index], workloads, found))
    smallest = min(wrong, key=lambda case: len(repr(case)), default=None)
    assert not wrong, f"{len(wrong)} disagreements; the smallest: {smallest}"
    assert all(reached.values()), reached
