"""The policies, in SPEC order: each adapts ``args`` to a rule and reports what it finds.

A policy never parses by hand and a rule never touches ``args``: props go through
``parse_cluster`` / ``parse_workload`` / ``parse_stack`` into small models, a rule named after
the policy turns the model into findings, and ``report`` hands them to the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from .architecture import workload_architecture_selector_valid
from .baseline import Unavailable, baseline
from .catalog import CLOUD_PLATFORMS
from .cloud import cloud_machine_catalog
from .cluster import Cluster, is_compute_cluster, parse_cluster
from .enforceable import kubernetes_compute_enforceable
from .findings import Finding, Report, Violation, never_raises, report
from .placement import (
    Stack,
    compute_pools_single_architecture,
    dynamic_container_pool,
    parse_stack,
    remember_inputs,
    workload_node_architecture,
    workload_pool_placement,
)
from .platform import PLATFORM_SCHEMA, resolve_platform
from .update import compute_cluster_safe_update
from .workload_architecture_pin import workload_architecture_pin_policy
from .workloads import parse_workload

MANDATORY = EnforcementLevel.MANDATORY


# The last ComputeCluster parsed: (the protobuf its props read, its URN, the parse). The four
# ComputeCluster policies of one Analyze request read the same message (policies/wire.py), so it
# is parsed once per request, not once per policy. One tuple, assigned at once: thread-safe.
_last_cluster: tuple[Any, str, tuple[Cluster, list[Finding]]] | None = None


def _cluster(args: ResourceValidationArgs) -> tuple[Cluster, list[Finding]] | None:
    """Parse a ComputeCluster's inputs, and keep them for the stack policies of this run."""
    global _last_cluster
    if not is_compute_cluster(args.resource_type):
        return None
    source = getattr(args.props, "source", None)
    last = _last_cluster
    if source is not None and last is not None and last[0] is source and last[1] == args.urn:
        return last[2]
    parsed = parse_cluster(args.props, args.name)
    remember_inputs(args.urn, parsed[0])
    if source is not None:
        _last_cluster = (source, args.urn, parsed)  # a strong reference: the identity cannot be reused
    return parsed


def _platform(args: ResourceValidationArgs, allowed: tuple[str, ...], what: str) -> str:
    """The stack's platform; not applicable (saying why) when it is unknown or not one of ``allowed``."""
    platform, source = resolve_platform(args.get_config())
    if platform is None:
        args.not_applicable(source)
    if platform not in allowed:
        args.not_applicable(f"the platform is '{platform}' ({source}), not {what}")
    return str(platform)


# 1 ------------------------------------------------------------------------------------------

@never_raises
def _validate_compute_cluster(args: ResourceValidationArgs, report_violation: Report) -> None:
    parsed = _cluster(args)
    if parsed is not None:
        report(parsed[1], report_violation)


compute_cluster_valid_policy = ResourceValidationPolicy(
    name="compute-cluster-valid",
    description="Every ComputeCluster is well formed: known fields, valid ids, pools, sizes, scale policy, "
                "machine profile, failure domains and container network.",
    validate=_validate_compute_cluster,
    enforcement_level=MANDATORY,
    severity=Severity.HIGH,
    remediation_steps="Fix the ComputeCluster field named in the message: remove or rename unknown fields, keep "
                      "0 <= minSize <= maxSize <= 10, make the scale policy contain the sizes, give cpu as cores "
                      "or millicores, use arm64 or x86_64, and give containerCidr a /24 for every machine.",
)


# 2 ------------------------------------------------------------------------------------------

@never_raises
def _validate_kubernetes_enforceable(args: ResourceValidationArgs, report_violation: Report) -> None:
    parsed = _cluster(args)
    if parsed is None:
        return
    _platform(args, ("kubernetes",), "kubernetes")
    report(kubernetes_compute_enforceable(parsed[0]), report_violation)


