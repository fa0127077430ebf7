"""pool-safe-update: a deployed platform pool changes its machines only in ways its workloads survive (SPEC 14.4).

compute-cluster-safe-update holds a ComputeCluster's pools to the seed's rule (``validate_update``); most fleets
declare their pools with the platform's own resources, and there a machine change passed: an EKS node group moved
from t3.medium to t4g.medium (its AMI type following, or left unset), an AKS pool from Standard_DS2_v2 to
Standard_D2ps_v5. The platform replaces every node with the new machine, and the Pods that ran there unpinned (most
of them: nothing pinned them while the pool ran one architecture) come back on nodes of the other CPU, where their
images fail to start (``exec format error``). The same rule, for every platform pool against the previous
deployment (the same baseline, policies/adapters/baseline.py):

* its nodes' architecture never changes: the architectures its new machines (and AMI type) run are all ones its old
  ones ran (a Karpenter NodePool whose ``kubernetes.io/arch`` requirement or instance types move to the other
  architecture too; one that narrows to fewer is safe);
* a machine change goes between machines of the catalog: a machine the catalog does not know provides no
  architecture, so the change cannot be shown safe.

Each pool source reads the previous inputs of the same resource (its URN) as it reads this preview's, and pools are
matched by name. A resource not deployed yet has nothing to compare; a baseline that holds no resource of this stack
(another stack's export) is said once.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.cluster import ParsedCluster
from .model.labels import ARCH
from .model.pool import Pool
from .model.replacement import previous_of
from .model.values import about, derived, listed, quoted
from .platforms.catalog import PLATFORM_NAMES


def pool_safe_update(before: list[Pool], after: list[Pool]) -> list[Finding]:
    """Each pool of ``after`` against the pool of the same name in ``before`` (a new pool: nothing to compare)."""
    findings: list[Finding] = []
    # a ComputeCluster's pools (a capacity group) are compute-cluster-safe-update's
    old = {pool.name: pool for pool in before if pool.group is None}
    for pool in after:
        previous = old.get(pool.name)
        if previous is None or pool.group is not None:
            continue
        if pool.unknown is not None and not pool.named_types:
            findings.append(about(pool.label, pool.unknown))  # its machines are not known yet: they may change
            continue
        if not previous.options:  # its old machines are not in the catalog: no architecture to keep
            continue
        if pool.named_types and not pool.options and set(pool.named_types) != set(previous.named_types):
            unknown = [name for name in pool.named_types if name not in previous.named_types]
            platform = PLATFORM_NAMES.get(pool.platform or "", "the platform's")
            findings.append(Violation(
                f"{pool.label}: can't change its machines from {_machines(previous)} to {quoted(unknown, 5)}, "
                f"which the {platform} catalog does not know: it provides no CPU architecture, so the change cannot "
                f"be shown to keep its nodes' ({_architectures(previous)}); use a machine of the catalog", pool.urn))
            continue
        gained = [arch for arch in _node_architectures(pool) if arch not in _node_architectures(previous)]
        if not gained:
            continue
        kept = listed(sorted(_node_architectures(previous)), " and ")
        new = listed(gained, " and ")
        # the platform's own taint on the new architecture's nodes (GKE's kubernetes.io/arch=arm64:NoSchedule): the
        # Pods that ran there never land on them; they stay Pending rather than fail to start
        taints = [taint for arch in gained for taint in pool.taints if taint.key == ARCH and taint.value == arch
                  and taint.effect in ("NoSchedule", "NoExecute") and not taint.maybe]
        fate = (f"the Pods that ran there and do not select {new} stay Pending: its {new} nodes carry taint "
                f"{listed(taint.text for taint in taints)}" if taints and len(taints) == len(gained) else
                f"the Pods that ran there come back on {new} nodes, where images built for {kept} fail to start")
        findings.append(Violation(
            f"{pool.label}: can't change its machines from {_machines(previous)} to {_machines(pool)}: its nodes "
            f"would run {new} where they ran {kept}, and the platform replaces every node, so {fate}; keep {kept} "
            "machines, or add a pool with the new machines, move the workloads there (pinned to its architecture), "
            "then remove this one", pool.urn))
    return findings


def _node_architectures(pool: Pool) -> tuple[str, ...]:
    """The kubernetes.io/arch values its nodes may carry, each secret when the machine it comes from is."""
    found: dict[str, str] = {}
    for option in pool.options:
        arch = option.node_architecture
        if arch is not None and arch not in found:
            found[arch] = derived(arch, option.hardware.name, pool.ami_type)
    return tuple(found[arch] for arch in sorted(found))


def _architectures(pool: Pool) -> str:
    return listed(_node_architectures(pool), " and ")


def _machines(pool: Pool) -> str:
    """A pool's machines as a message names them: the instance types and their architecture, its AMI type; a
    NodePool's by how many its requirements allow."""
    if pool.named_types:
        shown = quoted(pool.named_types, 3)
    else:
        count = len(pool.options)
        shown = f"the {count:,} instance type{'s' if count != 1 else ''} its requirements allow"
    ami = f", AMI type '{pool.ami_type}'" if pool.ami_type else ""
    return f"{shown} ({_architectures(pool)}{ami})"


def _check_pools(pools: list[Pool], context: Context) -> list[Finding]:
    previous = context.previous()
    before = previous_of(context.urn, previous.inputs, previous.types) if previous is not None else None
    if before is None:  # not deployed yet: nothing to change (without a previous deployment, the template says)
        return []
    return pool_safe_update(before, pools)


def _no_cluster(cluster: ParsedCluster, context: Context) -> list[Finding]:
    return []  # a ComputeCluster's pools are compute-cluster-safe-update's (the seed's rule)


POLICY = Policy(
    name="pool-safe-update",
    subject="ComputeCluster",
    description="A deployed platform pool (an EKS node group or launch template, a GKE or AKS pool, a Karpenter "
                "NodePool) changes its machines only to catalog machines whose nodes run the CPU architecture its "
                "nodes ran.",
    severity=Severity.HIGH,
    previous="whether its machines keep its nodes' CPU architecture",
    remediation_steps="Keep the pool's architecture (a machine and AMI type of the same CPU); to move to another "
                      "architecture, add a new pool with the new machines, pin the workloads to its architecture and "
                      "move them there, then remove the old pool.",
    check=_no_cluster,
    platform_pool_check=_check_pools,
    pools_only=True,
)
