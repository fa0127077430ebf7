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
