"""exemptions-in-force: every exemption that keeps a finding from failing the preview, and every unused one.

An exemption (any policy's ``exemptions`` config, policies/adapters/exemptions.py) lets one resource through one
policy until a date, for a reason. It must never hide the finding: this policy shows each exempted
finding on its resource, with the policy it belongs to, the reason and the expiry, at its own level
(advisory by default: exemptions never fail the preview; mandatory would refuse every exemption). An
exemption that exempted no finding of its policy in the run is shown too, so that it gets removed (SPEC
section 13: as linters report unused suppressions), unless its policy could not check everything. It runs after
every other policy (last in the pack's list), when their exempted findings are known.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, Severity

from .adapters.findings import Finding, Violation
from .adapters.state import Exempted, Unused
from .adapters.templates import Context, Policy
from .model.placement import Stack


def exemptions_in_force(exempted: list[Exempted], unused: list[Unused]) -> list[Finding]:
    findings: list[Finding] = []
    for item in exempted:
        exemption = item.exemption
        findings.append(Violation(
            f"{item.policy}: {item.message} [exempt until {exemption.expires.isoformat()}: {exemption.reason}]",
            item.urn))
    for entry in unused:
        exemption = entry.exemption
        what = "exempted no finding in this run" if entry.matches else "matches no resource of this stack"
        findings.append(Violation(
            f"{entry.policy}: the exemption for '{exemption.resource}' (until {exemption.expires.isoformat()}: "
            f"{exemption.reason}) {what}; remove it from the policy's exemptions"))
    return findings


def _check(stack: Stack, context: Context) -> list[Finding]:
    exempted, unused = context.state.exemptions_of_run((r.urn, r.name) for r in context.resources)
    return exemptions_in_force(exempted, unused)


POLICY = Policy(
    name="exemptions-in-force",
    subject="stack",
    level=EnforcementLevel.ADVISORY,
    description="Shows every finding an exemption keeps from failing the preview (its policy, the reason and the "
                "expiry) and every exemption that exempted no finding in the run (advisory: exemptions stay "
                "visible).",
    severity=Severity.LOW,
    remediation_steps="Fix the exempted resource before the exemption expires, then remove the exemption from the "
                      "policy's 'exemptions' config; remove exemptions that exempt nothing.",
    check=_check,
)
