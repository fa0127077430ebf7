"""Property tests with real oracles: generators biased toward valid clusters and placed, pinned
workloads, and properties that say what must be reported, not only that nothing crashed.

- a valid cluster has no findings of compute-cluster-valid;
- breaking exactly one field of a valid cluster yields exactly the finding for that field;
- pinning every workload to its pool's architecture clears workload-node-architecture, and
  removing the pin from a workload gives exactly that workload's finding;
- changing only sizes and scale policies never trips compute-cluster-safe-update.
"""

from __future__ import annotations

import ipaddress
import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

CLUSTER = "compute:index:ComputeCluster"
PROPERTY = settings(max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "200")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
NODE = {"x86_64": "amd64", "arm64": "arm64"}


@st.composite
def scale_policies(draw: Any, min_size: int, max_size: int) -> dict[str, Any] | None:
    def around(value: int) -> dict[str, int]:
        low = draw(st.integers(0, value))
        high = draw(st.integers(value, value + 3))
        return {"min": low, "max": high, "default": draw(st.integers(low, high))}

    kind = draw(st.sampled_from([None, "fixed", "autoscale"] if min_size == max_size else [None, "autoscale"]))
    if kind == "fixed":
        return {"type": "fixed", "machines": around(min_size)}
    if kind == "autoscale":
        return {"type": "autoscale", "min": around(min_size), "max": around(max_size)}
    return None


@st.composite
def valid_clusters(draw: Any, architecture: str | None = None) -> dict[str, Any]:
    ids = draw(st.lists(st.from_regex(r"[a-z0-9][a-z0-9-]{0,7}", fullmatch=True), min_size=1, max_size=4,
                        unique=True))
    arch = architecture if architecture is not None else draw(st.sampled_from([None, "arm64", "x86_64"]))
    pools = []
    for group_id in ids:
        min_size = draw(st.integers(0, 10))
        max_size = draw(st.integers(min_size, 10))
        pool: dict[str, Any] = {"groupId": group_id, "minSize": min_size, "maxSize": max_size}
        if draw(st.booleans()):
            profile: dict[str, Any] = {"cpu": draw(st.sampled_from(["1", "0.5", "250m", "16", "2.5"])),
                                       "memoryBytes": draw(st.integers(0, 1 << 40)),
                                       "ephemeralStorageBytes": draw(st.integers(0, 1 << 40))}
            if arch is not None and draw(st.booleans()):
                profile["architecture"] = arch
            if draw(st.booleans()):
                profile["gpu"] = {"type": "nvidia-t4", "count": draw(st.integers(1, 8))}
            pool["profile"] = profile
        policy = draw(scale_policies(min_size, max_size))
        if policy is not None:
            pool["scalePolicy"] = policy
        pools.append(pool)
    props: dict[str, Any] = {"id": draw(st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)),
                             "capacityGroups": pools}
    if draw(st.booleans()):
        props["dynamicContainerPool"] = draw(st.sampled_from(ids))
    machines = sum(pool["maxSize"] for pool in pools)
    widest = 24 - max(machines - 1, 0).bit_length()
    if draw(st.booleans()):
        prefix = draw(st.integers(8, widest))
        network = ipaddress.IPv4Network((draw(st.integers(0, 255)) << 24, 8)).subnets(new_prefix=prefix)
        props["containerCidr"] = str(next(network))
    spread_pools = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
    if spread_pools:
        spread = {pool: draw(st.integers(1, 4)) for pool in spread_pools}
        props["failureDomainSpread"] = spread
        chosen = [pool for pool in spread_pools if draw(st.booleans())]
        if chosen:
            props["selectedFailureDomains"] = {pool: [f"zone-{i}" for i in range(spread[pool])] for pool in chosen}
    return props


def findings(*resources: Resource, policy: str, platform: str = "local", config: Any = None) -> list[str]:
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        result = Analyzer(config).run(list(resources))
    assert result.notes == []
    return [v.finding for v in result.of(policy)]


@PROPERTY
@given(valid_clusters())
def test_a_valid_cluster_has_no_findings(props):
    assert findings(Resource.of(CLUSTER, "compute", props), policy="compute-cluster-valid") == []


def _first_pool(props: dict[str, Any]) -> tuple[dict[str, Any], str]:
    pool = props["capacityGroups"][0]
    return pool, f"ComputeCluster '{props['id']}' pool '{pool['groupId']}': "


BREAKS = {
    "maxSize above 10": (lambda p: _first_pool(p)[0].update(maxSize=11),
                         lambda p: _first_pool(p)[1] + "maxSize 11 is above the maximum of 10"),
    "minSize below 0": (lambda p: _first_pool(p)[0].update(minSize=-1),
                        lambda p: _first_pool(p)[1] + "minSize -1 is below the minimum of 0"),
    "an unknown pool field": (lambda p: _first_pool(p)[0].update(minSise=1),
                              lambda p: _first_pool(p)[1] + "unknown field 'minSise'; did you mean 'minSize'?"),
    "an unknown cluster field": (lambda p: p.update(zones=1),
                                 lambda p: f"ComputeCluster '{p['id']}': unknown field 'zones'; known fields: id, "
                                           "capacityGroups, dynamicContainerPool, selectedFailureDomains, "
                                           "failureDomainSpread, containerCidr, type"),
    "a malformed pool id": (lambda p: _first_pool(p)[0].update(groupId="Bad_Id"),
                            lambda p: f"ComputeCluster '{p['id']}' pool 'Bad_Id': groupId must be non-empty "
                                      "lowercase letters, digits and hyphens"),
    "a dynamic pool that does not exist": (lambda p: p.update(dynamicContainerPool="zz-missing"),
                                           lambda p: f"ComputeCluster '{p['id']}': dynamicContainerPool names pool "
                                                     "'zz-missing', which does not exist; name one of its pools or "
                                                     "remove the field"),
    "a containerCidr with host bits": (lambda p: p.update(containerCidr="10.0.0.1/8"),
                                       lambda p: f"ComputeCluster '{p['id']}': containerCidr '10.0.0.1/8' is not an "
                                                 "IPv4 network such as 10.244.0.0/16 (no host bits set)"),
}


