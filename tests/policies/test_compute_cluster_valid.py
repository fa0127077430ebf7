"""compute-cluster-valid: each rule and its message, one broken thing at a time."""


import pytest
from builders import CLUSTER, DROP, GIB, POOL, cluster_findings, pool, profile, valid_cluster_props, with_pool


def test_seed_cluster_is_valid():
    assert cluster_findings(valid_cluster_props()) == []


def test_the_spec_example_message_exactly():
    findings = cluster_findings(with_pool(minSize=3, maxSize=2))
    assert findings == [POOL + "minSize 3 is greater than maxSize 2; lower minSize or raise maxSize"]


CASES = [
    # unknown keys, with a did-you-mean, at every level
    (valid_cluster_props(capacityGroup=[]), CLUSTER + "unknown field 'capacityGroup'; did you mean 'capacityGroups'?"),
    (with_pool(minSise=1), POOL + "unknown field 'minSise'; did you mean 'minSize'?"),
    (with_pool(profile=profile(memoryByte=1)), POOL + "unknown field 'profile.memoryByte'; did you mean 'profile.memoryBytes'?"),
    (with_pool(profile=profile(gpu={"type": "nvidia-t4", "cnt": 1})), POOL + "unknown field 'profile.gpu.cnt'"),
    (with_pool(scalePolicy={"type": "fixed", "machines": {"min": 1, "max": 1, "default": 1}, "extra": 1}),
     POOL + "unknown field 'scalePolicy.extra'"),
    (valid_cluster_props(zzz=1), CLUSTER + "unknown field 'zzz'; known fields: id, capacityGroups"),
    # the wrapper key and the two spellings
    (valid_cluster_props(type="other"), CLUSTER + "field 'type' may only be \"compute-cluster\""),
    (valid_cluster_props(container_cidr="10.0.0.0/16", containerCidr="10.1.0.0/16"),
     CLUSTER + "both 'containerCidr' and 'container_cidr' are set, to different values"),
    # id
    (valid_cluster_props(id=None), "ComputeCluster 'compute': field 'id' is required"),
    (valid_cluster_props(id="bad id!"), "ComputeCluster 'bad id!': id may contain only letters, digits, '-' and '_'"),
    (valid_cluster_props(id=7), "ComputeCluster 'compute': id must be a string, not a number"),
    # pools
    (valid_cluster_props(capacityGroups=None), CLUSTER + "field 'capacityGroups' is required"),
    (valid_cluster_props(capacityGroups=[]), CLUSTER + "capacityGroups is empty; declare at least one pool"),
    (valid_cluster_props(capacityGroups="apps"), CLUSTER + "capacityGroups must be a list of pools, not a string"),
    (valid_cluster_props(capacityGroups=[7]), CLUSTER + "capacityGroups[0] must be an object, not a number"),
    (with_pool(groupId=DROP), "ComputeCluster 'compute' capacityGroups[0]: field 'groupId' is required"),
    (with_pool(groupId="Apps"), "ComputeCluster 'compute' pool 'Apps': groupId must be non-empty lowercase"),
    (with_pool(groupId=""), "ComputeCluster 'compute' capacityGroups[0]: groupId must be non-empty lowercase"),
    (valid_cluster_props(capacityGroups=[pool(), pool()]), CLUSTER + "pool 'apps' is declared more than once"),
    # sizes
    (with_pool(maxSize=11), POOL + "maxSize 11 is above the maximum of 10"),
    (with_pool(minSize=-1), POOL + "minSize -1 is below the minimum of 0"),
    (with_pool(minSize=1.5), POOL + "minSize must be a whole number, not a fraction"),
    (with_pool(minSize="1"), POOL + "minSize must be a whole number, not a string"),
    (with_pool(minSize=True), POOL + "minSize must be a whole number, not a boolean"),
    (with_pool(maxSize=DROP), POOL + "field 'maxSize' is required"),
    (with_pool(maxSize=1e300), POOL + "maxSize is above the maximum of 10"),
    # scale policy
    (with_pool(minSize=1, maxSize=3, scalePolicy={"type": "fixed", "machines": {"min": 1, "max": 3, "default": 1}}),
     POOL + "a fixed scalePolicy needs minSize equal to maxSize, but they are 1 and 3"),
    (with_pool(minSize=3, maxSize=3, scalePolicy={"type": "fixed", "machines": {"min": 1, "max": 2, "default": 1}}),
     POOL + "minSize 3 is outside scalePolicy.machines [1, 2]"),
    (with_pool(scalePolicy={"type": "autoscale", "min": {"min": 2, "max": 2, "default": 2},
                            "max": {"min": 3, "max": 5, "default": 3}}),
     POOL + "minSize 1 is outside scalePolicy.min [2, 2]"),
    (with_pool(scalePolicy={"type": "autoscale", "min": {"min": 0, "max": 1, "default": 1},
                            "max": {"min": 4, "max": 5, "default": 4}}),
     POOL + "maxSize 3 is outside scalePolicy.max [4, 5]"),
    (with_pool(scalePolicy={"type": "autoscale", "min": {"min": 0, "max": 2, "default": 3},
                            "max": {"min": 3, "max": 5, "default": 3}}),
     POOL + "scalePolicy.min.default 3 is outside scalePolicy.min [0, 2]"),
    (with_pool(scalePolicy={"type": "autoscale", "min": {"min": 2, "max": 0, "default": 1},
                            "max": {"min": 3, "max": 5, "default": 3}}),
     POOL + "scalePolicy.min.min 2 is greater than scalePolicy.min.max 0"),
    (with_pool(scalePolicy={"type": "elastic"}), POOL + "scalePolicy.type must be \"fixed\" or \"autoscale\""),
    (with_pool(minSize=2, maxSize=2, scalePolicy={"type": "fixed"}), POOL + "field 'scalePolicy.machines' is required"),
    (with_pool(scalePolicy={"type": "autoscale", "min": {"min": 1, "max": 1}, "max": {"min": 3, "max": 3, "default": 3}}),
     POOL + "field 'scalePolicy.min.default' is required"),
    # profile
    (with_pool(profile=profile(cpu="abc")), POOL + "profile.cpu must be cores such as \"4\" or \"0.5\""),
    (with_pool(profile=profile(cpu="0")), POOL + "profile.cpu must be greater than zero"),
    (with_pool(profile=profile(cpu="0m")), POOL + "profile.cpu must be greater than zero"),
    (with_pool(profile=profile(cpu="-1")), POOL + "profile.cpu must be cores"),
    (with_pool(profile=profile(cpu=4)), POOL + "profile.cpu must be a string, not a number"),
    (with_pool(profile=profile(cpu=DROP)), POOL + "field 'profile.cpu' is required"),
    (with_pool(profile=profile(memoryBytes=-1)), POOL + "profile.memoryBytes -1 is below the minimum of 0"),
    (with_pool(profile=profile(ephemeralStorageBytes=0.5)), POOL + "profile.ephemeralStorageBytes must be a whole number"),
    (with_pool(profile=profile(architecture="amd64")),
     POOL + "profile.architecture 'amd64' is not one of arm64, x86_64; did you mean 'x86_64'?"),
    (with_pool(profile=profile(gpu={"type": "nvidia-a10g", "count": 0})), POOL + "profile.gpu.count 0 is below the minimum of 1"),
    (with_pool(profile=profile(gpu={"count": 1})), POOL + "field 'profile.gpu.type' is required"),
    (with_pool(profile=profile(gpu="nvidia-a10g")), POOL + "profile.gpu must be an object, not a string"),
    (with_pool(profile=profile(gpu={"type": 5, "count": 1})), POOL + "profile.gpu.type must be a string, not a number"),
    (with_pool(profile=profile(gpu={"type": "", "count": 1})),
     POOL + "profile.gpu.type is empty; name the GPU, such as \"nvidia-a10g\""),
    (with_pool(profile=profile(gpu={"type": "nvidia-a10g"})),
     POOL + "field 'profile.gpu.count' is required; set the number of GPUs per machine (at least 1)"),
    (with_pool(profile="big"), POOL + "profile must be an object, not a string"),
    (with_pool(profile=[]), POOL + "profile must be an object, not a list"),
    (with_pool(profile=profile(memoryBytes=DROP)), POOL + "field 'profile.memoryBytes' is required; set a whole number "
                                                          "of bytes"),
    (with_pool(minSize=1, maxSize=1, scalePolicy={"type": "fixed", "machines": {"min": 1, "max": 1, "default": 1,
                                                                                "dflt": 1}}),
     POOL + "unknown field 'scalePolicy.machines.dflt'"),
    (valid_cluster_props(selectedFailureDomains="zone-a"), CLUSTER + "selectedFailureDomains must be an object, not a "
                                                                    "string"),
    (valid_cluster_props(failureDomainSpread=[1]), CLUSTER + "failureDomainSpread must be an object, not a list"),
    (with_pool(nestedVirtualization="yes"), POOL + "nestedVirtualization must be true or false, not a string"),
    (with_pool(instanceType=""), POOL + "instanceType is empty"),
    # references between fields
    (valid_cluster_props(dynamicContainerPool="missing"),
     CLUSTER + "dynamicContainerPool names pool 'missing', which does not exist"),
    (valid_cluster_props(failureDomainSpread={"nope": 2}), CLUSTER + "failureDomainSpread names pool 'nope'"),
    (valid_cluster_props(failureDomainSpread={"apps": 0}), CLUSTER + "failureDomainSpread['apps'] 0 is below the minimum of 1"),
    (valid_cluster_props(failureDomainSpread={"apps": 256}), CLUSTER + "failureDomainSpread['apps'] 256 is above the maximum of 255"),
    (valid_cluster_props(selectedFailureDomains={"nope": ["a"]}), CLUSTER + "selectedFailureDomains names pool 'nope'"),
    (valid_cluster_props(failureDomainSpread={"apps": 2}, selectedFailureDomains={"apps": ["a", "a"]}),
     CLUSTER + "selectedFailureDomains['apps'] lists a failure domain more than once"),
    (valid_cluster_props(failureDomainSpread={"apps": 3}, selectedFailureDomains={"apps": ["a", "b"]}),
     CLUSTER + "selectedFailureDomains['apps'] selects 2 failure domains but failureDomainSpread['apps'] is 3"),
    (valid_cluster_props(selectedFailureDomains={"apps": ["a"]}),
     CLUSTER + "selectedFailureDomains['apps'] selects failure domains but failureDomainSpread has no entry"),
    (valid_cluster_props(selectedFailureDomains={"apps": "a"}),
     CLUSTER + "selectedFailureDomains['apps'] must be a list of failure-domain names, not a string"),
    # the container network
    (valid_cluster_props(containerCidr="10.244.0.1/16"), CLUSTER + "containerCidr '10.244.0.1/16' is not an IPv4 network"),
    (valid_cluster_props(containerCidr="fd00::/64"), CLUSTER + "containerCidr 'fd00::/64' is not an IPv4 network"),
    (valid_cluster_props(containerCidr="10.0.0.0/25"), CLUSTER + "containerCidr '10.0.0.0/25' is narrower than /24"),
    (valid_cluster_props(containerCidr="10.0.0.0/24"),
     CLUSTER + "containerCidr '10.0.0.0/24' holds 1 /24 subnets but the pools' maxSize add up to 3 machines; "
               "use a wider network (at most /22)"),
]


