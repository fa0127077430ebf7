"""Every numeric limit and enumerated value of compute-cluster-valid, at its edge: the last valid
value passes, the first invalid one fails with its message."""

import pytest
from builders import CLUSTER, POOL, cluster_findings, pool, profile, valid_cluster_props, with_pool


def ranged(low, high, default):
    return {"min": low, "max": high, "default": default}


def pools_of(*max_sizes):
    return [dict(pool(groupId=f"p{i}", minSize=0, maxSize=size)) for i, size in enumerate(max_sizes)]


def on_pools(**changes):
    return valid_cluster_props(dynamicContainerPool="p0", **changes)


def spread(count, domains):
    return valid_cluster_props(failureDomainSpread={"apps": count}, selectedFailureDomains={"apps": domains})


EDGES = [
    # sizes: 0 <= minSize <= maxSize <= 10
    ("minSize 0", with_pool(minSize=0), with_pool(minSize=-1), POOL + "minSize -1 is below the minimum of 0"),
    ("maxSize 10", with_pool(maxSize=10), with_pool(maxSize=11), POOL + "maxSize 11 is above the maximum of 10"),
    ("minSize == maxSize", with_pool(minSize=3, maxSize=3), with_pool(minSize=4, maxSize=3),
     POOL + "minSize 4 is greater than maxSize 3; lower minSize or raise maxSize"),
    # a range's default inside [min, max], and min <= max
    ("default == min", with_pool(minSize=2, maxSize=2, scalePolicy={"type": "fixed", "machines": ranged(2, 4, 2)}),
     with_pool(minSize=2, maxSize=2, scalePolicy={"type": "fixed", "machines": ranged(2, 4, 1)}),
     POOL + "scalePolicy.machines.default 1 is outside scalePolicy.machines [2, 4]"),
    ("default == max", with_pool(minSize=2, maxSize=2, scalePolicy={"type": "fixed", "machines": ranged(2, 4, 4)}),
     with_pool(minSize=2, maxSize=2, scalePolicy={"type": "fixed", "machines": ranged(2, 4, 5)}),
     POOL + "scalePolicy.machines.default 5 is outside scalePolicy.machines [2, 4]"),
    ("range min == max", with_pool(minSize=2, maxSize=2, scalePolicy={"type": "fixed", "machines": ranged(2, 2, 2)}),
     with_pool(minSize=2, maxSize=2, scalePolicy={"type": "fixed", "machines": ranged(3, 2, 2)}),
     POOL + "scalePolicy.machines.min 3 is greater than scalePolicy.machines.max 2"),
    # fixed: minSize == maxSize inside machines
    ("fixed at machines.max", with_pool(minSize=4, maxSize=4, scalePolicy={"type": "fixed", "machines": ranged(2, 4, 3)}),
     with_pool(minSize=5, maxSize=5, scalePolicy={"type": "fixed", "machines": ranged(2, 4, 3)}),
     POOL + "minSize 5 is outside scalePolicy.machines [2, 4]; change minSize or widen the range"),
    # autoscale: minSize inside min, maxSize inside max
    ("autoscale at the edges", with_pool(minSize=1, maxSize=5, scalePolicy={
        "type": "autoscale", "min": ranged(1, 2, 1), "max": ranged(3, 5, 3)}),
     with_pool(minSize=1, maxSize=6, scalePolicy={"type": "autoscale", "min": ranged(1, 2, 1), "max": ranged(3, 5, 3)}),
     POOL + "maxSize 6 is outside scalePolicy.max [3, 5]; change maxSize or widen the range"),
    ("autoscale minSize at min.min", with_pool(minSize=1, maxSize=3, scalePolicy={
        "type": "autoscale", "min": ranged(1, 2, 1), "max": ranged(3, 5, 3)}),
     with_pool(minSize=0, maxSize=3, scalePolicy={"type": "autoscale", "min": ranged(1, 2, 1), "max": ranged(3, 5, 3)}),
     POOL + "minSize 0 is outside scalePolicy.min [1, 2]; change minSize or widen the range"),
    # profile
    ("cpu 1m", with_pool(profile=profile(cpu="1m")), with_pool(profile=profile(cpu="0m")),
     POOL + "profile.cpu must be greater than zero"),
    ("cpu 0.001", with_pool(profile=profile(cpu="0.001")), with_pool(profile=profile(cpu="0")),
     POOL + "profile.cpu must be greater than zero"),
    ("memoryBytes 0", with_pool(profile=profile(memoryBytes=0)), with_pool(profile=profile(memoryBytes=-1)),
     POOL + "profile.memoryBytes -1 is below the minimum of 0"),
    ("ephemeralStorageBytes 0", with_pool(profile=profile(ephemeralStorageBytes=0)),
     with_pool(profile=profile(ephemeralStorageBytes=-1)), POOL + "profile.ephemeralStorageBytes -1 is below the minimum of 0"),
    ("gpu count 1", with_pool(profile=profile(gpu={"type": "nvidia-t4", "count": 1})),
     with_pool(profile=profile(gpu={"type": "nvidia-t4", "count": 0})), POOL + "profile.gpu.count 0 is below the minimum of 1"),
    # failure domains: 1 <= spread <= 255, exactly as many distinct domains
    ("spread 1", spread(1, ["a"]), spread(0, []), CLUSTER + "failureDomainSpread['apps'] 0 is below the minimum of 1"),
    ("spread 255", spread(255, [f"d{i}" for i in range(255)]), spread(256, [f"d{i}" for i in range(256)]),
     CLUSTER + "failureDomainSpread['apps'] 256 is above the maximum of 255"),
    ("as many domains as the spread", spread(2, ["a", "b"]), spread(2, ["a", "b", "c"]),
     CLUSTER + "selectedFailureDomains['apps'] selects 3 failure domains but failureDomainSpread['apps'] is 2; "
     "select exactly 2"),
    # the container network: /24 or wider, a /24 for every machine
    ("a /24 for its one machine", on_pools(containerCidr="10.9.0.0/24", capacityGroups=pools_of(1)),
     on_pools(containerCidr="10.9.0.0/25", capacityGroups=pools_of(1)),
     CLUSTER + "containerCidr '10.9.0.0/25' is narrower than /24; each machine needs a /24 of its own"),
    ("/20 holds 16 machines", on_pools(containerCidr="10.9.0.0/20", capacityGroups=pools_of(10, 6)),
     on_pools(containerCidr="10.9.0.0/20", capacityGroups=pools_of(10, 7)),
     CLUSTER + "containerCidr '10.9.0.0/20' holds 16 /24 subnets but the pools' maxSize add up to 17 machines; "
     "use a wider network (at most /19)"),
]


