"""Which platform the stack deploys to: the policy's ``platform`` config, else ``compute:platform``, else the one
platform every pool of the stack is typed by (an EKS node group's is aws: its machines are in AWS's catalog).

The engine hands the stack's configuration to the pack process as the ``PULUMI_CONFIG``
environment variable (a JSON object of ``namespace:key`` to string).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

PLATFORMS = ("aws", "gcp", "azure", "kubernetes", "local")
ONE_OF = "aws, gcp, azure, kubernetes, local"  # PLATFORMS as a message lists them (tests/test_layout.py holds it)
STACK_CONFIG_KEY = "compute:platform"
NOT_KNOWN = "the platform is not known"  # how a not-applicable reason for want of a platform begins

PLATFORM_SCHEMA: dict[str, Any] = {
    "type": "string",
    "enum": list(PLATFORMS),
    "description": "Platform the stack deploys to; overrides the stack config 'compute:platform'.",
}

def resolve_platform(policy_config: Mapping[str, Any], stack_config: Mapping[str, Any]) -> tuple[str | None, str]:
    """(platform, where it came from) or (None, why it could not be learned), from the policy's
    config and the stack's configuration."""
    configured = policy_config.get("platform") if isinstance(policy_config, Mapping) else None
    if configured is not None:
        if configured in PLATFORMS:
            return configured, "policy config 'platform'"
        return None, f"policy config 'platform' must be one of {ONE_OF}"
    value = stack_config.get(STACK_CONFIG_KEY)
    if value is None:
        return None, (f"{NOT_KNOWN}: set the stack config '{STACK_CONFIG_KEY}' "
                      f"(one of {ONE_OF}) or this policy's 'platform' config")
    if isinstance(value, str) and value.strip().strip('"') in PLATFORMS:
        return value.strip().strip('"'), f"stack config '{STACK_CONFIG_KEY}'"
    return None, f"stack config '{STACK_CONFIG_KEY}' must be one of {ONE_OF}"


def implied_platform(platforms: Iterable[str | None]) -> str | None:
    """The platform the pools say, when every one is a platform's own (a node group, a GKE or AKS pool: typed by its
    cloud) and all are the same one; None when there is none, when a pool has no platform of its own (a
    ComputeCluster's: its machines depend on the stack's platform) or when they disagree."""
    found = set(platforms)
    if len(found) != 1:
        return None
    (only,) = found
    return only if only in PLATFORMS else None


def platform_unset(policy_config: Mapping[str, Any], stack_config: Mapping[str, Any]) -> bool:
    """Neither the policy's config nor the stack config names a platform (an invalid name is not 'unset')."""
    configured = policy_config.get("platform") if isinstance(policy_config, Mapping) else None
    return configured is None and stack_config.get(STACK_CONFIG_KEY) is None
