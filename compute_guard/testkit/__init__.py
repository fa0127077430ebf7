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
"""

from .analyzer import Analyzer, NotApplicable, PolicyResult, PolicyViolation, Remediation, Resource
from .program import capture_program, evaluate

__all__ = ["Analyzer", "NotApplicable", "PolicyResult", "PolicyViolation", "Remediation", "Resource",
           "capture_program", "evaluate"]
