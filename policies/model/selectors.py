"""The one matcher of Kubernetes' set-based requirements: a node selector's and a node affinity term's
expressions, a label selector's matchExpressions (a PodDisruptionBudget's, a pod anti-affinity term's), the
architecture constraints of a Pod, and a Karpenter NodePool's requirements all ask it.

From Kubernetes' API reference (NodeSelectorRequirement, LabelSelectorRequirement) and the code it describes
(k8s.io/apimachinery/pkg/labels Requirement.Matches; k8s.io/component-helpers/scheduling/corev1/nodeaffinity):

* In holds when the label is there with one of the values; NotIn when it is absent or has none of them;
* Exists and DoesNotExist on the label's presence;
* Gt and Lt (node selectors only) when the label is there, both it and the one value parse as integers, and
  the label is greater or less; Karpenter adds Gte and Lte (karpenter.sh/v1 NodePool requirements).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .values import Unknown, child, is_list, is_mapping, read

NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")  # a LabelSelector's: no Gt or Lt
KARPENTER_OPERATORS = (*NODE_OPERATORS, "Gte", "Lte")


def _integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def holds(operator: str, values: Sequence[str], value: str | None) -> bool:
    """One requirement against a label's value (None: the label is absent). An operator none of the APIs has holds
    nowhere (the API server refuses it)."""
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator not in ("Gt", "Lt", "Gte", "Lte"):
        return False
    bound = _integer(values[0]) if len(values) == 1 else None
    number = _integer(value) if value is not None else None
    if bound is None or number is None:
        return False
    if operator == "Gt":
        return number > bound
    if operator == "Lt":
        return number < bound
    return number >= bound if operator == "Gte" else number <= bound


def label_selector(selector: Any, labels: Any, empty: bool = True) -> bool | Unknown:
    """Whether a LabelSelector (a budget's, a spread's, a pod affinity term's) matches a Pod's labels, as
    k8s.io/apimachinery's LabelSelectorAsSelector and Selector.Matches decide: True, False, or the Unknown that
    decides it when a value is not known yet (each caller says what an Unknown means for it). A null selector matches
    nothing and an empty one everything (``empty``: what it selects where an API says otherwise, policy/v1beta1's
    budgets); a selector or a label the API server refuses matches nothing."""
    if isinstance(selector, Unknown):
        return selector
    if not is_mapping(selector):
        return False
    if len(selector) == 0:
        return empty
    unknown: Unknown | None = labels if isinstance(labels, Unknown) else None
    match_labels = child(selector, "matchLabels")
    if isinstance(match_labels, Unknown):
        unknown = unknown or match_labels
    elif is_mapping(match_labels):
        for key in match_labels:
            wanted = child(match_labels, key)
            have = child(labels, key) if is_mapping(labels) else None
            late = next((value for value in (wanted, have) if isinstance(value, Unknown)), None)
            if late is not None or isinstance(labels, Unknown):
                unknown = unknown or late or labels
            elif have != wanted:
                return False
    elif match_labels is not None:
        return False
    expressions = child(selector, "matchExpressions")
    if isinstance(expressions, Unknown):
        return expressions
    for index in range(len(expressions)) if is_list(expressions) else ():
        found = _label_requirement(read(expressions, index), labels)
        if found is False:
            return False
        if isinstance(found, Unknown):
            unknown = unknown or found
    return unknown if unknown is not None else True


def _label_requirement(expression: Any, labels: Any) -> bool | Unknown:
    if isinstance(expression, Unknown):
        return expression
    if not is_mapping(expression):
        return False
    key, operator, values = child(expression, "key"), child(expression, "operator"), child(expression, "values")
    for value in (key, operator, values):
        if isinstance(value, Unknown):
            return value
    if isinstance(labels, Unknown):
        return labels
    if not isinstance(key, str) or operator not in LABEL_OPERATORS:
        return False
    options = [read(values, index) for index in range(len(values))] if is_list(values) else []
    for option in options:
        if isinstance(option, Unknown):
            return option
    value = child(labels, key) if is_mapping(labels) else None
    if isinstance(value, Unknown):
        return value
    if value is not None and not isinstance(value, str):
        return False  # a label value that is not a string: the API server refuses the Pod
    return holds(operator, tuple(option for option in options if isinstance(option, str)), value)
