"""cloud-machine-catalog: machines exist on the platform and offer what the pool declares."""

import pytest
from builders import CLUSTER_TYPE, analyze, cluster_findings

POLICY = "cloud-machine-catalog"
NEW_FAMILY = "cloud-machine-new-family"


def props(**pool):
    group = {"groupId": "general", "minSize": 1, "maxSize": 3, **pool}
    return {"id": "compute", "capacityGroups": [group]}


def profile(architecture=None, gpu=None):
    """A profile small enough for every machine these tests name: it claims no more than any of them has
    (a profile that claims more is a finding of its own, below)."""
    value = {"cpu": "1", "memoryBytes": 1 << 30, "ephemeralStorageBytes": 20 << 30}
    if architecture:
        value["architecture"] = architecture
    if gpu:
        value["gpu"] = gpu
    return value


def findings(pool_props, platform="aws"):
    return cluster_findings(pool_props, POLICY, platform=platform)


@pytest.mark.parametrize("pool, platform", [
    (dict(instanceType="m7g.xlarge"), "aws"),
    (dict(instanceType="m7g.xlarge", profile=profile("arm64")), "aws"),
    (dict(instanceType="g5.xlarge", profile=profile("x86_64", {"type": "nvidia-a10g", "count": 1})), "aws"),
    (dict(instanceType="g5.48xlarge", profile=profile(gpu={"type": "nvidia-a10g", "count": 8})), "aws"),
    (dict(instanceType="m5.metal", nestedVirtualization=True), "aws"),
    (dict(instanceType="c8i.large", nestedVirtualization=True), "aws"),
    (dict(instanceType="n2-standard-4", nestedVirtualization=True), "gcp"),
    (dict(instanceType="t2a-standard-4", profile=profile("arm64")), "gcp"),
    (dict(instanceType="Standard_D4ps_v5", profile=profile("arm64")), "azure"),
    (dict(profile=profile("arm64")), "gcp"),
    (dict(profile=profile("x86_64", {"type": "nvidia-l4", "count": 1})), "gcp"),
    (dict(nestedVirtualization=True), "azure"),
    (dict(), "aws"),
])
def test_machines_that_serve_the_pool(pool, platform):
    assert findings(props(**pool), platform) == []


@pytest.mark.parametrize("pool, platform, expected", [
    (dict(instanceType="m7g.xlarg"), "aws", "instanceType 'm7g.xlarg' is not a machine type on AWS; did you mean 'm7g.xlarge'?"),
    (dict(instanceType="n2-standard-4"), "aws", "instanceType 'n2-standard-4' is not a machine type on AWS"),
    (dict(instanceType="m7g.xlarge"), "gcp", "instanceType 'm7g.xlarge' is not a machine type on GCP"),
    (dict(instanceType="m7g.xlarge", profile=profile("x86_64")), "aws",
     "profile.architecture is x86_64 but 'm7g.xlarge' is an arm64 machine"),
    (dict(instanceType="m7i.large", profile=profile(gpu={"type": "nvidia-a10g", "count": 1})), "aws",
     "profile.gpu asks for nvidia-a10g but 'm7i.large' has no GPU"),
    (dict(instanceType="g5.xlarge", profile=profile(gpu={"type": "nvidia-a100", "count": 1})), "aws",
     "profile.gpu.type is nvidia-a100 but 'g5.xlarge' carries nvidia-a10g"),
    (dict(instanceType="g5.xlarge", profile=profile(gpu={"type": "nvidia-a10g", "count": 4})), "aws",
     "profile.gpu.count is 4 but 'g5.xlarge' has 1"),
    (dict(instanceType="m7i.large", nestedVirtualization=True), "aws",
     "nestedVirtualization is true but 'm7i.large' does not expose nested virtualization"),
    (dict(instanceType="n2d-standard-4", nestedVirtualization=True), "gcp", "does not expose nested virtualization"),
    (dict(profile=profile("arm64"), nestedVirtualization=True), "gcp",
     "no GCP machine offers architecture arm64 with nested virtualization; change the profile or "
     "nestedVirtualization so that some machine of the platform can serve the pool"),
    (dict(profile=profile("arm64", {"type": "nvidia-a10g", "count": 1})), "aws",
     "no AWS machine offers architecture arm64 with 1 nvidia-a10g GPU"),
    (dict(profile=profile(gpu={"type": "nvidia-h100", "count": 3})), "gcp", "no GCP machine offers 3 nvidia-h100 GPUs"),
    (dict(profile=profile("arm64", {"type": "nvidia-a10g", "count": 2})), "aws",
     "no AWS machine offers architecture arm64 with 2 nvidia-a10g GPUs; change the profile"),
    (dict(profile=profile("arm64", {"type": "nvidia-a10g"})), "aws",
     "no AWS machine offers architecture arm64 with a nvidia-a10g GPU; change the profile"),
])
def test_machines_that_do_not(pool, platform, expected):
    (finding,) = findings(props(**pool), platform)
    assert finding.startswith("ComputeCluster 'compute' pool 'general': ")
    assert expected in finding


