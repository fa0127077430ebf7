"""workload-architecture-selector-valid: a workload's own architecture constraints make sense.

A nodeSelector or required node affinity on ``kubernetes.io/arch`` that uses a name Kubernetes
does not know (``x86_64``, ``aarch64``: the node label says ``amd64``, ``arm64``), or that leaves
no architecture at all, keeps the Pods Pending forever. This checks the workload on its own,
before any pool is known (policies/model/architecture.py reads the constraints the scheduler's way).
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.architecture import (
    BadOperator,
    MatchesNoNode,
    NotAnArchitecture,
    NoValues,
    Problem,
    WrongType,
)
from .model.selectors import NODE_OPERATORS
from .model.workloads import Workload
from .platforms.architectures import KUBERNETES_ARCHITECTURES


def workload_architecture_selector_valid(workload: Workload) -> list[Finding]:
    """A workload's own architecture constraints name real architectures and leave at least one."""
    constraint = workload.constraint
    findings: list[Finding] = [Violation(f"{workload.subject}: {said(problem)}") for problem in constraint.problems]
    if not constraint.problems and not constraint.allowed:
        findings.append(Violation(
            f"{workload.subject}: its nodeSelector and required node affinity together allow no CPU architecture, "
            "so its Pods can never be scheduled; make them agree on one architecture"))
    if constraint.unknown is not None:
        findings.append(constraint.unknown)
    return findings


def said(problem: Problem) -> str:
    """What is wrong with a constraint, and the fix (policies/model/architecture.py finds it)."""
    if isinstance(problem, WrongType):
        return f"{problem.where} must be {'an' if problem.expected[0] in 'aeiou' else 'a'} {problem.expected}, " \
               f"not {problem.found}"
    if isinstance(problem, NotAnArchitecture):
        fix = (f"; Kubernetes calls it '{problem.hint}'" if problem.hint
               else f"; use one of {listed(sorted(KUBERNETES_ARCHITECTURES))}")
        return f"{problem.where} '{problem.value}' is not a Kubernetes architecture{fix}"
    if isinstance(problem, MatchesNoNode):
        what = f"{problem.where}.nodeSelectorTerms is empty" if problem.empty else \
            f"{problem.where} has no nodeSelectorTerms"
        return f"{what}, so it matches no node and the Pods stay Pending; add a term or remove the required affinity"
    if isinstance(problem, BadOperator):
        return f"{problem.where} must be one of {listed(NODE_OPERATORS)}"
    assert isinstance(problem, NoValues)  # architecture.py finds no other
    return f"{problem.where} uses {problem.operator} without values; list the architectures"


def _check(workload: Workload, context: Context) -> list[Finding]:
    return workload_architecture_selector_valid(workload)


POLICY = Policy(
    name="workload-architecture-selector-valid",
    subject="workload",
    description="A workload's own CPU architecture constraints (nodeSelector and required node affinity) use "
                "Kubernetes architecture names and leave at least one architecture.",
    severity=Severity.HIGH,
    remediation_steps="Use Kubernetes architecture names (amd64, arm64, ...; not x86_64 or aarch64) in "
                      "kubernetes.io/arch selectors, and make nodeSelector and required node affinity agree.",
    check=_check,
)
