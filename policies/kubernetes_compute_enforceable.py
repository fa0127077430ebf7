"""kubernetes-compute-enforceable: on Kubernetes, a ComputeCluster asks only for what the nodes can give.

On an existing cluster the pack cannot choose machines, attach GPUs, expose nested
virtualization, pin provider failure domains or change the Pod network: those requirements
must be rejected before workloads start instead of being silently ignored.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.cluster import DEFAULT_CONTAINER_CIDR, Cluster, ParsedCluster
from .model.values import Unknown


def kubernetes_compute_enforceable(cluster: Cluster) -> list[Finding]:
    """Each pool and cluster field that administrator-managed nodes cannot honour."""
    findings: list[Finding] = []
    subject = cluster.subject
    if isinstance(cluster.pools, Unknown):
        findings.append(cluster.pools)
    else:
        for pool in cluster.pools:
            if pool.whole is not None:
                findings.append(pool.whole)
                continue
            where = f"{subject} {pool.label}"
            if isinstance(pool.instance_type, Unknown):
                findings.append(Violation(
                    f"{where}: instanceType is set (its value is not known yet), but Kubernetes nodes are "
                    "administrator-managed and no machine type can be chosen; remove instanceType"))
            elif pool.instance_type is not None:
                findings.append(Violation(
                    f"{where}: instanceType '{pool.instance_type}' cannot be enforced, Kubernetes nodes are "
                    "administrator-managed; remove instanceType and describe the pool with profile"))
            if isinstance(pool.gpu, Unknown):
                findings.append(pool.gpu)
            elif pool.gpu is not None:
                findings.append(Violation(
                    f"{where}: profile.gpu cannot be enforced, Kubernetes node GPUs are administrator-managed; "
                    "remove profile.gpu"))
            if isinstance(pool.nested_virtualization, Unknown):
                findings.append(pool.nested_virtualization)
            elif pool.nested_virtualization is True:
                findings.append(Violation(
                    f"{where}: nestedVirtualization is true, but Kubernetes cannot guarantee nested "
                    "virtualization on administrator-managed nodes; remove it or set it to false"))
    selected = cluster.selected_failure_domains
    if isinstance(selected, Unknown):
        findings.append(selected)
    elif selected:
        findings.append(Violation(
            f"{subject}: selectedFailureDomains cannot be enforced, node topology of an existing Kubernetes "
            "cluster is administrator-managed; remove selectedFailureDomains"))
    cidr = cluster.container_cidr
    if isinstance(cidr, Unknown):
        findings.append(cidr)
    elif cidr is not None and cidr != DEFAULT_CONTAINER_CIDR:
        findings.append(Violation(
            f"{subject}: containerCidr '{cidr}' cannot be applied, the Pod network of an existing Kubernetes "
            f"cluster is administrator-managed; remove containerCidr or set it to {DEFAULT_CONTAINER_CIDR}"))
    return findings


def _check(cluster: ParsedCluster, context: Context) -> list[Finding]:
    return kubernetes_compute_enforceable(cluster.model)


POLICY = Policy(
    name="kubernetes-compute-enforceable",
    subject="ComputeCluster",
    platforms=("kubernetes",),
    platforms_label="kubernetes",
    description="On Kubernetes, a ComputeCluster asks only for what administrator-managed nodes can enforce: no "
                "instance types, GPUs, nested virtualization, failure domains or custom container network.",
    severity=Severity.HIGH,
    remediation_steps="Remove instanceType, profile.gpu, nestedVirtualization: true, selectedFailureDomains and a "
                      "non-default containerCidr from ComputeClusters deployed to an existing Kubernetes cluster; "
                      "describe pools with profile (cpu, memory, architecture) instead.",
    check=_check,
)