@pytest.mark.parametrize("last_valid, first_invalid, message", [case[1:] for case in EDGES],
                         ids=[case[0] for case in EDGES])
def test_the_last_valid_value_passes_and_the_first_invalid_one_fails(last_valid, first_invalid, message):
    assert cluster_findings(last_valid) == []
    assert cluster_findings(first_invalid) == [message]


@pytest.mark.parametrize("value, message", [
    ("arm64", None), ("x86_64", None),
    ("amd64", POOL + "profile.architecture 'amd64' is not one of arm64, x86_64; did you mean 'x86_64'?"),
    ("aarch64", POOL + "profile.architecture 'aarch64' is not one of arm64, x86_64; did you mean 'arm64'?"),
    ("ARM64", POOL + "profile.architecture 'ARM64' is not one of arm64, x86_64"),
])
def test_every_architecture_value(value, message):
    assert cluster_findings(with_pool(profile=profile(architecture=value))) == ([message] if message else [])


@pytest.mark.parametrize("value, ok", [("fixed", True), ("autoscale", True), ("Fixed", False), ("auto", False)])
def test_every_scale_policy_type(value, ok):
    policy = {"type": value, "machines": ranged(1, 3, 1)} if value.lower() == "fixed" else {
        "type": value, "min": ranged(1, 1, 1), "max": ranged(3, 3, 3)}
    found = cluster_findings(with_pool(minSize=1, maxSize=1 if value.lower() == "fixed" else 3, scalePolicy=policy))
    assert found == ([] if ok else [POOL + 'scalePolicy.type must be "fixed" or "autoscale"'])


@pytest.mark.parametrize("value, ok", [("compute-cluster", True), ("ComputeCluster", False)])
def test_the_wrapper_type_value(value, ok):
    found = cluster_findings(valid_cluster_props(type=value))
    assert found == ([] if ok else [CLUSTER + "field 'type' may only be \"compute-cluster\"; remove it"])
