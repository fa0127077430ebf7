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

The same component serves programs in every Pulumi language as a component provider: its schema is
inferred from these annotations by ``pulumi.provider.experimental`` (see ``provider.py``), so they keep
to what that analyzer reads: no string annotations, no unions but ``| None``, and each field's
docstring becomes its description in the schema and the generated SDKs.
"""

import dataclasses
import types
import typing
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi

TYPE_TOKEN = "compute:index:ComputeCluster"
PACKAGE = TYPE_TOKEN.split(":", 1)[0]  # "compute": the package name of the component provider


@dataclass
class GpuSpec:
    """The GPUs of one machine."""

    type: pulumi.Input[str]
    """The GPU model, such as `nvidia-a10g`."""
    count: pulumi.Input[int]
    """How many GPUs one machine has."""


@dataclass
class MachineProfile:
    """The machine of a pool, described by its resources rather than by a provider's machine type."""

    cpu: pulumi.Input[str]
    """CPU cores as a Kubernetes quantity: `4`, `4.0` or `500m`."""
    memory_bytes: pulumi.Input[int]
    """Memory in bytes."""
    ephemeral_storage_bytes: pulumi.Input[int]
    """Ephemeral storage in bytes."""
    architecture: pulumi.Input[str] | None = None
    """The CPU architecture: `arm64` or `x86_64`."""
    gpu: GpuSpec | None = None
    """The GPUs of one machine, if it has any."""


@dataclass
class ComputeChoiceRange:
    """A range a user may choose a number of machines from, and its default."""

    min: pulumi.Input[int]
    """The least that may be chosen."""
    max: pulumi.Input[int]
    """The most that may be chosen."""
    default: pulumi.Input[int]
    """The number chosen when none is."""


@dataclass
class ScalePolicy:
    """How a pool scales: `fixed` with `machines`, or `autoscale` with `min` and `max`."""

    type: pulumi.Input[str]
    """`fixed` or `autoscale`."""
    machines: ComputeChoiceRange | None = None
    """For `fixed`: the number of machines."""
    min: ComputeChoiceRange | None = None
    """For `autoscale`: the least number of machines."""
    max: ComputeChoiceRange | None = None
    """For `autoscale`: the most number of machines."""


class FixedScalePolicy(ScalePolicy):
    """A pool of a fixed number of machines."""

    def __init__(self, machines: ComputeChoiceRange) -> None:
        super().__init__(type="fixed", machines=machines)


class AutoscaleScalePolicy(ScalePolicy):
    """A pool that scales between two numbers of machines."""

    def __init__(self, min: ComputeChoiceRange, max: ComputeChoiceRange) -> None:  # noqa: A002 (the JSON names)
        super().__init__(type="autoscale", min=min, max=max)


@dataclass
class CapacityGroup:
    """A compute pool: machines of one type or profile, between `minSize` and `maxSize` of them."""

    group_id: pulumi.Input[str]
    """The pool's id: lowercase letters, digits and hyphens."""
    min_size: pulumi.Input[int]
    """The least number of machines (0 to 10)."""
    max_size: pulumi.Input[int]
    """The most number of machines (minSize to 10)."""
    instance_type: pulumi.Input[str] | None = None
    """The platform's machine type, such as `m7g.xlarge`, `n2-standard-4` or `Standard_D4s_v5`."""
    profile: MachineProfile | None = None
    """The machine described by its resources."""
    scale_policy: ScalePolicy | None = None
    """How the pool scales between its sizes."""
    nested_virtualization: pulumi.Input[bool] | None = None
    """Whether the pool's machines must run virtual machines of their own."""


