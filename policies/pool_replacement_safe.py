"""pool-replacement-safe: a preview that replaces a pool or a cluster never takes every node from the workloads on it
(SPEC 19, policy 25).

Some inputs of a node pool cannot be changed in place: the provider deletes the pool and creates a new one. An EKS
node group's ``instanceTypes``, ``amiType``, ``capacityType``, ``diskSize`` or ``subnetIds``; a GKE node pool's
``nodeConfig.spot`` or ``guestAccelerators`` (each source lists its own, cited from its provider's schema:
``Source.replaces``). What happens then depends on the pool's name (pulumi/pulumi-gcp#255, terraform-aws-modules/
terraform-aws-eks#2905 and #1415):

* a name the provider generated (the program set none) is generated again, so the new pool is created first and the
  old one deleted after: its workloads move over (create-before-delete, Pulumi's default);
* a name the program set cannot be held by two pools: Pulumi's bridged providers then delete the old pool first
  (pulumi-terraform-bridge's ``nameRequiresDeleteBeforeReplace``: "an autonameable property with a value that was not
  populated by the autonamer"), and every Pod that no other pool of the cluster takes is down until the new nodes
  join. Which of the two the provider's Check decided is in its inputs' ``__defaults``, which the engine never sends a
  pack: the previous deployment's state keeps them (model/replacement.py, ``_fixed``).

Refused: (b) a pool deleted before its replacement exists under workloads of the stack that no other pool of its
cluster takes, and every pool of a cluster removed from the program under workloads on it (one of several removed:
workload-schedulable judges the workloads on the pools left); (c) a change that replaces the whole cluster under
workloads of the stack (an EKS cluster's ``name`` or ``roleArn``; a GKE cluster's ``location``, network, inline
``nodePools`` or its default pool's ``nodeConfig``): every workload on it goes with it. Each is judged against the
previous deployment (section 5), input by input where both sides set it. A replacing input not known yet, and a set
name whose origin the inputs do not say, are notes where they decide.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pulumi_policy import Severity

from .adapters.baseline import Snapshot
from .adapters.findings import Finding, Violation, listed
from .adapters.templates import Context, Policy
from .model.landing import landing
from .model.pool import THIS_STACK, Pool
from .model.replacement import Replaced, emptied, replaced_in
from .model.resources import StackResource
from .model.stack import Stack
from .model.values import Unknown, undetermined
from .model.workloads import Workload
from .platforms.managed import managed
from .words import subjects


def pool_replacement_safe(stack: Stack, previous: Snapshot, remembered: Mapping[str, Any]) -> list[Finding]:
    """Each resource of the previous deployment that declares pools or a cluster, against this preview's. In the view
    of a dependent app stack (SPEC 18, adapters/dependents.py: ``stack.name``), this stack's resources are the ones
    replaced and the app's workloads the ones stranded: each finding is given on each workload, which the dependents'
    adapter reports on this stack's pool."""
    findings: list[Finding] = []
    view = bool(stack.name)
    foreign = {urn: name for urn, name in stack.foreign.items() if name != THIS_STACK} if view else stack.foreign
    if not view:
        findings.extend(_removed(stack, previous))
    deployed = {id(resource) for resource in previous.resources} if view else set()
    for replaced in replaced_in(stack, previous.inputs, previous.types, remembered, foreign, previous.outputs):
        if id(replaced.resource) in deployed:
            continue  # the view of the dependents as they were deployed: this stack's resources are its old ones
        if not view:  # a change that fails is this stack's own preview's to refuse, whatever runs there
            findings.extend(_fails(stack, replaced))
        workloads: list[Workload] = []
        if replaced.late is not None:
            finding = _maybe(stack, replaced)
        elif replaced.changes:  # certain, whatever an encrypted input of the previous deployment holds
            finding, workloads = _replaced(stack, replaced)
        elif replaced.sealed:
            finding = _maybe(stack, replaced)
        elif replaced.unseen:  # the engine replaces it for a reason its inputs do not show
            finding, workloads = _replaced(stack, replaced)
        else:
            continue
        if isinstance(finding, Violation) and view:
            findings.extend(dataclasses.replace(finding, urn=workload.urn) for workload in workloads)
        elif finding is not None:
            findings.append(finding)
    return findings


def _removed(stack: Stack, previous: Snapshot) -> list[Finding]:
    """A cluster whose every pool this preview removes, under workloads of the stack."""
    found: list[Finding] = []
    for urn, pools in emptied(stack, previous.resources).items():
        workloads = _on_cluster(stack, urn)
        cluster = stack.owner(urn)
        if not workloads or cluster is None:
            continue
        names = listed([pool.label for pool in pools])
        found.append(Violation(
            f"{cluster.ref.label}: this preview removes {names}, every pool of it the stack declared, and "
            f"{subjects(workloads)} run on it: their Pods lose every node and stay Pending; keep a pool that takes "
            "them (or add its replacement first), or remove the workloads with it", urn))
    return found


