"""cloud-machine-catalog: a pool's machine exists on the platform and offers what the pool declares.

On aws, gcp and azure a pool names a machine type (checked against policies/platforms/data/machines.json,
with a did-you-mean for a typo) whose architecture, GPU and nested virtualization must match the
pool's profile, and which has at least the CPU and memory the profile claims (the machine provides the
pool's nodes: policies/model/sources/compute_cluster.py); a pool without one must declare a combination some
machine of the platform offers.
Otherwise the autoscaling group is created and its machines never join, or run the wrong images.

A name the catalog does not have that follows the platform's naming and names a family the
catalog does not know is a machine launched since: cloud-machine-new-family reports it (advisory by
default), and this policy leaves it alone. A name that breaks the naming, or a size its known
family does not have, is a violation here.
"""

from __future__ import annotations

import difflib
from decimal import Decimal

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy, moved_setting
from .model.cluster import CapacityGroup, Cluster, Gpu, ParsedCluster, Profile
from .model.pool import Pool
from .model.values import REDACTED, SecretText, Unknown
from .platforms.catalog import (
    CLOUD_PLATFORMS,
    MACHINE_KINDS,
    PLATFORM_NAMES,
    Machine,
    find_machine,
    machines,
    new_family,
    offering,
)
from .platforms.quantity import CPU, MEMORY, MIB, amount
from .words import pool_subject


def cloud_machine_catalog(cluster: Cluster, platform: str) -> list[Finding]:
    """Each pool's machine, or its portable profile, against the platform's catalog."""
    if isinstance(cluster.pools, Unknown):
        return [cluster.pools]
    findings: list[Finding] = []
    for pool in cluster.pools:
        if pool.whole is not None:
            findings.append(pool.whole)
            continue
        where = f"{cluster.subject} {pool.label}"
        unknown = next((v for v in (pool.instance_type, pool.architecture, pool.gpu, pool.nested_virtualization)
                        if isinstance(v, Unknown)), None)
        if isinstance(pool.gpu, Gpu):
            unknown = unknown or next((v for v in (pool.gpu.type, pool.gpu.count) if isinstance(v, Unknown)), None)
        if isinstance(pool.instance_type, str):
            findings.extend(_machine(where, pool, platform))
        else:
            findings.extend(_portable(where, pool, platform))
        if unknown is not None:
            findings.append(unknown)
    return findings


def _machine(where: str, pool: CapacityGroup, platform: str) -> list[Finding]:
    name = pool.instance_type
    assert isinstance(name, str)
    machine = find_machine(platform, name)
    if machine is None and new_family(platform, name) is not None:
        return []  # a machine launched since the catalog: cloud-machine-new-family's
    if machine is None:
        # A did-you-mean for a secret would print a near copy of it; secrets get the plain fix.
        close = [] if isinstance(name, SecretText) else \
            difflib.get_close_matches(name, [m.name for m in machines(platform)], n=1, cutoff=0.8)
        shown = PLATFORM_NAMES.get(platform, platform)
        hint = f"; did you mean '{close[0]}'?" if close else f"; use a machine type of {shown}"
        return [Violation(f"{where}: instanceType '{name}' is not a machine type on {shown}{hint}")]
    found: list[Finding] = list(_claims(where, pool, name, machine))
    if isinstance(pool.architecture, str) and pool.architecture != machine.architecture:
        found.append(Violation(f"{where}: profile.architecture is {pool.architecture} but '{name}' is an "
                               f"{machine.architecture} machine; fix the architecture or pick a "
                               f"{pool.architecture} machine"))
    gpu = pool.gpu
    if isinstance(gpu, Gpu) and isinstance(gpu.type, str):
        if machine.gpu_type is None:
            found.append(Violation(f"{where}: profile.gpu asks for {gpu.type} but '{name}' has no GPU; "
                                   "pick a GPU machine or remove profile.gpu"))
        elif gpu.type != machine.gpu_type:
            found.append(Violation(f"{where}: profile.gpu.type is {gpu.type} but '{name}' carries "
                                   f"{machine.gpu_type}; set profile.gpu.type to {machine.gpu_type}"))
        elif isinstance(gpu.count, int) and machine.gpu_count is not None and gpu.count != machine.gpu_count:
            found.append(Violation(f"{where}: profile.gpu.count is {gpu.count} but '{name}' has "
                                   f"{machine.gpu_count}; set profile.gpu.count to {machine.gpu_count}"))
    if pool.nested_virtualization is True and not machine.nested_virtualization:
        found.append(Violation(f"{where}: nestedVirtualization is true but '{name}' does not expose nested "
                               "virtualization; pick a machine that does (on AWS: bare metal, m8i, c8i, r8i)"))
    return found


