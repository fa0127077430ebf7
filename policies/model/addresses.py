"""Address space (SPEC 20): the IP addresses a pool's nodes take from the subnets and ranges its network gives them.

A :class:`Space` is one block of addresses (an AKS node or pod subnet, a GKE cluster's Pod range, an EKS subnet), as a
source reads it from a resource or a literal input of the stack. A :class:`Draw` is what one pool takes of some spaces:
so many addresses (or one aligned block) per node, for its maximum nodes and the nodes an upgrade adds beside them, with
the arithmetic that says why. Every platform's rule lives with its source (``sources/aks.py``, ``sources/gke.py``,
``sources/eks.py``); ``pool-address-space`` only adds the draws up against the spaces.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from .values import Unknown, is_secret, undetermined


@dataclass(frozen=True)
class Space:
    """One block of addresses: ``size`` of them, of which the platform keeps ``reserved`` (``reserver`` says whose
    rule, as a clause)."""

    key: str  # what identifies it in the stack: a resource's URN, or its ID as written
    label: str  # how messages name it: "subnet 'aks-nodes' (10.0.0.0/24)"
    size: int
    reserved: int = 0
    reserver: str = ""

    @property
    def usable(self) -> int:
        return max(self.size - self.reserved, 0)

    def shown(self) -> str:
        """Its addresses, with the arithmetic: '256 - 5 reserved by Azure = 251'."""
        if not self.reserved:
            return f"{self.size} addresses"
        return f"{self.size} - {self.reserved} reserved by {self.reserver} = {self.usable} addresses"


@dataclass(frozen=True)
class Draw:
    """What one pool's nodes take of ``spaces`` (each node from one of them): ``per_node`` addresses each (``why``,
    the arithmetic), for ``surge`` nodes more than its maximum while it upgrades (``surge_why``)."""

    spaces: tuple[Space, ...]
    per_node: int
    why: str  # "(maxPods 30 + 1)"
    surge: int = 0
    surge_why: str = ""
    fix: str = ""  # the platform's own ways out, as a clause: "use Azure CNI Overlay"


Addresses = tuple[Draw, ...] | Unknown


@dataclass(frozen=True)
class Network:
    """Where a pool's nodes take their addresses, as its source read them: its nodes' subnets (each node in one),
    whether its Pods take theirs from a pod subnet of their own (AKS), and the nodes an upgrade adds beside its
    maximum (AKS maxSurge) with why."""

    subnets: tuple[Space, ...] | Unknown | None = None
    pod_subnet: bool = False
    pods: tuple[Space, ...] | Unknown | None = None  # the pod subnet its nodes take blocks of, where that is certain
    surge: int = 0
    surge_why: str = ""
    unread: str = ""  # what decides its draws that the pack does not model, as a clause (a VPC CNI's warm targets)


def cidr_size(value: object) -> int | None:
    """The addresses an IPv4 CIDR holds ('10.0.0.0/24': 256, a bare '/14': 262144); None when it is not one."""
    if not isinstance(value, str) or "/" not in value:
        return None
    prefix = value.rsplit("/", 1)[1]
    if not prefix.isdigit() or not 0 <= int(prefix) <= 32:
        return None
    if value.startswith("/"):
        return 2 ** (32 - int(prefix))
    try:
        network = ipaddress.ip_network(value, strict=False)
    except ValueError:
        return None
    return network.num_addresses if network.version == 4 else None


def block(addresses: int) -> int:
    """The smallest power of two holding ``addresses``: the aligned block a node takes of a range."""
    found = 1
    while found < addresses:
        found *= 2
    return found


def space_of(key: str, named: str, cidr: object, reserved: int = 0, reserver: str = "",
             default: bool = False) -> Space | Unknown | None:
    """The space a CIDR as written gives (``named``: how messages name it, "subnet 'nodes'"); Unknown when it is not
    known yet or is secret (its size would tell it), None when it is not an IPv4 CIDR. ``default``: the platform's,
    the stack writing none."""
    if isinstance(cidr, Unknown):
        return undetermined(f"the address range of {named} is not known yet")
    if is_secret(cidr):
        return undetermined(f"the address range of {named} is secret, so what it holds is neither shown nor judged")
    size = cidr_size(cidr)
    if size is None:
        return None
    return Space(key, f"{named} ({cidr}{', its default' if default else ''})", size, reserved, reserver)
