"""pool-replacement-safe held to kube-scheduler's own code (issue 59, SPEC 19): the drain's view of a replaced pool.

Generated stacks: an EKS cluster with one to three managed node groups of both architectures (labels, taints, names
the program set), a Deployment (nodeSelector on the architecture, a label or a group's name; a toleration or not) on
the cluster's provider. The previous deployment is the same stack with group g0 on another machine of the same
architecture (its instanceTypes: an input that replaces it; a name the program set: deleted first). The Go oracle
places the Deployment's Pod with kube-scheduler's Filter plugins on the nodes of the other groups (the drain's view:
g0 is gone), and on g0's own, each written from the pack's node model. Then:

* refused  <=>  no node of another group admits the Pod, and a node of g0 does (where no group admits it at all,
  workload-schedulable's verdict stands: nothing is replaced under it).

ORACLE_SEED and ORACLE_EXAMPLES as in test_kubernetes_oracle.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from kube_oracle import ask, node, pod

from compute_guard.policies.model.loads import pool_nodes
from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment

SEED = int(os.environ.get("ORACLE_SEED", "59"))
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000")) // 10
POLICY = "pool-replacement-safe"
# each machine, its AMI type and the machine g0 moves to (the same architecture)
MACHINES = {"m5.large": ("AL2023_x86_64_STANDARD", "m5.xlarge"), "m6g.large": ("AL2023_ARM_64_STANDARD", "m6g.xlarge")}
ARCH = {"m5.large": "amd64", "m6g.large": "arm64"}


def _stack(rng: random.Random, before: bool, choices: list[dict[str, Any]], spec: dict[str, Any]) -> list[Resource]:
    cluster = Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet", "roleArn": "r",
                                                              "endpoint": "https://fleet.eks.amazonaws.com"})
    resources = [cluster]
    for index, choice in enumerate(choices):
        machine = choice["machine"]
        ami, moved = MACHINES[machine]
        props: dict[str, Any] = {
            "clusterName": "fleet", "nodeGroupName": f"g{index}", "nodeRoleArn": "r", "subnetIds": ["s"],
            "instanceTypes": [moved if index == 0 and not before else machine], "amiType": ami,
            "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": 2}, "__defaults": []}
        if choice["labels"]:
            props["labels"] = choice["labels"]
        if choice["taint"]:
            props["taints"] = [{"key": "dedicated", "value": "x", "effect": "NO_SCHEDULE"}]
        resources.append(Resource.of("aws:eks/nodeGroup:NodeGroup", f"g{index}", props))
    provider = Resource.of("pulumi:providers:kubernetes", "k8s", {"kubeconfig": "x"})
    resources.append(dataclasses.replace(provider, property_dependencies={"kubeconfig": (cluster.urn,)},
                                         dependencies=(cluster.urn,)))
    deployment = Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {
        "replicas": 2, "selector": {"matchLabels": {"app": "api"}},
        "template": {"metadata": {"labels": {"app": "api"}}, "spec": spec}}})
    resources.append(dataclasses.replace(deployment, provider=f"{provider.urn}::id"))
    return resources


def _example(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    choices = [{"machine": rng.choice(sorted(MACHINES)),
                "labels": rng.choice([{}, {"tier": "a"}, {"tier": "b"}]), "taint": rng.random() < 0.3}
               for _ in range(rng.randint(1, 3))]
    selector: dict[str, str] = {}
    if rng.random() < 0.5:
        selector["kubernetes.io/arch"] = rng.choice(("amd64", "arm64"))
    if rng.random() < 0.4:
        selector["tier"] = rng.choice(("a", "b"))
    if rng.random() < 0.3:
        selector["eks.amazonaws.com/nodegroup"] = f"g{rng.randrange(len(choices))}"
    spec: dict[str, Any] = {"containers": [{"name": "api", "image": "nginx", "resources": {"requests": {
        "cpu": "100m", "memory": "64Mi"}}}]}
    if selector:
        spec["nodeSelector"] = selector
    if rng.random() < 0.4:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "x", "effect": "NoSchedule"}]
    return choices, spec


def _nodes(stack: Any) -> dict[str, list[dict[str, Any]]]:
    """One node of each group, written from the pack's own node model (its labels, its taints, its machine's)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for pool in stack.pools:
        labels = {key: next(iter(values)) for key, values in pool.labels.items()
                  if isinstance(values, frozenset) and len(values) == 1}
        taints = [(taint.key, taint.value, taint.effect) for taint in pool.taints]
        built = pool_nodes(stack, pool, "aws", {})
        assert isinstance(built, list) and len(built) == 1, (pool.name, built)
        option, _model = built[0]
        found[pool.name] = [node(f"{pool.name}-0", {**labels, **option.labels}, taints)]
    return found


def test_replacement_verdicts_agree_with_the_drains_view(tmp_path: Path):
    rng = random.Random(SEED)
    cases, asked = [], []
    for index in range(EXAMPLES):
        choices, spec = _example(rng)
        baseline = tmp_path / f"before-{index}.json"
        before = _stack(rng, True, choices, spec)
        baseline.write_text(json.dumps({"version": 3, "deployment": {"resources": [
            {"urn": r.urn, "type": r.type, "custom": True, "inputs": json_format.MessageToDict(r.inputs)}
            for r in before]}}))
        with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
            analyzer = Analyzer({POLICY: {"baseline": str(baseline)}})
            result = analyzer.run(_stack(rng, False, choices, spec))
        nodes = _nodes(analyzer.state.last_stack())
        others = [written for name, listed in nodes.items() if name != "g0" for written in listed]
        cases.append((choices, spec, [v.finding for v in result.of(POLICY)],
                      [note.finding for note in result.notes if note.policy == POLICY]))
        asked += [{"nodes": others, "pod": pod("api", spec), "replicas": 1},
                  {"nodes": nodes["g0"], "pod": pod("api", spec), "replicas": 1}]
    answers = ask({"filter": asked})["filter"]
    refused_count = 0
    for number, (choices, spec, refused, notes) in enumerate(cases):
        elsewhere, on_replaced = answers[2 * number]["placed"], answers[2 * number + 1]["placed"]
        expected = elsewhere == 0 and on_replaced > 0
        assert bool(refused) == expected, (choices, spec, refused, answers[2 * number], answers[2 * number + 1])
        assert notes == [], (choices, spec, notes)
        refused_count += expected
    assert 0 < refused_count < len(cases)  # both sides of the rule are exercised
