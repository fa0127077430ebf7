"""cloud-machine-catalog: machines exist on the platform and offer what the pool declares."""

import pytest
from builders import CLUSTER_TYPE, analyze, cluster_findings

POLICY = "cloud-machine-catalog"


def props(**pool):
    group = {"groupId": "general", "minSize": 1, "maxSize": 3, **pool}
    return {"id": "compute", "capacityGroups": [group]}


def profile(architecture=None, gpu=None):
    value = {"cpu": "4", "memoryBytes": 16 << 30, "ephemeralStorageBytes": 20 << 30}
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
     "no GCP machine offers architecture arm64 with nested virtualization"),
    (dict(profile=profile("arm64", {"type": "nvidia-a10g", "count": 1})), "aws",
     "no AWS machine offers architecture arm64 with 1 nvidia-a10g GPU"),
    (dict(profile=profile(gpu={"type": "nvidia-h100", "count": 3})), "gcp", "no GCP machine offers 3 nvidia-h100 GPUs"),
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