def _fails(stack: Stack, replaced: Replaced) -> list[Finding]:
    """The changes that fail the update itself: made by rotating a pool without naming its temporary pool, or refused
    by the platform in place."""
    rule, now = replaced.rule, replaced.resource
    pools = _pools(stack, now.urn)
    label = pools[0].label if len(pools) == 1 else _cluster_label(stack, now)
    found: list[Finding] = []
    if replaced.rotations:
        found.append(Violation(
            f"{label}: {listed(replaced.rotations, '; ')}, which {rule.provider} changes only by rotating the pool "
            f"through a temporary one that {rule.rotation} names; it is not set, so the update fails "
            "(\"`temporary_name_for_rotation` must be specified when updating any of the following properties\"): set "
            f"{rule.rotation} to an unused pool name", now.urn))
    if replaced.refusals:
        found.append(Violation(
            f"{_cluster_label(stack, now)}: {listed(replaced.refusals, '; ')}: {rule.refusal}; add an agent pool "
            "of the new size, move the workloads there, then remove this one", now.urn))
    return found


def _cluster_label(stack: Stack, now: StackResource) -> str:
    owner = stack.owner(now.urn)
    return owner.ref.label if owner is not None else f"cluster '{now.name}'"


def _pools(stack: Stack, urn: str) -> list[Pool]:
    return [pool for pool in stack.platform_pools if pool.urn == urn]


def _stranded(stack: Stack, urn: str) -> tuple[list[Workload], list[Workload]]:
    """The stack's workloads whose Pods may run on this resource's pools only; and those that may run there and whose
    other pools are not known (their placement, or a pool's labels or machines, not known yet)."""
    found: list[Workload] = []
    maybe: list[Workload] = []
    for workload in stack.workloads:
        landed = landing(stack, workload)
        if landed.named is not None or not landed.scheduled:
            continue
        runs = landed.runs_on()
        if isinstance(runs, Unknown):
            if any(pool.urn == urn for pool in landed.pools):
                maybe.append(workload)
            continue
        if runs and all(pool.urn == urn for pool in runs):
            found.append(workload)
    return found, maybe


def _on_cluster(stack: Stack, urn: str) -> list[Workload]:
    """The stack's workloads applied to the cluster this resource is (or is part of)."""
    owner = stack.owner(urn)
    if owner is None:
        return []
    return [workload for workload in stack.workloads if stack.cluster_for(workload.urn) is owner]


def _what(replaced: Replaced) -> str:
    if replaced.unseen:
        return (f"this preview replaces it (the engine plans a new ID for it), though no input that "
                f"{replaced.rule.provider} replaces it for changes: a replaceOnChanges resource option (which the "
                "engine does not send a policy) replaces what its provider would update in place")
    return listed(replaced.changes, "; ")


def _head(replaced: Replaced, what: str) -> str:
    """The change and what it does to the resource, as a clause: ``what`` ("the pool", "the whole cluster")."""
    if replaced.unseen:
        return f"{_what(replaced)}: it replaces {what}"
    return f"{_what(replaced)}, which {replaced.rule.provider} cannot apply in place: it replaces {what}"


