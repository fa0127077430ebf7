"""namespace-admits-workload: the namespace a workload's Pods are created in admits them (SPEC 21, policy 29).

A Deployment whose Pods the API server refuses previews and applies cleanly and then has no Pod. What decides it is
often in the same stack (policies/model/admission/):

* a ResourceQuota's ``spec.hard`` (kubernetes.io/docs/concepts/policy/resource-quotas): the namespace's workloads at
  their replicas need more Pods, CPU or memory (requested, or limited) than it allows, so the Pods past it are
  refused; more objects of a kind than its ``count/...`` allows, so the ones past it are refused; a Deployment whose
  rolling update keeps every old Pod (maxUnavailable 0) and surges past the quota never finishes its rollout
  (kubernetes/kubernetes#89209); a container that sets no request (or limit) of a resource the quota tracks, with no
  LimitRange default for it, is refused ("must specify requests.cpu");
* a LimitRange's Container ``min``, ``max`` and ``maxLimitRequestRatio`` that a container's written request or limit
  breaks (kubernetes.io/docs/concepts/policy/limit-range: the LimitRanger admission refuses the Pod);
* a Namespace's ``pod-security.kubernetes.io/enforce`` level (baseline, restricted) that a Pod breaks, at the
  standards' latest version (policies/model/admission/pod_security.py, held to k8s.io/pod-security-admission by the
  Go oracle; a pinned enforce-version is said, not judged);
* a ``priorityClassName`` no PriorityClass of the stack (or of a stack it reads) has, and not a system one: the
  Priority admission refuses the Pod ("no PriorityClass with name ... was found").

Only the stack's own workloads are counted, in namespaces whose quota the stack declares on the same Kubernetes
provider: other Pods in the namespace only take more, so what is refused here is certain. A quota with scopes counts
only some Pods: it is said, not judged. A namespace the stack declares no quota for: nothing is assumed.
"""

from __future__ import annotations

from decimal import Decimal

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.admission.limit_ranger import Broken, LimitRange, broken, over_limits
from .model.admission.namespace import Namespace
from .model.admission.priority import SYSTEM_PRIORITY_CLASSES, missing
from .model.admission.resource_quota import MADE_BY, QUOTA_KEYS, Quota
from .model.stack import Place, Stack
from .model.values import Unknown, about, listed, undetermined
from .model.workloads import Workload
from .platforms.quantity import amount
from .words import namespace_named

# the kinds whose Pods run all the time at their replicas (a Job's finish, a CronJob's come and go, a DaemonSet's are
# one a node)
LONG_RUNNING = ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "Pod")


def _shown(key: str, value: Decimal) -> str:
    resource = QUOTA_KEYS[key][1]
    return amount(resource, value) if resource else f"{value:f}"


def _hard(key: str) -> str:
    """A quota key as its field's path: spec.hard.pods, spec.hard['count/pods']."""
    return f"spec.hard.{key}" if "/" not in key else f"spec.hard['{key}']"


def _per_pod(workload: Workload, key: str) -> Decimal | None:
    """One Pod's share of what the quota key counts; None when not known (the total stays a lower bound without)."""
    what, resource = QUOTA_KEYS[key]
    if what == "pods":
        return Decimal(1)
    if what == "limits":
        # at least its app containers' limits together (its init containers' and overhead only add); not known when a
        # container sets none (the quota's "must specify" refuses it) or its containers are not known yet
        containers = workload.containers
        if isinstance(containers, Unknown):
            return None
        apps = [container for container in containers if not container.init]
        if not apps or any(resource not in container.limits for container in apps):
            return None
        return sum((container.limits[resource] for container in apps), Decimal(0))
    request = workload.request
    if request is None or resource in request.unknown or resource in request.secret:
        return None
    return request.get(resource)


