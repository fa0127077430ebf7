"""compute-cluster-safe-update: a deployed ComputeCluster changes only in ways that are safe in place.

Changing a cluster's id or its container network orphans what runs on it, and moving a pool to a
machine of another CPU architecture replaces the autoscaling group with machines the stack's images
may not run on. The engine never hands a policy the previous inputs, so they come from the previous
deployment's state (policies/adapters/baseline.py): the configured ``baseline`` file, else the local
backend's checkpoint, else on any other backend the Pulumi CLI's ``pulumi stack export``. A
ComputeCluster that is not deployed yet has nothing to compare.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.cluster import Cluster, ParsedCluster, parse_cluster
from .model.values import Unknown, derived
from .platforms.catalog import CLOUD_PLATFORMS, find_machine, is_same_architecture_aws_machine


def compute_cluster_safe_update(old: Cluster, new: Cluster, platform: str | None = None) -> list[Finding]:
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
                f"{subject} {pool.label}: can't change machine from {_machine(old_type, platform)} to "
                f"{_machine(new_type, platform)}: only an AWS machine of the same CPU architecture can replace "
                f"it; keep '{old_type}', or add a new pool with the new machine and move workloads to it"))
    return findings


def _machine(name: str, platform: str | None) -> str:
    """A machine and its architecture, from the catalog of the stack's platform, else of the cloud that has it."""
    order = (platform, *CLOUD_PLATFORMS) if platform in CLOUD_PLATFORMS else CLOUD_PLATFORMS
    machine = next((found for cloud in order if (found := find_machine(str(cloud), name)) is not None), None)
    if machine is None:
        return f"'{name}' (a machine the catalog does not know)"
    return f"'{name}' ({derived(machine.architecture, name)})"


def _unknown_in(old: object, new: object) -> Unknown | None:
    """The value a comparison of two set values cannot make yet; a comparison with a value that is
    not set (None) is never made, so its other side being unknown does not matter."""
    if old is None or new is None:
        return None
    return old if isinstance(old, Unknown) else new if isinstance(new, Unknown) else None


def _check(cluster: ParsedCluster, context: Context) -> list[Finding]:
    previous = context.previous()
    old_inputs = previous.inputs.get(context.urn) if previous is not None else None
    if old_inputs is None:  # not deployed yet: nothing to change (without a previous deployment, the template says)
        return []
    return compute_cluster_safe_update(parse_cluster(old_inputs, context.name).model, cluster.model,
                                       context.platform)


POLICY_NAME = "compute-cluster-safe-update"
POLICY = Policy(
    name=POLICY_NAME,
    subject="ComputeCluster",
    description="A deployed ComputeCluster changes only in ways that are safe in place: its id never changes, "
                "a set containerCidr never changes, and a pool's machine changes only to another AWS machine "
                "of the same CPU architecture.",
    severity=Severity.CRITICAL,
    previous="whether its pools' machines change safely",
    remediation_steps="Keep the ComputeCluster's id and containerCidr; to move a pool to another CPU architecture "
                      "or cloud, add a new pool with the new machine, move workloads, then remove the old pool.",
    check=_check,
    reads_platform=True,
)