@pytest.mark.parametrize("architecture, hint", [
    ("amd64", "; did you mean 'x86_64'?"), ("x86-64", "; did you mean 'x86_64'?"),
    ("aarch64", "; did you mean 'arm64'?"), ("arm", "; did you mean 'arm64'?"),
    ("X86_64", ""), ("sparc", ""),
])
def test_an_unknown_architecture_names_the_two_and_the_likely_one(architecture, hint):
    assert cluster_findings(with_pool(profile=profile(architecture=architecture))) == [
        POOL + f"profile.architecture '{architecture}' is not one of arm64, x86_64{hint}"]


@pytest.mark.parametrize("props, expected", CASES, ids=[c[1][:70] for c in CASES])
def test_each_rule_reports_its_own_message(props, expected):
    findings = cluster_findings(props)
    assert any(f.startswith(expected) for f in findings), findings


@pytest.mark.parametrize("props", [
    with_pool(profile=profile(dataDisk={"sizeGb": 100, "anything": True})),  # tolerated
    valid_cluster_props(type="compute-cluster"),  # the wrapper key
    valid_cluster_props(containerCidr="172.30.0.0/16"),
    valid_cluster_props(containerCidr="10.0.0.0/22", capacityGroups=[pool(maxSize=4)]),
    with_pool(instanceType=None),  # null is the same as absent
    with_pool(profile=profile(cpu="500m")),
    with_pool(profile=profile(cpu="4.0")),
    with_pool(profile=profile(cpu="0.5")),
    with_pool(profile=profile(architecture=None)),
    with_pool(minSize=0, maxSize=0),
    with_pool(minSize=2, maxSize=2, scalePolicy={"type": "fixed", "machines": {"min": 1, "max": 3, "default": 2}}),
    with_pool(scalePolicy={"type": "autoscale", "min": {"min": 0, "max": 2, "default": 1},
                           "max": {"min": 3, "max": 5, "default": 3}}),
    valid_cluster_props(failureDomainSpread={"apps": 2}, selectedFailureDomains={"apps": ["us-east-1a", "us-east-1b"]}),
    valid_cluster_props(failureDomainSpread={"apps": 2}),  # domains are selected during setup
    valid_cluster_props(capacityGroups=[pool(), pool(groupId="batch-2")], dynamicContainerPool="batch-2"),
    valid_cluster_props(container_cidr="10.0.0.0/16", containerCidr="10.0.0.0/16"),  # same value twice
])
def test_valid_shapes_pass(props):
    assert cluster_findings(props) == []


