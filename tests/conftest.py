"""Tests import the pack, the component and the test kit as compute_guard (the checkout is installed in
the venv, editable), and their helpers (builders, scheduler_model) from tests/ (pyproject's pythonpath).

An internal error in a policy is raised, not turned into the fail-closed violation (in the pack
processes the tests start too, which inherit the environment): a swallowed crash can never pass
as a clean result. tests/robustness/test_fail_closed.py turns it off to test the guard itself.
"""

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import Phase, settings

ROOT = Path(__file__).resolve().parent.parent

os.environ["COMPUTE_GUARD_STRICT"] = "1"
# The suite's calendar: what depends on today's date (exemptions' expiries, cluster-support-window) is judged on one
# fixed day, the one the policy reference is generated on (scripts/policy_reference.py REFERENCE_TODAY), so no verdict
# drifts with the clock; the pack processes tests start inherit it, and a test of a date-dependent rule sets its own.
os.environ["COMPUTE_GUARD_TODAY"] = "2026-12-01"


# scripts/mutation: a property that fails under a mutant fails at once, instead of spending its time
# budget shrinking the example (which turned mutants that were caught into timeouts).
settings.register_profile("mutation", phases=[Phase.explicit, Phase.reuse, Phase.generate])
# scripts/digest: the same examples on every run, so that two runs' verdicts can be compared
settings.register_profile("digest", derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session", autouse=True)
def sdk_shim() -> None:
    """The pack's SDK patch, as the pack process installs it; on an SDK version it does not know, every
    test errors instead of testing the SDK's slower path by accident (policies/adapters/sdk.py)."""
    from compute_guard.policies.adapters import sdk

    sdk.install(strict=True)


@pytest.fixture(scope="session")
def toolchain(tmp_path_factory: pytest.TempPathFactory):
    """The real Pulumi CLI, its language hosts and the Kubernetes provider (scripts/build-pulumi-cli, which
    scripts/test runs before pytest), for tests/cli and the installed distribution's component provider. These
    tests run wherever Go is installed, and always in CI: there a missing Go fails them instead of skipping them;
    a toolchain that is not built fails them at once, naming the command that builds it."""
    from pulumi_cli import NotBuilt, build_toolchain

    if shutil.which("go") is None:
        if os.environ.get("CI"):
            pytest.fail("Go is needed to build the Pulumi CLI (scripts/build-pulumi-cli), and CI runs these tests")
        pytest.skip("building the Pulumi CLI needs Go")
    try:
        return build_toolchain(tmp_path_factory.mktemp("pulumi-home"))
    except NotBuilt as missing:
        pytest.fail(str(missing), pytrace=False)
