"""pool-address-space: every pool can reach its maximum size with the addresses its network gives its nodes (SPEC 20,
policy 28).

Pools run out of IP addresses before they run out of CPU (Azure/AKS#1795 "Pre-allocated IPs 276 exceeds IPs available
251 in Subnet"; GoogleCloudPlatform/cloud-foundation-fabric#1644 IP_SPACE_EXHAUSTED; aws/karpenter-provider-aws#3380
InsufficientFreeAddressesInSubnet). What a node takes is its platform's rule, read by its source
(`Source.addresses`: sources/aks.py, sources/gke.py, sources/eks.py) from subnets and ranges the stack declares or
writes out; this policy adds those draws up. Only what the platform certainly takes is counted: a pool's maximum nodes
(and the nodes an upgrade adds, where the platform reserves them up front), and the nodes other pools of the same
space run at their minimum. A pool refused here can never reach its maximum size; a space the stack does not show is
not judged, and one not known yet is said.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.addresses import Draw, Space
from .model.network import address_use, pool_draws
from .model.pool import Pool
from .model.stack import Stack
from .model.values import Unknown, about, listed
from .words import fewer_nodes, nodes, pool_name, pool_subject


def pool_address_space(stack: Stack) -> list[Finding]:
    findings: list[Finding] = []
    taken = pool_draws(stack)
    known = [(pool, draw) for pool, draw in taken if not isinstance(draw, Unknown)]
    for pool, draw in taken:
        if pool.urn in stack.foreign:
            continue
        if isinstance(draw, Unknown):
            findings.append(about(f"{pool_subject(pool, stack.several_clusters)}: whether its network has "
                                  "addresses for its nodes is not judged", draw))
            continue
        finding = _judged(pool, draw, known, stack.several_clusters)
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(pool: Pool, draw: Draw, known: list[tuple[Pool, Draw]], several: bool) -> Finding | None:
    use = address_use(pool, draw)
    if use is None:
        return None  # its size is not known (pool-capacity says so)
    where = _where(draw.spaces)
    surge = f" + {draw.surge} while it upgrades ({draw.surge_why})" if draw.surge else ""
    needs = (f"at its maxSize of {nodes(pool, use.maximum)}{surge} its nodes take {use.nodes} x {draw.per_node} = "
             f"{use.needed} addresses {draw.why} of {where}")
    if use.nodes > use.room:
        return Violation(
            f"{pool_subject(pool, several)}: {needs}, which has {_shown(draw.spaces)}: room for {use.room} nodes, so "
            f"it can never reach {use.maximum}: {_fix(pool, draw, use.room)}", pool.urn)
    ours = {space.key for space in draw.spaces}
    others = [(other, theirs) for other, theirs in known if other is not pool and isinstance(other.min_size, int)
              and other.min_size > 0 and {space.key for space in theirs.spaces} <= ours]
    if not others:
        return None
    held = sum(other.min_size * theirs.per_node for other, theirs in others if isinstance(other.min_size, int))
    if use.needed + held <= use.usable:
        return None
    shares = listed([f"{pool_name(other, several)} {other.min_size} x {theirs.per_node}" for other, theirs in others
                     if isinstance(other.min_size, int)])
    left = max(use.usable - held, 0) // draw.per_node
    return Violation(
        f"{pool_subject(pool, several)}: {needs}, which has {_shown(draw.spaces)}, and the pools beside it hold "
        f"{held} of them at their minimum ({shares}): room for {left} nodes, so it can never reach {use.maximum}: "
        f"{_fix(pool, draw, left)}", pool.urn)


def _fix(pool: Pool, draw: Draw, room: int) -> str:
    lower = fewer_nodes(pool, max(room - draw.surge, 0))
    return f"use {draw.fix}, or {lower}" if lower else f"use {draw.fix}"


def _where(spaces: tuple[Space, ...]) -> str:
    return spaces[0].label if len(spaces) == 1 else f"its subnets {listed([space.label for space in spaces])}"


def _shown(spaces: tuple[Space, ...]) -> str:
    if len(spaces) == 1:
        return spaces[0].shown()
    return f"{sum(space.usable for space in spaces)} usable addresses ({listed([s.shown() for s in spaces], '; ')})"


def _check(stack: Stack, context: Context) -> list[Finding]:
    return pool_address_space(stack)


POLICY = Policy(
    name="pool-address-space",
    subject="stack",
    description="Every pool's subnets and Pod ranges have addresses for its nodes at its maximum size.",
    severity=Severity.HIGH,
    remediation_steps="Give the pool a larger subnet or Pod range, fewer Pods per node (maxPods), or a network mode "
                      "whose nodes take fewer addresses (Azure CNI Overlay); or lower its maximum size.",
    check=_check,
)
