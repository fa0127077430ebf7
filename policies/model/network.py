"""Each pool's draws on the address space as its source says them (SPEC 20): what pool-address-space judges and the
report shows, read once from the same facts (``Source.addresses``, policies/model/addresses.py)."""

from __future__ import annotations

from dataclasses import dataclass

from .addresses import Draw
from .memo import PerStack
from .pool import Pool
from .resources import type_of_urn
from .sources import source_of
from .stack import Stack
from .values import Unknown, listed


def pool_draws(stack: Stack) -> list[tuple[Pool, Draw | Unknown]]:
    """Each platform pool of the stack with what it takes of each space, or why that is not known (once per stack:
    pool-address-space, pool-capacity's limits and the report read the same)."""
    return DRAWS.of(stack)


def _draws(stack: Stack) -> list[tuple[Pool, Draw | Unknown]]:
    found: list[tuple[Pool, Draw | Unknown]] = []
    for pool in stack.platform_pools:
        source = source_of(type_of_urn(pool.urn))
        if source is None or source.addresses is None:
            continue
        draws = source.addresses(pool, stack.cluster_for(pool))
        if isinstance(draws, Unknown):
            found.append((pool, draws))
        elif draws:
            found.extend((pool, draw) for draw in draws)
    return found


DRAWS: PerStack[Stack, list[tuple[Pool, Draw | Unknown]]] = PerStack(_draws)


@dataclass(frozen=True)
class AddressUse:
    """What one draw asks of its spaces at the pool's maximum size: ``nodes`` (its maximum and its surge), the
    addresses they take, the addresses the spaces have, and how many nodes of it they hold."""

    draw: Draw
    maximum: int
    nodes: int
    needed: int
    usable: int
    room: int


def address_use(pool: Pool, draw: Draw) -> AddressUse | None:
    """None when the pool's size is not known (pool-capacity says so)."""
    most = pool.max_size
    if not isinstance(most, int) or draw.per_node <= 0:
        return None
    nodes = most + draw.surge
    return AddressUse(draw, most, nodes, nodes * draw.per_node, sum(space.usable for space in draw.spaces),
                      sum(space.usable // draw.per_node for space in draw.spaces))


@dataclass(frozen=True)
class Limit:
    """Fewer nodes than a pool's maxSize that its addresses can hold: ``nodes``, and why, as a clause ("subnet
    'aks-nodes' (10.0.1.0/24) addresses 8: 251 / 31 a node")."""

    nodes: int
    why: str
    fix: str = "give its nodes more addresses (pool-address-space says how)"  # what lets it have more, as a clause


def _limits(stack: Stack) -> dict[Pool, Limit]:
    found: dict[Pool, Limit] = {}
    for pool, draw in pool_draws(stack):
        if isinstance(draw, Unknown):
            continue
        use = address_use(pool, draw)
        if use is None or use.room >= use.maximum:
            continue
        if pool not in found or use.room < found[pool].nodes:
            spaces = listed([space.label for space in draw.spaces], " and ")
            found[pool] = Limit(use.room, f"{spaces} addresses {use.room} of them ({use.usable} addresses / "
                                          f"{draw.per_node} a node)")
    return found


LIMITS: PerStack[Stack, dict[Pool, Limit]] = PerStack(_limits)


def address_limit(stack: Stack, pool: Pool) -> Limit | None:
    """The nodes a pool's addresses hold when fewer than its maxSize (pool-address-space refuses it; pool-capacity
    counts only these), read once per stack."""
    return LIMITS.of(stack).get(pool)
