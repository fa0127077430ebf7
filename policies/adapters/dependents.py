"""A platform stack's changes judged against the app stacks whose workloads run on its pools (SPEC 18, "and back").

The platform stack's config ``compute:dependents`` names its app stacks as ``compute:stacks`` names platform stacks (a
JSON list of org/project/stack names, or an object of names to ``pulumi stack export`` files), read once per pack
process the same way (adapters/stacks.py). Each is judged as its own preview would judge it against this preview's
pools (``View.now``: its resources are the stack's own, this stack's the foreign ones) and against the pools this
stack had deployed (``View.before``, from the previous deployment, section 5). What this change breaks is a finding
the app stack did not have before, word for word: a violation reported on the pools of its workload's cluster that
this change touches (else on the Fargate profiles it adds or changes there, else on that cluster, else on the stack),
naming the app stack and its workload. What it had already is its own preview's to report; a check it cannot make now
that it could before is said.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..model.pool import THIS_STACK, Pool
from ..model.values import Unknown, undetermined
from .findings import Finding, Violation
from .stacks import View


def judged(check: Any, context: Any, views: Iterable[View], own: Iterable[Finding] = ()) -> list[Finding]:
    """What this change breaks in each app stack, by one policy's ``check``; ``own``: what it found in this stack (a
    check it could not make here is not said again of each app stack)."""
    findings: list[Finding] = []
    known = {finding.words for finding in own if isinstance(finding, Unknown)}
    for view in views:
        now = check(view.now, context)
        before = check(view.before, context) if view.before is not None else []
        was = {finding.message for finding in before if isinstance(finding, Violation)}
        said = {finding.said for finding in before if isinstance(finding, Unknown)}
        for finding in now:
            if isinstance(finding, Violation):
                urn = finding.urn or ""
                if urn not in view.now.resources or urn in view.now.foreign or finding.message in was:
                    continue  # this stack's own resource (its own preview judges it), or not this change's doing
                # the policy's finding on the app's resource (a workload, a budget, an autoscaler), said of this
                # stack's pools in its preview
                findings.extend(replace(finding, message=broken(view.name, finding.message), urn=target)
                                for target in _targets(view, urn))
            elif finding.said not in said and finding.words not in known:
                findings.append(undetermined(f"stack {view.name}: {finding.said}"))
    # a finding on a pool is its own workloads' (pool-capacity's on another stack's pool): reported once here
    return list(dict.fromkeys(findings))


def broken(stack: str, message: str) -> str:
    """A finding an app stack's workload has on this stack's pools after this change and did not have before, as the
    platform stack's preview reports it."""
    return (f"This change breaks a workload of stack {stack} (compute:dependents): {message}. Change it in stack "
            f"{stack} first, or keep what it needs here")


def _targets(view: View, urn: str) -> list[str | None]:
    """Where a finding this change causes on the app's resource ``urn`` is reported: the pools of its cluster (of every
    cluster, when which one it is cannot be told) that this change adds or changes; else the Fargate profiles of that
    cluster it adds or changes; else that cluster; else the stack."""
    now = view.now
    key = now.target(urn).key
    before = {pool.urn: _facts(pool) for pool in view.before.platform_pools} if view.before is not None else None
    if before is not None:
        changed = [pool.urn for pool in now.platform_pools if now.foreign.get(pool.urn) == THIS_STACK
                   and (not key or pool.cluster.key == key) and before.get(pool.urn) != _facts(pool)]
        if changed:
            return list(dict.fromkeys(changed))
    ours = [cluster for cluster in now.clusters_of(urn) if now.foreign.get(cluster.urn) == THIS_STACK]
    cluster = ours[0] if len(ours) == 1 else None
    if cluster is not None and view.before is not None:
        # what else of the cluster places Pods: what selects Pods for its platform's own nodes (its Fargate profiles)
        # that this change adds or changes
        was = next((found.admission.selects for found in view.before.kube_clusters
                    if found.urn == cluster.urn and found.admission is not None), ())
        kept = set(was) if not isinstance(was, Unknown) else set()
        selects = cluster.admission.selects if cluster.admission is not None else ()
        profiles = [] if isinstance(selects, Unknown) else [urn for selector, urn in selects
                                                            if (selector, urn) not in kept]
        if profiles:
            return list(dict.fromkeys(profiles))
    return [cluster.urn] if cluster is not None else [None]


def _facts(pool: Pool) -> str:
    """What of a pool decides where Pods land and how many fit, to tell a pool this change touches (a value not
    known yet never equals another)."""
    def shown(value: Any) -> Any:
        return f"<unknown {id(value)}>" if isinstance(value, Unknown) else value

    return repr((pool.cluster.key, [(option.hardware.name, option.hardware.architecture, sorted(option.labels.items()))
                                    for option in pool.options],
                 sorted((key, sorted(domain) if isinstance(domain, frozenset) else repr(domain))
                        for key, domain in pool.labels.items()),
                 pool.taints, shown(pool.max_size), shown(pool.zones), sorted(pool.kubelet.items(), key=str),
                 pool.interruption, shown(pool.unknown), shown(pool.labels_unknown)))
