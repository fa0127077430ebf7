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

from typing import Any

from pulumi_policy import EnforcementLevel, Severity

from .adapters import props as lazy
from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.architecture import node_architecture
from .model.labels import ARCH
from .model.placement import DeclaredArchitectures, needed_architecture
from .model.stack import Stack
from .model.values import Unknown
from .model.workloads import Workload, pin_architecture
from .platforms.architectures import KUBERNETES_ARCHITECTURES, NODE_ARCHITECTURE
from .words import because

Known = tuple[Stack, DeclaredArchitectures]  # the ComputeClusters analyzed so far (PackState.seen_stack)


def needed_pin(workload: Workload, setting: Any, known: Known) -> tuple[str, str] | Unknown | None:
    """(node architecture, why) this workload's Pods must be pinned to; None when nothing says."""
    if not workload.has_pod_spec:
        return None
    stack, declared = known
    needed = needed_architecture(stack, declared, workload) if stack.clusters else None
    if needed is None and setting in NODE_ARCHITECTURE:
        return node_architecture(setting), f"this policy's 'architecture' setting is {setting}"
    if needed is None or isinstance(needed, Unknown):
        return needed
    return node_architecture(needed.architecture), because(needed)


def is_unconstrained(workload: Workload) -> bool:
    """No architecture constraint at all, and nothing about it left unknown."""
    constraint = workload.constraint
    return constraint.unknown is None and not constraint.problems and constraint.allowed == KUBERNETES_ARCHITECTURES


def workload_architecture_pin(workload: Workload, setting: Any, known: Known) -> list[Finding]:
    """What the remediation would add to this workload (reported below level remediate)."""
    needed = needed_pin(workload, setting, known)
    if isinstance(needed, Unknown):
        return [needed]
    if needed is None or not is_unconstrained(workload):
        return []
    node_architecture, why = needed
    return [Violation(f"{workload.subject}: its Pods need {node_architecture} nodes ({why}) and carry no "
                      f"architecture constraint; at level remediate this policy adds "
                      f"{workload.pod_spec_path}.nodeSelector['{ARCH}'] = '{node_architecture}'")]


def _check(workload: Workload, context: Context) -> list[Finding]:
    return workload_architecture_pin(workload, context.config.get("architecture"),
                                     context.state.seen_stack(context.platform))


def _remediate(workload: Workload, context: Context) -> Any:
    """The inputs with the pin added, or None for no change."""
    needed = needed_pin(workload, context.config.get("architecture"), context.state.seen_stack(context.platform))
    if not isinstance(needed, tuple) or not is_unconstrained(workload):
        return None
    props = lazy.remediation_props(context.props)  # deserialized only for a workload it changes
    return props if pin_architecture(props, workload.kind, needed[0]) else None


POLICY = Policy(
    name="workload-architecture-pin",
    subject="workload",
    description="Pins a workload's Pods to the CPU architecture its compute pool needs when they carry no "
                "architecture constraint (kubernetes.io/arch in the pod template's nodeSelector).",
    check=_check,
    remediate=_remediate,
    level=EnforcementLevel.DISABLED,
    severity=Severity.MEDIUM,
    settings={"architecture": {
        "type": "string", "enum": list(NODE_ARCHITECTURE),
        "description": "The architecture every stack builds for (arm64 or x86_64), for workloads whose "
                       "ComputeCluster is not known when they are analyzed; the pools' own declared "
                       "architecture comes first."}},
    remediation_steps="Set this policy to 'remediate' to let it add the pin, or add nodeSelector "
                      "kubernetes.io/arch to the workload's pod template yourself.",
    reads_platform=True,
)
