"""cloud-machine-new-family: a machine of a family newer than the catalog is shown, at its own (advisory) level."""

import pytest
from builders import CLUSTER_TYPE, analyze, cluster_findings

POLICY = "cloud-machine-new-family"


def props(**pool):
    group = {"groupId": "general", "minSize": 1, "maxSize": 3, **pool}
    return {"id": "compute", "capacityGroups": [group]}


def test_a_new_family_says_what_was_not_checked_and_how_to_refresh():
    (finding,) = cluster_findings(props(instanceType="m9i.large"), POLICY, platform="aws")
    assert finding == (
        "ComputeCluster 'compute' pool 'general': instanceType 'm9i.large' is not in the machine catalog (refreshed "
        "2026-11-30) but follows AWS's naming, as a machine of the new family 'm9i' launched since: its architecture, "
        "GPU and nested virtualization were not checked; make sure they match the pool, and refresh the catalog "
        "(scripts/generate_catalog.py)")


@pytest.mark.parametrize("name, platform", [
    ("m7g.xlarge", "aws"),  # in the catalog
    ("m7g.xlarg", "aws"),  # a typo: cloud-machine-catalog's, with its did-you-mean
    ("m7g.3xlarge", "aws"),  # a size its known family does not have
    ("n2-standard-4", "aws"),  # another platform's naming
    ("Standard_D2s_v5", "azure"),
])
def test_catalogued_machines_and_mistakes_are_not_new_families(name, platform):
    assert cluster_findings(props(instanceType=name), POLICY, platform=platform) == []


def test_it_is_advisory_by_default_and_an_organisation_can_make_it_mandatory():
    result = analyze(CLUSTER_TYPE, props(instanceType="m9i.large"), platform="aws")
    assert [v.level for v in result.of(POLICY)] == ["advisory"] and result.mandatory == []
    strict = analyze(CLUSTER_TYPE, props(instanceType="m9i.large"), platform="aws", policy_config={POLICY: "mandatory"})
    assert [v.level for v in strict.of(POLICY)] == ["mandatory"]


def test_only_on_clouds_with_a_catalog():
    result = analyze(CLUSTER_TYPE, props(instanceType="m9i.large"), platform="kubernetes")
    assert result.of(POLICY) == [] and POLICY in {n.policy for n in result.not_applicable}


def test_a_secret_new_machine_name_is_shown_without_its_family():
    from compute_guard.testkit import Resource
    from compute_guard.testkit.analyzer import Analyzer, stack_environment

    secret = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "m9i.large"}
    resource = Resource.of(CLUSTER_TYPE, "compute", props(instanceType=secret))
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        (violation,) = Analyzer().analyze(resource).of(POLICY)
    assert "m9i" not in violation.message and "as a machine launched since" in violation.finding