def namespace_admits_workload(stack: Stack) -> list[Finding]:
    findings: list[Finding] = []
    if not (stack.quotas or stack.limit_ranges or stack.namespaces):
        return _priority(stack)
    # the stack's workloads by where they are (Stack.place: a namespace of a cluster, or a provider's one namespace
    # while its name is not known yet); a quota, a LimitRange and a Namespace judge those of their own place
    members: dict[Place, list[Workload]] = {}
    for workload in stack.workloads:
        if not workload.patch:
            members.setdefault(stack.place(workload.urn, workload.namespace), []).append(workload)
    for quota in stack.quotas:
        if quota.urn in stack.foreign:
            continue
        place = stack.place(quota.urn, quota.namespace)
        if quota.scoped:
            findings.append(undetermined(f"{quota.label} counts only the Pods its scopes select, which the pack does "
                                         "not read: its hard limits are not judged"))
        elif place.late is not None:
            findings.append(about(quota.label, place.late))
        elif place.known:
            findings.extend(_quota(stack, quota, place, members.get(place, [])))
    for bounds in stack.limit_ranges:
        place = stack.place(bounds.urn, bounds.namespace)
        if bounds.urn not in stack.foreign and place.known:
            findings.extend(_bounded(bounds, members.get(place, [])))
    findings.extend(_over_limit(stack))
    for namespace in stack.namespaces:
        if namespace.urn in stack.foreign or not isinstance(namespace.name, str):
            continue
        place = stack.place(namespace.urn, namespace.name)
        maybe = [workload for other, found in members.items() if place.meets(other) is None for workload in found]
        findings.extend(_pod_security(namespace, members.get(place, []), maybe))
    findings.extend(_priority(stack))
    return findings


def _pod_security(namespace: Namespace, members: list[Workload], maybe: list[Workload]) -> list[Finding]:
    """The Pod Security Standard the namespace's enforce label names, at its latest version, on each workload's
    Pods: the API server refuses those it forbids (Pod Security Admission). ``maybe``: workloads whose namespace may be
    this one (not known yet): those the level forbids are said, each."""
    level, version = namespace.enforce, namespace.version
    where = f"namespace '{namespace.name}'"
    late = level if isinstance(level, Unknown) else version if isinstance(version, Unknown) else None
    if late is not None:
        return [about(f"Namespace '{namespace.name}'", late)] if members else []
    if level not in ("baseline", "restricted"):
        return []  # privileged (or a value the API server refuses on the Namespace)
    if version not in (None, "latest"):
        return [undetermined(f"{where} enforces the Pod Security Standard {level} at version {version}, which the "
                             "pack does not model (it checks latest): its workloads are not judged")] if members \
            else []
    findings: list[Finding] = []
    for workload, certain in (*((workload, False) for workload in maybe), *((workload, True) for workload in members)):
        found = workload.pod_security(level)
        if isinstance(found, Unknown):
            findings.append(about(workload.subject, found))
        elif found and not certain:  # refused there only if its namespace is this one
            findings.append(undetermined(
                f"{workload.subject}: {where} enforces the Pod Security Standard {level}, which forbids what its Pods "
                f"ask ({listed(found, '; ')}), and its namespace may be that one: {_unsure(workload)}"))
        elif found:
            findings.append(Violation(
                f"{workload.subject}: {where} enforces the Pod Security Standard {level} "
                f"(pod-security.kubernetes.io/enforce), which forbids what its Pods ask: {listed(found, '; ')}; the "
                f"API server refuses every Pod of it: change its pod spec to meet {level} "
                "(kubernetes.io/docs/concepts/security/pod-security-standards), or lower the namespace's level",
                workload.urn))
    return findings


def _unsure(workload: Workload) -> str:
    """Why a workload's namespace may or may not be another's, as a clause."""
    namespace = workload.namespace
    return namespace.words if isinstance(namespace, Unknown) else \
        f"it is '{namespace}' on a provider that may target the same cluster"


def _bounded(bounds: LimitRange, members: list[Workload]) -> list[Finding]:
    """A LimitRange's Container min, max and maxLimitRequestRatio against each container as LimitRanger admits it
    (admission/limit_ranger.py broken): what it refuses, one finding a workload."""
    findings: list[Finding] = []
    for workload in members:
        containers = workload.admitted_containers
        if isinstance(containers, Unknown):
            continue
        found = broken(bounds, containers)
        if found:
            findings.append(Violation(
                f"{workload.subject}: {bounds.label} of {namespace_named(bounds.namespace)} bounds each container: "
                f"{listed((_said(item) for item in found), '; ')}: the API server refuses its Pods (LimitRanger "
                "admission); bring the container's resources within the LimitRange, or change the LimitRange",
                workload.urn))
    return findings


