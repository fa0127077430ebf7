"""The ComputeCluster component (SPEC section 2): each capacity group is a pool, placed by the
``compute.alien.dev/cluster`` and ``compute.alien.dev/pool`` labels (policies/model/placement.py).

A pool's machine and architecture are derived here, once per platform (SPEC section 2). On aws, gcp and azure a
pool's ``instanceType`` that the catalog knows *provides* its machine: the machine's architecture is the pool's when
its profile declares none (seed C: "required or provided"; upstream alien derives a cloud pool's profile from its
machine's catalog entry), and its node is the machine's, even beside a profile, which then only states what the pool
requires (cloud-machine-catalog holds it to the machine); the catalog has no disk, so a machine's ephemeral storage
is its profile's. On kubernetes and local a pool is its profile only, and a machine the catalog does not know
provides nothing: no architecture is guessed.

A ComputeCluster's configuration is its outputs when they hold ``capacityGroups``; otherwise the inputs the pack saw
for its URN in Analyze (SPEC section 4: a user's component registers only the outputs it chooses to).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from ...platforms.catalog import CLOUD_PLATFORMS, find_machine
from ...platforms.quantity import CPU, MAX_AMOUNT, MEMORY, STORAGE
from ..cluster import (
    MAX_POOL_SIZE,
    CapacityGroup,
    Cluster,
    ClusterEntry,
    Gpu,
    Profile,
    is_compute_cluster,
    parse_cluster,
)
from ..clusters import Claim
from ..pods import DEVICES, gpu_devices
from ..pool import ClusterRef, Hardware, Machines, Option, Pool, machine_hardware
from ..resources import StackResource
from ..values import Unknown, derived, is_mapping, undetermined
from . import Context, Read, Source


def _has_key(props: Any, *keys: str) -> bool:
    """``key in props`` without reading the value (which raises when it is unknown)."""
    return is_mapping(props) and any(key in keys for key in props)


def configuration(props: Any, urn: str, name: str, seen_inputs: Mapping[str, Cluster]) -> Cluster | Unknown:
    """A ComputeCluster's configuration: its outputs when they hold it, else its inputs as Analyze saw them."""
    if _has_key(props, "capacityGroups", "capacity_groups"):
        return parse_cluster(props, name).model
    seen = seen_inputs.get(urn)
    if seen is not None:
        return seen
    return undetermined(f"the configuration of ComputeCluster '{name}' is not available: its outputs "
                        "hold no capacityGroups and its inputs were not analyzed in this run")


def pool_machines(group: CapacityGroup, platform: str | None) -> Machines:
    """The group's machine and architecture on ``platform`` (None: not known, so no machine provides anything)."""
    cloud = platform in CLOUD_PLATFORMS
    machine = find_machine(str(platform), group.instance_type) if cloud and isinstance(group.instance_type, str) \
        else None
    named = group.instance_type if machine is not None and isinstance(group.instance_type, str) else None
    hardware = group_hardware(group, platform)
    options = (Option(hardware),) if isinstance(hardware, Hardware) else ()
    late = hardware if isinstance(hardware, Unknown) else None
    if group.architecture is not None:  # declared (or not known yet): the profile's word is the pool's
        return Machines(options, group.architecture, "profile", late, named)
    if cloud and isinstance(group.instance_type, Unknown):  # the machine that would provide it is not known yet
        return Machines(options, group.instance_type, "machine", late, None)
    if machine is not None:
        return Machines(options, derived(machine.architecture, group.instance_type), "machine", late, named)
    return Machines(options, None, None, late, None)


