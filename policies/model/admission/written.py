"""What a Pod's spec writes of where it may run, read here once (parse_workload) and nowhere else in the model
(tests/test_layout.py holds it): its nodeSelector, its required node affinity and its runtimeClassName, which the
admission steps change (runtime_class.py merges a RuntimeClass's scheduling in; GKE's ComputeClass webhook gives a
namespace's default class) and the scheduler's rules match (scheduling.py); and the one write of them, a remediation
that pins a nodeSelector label.
"""

from __future__ import annotations

from typing import Any

from ..values import Unknown, child, is_mapping, plain


def node_placement(pod_spec: Any) -> tuple[Any, Any]:
    """Its nodeSelector and its affinity.nodeAffinity, as plain values (None when absent; the pod spec's Unknown, or
    its affinity's, when not known yet)."""
    if isinstance(pod_spec, Unknown):
        return pod_spec, pod_spec
    affinity = child(pod_spec, "affinity")
    return plain(child(pod_spec, "nodeSelector")), \
        affinity if isinstance(affinity, Unknown) else plain(child(affinity, "nodeAffinity"))


def runtime_class_name(pod_spec: Any) -> Any:
    """Its runtimeClassName, as written (None: none; an Unknown while not known yet)."""
    return child(pod_spec, "runtimeClassName") if not isinstance(pod_spec, Unknown) else None


def pin(pod_spec: Any, key: str, value: str) -> bool:
    """``key: value`` added to the nodeSelector of ``pod_spec`` (the SDK's secret-preserving view of a workload's
    inputs) in place; False (nothing changed) when it is not there to change."""
    if not _writable(pod_spec):
        return False
    selector = pod_spec.get("nodeSelector")
    if selector is None:
        pod_spec["nodeSelector"] = {key: value}
    elif _writable(selector):
        selector[key] = value
    else:
        return False
    return True


def _writable(value: Any) -> bool:
    """A mapping that takes assignments (the SDK's secret-preserving proxies are not MutableMappings)."""
    return is_mapping(value) and hasattr(value, "__setitem__")