def test_snake_case_everywhere_is_the_same_cluster():
    props = {
        "id": "compute", "dynamic_container_pool": "apps", "container_cidr": "10.244.0.0/16",
        "failure_domain_spread": {"apps": 1}, "selected_failure_domains": {"apps": ["zone-a"]},
        "capacity_groups": [{"group_id": "apps", "min_size": 1, "max_size": 1, "nested_virtualization": False,
                             "scale_policy": {"type": "fixed", "machines": {"min": 1, "max": 1, "default": 1}},
                             "profile": {"cpu": "2", "memory_bytes": 4 * GIB, "ephemeral_storage_bytes": 1,
                                         "data_disk": {"size": 1}, "gpu": None}}],
    }
    assert cluster_findings(props) == []


def test_one_violation_per_problem_in_a_stable_order():
    props = with_pool(minSize=5, maxSize=4, profile=profile(cpu="x", architecture="arm"))
    first = cluster_findings(props)
    assert first == cluster_findings(props)
    assert len(first) == 3
    assert len(set(first)) == len(first)


def test_pool_keys_of_maps_are_never_rewritten():
    props = valid_cluster_props(capacityGroups=[pool(groupId="apps-east")], dynamicContainerPool="apps-east",
                                failureDomainSpread={"apps-east": 1})
    assert cluster_findings(props) == []


