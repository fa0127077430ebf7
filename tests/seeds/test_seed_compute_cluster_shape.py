"""Seed 001 (compute_cluster.rs): its shape tests, expressed on the ComputeCluster component."""

import dataclasses

from builders import GIB, raw_cluster, run
from google.protobuf import json_format

from compute_guard.component import (
    CapacityGroup,
    ComputeCluster,
    ComputeClusterArgs,
    GpuSpec,
    MachineProfile,
    to_inputs,
)
from compute_guard.policies.model.cluster import DEFAULT_CONTAINER_CIDR, parse_cluster
from compute_guard.testkit import capture_program


def captured(args):
    resources = capture_program(lambda: ComputeCluster("compute", args))
    (resource,) = resources
    return resource


def general(instance_type="m7g.xlarge", **changes):
    return CapacityGroup(group_id="general", instance_type=instance_type, min_size=changes.pop("min_size", 1),
                         max_size=changes.pop("max_size", 5), **changes)


def test_compute_cluster_creation():
    args = ComputeClusterArgs(id="compute", capacity_groups=[general()])
    result = run(lambda: ComputeCluster("compute", args), platform="aws")
    assert result.of("compute-cluster-valid") == []
    cluster, findings = parse_cluster(json_format.MessageToDict(captured(args).inputs), "compute")
    assert findings == []
    assert [pool.group_id for pool in cluster.pools] == ["general"]
    assert cluster.container_cidr is None  # not set: the default network applies
    # the default network is the one an existing Kubernetes cluster has: stating it changes nothing there,
    # while any other network is one it cannot apply
    on_kubernetes = dataclasses.replace(args, capacity_groups=[general(instance_type=None)])
    for cidr, expected in ((None, []), (DEFAULT_CONTAINER_CIDR, []), ("10.96.0.0/16", [
            "ComputeCluster 'compute': containerCidr '10.96.0.0/16' cannot be applied, the Pod network of an existing "
            "Kubernetes cluster is administrator-managed; remove containerCidr or set it to 10.244.0.0/16"])):
        stated = dataclasses.replace(on_kubernetes, container_cidr=cidr)
        result = run(lambda stated=stated: ComputeCluster("compute", stated), platform="kubernetes")
        assert result.findings("kubernetes-compute-enforceable") == expected, cidr
        assert result.findings("compute-cluster-valid") == []


def test_compute_cluster_multiple_capacity_groups():
    gpu = CapacityGroup(group_id="gpu", instance_type="g5.xlarge", min_size=0, max_size=2,
                        profile=MachineProfile(cpu="4.0", memory_bytes=16 * GIB, ephemeral_storage_bytes=200 * GIB,
                                               gpu=GpuSpec(type="nvidia-a10g", count=1)))
    args = ComputeClusterArgs(id="multi-pool", capacity_groups=[general(max_size=3), gpu])
    result = run(lambda: ComputeCluster("multi-pool", args), platform="aws")
    assert result.of("compute-cluster-valid") == []
    cluster, _ = parse_cluster(json_format.MessageToDict(captured(args).inputs), "multi-pool")
    assert [pool.group_id for pool in cluster.pools] == ["general", "gpu"]
    assert cluster.pools[1].gpu is not None and cluster.pools[1].gpu.type == "nvidia-a10g"
    assert cluster.pools[1].gpu.count == 1


def test_compute_cluster_custom_cidr():
    args = ComputeClusterArgs(id="custom-net", container_cidr="172.30.0.0/16",
                              capacity_groups=[general(instance_type=None)])
    result = run(lambda: ComputeCluster("custom-net", args), platform="aws")
    assert result.of("compute-cluster-valid") == []
    cluster, _ = parse_cluster(json_format.MessageToDict(captured(args).inputs), "custom-net")
    assert cluster.container_cidr == "172.30.0.0/16"


def test_compute_cluster_serialization():
    """The component's camelCase JSON form round-trips: inputs == outputs == to_inputs(args)."""
    args = ComputeClusterArgs(id="test-cluster", capacity_groups=[general()])
    resource = captured(args)
    inputs = json_format.MessageToDict(resource.inputs)
    assert inputs == json_format.MessageToDict(resource.outputs)
    assert inputs == {"id": "test-cluster", "capacityGroups": [
        {"groupId": "general", "instanceType": "m7g.xlarge", "minSize": 1.0, "maxSize": 5.0}]}
    assert to_inputs(args) == {"id": "test-cluster", "capacityGroups": [
        {"groupId": "general", "instanceType": "m7g.xlarge", "minSize": 1, "maxSize": 5}]}  # before the wire
    # A user's own component in snake_case is the same cluster.
    snake = {"id": "test-cluster", "capacity_groups": [
        {"group_id": "general", "instance_type": "m7g.xlarge", "min_size": 1, "max_size": 5}]}
    camel_model, _ = parse_cluster(inputs, "compute")
    snake_model, findings = parse_cluster(snake, "compute")
    assert findings == [] and snake_model == camel_model
    assert run(raw_cluster(snake), platform="aws").of("compute-cluster-valid") == []
