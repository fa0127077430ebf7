"""What the API server does to a Pod before the scheduler sees it (SPEC 21), as its admission plugins run, in their
order (k8s.io/kubernetes pkg/kubeapiserver/options/plugins.go, ``AllOrderedPlugins``; every mutating plugin runs before
every validating one): one module per plugin, named as Kubernetes names it, and the platforms' own steps where the
platform runs them (a source's ``admission``: GKE's default ComputeClass is a mutating webhook).

* ``namespace`` - NamespaceLifecycle: the namespace each namespaced object is created in (its provider's when it names
  none), before any plugin reads it;
* ``limit_ranger`` - LimitRanger: a namespace's LimitRange defaults in containers that set no request or limit;
* ``pod_security`` - PodSecurity: what a namespace's enforced Pod Security Standard forbids (validating);
* ``priority`` - Priority: a Pod's PriorityClass must exist (validating);
* ``extended_resource_toleration`` - ExtendedResourceToleration: tolerations for the extended resources a Pod requests;
* ``runtime_class`` - RuntimeClass: the class's nodeSelector and tolerations merged into the Pod's;
* the platforms' mutating webhooks (``Source.admission``: GKE's namespace default ComputeClass);
* ``resource_quota`` - ResourceQuota, last: a namespace's quotas over all its Pods.

After them, before the scheduler sees the Pod, the resourceclaim controller's step (model/devices.py): the claims a
Pod's ResourceClaimTemplates give it, counted in its request.

:func:`admit` runs the steps that change a Pod once per stack, after parsing and before anything is placed, so that
every policy reads each workload as admitted. The validating plugins' refusals are worded by namespace-admits-workload
(the namespace's) and platform-admits-workload (the platform's). A new admission rule is one module here, and its
place in :data:`MUTATING`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import devices
from . import limit_ranger, namespace, runtime_class

Admit = Callable[[Any], Any]  # a workload in, as the step admits it out (the same object: unchanged)
Prepare = Callable[[Any], "Admit | None"]  # a step for one stack (None: it changes nothing in this stack)
WEBHOOKS = "MutatingAdmissionWebhook"  # where the platforms' steps run

# the plugins that change a Pod, in the API server's order; WEBHOOKS: the platforms' steps
MUTATING: tuple[tuple[str, Prepare | None], ...] = (
    ("NamespaceLifecycle", namespace.prepare),
    ("LimitRanger", limit_ranger.prepare),
    ("RuntimeClass", runtime_class.prepare),
    (WEBHOOKS, None),
)


def admit(stack: Any, webhooks: Iterable[Prepare]) -> None:
    """Every workload of the stack (and of the stacks it reads) as the API server admits its Pods: each step of
    :data:`MUTATING` in turn, the platforms' ``webhooks`` in their place. A LimitRange is applied to the stack's own
    workloads only: another stack's Pods were admitted before this stack's LimitRanges exist."""
    steps: list[tuple[str, Admit]] = []
    for name, prepare in MUTATING:
        for each in (prepare,) if prepare is not None else webhooks:
            found = each(stack)
            if found is not None:
                steps.append((name, found))
    # then the resourceclaim controller: each Pod's claims from its templates, before the scheduler sees it
    steps.append(("ResourceClaims", devices.prepare(stack)))
    foreign = [step for name, step in steps if name != "LimitRanger"]
    for workloads, run in ((stack.workloads, [step for _, step in steps]), (stack.foreign_workloads, foreign)):
        for index, workload in enumerate(workloads):
            for step in run:
                workload = step(workload)
            workloads[index] = workload
    stack.own = set(stack.workloads)


__all__ = ["MUTATING", "WEBHOOKS", "Admit", "Prepare", "admit"]
