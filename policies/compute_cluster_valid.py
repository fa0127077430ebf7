"""compute-cluster-valid: every ComputeCluster is well formed.

Every other ComputeCluster policy reads a model in which an invalid field is left out, so each
mistake is reported once, here, with the field path and the fix. Reading the inputs
(policies/model/cluster.py) finds what cannot be read: unknown fields (with a did-you-mean), missing
fields, wrong types, values outside a field's own range or format. This rule adds how the fields
must fit together: a pool's sizes and its scale policy, the pools that dynamicContainerPool,
failureDomainSpread and selectedFailureDomains name, the failure domains selected against the
spread, and a container network wide enough for every machine.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.cluster import CapacityGroup, Cluster, ParsedCluster, Range, Shape
from .model.values import Unknown


def compute_cluster_valid(cluster: ParsedCluster) -> list[Finding]:
    """What reading the inputs found (and every value it could not know yet), then every relation
    between fields that does not hold."""
    model = cluster.model
    findings: list[Finding] = [Violation(f"{p.subject}: {said(p)}") if isinstance(p, Shape) else p
                               for p in cluster.problems]
    for pool in model.pools if isinstance(model.pools, tuple) else ():
        findings += [Violation(f"{model.subject} {pool.label}: {problem}") for problem in _pool(pool)]
    findings += [Violation(f"{model.subject}: {problem}") for problem in _references(model)]
    return findings


# --- the words for what reading the inputs found (policies/model/cluster.py returns them as Shape outcomes) -------

_EXPECTED = {"object": "an object", "string": "a string", "whole number": "a whole number",
             "boolean": "true or false", "list of pools": "a list of pools",
             "list of failure-domain names": "a list of failure-domain names"}
_CPU = 'cores such as "4" or "0.5", or millicores such as "500m"'
_FIX_REQUIRED = {
    "id": "set it to letters, digits, '-' and '_'",
    "capacityGroups": "declare at least one pool",
    "groupId": "name the pool with lowercase letters, digits and hyphens",
    "profile.cpu": f"set {_CPU}",
    "profile.memoryBytes": "set a whole number of bytes",
    "profile.ephemeralStorageBytes": "set a whole number of bytes",
    "profile.gpu.type": 'name the GPU, such as "nvidia-a10g"',
    "profile.gpu.count": "set the number of GPUs per machine (at least 1)",
    "scalePolicy.type": 'set "fixed" or "autoscale"',
}
_FIXED_WORDS = {
    "type wrapper": 'field \'type\' may only be "compute-cluster"; remove it',
    "id format": "id may contain only letters, digits, '-' and '_', and must not be empty",
    "no pools": "capacityGroups is empty; declare at least one pool",
    "group id format": "groupId must be non-empty lowercase letters, digits and hyphens",
    "empty instance type": "instanceType is empty; name a machine or remove the field",
    "cpu format": f"profile.cpu must be {_CPU}",
    "cpu zero": "profile.cpu must be greater than zero",
    "empty gpu type": 'profile.gpu.type is empty; name the GPU, such as "nvidia-a10g"',
    "scale type": 'scalePolicy.type must be "fixed" or "autoscale"',
}


def said(shape: Shape) -> str:
    """What is wrong with a field, and the fix, in the words of this policy."""
    facts, kind = shape.facts, shape.kind
    if kind in _FIXED_WORDS:
        return _FIXED_WORDS[kind]
    if kind == "both spellings":
        return (f"both '{facts['where']}{facts['name']}' and '{facts['where']}{facts['snake']}' are set, to different "
                "values; keep one spelling")
    if kind == "unknown field":
        hint = (f"; did you mean '{facts['where']}{facts['close']}'?" if facts["close"] is not None
                else f"; known fields: {listed(facts['known'])}")
        return f"unknown field '{facts['where']}{facts['key']}'{hint}"
    if kind == "wrong type":
        return f"{facts['field']} must be {_EXPECTED[facts['expected']]}, not {facts['found']}"
    if kind in ("below the minimum", "above the maximum"):
        shown = facts["field"] if facts["number"] is None else f"{facts['field']} {facts['number']}"
        return f"{shown} is {kind} of {facts['bound']}"
    if kind == "configuration not an object":
        return f"its configuration must be an object, not {facts['found']}"
    if kind == "required":
        field = facts["field"]
        if facts.get("range"):
            fix = "set {min, max, default}"
        elif facts.get("bound"):
            fix = "set a whole number"
        elif "most" in facts:
            fix = f"set a whole number from 0 to {facts['most']}"
        else:
            fix = _FIX_REQUIRED[field]
        return f"field '{field}' is required; {fix}"
    if kind == "pool repeated":
        return f"pool '{facts['pool']}' is declared more than once; pool ids must be unique"
    if kind == "not an architecture":
        fix = f"; did you mean '{facts['hint']}'?" if facts["hint"] else ""
        return f"profile.architecture '{facts['value']}' is not one of arm64, x86_64{fix}"
    if kind == "cidr not a network":
        return f"containerCidr '{facts['cidr']}' is not an IPv4 network such as 10.244.0.0/16 (no host bits set)"
    assert kind == "cidr too narrow", kind  # policies/model/cluster.py reports no other
    return f"containerCidr '{facts['cidr']}' is narrower than /24; each machine needs a /24 of its own"


def _pool(pool: CapacityGroup) -> list[str]:
    """A pool's sizes against each other and against its scale policy."""
    problems = []
    low, high = pool.min_size, pool.max_size
    if isinstance(low, int) and isinstance(high, int) and low > high:
        problems.append(f"minSize {low} is greater than maxSize {high}; lower minSize or raise maxSize")
    policy = pool.scale_policy
    if policy is None:
        return problems
    bounds = {name: _bounds(problems, found) for name, found in policy.ranges.items()}
    if policy.kind == "fixed":
        if isinstance(low, int) and isinstance(high, int) and low != high:
            problems.append(f"a fixed scalePolicy needs minSize equal to maxSize, but they are {low} and {high}; "
                            "make them equal or use an autoscale policy")
        _inside(problems, bounds["machines"], low, "minSize", "scalePolicy.machines")
        if high != low:
            _inside(problems, bounds["machines"], high, "maxSize", "scalePolicy.machines")
    else:
        _inside(problems, bounds["min"], low, "minSize", "scalePolicy.min")
        _inside(problems, bounds["max"], high, "maxSize", "scalePolicy.max")
    return problems