@pytest.mark.parametrize("platform", ["kubernetes", "local", None])
def test_only_on_clouds(platform):
    result = analyze(CLUSTER_TYPE, props(instanceType="nope"), platform=platform)
    assert result.of(POLICY) == []
    assert [n.policy for n in result.not_applicable].count(POLICY) == 1


# --- real names pass, typos fail, new families are shown: over the engine-started pack ------------

REAL = {
    "aws": ["t4g.nano", "m7g.xlarge", "c8gn.48xlarge", "x2gd.metal", "i4g.16xlarge", "g5g.metal", "hpc7g.16xlarge",
            "m8i-flex.large", "c7i.metal-24xl", "m5.metal", "u7i-12tb.224xlarge", "mac2-m2pro.metal", "g6f.large",
            "g7.2xlarge", "p5.48xlarge", "trn2.48xlarge", "inf2.xlarge"],
    "gcp": ["f1-micro", "g1-small", "e2-micro", "e2-small", "e2-medium", "n1-standard-1", "n2-highmem-128",
            "c4d-standard-8", "c4d-highmem-384-metal", "c4d-standard-8-lssd", "c4-standard-288-lssd-metal",
            "c4a-highmem-96-metal", "n4a-standard-1", "n4d-highcpu-96", "c3-standard-4-lssd", "c3-highcpu-192-metal",
            "h3-standard-88", "h4d-highmem-192-lssd", "z3-highmem-14-standardlssd", "z3-highmem-192-highlssd-metal",
            "x4-960-16t-metal", "m4-ultramem-224", "a3-highgpu-1g", "a3-ultragpu-8g", "a4-highgpu-8g",
            "a4x-highgpu-4g", "g2-standard-96", "g4-standard-384", "t2a-standard-48"],
    "azure": ["Standard_D2_v3", "Standard_DS2_v2", "Standard_D11_v2", "Standard_B1ls", "Standard_B2ts_v2",
              "Standard_D2ps_v5", "Standard_D2plds_v6", "Standard_E16-4as_v5", "Standard_M128-64ms",
              "Standard_NC6s_v3", "Standard_NC24ads_A100_v4", "Standard_NV6ads_A10_v5", "Standard_ND96isr_H100_v5",
              "Standard_ND128isr_NDR_GB200_v6", "Standard_HB176rs_v4", "Standard_L8s_v3", "Standard_F2s_v2",
              "Standard_D2s_v7", "Standard_FX12-6mds_v2"],
}
TYPOS = {  # (name, the did-you-mean it gets, or None for the plain fix)
    "aws": [("t4g.smal", "t4g.small"), ("m7g.xlarg", "m7g.xlarge"), ("m7g.3xlarge", "m7g.xlarge"),
            ("c7gg.large", "c7g.large"), ("m7q.large", "m7i.large"), ("n2-standard-4", None)],
    "gcp": [("n2-standard-3", "n2-standard-32"), ("n2s-standard-4", "n2-standard-4"),
            ("n4-highmem-8-lssd", "c4-highmem-8-lssd"), ("c4d-standrd-8", "c4d-standard-8"), ("e2-mikro", "e2-micro"),
            ("m7g.xlarge", None)],
    "azure": [("Standard_D3s_v5", "Standard_D32s_v5"), ("Standard_D2sv_v5", "Standard_D2s_v5"),
              ("Standard_D2s_5", "Standard_D2s_v5"), ("standard_D2s_v5", "Standard_D2s_v5"),
              ("Standard_Q2s_v5", "Standard_E2s_v5"), ("n2-standard-4", None)],
}
NEW = {"aws": [("m9i.large", "m9i"), ("g8.12xlarge", "g8")],
       "gcp": [("n5-standard-8", "n5"), ("c9a-standard-8-lssd", "c9a")],
       "azure": [("Standard_D2s_v9", "D{n}s_v9"), ("Standard_NC24ads_B300_v7", "NC{n}ads_B300_v7")]}
NAMES = {"aws": "AWS", "gcp": "GCP", "azure": "Azure"}


def _machine_stack(platform, names):
    from compute_guard.testkit import Resource

    return [Resource.of("compute:index:ComputeCluster", f"c{i}", {"id": f"c{i}", "capacityGroups": [
        {"groupId": "general", "minSize": 0, "maxSize": 1, "instanceType": name}]}) for i, name in enumerate(names)]