def test_what_cannot_be_read_comes_first_then_how_fields_fit_together():
    props = with_pool(minSize=5, maxSize=4, profile=profile(cpu="x"))
    props["containerCidr"] = "10.0.0.0/24"
    assert cluster_findings(props) == [
        POOL + "profile.cpu must be cores such as \"4\" or \"0.5\", or millicores such as \"500m\"",
        POOL + "minSize 5 is greater than maxSize 4; lower minSize or raise maxSize",
        CLUSTER + "containerCidr '10.0.0.0/24' holds 1 /24 subnets but the pools' maxSize add up to 4 machines; "
                  "use a wider network (at most /22)"]


def test_the_rule_checks_the_relations_on_the_model_alone():
    """Reading leaves the relations to the rule: given only the model, it still finds them."""
    from compute_guard.policies.compute_cluster_valid import compute_cluster_valid
    from compute_guard.policies.model.cluster import ParsedCluster, parse_cluster

    props = with_pool(minSize=3, maxSize=2)
    props.update(dynamicContainerPool="gone", failureDomainSpread={"apps": 2}, selectedFailureDomains={"apps": ["a"]})
    parsed = parse_cluster(props, "compute")
    assert parsed.problems == []  # every field reads
    assert [v.message for v in compute_cluster_valid(ParsedCluster(parsed.model, []))] == [
        POOL + "minSize 3 is greater than maxSize 2; lower minSize or raise maxSize",
        CLUSTER + "dynamicContainerPool names pool 'gone', which does not exist; name one of its pools or remove "
                  "the field",
        CLUSTER + "selectedFailureDomains['apps'] selects 1 failure domains but failureDomainSpread['apps'] is 2; "
                  "select exactly 2"]


def test_selected_domains_are_not_checked_against_a_spread_not_known_yet():
    from pulumi_policy.proxy import UNKNOWN_OBJECT_VALUE

    from compute_guard.testkit import Resource
    from compute_guard.testkit.analyzer import Analyzer, stack_environment

    props = valid_cluster_props(failureDomainSpread=UNKNOWN_OBJECT_VALUE, selectedFailureDomains={"apps": ["a", "b"]})
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        result = Analyzer().analyze(Resource.of("compute:index:ComputeCluster", "compute", props))
    assert result.of("compute-cluster-valid") == []
    assert [n.policy for n in result.notes].count("compute-cluster-valid") == 1  # the spread is not known yet


