"""The machine catalog: known facts pinned, and the generator reproduces the committed file."""

import re
import subprocess
import sys

import pytest
from builders import ROOT, SHARED

from compute_guard.policies.platforms import catalog
from compute_guard.policies.platforms.catalog import (
    about,
    find_machine,
    is_same_architecture_aws_machine,
    machines,
    new_family,
    offering,
)

AZURE_SKUS = SHARED / "third_party" / "azure-known-skus" / "known_skus.yaml"


@pytest.mark.parametrize("name", [
    "a1.large", "t4g.small", "t4g.medium", "m6g.large", "m7g.xlarge", "m8g.large", "c6g.large", "c7g.large",
    "c8g.large", "r6g.large", "r7g.large", "r8g.large", "x2gd.large", "im4gn.large", "is4gen.large", "i4g.large",
    "g5g.xlarge", "hpc7g.4xlarge", "c6gn.large", "m7gd.large", "m7g.metal",
])
def test_graviton_families_are_arm64(name):
    assert find_machine("aws", name).architecture == "arm64"


@pytest.mark.parametrize("name", ["m7i.large", "c5.large", "m5.xlarge", "t3.micro", "g5.xlarge", "p4d.24xlarge",
                                  "m7a.large", "c7i-flex.large", "r7iz.large", "g4dn.xlarge", "inf2.xlarge"])
def test_intel_and_amd_families_are_x86_64(name):
    assert find_machine("aws", name).architecture == "x86_64"


def test_aws_covers_every_current_instance_type():
    import botocore.loaders

    names = botocore.loaders.Loader().load_service_model("ec2", "service-2")["shapes"]["InstanceType"]["enum"]
    assert len(names) > 1000
    assert {m.name for m in machines("aws")} == set(names)


def test_gpu_facts_are_real():
    g5 = find_machine("aws", "g5.xlarge")
    assert (g5.gpu_type, g5.gpu_count, g5.vcpus, g5.memory_mib) == ("nvidia-a10g", 1, 4, 16 * 1024)
    assert (find_machine("aws", "g5.48xlarge").gpu_count, find_machine("aws", "p4d.24xlarge").gpu_type) == (
        8, "nvidia-a100")
    assert find_machine("aws", "g4dn.xlarge").gpu_type == "nvidia-t4"
    assert find_machine("aws", "p5.48xlarge").gpu_type == "nvidia-h100"
    assert find_machine("aws", "m7i.large").gpu_type is None
    assert find_machine("gcp", "g2-standard-4").gpu_type == "nvidia-l4"
    assert find_machine("gcp", "a2-highgpu-1g").gpu_count == 1
    assert find_machine("azure", "Standard_NC4as_T4_v3").gpu_type == "nvidia-t4"


def test_sizes_from_the_price_list():
    t4g = find_machine("aws", "t4g.small")
    assert (t4g.vcpus, t4g.memory_mib) == (2, 2048)
    assert (find_machine("aws", "m5.metal").vcpus, find_machine("aws", "m7g.metal").vcpus) == (96, 64)


@pytest.mark.parametrize("platform, name, nested", [
    ("aws", "m5.metal", True), ("aws", "m7g.metal", True), ("aws", "m8i.large", True), ("aws", "c8i-flex.large", True),
    ("aws", "r8i.xlarge", True), ("aws", "m7i.large", False), ("aws", "t4g.small", False),
    ("gcp", "n1-standard-4", True), ("gcp", "n2-standard-4", True), ("gcp", "c2-standard-4", True),
    ("gcp", "c3-standard-4", True), ("gcp", "n2d-standard-4", False), ("gcp", "t2a-standard-4", False),
    ("gcp", "c4a-standard-4", False),
    ("azure", "Standard_D4s_v5", True), ("azure", "Standard_E4s_v5", True), ("azure", "Standard_F4s_v2", True),
    ("azure", "Standard_D4ps_v5", False),
])
def test_nested_virtualization(platform, name, nested):
    assert find_machine(platform, name).nested_virtualization is nested


@pytest.mark.parametrize("platform, name", [("gcp", "t2a-standard-4"), ("gcp", "c4a-standard-8"),
                                            ("gcp", "n4a-standard-2"), ("azure", "Standard_D4ps_v5"),
                                            ("azure", "Standard_E8ps_v5"), ("azure", "Standard_D4pds_v6")])
def test_cloud_arm_families(platform, name):
    assert find_machine(platform, name).architecture == "arm64"


def test_common_cloud_families_are_there():
    for platform, name in [("gcp", "e2-standard-4"), ("gcp", "n2-highmem-8"), ("gcp", "c3-highcpu-22"),
                           ("gcp", "m3-ultramem-32"), ("gcp", "z3-highmem-88"), ("azure", "Standard_D2s_v5"),
                           ("azure", "Standard_E16ds_v5"), ("azure", "Standard_L8s_v3"), ("azure", "Standard_B2s")]:
        assert find_machine(platform, name) is not None, name
    assert find_machine("gcp", "m7g.large") is None
    assert find_machine("kubernetes", "m7g.large") is None