@pytest.fixture(scope="module", params=sorted(REAL))
def engine_verdicts(request):
    """Every name of one platform's tables through one engine-started pack: name -> [(level, finding)]."""
    from compute_guard.testkit.engine import EnginePack

    platform = request.param
    names = REAL[platform] + [n for n, _ in TYPOS[platform]] + [n for n, _ in NEW[platform]]
    with EnginePack({"compute:platform": platform}) as pack:
        result = pack.run(_machine_stack(platform, names))
    by_name = {name: [] for name in names}
    new_by_name = {name: [] for name in names}  # cloud-machine-new-family's
    # The machines provide both architectures (SPEC section 2): the stack's pools do not agree, on purpose here.
    mixed = [v for v in result.violations if v.policy == "compute-pools-single-architecture"]
    assert mixed and all("arm64 and x86_64" in v.finding for v in mixed)
    for violation in result.violations:
        if violation in mixed:
            continue
        name = names[int(violation.urn.rsplit("::c", 1)[1])]
        found = by_name if violation.policy == POLICY else new_by_name
        found[name].append((violation.level, violation.finding))
    assert {v.policy for v in result.violations} <= {POLICY, NEW_FAMILY, "compute-pools-single-architecture"}
    return platform, by_name, new_by_name


def test_every_real_name_passes(engine_verdicts):
    platform, by_name, new_by_name = engine_verdicts
    assert {name: by_name[name] for name in REAL[platform] if by_name[name]} == {}


def test_every_typo_fails_with_its_did_you_mean(engine_verdicts):
    platform, by_name, new_by_name = engine_verdicts
    for name, hint in TYPOS[platform]:
        ((level, finding),) = by_name[name]
        expected = f"instanceType '{name}' is not a machine type on {NAMES[platform]}; "
        expected += f"did you mean '{hint}'?" if hint else f"use a machine type of {NAMES[platform]}"
        assert (level, finding) == ("mandatory", f"ComputeCluster '{name_id(name, platform)}' pool 'general': "
                                                 + expected), name


def name_id(name, platform):
    names = REAL[platform] + [n for n, _ in TYPOS[platform]] + [n for n, _ in NEW[platform]]
    return f"c{names.index(name)}"


def test_a_machine_newer_than_the_catalog_is_left_to_cloud_machine_new_family(engine_verdicts):
    platform, by_name, new_by_name = engine_verdicts
    for name, family in NEW[platform]:
        assert by_name[name] == [], name
        ((level, finding),) = new_by_name[name]
        assert level == "advisory", name
        assert finding == (
            f"ComputeCluster '{name_id(name, platform)}' pool 'general': instanceType '{name}' is not in the machine "
            f"catalog (refreshed 2026-11-30) but follows {NAMES[platform]}'s naming, as a machine of the new family "
            f"'{family}' launched since: its architecture, GPU and nested virtualization were not checked; make sure "
            "they match the pool, and refresh the catalog (scripts/generate_catalog.py)")
    assert {name for name, found in new_by_name.items() if found} == {name for name, _ in NEW[platform]}


def test_every_pool_is_checked_after_one_not_known_yet():
    from pulumi_policy.proxy import UNKNOWN_OBJECT_VALUE

    pools = [UNKNOWN_OBJECT_VALUE, {"groupId": "b", "minSize": 1, "maxSize": 1, "instanceType": "m7g.xlarg"}]
    result = analyze(CLUSTER_TYPE, {"id": "compute", "capacityGroups": pools}, platform="aws")
    assert [v.finding for v in result.of(POLICY)] == [
        "ComputeCluster 'compute' pool 'b': instanceType 'm7g.xlarg' is not a machine type on AWS; did you mean "
        "'m7g.xlarge'?"]
    assert [n.policy for n in result.notes].count(POLICY) == 1


def test_the_old_new_machine_families_setting_is_refused_with_where_it_went():
    from compute_guard.testkit.analyzer import Analyzer, ConfigError

    with pytest.raises(ConfigError, match="moved: set the enforcementLevel of the policy cloud-machine-new-family"):
        Analyzer({POLICY: {"newMachineFamilies": "enforce"}})


