"""helm-release-unchecked: a Helm v3 Release, whose workloads no policy sees, is shown at its own (advisory) level."""

import pulumi
import pulumi_kubernetes as k8s
import pytest
from builders import cluster, names, run

POLICY = "helm-release-unchecked"


def helm_release(name="ingress", chart="gateway"):
    return lambda: k8s.helm.v3.Release(name, chart=chart, namespace="istio-ingress")


RELEASE_FINDING = (
    "Release 'ingress' installs chart 'gateway' through Helm inside the Kubernetes provider, so no policy sees "
    "its workloads: their pool placement and CPU architecture go unchecked; deploy the chart with "
    "kubernetes:helm.sh/v4:Chart (same chart and values) to have them checked")


def test_a_helm_v3_release_is_shown_without_failing_the_preview():
    result = run(cluster(), helm_release())
    (violation,) = result.violations
    assert (violation.policy, violation.level, violation.finding) == (POLICY, "advisory", RELEASE_FINDING)
    assert names([violation]) == ["ingress"] and violation.urn.split("::")[-2].endswith("helm.sh/v3:Release")
    assert result.mandatory == []


def test_an_organisation_that_wants_no_unchecked_workloads_makes_it_mandatory():
    (violation,) = run(cluster(), helm_release(), policy_config={POLICY: "mandatory"}).violations
    assert (violation.level, violation.finding) == ("mandatory", RELEASE_FINDING)
    assert run(helm_release(), policy_config={POLICY: "disabled"}).violations == []


def test_a_secret_chart_name_stays_out_and_each_release_is_named():
    hidden = run(helm_release(chart=pulumi.Output.secret("private-chart"))).violations
    assert [v.finding.split(" through")[0] for v in hidden] == ["Release 'ingress' installs its chart"]
    two = run(helm_release("a"), helm_release("b", chart="other")).violations
    assert [(v.policy, v.finding.split(" through")[0]) for v in two] == [
        (POLICY, "Release 'a' installs chart 'gateway'"), (POLICY, "Release 'b' installs chart 'other'")]


def test_the_old_helm_releases_setting_is_refused_with_where_it_went():
    from compute_guard.testkit.analyzer import Analyzer, ConfigError

    with pytest.raises(ConfigError, match="moved: set the enforcementLevel of the policy helm-release-unchecked"):
        Analyzer({"workload-pool-placement": {"helmReleases": "enforce"}})
