"""One landing answer (issue 47): where a workload's Pods land is one list of pool verdicts, whether its
compute.alien.dev labels name the pool or the scheduler's rules take it there, and every reader asks the verdict
(Landing.named, Placed.named), never the pool, how Pods reach it."""

from __future__ import annotations

from typing import Any

from builders import cluster, deployment, instance_types, nodepool

from compute_guard.policies.model.landing import landing
from compute_guard.policies.model.loads import loads
from compute_guard.testkit.analyzer import Analyzer, stack_environment
from compute_guard.testkit.program import capture_program

AMD64 = {"kubernetes.io/arch": "amd64"}


def run(*parts: Any, platform: str) -> tuple[Any, Any]:
    """The policies' result on a program of ``parts``, and the stack they judged."""
    def program() -> None:
        for part in parts:
            part()

    resources = capture_program(program, stack_config={"compute:platform": platform})
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        analyzer = Analyzer()
        result = analyzer.run(resources)
    return result, analyzer.state.last_stack()


def test_a_workload_on_its_computecluster_pool_and_on_a_nodepool_is_named_on_one_only():
    """One ComputeCluster (seed K's, its one pool 'apps': 4 GiB) and a Karpenter NodePool of t3.small (2 GiB, on the
    provider's cluster): a Deployment with no compute.alien.dev labels lands on the ComputeCluster's only pool by
    seed K's rule, and the scheduler's rules judge it on the NodePool. Its 2 GiB Pod fits a 4 GiB node less EKS's
    reservations (2531 MiB allocatable: 110 Pods' kube-reserved), not a t3.small's 2 GiB less its reservations
    (1572 MiB): the message is the scheduler's one, naming the NodePool; the
    ComputeCluster pool's own message (which says what a node 'can give it') is for the pool its labels name."""
    result, stack = run(cluster(), nodepool("small", [instance_types("t3.small")]),
                        deployment("api", node_selector=AMD64, requests={"memory": "2Gi"}), platform="aws")
    fits = [found.finding for found in result.violations if found.policy == "workload-fits-pool"]
    assert len(fits) == 1 and "more than any node of the pools that can take it" in fits[0], fits
    assert "'small'" in fits[0] and "can give it" not in fits[0]
    (workload,) = [found for found in stack.workloads if found.name == "api"]
    landed = landing(stack, workload)
    assert landed.named is not None and landed.named.named and landed.named.pool.name == "apps"
    assert landed.scheduled and [verdict.pool.name for verdict in landed.possible] == ["small"]
    on = {load.pool.name: [placed.named for placed in load.workloads] for load in loads(stack, "aws").pools}
    assert on == {"apps": [True], "small": [False]}


def test_the_values_a_pod_requires_of_a_label():
    """scheduling.required: a nodeSelector's value; else the union over required node affinity terms when each term
    restricts the key with In (terms are ORed, expressions of a term ANDed); None when some term leaves it open."""
    from compute_guard.policies.model.scheduling import pod_placement, required

    key = "cloud.google.com/gke-nodepool"

    def term(*expressions):
        return {"matchExpressions": [{"key": k, "operator": op, "values": list(v)} for k, op, v in expressions]}

    def affinity(*terms):
        return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}

    assert required(pod_placement({key: "general"}, None, None), key) == {"general"}
    assert required(pod_placement(None, affinity(term((key, "In", ["a", "b"])), term((key, "In", ["c"]))), None),
                    key) == {"a", "b", "c"}
    assert required(pod_placement(None, affinity(term((key, "In", ["a", "b"]), (key, "In", ["b", "c"]))), None),
                    key) == {"b"}
    assert required(pod_placement(None, affinity(term((key, "In", ["a"])), term(("zone", "In", ["z"]))), None),
                    key) is None
    assert required(pod_placement(None, affinity(term((key, "NotIn", ["a"]))), None), key) is None
    assert required(pod_placement({"other": "x"}, None, None), key) is None


def test_pods_that_ask_the_same_of_a_pool_share_its_verdict_and_pods_that_differ_do_not():
    """A pool's verdict is judged once per stack for each placement (PodPlacement.key), and read by every workload
    whose Pods ask the same of its nodes. Each workload's verdict is the one judge() gives its own placement (the
    oracle: judged afresh): a toleration's value, operator or effect, or a nodeSelector, tells two placements apart."""
    from compute_guard.policies.model.landing import judge
    from compute_guard.policies.model.scheduling import pod_placement

    taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    tolerations = {
        "equal": [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
        "equal-again": [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
        "other-value": [{"key": "dedicated", "operator": "Equal", "value": "cpu", "effect": "NoSchedule"}],
        "other-effect": [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoExecute"}],
        "exists": [{"key": "dedicated", "operator": "Exists"}],
        "none": None,
    }
    parts = [deployment(name, node_selector=AMD64, pod={"tolerations": found} if found else None)
             for name, found in tolerations.items()]
    parts.append(deployment("arm", node_selector={"kubernetes.io/arch": "arm64"},
                            pod={"tolerations": tolerations["equal"]}))
    _result, stack = run(nodepool("gpu", [instance_types("m7i.large")], taints=[taint]),
                         nodepool("general", [instance_types("m7i.large")]), *parts, platform="aws")
    verdicts = {}
    for workload in stack.workloads:
        landed = landing(stack, workload)
        for verdict in landed.verdicts:
            assert verdict == judge(verdict.pool, workload.scheduling), (workload.name, verdict.pool.name)
            verdicts[workload.name, verdict.pool.name] = verdict
    assert {name for name in tolerations if verdicts[name, "gpu"].takes} == {"equal", "equal-again", "exists"}
    assert all(verdicts[name, "general"].takes for name in tolerations)
    assert verdicts["arm", "gpu"].refuses and verdicts["arm", "general"].refuses
    assert verdicts["equal", "gpu"] is verdicts["equal-again", "gpu"]  # judged once
    assert verdicts["equal", "gpu"] is not verdicts["other-value", "gpu"]
    # a placement that cannot be compared is judged on its own, never shared
    odd = pod_placement(AMD64, None, [{"key": "dedicated", "operator": "Exists", "x": ["unhashable"]}])
    assert odd.key is None and pod_placement(AMD64, None, None).key is not None


def test_what_a_pod_needs_that_a_platforms_own_nodes_may_lack():
    """landing.needs: a Pod needs Windows nodes when its nodeSelector, or every required node affinity term, allows
    kubernetes.io/os (or the beta alias) windows only; a term that allows linux too, or none, needs nothing."""
    from compute_guard.policies.model.landing import needs
    from compute_guard.policies.model.scheduling import pod_placement

    def terms(*values):
        return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": list(found)}]}
            for found in values]}}

    assert needs(pod_placement({"kubernetes.io/os": "windows"}, None, None)) == {"windows"}
    assert needs(pod_placement({"beta.kubernetes.io/os": "windows"}, None, None)) == {"windows"}
    assert needs(pod_placement(None, terms(["windows"]), None)) == {"windows"}
    assert needs(pod_placement(None, terms(["windows"], ["windows"]), None)) == {"windows"}
    assert needs(pod_placement(None, terms(["windows", "linux"]), None)) == set()
    assert needs(pod_placement(None, terms(["windows"], ["linux"]), None)) == set()
    assert needs(pod_placement({"kubernetes.io/os": "linux"}, None, None)) == set()
    assert needs(pod_placement(None, None, None)) == set()