def test_same_architecture_aws_machine():
    assert is_same_architecture_aws_machine("t4g.small", "t4g.medium")
    assert is_same_architecture_aws_machine("t4g.small", "m7g.large")
    assert not is_same_architecture_aws_machine("t4g.small", "m7i.large")
    assert not is_same_architecture_aws_machine("t4g.small", "t4g.unknown")
    assert not is_same_architecture_aws_machine("n2-standard-2", "n2-standard-4")


def test_offering():
    assert offering("aws", "arm64", "nvidia-t4g", 1) is not None
    assert offering("aws", "arm64", "nvidia-a10g") is None
    assert offering("gcp", "arm64", nested_virtualization=True) is None
    assert offering("azure", "x86_64", "nvidia-a100-80gb", 4) is not None


@pytest.mark.parametrize("platform", ["openstack", "kubernetes", ""])
def test_a_platform_without_a_catalog_has_no_machines(platform):
    assert list(machines(platform)) == []
    assert find_machine(platform, "m7i.large") is None
    assert offering(platform, "x86_64") is None
    assert new_family(platform, "m9i.large") is None


def test_the_generator_reproduces_the_committed_file():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_catalog.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_the_catalog_says_when_and_from_what_it_was_generated():
    recorded = about()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(recorded["refreshed"]))
    assert set(recorded["sources"]) == {"botocore", "apache-libcloud", "azure-known-skus", "gcp-machine-families",
                                         "eks-instance-info"}


def test_every_azure_size_of_the_known_list_is_in_the_catalog():
    import yaml

    listed = {entry["name"] for entry in yaml.safe_load(AZURE_SKUS.read_text())}
    assert len(listed) > 1200
    assert listed == {m.name for m in machines("azure")}


def test_azure_facts_from_the_name_and_family():
    d2 = find_machine("azure", "Standard_D2_v3")
    assert d2 is not None and (d2.vcpus, d2.memory_mib, d2.architecture, d2.nested_virtualization) == (
        2, 8 * 1024, "x86_64", True)
    constrained = find_machine("azure", "Standard_E16-4as_v5")
    assert constrained is not None and (constrained.vcpus, constrained.memory_mib) == (4, 128 * 1024)
    legacy = find_machine("azure", "Standard_D11_v2")  # memory-optimized Dv2: 2 vCPUs, 14 GiB (its size table)
    assert legacy is not None and legacy.vcpus == 2 and legacy.memory_mib == 14 * 1024
    arm = find_machine("azure", "Standard_E4pds_v6")
    assert arm is not None and (arm.architecture, arm.nested_virtualization) == ("arm64", False)
    a10 = find_machine("azure", "Standard_NV18ads_A10_v5")
    assert a10 is not None and (a10.gpu_type, a10.gpu_count, a10.gpu_fraction) == ("nvidia-a10", 1, 0.5)
    nd = find_machine("azure", "Standard_ND96isr_H100_v5")
    assert nd is not None and (nd.gpu_type, nd.gpu_count) == ("nvidia-h100", 8)


def test_fractional_gpus_count_as_one_device():
    fractional = [m for platform in ("aws", "gcp", "azure") for m in machines(platform) if m.gpu_fraction]
    assert {m.name for m in fractional} >= {"g6f.large", "gr6f.4xlarge", "Standard_NV6ads_A10_v5"}
    assert all(m.gpu_count == 1 and 0 < m.gpu_fraction < 1 for m in fractional)


SHARED_CORE = {"e2-micro", "e2-small", "e2-medium", "f1-micro", "g1-small"}  # of their series' family (issue 57)


@pytest.mark.parametrize("platform", ["aws", "gcp", "azure"])
def test_every_catalogued_name_follows_its_platforms_naming(platform):
    """Otherwise a family of the catalog could not be told from a new one."""
    odd = {m.name for m in machines(platform) if catalog._split(platform, m.name) is None}
    assert odd == ({m.name for m in machines("gcp") if m.name.startswith("x4-")}  # x4: sizes by memory
                   if platform == "gcp" else set())
    if platform == "gcp":
        assert {name: catalog.family_of("gcp", name) for name in SHARED_CORE} == {
            "e2-micro": "e2", "e2-small": "e2", "e2-medium": "e2", "f1-micro": "f1", "g1-small": "g1"}
    assert all(new_family(platform, m.name) is None for m in machines(platform))


def test_only_a_whole_new_family_reads_as_new():
    assert new_family("aws", "m9i.large") == "m9i"
    assert new_family("aws", "m7i.large") is None  # in the catalog
    assert new_family("aws", "m7i.3xlarge") is None  # a size m7i does not have
    assert new_family("gcp", "n5-standard-8") == "n5"
    assert new_family("gcp", "n2-standard-3") is None
    assert new_family("azure", "Standard_E8s_v9") == "E{n}s_v9"
    assert new_family("azure", "Standard_E3s_v5") is None
    assert new_family("azure", "Standard_E8sx_v5") is None  # 'x' is no feature letter
    assert new_family("azure", "Standard_D4ads_v9") == "D{n}ads_v9"  # feature letters combine freely
    assert new_family("azure", "Standard_E8pds_v9") == "E{n}pds_v9"
    assert new_family("azure", "Standard_ND96isr_H200_v9") == "ND{n}isr_H200_v9"  # each part after its '_'
    assert new_family("azure", "Standard_D4qz_v9") is None
