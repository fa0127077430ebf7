"""compute-guard: the rule engine and the policies of the pack.

Each public policy is one module named after it, holding its rule, its metadata and why it
exists; ``ALL`` lists them in the order the README's table does. :func:`sdk_policies` turns them
into the SDK's policy objects over one :class:`PackState`; ``__main__.py`` only assembles the pack.

    props -> values -> models (cluster, workloads, placement) -> rules -> findings -> report
"""

from __future__ import annotations

import re
from pathlib import Path

from . import (
    cloud_machine_catalog,
    compute_cluster_safe_update,
    compute_cluster_valid,
    compute_pools_single_architecture,
    dynamic_container_pool,
    kubernetes_compute_enforceable,
    workload_architecture_pin,
    workload_architecture_selector_valid,
    workload_node_architecture,
    workload_pool_placement,
)
from .state import PackState
from .templates import Policy, sdk_policies

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
)

PACK_NAME = "compute-guard"
PACK_DESCRIPTION = ("Rejects ComputeCluster compute pools and the Kubernetes workloads placed on them before "
                    "they are deployed: malformed pools, requirements Kubernetes cannot enforce, mixed CPU "
                    "architectures, unresolvable placement and Pods not pinned to their pool's architecture.")


def _pack_version() -> str:
    """The version PulumiPolicy.yaml declares (the one place it is written: publish reads it there)."""
    try:
        text = (Path(__file__).resolve().parent.parent / "PulumiPolicy.yaml").read_text()
    except OSError:
        return "0.0.0"
    match = re.search(r"^version:\s*['\"]?([^'\"\s]+)", text, re.MULTILINE)
    return match.group(1) if match else "0.0.0"


PACK_VERSION = _pack_version()

__all__ = ["ALL", "PACK_DESCRIPTION", "PACK_NAME", "PACK_VERSION", "PackState", "Policy", "sdk_policies"]
