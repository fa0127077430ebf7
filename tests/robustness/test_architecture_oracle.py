"""Which architectures a pod spec allows, decided by a brute-force model of the scheduler, and the
verdicts of workload-architecture-selector-valid, workload-node-architecture and workload-architecture-pin
held to it.

The model: for each Kubernetes architecture, a node labelled with it under both architecture labels
(kubernetes.io/arch and beta.kubernetes.io/arch). A Pod may land on it when every architecture label of
its nodeSelector equals the node's, and, when it has required node affinity, when one of the
nodeSelectorTerms matches: a term matches when it has expressions and each expression on an
architecture label holds for the node's value (In, NotIn, Exists, DoesNotExist; Gt and Lt need a number);
expressions on other labels can be met by some node. A value not known yet (a preview unknown) is tried
as every architecture and as a name no node carries: a finding must hold for all of them.

Nothing here comes from the pack but its public entry points (the test kit).
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pulumi_policy.proxy import UNKNOWN_OBJECT_VALUE, UNKNOWN_STRING_VALUE
from scheduler_model import ARCH_LABELS, ARCHITECTURES, NOWHERE, OTHER_LABELS, WRONG, allowed, places, wrong_names

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

UNKNOWN = UNKNOWN_STRING_VALUE

PROPERTY = settings(max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "300")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SELECTOR_VALID = "workload-architecture-selector-valid"
NODE_ARCHITECTURE = "workload-node-architecture"
PIN = "workload-architecture-pin"
CLUSTER = {"id": "compute", "capacityGroups": [{"groupId": "apps", "minSize": 1, "maxSize": 3, "profile": {
    "cpu": "2", "memoryBytes": 4 << 30, "ephemeralStorageBytes": 20 << 30, "architecture": "x86_64"}}]}


# --- generated constraints --------------------------------------------------------------------------

values = st.sampled_from(ARCHITECTURES[:4] + WRONG)


@st.composite
def expressions(draw: Any) -> dict[str, Any]:
    key = draw(st.sampled_from(ARCH_LABELS + OTHER_LABELS))
    operator = draw(st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]))
    expression: dict[str, Any] = {"key": key, "operator": operator}
    if operator in ("In", "NotIn"):
        expression["values"] = draw(st.lists(values, min_size=1, max_size=3))
    elif operator in ("Gt", "Lt"):
        expression["values"] = ["1"]
    return expression


@st.composite
def pod_specs(draw: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "api", "image": "example.test/api:1"}]}
    if draw(st.booleans()):
        selector = {label: draw(values) for label in ARCH_LABELS if draw(st.booleans())}
        if draw(st.booleans()):
            selector["kubernetes.io/os"] = "linux"
        spec["nodeSelector"] = selector
    if draw(st.booleans()):
        terms = draw(st.lists(st.lists(expressions(), max_size=3), max_size=3))
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": term} for term in terms]}}}
    if draw(st.booleans()):  # preferred affinity never constrains
        spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})[
            "preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": 1, "preference": {"matchExpressions": [
                {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]}}]
    return draw(with_one_unknown(spec))


@st.composite
def with_one_unknown(draw: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """The spec, sometimes with one architecture value, or its whole node affinity, not known yet."""
    choice = draw(st.sampled_from(["none", "value", "affinity"]))
    spots = places(spec)
    if choice == "value" and spots:
        container, key = draw(st.sampled_from(spots))
        container[key] = UNKNOWN
    elif choice == "affinity" and "nodeAffinity" in spec.get("affinity", {}):
        spec["affinity"]["nodeAffinity"] = UNKNOWN_OBJECT_VALUE
    return spec


# --- the model --------------------------------------------------------------------------------------

def substitutions(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The spec with its unknown replaced by every value it could take."""
    import copy

    affinity = (spec.get("affinity") or {}).get("nodeAffinity")
    if affinity == UNKNOWN_OBJECT_VALUE:
        return [_with_affinity(spec, None), *(_with_affinity(spec, {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In",
                                                         "values": [arch]}]}]}}) for arch in ARCHITECTURES)]
    for index, (container, key) in enumerate(places(spec)):
        if container[key] == UNKNOWN:
            options = []
            for value in (*ARCHITECTURES, NOWHERE):
                candidate = copy.deepcopy(spec)
                box, slot = places(candidate)[index]
                box[slot] = value
                options.append(candidate)
            return options
    return [spec]


def _with_affinity(spec: dict[str, Any], affinity: Any) -> dict[str, Any]:
    import copy

    candidate = copy.deepcopy(spec)
    if affinity is None:
        del candidate["affinity"]["nodeAffinity"]
    else:
        candidate["affinity"]["nodeAffinity"] = affinity
    return candidate


# --- the verdicts -----------------------------------------------------------------------------------

def evaluate(spec: dict[str, Any], remediate: bool = False):
    deployment = {"metadata": {"name": "api", "labels": {"compute.alien.dev/cluster": "compute",
                                                          "compute.alien.dev/pool": "apps"}},
                  "spec": {"selector": {"matchLabels": {"app": "api"}},
                           "template": {"metadata": {"labels": {"app": "api"}}, "spec": spec}}}
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        return Analyzer({PIN: "remediate"} if remediate else None).run([Resource.of("compute:index:ComputeCluster", "compute", CLUSTER),
                                                 Resource.of("kubernetes:apps/v1:Deployment", "api", deployment)])


def is_unknown(spec: dict[str, Any]) -> bool:
    return len(substitutions(spec)) > 1


@PROPERTY
@given(pod_specs())
@example({"containers": [], "nodeSelector": {"kubernetes.io/arch": "amd64"}, "affinity": {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/arch", "operator": "NotIn", "values": ["amd64"]}]}]}}}})
@example({"containers": [], "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "beta.kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}]}}}})
@example({"containers": [], "nodeSelector": {"kubernetes.io/arch": "arm64"}, "affinity": {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "beta.kubernetes.io/arch", "operator": "NotIn", "values": ["arm64"]}]}]}}}})
def test_every_architecture_verdict_follows_the_scheduler_model(spec):
    result = evaluate(spec)
    possible = [allowed(candidate) for candidate in substitutions(spec)]
    upper = set().union(*possible)  # what the Pods might still be allowed
    unknown = len(possible) > 1
    wrong = wrong_names(spec)
    notes = {note.policy for note in result.notes}

    # workload-architecture-selector-valid: a wrong name, or no architecture whatever the unknown turns out to be
    assert bool(result.of(SELECTOR_VALID)) == (wrong or not upper), (spec, upper)
    assert (SELECTOR_VALID in notes) == unknown

    # workload-node-architecture: the pool needs amd64
    node_findings = result.findings(NODE_ARCHITECTURE)
    if "amd64" not in upper:
        assert len(node_findings) == 1 and "exclude amd64" in node_findings[0], (spec, upper)
    elif unknown:
        assert node_findings == [] and NODE_ARCHITECTURE in notes
    elif possible[0] != {"amd64"}:
        assert len(node_findings) == 1 and "nothing pins them there" in node_findings[0], (spec, upper)
    else:
        assert node_findings == [] and NODE_ARCHITECTURE not in notes

    # workload-architecture-pin: only a workload with no architecture constraint at all is pinned
    pins = not unknown and not wrong and possible[0] == set(ARCHITECTURES)
    remediated = evaluate(spec, remediate=True).remediated
    assert bool(remediated) == pins, (spec, possible[0])
    if pins:
        (props,) = remediated.values()
        selector = props["spec"]["template"]["spec"]["nodeSelector"]
        assert selector == {**spec.get("nodeSelector", {}), "kubernetes.io/arch": "amd64"}