def fixed(low, high, default=None):
    return {"type": "fixed", "machines": {"min": low, "max": high, "default": low if default is None else default}}


def autoscale(low, high):
    return {"type": "autoscale", "min": {"min": low[0], "max": low[1], "default": low[0]},
            "max": {"min": high[0], "max": high[1], "default": high[0]}}


@pytest.mark.parametrize("props, expected", [
    (with_pool(minSize=1, maxSize=3, scalePolicy=fixed(1, 2)), [
        "a fixed scalePolicy needs minSize equal to maxSize, but they are 1 and 3; make them equal or use an "
        "autoscale policy",
        "maxSize 3 is outside scalePolicy.machines [1, 2]; change maxSize or widen the range"]),
    (with_pool(minSize=3, maxSize=3, scalePolicy=fixed(1, 2)),  # one size, said once
     ["minSize 3 is outside scalePolicy.machines [1, 2]; change minSize or widen the range"]),
    (with_pool(minSize=2, maxSize=2, scalePolicy=fixed(3, 1)), ["scalePolicy.machines.min 3 is greater than "
                                                                "scalePolicy.machines.max 1"]),
    (with_pool(minSize=2, maxSize=2, scalePolicy=fixed(1, 3, default=4)),
     ["scalePolicy.machines.default 4 is outside scalePolicy.machines [1, 3]"]),
    (with_pool(minSize=0, maxSize=10, scalePolicy=autoscale((1, 2), (3, 9))), [
        "minSize 0 is outside scalePolicy.min [1, 2]; change minSize or widen the range",
        "maxSize 10 is outside scalePolicy.max [3, 9]; change maxSize or widen the range"]),
    (with_pool(minSize=4, maxSize=4, scalePolicy=autoscale((2, 1), (4, 4))),
     ["scalePolicy.min.min 2 is greater than scalePolicy.min.max 1"]),
])
def test_sizes_and_scale_policy_messages_exactly(props, expected):
    assert cluster_findings(props) == [POOL + message for message in expected]


@pytest.mark.parametrize("props", [
    with_pool(minSize=2, maxSize=2, scalePolicy=fixed(2, 2)),               # every bound met exactly
    with_pool(minSize=1, maxSize=1, scalePolicy=fixed(1, 3, default=3)),
    with_pool(minSize=1, maxSize=9, scalePolicy=autoscale((1, 1), (9, 9))),
    with_pool(minSize=10, maxSize=10),
])
def test_sizes_on_their_bounds_pass(props):
    assert cluster_findings(props) == []


@pytest.mark.parametrize("cidr, sizes, expected", [
    ("10.0.0.0/23", (3, 2), "holds 2 /24 subnets but the pools' maxSize add up to 5 machines; use a wider network "
                            "(at most /21)"),
    ("10.0.0.0/22", (3, 2), "holds 4 /24 subnets but the pools' maxSize add up to 5 machines; use a wider network "
                            "(at most /21)"),
    ("10.0.0.0/24", (1, 1), "holds 1 /24 subnets but the pools' maxSize add up to 2 machines; use a wider network "
                            "(at most /23)"),
    ("10.0.0.0/21", (3, 5), None),   # exactly 8 machines in 8 subnets
    ("10.0.0.0/24", (1, 0), None),
])
def test_the_network_holds_a_subnet_per_machine(cidr, sizes, expected):
    props = valid_cluster_props(containerCidr=cidr, dynamicContainerPool="a",
                                capacityGroups=[pool(groupId="a", maxSize=sizes[0]),
                                                pool(groupId="b", minSize=0, maxSize=sizes[1])])
    assert cluster_findings(props) == ([] if expected is None else [CLUSTER + f"containerCidr '{cidr}' {expected}"])


