"""workload-node-os: a workload whose Pods may land on nodes of more than one operating system is pinned to one, and
the operating system its Pods declare is the one they land on.

Windows and Linux nodes run different images: a Linux Pod on a Windows node never starts, and the kubelet rejects a
Pod whose ``spec.os.name`` is not its node's operating system (kubernetes.io/docs/concepts/workloads/pods/#pod-os).
A DaemonSet runs a Pod on every node of every pool that takes it. Each pool's nodes run the operating system its
source gives them (SPEC 16: AKS ``osType`` / ``osSKU``, EKS's Windows AMI types, GKE's Windows images and their
taint, a Karpenter NodePool's ``kubernetes.io/os`` requirement and its EC2NodeClass's AMIs), as the
``kubernetes.io/os`` label the scheduler matches (policies/model/landing.py). As workload-node-architecture does for
the CPU: where the pools that certainly take a workload's Pods run more than one operating system, nothing keeps
its Pods on theirs (a ``kubernetes.io/os`` nodeSelector does; so does a taint only one system's pools carry, since
the others then refuse them). A pool whose operating system is not known is left out; a workload whose cluster the
pack cannot tell is refused only when every candidate cluster's pools mix systems.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.labels import OS, OS_BETA
from .model.landing import Candidate, Landing, PoolVerdict, carried, landing
from .model.pool import ClusterRef
from .model.scheduling import PodPlacement
from .model.stack import Stack
from .model.values import undetermined
from .model.workloads import Workload
from .words import pool_name, unknown_cluster, unsure


def workload_node_os(stack: Stack) -> list[Finding]:
    """Every workload's Pods land on nodes of one operating system, the one they declare."""
    findings: list[Finding] = []
    several = stack.several_clusters
    for workload in stack.workloads:
        landed = landing(stack, workload)
        if not landed.scheduled:
            continue
        # mixed on the pools that certainly take its Pods, or declaring a system none of the pools that may take them
        # runs: certain
        found = _mixed(workload, landed, landed.taking_in, several) or _declared(workload, landed, several)
        if found is not None:
            findings.append(Violation(found, workload.urn))
        elif landed.unknown is not None and (maybe := _mixed(workload, landed, landed.possible_in, several)):
            # mixed only with pools that may take its Pods: said, never passed
            findings.append(undetermined(f"{maybe}; but {unsure(landed, several)}, so this is not judged"))
        elif landed.unknown_cluster and (differs := _per_cluster(workload, landed, several)) is not None:
            findings.append(undetermined(unknown_cluster(stack, workload, differs)))
    return findings


def _per_cluster(workload: Workload, landed: Landing, several: bool) -> list[tuple[ClusterRef, str]] | None:
    """What holds on each candidate cluster, when its Pods may land on nodes of more than one operating system on
    one of them and not on another (which one it runs on is not known: said, never passed)."""
    said: list[tuple[ClusterRef, str]] = []
    mixed = False
    for candidate in landed.candidates:
        runs = _systems(landed.taking_in(candidate), workload.scheduling, several)
        systems = sorted({system for found in runs.values() for system in found})
        if len(systems) > 1:
            mixed = True
            pools = listed([f"{label} runs {listed(found, ' and ')}" for label, found in runs.items()])
            said.append((candidate.cluster, f"its Pods may land on {listed(systems, ' and ')} nodes ({pools}), "
                                            "unpinned"))
        else:
            said.append((candidate.cluster, f"its Pods land on {listed(systems) or 'one operating system'} nodes"))
    return said if mixed else None


Runs = list[dict[str, list[str]]]  # per candidate cluster, each pool's operating systems (the pools that say)


def _runs(workload: Workload, landed: Landing, pools_in: Callable[[Candidate], tuple[PoolVerdict, ...]],
          several: bool) -> tuple[Runs, list[str], str]:
    per_candidate = [_systems(pools_in(candidate), workload.scheduling, several) for candidate in landed.candidates]
    per_candidate = [runs for runs in per_candidate if runs]
    runs = {label: systems for found in per_candidate for label, systems in found.items()}
    every = sorted({system for systems in runs.values() for system in systems})
    return per_candidate, every, listed([f"{label} runs {listed(systems, ' and ')}" for label, systems in runs.items()])


def _mixed(workload: Workload, landed: Landing, pools_in: Callable[[Candidate], tuple[PoolVerdict, ...]],
           several: bool) -> str | None:
    """Its Pods may land on nodes of more than one system (``pools_in`` of every candidate cluster), unpinned."""
    per_candidate, every, pools = _runs(workload, landed, pools_in, several)
    if not per_candidate or not all(len({system for systems in found.values() for system in systems}) > 1
                                    for found in per_candidate):
        return None  # no pool that takes it says which operating system its nodes run, or they run one
    daemon = workload.kind == "DaemonSet"
    where = "run on every node of the pools that take them:" if daemon else "may land on"
    return (f"{workload.subject}: its Pods {where} {listed(every, ' and ')} nodes ({pools}), but nothing pins them "
            f"to one operating system, and a Pod on a node of another never starts; set "
            f"{workload.pod_spec_path}.nodeSelector['{OS}'] to the one its images are built for")


def _declared(workload: Workload, landed: Landing, several: bool) -> str | None:
    """Its Pods declare an operating system no pool that may take them runs."""
    declared = workload.os_name
    if not isinstance(declared, str):
        return None
    per_candidate, every, pools = _runs(workload, landed, landed.possible_in, several)
    if not per_candidate or any(declared in {system for systems in found.values() for system in systems}
                                for found in per_candidate):
        return None
    return (f"{workload.subject}: its Pods declare spec.os.name '{declared}', but the pools that can take them "
            f"run {listed(every, ' and ')} nodes ({pools}): the kubelet rejects a Pod whose operating system is "
            f"not its node's; set spec.os.name to {listed(every, ' or ')}, or set "
            f"{workload.pod_spec_path}.nodeSelector['{OS}'] to '{declared}' and give it a pool of {declared} nodes")


def _systems(verdicts: tuple[PoolVerdict, ...], placement: PodPlacement, several: bool) -> dict[str, list[str]]:
    """The operating systems of each pool's nodes that take the Pods, for the pools whose systems are known."""
    found: dict[str, list[str]] = {}
    for verdict in verdicts:
        systems = carried(verdict, placement, OS, OS_BETA)
        if systems:
            found[pool_name(verdict.pool, several)] = list(systems)
    return found


def _check(stack: Stack, context: Context) -> list[Finding]:
    return workload_node_os(stack)


POLICY = Policy(
    name="workload-node-os",
    subject="stack",
    description="Every workload's Pods, a DaemonSet's included, are pinned to one operating system where their "
                "pools run Windows and Linux, and land on the one their spec.os.name declares.",
    severity=Severity.HIGH,
    remediation_steps="Add nodeSelector kubernetes.io/os: linux (or windows) to the workload's pod template, or "
                      "taint one system's pools so that only its workloads tolerate them; make spec.os.name agree.",
    dependents=True,
    check=_check,
)
