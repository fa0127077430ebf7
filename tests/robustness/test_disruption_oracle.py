"""Policies 17, 18 and 20 against independent models (tests/scheduler_model.py): the eviction API's arithmetic for
the budgets, PodTopologySpread's placement for the zones. The pack's verdict and the numbers in its messages must be
the models'."""

import json
import re

from google.protobuf import json_format
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scheduler_model import disruptions_allowed, spread_places

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

ZONE = "topology.kubernetes.io/zone"


def _deployment(replicas, pod=None):
    return Resource.of("kubernetes:apps/v1:Deployment", "web", {"metadata": {"name": "web"}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
            "containers": [{"name": "web", "image": "example.test/web:1"}], **(pod or {})}}}})


def _nodepool(zones):
    requirements = [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                    {"key": ZONE, "operator": "In", "values": [f"us-east-1{chr(97 + i)}" for i in range(zones)]}]
    return Resource.of("kubernetes:karpenter.sh/v1:NodePool", "general", {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"},
        "spec": {"template": {"spec": {"requirements": requirements, "nodeClassRef": {
            "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}})


def _run(resources, config=None):
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        return Analyzer(config or {}).run(resources)


@settings(max_examples=120, deadline=None)
@given(zones=st.integers(1, 4), replicas=st.integers(0, 9), max_skew=st.integers(1, 3),
       min_domains=st.none() | st.integers(1, 6))
@example(zones=2, replicas=3, max_skew=1, min_domains=3)  # the boundary: 2 x 1 = 2 of 3
@example(zones=2, replicas=2, max_skew=1, min_domains=3)  # exactly 2 x 1: all run
@example(zones=3, replicas=9, max_skew=2, min_domains=3)  # minDomains = zones: no cap
def test_zone_spread_says_what_the_scheduler_can_place(zones, replicas, max_skew, min_domains):
    constraint = {"maxSkew": max_skew, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                  "labelSelector": {"matchLabels": {"app": "web"}}}
    if min_domains is not None:
        constraint["minDomains"] = min_domains
    result = _run([_nodepool(zones), _deployment(replicas, {"topologySpreadConstraints": [constraint]})])
    found = result.findings("workload-zone-spread")
    placed = spread_places(zones, replicas, max_skew, min_domains)
    assert bool(found) == (placed < replicas), (found, placed)
    if found:
        (message,) = found
        most = re.search(r"at most \d+ x \d+ = (\d+) of its (\d+) Pods", message)
        assert most is not None and int(most.group(1)) == placed and int(most.group(2)) == replicas


AMOUNTS = st.one_of(st.integers(0, 6), st.integers(0, 100).map(lambda value: f"{value}%"))


@settings(max_examples=150, deadline=None)
@given(replicas=st.integers(1, 8), field=st.sampled_from(["minAvailable", "maxUnavailable"]), amount=AMOUNTS)
@example(replicas=3, field="minAvailable", amount="90%")  # ceil(2.7) = 3: none may go
@example(replicas=5, field="minAvailable", amount="50%")  # ceil(2.5) = 3: two may go
@example(replicas=3, field="maxUnavailable", amount="10%")  # ceil(0.3) = 1 may go
@example(replicas=4, field="maxUnavailable", amount="0%")
def test_budget_verdicts_follow_the_eviction_api(replicas, field, amount, tmp_path_factory):
    allowed = disruptions_allowed(replicas, amount if field == "minAvailable" else None,
                                  amount if field == "maxUnavailable" else None)
    budget = Resource.of("kubernetes:policy/v1:PodDisruptionBudget", "web", {
        "metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"app": "web"}}, field: amount}})
    cluster = {"id": "compute", "capacityGroups": [{"groupId": "general", "minSize": 1, "maxSize": 10,
                                                    "instanceType": "t4g.medium"}]}
    placed = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "general"}
    workload = _deployment(replicas, {"nodeSelector": {"kubernetes.io/arch": "arm64"}})
    workload = Resource.of(workload.type, workload.name, {**json_format.MessageToDict(workload.inputs),
                                                          "metadata": {"name": "web", "labels": placed}})
    previous = tmp_path_factory.mktemp("baseline") / "export.json"
    old = dict(cluster, capacityGroups=[dict(cluster["capacityGroups"][0], instanceType="t4g.small")])
    previous.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": "urn:pulumi:stack::project::compute:index:ComputeCluster::compute", "custom": False,
         "type": "compute:index:ComputeCluster", "inputs": old}]}}))
    result = _run([Resource.of("compute:index:ComputeCluster", "compute", cluster), workload, budget],
                  {"workload-disruption-allowed": {"baseline": str(previous)}})
    # policy 18: the budget itself; policy 17: the workload, on a pool this preview replaces (t4g.small -> medium)
    assert bool(result.findings("disruption-budget-useful")) == (allowed == 0)
    assert bool(result.findings("workload-disruption-allowed")) == (allowed == 0)