kubernetes_compute_enforceable_policy = ResourceValidationPolicy(
    name="kubernetes-compute-enforceable",
    description="On Kubernetes, a ComputeCluster asks only for what administrator-managed nodes can enforce: no "
                "instance types, GPUs, nested virtualization, failure domains or custom container network.",
    validate=_validate_kubernetes_enforceable,
    enforcement_level=MANDATORY,
    severity=Severity.HIGH,
    config_schema=PolicyConfigSchema(properties={"platform": PLATFORM_SCHEMA}),
    remediation_steps="Remove instanceType, profile.gpu, nestedVirtualization: true, selectedFailureDomains and a "
                      "non-default containerCidr from ComputeClusters deployed to an existing Kubernetes cluster; "
                      "describe pools with profile (cpu, memory, architecture) instead.",
)


# 3 ------------------------------------------------------------------------------------------

@never_raises
def _validate_cloud_machine(args: ResourceValidationArgs, report_violation: Report) -> None:
    parsed = _cluster(args)
    if parsed is None:
        return
    platform = _platform(args, CLOUD_PLATFORMS, "a cloud with a machine catalog")
    report(cloud_machine_catalog(parsed[0], platform), report_violation)


cloud_machine_catalog_policy = ResourceValidationPolicy(
    name="cloud-machine-catalog",
    description="On aws, gcp and azure, a pool's instanceType is a machine of the platform that offers the "
                "declared architecture, GPU and nested virtualization; a pool without one declares a "
                "combination some machine of the platform offers.",
    validate=_validate_cloud_machine,
    enforcement_level=MANDATORY,
    severity=Severity.HIGH,
    config_schema=PolicyConfigSchema(properties={"platform": PLATFORM_SCHEMA}),
    remediation_steps="Use a machine type of the platform (see policies/data/machines.json), and make "
                      "profile.architecture, profile.gpu and nestedVirtualization match what it offers.",
)


# 4 ------------------------------------------------------------------------------------------

@never_raises
def _validate_workload_selector(args: ResourceValidationArgs, report_violation: Report) -> None:
    workload = parse_workload(args.resource_type, args.props, args.urn, args.name)
    if workload is not None:
        report(workload_architecture_selector_valid(workload), report_violation)


workload_architecture_selector_valid_policy = ResourceValidationPolicy(
    name="workload-architecture-selector-valid",
    description="A workload's own CPU architecture constraints (nodeSelector and required node affinity) use "
                "Kubernetes architecture names and leave at least one architecture.",
    validate=_validate_workload_selector,
    enforcement_level=MANDATORY,
    severity=Severity.HIGH,
    remediation_steps="Use Kubernetes architecture names (amd64, arm64, ...; not x86_64 or aarch64) in "
                      "kubernetes.io/arch selectors, and make nodeSelector and required node affinity agree.",
)


# 9 ------------------------------------------------------------------------------------------

@never_raises
def _validate_safe_update(args: ResourceValidationArgs, report_violation: Report) -> None:
    parsed = _cluster(args)
    if parsed is None:
        return
    previous = baseline(args.get_config().get("baseline"))
    if isinstance(previous, Unavailable):
        if previous.fail_closed:
            report_violation(f"{parsed[0].subject}: {previous.reason}; fix the path or the file", None)
            return
        args.not_applicable(previous.reason)
        return
    old_inputs = previous.inputs.get(args.urn)
    if old_inputs is None:
        return  # not deployed yet: nothing to change
    old, _ = parse_cluster(old_inputs, args.name)
    report(compute_cluster_safe_update(old, parsed[0]), report_violation)


compute_cluster_safe_update_policy = ResourceValidationPolicy(
    name="compute-cluster-safe-update",
    description="A deployed ComputeCluster changes only in ways that are safe in place: its id never changes, "
                "a set containerCidr never changes, and a pool's machine changes only to another AWS machine "
                "of the same CPU architecture.",
    validate=_validate_safe_update,
    enforcement_level=MANDATORY,
    severity=Severity.CRITICAL,
    config_schema=PolicyConfigSchema(properties={"baseline": {
        "type": "string", "minLength": 1,
        "description": "Path (absolute, or relative to the pack directory) to `pulumi stack export` output or a "
                       "DIY checkpoint of the deployed stack, plain, gzip or zstd. Default: the stack's own "
                       "checkpoint when the backend is local (file://)."}}),
    remediation_steps="Keep the ComputeCluster's id and containerCidr; to move a pool to another CPU architecture "
                      "or cloud, add a new pool with the new machine, move workloads, then remove the old pool.",
)