@pytest.mark.parametrize("platform, name, pool, expected", [
    ("gcp", "c4a-standard-8", dict(profile=profile("x86_64")), "'c4a-standard-8' is an arm64 machine"),
    ("azure", "Standard_D4ps_v6", dict(profile=profile("x86_64")), "'Standard_D4ps_v6' is an arm64 machine"),
    ("azure", "Standard_ND128isr_NDR_GB200_v6", dict(profile=profile("x86_64")), "is an arm64 machine"),
    ("gcp", "a2-ultragpu-1g", dict(profile=profile(gpu={"type": "nvidia-h100", "count": 1})),
     "profile.gpu.type is nvidia-h100 but 'a2-ultragpu-1g' carries nvidia-a100-80gb"),
    ("azure", "Standard_NC24ads_A100_v4", dict(profile=profile(gpu={"type": "nvidia-h100", "count": 1})),
     "carries nvidia-a100-80gb"),
    ("azure", "Standard_NC48ads_A100_v4", dict(profile=profile(gpu={"type": "nvidia-a100-80gb", "count": 1})),
     "profile.gpu.count is 1 but 'Standard_NC48ads_A100_v4' has 2"),
    ("aws", "g6f.large", dict(profile=profile(gpu={"type": "nvidia-l4", "count": 2})), "has 1; set profile.gpu.count"),
    ("aws", "g7.12xlarge", dict(profile=profile(gpu={"type": "nvidia-rtx-pro-6000", "count": 2})),
     "carries nvidia-rtx-pro-4500"),
])
def test_new_entries_are_consistent_in_architecture_and_gpu(platform, name, pool, expected):
    (finding,) = findings(props(instanceType=name, **pool), platform)
    assert expected in finding


@pytest.mark.parametrize("platform, name, pool", [
    ("aws", "g6f.large", dict(profile=profile("x86_64", {"type": "nvidia-l4", "count": 1}))),
    ("azure", "Standard_NV6ads_A10_v5", dict(profile=profile("x86_64", {"type": "nvidia-a10", "count": 1}))),
    ("azure", "Standard_ND128isr_NDR_GB200_v6", dict(profile=profile("arm64", {"type": "nvidia-b200", "count": 4}))),
    ("gcp", "a4x-highgpu-4g", dict(profile=profile("arm64", {"type": "nvidia-b200", "count": 4}))),
    ("azure", "Standard_D2s_v5", dict(nestedVirtualization=True)),
    ("azure", "Standard_D2s_v3", dict(nestedVirtualization=True)),
    ("gcp", "c4-standard-8", dict(nestedVirtualization=True)),
])
def test_fractional_gpus_and_the_new_entries_that_match(platform, name, pool):
    assert findings(props(instanceType=name, **pool), platform) == []


# --- pools the platforms declare (SPEC 14): EKS node groups and Karpenter NodePools ---------------------------

def _platform(*parts):
    from builders import run

    return run(*parts, platform="aws").findings("cloud-machine-catalog")


def test_a_node_groups_instance_types_exist_with_a_did_you_mean():
    from builders import node_group

    assert _platform(node_group("general", ["m7i.large", "m7i.xlarge"])) == []
    assert _platform(node_group("general", ["m7i.larg"])) == [
        "NodeGroup 'general': instance type 'm7i.larg' is not a machine type on AWS; did you mean 'm7i.large'?"]
    assert _platform(node_group("general", ["m9i.large"])) == []  # a family newer than the catalog: policy 14's


def test_a_node_groups_ami_type_agrees_with_its_instance_types():
    from builders import node_group

    assert _platform(node_group("arm", ["m7g.large"], ami_type="AL2023_ARM_64_STANDARD")) == []
    assert _platform(node_group("arm", ["m7i.large"], ami_type="CUSTOM")) == []
    assert _platform(node_group("arm", ["m7g.large", "m7i.large"], ami_type="BOTTLEROCKET_ARM_64")) == [
        "NodeGroup 'arm': amiType BOTTLEROCKET_ARM_64 runs arm64 nodes, but 'm7i.large' is an x86_64 machine, which "
        "cannot join it; use arm64 instance types or an amiType for x86_64"]
    (x86,) = _platform(node_group("x86", ["m7g.large"], ami_type="AL2023_x86_64_STANDARD"))
    assert "'m7g.large' is an arm64 machine" in x86


def test_a_nodepools_requirements_name_machines_that_exist_and_leave_one():
    from builders import arch_requirement, instance_types, node_class, nodepool

    assert _platform(node_class(), nodepool("np", [instance_types("m7g.large"), arch_requirement("arm64")])) == []
    assert _platform(node_class(), nodepool("np", [instance_types("m7g.large"), arch_requirement("amd64")])) == [
        "NodePool 'np': its requirements allow no instance type of the AWS catalog (the instance types or families "
        "they name are excluded by the others); Karpenter can launch no node for it: loosen the requirements"]
    assert _platform(node_class(), nodepool("np", [instance_types("c7gx.large")])) == [
        "NodePool 'np': instance type 'c7gx.large' is not a machine type on AWS; did you mean 'c7g.large'?"]
    # categories and generations alone never say "none": a machine launched since the catalog may meet them
    assert _platform(node_class(), nodepool("np", [{"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt",
                                                    "values": ["99"]}])) == []