@PROPERTY
@given(valid_clusters(), st.sampled_from(sorted(BREAKS)))
def test_breaking_one_field_gives_exactly_its_finding(props, which):
    broken = json.loads(json.dumps(props))
    if which == "a malformed pool id" and any(key == broken["capacityGroups"][0]["groupId"]
                                              for key in (broken.get("dynamicContainerPool"),
                                                          *broken.get("failureDomainSpread", {}))):
        broken.pop("dynamicContainerPool", None)  # references to the renamed pool would be findings too
        broken.pop("failureDomainSpread", None)
        broken.pop("selectedFailureDomains", None)
    breaking, expected = BREAKS[which]
    breaking(broken)
    assert findings(Resource.of(CLUSTER, "compute", broken), policy="compute-cluster-valid") == [expected(broken)]


@st.composite
def placed_stacks(draw: Any) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A cluster whose pools all declare one architecture, and workloads placed on its pools."""
    props = draw(valid_clusters(architecture=draw(st.sampled_from(["arm64", "x86_64"]))))
    for pool in props["capacityGroups"]:
        pool.setdefault("profile", {"cpu": "1", "memoryBytes": 1, "ephemeralStorageBytes": 1})
        pool["profile"]["architecture"] = draw(st.just(_arch(props)))
    pools = [pool["groupId"] for pool in props["capacityGroups"]]
    kinds = st.sampled_from(["Deployment", "StatefulSet", "DaemonSet"])
    workloads = draw(st.lists(st.tuples(kinds, st.sampled_from(pools)), min_size=1, max_size=6))
    return props, workloads


def _arch(props: dict[str, Any]) -> str:
    declared = {pool.get("profile", {}).get("architecture") for pool in props["capacityGroups"]} - {None}
    return next(iter(declared), "x86_64")


def workload(index: int, kind: str, cluster_id: str, pool: str, pin: str | None) -> Resource:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}]}
    if pin is not None:
        spec["nodeSelector"] = {"kubernetes.io/arch": pin}
    labels = {"app": f"w{index}", "compute.alien.dev/cluster": cluster_id, "compute.alien.dev/pool": pool}
    return Resource.of(f"kubernetes:apps/v1:{kind}", f"w{index}", {
        "metadata": {"labels": labels}, "spec": {"selector": {"matchLabels": {"app": f"w{index}"}},
                                                 "template": {"metadata": {"labels": labels}, "spec": spec}}})


@PROPERTY
@given(placed_stacks(), st.data())
def test_pinning_every_workload_clears_the_node_architecture_policy(stack, data):
    props, placed = stack
    node = NODE[_arch(props)]
    cluster = Resource.of(CLUSTER, "compute", props)
    pinned = [workload(i, kind, props["id"], pool, node) for i, (kind, pool) in enumerate(placed)]
    assert findings(cluster, *pinned, policy="workload-node-architecture", platform="kubernetes") == []
    assert findings(cluster, *pinned, policy="workload-pool-placement", platform="kubernetes") == []
    loose = data.draw(st.integers(0, len(placed) - 1))
    kind, pool = placed[loose]
    unpinned = [*pinned[:loose], workload(loose, kind, props["id"], pool, None), *pinned[loose + 1:]]
    (finding,) = findings(cluster, *unpinned, policy="workload-node-architecture", platform="kubernetes")
    assert finding.startswith(f"{kind} 'w{loose}': its Pods need {node} nodes")


@st.composite
def resized(draw: Any, props: dict[str, Any]) -> dict[str, Any]:
    new = json.loads(json.dumps(props))
    for pool in new["capacityGroups"]:
        pool["minSize"] = draw(st.integers(0, 3))
        pool["maxSize"] = draw(st.integers(pool["minSize"], 3))
        pool.pop("scalePolicy", None)
        policy = draw(scale_policies(pool["minSize"], pool["maxSize"]))
        if policy is not None:
            pool["scalePolicy"] = policy
    return new


@PROPERTY
@given(valid_clusters(), st.data(), st.sampled_from(["t4g.small", "m7i.large", "n2-standard-4"]))
def test_changing_only_sizes_never_trips_the_safe_update(tmp_path_factory, props, data, machine):
    for pool in props["capacityGroups"]:
        pool["instanceType"] = machine
    new = data.draw(resized(props))
    baseline = tmp_path_factory.mktemp("baseline") / "export.json"
    resource = Resource.of(CLUSTER, "compute", new)
    baseline.write_text(json.dumps({"version": 3, "deployment": {"resources": [
        {"urn": resource.urn, "type": CLUSTER, "inputs": props, "outputs": props}]}}))
    config = {"compute-cluster-safe-update": {"baseline": str(baseline)}}
    assert findings(resource, policy="compute-cluster-safe-update", config=config) == []
