"""What a platform's admission does to a Pod before the scheduler matches it (SPEC 21: platform admission in one
place). The scheduler's rules (scheduling.py) ask here; each platform's own refusals and defaults are its source's
and the namespace's:

* the tolerations a platform adds to the Pods it admits (:func:`grants`): GKE's for a ComputeClass's taint to the Pods
  that request the class, GKE's for its Arm taint to Pods that select
  arm64 (cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment), for GKE Sandbox to Pods
  of runtimeClassName gvisor (.../how-to/sandbox-pods), for its Windows Server taint to Pods that select windows
  (.../how-to/creating-a-cluster-windows); a source marks the taint it sets with :attr:`Taint.granted`;
* the ExtendedResourceToleration admission plugin (admission/extended_resource_toleration.py), which EKS, GKE and
  AKS run;
* what a platform that runs Pods on nodes of its own refuses (:class:`Admission`, which a cluster's source sets on its
  :class:`~policies.model.clusters.KubeCluster`: sources/eks.py Fargate, sources/gke.py Autopilot), read by
  platform-admits-workload through the cluster alone; and what a namespace's LimitRange gives a container that sets no
  request (admission/limit_ranger.py) or its Pod Security level forbids (admission/pod_security.py:
  namespace-admits-workload).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .labels import ARCH, COMPUTE_CLASS, OS, OS_BETA, WINDOWS
from .values import Unknown


class PodPlacement(Protocol):
    """What admission reads of a Pod (scheduling.PodPlacement's fields): its nodeSelector, its required node affinity
    terms, its runtime class and the extended resources it requests."""

    @property
    def selector(self) -> tuple[tuple[str, str], ...]: ...

    @property
    def terms(self) -> Sequence[Sequence[Any]] | None: ...

    @property
    def runtime_class(self) -> str | None: ...

    @property
    def requested(self) -> frozenset[str] | Unknown: ...


class Taint(Protocol):
    """What admission reads of a taint (scheduling.Taint's fields)."""

    @property
    def key(self) -> str: ...

    @property
    def effect(self) -> str: ...


@dataclass(frozen=True)
class AdmittedPod:
    """What a platform's admission reads of a workload's Pods."""

    kind: str  # Deployment, DaemonSet, ...
    host: Any  # what they ask of the host (pods.HostAccess)
    namespace: str | Unknown | None  # as the API server decides it (SPEC 21; clusters.Unwritten: its provider's)
    labels: Mapping[str, Any] | Unknown
    gpus: bool  # they request a GPU
    pooled: bool  # a pool of the stack may be on their cluster: nodes of its own may run them
    # what of their Pods a Pod Security Standard level forbids (Workload.pod_security), asked only by an admission
    # that enforces one (AKS Automatic's Deployment Safeguards)
    security: Callable[[str], list[str] | Unknown] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Refused:
    """The platform refuses the Pods: why (clauses), what refuses them and the fix, in the platform's words; ``unsure``:
    why the refusal may not hold after all (a clause), "" when it certainly does."""

    reasons: tuple[str, ...]
    what: str
    fix: str
    unsure: str = ""


@dataclass(frozen=True)
class Unmatched:
    """Nothing of the platform selects the Pods and the cluster has no node of the stack's to run them: they stay
    Pending. What would select them (``runner``), why no node runs them and the fix, as the platform says them."""

    runner: str
    why: str
    fix: str


@dataclass(frozen=True)
class Whichever:
    """The Pods' namespace is their provider's, whose name is not known yet (clusters.Unwritten), and the verdict
    depends on it: where something of the platform selects them (``refused``) and where nothing does (``unmatched``),
    each as in a known namespace. ``certain``: both refuse them (SPEC 14.2: a verdict every candidate namespace gives
    is that verdict); else what is not known is said."""

    namespace: Any  # clusters.Unwritten
    refused: Refused | None
    unmatched: Unmatched | None
    certain: bool = True


class Admission(Protocol):
    """What runs a cluster's Pods on nodes of the platform's own (EKS Fargate, GKE Autopilot), as its source reads it:
    what it refuses of a Pod (None: it admits them, or they do not run there), and what selects the Pods it runs, each
    with the URN of the resource that declares it (a change that adds one is the change that places Pods there)."""

    def judge(self, pod: AdmittedPod) -> Refused | Unmatched | Whichever | Unknown | None: ...

    @property
    def selects(self) -> tuple[tuple[Any, str], ...] | Unknown: ...


def grants(placement: PodPlacement) -> frozenset[str]:
    """What a platform grants the Pods a toleration for: "arm64" when their nodeSelector or a required node affinity
    term selects arm64 (GKE), "gvisor" for runtimeClassName gvisor (GKE Sandbox), "windows" when they select windows
    (GKE's Windows Server nodes), and ``class_granted(name)`` for each GKE ComputeClass they request: its nodes' taint
    cloud.google.com/compute-class=<class>:NoSchedule needs no toleration in the Pods that request the class
    (cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes: the Pods of its "Request
    ComputeClasses in workloads" carry the nodeSelector alone; GKE "performs this configuration" for auto-created
    pools). A class named in a required node affinity term is granted too, so that no Pod is refused for the taint."""
    found: set[str] = {class_granted(value) for key, value in placement.selector if key == COMPUTE_CLASS}
    found.update(class_granted(value) for term in placement.terms or () for expression in term
                 if expression.key == COMPUTE_CLASS and expression.operator == "In" for value in expression.values)
    if (ARCH, "arm64") in placement.selector or any(
            expression.key == ARCH and expression.operator == "In" and "arm64" in expression.values
            for term in placement.terms or () for expression in term):
        found.add("arm64")
    if placement.runtime_class == "gvisor":
        found.add("gvisor")
    if any(key in (OS, OS_BETA) and value == WINDOWS for key, value in placement.selector) or any(
            expression.key in (OS, OS_BETA) and expression.operator == "In" and WINDOWS in expression.values
            for term in placement.terms or () for expression in term):
        found.add(WINDOWS)
    return frozenset(found)


def class_granted(name: str) -> str:
    """What a Pod that requests the GKE ComputeClass ``name`` is granted (:func:`grants`), as its nodes' taint names it
    (Taint.granted)."""
    return f"{COMPUTE_CLASS}={name}"
