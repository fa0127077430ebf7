"""The machine catalog: known facts pinned, and the generator reproduces the committed file."""

import subprocess
import sys

import pytest
from builders import ROOT

from policies.catalog import find_machine, is_same_architecture_aws_machine, machines, offering


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


def test_the_generator_reproduces_the_committed_file():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_catalog.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
