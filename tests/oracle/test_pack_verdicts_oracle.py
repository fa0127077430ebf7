"""The pack's verdicts on generated stacks held to kube-scheduler's own code (issue 46, SPEC 17).

Generated EKS stacks: a declared cluster, subnets in three zones, one to three managed node groups of catalog
machines of both architectures (labels, taints, maxSize, their subnets' zones), DaemonSets (requests, tolerations,
an architecture pin) and a Deployment (requests, replicas, nodeSelector, tolerations, a zone spread with or without
minDomains). Each pool's nodes are written from the pack's own node model (its labels and taints, each machine's
labels, the node's allocatable and Pod slots as the pack computes them), maxSize of them per pool balanced over its
zones; the DaemonSets' Pods are bound to every node whose filters admit them, and the Go oracle places the
Deployment's replicas one by one with kube-scheduler's Filter plugins. Then, for workload-schedulable,
workload-fits-pool, pool-capacity and workload-zone-spread together:

* no violation where the real scheduler places every replica on the pools' maxSize nodes;
* no silent pass where it cannot place one Pod on any node: some policy refuses it.

(The pack's rules are necessary conditions: between the two, where some replicas find a node and others do not,
either verdict may stand.) ORACLE_SEED and ORACLE_EXAMPLES as in test_kubernetes_oracle.py.
"""

from __future__ import annotations

import dataclasses
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
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000")) // 3  # a stack is heavier than one Pod on one node

MACHINES = {"t3.medium": "AL2023_x86_64_STANDARD", "m5.large": "AL2023_x86_64_STANDARD",
            "c5.xlarge": "AL2023_x86_64_STANDARD", "m6g.large": "AL2023_ARM_64_STANDARD",
            "t4g.small": "AL2023_ARM_64_STANDARD"}
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
POLICIES = ("workload-schedulable", "workload-fits-pool", "pool-capacity", "workload-zone-spread")


ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
ZONE = "topology.kubernetes.io/zone"


