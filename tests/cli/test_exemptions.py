"""Exemptions under the real CLI: the example's `broken` stack passes with an exemption for each of its five
findings, which stay visible as exemptions-in-force; with one expired, the preview fails again on that one,
saying so; a malformed exemption is refused by the CLI's validation before anything is previewed."""

from __future__ import annotations

from pulumi_cli import ROOT, open_stack, policy_findings

EXAMPLE = ROOT / "examples" / "kubernetes"
FINDINGS = {  # the broken stack's findings: policy -> the resource it is reported on
    "workload-architecture-selector-valid": "legacy", "workload-pool-placement": "legacy",
    "workload-node-architecture": "legacy", "workload-fits-pool": "encoder", "pool-capacity": "compute"}


def config(expires: dict[str, str]) -> dict:
    return {policy: {"exemptions": [{"resource": resource, "reason": f"OPS-{i}", "expires": expires.get(policy,
                                                                                                       "2027-03-31")}]}
            for i, (policy, resource) in enumerate(FINDINGS.items())}


def test_the_broken_stack_passes_with_its_exemptions_shown_and_fails_again_when_one_expires(toolchain, tmp_path):
    stack = open_stack(toolchain, EXAMPLE, tmp_path, "broken", env={"COMPUTE_GUARD_TODAY": "2026-12-01"})
    out = stack.ok(*stack.preview("--policy-pack-config", stack.policy_config(config({}))))
    shown = policy_findings(out)
    assert sorted((f.level, f.policy, f.name) for f in shown) == sorted(
        ("advisory", "exemptions-in-force", resource) for resource in FINDINGS.values())
    assert all("[exempt until 2027-03-31: OPS-" in f.message for f in shown)
    assert {f.message.split(":", 1)[0] for f in shown} == set(FINDINGS)  # each says whose finding it is

    expiring = config({"workload-fits-pool": "2026-11-30"})  # expired yesterday
    out = stack.fails(*stack.preview("--policy-pack-config", stack.policy_config(expiring)))
    (failed,) = [f for f in policy_findings(out) if f.level == "mandatory"]
    assert (failed.policy, failed.name) == ("workload-fits-pool", "encoder")
    assert failed.message.endswith("[the exemption for 'encoder' expired on 2026-11-30: OPS-3]")


def test_a_malformed_exemption_is_refused_before_the_preview(toolchain, tmp_path):
    stack = open_stack(toolchain, EXAMPLE, tmp_path, "dev", env={"COMPUTE_GUARD_TODAY": "2026-12-01"})
    far = {"workload-fits-pool": {"exemptions": [{"resource": "api", "reason": "r", "expires": "2028-01-01"}]}}
    out = stack.fails(*stack.preview("--policy-pack-config", stack.policy_config(far)))
    # the CLI's schema validation admits every real date; the pack refuses in Configure, naming the limit
    assert "error: configuring policy pack" in out and "Policies:" not in out
    assert ("workload-fits-pool: exemption for 'api' expires on 2028-01-01, later than the latest allowed date "
            "2027-12-01 (365 days from 2026-12-01)") in out
    assert "(?:" not in out  # no regular expression


def test_dates_that_are_not_dates_are_refused_before_the_preview(toolchain, tmp_path):
    """Issue 29: 2027-02-29 and 2027-12-00 passed the schema, and the exemption was then dropped without a word.
    The CLI refuses both, saying the date is not a date (format 'date'); a real one passes."""
    stack = open_stack(toolchain, EXAMPLE, tmp_path, "dev", env={"COMPUTE_GUARD_TODAY": "2026-12-01"})
    for bad in ("2027-02-29", "2027-12-00"):
        config = {"workload-fits-pool": {"exemptions": [{"resource": "api", "reason": "r", "expires": bad}]}}
        out = stack.fails(*stack.preview("--policy-pack-config", stack.policy_config(config)))
        assert "error: validating policy config" in out and "Policies:" not in out, bad
        assert "exemptions.0.expires: Does not match format 'date'" in out, out
    good = {"workload-fits-pool": {"exemptions": [{"resource": "api", "reason": "r", "expires": "2027-02-28"}]}}
    stack.ok(*stack.preview("--policy-pack-config", stack.policy_config(good)))
