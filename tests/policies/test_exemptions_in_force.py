"""Exemptions that expire (SPEC section 13), through the engine's protocol: a resource policy, a stack policy
and a remediation honour them; the exempted finding stays visible in exemptions-in-force with its policy,
reason and expiry; on the day after the expiry it counts again and says so; globs cover several resources;
an exemption that matches nothing is reported; malformed entries are refused before anything is analyzed."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from builders import CLUSTER_TYPE

from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, ConfigError, stack_environment

TODAY = date(2026, 12, 1)
POLICY = "exemptions-in-force"
BROKEN = {"id": "compute", "capacityGroups": [
    {"groupId": "general", "minSize": 3, "maxSize": 2,
     "profile": {"cpu": "2", "memoryBytes": 4 << 30, "ephemeralStorageBytes": 0, "architecture": "x86_64"}}]}
SIZES = "ComputeCluster 'compute' pool 'general': minSize 3 is greater than maxSize 2; lower minSize or raise maxSize"


def exemption(resource: str = "compute", expires: date = TODAY + timedelta(days=30), reason: str = "OPS-42: "
              "resized in January") -> dict:
    return {"resource": resource, "reason": reason, "expires": expires.isoformat()}


def workload(name: str, cpu: str = "500m", pinned: bool = True) -> Resource:
    spec = {"containers": [{"name": name, "image": "i", "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]}
    if pinned:
        spec["nodeSelector"] = {"kubernetes.io/arch": "amd64"}
    return Resource.of("kubernetes:apps/v1:Deployment", name, {
        "metadata": {"name": name, "labels": {"compute.alien.dev/pool": "general"}},
        "spec": {"template": {"spec": spec}}})


def run(resources, config, today=TODAY, days=None):
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        return Analyzer(config, today=today, exemption_days=days).run(resources)


def verdicts(result):
    return sorted((v.policy, v.level, v.urn.rsplit("::", 1)[-1]) for v in result.violations)


def test_a_resource_policys_finding_is_exempted_and_shown_with_its_reason_and_expiry():
    config = {"compute-cluster-valid": {"exemptions": [exemption()]}}
    result = run([Resource.of(CLUSTER_TYPE, "compute", BROKEN)], config)
    assert verdicts(result) == [(POLICY, "advisory", "compute")]
    (shown,) = result.findings(POLICY)
    assert shown == f"compute-cluster-valid: {SIZES} [exempt until 2026-12-31: OPS-42: resized in January]"
    assert result.mandatory == []


def test_a_stack_policy_honours_an_exemption_on_the_resource_it_blames():
    cluster = dict(BROKEN, capacityGroups=[dict(BROKEN["capacityGroups"][0], minSize=1)])
    resources = [Resource.of(CLUSTER_TYPE, "compute", cluster), workload("encoder", cpu="3"), workload("api", cpu="3")]
    config = {"workload-fits-pool": {"exemptions": [exemption("urn:pulumi:stack::project::kubernetes:apps/v1:"
                                                              "Deployment::encoder")]}}
    result = run(resources, config)
    assert verdicts(result) == [(POLICY, "advisory", "encoder"), ("workload-fits-pool", "mandatory", "api")]
    assert result.findings(POLICY)[0].startswith("workload-fits-pool: Deployment 'encoder': one Pod requests 3 cores")


def test_a_glob_covers_several_resources_by_name_or_urn():
    cluster = dict(BROKEN, capacityGroups=[dict(BROKEN["capacityGroups"][0], minSize=1)])
    resources = [Resource.of(CLUSTER_TYPE, "compute", cluster), workload("app-a", pinned=False),
                 workload("app-b", pinned=False), workload("web", pinned=False)]
    by_name = run(resources, {"workload-node-architecture": {"exemptions": [exemption("app-*")]}})
    assert verdicts(by_name) == [(POLICY, "advisory", "app-a"), (POLICY, "advisory", "app-b"),
                                 ("workload-node-architecture", "mandatory", "web")]
    by_urn = run(resources, {"workload-node-architecture": {"exemptions": [exemption("*apps/v1:Deployment::*")]}})
    assert [v.policy for v in by_urn.violations] == [POLICY] * 3


@pytest.mark.parametrize("today, exempt", [(TODAY + timedelta(days=30), True), (TODAY + timedelta(days=31), False)])
def test_on_the_day_after_its_expiry_the_finding_counts_again_and_says_so(today, exempt):
    config = {"compute-cluster-valid": {"exemptions": [exemption(expires=TODAY + timedelta(days=30))]}}
    result = run([Resource.of(CLUSTER_TYPE, "compute", BROKEN)], config, today=today)
    if exempt:
        assert verdicts(result) == [(POLICY, "advisory", "compute")]
    else:
        assert verdicts(result) == [("compute-cluster-valid", "mandatory", "compute")]
        assert result.findings("compute-cluster-valid") == [
            f"{SIZES} [the exemption for 'compute' expired on 2026-12-31: OPS-42: resized in January]"]


def test_an_exempted_workload_is_not_remediated():
    cluster = dict(BROKEN, capacityGroups=[dict(BROKEN["capacityGroups"][0], minSize=1)])
    resources = [Resource.of(CLUSTER_TYPE, "compute", cluster), workload("api", pinned=False),
                 workload("web", pinned=False)]
    config = {"workload-architecture-pin": {"enforcementLevel": "remediate", "exemptions": [exemption("api")]}}
    result = run(resources, config)
    assert [r.urn.rsplit("::", 1)[-1] for r in result.remediations] == ["web"]
    # not pinned, it is still reported where pinning is checked
    assert ("workload-node-architecture", "mandatory", "api") in verdicts(result)


def test_an_exemption_that_matches_nothing_is_reported_once_as_unused():
    config = {"compute-cluster-valid": {"exemptions": [exemption(), exemption("legacy-*", reason="OPS-7")]},
              "pool-capacity": {"exemptions": [exemption("urn:pulumi:stack::project::compute:index:ComputeCluster::old")]}}
    result = run([Resource.of(CLUSTER_TYPE, "compute", BROKEN)], config)
    unused = sorted(v.finding for v in result.of(POLICY) if not v.urn)
    assert unused == [
        "compute-cluster-valid: the exemption for 'legacy-*' (until 2026-12-31: OPS-7) matches no resource of this "
        "stack; remove it from the policy's exemptions",
        "pool-capacity: the exemption for 'urn:pulumi:stack::project::compute:index:ComputeCluster::old' (until "
        "2026-12-31: OPS-42: resized in January) matches no resource of this stack; remove it from the policy's "
        "exemptions"]


def test_an_exemption_that_exempted_no_finding_is_unused_even_when_its_resource_exists():
    """SPEC section 13: unused means it exempted no finding in the run. An exemption of workload-pool-placement
    for a workload that policy does not report (it is placed) stayed forever; and with no finding exempted at
    all in the run, none was reported (the PackState's shortcut)."""
    cluster = dict(BROKEN, capacityGroups=[dict(BROKEN["capacityGroups"][0], minSize=1)])
    resources = [Resource.of(CLUSTER_TYPE, "compute", cluster), workload("api")]
    config = {"workload-pool-placement": {"exemptions": [exemption("api", reason="OPS-9")]}}
    result = run(resources, config)
    assert verdicts(result) == [(POLICY, "advisory", "")]  # nothing exempted, the exemption shown as unused
    assert result.findings(POLICY) == [
        "workload-pool-placement: the exemption for 'api' (until 2026-12-31: OPS-9) exempted no finding in this run; "
        "remove it from the policy's exemptions"]
    # once the workload breaks the policy, the exemption covers the finding and is in use
    broken = Resource.of("kubernetes:apps/v1:Deployment", "api", {
        "metadata": {"name": "api", "labels": {"compute.alien.dev/pool": "nowhere"}},
        "spec": {"template": {"spec": {"containers": [{"name": "api", "image": "i"}],
                                       "nodeSelector": {"kubernetes.io/arch": "amd64"}}}}})
    used = run([Resource.of(CLUSTER_TYPE, "compute", cluster), broken], config)
    assert verdicts(used) == [(POLICY, "advisory", "api")]
    assert used.findings(POLICY)[0].startswith("workload-pool-placement: Deployment 'api': references missing")


def test_an_exemption_of_a_policy_that_could_not_check_everything_is_not_called_unused():
    """A value not known during preview: the finding it would exempt may be the one the policy could not see."""
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

    cluster = dict(BROKEN, capacityGroups=[dict(BROKEN["capacityGroups"][0], minSize=1)])
    later = Resource.of("kubernetes:apps/v1:Deployment", "api", {
        "metadata": {"name": "api", "labels": {"compute.alien.dev/pool": UNKNOWN_STRING_VALUE}},
        "spec": {"template": {"spec": {"containers": [{"name": "api", "image": "i"}]}}}})
    result = run([Resource.of(CLUSTER_TYPE, "compute", cluster), later],
                 {"workload-pool-placement": {"exemptions": [exemption("api")]}})
    assert result.of(POLICY) == []
    assert "workload-pool-placement" in {note.policy for note in result.notes}


@pytest.mark.parametrize("entry, refused", [
    ({"resource": "compute", "expires": "2026-12-31"}, "'reason' is a required property"),
    ({"resource": "compute", "reason": " ", "expires": "2026-12-31"}, "does not match"),
    ({"resource": "", "reason": "r", "expires": "2026-12-31"}, "should be non-empty"),
    ({"resource": "compute", "reason": "r", "expires": "2026-12-32"}, "does not match"),
    ({"resource": "compute", "reason": "r", "expires": "31/12/2026"}, "does not match"),
    ({"resource": "compute", "reason": "r", "expires": "2027-12-02"},  # 366 days ahead: the pack names the limit
     "expires on 2027-12-02, later than the latest allowed date 2027-12-01"),
    ({"resource": "compute", "reason": "r", "expires": "2027-02-29"}, "does not match"),  # not a leap year
    ({"resource": "compute", "reason": "r", "expires": "2027-12-00"}, "does not match"),
    ({"resource": "compute", "reason": "r", "expires": "2026-12-31", "owner": "x"}, "Additional properties"),
])
def test_malformed_exemptions_are_refused_before_anything_is_analyzed(entry, refused):
    with pytest.raises(ConfigError, match=refused):
        Analyzer({"compute-cluster-valid": {"exemptions": [entry]}}, today=TODAY)


def test_a_year_ahead_is_the_limit_unless_the_organisation_raises_it():
    config = {"compute-cluster-valid": {"exemptions": [exemption(expires=TODAY + timedelta(days=365))]}}
    Analyzer(config, today=TODAY)  # accepted: the limit itself
    far = {"compute-cluster-valid": {"exemptions": [exemption(expires=TODAY + timedelta(days=700))]}}
    # refused before anything is analyzed, naming the latest allowed date (the CLI's own refusal printed a
    # 900-character regular expression): the pack's Configure says it, the CLI prints it as it is
    with pytest.raises(ConfigError, match=r"compute-cluster-valid: exemption for 'compute' expires on 2028-10-31, "
                                          r"later than the latest allowed date 2027-12-01 \(365 days from 2026-12-01\)"):
        Analyzer(far, today=TODAY)
    result = run([Resource.of(CLUSTER_TYPE, "compute", BROKEN)], far, days=730)
    assert verdicts(result) == [(POLICY, "advisory", "compute")]


def test_an_exemption_past_the_limit_that_slips_through_exempts_nothing_and_says_so(monkeypatch):
    """Without the Configure check (an SDK the pack does not patch), the finding still counts, and says why."""
    from pulumi_policy import policy as sdk_policy

    from compute_guard.policies.adapters import sdk

    monkeypatch.setattr(sdk, "check_config", lambda: None)
    monkeypatch.setattr(sdk_policy._PolicyAnalyzerServicer, "Configure", sdk._SDK_CONFIGURE)
    far = {"compute-cluster-valid": {"exemptions": [exemption(expires=TODAY + timedelta(days=700))]}}
    result = run([Resource.of(CLUSTER_TYPE, "compute", BROKEN)], far)
    assert verdicts(result) == [("compute-cluster-valid", "mandatory", "compute")]
    assert result.findings("compute-cluster-valid") == [
        f"{SIZES} [the exemption for 'compute' expires on 2028-10-31, later than the latest allowed date 2027-12-01: "
        "it exempts nothing]"]


def test_exemptions_in_force_can_be_made_mandatory_to_refuse_every_exemption():
    config = {"compute-cluster-valid": {"exemptions": [exemption()]}, POLICY: "mandatory"}
    assert verdicts(run([Resource.of(CLUSTER_TYPE, "compute", BROKEN)], config)) == [(POLICY, "mandatory", "compute")]


LIMITS = (date(2027, 12, 1), date(2027, 1, 1), date(2027, 1, 31), date(2028, 2, 29), date(2028, 2, 28),
          date(2027, 3, 1), date(2028, 3, 1), date(2030, 10, 9), date(2099, 12, 31), date(2100, 3, 1),
          date(2027, 9, 30))
# Every string of the shape YYYY-MM-DD in the window (every month and day 00-99), and years at the calendar's
# boundaries: centuries that are leap years and those that are not, the first year the pattern allows.
WINDOW_YEARS = (*range(2020, 2034), 999, 1000, 1600, 1700, 1900, 2000, 2100, 2400)


def _every_string(years):
    return [f"{year:04d}-{month:02d}-{day:02d}" for year in years for month in range(100) for day in range(100)]


def _real_date_up_to(text, latest):
    """The oracle: Python's calendar, and a year from 1000 on (four digits, no leading zero)."""
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return False
    return day.year >= 1000 and day <= latest


def test_the_expiry_pattern_accepts_exactly_the_real_dates_up_to_the_limit():
    """The engine's validation can only match a pattern (RE2: no lookarounds); every string of the date's shape
    in the window, against Python's calendar: no day 00 ('2027-12-00' was accepted), no 29 February outside
    a leap year ('2027-02-29' was), and nothing past the limit, for limits on every kind of boundary."""
    import re

    from compute_guard.policies.adapters.exemptions import date_pattern

    strings = _every_string(WINDOW_YEARS)
    for latest in LIMITS:
        pattern = date_pattern(latest)
        assert "(?=" not in pattern and "(?!" not in pattern and "(?<" not in pattern
        matches = re.compile(pattern).match
        wrong = [text for text in strings if bool(matches(text)) != _real_date_up_to(text, latest)]
        assert wrong == [], (latest, wrong[:5])
        for text in ("27-01-01", "2027-1-01", "x", "", "2027-01-01 ", " 2027-01-01", "２０２７-01-01"):
            assert not matches(text), (latest, text)


def test_gos_regexp_reads_the_pattern_as_python_does(tmp_path):
    """The CLI validates with Go's regexp (RE2): the same verdict on every string of the window."""
    import os
    import re
    import shutil
    import subprocess

    from compute_guard.policies.adapters.exemptions import date_pattern

    if shutil.which("go") is None:
        if os.environ.get("CI"):
            pytest.fail("Go is needed in CI to check the exemption pattern with Go's regexp")
        pytest.skip("Go is not installed")
    (tmp_path / "main.go").write_text(
        'package main\nimport ("bufio"; "fmt"; "os"; "regexp")\n'
        "func main() { in := bufio.NewScanner(os.Stdin); in.Scan(); re := regexp.MustCompile(in.Text())\n"
        " out := bufio.NewWriter(os.Stdout); defer out.Flush()\n"
        " for in.Scan() { if re.MatchString(in.Text()) { fmt.Fprintln(out, in.Text()) } } }\n")
    strings = _every_string(range(2024, 2031))
    for latest in (date(2027, 12, 1), date(2028, 2, 29)):
        pattern = date_pattern(latest)
        done = subprocess.run(["go", "run", str(tmp_path / "main.go")], input="\n".join([pattern, *strings]) + "\n",
                              capture_output=True, text=True, timeout=300, cwd=tmp_path,
                              env={**os.environ, "GOFLAGS": "-mod=mod", "GO111MODULE": "off"})
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [text for text in strings if re.match(pattern, text)]


def test_the_cli_checks_the_calendar_too():
    """Beside the pattern, format 'date': the CLI's gojsonschema parses it with Go's time.Parse."""
    from compute_guard.policies.adapters.exemptions import schema

    assert schema(date(2026, 12, 1), 365)["items"]["properties"]["expires"]["format"] == "date"


@pytest.mark.parametrize("config", [
    None, [], "exemptions", {"exemptions": None}, {"exemptions": "compute"}, {"exemptions": [None, 7, "x", []]},
    {"exemptions": [{"resource": "compute", "reason": "r", "expires": "2026-02-30"}]},
    {"exemptions": [{"resource": "", "reason": "r", "expires": "2026-12-31"}]},
    {"exemptions": [{"resource": "compute", "reason": 7, "expires": "2026-12-31"}]},
    {"exemptions": [{"resource": ["compute"], "reason": "r", "expires": "2026-12-31"}]},
])
def test_config_the_engine_would_refuse_exempts_nothing_and_never_raises(config):
    """Past the schema (an SDK or engine that does not validate), a malformed entry is left out: the finding
    counts, it is never hidden by an exemption the pack could not read."""
    from compute_guard.policies.adapters.exemptions import parse

    assert parse(config) == ()


def test_a_urn_matches_exactly_and_a_glob_the_name_or_the_urn():
    from compute_guard.policies.adapters.exemptions import Exemption

    urn = "urn:pulumi:prod::shop::kubernetes:apps/v1:Deployment::api"
    for resource, covers in [(urn, True), (urn + "x", False), ("urn:pulumi:prod::shop::*", True),
                             ("urn:pulumi:prod::other::*", False),
                             ("api", True), ("a?i", True), ("[ab]pi", True), ("ap", False), ("*Deployment::api", True),
                             ("*::shop::*", True), ("API", False)]:
        assert Exemption(resource, "r", TODAY).covers(urn, "api") is covers, resource


def test_of_two_exemptions_for_one_resource_the_one_in_force_wins():
    """Renewing an exemption by adding a later one beside the expired one must keep the resource exempt."""
    config = {"compute-cluster-valid": {"exemptions": [exemption(expires=TODAY - timedelta(days=1), reason="old"),
                                                       exemption(reason="renewed")]}}
    result = run([Resource.of(CLUSTER_TYPE, "compute", BROKEN)], config)
    # the renewed one covers the finding; the expired one beside it exempted nothing, so it is told to go
    assert verdicts(result) == [(POLICY, "advisory", ""), (POLICY, "advisory", "compute")]
    exempt, unused = sorted(result.findings(POLICY), key=lambda text: "exempted no finding" in text)
    assert exempt.endswith("[exempt until 2026-12-31: renewed]")
    assert unused == ("compute-cluster-valid: the exemption for 'compute' (until 2026-11-30: old) exempted no finding "
                      "in this run; remove it from the policy's exemptions")
