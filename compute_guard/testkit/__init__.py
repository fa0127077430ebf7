"""Test your Pulumi Python program against compute-guard without a cloud or a Pulumi CLI.

    from compute_guard.testkit import evaluate

    def program():
        ...  # declare ComputeClusters and Kubernetes workloads, as in your __main__.py

    def test_no_violations():
        result = evaluate(program, stack_config={"compute:platform": "kubernetes"})
        assert not result.violations, result.violations

:func:`evaluate` runs the program under ``pulumi.runtime.set_mocks``, captures exactly what the
Pulumi SDKs send to the engine (type tokens, camelCase inputs, unknowns during preview,
secrets), and then drives the policy pack's analyzer the way the engine does: ``Analyze`` with
each resource's inputs, then one ``AnalyzeStack`` with every resource's outputs.

It never passes silently: a program directory's Pulumi.yaml and Pulumi.<stack>.yaml give the
project and stack config, a ConfigGroup's or ConfigFile's manifests are expanded into their
workloads, and a Helm chart or kustomization (which only the provider renders) makes
:func:`evaluate` raise :class:`NotChecked` unless the test gives its rendered manifests
(``rendered={"chart": "rendered/1-manifest"}``) or accepts it (``unchecked=["chart"]``).
"""

from . import components
from .analyzer import (
    Analyzer,
    NotApplicable,
    PolicyResult,
    PolicyViolation,
    Remediation,
    Resource,
    SeenPool,
    Unchecked,
)
from .manifests import manifest_resources
from .program import (
    Captured,
    NotChecked,
    ProgramError,
    ProgramTimeout,
    TestKitError,
    capture,
    capture_program,
    evaluate,
    export_program,
    previous_deployment,
)

__all__ = ["Analyzer", "Captured", "NotApplicable", "NotChecked", "PolicyResult", "PolicyViolation", "ProgramError",
           "ProgramTimeout", "Remediation", "Resource", "SeenPool", "TestKitError", "Unchecked", "capture",
           "capture_program", "components", "evaluate", "export_program", "manifest_resources",
           "previous_deployment"]