def _replaced(stack: Stack, replaced: Replaced) -> tuple[Finding | None, list[Workload]]:
    """The finding on a replaced resource, and the workloads it strands."""
    rule, now = replaced.rule, replaced.resource
    if rule.whole_cluster:
        workloads = _on_cluster(stack, now.urn)
        if not workloads:
            return None, []
        label = _cluster_label(stack, now)
        keep = "drop the option" if replaced.unseen else "keep the input"
        return Violation(
            f"{label}: {_head(replaced, 'the whole cluster')}, "
            f"and {subjects(workloads)} run on it: every Pod, and everything else on the cluster, goes with the old "
            f"one; {keep}, or create the new cluster beside it and move the workloads there first",
            now.urn), workloads
    pools = _pools(stack, now.urn)
    option = now.delete_before_replace is True  # the program asked for delete-before-replace itself
    # the old pool is deleted before its replacement exists (a replacement the engine makes for a reason the inputs do
    # not show, of a pool whose name the program set: deleted first, or the replacement's creation fails on the name)
    first = True if option else replaced.fixed
    if not pools or first is False:
        return None, []  # (a new name: the replacement is made before the old pool goes)
    stranded, maybe = _stranded(stack, now.urn)
    name = replaced.name
    label = pools[0].label
    why = ("its deleteBeforeReplace resource option deletes the old pool first" if option else
           f"its {rule.name} {name} {rule.fixed_words}, so the old pool is deleted before its replacement exists")
    if not stranded and maybe and first:
        return undetermined(
            f"{label}: {_what(replaced)}, which replaces it, and {why}; whether another pool of its cluster takes "
            f"{subjects(maybe)} is not known yet, so this is not judged"), []
    stranded = stranded or maybe if first is None else stranded
    if not stranded:
        return None, []
    if first is None:
        return undetermined(
            f"{label}: {_what(replaced)}, which replaces it, and the previous deployment does not say whether its "
            f"{rule.name} {name} was set by the program (its state keeps no __defaults, the list of inputs the "
            f"provider filled in): if it was, the old pool is deleted before its replacement exists, and "
            f"{subjects(stranded)} run on no other pool, so this is not judged"), []
    drain = managed(pools[0].platform).delete_drain
    unset = f"leave {rule.name} unset" if rule.unset_names_anew else None
    if replaced.unseen and not option:  # the engine's order is its provider's answer, which the pack does not see
        other = f", or {unset} so the new pool is created before the old one goes" if unset else ""
        return Violation(
            f"{label}: {_head(replaced, 'the pool')}. Its {rule.name} {name} {rule.fixed_words}, so the old pool and "
            f"its replacement cannot both hold it: either the old pool is deleted first, and {subjects(stranded)} run "
            f"on no other pool of its cluster (every Pod of them is down until the new nodes join{drain}), or the "
            "replacement's creation fails on the name, and the update with it; drop the replaceOnChanges option, add "
            f"a second pool that takes them first{other}", now.urn), stranded
    deleted = ("Its deleteBeforeReplace resource option deletes the old pool before its replacement is created" if
               option else f"Its {rule.name} {name} {rule.fixed_words}, so the replacement cannot be created while "
               f"the old pool holds the name: {rule.first_why}")
    fix = "drop the deleteBeforeReplace option" if option else unset
    if option and replaced.fixed:
        fix = f"{unset} and drop the deleteBeforeReplace option" if unset else None
    other = f", or {fix} so the new pool is created before the old one goes" if fix else ""
    return Violation(
        f"{label}: {_head(replaced, 'the pool')}. {deleted}, "
        f"and {subjects(stranded)} run on no other pool of its cluster: every Pod of them is down until the new nodes "
        f"join{drain}; add a second pool that takes them first{other}", now.urn), stranded


def _maybe(stack: Stack, replaced: Replaced) -> Finding | None:
    """A replacing input not known yet, or whose previous value is an encrypted secret of the state: said where a
    replacement would strand workloads."""
    rule, now, late = replaced.rule, replaced.resource, replaced.late
    if rule.whole_cluster:
        on_it = _on_cluster(stack, now.urn)
        if not on_it:
            return None
        who = f"{subjects(on_it)} run on it"
    else:
        if not _pools(stack, now.urn) or (replaced.fixed is False and now.delete_before_replace is not True):
            return None
        certain, maybe = _stranded(stack, now.urn)
        if not certain and not maybe:
            return None
        # those that run on this pool only, and those whose other pools are not known yet (never "only" of them)
        who = listed([*([f"{subjects(certain)} run on no other pool of its cluster"] if certain else []),
                      *([f"{subjects(maybe)} may have no other pool (which pools take them is not known yet)"]
                        if maybe else [])], ", and ")
    what = "the cluster" if rule.whole_cluster else "the pool"
    pools = _pools(stack, now.urn)
    label = pools[0].label if len(pools) == 1 and not rule.whole_cluster else _cluster_label(stack, now)
    if late is None:
        inputs = listed(replaced.sealed)
        return undetermined(
            f"{label}: the previous deployment holds its {inputs} as encrypted secrets, which the pack cannot read, "
            f"so whether this preview changes them (which replaces {what}) is not known, and {who}: not judged (a "
            "baseline exported with `pulumi stack export --show-secrets` gives their values)")
    return undetermined(f"{label}: an input that replaces {what} is not known yet ({late.words}), and {who}, so "
                        "whether this preview replaces it under them is not judged")


def _check(stack: Stack, context: Context) -> list[Finding]:
    found = context.previous()
    return pool_replacement_safe(stack, found, context.state.remembered) if found is not None else []


POLICY = Policy(
    name="pool-replacement-safe",
    subject="stack",
    description="A node pool replaced by this preview is deleted before its replacement exists only where other "
                "pools take its workloads; no cluster is replaced under workloads.",
    severity=Severity.HIGH,
    previous="whether this preview replaces a pool or cluster under its workloads",
    remediation_steps="Add a second pool that takes the workloads before changing an input that replaces a pool, "
                      "or leave the pool's name unset so the provider names it and creates the replacement first; "
                      "create a new cluster beside one whose change replaces it.",
    dependents=True,
    check=_check,
)
