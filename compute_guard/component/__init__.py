"""The ComputeCluster component (``compute:index:ComputeCluster``).

Typed arguments describe a ComputeCluster's configuration; the component passes their camelCase JSON form
as its inputs and registers the same form as its outputs, so both the resource policies
(inputs) and the stack policies (outputs) of compute-guard see its configuration.

    from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs, MachineProfile

    ComputeCluster("compute", ComputeClusterArgs(
        id="compute",
        capacity_groups=[CapacityGroup(group_id="general", min_size=1, max_size=3,
                                       profile=MachineProfile(cpu="2", memory_bytes=4 << 30,
                                                              ephemeral_storage_bytes=20 << 30,
                                                              architecture="x86_64"))],
    ))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

TYPE_TOKEN = "compute:index:ComputeCluster"


@dataclass
class GpuSpec:
    type: pulumi.Input[str]
    count: pulumi.Input[int]


@dataclass
class MachineProfile:
    cpu: pulumi.Input[str]
    memory_bytes: pulumi.Input[int]
    ephemeral_storage_bytes: pulumi.Input[int]
    architecture: pulumi.Input[str] | None = None  # "arm64" | "x86_64"
    gpu: GpuSpec | None = None


@dataclass
class ComputeChoiceRange:
    min: pulumi.Input[int]
    max: pulumi.Input[int]
    default: pulumi.Input[int]


@dataclass
class FixedScalePolicy:
    machines: ComputeChoiceRange
    type: str = field(default="fixed", init=False)


@dataclass
class AutoscaleScalePolicy:
    min: ComputeChoiceRange
    max: ComputeChoiceRange
    type: str = field(default="autoscale", init=False)


@dataclass
class CapacityGroup:
    group_id: pulumi.Input[str]
    min_size: pulumi.Input[int]
    max_size: pulumi.Input[int]
    instance_type: pulumi.Input[str] | None = None
    profile: MachineProfile | None = None
    scale_policy: FixedScalePolicy | AutoscaleScalePolicy | None = None
    nested_virtualization: pulumi.Input[bool] | None = None


@dataclass
class ComputeClusterArgs:
    id: pulumi.Input[str]
    capacity_groups: Sequence[CapacityGroup]
    dynamic_container_pool: pulumi.Input[str] | None = None
    selected_failure_domains: Mapping[str, Sequence[pulumi.Input[str]]] | None = None
    failure_domain_spread: Mapping[str, pulumi.Input[int]] | None = None
    container_cidr: pulumi.Input[str] | None = None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def to_inputs(value: Any) -> Any:
    """The camelCase JSON form of the typed arguments, leaving out unset fields.

    Only dataclass field names are rewritten: map keys such as pool ids stay as written.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {_camel(f.name): to_inputs(getattr(value, f.name))
                for f in dataclasses.fields(value) if getattr(value, f.name) is not None}
    if isinstance(value, Mapping):
        return {key: to_inputs(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_inputs(item) for item in value]
    return value


class ComputeCluster(pulumi.ComponentResource):
    """A ComputeCluster: logical compute pools for container workloads."""

    def __init__(self, resource_name: str, args: ComputeClusterArgs,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        props = to_inputs(args)
        super().__init__(TYPE_TOKEN, resource_name, props, opts)
        self.cluster_id: pulumi.Output[str] = pulumi.Output.from_input(args.id)
        self.register_outputs(props)