@dataclass
class ComputeClusterArgs:
    """A ComputeCluster's configuration."""

    id: pulumi.Input[str]
    """The cluster's id: letters, digits, `-` and `_`."""
    capacity_groups: Sequence[CapacityGroup]
    """The cluster's compute pools."""
    dynamic_container_pool: pulumi.Input[str] | None = None
    """The pool that containers created after install are placed on."""
    selected_failure_domains: Mapping[str, Sequence[pulumi.Input[str]]] | None = None
    """Per pool, the failure domains (zones) its machines are placed in."""
    failure_domain_spread: Mapping[str, pulumi.Input[int]] | None = None
    """Per pool, across how many failure domains (1 to 255) its machines are spread."""
    container_cidr: pulumi.Input[str] | None = None
    """The Pod network; each machine gets a /24 of it. Default 10.244.0.0/16."""


@dataclass
class ComputeClusterInputs:
    """A ComputeCluster's configuration as the component provider takes it from every language: ``ComputeClusterArgs``
    with the id as ``clusterId``, since the Pulumi SDKs of TypeScript and Go reserve ``id`` on resources and send
    no input of that name. compute-guard reads ``clusterId`` as the seed's ``id`` (SPEC section 2)."""

    cluster_id: pulumi.Input[str]
    """The cluster's id: letters, digits, `-` and `_` (the seed's `id`)."""
    capacity_groups: pulumi.Input[Sequence[pulumi.Input[CapacityGroup]]]
    """The cluster's compute pools."""
    dynamic_container_pool: pulumi.Input[str] | None = None
    """The pool that containers created after install are placed on."""
    selected_failure_domains: pulumi.Input[Mapping[str, pulumi.Input[Sequence[pulumi.Input[str]]]]] | None = None
    """Per pool, the failure domains (zones) its machines are placed in."""
    failure_domain_spread: pulumi.Input[Mapping[str, pulumi.Input[int]]] | None = None
    """Per pool, across how many failure domains (1 to 255) its machines are spread."""
    container_cidr: pulumi.Input[str] | None = None
    """The Pod network; each machine gets a /24 of it. Default 10.244.0.0/16."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _json_form(value: Any, hint: Any) -> Any:
    """``value`` in its camelCase JSON form, read as the type ``hint`` says, leaving out unset fields.

    A value of a dataclass type may be that dataclass or a mapping by its Python field names (what the
    component provider hands the component); only dataclass field names are rewritten, map keys such as
    pool ids stay as written, and anything else (a plain value, an Output) passes through unchanged.
    """
    hint = _unwrapped(hint)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if isinstance(value, Mapping):
            fields = dict(value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
        else:
            return value
        # field.type is the annotation itself (this module has no string annotations)
        return {_camel(field.name): _json_form(fields[field.name], field.type)
                for field in dataclasses.fields(hint) if fields.get(field.name) is not None}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Mapping, dict) and isinstance(value, Mapping):
        return {key: _json_form(item, args[1]) for key, item in value.items()}
    if origin in (Sequence, list) and isinstance(value, (list, tuple)):
        return [_json_form(item, args[0]) for item in value]
    return value


def _unwrapped(hint: Any) -> Any:
    """The type inside ``X | None`` and ``pulumi.Input[X]`` (the one value type the component's unions hold)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        kinds = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        # pulumi.Input[T] is T | Awaitable[T] | Output[T]: the form of T is the one to write
        values = [kind for kind in kinds if typing.get_origin(kind) not in (Awaitable, pulumi.Output)
                  and kind is not pulumi.Output and not isinstance(kind, typing.ForwardRef)]
        if len(values) == 1:
            return _unwrapped(values[0])
    return hint


def to_inputs(value: Any) -> Any:
    """The camelCase JSON form of typed arguments (any of this module's dataclasses), leaving out unset
    fields; map keys such as pool ids stay as written."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _json_form(value, type(value))
    return value


class ComputeCluster(pulumi.ComponentResource):
    """A ComputeCluster: logical compute pools for container workloads, checked by compute-guard."""

    cluster_id: pulumi.Output[str]
    """The cluster's id."""

    def __init__(self, resource_name: str, args: ComputeClusterArgs,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        props = _json_form(args, ComputeClusterArgs)
        super().__init__(TYPE_TOKEN, resource_name, props, opts)
        self.cluster_id = pulumi.Output.from_input(props.get("id"))
        self.register_outputs(props)
