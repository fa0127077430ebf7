"""The pod-spec architecture reader on its own: what it allows, what it reports, and where.

The policies' tests reach it through whole workloads; these pin its exact messages, paths and
its treatment of values that are not known yet, which the policies only pass on.
"""

from __future__ import annotations

from typing import Any

import pytest

from compute_guard.policies.model.architecture import KUBERNETES_ARCHITECTURES, architecture_constraint
from compute_guard.policies.model.values import Undetermined, Unknown

UNKNOWN = Unknown(Undetermined("not known during preview"))
REQUIRED = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"



def said(constraint):
    """The words workload-architecture-selector-valid writes for what the model found (typed outcomes)."""
    from compute_guard.policies.workload_architecture_selector_valid import said as words

    return tuple(words(problem) for problem in constraint.problems)


def required(value: Any) -> dict[str, Any]:
    return {"requiredDuringSchedulingIgnoredDuringExecution": value}


def test_required_affinity_without_terms_matches_nothing_and_says_where() -> None:
    constraint = architecture_constraint(None, required({}), "spec")
    assert constraint.allowed == frozenset()
    assert said(constraint) == (
        f"{REQUIRED} has no nodeSelectorTerms, so it matches no node and the Pods stay Pending; "
        "add a term or remove the required affinity",)


def test_an_unknown_required_affinity_is_an_upper_bound_not_a_problem() -> None:
    constraint = architecture_constraint(None, required(UNKNOWN), "spec")
    assert constraint.allowed == KUBERNETES_ARCHITECTURES
    assert said(constraint) == ()
    assert constraint.unknown is UNKNOWN


@pytest.mark.parametrize("field", ["matchExpressions", "matchFields"])
def test_an_unknown_term_part_makes_the_result_unknown(field: str) -> None:
    term = {field: UNKNOWN}
    constraint = architecture_constraint(None, required({"nodeSelectorTerms": [term]}), "spec")
    assert constraint.allowed == KUBERNETES_ARCHITECTURES
    assert said(constraint) == ()
    assert constraint.unknown is UNKNOWN
    assert constraint.pinned is None


def test_a_term_that_is_not_an_object_names_its_type_and_index() -> None:
    terms = [{"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]}, 7]
    constraint = architecture_constraint(None, required({"nodeSelectorTerms": terms}), "spec.template.spec")
    assert constraint.allowed == frozenset({"arm64"})
    assert said(constraint) == (
        "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        ".nodeSelectorTerms[1] must be an object, not a number",)


def test_required_affinity_that_is_not_an_object() -> None:
    constraint = architecture_constraint(None, required("arm64"), "spec")
    assert said(constraint) == (f"{REQUIRED} must be an object, not a string",)


def test_an_empty_term_list_matches_nothing() -> None:
    constraint = architecture_constraint(None, required({"nodeSelectorTerms": []}), "spec")
    assert constraint.allowed == frozenset()
    assert said(constraint) == (
        f"{REQUIRED}.nodeSelectorTerms is empty, so it matches no node and the Pods stay Pending; "
        "add a term or remove the required affinity",)


def test_node_selector_and_affinity_intersect() -> None:
    affinity = required({"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "NotIn", "values": ["arm64"]}]}]})
    constraint = architecture_constraint({"kubernetes.io/arch": "amd64"}, affinity, "spec")
    assert constraint.pinned == "amd64"
    assert said(constraint) == ()