def _over_limit(stack: Stack) -> list[Finding]:
    """A container that writes a request and no limit, to which its namespace's LimitRanges give a default limit below
    that request (limit_ranger.over_limits): the Pod's own validation refuses it."""
    findings: list[Finding] = []
    for workload in stack.workloads:
        containers = workload.admitted_containers
        if workload.patch or workload.defaults is None or isinstance(containers, Unknown):
            continue
        found = over_limits(containers)
        if found:
            said = listed((f"'{item.container}' a default {item.resource} limit of {amount(item.resource, item.bound)}"
                           f", below the {amount(item.resource, item.value or item.bound)} request it writes"
                           for item in found), "; ")
            findings.append(Violation(
                f"{workload.subject}: the LimitRanges of {namespace_named(workload.namespace)} give {said}: the API "
                "server refuses its Pods (a request above its limit fails the Pod's validation); give each such "
                "container a limit at least its request, or change the LimitRange's default", workload.urn))
    return findings


def _said(item: Broken) -> str:
    """One broken bound, as a clause."""
    name, resource = f"'{item.container}'", item.resource
    if item.kind == "missing":
        return (f"{name} sets no {resource} {item.part} (or 0), and its maxLimitRequestRatio {item.bound:f} needs "
                "both")
    value = item.value if item.value is not None else Decimal(0)
    if item.kind == "ratio":
        request = item.request or Decimal(1)
        return (f"{name} {resource} limit / request {amount(resource, value)} / {amount(resource, request)} = "
                f"{value / request:.3g} is above its maxLimitRequestRatio {item.bound:f}")
    where = "above its max" if item.kind == "max" else "below its min"
    return f"{name} {resource} {item.part} {amount(resource, value)} is {where} {amount(resource, item.bound)}"


def _quota(stack: Stack, quota: Quota, place: Place, members: list[Workload]) -> list[Finding]:
    findings: list[Finding] = []
    where = namespace_named(quota.namespace)
    running = [(workload, count) for workload in members if workload.kind in LONG_RUNNING
               and isinstance(count := workload.replicas.count, int) and count > 0 and not workload.replicas.secret]
    for key, hard in quota.hard.items():
        if isinstance(hard, Unknown):
            findings.append(about(quota.label, hard))
            continue
        shares = [(workload, count, each) for workload, count in running
                  if (each := _per_pod(workload, key)) is not None and each > 0]
        used = sum((count * each for _workload, count, each in shares), Decimal(0))
        parts = listed(f"{workload.subject} {count} x {_shown(key, each)}" for workload, count, each in shares)
        if used > hard:
            findings.append(Violation(
                f"{quota.label} of {where} allows {_shown(key, hard)} of {_hard(key)}, but the stack's workloads "
                f"there take {_shown(key, used)} ({parts}): the API server refuses their Pods past "
                f"{_shown(key, hard)}, which never run; raise {_hard(key)} to at least {_shown(key, used)}, or run "
                "fewer replicas", quota.urn))
            continue
        for workload, count, each in shares:
            rolling = workload.rollout(count)
            if rolling is None or isinstance(rolling, Unknown) or rolling.secret or rolling.max_unavailable > 0 \
                    or rolling.max_surge == 0:
                continue
            peak = used + rolling.max_surge * each
            if peak > hard:
                findings.append(Violation(
                    f"{workload.subject}: it rolls out {count} replicas with {rolling.arithmetic(count)}: it keeps "
                    f"every old Pod until a new one is available, so {where} needs {_shown(key, peak)} of "
                    f"{_hard(key)} at once ({_shown(key, used)} for the stack's workloads there + "
                    f"{rolling.max_surge} x {_shown(key, each)}), more than {quota.label} allows "
                    f"({_shown(key, hard)}): the new Pods are refused and the rollout never finishes: allow "
                    f"maxUnavailable: 1, or raise {_hard(key)} to at least {_shown(key, peak)}", workload.urn))
    for key, (kind, most) in quota.counts.items():
        objects = [workload for workload in members if workload.kind == kind]
        makers = [workload for workload in members if workload.kind in MADE_BY.get(kind, ())]
        total = len(objects) + len(makers)
        if total > most:
            made = f"one {kind} each of {listed(workload.subject for workload in makers)}" if makers else ""
            parts = listed([*(workload.subject for workload in objects), *([made] if made else [])])
            there = f"the stack's workloads there make {total} {kind}s" if makers else \
                f"the stack declares {total} {kind}s there"
            findings.append(Violation(
                f"{quota.label} of {where} allows {most:f} of spec.hard['{key}'], but {there} ({parts}): the API "
                f"server refuses every one past {most:f}; raise spec.hard['{key}'] to at least {total}, or move one "
                "to another namespace", quota.urn))
    findings.extend(_must_specify(stack, quota, place, members))
    return findings


