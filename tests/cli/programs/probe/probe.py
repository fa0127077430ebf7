"""A policy that says what the engine told it of each workload's provider: the provider, the resources its
kubeconfig depends on (SPEC 14.2), and what else it depends on (its dependsOn: SPEC 14.4). The same policy runs in the engine-started pack under the real CLI and in the
test kit, whose answers must be the same."""

from pulumi_policy import EnforcementLevel, Severity

from compute_guard.policies import Policy
from compute_guard.policies.adapters.findings import Violation, listed


def _name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def probe(stack, context):
    found = []
    for workload in stack.workloads:
        resource = stack.resources[workload.urn]
        provider = resource.provider or ""
        known = stack.resources.get(provider)
        depends = known.depends("kubeconfig") if known is not None else ()
        explicit = [urn for urn in known.dependencies if urn not in depends] if known is not None else []
        kind = provider.split("::")[-2].rsplit("$", 1)[-1] if provider else ""  # its type, not its parents'
        found.append(Violation(f"{workload.name}: provider '{_name(provider)}' ({kind}), its kubeconfig depends on "
                               f"[{listed(sorted(_name(urn) for urn in depends))}], and it on "
                               f"[{listed(sorted(_name(urn) for urn in explicit))}]", workload.urn))
    return found


PROBE = Policy(name="probe-provider-dependencies", subject="stack", description="What the engine says of providers",
               severity=Severity.LOW, remediation_steps="none", check=probe, level=EnforcementLevel.ADVISORY)
