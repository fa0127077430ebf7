"""workload-pool-placement and dynamic-container-pool against the seed's resolution rules, written out here
on their own (kubernetes_workload_pool, kubernetes_dynamic_pool), over generated stacks: 0-3
ComputeClusters (ids may repeat), 1-4 pools each, and workloads whose role, cluster and pool labels sit on
any of the four places the pack reads (the workload's labels and annotations, its pod template's), agreeing
or not. Nothing here comes from the pack but its public entry points (the test kit).
"""

from __future__ import annotations

import os
from typing import Any

from builders import besides_no_pool
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

PROPERTY = settings(max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "300")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
ROLE, CLUSTER, POOL = "compute.alien.dev/workload", "compute.alien.dev/cluster", "compute.alien.dev/pool"
PLACES = ("labels", "annotations", "template labels", "template annotations")
CLUSTER_IDS = ("compute", "other", "edge")
POOL_IDS = ("general", "apps", "batch", "gpu")
DISAGREE = object()


# --- generated stacks -------------------------------------------------------------------------------

@st.composite
def clusters(draw: Any) -> list[dict[str, Any]]:
    found = []
    for cluster_id in draw(st.lists(st.sampled_from(CLUSTER_IDS), max_size=3)):
        pools = draw(st.lists(st.sampled_from(POOL_IDS), min_size=1, max_size=4, unique=True))
        props: dict[str, Any] = {"id": cluster_id,
                                 "capacityGroups": [{"groupId": p, "minSize": 0, "maxSize": 1} for p in pools]}
        dynamic = draw(st.sampled_from([None, *pools, "missing"]))
        if dynamic is not None:
            props["dynamicContainerPool"] = dynamic
        found.append(props)
    return found


@st.composite
def workloads(draw: Any) -> dict[str, Any]:
    """A Deployment or DaemonSet with each placement key on some of the four places."""
    values = {ROLE: st.sampled_from(["container", "daemon", "worker", "dynamic", "bogus"]),
              CLUSTER: st.sampled_from([*CLUSTER_IDS, "missing"]),
              POOL: st.sampled_from([*POOL_IDS, "missing"])}
    places: dict[str, dict[str, str]] = {place: {} for place in PLACES}
    for key, value in values.items():
        for place in draw(st.lists(st.sampled_from(PLACES), max_size=2, unique=True)):
            places[place][key] = draw(value)
    return {"kind": draw(st.sampled_from(["Deployment", "DaemonSet"])), "places": places}


# --- the seed's rules -------------------------------------------------------------------------------

def label(places: dict[str, dict[str, str]], key: str) -> Any:
    values = {place[key] for place in places.values() if key in place}
    return DISAGREE if len(values) > 1 else next(iter(values), None)


def pool_error(stack: list[dict[str, Any]], cluster: str | None, pool: str | None) -> bool:
    """kubernetes_workload_pool fails (a stack whose ids repeat cannot name a cluster by id either)."""
    if cluster is not None:
        matches = [c for c in stack if c["id"] == cluster]
        if len(matches) != 1:
            return True
        chosen = matches[0]
    elif not stack:
        return pool is not None
    elif len(stack) > 1:
        return True
    else:
        chosen = stack[0]
    ids = [p["groupId"] for p in chosen["capacityGroups"]]
    return not ((pool or "general") in ids or (pool is None and len(ids) == 1))


def dynamic_error(stack: list[dict[str, Any]], cluster: str | None, pool: str | None) -> bool:
    """kubernetes_dynamic_pool fails, or the workload's own labels name another place."""
    if not stack:
        return False
    if len(stack) > 1:
        return True
    name = stack[0].get("dynamicContainerPool") or "general"
    if name not in [p["groupId"] for p in stack[0]["capacityGroups"]]:
        return True
    return (cluster is not None and cluster != stack[0]["id"]) or (pool is not None and pool != name)


def expected(stack: list[dict[str, Any]], workload: dict[str, Any]) -> tuple[int, int]:
    """How many violations of workload-pool-placement and of dynamic-container-pool the workload gets."""
    places, problems = workload["places"], 0
    role = label(places, ROLE)
    if role is DISAGREE or (role is not None and role not in ("container", "daemon", "worker", "dynamic")):
        problems, role = 1, None
    elif role is None:
        role = "daemon" if workload["kind"] == "DaemonSet" else "container"
    cluster = pool = None
    if role != "worker":  # a worker's cluster and pool labels are not read
        cluster, pool = label(places, CLUSTER), label(places, POOL)
        problems += (cluster is DISAGREE) + (pool is DISAGREE)
        cluster = None if cluster is DISAGREE else cluster
        pool = None if pool is DISAGREE else pool
    placed = role in ("container", "daemon") and pool_error(stack, cluster, pool)
    return problems + placed, int(role == "dynamic" and dynamic_error(stack, cluster, pool))


# --- the pack ---------------------------------------------------------------------------------------

def resources(stack: list[dict[str, Any]], items: list[dict[str, Any]]) -> list[Resource]:
    found = [Resource.of("compute:index:ComputeCluster", f"cluster{i}", props) for i, props in enumerate(stack)]
    for i, item in enumerate(items):
        places = item["places"]
        found.append(Resource.of(f"kubernetes:apps/v1:{item['kind']}", f"w{i}", {
            "metadata": {"name": f"w{i}", "labels": places["labels"], "annotations": places["annotations"]},
            "spec": {"selector": {"matchLabels": {"app": f"w{i}"}}, "template": {
                "metadata": {"labels": {"app": f"w{i}", **places["template labels"]},
                             "annotations": places["template annotations"]},
                "spec": {"containers": [{"name": "app", "image": "example.test/app:1"}]}}}}))
    return found


PLACED = {place: {} for place in PLACES}


@PROPERTY
@given(clusters(), st.lists(workloads(), min_size=1, max_size=4))
@example([{"id": "compute", "capacityGroups": [{"groupId": "general", "minSize": 0, "maxSize": 1}]},
          {"id": "other", "capacityGroups": [{"groupId": "general", "minSize": 0, "maxSize": 1}]}],
         [{"kind": "Deployment", "places": {**PLACED, "labels": {ROLE: "dynamic", CLUSTER: "compute"}}}])
def test_placement_verdicts_follow_the_seed(stack, items):
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        result = Analyzer().run(resources(stack, items))
    assert (besides_no_pool(result.notes) if not stack else result.notes) == []
    for i, item in enumerate(items):
        urn_end = f"::w{i}"
        placement = [v for v in result.of("workload-pool-placement") if v.urn.endswith(urn_end)]
        dynamic = [v for v in result.of("dynamic-container-pool") if v.urn.endswith(urn_end)]
        assert (len(placement), len(dynamic)) == expected(stack, item), (item, [v.finding for v in placement + dynamic])