@pytest.mark.parametrize("spread, selected, expected", [
    ({"apps": 2}, {"apps": ["a", "a"]}, ["selectedFailureDomains['apps'] lists a failure domain more than once; "
                                         "list each once"]),
    ({"apps": 3}, {"apps": ["a", "b"]}, ["selectedFailureDomains['apps'] selects 2 failure domains but "
                                         "failureDomainSpread['apps'] is 3; select exactly 3"]),
    (None, {"apps": ["a", "b"]}, ["selectedFailureDomains['apps'] selects failure domains but failureDomainSpread "
                                  "has no entry for pool 'apps'; set failureDomainSpread['apps'] to 2"]),
    ({"apps": 1}, {"nope": ["a"]}, ["selectedFailureDomains names pool 'nope', which does not exist; use one of "
                                    "its pool ids"]),
    ({"nope": 1}, None, ["failureDomainSpread names pool 'nope', which does not exist; use one of its pool ids"]),
    ({"apps": 2}, {"apps": ["a", "a"], "b": ["a"], "nope": ["a"]}, [  # every entry is checked
        "selectedFailureDomains['apps'] lists a failure domain more than once; list each once",
        "selectedFailureDomains names pool 'b', which does not exist; use one of its pool ids",
        "selectedFailureDomains names pool 'nope', which does not exist; use one of its pool ids"]),
    ({"apps": 2}, {"apps": ["a", "b"]}, []),
    ({"apps": 255}, None, []),
])
def test_failure_domain_messages_exactly(spread, selected, expected):
    props = valid_cluster_props()
    if spread is not None:
        props["failureDomainSpread"] = spread
    if selected is not None:
        props["selectedFailureDomains"] = selected
    # (a map's entries come in the order protobuf keeps them)
    assert sorted(cluster_findings(props)) == sorted(CLUSTER + message for message in expected)


def test_a_repeated_pool_id_labels_each_pool_by_its_place():
    props = valid_cluster_props(capacityGroups=[pool(), pool(minSize=5, maxSize=4)])
    assert cluster_findings(props) == [
        CLUSTER + "pool 'apps' is declared more than once; pool ids must be unique",
        "ComputeCluster 'compute' pool 'apps' (capacityGroups[1]): minSize 5 is greater than maxSize 4; lower minSize "
        "or raise maxSize"]


def test_reading_configuration_that_is_not_known_or_not_an_object():
    from compute_guard.policies.compute_cluster_valid import said
    from compute_guard.policies.model.cluster import parse_cluster
    from compute_guard.policies.model.values import Undetermined, Unknown

    unknown = Unknown(Undetermined("not known during preview"))
    parsed = parse_cluster(unknown, "compute")
    assert parsed.problems == [unknown]
    assert (parsed.model.label, parsed.model.id, parsed.model.pools) == ("compute", unknown, unknown)
    parsed = parse_cluster(["compute"], "compute")
    assert [f"{p.subject}: {said(p)}" for p in parsed.problems] == [CLUSTER + "its configuration must be an object, not a list"]
    assert (parsed.model.id, parsed.model.pools) == (None, ())


def test_pools_whose_ids_are_not_known_yet_are_not_called_repeated():
    from compute_guard.policies.model.cluster import parse_cluster
    from compute_guard.policies.model.values import Undetermined, Unknown

    unknown = Unknown(Undetermined("not known during preview"))
    pool = {"groupId": unknown, "minSize": 1, "maxSize": 1, "instanceType": "m7g.large"}
    parsed = parse_cluster({"id": "compute", "capacityGroups": [pool, dict(pool)]}, "compute")
    assert [p for p in parsed.problems if not isinstance(p, Unknown)] == []  # only: these ids are not known
    assert [pool.group_id for pool in parsed.model.pools] == [unknown, unknown]


def test_an_instance_type_that_is_not_a_string_is_named():
    from builders import POOL, cluster_findings, with_pool

    assert cluster_findings(with_pool(instanceType=7)) == [f"{POOL}instanceType must be a string, not a number"]


def test_both_spellings_with_one_value_are_the_field():
    """minSize and min_size both 3: no conflict, and the field is read (a mutant dropped it when both were set)."""
    from builders import POOL, cluster_findings, with_pool

    props = with_pool(minSize=3, maxSize=2)
    props["capacityGroups"][0]["min_size"] = 3
    assert cluster_findings(props) == [f"{POOL}minSize 3 is greater than maxSize 2; lower minSize or raise maxSize"]


def test_at_level_remediate_a_policy_without_a_remediation_says_so():
    """The SDK answers Remediate for such a policy with 'does not implement remediate' (a policy object built with
    a remediation that is not None but nothing would be called instead, and fail)."""
    from builders import CLUSTER_TYPE, valid_cluster_props

    from compute_guard.testkit import Analyzer, Resource
    from compute_guard.testkit.analyzer import stack_environment

    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        analyzer = Analyzer({"compute-cluster-valid": "remediate"})
        result = analyzer.run([Resource.of(CLUSTER_TYPE, "compute", valid_cluster_props())])
    assert ("compute-cluster-valid", "Policy does not implement remediate") in {
        (item.policy, item.reason) for item in result.not_applicable}
