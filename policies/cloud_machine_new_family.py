"""cloud-machine-new-family: a pool's machine is of a family newer than the machine catalog.

Clouds launch machine families every few months; the catalog (policies/platforms/data/machines.json) knows
the ones that existed when it was generated. A pool's ``instanceType`` the catalog does not have,
that follows the platform's naming and names a family the catalog does not know, is not a typo
(cloud-machine-catalog leaves it alone): it is a machine this pack cannot check. This policy says
so, and what went unchecked. Advisory by default, so a new machine never fails a preview; an
organisation that allows catalogued machines only sets it to mandatory. A name that breaks the
naming, or a size its known family does not have, stays a violation of cloud-machine-catalog. A platform pool
(SPEC 14: a Karpenter or AKS node auto-provisioning NodePool) that names such a machine among its instance types or
VM sizes is said the same way: a NodePool that names only new machines has no machine the pack knows, so nothing
placed on it was judged, and without this it went unsaid.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.cluster import Cluster, ParsedCluster
from .model.pool import Pool
from .model.values import SecretText, Unknown
from .platforms.catalog import CLOUD_PLATFORMS, MACHINE_KINDS, PLATFORM_NAMES, about, find_machine, new_family
from .words import pool_subject


def cloud_machine_new_family(cluster: Cluster, platform: str) -> list[Finding]:
    """Each pool whose instanceType reads as a machine launched after the catalog."""
    if isinstance(cluster.pools, Unknown):
        return [cluster.pools]
    findings: list[Finding] = []
    for pool in cluster.pools:
        name = pool.instance_type
        if isinstance(name, Unknown):
            findings.append(name)
            continue
        if not isinstance(name, str) or find_machine(platform, name) is not None:
            continue
        family = new_family(platform, name)
        if family is None:
            continue  # not a machine of the platform: cloud-machine-catalog's
        findings.append(Violation(f"{cluster.subject} {pool.label}: instanceType '{name}' "
                                  f"{_since(platform, name, family)}: its architecture, GPU and nested "
                                  "virtualization were not checked; make sure they match the pool, and refresh the "
                                  "catalog (scripts/generate_catalog.py)"))
    return findings


def _since(platform: str, name: str, family: str) -> str:
    named = "" if isinstance(name, SecretText) else f" of the new family '{family}'"
    return (f"is not in the machine catalog (refreshed {about().get('refreshed', 'at an unknown date')}) but follows "
            f"{PLATFORM_NAMES[platform]}'s naming, as a machine{named} launched since")


def platform_pool(pool: Pool) -> list[Finding]:
    """A platform pool (SPEC 14) that names a machine launched after the catalog (a NodePool's instance types or AKS
    sizes In): its nodes of that machine, and the Pods placed on them, were not judged."""
    platform = str(pool.platform)
    findings: list[Finding] = []
    for name in pool.named_types:
        family = new_family(platform, name) if find_machine(platform, name) is None else None
        if family is not None:
            findings.append(Violation(
                f"{pool_subject(pool)}: {MACHINE_KINDS[platform][:-1]} '{name}' {_since(platform, name, family)}: "
                "its nodes of that machine, and the Pods placed on them, were not judged; refresh the catalog "
                "(scripts/generate_catalog.py)", pool.urn))
    return findings


def _platform_pools(pools: list[Pool], context: Context) -> list[Finding]:
    return [finding for pool in pools if pool.platform in CLOUD_PLATFORMS for finding in platform_pool(pool)]


def _check(cluster: ParsedCluster, context: Context) -> list[Finding]:
    return cloud_machine_new_family(cluster.model, str(context.platform))


POLICY = Policy(
    name="cloud-machine-new-family",
    subject="ComputeCluster",
    level=EnforcementLevel.ADVISORY,
    platforms=CLOUD_PLATFORMS,
    platforms_label="a cloud with a machine catalog",
    description="On aws, gcp and azure, a pool's machine of a family newer than the machine catalog: a real "
                "machine whose architecture, GPU and nested virtualization the pack cannot check (advisory by "
                "default; set it to mandatory to allow catalogued machines only).",
    severity=Severity.LOW,
    remediation_steps="Make sure the machine's architecture, GPU and nested virtualization match the pool, and "
                      "refresh the machine catalog (scripts/generate_catalog.py) so that they are checked.",
    check=_check,
    platform_pool_check=_platform_pools,
)
