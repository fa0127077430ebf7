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


def _platform(*parts, platform="aws"):
    from builders import run

    return run(*parts, platform=platform).findings(POLICY)


def test_a_platform_pool_that_names_a_new_machine_says_that_its_nodes_were_not_judged():
    """A NodePool or node group naming only machines newer than the catalog has no machine the pack knows: nothing
    placed on it is judged, and it went unsaid before (a Deployment on a NodePool of m99i.large passed with no word).
    Both sides: a catalogued machine, or a typo (cloud-machine-catalog's), says nothing here."""
    from builders import deployment, instance_types, node_class, node_group, nodepool

    api = deployment("api", requests={"memory": "1Gi"})
    (said,) = _platform(node_class(), nodepool("np", [instance_types("m99i.large")]), api)
    assert said == (
        "NodePool 'np': instance type 'm99i.large' is not in the machine catalog (refreshed 2026-11-30) but follows "
        "AWS's naming, as a machine of the new family 'm99i' launched since: its nodes of that machine, and the Pods "
        "placed on them, were not judged; refresh the catalog (scripts/generate_catalog.py)")
    assert _platform(node_class(), nodepool("np", [instance_types("m7i.large")]), api) == []
    assert _platform(node_class(), nodepool("np", [instance_types("m7i.larg")]), api) == []
    (group,) = _platform(node_group("general", ["m9i.large", "m7i.large"]), api)
    assert group.startswith("NodeGroup 'general': instance type 'm9i.large' is not in the machine catalog")


def test_an_aks_nodepool_that_names_a_new_vm_size_says_so_in_azure_s_words():
    """An AKS node auto-provisioning NodePool's karpenter.azure.com/sku-name: a size of a version the catalog does not
    know (Standard_D4s_v9) is a VM size launched since; a catalogued one says nothing."""
    from test_self_provisioning_clusters import AZURE, aks

    from compute_guard.testkit import evaluate

    def named(size):
        return evaluate(aks(mode="Auto", defaults="None", azure_nodepool=True, requirements=[
            {"key": "karpenter.azure.com/sku-name", "operator": "In", "values": [size]}]),
            stack_config=AZURE).findings(POLICY)

    (said,) = named("Standard_D4s_v9")
    assert said.startswith("NodePool 'mine': VM size 'Standard_D4s_v9' is not in the machine catalog (refreshed "
                           "2026-11-30) but follows Azure's naming, as a machine of the new family 'D{n}s_v9' launched "
                           "since"), said
    assert named("Standard_D4s_v5") == []
