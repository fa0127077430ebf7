"""compute-cluster-safe-update: seed C's validate_update, between two deployments."""

from __future__ import annotations

from .catalog import is_same_architecture_aws_machine
from .cluster import Cluster
from .findings import Finding, Violation
from .values import Unknown


def compute_cluster_safe_update(old: Cluster, new: Cluster) -> list[Finding]:
    """What may not change in place: the id, a set containerCidr, and a pool's machine except
    for another AWS machine of the same CPU architecture (the controller rolls the fleet onto it;
    the stack's images may not run anywhere else)."""
    findings: list[Finding] = []
    subject = new.subject
    unknown = _unknown_in(old.id, new.id)
    if unknown is not None:
        findings.append(unknown)
    elif isinstance(old.id, str) and isinstance(new.id, str) and old.id != new.id:
        findings.append(Violation(f"{subject}: id is immutable; it was '{old.id}' and is now '{new.id}'; "
                                  f"restore id '{old.id}', or create a new ComputeCluster instead"))
    unknown = _unknown_in(old.container_cidr, new.container_cidr)
    if unknown is not None:
        findings.append(unknown)
    elif isinstance(old.container_cidr, str) and isinstance(new.container_cidr, str) \
            and old.container_cidr != new.container_cidr:
        findings.append(Violation(f"{subject}: containerCidr is immutable once set; it was '{old.container_cidr}' "
                                  f"and is now '{new.container_cidr}'; restore it"))
    if isinstance(old.pools, Unknown) or isinstance(new.pools, Unknown):
        findings.append(old.pools if isinstance(old.pools, Unknown) else new.pools)  # type: ignore[arg-type]
        return findings
    before = {pool.group_id: pool for pool in old.pools if isinstance(pool.group_id, str)}
    for pool in new.pools:
        if isinstance(pool.group_id, Unknown):
            findings.append(pool.group_id)
            continue
        previous = before.get(pool.group_id) if isinstance(pool.group_id, str) else None
        if previous is None:
            continue
        old_type, new_type = previous.instance_type, pool.instance_type
        unknown = _unknown_in(old_type, new_type)
        if unknown is not None:
            findings.append(unknown)
            continue
        if isinstance(old_type, str) and isinstance(new_type, str) and old_type != new_type \
                and not is_same_architecture_aws_machine(old_type, new_type):
            findings.append(Violation(
                f"{subject} {pool.label}: can't change machine from '{old_type}' to '{new_type}': only an "
                f"AWS machine of the same CPU architecture can replace it; keep '{old_type}', or add a new pool "
                "with the new machine and move workloads to it"))
    return findings


def _unknown_in(old: object, new: object) -> Unknown | None:
    """The value a comparison of two set values cannot make yet; a comparison with a value that is
    not set (None) is never made, so its other side being unknown does not matter."""
    if old is None or new is None:
        return None
    return old if isinstance(old, Unknown) else new if isinstance(new, Unknown) else None