def _bounds(problems: list[str], found: Range | None) -> tuple[int, int] | None:
    """A range's [min, max] when it is one; its default must lie in it."""
    if found is None or not (isinstance(found.low, int) and isinstance(found.high, int)):
        return None
    field, low, high = found.field, found.low, found.high
    if low > high:
        problems.append(f"{field}.min {low} is greater than {field}.max {high}")
        return None
    if isinstance(found.default, int) and not low <= found.default <= high:
        problems.append(f"{field}.default {found.default} is outside {field} [{low}, {high}]")
    return low, high


def _inside(problems: list[str], bounds: tuple[int, int] | None, value: int | Unknown | None, name: str,
            field: str) -> None:
    if bounds is None or not isinstance(value, int):
        return
    low, high = bounds
    if not low <= value <= high:
        problems.append(f"{name} {value} is outside {field} [{low}, {high}]; change {name} or widen the range")


def _references(cluster: Cluster) -> list[str]:
    """The pools other fields name, the failure domains against the spread, and the network's room."""
    problems = []
    ids = cluster.pool_ids
    dynamic = cluster.dynamic_container_pool
    if isinstance(dynamic, str) and ids is not None and dynamic not in ids:
        problems.append(f"dynamicContainerPool names pool '{dynamic}', which does not exist; "
                        "name one of its pools or remove the field")
    spread = cluster.failure_domain_spread
    for key in spread if isinstance(spread, dict) else ():
        if ids is not None and key not in ids:
            problems.append(f"failureDomainSpread names pool '{key}', which does not exist; use one of its pool ids")
    selected = cluster.selected_failure_domains
    for key, domains in selected.items() if isinstance(selected, dict) else ():
        field = f"selectedFailureDomains['{key}']"
        if ids is not None and key not in ids:
            problems.append(f"selectedFailureDomains names pool '{key}', which does not exist; use one of its "
                            "pool ids")
            continue
        if not isinstance(domains, tuple):
            continue
        if len(set(domains)) != len(domains):
            problems.append(f"{field} lists a failure domain more than once; list each once")
        if isinstance(spread, Unknown):
            continue
        if spread is None or key not in spread:
            problems.append(f"{field} selects failure domains but failureDomainSpread has no entry for pool "
                            f"'{key}'; set failureDomainSpread['{key}'] to {len(domains)}")
        elif isinstance(spread[key], int) and len(domains) != spread[key]:
            problems.append(f"{field} selects {len(domains)} failure domains but failureDomainSpread['{key}'] is "
                            f"{spread[key]}; select exactly {spread[key]}")
    problems += _network_room(cluster)
    return problems


def _network_room(cluster: Cluster) -> list[str]:
    """Every machine of every pool at its maxSize gets a /24 of containerCidr."""
    network = cluster.container_network
    if network is None or isinstance(cluster.pools, Unknown):
        return []
    sizes = [pool.max_size for pool in cluster.pools]
    if any(isinstance(size, Unknown) for size in sizes):
        return []
    machines = sum(size for size in sizes if isinstance(size, int))
    subnets = 2 ** (24 - network.prefixlen)
    if machines <= subnets:
        return []
    return [f"containerCidr '{cluster.container_cidr}' holds {subnets} /24 subnets but the pools' maxSize add up "
            f"to {machines} machines; use a wider network (at most /{24 - (machines - 1).bit_length()})"]


def _check(cluster: ParsedCluster, context: Context) -> list[Finding]:
    return compute_cluster_valid(cluster)


POLICY = Policy(
    name="compute-cluster-valid",
    subject="ComputeCluster",
    description="Every ComputeCluster is well formed: known fields, valid ids, pools, sizes, scale policy, "
                "machine profile, failure domains and container network.",
    severity=Severity.HIGH,
    remediation_steps="Fix the ComputeCluster field named in the message: remove or rename unknown fields, keep "
                      "0 <= minSize <= maxSize <= 10, make the scale policy contain the sizes, give cpu as cores "
                      "or millicores, use arm64 or x86_64, and give containerCidr a /24 for every machine.",
    check=_check,
)
