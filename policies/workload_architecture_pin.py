"""workload-architecture-pin: pin a workload's Pods to the CPU architecture its pool needs.

The one policy that changes resources, so it is disabled until an organisation turns it on. At
level ``remediate`` it adds ``kubernetes.io/arch: <arch>`` to the pod template's nodeSelector of a
workload whose Pods need one architecture (as workload-node-architecture resolves it, from the
ComputeClusters analyzed earlier in the run, else this policy's ``architecture`` setting) and that
carries no architecture constraint at all. At ``advisory`` or ``mandatory`` it reports what it
would add. It never rewrites an existing constraint (a wrong one stays a finding of
workload-architecture-selector-valid and workload-node-architecture), never touches a workload
whose constraint is not known yet, and changes nothing else: the remediation is deterministic,
idempotent and minimal.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
)

from . import wire
from .architecture import KUBERNETES_ARCHITECTURES, NODE_ARCHITECTURE, architecture_constraint
from .findings import STRICT, Finding, Report, Violation, never_raises, report
from .placement import needed_architecture, seen_stack
from .values import Unknown
from .workloads import POD_SPEC_PATHS, Workload, parse_workload

NAME = "workload-architecture-pin"
ARCH_KEY = "kubernetes.io/arch"
_log = logging.getLogger("compute-guard")


def needed_pin(workload: Workload, setting: Any) -> tuple[str, str] | Unknown | None:
    """(node architecture, why) this workload's Pods must be pinned to; None when nothing says."""
    if not workload.has_pod_spec:
        return None
    stack, declared = seen_stack()
    needed = needed_architecture(stack, declared, workload) if stack.clusters else None
    if needed is None and setting in NODE_ARCHITECTURE:
        needed = setting, f"this policy's 'architecture' setting is {setting}"
    if needed is None or isinstance(needed, Unknown):
        return needed
    architecture, why = needed
    return NODE_ARCHITECTURE[architecture], why


def is_unconstrained(workload: Workload) -> bool:
    """No architecture constraint at all, and nothing about it left unknown."""
    constraint = architecture_constraint(workload.node_selector, workload.node_affinity, workload.pod_spec_path)
    return constraint.unknown is None and not constraint.problems and constraint.allowed == KUBERNETES_ARCHITECTURES


def workload_architecture_pin(workload: Workload, setting: Any) -> list[Finding]:
    """What the remediation would add to this workload (reported below level remediate)."""
    needed = needed_pin(workload, setting)
    if isinstance(needed, Unknown):
        return [needed]
    if needed is None or not is_unconstrained(workload):
        return []
    node_architecture, why = needed
    return [Violation(f"{workload.subject}: its Pods need {node_architecture} nodes ({why}) and carry no "
                      f"architecture constraint; at level remediate this policy adds "
                      f"{workload.pod_spec_path}.nodeSelector['{ARCH_KEY}'] = '{node_architecture}'")]


def pin(props: Any, kind: str, node_architecture: str) -> bool:
    """Add the pin to ``props`` (the SDK's secret-preserving view of the inputs) in place.

    Only the pod spec's nodeSelector changes; unknown values and secrets elsewhere stay as they
    are. False (nothing changed) when the pod spec is not there to change."""
    pod_spec = props
    for field in POD_SPEC_PATHS[kind]:
        pod_spec = pod_spec.get(field) if isinstance(pod_spec, Mapping) else None
    if not _writable(pod_spec):
        return False
    selector = pod_spec.get("nodeSelector")
    if selector is None:
        pod_spec["nodeSelector"] = {ARCH_KEY: node_architecture}
    elif _writable(selector):
        selector[ARCH_KEY] = node_architecture
    else:
        return False
    return True


def _writable(value: Any) -> bool:
    """A mapping that takes assignments (the SDK's secret-preserving proxies are not MutableMappings)."""
    return isinstance(value, Mapping) and hasattr(value, "__setitem__")


@never_raises
def _validate(args: ResourceValidationArgs, report_violation: Report) -> None:
    workload = parse_workload(args.resource_type, args.props, args.urn, args.name)
    if workload is not None:
        report(workload_architecture_pin(workload, args.get_config().get("architecture")), report_violation)


def _remediate(args: ResourceValidationArgs) -> Any:
    """The inputs with the pin added, or None for no change. Never raises: on an internal error it
    changes nothing, and the validation that follows reports the unpinned workload."""
    try:
        workload = parse_workload(args.resource_type, wire.remediation_view(args.props), args.urn, args.name)
        if workload is None:
            return None
        needed = needed_pin(workload, args.get_config().get("architecture"))
        if not isinstance(needed, tuple) or not is_unconstrained(workload):
            return None
        props = wire.remediation_props(args.props)  # deserialized only for a workload it changes
        return props if pin(props, workload.kind, needed[0]) else None
    except Exception:  # noqa: BLE001 - a remediation must never fail the preview
        _log.exception("compute-guard: internal error in %s", NAME)
        if os.environ.get(STRICT) == "1":
            raise
        return None


workload_architecture_pin_policy = ResourceValidationPolicy(
    name=NAME,
    description="Pins a workload's Pods to the CPU architecture its compute pool needs when they carry no "
                "architecture constraint (kubernetes.io/arch in the pod template's nodeSelector).",
    validate=_validate,
    remediate=_remediate,
    enforcement_level=EnforcementLevel.DISABLED,
    severity=Severity.MEDIUM,
    config_schema=PolicyConfigSchema(properties={"architecture": {
        "type": "string", "enum": list(NODE_ARCHITECTURE),
        "description": "The architecture every stack builds for (arm64 or x86_64), for workloads whose "
                       "ComputeCluster is not known when they are analyzed; the pools' own declared "
                       "architecture comes first."}}),
    remediation_steps="Set this policy to 'remediate' to let it add the pin, or add nodeSelector "
                      "kubernetes.io/arch to the workload's pod template yourself.",
)
