"""compute-guard: the rule engine and the policies of the pack.

Each public policy is one module named after it, holding its rule, its metadata and why it
exists; ``ALL`` lists them in the pack's order, which the README's table and docs/policies.md follow.
:func:`sdk_policies` turns them into the SDK's policy objects over one :class:`PackState`; ``__main__.py``
only assembles the pack.

    props -> values -> models (cluster, workloads, placement) -> rules -> findings -> report
"""

from __future__ import annotations

if __name__ != "compute_guard.policies":
    # One identity (SPEC section 7): loaded under a second name, the pack would hold two secret types
    # and two states, and a secret marked by one copy would print in clear through the other.
    raise ImportError(f"the policies load as compute_guard.policies only, not as {__name__}")

import gc
import importlib.metadata
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pulumi_policy import EnforcementLevel, PolicyPack

from . import (
    cloud_machine_catalog,
    cloud_machine_new_family,
    cluster_support_window,
    cluster_version_skew,
    compute_cluster_safe_update,
    compute_cluster_valid,
    compute_pools_single_architecture,
    disruption_budget_useful,
    dynamic_container_pool,
    exemptions_in_force,
    helm_release_unchecked,
    kubernetes_compute_enforceable,
    namespace_admits_workload,
    node_image_supported,
    platform_admits_workload,
    pool_address_space,
    pool_capacity,
    pool_replacement_safe,
    pool_safe_update,
    workload_api_available,
    workload_architecture_pin,
    workload_architecture_selector_valid,
    workload_disruption_allowed,
    workload_fits_pool,
    workload_interruption_tolerant,
    workload_node_architecture,
    workload_node_os,
    workload_pool_placement,
    workload_requests_declared,
    workload_rollout_fits,
    workload_schedulable,
    workload_zone_spread,
)
from .adapters import sdk
from .adapters.findings import listed
from .adapters.state import PackState
from .adapters.templates import Policy, resource_policy, stack_policy
from .exemptions_in_force import POLICY as EXEMPTIONS_IN_FORCE

ALL: tuple[Policy, ...] = (
    compute_cluster_valid.POLICY,
    kubernetes_compute_enforceable.POLICY,
    cloud_machine_catalog.POLICY,
    workload_architecture_selector_valid.POLICY,
    compute_cluster_safe_update.POLICY,
    compute_pools_single_architecture.POLICY,
    workload_pool_placement.POLICY,
    workload_node_architecture.POLICY,
    dynamic_container_pool.POLICY,
    workload_architecture_pin.POLICY,
    workload_fits_pool.POLICY,
    pool_capacity.POLICY,
    workload_schedulable.POLICY,
    helm_release_unchecked.POLICY,
    cloud_machine_new_family.POLICY,
    workload_disruption_allowed.POLICY,
    disruption_budget_useful.POLICY,
    workload_rollout_fits.POLICY,
    workload_zone_spread.POLICY,
    workload_requests_declared.POLICY,
    pool_safe_update.POLICY,
    workload_node_os.POLICY,
    workload_interruption_tolerant.POLICY,
    pool_replacement_safe.POLICY,
    cluster_version_skew.POLICY,
    workload_api_available.POLICY,
    pool_address_space.POLICY,
    namespace_admits_workload.POLICY,
    platform_admits_workload.POLICY,
    node_image_supported.POLICY,
    cluster_support_window.POLICY,
    exemptions_in_force.POLICY,  # last: it shows what the others' exemptions kept from them
)

PACK_NAME = "compute-guard"
PACK_DESCRIPTION = ("Rejects ComputeCluster compute pools and the Kubernetes workloads placed on them before "
                    "they are deployed: malformed pools, requirements Kubernetes cannot enforce, mixed CPU "
                    "architectures, unresolvable placement, Pods not pinned to their pool's architecture, Pods "
                    "no node of their pool can hold, pools too small for what is placed on them or for their "
                    "addresses, Pods their namespace or platform refuses, pools replaced under their workloads, "
                    "Kubernetes versions out of skew and API versions their cluster no longer serves; and shows "
                    "what it cannot check (Helm v3 Releases, machines newer than its catalog).")


# The pack's directory: the repository in a checkout (policies/ is at its top), or the staged pack
# (scripts/stage-pack puts them at compute_guard/policies/).
_PACK_DIRS = (Path(__file__).resolve().parents[1], Path(__file__).resolve().parents[2])


