"""The pack's verdicts on generated stacks held to kube-scheduler's own code (issue 46, SPEC 17).

Generated EKS stacks (a declared cluster, one to three managed node groups of catalog machines of both
architectures, labels, taints, maxSize) and a Deployment (requests, replicas, nodeSelector, tolerations). Each
pool's nodes are written from the pack's own node model (its labels and taints, each machine's labels, the node's
allocatable and Pod slots as the pack computes them), maxSize of them per pool, and the Go oracle places the
Deployment's replicas one by one with kube-scheduler's Filter plugins. Then, for workload-schedulable,
workload-fits-pool and pool-capacity together:

* no violation where the real scheduler places every replica on the pools' maxSize nodes;
* no silent pass where it cannot place one Pod on any node: some policy refuses it.

(The pack's rules are necessary conditions: between the two, where some replicas find a node and others do not,
either verdict may stand.) ORACLE_SEED and ORACLE_EXAMPLES as in test_kubernetes_oracle.py.
"""

from __future__ import annotations

import os
import random
from typing import Any

from google.protobuf import json_format
from kube_oracle import ask, node, pod

from compute_guard.policies.model.loads import pool_nodes
from compute_guard.policies.platforms.quantity import CPU, MEMORY, PODS
from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment

SEED = int(os.environ.get("ORACLE_SEED", "46"))
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000")) // 10  # a stack is heavier than one Pod on one node

MACHINES = {"t3.medium": "AL2023_x86_64_STANDARD", "m5.large": "AL2023_x86_64_STANDARD",
            "c5.xlarge": "AL2023_x86_64_STANDARD", "m6g.large": "AL2023_ARM_64_STANDARD",
            "t4g.small": "AL2023_ARM_64_STANDARD"}
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
POLICIES = ("workload-schedulable", "workload-fits-pool", "pool-capacity")


def _stack(rng: random.Random) -> tuple[list[Resource], dict[str, Any], int]:
    resources = [Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"})]
    for index in range(rng.randint(1, 3)):
        machine = rng.choice(sorted(MACHINES))
        props: dict[str, Any] = {
            "clusterName": "fleet", "nodeGroupName": f"g{index}", "instanceTypes": [machine],
            "amiType": MACHINES[machine], "subnetIds": ["subnet-1"],
            "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": rng.randint(1, 3)}}
        if rng.random() < 0.5:
            props["labels"] = {"team": rng.choice(("a", "b"))}
        if rng.random() < 0.4:
            props["taints"] = [{"key": "dedicated", "value": rng.choice(("x", "y")),
                                "effect": rng.choice(sorted(EFFECTS))}]
        resources.append(Resource.of("aws:eks/nodeGroup:NodeGroup", f"g{index}", props))
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {
        "cpu": rng.choice(("100m", "500m", "1", "1500m", "2", "3")),
        "memory": rng.choice(("256Mi", "1Gi", "1500Mi", "3Gi", "6Gi", "7Gi"))}}}]}
    selector = {}
    if rng.random() < 0.4:
        selector["kubernetes.io/arch"] = rng.choice(("amd64", "arm64"))
    if rng.random() < 0.3:
        selector["team"] = rng.choice(("a", "b"))
    if selector:
        spec["nodeSelector"] = selector
    if rng.random() < 0.5:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": rng.choice(("x", "y")),
                                "effect": rng.choice(("NoSchedule", "NoExecute"))}]
    replicas = rng.randint(1, 8)
    resources.append(Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": "api"}},
        "template": {"metadata": {"labels": {"app": "api"}}, "spec": spec}}}))
    return resources, spec, replicas


def _nodes(stack: Any) -> list[dict[str, Any]]:
    """Every pool's maxSize nodes, written from the pack's own node model."""
    found = []
    for pool in stack.platform_pools:
        labels = {key: next(iter(values)) for key, values in pool.labels.items()
                  if isinstance(values, frozenset) and len(values) == 1}
        taints = [(taint.key, taint.value, taint.effect) for taint in pool.taints]
        built = pool_nodes(stack, pool, "aws", {})
        assert isinstance(built, list) and len(built) == 1, (pool.name, built)
        option, model = built[0]
        allocatable = {"cpu": f"{model.allocatable(CPU)}m", "memory": str(model.allocatable(MEMORY)),
                       "pods": str(model.allocatable(PODS))}
        assert isinstance(pool.max_size, int)
        for index in range(pool.max_size):
            found.append(node(f"{pool.name}-{index}", {**labels, **option.labels}, taints, allocatable))
    return found


def test_fit_capacity_and_placement_verdicts_agree_with_kube_scheduler():
    rng = random.Random(SEED)
    cases = []
    for _ in range(max(1, EXAMPLES)):
        resources, spec, replicas = _stack(rng)
        with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
            analyzer = Analyzer()
            result = analyzer.run(resources)
        stack = analyzer.state.last_stack()
        refused = [(policy, message) for policy in POLICIES for message in result.of(policy)]
        cases.append((resources, spec, replicas, _nodes(stack), refused))
    answer = ask({"filter": [{"nodes": nodes, "pods": [], "pod": pod("api", spec), "replicas": replicas}
                             for _resources, spec, replicas, nodes, _refused in cases]})
    false, silent = [], []
    for (resources, _spec, replicas, _written, refused), found in zip(cases, answer["filter"], strict=True):
        shown = ([(r.type, json_format.MessageToDict(r.inputs)) for r in resources[1:]], found["nodes"], refused)
        if found["placed"] == replicas and refused:
            false.append(shown)
        if found["placed"] == 0 and not refused:
            silent.append(shown)
    smallest = min(false + silent, key=lambda case: len(repr(case)), default=None)
    assert not false and not silent, (f"{len(false)} false violations, {len(silent)} silent passes; the smallest: "
                                      f"{smallest}")
    placed_all = sum(found["placed"] == case[2] for case, found in zip(cases, answer["filter"], strict=True))
    none = sum(found["placed"] == 0 for found in answer["filter"])
    assert placed_all and none, "the generator must reach both sides of the verdict"
