"""A pool's machine and its architecture (SPEC section 2), derived in this one place.

On aws, gcp and azure a pool's ``instanceType`` that the catalog knows *provides* its machine: the
machine's architecture is the pool's when its profile declares none (seed C: "required or provided";
upstream alien derives a cloud pool's profile from its machine's catalog entry), and its node is the
machine's (policies/model/nodes.py), even beside a profile, which then only states what the pool requires
(cloud-machine-catalog holds it to the machine). On kubernetes and local a pool is its profile only,
and a machine the catalog does not know provides nothing: no architecture is guessed.

Every policy, the remediation and the report read :func:`pool_machine`; none derives its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..platforms.catalog import CLOUD_PLATFORMS, Machine, find_machine
from .cluster import Pool
from .values import Unknown, derived

Source = Literal["profile", "machine"]


@dataclass(frozen=True)
class PoolMachine:
    """What a pool runs on, as far as its inputs and the catalog say."""

    machine: Machine | None  # the catalog's facts of its instanceType (aws, gcp, azure only)
    name: str | None  # that instanceType as written (a secret one stays marked); None without a machine
    architecture: str | Unknown | None  # profile.architecture, else the machine's; None when neither says
    source: Source | None  # where the architecture comes from

    @property
    def provided(self) -> bool:
        """The architecture is the machine's, not declared by the profile."""
        return self.source == "machine"


def pool_machine(pool: Pool, platform: str | None) -> PoolMachine:
    """The pool's machine and architecture on ``platform`` (None: not known, so no machine provides anything)."""
    cloud = platform in CLOUD_PLATFORMS
    machine = find_machine(str(platform), pool.instance_type) if cloud and isinstance(pool.instance_type, str) \
        else None
    name = pool.instance_type if machine is not None and isinstance(pool.instance_type, str) else None
    if pool.architecture is not None:  # declared (or not known yet): the profile's word is the pool's
        return PoolMachine(machine, name, pool.architecture, "profile")
    if cloud and isinstance(pool.instance_type, Unknown):  # the machine that would provide it is not known yet
        return PoolMachine(None, None, pool.instance_type, "machine")
    if machine is not None:
        return PoolMachine(machine, name, derived(machine.architecture, pool.instance_type), "machine")
    return PoolMachine(None, None, None, None)
