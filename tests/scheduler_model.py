"""A brute-force model of how the scheduler matches a pod spec's architecture constraints to nodes: the
judge of the architecture oracles (tests/robustness/test_architecture_oracle.py, the corpus tests). It is
written from Kubernetes' documentation of nodeSelector and node affinity, not from the pack.

For each Kubernetes architecture, a node labelled with it under both architecture labels. A Pod may land on
it when every architecture label of its nodeSelector equals the node's and, when it has required node
affinity, one of the nodeSelectorTerms matches: a term matches when it has expressions and each expression
on an architecture label holds for the node's value (In, NotIn, Exists, DoesNotExist; Gt and Lt need a
number); expressions on other labels can be met by some node.
"""

from __future__ import annotations

from typing import Any

ARCHITECTURES = ("amd64", "arm64", "arm", "386", "ppc64le", "s390x", "riscv64", "mips64le", "mips64", "mipsle",
                 "mips", "loong64")
ARCH_LABELS = ("kubernetes.io/arch", "beta.kubernetes.io/arch")
OTHER_LABELS = ("kubernetes.io/os", "topology.kubernetes.io/zone")
WRONG = ("x86_64", "aarch64")  # names no node carries: the classic mistakes
NOWHERE = "no-such-arch"


def places(spec: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(container, key) of every architecture value in the spec, where a preview unknown may stand."""
    found = [(spec["nodeSelector"], label) for label in ARCH_LABELS if label in spec.get("nodeSelector", {})]
    affinity = spec.get("affinity", {}).get("nodeAffinity", {})
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(affinity, dict) else None
    for term in (required or {}).get("nodeSelectorTerms", []):
        for expression in term["matchExpressions"]:
            if expression["key"] in ARCH_LABELS and expression["operator"] in ("In", "NotIn"):
                found += [(expression["values"], index) for index in range(len(expression["values"]))]
    return found


def holds(expression: dict[str, Any], node: str) -> bool:
    if expression["key"] not in ARCH_LABELS:
        return True  # some node carries whatever else it asks for
    operator = expression["operator"]
    if operator == "In":
        return node in expression["values"]
    if operator == "NotIn":
        return node not in expression["values"]
    return operator == "Exists"  # DoesNotExist: every node has the label; Gt/Lt: the label is not a number


def schedulable(spec: dict[str, Any], node: str) -> bool:
    selector = spec.get("nodeSelector") or {}
    if any(selector[label] != node for label in ARCH_LABELS if label in selector):
        return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return True
    return any(term["matchExpressions"] and all(holds(e, node) for e in term["matchExpressions"])
               for term in required["nodeSelectorTerms"])


def allowed(spec: dict[str, Any]) -> set[str]:
    return {node for node in ARCHITECTURES if schedulable(spec, node)}


def wrong_names(spec: dict[str, Any]) -> bool:
    """A known architecture value that is no Kubernetes architecture, or required affinity without terms."""
    if any(container[key] in WRONG for container, key in places(spec)):
        return True
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {})
    if not isinstance(required, dict):
        return False
    terms = (required.get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms")
    return terms == []