# 5 - 8: stack policies -------------------------------------------------------------------------

def _stack_policy(rule: Callable[[Stack], list[Finding]],
                  settings: Callable[[list[Finding], Any], list[Finding]] | None = None,
                  **metadata: Any) -> StackValidationPolicy:
    """A stack policy that parses the stack's resources and reports what ``rule`` finds
    (adjusted by ``settings`` from the policy's config, when it takes any)."""

    @never_raises
    def validate(args: StackValidationArgs, report_violation: Report) -> None:
        findings = rule(parse_stack(args.resources))
        if settings is not None:
            findings = settings(findings, args.get_config())
        report(findings, report_violation)

    validate.__name__ = f"validate_{rule.__name__}"
    return StackValidationPolicy(validate=validate, enforcement_level=MANDATORY, **metadata)


compute_pools_single_architecture_policy = _stack_policy(
    compute_pools_single_architecture,
    name="compute-pools-single-architecture",
    description="All compute pools of the stack declare the same CPU architecture: one image build cannot serve "
                "both arm64 and x86_64.",
    severity=Severity.HIGH,
    remediation_steps="Give every pool's profile.architecture the same value, or split the pools into stacks "
                      "that build images for one architecture each.",
)

HELM_RELEASES_SCHEMA: dict[str, Any] = {
    "type": "string", "enum": ["advisory", "enforce"],
    "description": "How a kubernetes:helm.sh/v3:Release, whose workloads no policy can see, is reported: "
                   "'advisory' (default: shown, never fails the preview) or 'enforce' (at this policy's level)."}


def _helm_releases(findings: list[Finding], config: Any) -> list[Finding]:
    if isinstance(config, Mapping) and config.get("helmReleases") == "enforce":
        return [replace(f, advisory=False) if isinstance(f, Violation) else f for f in findings]
    return findings


workload_pool_placement_policy = _stack_policy(
    workload_pool_placement,
    _helm_releases,
    config_schema=PolicyConfigSchema(properties={"helmReleases": HELM_RELEASES_SCHEMA}),
    name="workload-pool-placement",
    description="Every container and daemon workload resolves to exactly one ComputeCluster and pool through the "
                "compute.alien.dev/cluster and compute.alien.dev/pool labels.",
    severity=Severity.HIGH,
    remediation_steps="Label the workload (or its pod template) with compute.alien.dev/cluster set to a "
                      "ComputeCluster's id and compute.alien.dev/pool set to one of its pools; with a single "
                      "ComputeCluster the labels may be omitted when it has a 'general' pool or only one pool. "
                      "Deploy Helm charts with kubernetes:helm.sh/v4:Chart, whose workloads the policies see, "
                      "rather than kubernetes:helm.sh/v3:Release.",
)

workload_node_architecture_policy = _stack_policy(
    workload_node_architecture,
    name="workload-node-architecture",
    description="Every workload's Pods are pinned to the CPU architecture its compute pool (or the stack's "
                "single declared architecture) needs, so they cannot land on incompatible nodes.",
    severity=Severity.HIGH,
    remediation_steps="Add nodeSelector kubernetes.io/arch: amd64 (for x86_64 pools) or arm64 (for arm64 pools) "
                      "to the workload's pod template, and remove constraints that exclude it.",
)

dynamic_container_pool_policy = _stack_policy(
    dynamic_container_pool,
    name="dynamic-container-pool",
    description="Dynamic workloads land in the dynamic container pool of the stack's one ComputeCluster.",
    severity=Severity.MEDIUM,
    remediation_steps="Keep exactly one ComputeCluster in a stack with dynamic workloads, and give it the pool "
                      "named by dynamicContainerPool (or a 'general' pool).",
)


ALL = [
    compute_cluster_valid_policy,
    kubernetes_compute_enforceable_policy,
    cloud_machine_catalog_policy,
    workload_architecture_selector_valid_policy,
    compute_cluster_safe_update_policy,
    compute_pools_single_architecture_policy,
    workload_pool_placement_policy,
    workload_node_architecture_policy,
    dynamic_container_pool_policy,
    workload_architecture_pin_policy,
]