def _claims(where: str, pool: CapacityGroup, name: str, machine: Machine) -> list[Finding]:
    """A profile beside a machine is what the pool requires: it must not claim more CPU or memory than the
    machine has (its Pods would be fitted to a node that is not there). Fit uses the machine either way."""
    profile = pool.profile
    if not isinstance(profile, Profile):
        return []
    found: list[Finding] = []
    for resource, field, claimed, has in (
            (CPU, "profile.cpu", profile.cpu, None if machine.vcpus is None else Decimal(machine.vcpus * 1000)),
            (MEMORY, "profile.memoryBytes", profile.memory,
             None if machine.memory_mib is None else Decimal(machine.memory_mib * MIB))):
        if isinstance(claimed, Unknown) or claimed is None or has is None or claimed <= has:
            continue
        said = REDACTED if resource in profile.secret else amount(resource, Decimal(claimed))
        hidden = isinstance(name, SecretText)  # every fact of a secret machine tells which machine it is
        unit = REDACTED if hidden else f"{machine.vcpus} vCPUs" if resource == CPU else amount(MEMORY, has)
        most = REDACTED if hidden else amount(resource, has)
        found.append(Violation(f"{where}: {field} is {said} but '{name}' has {unit}; the machine provides the "
                               f"pool's nodes, so claim at most {most} or pick a larger machine"))
    return found


def _portable(where: str, pool: CapacityGroup, platform: str) -> list[Finding]:
    """Without an instanceType, some machine of the platform must offer what the pool declares."""
    architecture = pool.architecture if isinstance(pool.architecture, str) else None
    gpu = pool.gpu if isinstance(pool.gpu, Gpu) else None
    gpu_type = gpu.type if gpu and isinstance(gpu.type, str) else None
    gpu_count = gpu.count if gpu and isinstance(gpu.count, int) else None
    nested = pool.nested_virtualization is True
    if architecture is None and gpu_type is None and not nested:
        return []
    if offering(platform, architecture, gpu_type, gpu_count, nested) is not None:
        return []
    wanted = [f"architecture {architecture}" if architecture else "",
              f"{gpu_count or 'a'} {gpu_type} GPU{'s' if (gpu_count or 1) > 1 else ''}" if gpu_type else "",
              "nested virtualization" if nested else ""]
    together = listed((part for part in wanted if part), " with ")
    shown = PLATFORM_NAMES.get(platform, platform)
    return [Violation(f"{where}: no {shown} machine offers {together}; change the profile or "
                      "nestedVirtualization so that some machine of the platform can serve the pool")]


def platform_pool(pool: Pool) -> list[Finding]:
    """A pool the platform declares (SPEC 14): its instance types exist, agree with its AMI type's architecture,
    and its requirements leave some machine."""
    where = pool_subject(pool)
    platform = str(pool.platform)
    shown = PLATFORM_NAMES[platform]
    findings: list[Finding] = []
    for name in pool.named_types:
        if find_machine(platform, name) is not None or new_family(platform, name) is not None:
            continue  # a machine launched since the catalog: cloud-machine-new-family's
        close = [] if isinstance(name, SecretText) else \
            difflib.get_close_matches(name, [m.name for m in machines(platform)], n=1, cutoff=0.8)
        hint = f"; did you mean '{close[0]}'?" if close else f"; use a machine type of {shown}"
        findings.append(Violation(f"{where}: {MACHINE_KINDS[platform][:-1]} '{name}' is not a machine type on "
                                  f"{shown}{hint}", pool.urn))
    if pool.ami_architecture is not None:
        for option in pool.options:
            machine = option.hardware
            if machine.architecture != pool.ami_architecture:
                findings.append(Violation(
                    f"{where}: amiType {pool.ami_type} runs {pool.ami_architecture} nodes, but '{machine.name}' is an "
                    f"{machine.architecture} machine, which cannot join it; use {pool.ami_architecture} instance "
                    f"types or an amiType for {machine.architecture}", pool.urn))
    if not pool.options and pool.names_certain and pool.unknown is None:
        findings.append(Violation(
            f"{where}: its requirements allow no {MACHINE_KINDS[platform][:-1]} of the {shown} catalog (the "
            f"{MACHINE_KINDS[platform]} or families they name are excluded by the others); Karpenter can launch no "
            "node for it: loosen the requirements", pool.urn))
    return findings


def _platform_pools(pools: list[Pool], context: Context) -> list[Finding]:
    return [finding for pool in pools for finding in platform_pool(pool)]


def _check(cluster: ParsedCluster, context: Context) -> list[Finding]:
    return cloud_machine_catalog(cluster.model, str(context.platform))


POLICY = Policy(
    name="cloud-machine-catalog",
    subject="ComputeCluster",
    platforms=CLOUD_PLATFORMS,
    platforms_label="a cloud with a machine catalog",
    settings={"newMachineFamilies": moved_setting("cloud-machine-new-family")},
    description="On aws, gcp and azure, a pool's instanceType is a machine of the platform that offers the "
                "declared architecture, GPU and nested virtualization, and at least the CPU and memory its profile "
                "claims; a pool without one declares a combination some machine of the platform offers.",
    severity=Severity.HIGH,
    remediation_steps="Use a machine type of the platform (see policies/platforms/data/machines.json), and make "
                      "profile.architecture, profile.gpu and nestedVirtualization match what it offers.",
    check=_check,
    platform_pool_check=_platform_pools,
)