def _must_specify(stack: Stack, quota: Quota, place: Place, members: list[Workload]) -> list[Finding]:
    """A container that sets nothing of a resource the quota tracks, where no LimitRange of the namespace gives it a
    default: the quota admission refuses the Pod (its evaluator's "must specify")."""
    findings: list[Finding] = []
    ranges = [item for item in stack.limit_ranges if stack.place(item.urn, item.namespace) == place]
    late = next((item.unknown for item in ranges if item.unknown is not None), None)
    defaulted = {"requests": frozenset().union(*(item.requests for item in ranges)),
                 "limits": frozenset().union(*(item.limits for item in ranges))}
    tracked = {(what, resource): key for key, (what, resource) in QUOTA_KEYS.items() if key in quota.hard
               and what != "pods"}
    for workload in members:
        found = workload.unset
        if isinstance(found, Unknown):
            continue  # its containers are not known yet (the policies that need them say so)
        for (what, resource), key in sorted(tracked.items()):
            names = found.get((what, resource), ())
            if not names or resource in defaulted[what]:
                continue
            if late is not None:
                findings.append(about(workload.subject, late))
                continue
            kind = "request or limit" if what == "requests" else "limit"
            findings.append(Violation(
                f"{workload.subject}: its container{'s' if len(names) > 1 else ''} {listed(repr(n) for n in names)} "
                f"set{'' if len(names) > 1 else 's'} no {resource} {kind}, and {quota.label} of "
                f"{namespace_named(quota.namespace)} tracks {key} with no LimitRange default for it: the API server "
                f"refuses its Pods (must specify {what}.{resource}); set resources.{what}.{resource} on "
                f"{'each' if len(names) > 1 else 'it'}, or give the namespace a LimitRange default", workload.urn))
    return findings


def _priority(stack: Stack) -> list[Finding]:
    findings: list[Finding] = []
    for found in missing(stack):
        workload, name = found.workload, found.name
        text = (f"{workload.subject}: its Pods name priorityClassName '{name}', but no PriorityClass of the stack "
                f"has that name and it is not a system one ({listed(SYSTEM_PRIORITY_CLASSES)}): the API server "
                f"refuses every Pod of it (no PriorityClass with name {name} was found); declare the PriorityClass "
                "or remove the field")
        if found.late is not None:
            findings.append(about(workload.subject, found.late))
        elif found.unseen:
            unseen = [f"Helm Release '{release}'" for release in found.unseen]  # it may declare PriorityClasses
            findings.append(undetermined(f"{text}; but {subjects_of(unseen)} may declare it, so this is not judged"))
        else:
            findings.append(Violation(text, workload.urn))
    return findings


def subjects_of(names: list[str]) -> str:
    return listed(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _check(stack: Stack, context: Context) -> list[Finding]:
    return namespace_admits_workload(stack)


POLICY = Policy(
    name="namespace-admits-workload",
    subject="stack",
    description="Workloads fit their namespace's ResourceQuota, LimitRange and Pod Security level, and name "
                "PriorityClasses that exist.",
    severity=Severity.HIGH,
    remediation_steps="Raise the quota's spec.hard, run fewer replicas or allow maxUnavailable: 1; set the requests "
                      "and limits the quota tracks (or give the namespace a LimitRange default); declare the "
                      "PriorityClass a workload names.",
    check=_check,
)