def _daemonset(rng: random.Random, index: int) -> tuple[Resource, dict[str, Any]]:
    spec: dict[str, Any] = {"containers": [{"name": "agent", "image": "agent", "resources": {"requests": {
        "cpu": rng.choice(("10m", "50m", "100m")), "memory": rng.choice(("16Mi", "64Mi", "128Mi"))}}}]}
    if rng.random() < 0.5:
        spec["tolerations"] = [{"operator": "Exists"}]
    if rng.random() < 0.3:
        spec["nodeSelector"] = {"kubernetes.io/arch": rng.choice(("amd64", "arm64"))}
    name = f"agent{index}"
    return Resource.of("kubernetes:apps/v1:DaemonSet", name, {"metadata": {"name": name}, "spec": {
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}), spec


def _stack(rng: random.Random) -> tuple[list[Resource], dict[str, Any], int, list[dict[str, Any]]]:
    resources = [Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"})]
    subnet = {zone: Resource.of("aws:ec2/subnet:Subnet", f"subnet-{zone[-1]}", {
        "vpcId": "vpc-1", "cidrBlock": f"10.0.{index}.0/24", "availabilityZone": zone})
        for index, zone in enumerate(ZONES)}
    resources += subnet.values()
    for index in range(rng.randint(1, 3)):
        machine = rng.choice(sorted(MACHINES))
        subnets = [subnet[zone] for zone in rng.sample(ZONES, rng.randint(1, 3))]
        props: dict[str, Any] = {
            "clusterName": "fleet", "nodeGroupName": f"g{index}", "instanceTypes": [machine],
            "amiType": MACHINES[machine], "subnetIds": [found.name for found in subnets],
            "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": rng.randint(1, 3)}}
        if rng.random() < 0.5:
            props["labels"] = {"team": rng.choice(("a", "b"))}
        if rng.random() < 0.4:
            props["taints"] = [{"key": "dedicated", "value": rng.choice(("x", "y")),
                                "effect": rng.choice(sorted(EFFECTS))}]
        group = Resource.of("aws:eks/nodeGroup:NodeGroup", f"g{index}", props)
        resources.append(dataclasses.replace(group, property_dependencies={
            "subnetIds": tuple(found.urn for found in subnets)}))
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
    if rng.random() < 0.35:
        spread: dict[str, Any] = {"maxSkew": rng.randint(1, 2), "topologyKey": ZONE,
                                  "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "api"}}}
        if rng.random() < 0.7:
            spread["minDomains"] = rng.randint(1, 4)
        spec["topologySpreadConstraints"] = [spread]
    if rng.random() < 0.25:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "api"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    replicas = rng.randint(1, 8)
    strategy = {"strategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}} if rng.random() < 0.4 else {}
    daemonsets = [_daemonset(rng, index) for index in range(rng.choice((0, 0, 1, 2)))]
    resources += [resource for resource, _spec in daemonsets]
    resources.append(Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {
        "replicas": replicas, **strategy, "selector": {"matchLabels": {"app": "api"}},
        "template": {"metadata": {"labels": {"app": "api"}}, "spec": spec}}}))
    return resources, spec, replicas, [spec for _resource, spec in daemonsets], bool(strategy)


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
        assert isinstance(pool.max_size, int) and isinstance(pool.zones, tuple) and pool.zones
        for index in range(pool.max_size):  # an autoscaling group balances its nodes over its zones
            zone = {ZONE: pool.zones[index % len(pool.zones)]}
            found.append(node(f"{pool.name}-{index}", {**labels, **option.labels, **zone}, taints, allocatable))
    return found


def _daemon_pods(cases: list[tuple[Any, ...]]) -> list[list[dict[str, Any]]]:
    """Each stack's DaemonSet Pods, one on every node whose filters admit it (the DaemonSet controller's own
    predicates), asked of the oracle."""
    asked = [(index, number, spec) for index, case in enumerate(cases) for number, spec in enumerate(case[4])]
    answer = ask({"filter": [{"nodes": cases[index][3], "pods": [], "pod": pod(f"agent{number}", spec),
                              "replicas": 0} for index, number, spec in asked]}) if asked else {"filter": []}
    found: list[list[dict[str, Any]]] = [[] for _ in cases]
    for (index, number, spec), verdicts in zip(asked, answer["filter"], strict=True):
        for name, verdict in sorted(verdicts["nodes"].items()):
            if verdict == "":
                bound = pod(f"agent{number}-{name}", {**spec, "nodeName": name}, {"app": f"agent{number}"})
                found[index].append(bound)
    return found


def test_fit_capacity_and_placement_verdicts_agree_with_kube_scheduler():
    rng = random.Random(SEED)
    cases = []
    for _ in range(max(1, EXAMPLES)):
        resources, spec, replicas, daemons, surges = _stack(rng)
        with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
            analyzer = Analyzer()
            result = analyzer.run(resources)
        stack = analyzer.state.last_stack()
        refused = [(policy, message) for policy in POLICIES for message in result.of(policy)]
        rollout = result.of("workload-rollout-fits")
        cases.append((resources, spec, replicas, _nodes(stack), daemons, refused, surges, rollout))
    daemon_pods = _daemon_pods(cases)
    # a rolling update with maxUnavailable 0 keeps every old Pod until a new one is available: replicas + 1 at once
    answer = ask({"filter": [{"nodes": case[3], "pods": bound, "pod": pod("api", case[1]),
                              "replicas": case[2] + (1 if case[6] else 0)}
                             for case, bound in zip(cases, daemon_pods, strict=True)]})
    rolled = [(case, found) for case, found in zip(cases, answer["filter"], strict=True) if case[6]]
    false_rollouts = [([(r.type, json_format.MessageToDict(r.inputs)) for r in case[0][4:]], found["nodes"], case[7])
                      for case, found in rolled if found["placed"] == case[2] + 1 and case[7]]
    assert not false_rollouts, f"{len(false_rollouts)} false rollout violations; the first: {false_rollouts[0]}"
    assert any(case[7] for case, _found in rolled), "the generator must reach a rollout that cannot finish"
    false, silent = [], []
    for (resources, _spec, replicas, _written, _daemons, refused, _surges, _rollout), found in zip(
            cases, answer["filter"], strict=True):
        shown = ([(r.type, json_format.MessageToDict(r.inputs)) for r in resources[1:]], found["nodes"], refused)
        if found["placed"] >= replicas and refused:
            false.append(shown)
        if found["placed"] == 0 and not refused:
            silent.append(shown)
    smallest = min(false + silent, key=lambda case: len(repr(case)), default=None)
    assert not false and not silent, (f"{len(false)} false violations, {len(silent)} silent passes; the smallest: "
                                      f"{smallest}")
    placed_all = sum(found["placed"] >= case[2] for case, found in zip(cases, answer["filter"], strict=True))
    none = sum(found["placed"] == 0 for found in answer["filter"])
    assert placed_all and none, "the generator must reach both sides of the verdict"
