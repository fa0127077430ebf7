"""The admission stage (policies/model/admission/, issue 77) held to the API server's own LimitRanger and RuntimeClass
admission plugins (k8s.io/kubernetes plugin/pkg/admission, run by tests/oracle/main.go in AllOrderedPlugins' order):
on generated namespaces, each Pod as the pack admits it is the Pod the API server admits, and the pack refuses
exactly the Pods the plugins refuse.

Each case is a namespace of its own with zero to two LimitRanges (Container limits drawn as the API server accepts
them, min <= defaultRequest <= default <= max, sometimes a maxLimitRequestRatio), a RuntimeClass of its own (a
nodeSelector and tolerations, or none) and one Deployment whose one or two containers write some of their requests
and limits, whose Pods may select nodes and tolerate taints, and may name the case's RuntimeClass (or one that does
not exist). All cases are one program, written with pulumi-kubernetes' classes as users write them, parsed once.

* Admitted by both: the Pod's requests (LimitRange defaults included), its nodeSelector and its tolerations are the
  plugins' (the scheduler matches these: Workload.request, Workload.scheduling).
* Refused by LimitRanger: namespace-admits-workload refuses the workload, naming a LimitRange; admitted: it does not.
* Refused by RuntimeClass (a class not found; a nodeSelector the class contradicts): the pack judges no placement
  for the Pod (Workload.scheduling is not known, and said), never a clean one; and it refuses the Pod for a
  LimitRange exactly when LimitRanger alone refuses the same Pod naming no RuntimeClass.
* Where two LimitRanges of a namespace default a resource differently, what the API server gives a container that
  takes the default depends on the order it lists them: the pack counts no default request for it (at most the
  API server's) and judges no bound of that resource; such refusals are counted, not compared.

A container that writes a request and no limit, where LimitRanger gives it a default limit below that request, fails
the Pod's own validation (between the mutating and the validating plugins, which the oracle runs too): the pack
refuses it for its LimitRanges, and the test counts it as LimitRanger's. ORACLE_SEED and ORACLE_EXAMPLES as in
test_kubernetes_oracle.py.
"""

from __future__ import annotations

import os
import random
from decimal import Decimal
from typing import Any

import pulumi_kubernetes as k8s
from google.protobuf import json_format
from kube_oracle import ask

from compute_guard.policies.adapters.findings import Violation
from compute_guard.policies.model.stack import parse_stack
from compute_guard.policies.namespace_admits_workload import namespace_admits_workload
from compute_guard.policies.platforms.quantity import parse_quantity
from compute_guard.testkit import capture_program

SEED = int(os.environ.get("ORACLE_SEED", "77"))
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000")) // 10
LEVELS = {"cpu": ("100m", "250m", "500m", "1", "2"), "memory": ("64Mi", "128Mi", "256Mi", "512Mi", "1Gi")}
SELECTOR = {"disk": ("ssd", "hdd"), "sandbox": ("kata", "gvisor")}
TOLERATIONS = ({"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"},
               {"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"})


def _limits(rng: random.Random) -> dict[str, Any]:
    """One Container item of a LimitRange, as the API server accepts it (min <= defaultRequest <= default <= max)."""
    item: dict[str, Any] = {"type": "Container"}
    for resource, levels in LEVELS.items():
        chosen = sorted(rng.sample(range(len(levels)), rng.randint(0, 4)))
        parts = rng.sample(("min", "defaultRequest", "default", "max"), len(chosen))
        order = ("min", "defaultRequest", "default", "max")
        for part, index in zip(sorted(parts, key=order.index), chosen, strict=True):
            item.setdefault(part, {})[resource] = levels[index]
        if rng.random() < 0.15:
            item.setdefault("maxLimitRequestRatio", {})[resource] = rng.choice(("1", "2", "4"))
    return item


def _container(rng: random.Random, name: str) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "image": "nginx"}
    resources: dict[str, Any] = {}
    for resource, levels in LEVELS.items():
        for part in ("requests", "limits"):
            if rng.random() < 0.4:
                resources.setdefault(part, {})[resource] = rng.choice(levels)
        request, limit = (resources.get(part, {}).get(resource) for part in ("requests", "limits"))
        if request is not None and limit is not None and parse_quantity(request) > parse_quantity(limit):
            resources["limits"][resource] = request  # (the Pod's validation refuses request > limit)
    if resources:
        found["resources"] = resources
    return found


def generated(rng: random.Random, index: int) -> dict[str, Any]:
    """One case: its namespace's LimitRanges, its RuntimeClass and its Pod spec."""
    namespace = f"ns{index}"
    ranges = [{"metadata": {"name": f"lr{index}-{number}", "namespace": namespace},
               "spec": {"limits": [_limits(rng)]}} for number in range(rng.choice((0, 1, 1, 2)))]
    scheduling: dict[str, Any] = {}
    if rng.random() < 0.6:
        scheduling["nodeSelector"] = {key: rng.choice(values) for key, values in SELECTOR.items()
                                      if rng.random() < 0.6}
    if rng.random() < 0.5:
        scheduling["tolerations"] = [rng.choice(TOLERATIONS)]
    runtime_class = {"metadata": {"name": f"rc{index}"}, "handler": "kata",
                     **({"scheduling": scheduling} if scheduling else {})}
    spec: dict[str, Any] = {"containers": [_container(rng, f"c{number}") for number in range(rng.randint(1, 2))]}
    if rng.random() < 0.5:
        spec["nodeSelector"] = {key: rng.choice(values) for key, values in SELECTOR.items() if rng.random() < 0.5}
    if rng.random() < 0.3:
        spec["tolerations"] = [rng.choice(TOLERATIONS)]
    named = rng.random()
    if named < 0.6:
        spec["runtimeClassName"] = f"rc{index}"
    elif named < 0.7:
        spec["runtimeClassName"] = f"missing{index}"
    return {"namespace": namespace, "limitRanges": ranges, "runtimeClass": runtime_class, "spec": spec}