def group_hardware(group: CapacityGroup, platform: str | None) -> Hardware | Unknown | None:
    """What one node of the group has on ``platform``: its machine's catalog facts on a cloud (and its profile's
    disk), else its profile's; None when nothing about its machine is known."""
    if isinstance(group.whole, Unknown):
        return group.whole
    cloud = platform in CLOUD_PLATFORMS
    if cloud and isinstance(group.instance_type, Unknown):
        return group.instance_type  # the machine, whose facts would be the node's, is not known yet
    machine = find_machine(str(platform), group.instance_type) if cloud and isinstance(group.instance_type, str) \
        else None
    if machine is not None:  # its machine, even beside a profile (which must not claim more)
        found = machine_hardware(machine, group.instance_type)
        capacity, late, secret = dict(found.capacity), dict(found.unknown), set(found.secret)
        profile = group.profile
        if isinstance(profile, Profile) and isinstance(profile.storage, int) and profile.storage <= MAX_AMOUNT:
            capacity[STORAGE] = Decimal(profile.storage)  # the catalog has no disk: the profile's, as stated
            secret |= profile.secret & {STORAGE}
        elif isinstance(profile, Profile) and isinstance(profile.storage, Unknown):
            late[STORAGE] = profile.storage
        return Hardware(found.name, found.architecture, capacity, late, frozenset(secret), found.gpu_type,
                        found.max_pods, machine)
    if isinstance(group.profile, Unknown):
        return group.profile
    if not isinstance(group.profile, Profile):
        return None  # no profile, and no machine the catalog knows: cloud-machine-catalog says so
    profile = group.profile
    capacity = {}
    unknown: dict[str, Unknown] = {}
    for resource, value in ((CPU, profile.cpu), (MEMORY, profile.memory), (STORAGE, profile.storage)):
        if isinstance(value, Unknown):
            unknown[resource] = value
        elif value is not None and Decimal(value) <= MAX_AMOUNT:  # larger: no machine; not checked
            capacity[resource] = Decimal(value)
    gpu, gpu_type = group.gpu, None
    if isinstance(gpu, Unknown):
        unknown.update(dict.fromkeys(DEVICES, gpu))
    elif gpu is None:
        capacity.update(dict.fromkeys(DEVICES, Decimal(0)))
    elif isinstance(gpu.type, Unknown):
        unknown.update(dict.fromkeys(DEVICES, gpu.type))
    elif isinstance(gpu.count, Unknown):
        unknown.update(dict.fromkeys(DEVICES, gpu.count))
    elif isinstance(gpu.type, str) and isinstance(gpu.count, int):
        gpu_type = gpu.type
        for resource in DEVICES:
            capacity[resource] = gpu_devices(resource, gpu.type, gpu.count)
    architecture = group.architecture if isinstance(group.architecture, str) else None
    return Hardware(None, architecture, capacity, unknown, profile.secret, gpu_type)


def pools(entry: ClusterEntry) -> list[Pool]:
    """The ComputeCluster's capacity groups as pools (none while its configuration or its pools are not known)."""
    cluster = entry.cluster
    if isinstance(cluster, Unknown) or isinstance(cluster.pools, Unknown):
        return []
    ref = ClusterRef(entry.urn, entry.label, "ComputeCluster", declared=True)
    return [Pool("ComputeCluster", entry.urn, group.group_id if isinstance(group.group_id, str) else group.label,
                 cluster=ref, min_size=group.min_size, max_size=group.max_size,
                 zones=_zones(cluster, group), group=group, owner=entry, member=group.label, most_nodes=MAX_POOL_SIZE,
                 derive=functools.partial(pool_machines, group)) for group in cluster.pools]


def _zones(cluster: Cluster, group: CapacityGroup) -> tuple[str, ...] | Unknown | None:
    """A pool's failure domains (seed C's selectedFailureDomains), when they are selected."""
    selected = cluster.selected_failure_domains
    if isinstance(selected, Unknown):
        return selected
    if not isinstance(selected, Mapping) or not isinstance(group.group_id, str):
        return None
    found = selected.get(group.group_id)
    return found if isinstance(found, (tuple, Unknown)) else None


def read(resources: Sequence[StackResource], context: Context) -> Read:
    found = Read()
    for resource in resources:
        config = configuration(resource.props, resource.urn, resource.name, context.seen_inputs)
        entry = ClusterEntry(resource.urn, resource.name, config)
        found.entries.append(entry)
        found.pools.extend((pool, Claim(resource)) for pool in pools(entry))
    return found


SOURCES = (Source("ComputeCluster", (), read, accepts=is_compute_cluster, judged_alone=False),)

__all__ = ["Gpu", "configuration", "group_hardware", "pool_machines", "pools"]