def _pack_version(*roots: Path) -> str:
    """The version PulumiPolicy.yaml in the pack's directory declares (the one place it is written:
    publish reads it there), else the installed distribution's, which carries it."""
    for root in roots or _PACK_DIRS:
        try:
            text = (root / "PulumiPolicy.yaml").read_text()
        except OSError:
            continue
        match = re.search(r"^version:\s*['\"]?([^'\"\s]+)", text, re.MULTILINE)
        return match.group(1) if match else "0.0.0"
    try:
        return importlib.metadata.version("compute-guard")
    except importlib.metadata.PackageNotFoundError:
        return "0.0.0"


PACK_VERSION = _pack_version()
BY_NAME = {policy.name: policy for policy in ALL}


def sdk_policies(policies: list[Policy] | tuple[Policy, ...], state: PackState) -> list[Any]:
    """The SDK's policy objects for ``policies``, sharing one pack state. exemptions-in-force is always
    there, last (the SDK runs stack policies in order, so it sees every other policy's exempted findings):
    a pack that could leave it out would let exemptions hide findings."""
    chosen = [p for p in policies if p.name != EXEMPTIONS_IN_FORCE.name]
    chosen.append(next((p for p in policies if p.name == EXEMPTIONS_IN_FORCE.name), EXEMPTIONS_IN_FORCE))
    return [stack_policy(p, state) if p.subject == "stack" else resource_policy(p, state) for p in chosen]


def choose(names: Iterable[str] | None = None, *, levels: Mapping[str, str] | None = None,
           settings: Mapping[str, Mapping[str, Any]] | None = None) -> list[Policy]:
    """Some of the policies by their public names (all by default), with an organisation's own default
    levels and settings. A stack's --policy-pack-config and a policy group's configuration still
    override both, as for any pack. Unknown names, levels and settings raise ValueError."""
    chosen = [BY_NAME[name] if name in BY_NAME else _unknown("policy", name, BY_NAME) for name in
              (names if names is not None else BY_NAME)]
    levels, settings = dict(levels or {}), dict(settings or {})
    for name in [*levels, *settings]:
        if name not in {policy.name for policy in chosen}:
            _unknown("chosen policy", name, {policy.name: policy for policy in chosen})
    result = []
    for policy in chosen:
        level = policy.level if policy.name not in levels else EnforcementLevel(levels[policy.name])
        defaults = dict(settings.get(policy.name, {}))
        schema = policy.config_schema
        for key in defaults:
            if schema is None or key not in schema.properties:
                _unknown(f"setting of {policy.name}", key, dict(schema.properties) if schema else {})
        result.append(replace(policy, level=level, defaults={**policy.defaults, **defaults}))
    return result


def _unknown(what: str, name: str, known: Mapping[str, object]) -> Any:
    raise ValueError(f"no {what} '{name}'; known: {listed(known) or 'none'}")


def policy_pack(name: str, policies: Iterable[Policy] | None = None, *, description: str = PACK_DESCRIPTION,
                enforcement_level: EnforcementLevel = EnforcementLevel.MANDATORY,
                exemption_days: int | None = None) -> PolicyPack:
    """An organisation's own pack of these policies (all of them by default, see :func:`choose`),
    assembled as this repository's __main__.py assembles compute-guard: the SDK shim installed (with a
    warning on an SDK it does not support) and one PackState for the process. ``exemption_days``: how far
    ahead an exemption may expire (default 365, or COMPUTE_GUARD_EXEMPTION_DAYS)."""
    # Read each resource's props from the engine's protobuf on demand instead of materializing three
    # copies of it per policy (policies/adapters/sdk.py; bench/benchmark.py measures the difference). It changes
    # no result; COMPUTE_GUARD_SDK_SHIM=off runs on the SDK's own path (the tests compare the two).
    sdk.check_config()  # what the CLI's schema validation cannot say in words is refused in Configure
    if os.environ.get("COMPUTE_GUARD_SDK_SHIM") == "off":
        sdk.uninstall()
    elif not sdk.install():
        print(f"{name}: pulumi-policy {sdk.SDK_VERSION} is not the supported {sdk.SUPPORTED_SDK}: props are read "
              "through the SDK (slower), with the same results", file=sys.stderr)
    # Large stacks allocate many long-lived objects; with CPython's default thresholds the collector
    # rescans them again and again, which made AnalyzeStack quadratic (bench/benchmark.py). They hold
    # no cycles worth collecting early.
    gc.freeze()
    gc.set_threshold(100_000, 50, 1_000)
    state = PackState(exemption_days=exemption_days)
    return PolicyPack(name=name, policies=sdk_policies(list(policies if policies is not None else ALL), state),
                      enforcement_level=enforcement_level, description=description)


__all__ = ["ALL", "BY_NAME", "PACK_DESCRIPTION", "PACK_NAME", "PACK_VERSION", "PackState", "Policy", "choose",
           "policy_pack", "sdk_policies"]