def _pack(cases: list[dict[str, Any]]) -> Any:
    """The cases as one program of pulumi-kubernetes resources, parsed as the stack policies parse it."""

    def program() -> None:
        for index, case in enumerate(cases):
            for item in case["limitRanges"]:
                k8s.core.v1.LimitRange(item["metadata"]["name"], metadata=item["metadata"], spec=item["spec"])
            runtime_class = case["runtimeClass"]
            k8s.node.v1.RuntimeClass(runtime_class["metadata"]["name"], metadata=runtime_class["metadata"],
                                     handler=runtime_class["handler"], scheduling=runtime_class.get("scheduling"))
            k8s.apps.v1.Deployment(f"d{index}", metadata={"name": f"d{index}", "namespace": case["namespace"]},
                                   spec={"replicas": 1, "selector": {"matchLabels": {"app": f"d{index}"}},
                                         "template": {"metadata": {"labels": {"app": f"d{index}"}},
                                                      "spec": case["spec"]}})

    class Outputs:
        def __init__(self, resource: Any) -> None:
            self.resource_type, self.urn, self.name = resource.type, resource.urn, resource.name
            self.props = json_format.MessageToDict(resource.outputs)

    return parse_stack((Outputs(resource) for resource in capture_program(program)), {})


def _toleration(item: Any) -> tuple[str, ...]:
    return tuple(str(item.get(key) or "") for key in ("key", "operator", "value", "effect"))


def test_the_packs_admission_is_the_api_servers():
    rng = random.Random(SEED)
    cases = [generated(rng, index) for index in range(EXAMPLES)]
    def asked(spec_of: Any) -> list[dict[str, Any]]:
        return ask({"admission": [
            {"limitRanges": case["limitRanges"], "runtimeClasses": [case["runtimeClass"]],
             "pod": {"metadata": {"name": "p", "namespace": case["namespace"]}, "spec": spec_of(case)}}
            for case in cases]})["admission"]

    answer = asked(lambda case: case["spec"])
    # what LimitRanger alone decides of a Pod the RuntimeClass plugin refuses first (a class not found, a conflict):
    # the same Pod naming no RuntimeClass
    alone = asked(lambda case: {key: value for key, value in case["spec"].items() if key != "runtimeClassName"})
    stack = _pack(cases)
    workloads = {workload.name: workload for workload in stack.workloads}
    refused = {finding.urn for finding in namespace_admits_workload(stack)
               if isinstance(finding, Violation) and "LimitRange" in finding.message}
    disagreements: list[str] = []
    compared = {"admitted": 0, "LimitRanger": 0, "RuntimeClass": 0, "undecided": 0}
    for index, (case, verdict) in enumerate(zip(cases, answer, strict=True)):
        workload = workloads[f"d{index}"]
        why = verdict["refused"]
        plugin = why.split(":", 1)[0] if why else "admitted"
        plugin = "LimitRanger" if plugin == "validation" else plugin  # (a request above the limit LimitRanger gave)
        compared[plugin] += 1
        said = f"case {index} {case} -> {why or verdict}"
        containers = workload.admitted_containers
        undecided = {resource for container in containers for resource in container.undecided}
        if plugin == "LimitRanger":
            if undecided and workload.urn not in refused:
                compared["undecided"] += 1  # (the API server's verdict depends on the order it lists them)
            elif workload.urn not in refused:
                disagreements.append(f"the API server refuses, the pack does not: {said}")
            continue
        placement = workload.scheduling
        if plugin == "RuntimeClass":
            if placement.unknown is None:
                disagreements.append(f"the pack judges a placement the RuntimeClass plugin refuses: {said}")
            ranger = alone[index]["refused"].startswith(("LimitRanger", "validation"))
            if (workload.urn in refused) != ranger and not (ranger and undecided):
                disagreements.append(f"LimitRanger {'refuses' if ranger else 'admits'} it alone, the pack does "
                                     f"{'not' if ranger else 'refuse it'}: {said}")
            continue
        if workload.urn in refused:
            disagreements.append(f"the pack refuses, the API server does not: {said}")
        if placement.unknown is not None:
            disagreements.append(f"the pack does not know a placement the API server admits ({placement.unknown}): "
                                 f"{said}")
            continue
        request = workload.request
        amounts = {resource: request.amounts.get(resource, Decimal(0)) for resource in LEVELS}
        expected = {resource: Decimal(verdict["requests"].get(resource, 0)) for resource in LEVELS}
        if any(amounts[resource] != expected[resource] if resource not in undecided else
               amounts[resource] > expected[resource] for resource in LEVELS):
            disagreements.append(f"requests {amounts} != {expected} (undecided: {undecided}): {said}")
        if dict(placement.selector) != verdict["nodeSelector"]:
            disagreements.append(f"nodeSelector {dict(placement.selector)} != {verdict['nodeSelector']}: {said}")
        if sorted(map(_toleration, placement.tolerations)) != sorted(map(_toleration, verdict["tolerations"])):
            disagreements.append(f"tolerations {placement.tolerations} != {verdict['tolerations']}: {said}")
    assert disagreements == [], f"{len(disagreements)} of {len(cases)} disagree: " + "\n".join(disagreements[:5])
    print(compared)
    assert all(compared[plugin] for plugin in ("admitted", "LimitRanger", "RuntimeClass")), compared
