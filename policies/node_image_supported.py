"""node-image-supported: a pool's node image runs at the Kubernetes version its nodes run or move to in this preview
(SPEC 23, policy 31).

Platforms stop publishing node images at a version: EKS publishes no Amazon Linux 2 AMIs from Kubernetes 1.33 (the
AL2_* AMI types, and Karpenter's al2@ alias), AKS runs no Windows Server 2019 pools from 1.33, no Windows Server
2022, Ubuntu2204 or AzureLinux3 pools from 1.37 and no Ubuntu2404 pools from 1.39 (osSKU; the unversioned Ubuntu and
AzureLinux run at every version), GKE no Docker-based image (COS, UBUNTU, WINDOWS_LTSC) from 1.24 (imageType). A node
group or node pool of such an image is neither created nor upgraded at those versions: the update fails, often after
its control plane has already moved. The table is data (policies/platforms/data/node_images.json, every row cited, its
date said in each message); each pool's image is its source's fact (``Pool.image``: EKS ``amiType``, a Karpenter
EC2NodeClass's ``amiSelectorTerms`` alias, AKS ``osSKU``, GKE ``nodeConfig.imageType``), its version the pool's own
(``Pool.version``) or, where it sets none, its control plane's. The pools a cluster's platform creates on its own (GKE
node auto-provisioning's ``autoProvisioningDefaults.imageType``: ``Provisioning.image``) are each new, so at its
control plane's version: refused on the cluster there.

A pool that sets its own version is judged: at a version its image does not run, it is refused. A pool that follows
its control plane is created at the control plane's version: one this preview creates (SPEC 5, "new or deployed": the
previous deployment the pack read does not hold it; every pool of a stack never deployed) is refused there; a
deployed one stays at its own version and can no longer be upgraded, which is said in a note, as is a pool whose
previous deployment the pack cannot read. Where neither a new pool nor its new cluster sets a version, the platform
creates them at a version it still supports today (its support calendar): an image that runs at none of those is
refused (GKE node auto-provisioning's COS pools on a new cluster). A Karpenter alias is the image for the control
plane's version on every node Karpenter starts (the row's ``follows``): refused at the control plane's version. A
version or image not known yet is said; an image the table does not know (a custom AMI, a newer image) is not judged
by it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from pulumi_policy import Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.clusters import KubeCluster
from .model.pool import Pool
from .model.stack import Stack
from .model.values import derived, listed, undetermined
from .platforms.images import ImageEnd, change, image_end, runs_at
from .platforms.support import Window, calendar

Created = Callable[[str], bool | None]  # whether this preview creates a resource (by URN); None: not known


def node_image_supported(stack: Stack, created: Created = lambda urn: None, today: date | None = None
                         ) -> list[Finding]:
    """``created``: whether this preview creates a resource (asked only of a pool or cluster that sets no version);
    ``today``: the day the platforms' calendars are read on (what versions a new cluster may be created at)."""
    findings: list[Finding] = []
    for pool in stack.platform_pools:
        if pool.urn in stack.foreign or pool.image is None or pool.platform is None:
            continue
        finding = _judged(pool, pool.platform, stack.cluster_for(pool), created, today)
        if finding is not None:
            findings.append(finding)
    for cluster in stack.kube_clusters:  # the pools a cluster's platform creates on its own (GKE auto-provisioning)
        if cluster.urn in stack.foreign or cluster.provisioning is None or cluster.provisioning.image is None \
                or cluster.platform is None:
            continue
        finding = _provisioned(cluster, cluster.platform, created, today)
        if finding is not None:
            findings.append(finding)
    return findings


# A platform creates a new cluster, and its pools, only at a version it still supports: GKE supports a minor "up to a
# total of 24 months", about 10 months past its end of standard support (cloud.google.com/kubernetes-engine/versioning;
# its calendar holds no end of extended support: 12 months are counted past the standard end, a margin); EKS and AKS
# until the end of their extended (long-term) support, which their calendars hold.
GKE_EXTENDED_MONTHS = 12


def _oldest_created(platform: str, today: date | None) -> tuple[int, int] | None:
    """The oldest minor version a new cluster of the platform may be created at today, by its calendar; None where
    the calendar or the day is not known."""
    known = calendar(platform) if today is not None else None
    if known is None or today is None:
        return None
    def last_day(window: Window) -> date:
        if window.extended_end is not None:
            return window.extended_end
        end = window.standard_end
        month = end.month - 1 + GKE_EXTENDED_MONTHS
        return date(end.year + month // 12, month % 12 + 1, min(end.day, 28))
    supported = [minor for minor, window in known.windows.items() if today <= last_day(window)]
    return min(supported) if supported else (max(known.windows)[0], max(known.windows)[1] + 1)


def _never_created(platform: str, end: ImageEnd, today: date | None) -> str:
    """Where the platform creates no new cluster at a version the image runs at: why, as a clause ("" otherwise)."""
    oldest = _oldest_created(platform, today)
    if oldest is None or oldest[0] != end.last[0] or oldest[1] <= end.last[1]:
        return ""
    known = calendar(platform)
    held = known.held if known is not None else ""
    return (f"the platform creates a new cluster only at a version it still supports, {oldest[0]}.{oldest[1]} or "
            f"later today (its support calendar of {held}; today {today})")


def _provisioned(cluster: KubeCluster, platform: str, created: Created, today: date | None) -> Finding | None:
    """The image of every pool a cluster's platform creates on its own: each is new, so at its control plane's
    version."""
    field, image = (cluster.provisioning.image if cluster.provisioning else None) or ("", None)
    if not isinstance(image, str):
        return None  # which image is not known yet (the cluster says it is not known: its unknown)
    end = image_end(platform, image)
    if end is None:
        return None
    subject = f"{cluster.ref.label}: every pool it creates on its own takes {field} {image}, which"
    version = cluster.version
    never = _never_created(platform, end, today) if (version is None or version.value is None) else ""
    if never and created(cluster.urn):  # a new cluster that sets no version: created at one the image cannot run
        why, source = derived(end.why, image), derived(end.source, image)
        return Violation(f"{subject} runs up to Kubernetes {_last(end, image)} only: this preview creates the cluster "
                         f"and it sets no version, and {never}; {why} (table of {end.held}: {source}); use "
                         f"{_listed(end, image)}", cluster.urn)
    if version is None or version.value is None:
        return undetermined(f"{subject} runs up to Kubernetes {_last(end, image)} only, and the cluster sets no "
                            "version, so the platform picks its default: whether its image runs there is not "
                            f"judged; set the version, or use {_listed(end, image)}")
    if version.unknown is not None:
        return undetermined(f"{subject} runs up to Kubernetes {_last(end, image)} only, and its version "
                            f"({version.field}) is not known yet, so whether its image runs there is not judged")
    minor = version.minor
    if minor is None or minor[0] != end.last[0] or runs_at(platform, image, minor):
        return None
    instead = [candidate for candidate in end.instead if runs_at(platform, candidate, minor)]
    why, source = derived(end.why, image), derived(end.source, image)  # they would tell a secret image
    return Violation(f"{subject} would run Kubernetes {version.shown()}, the version of its control plane, and {why} "
                     f"(table of {end.held}: {source}); use {_listed(end, image, instead)}", cluster.urn)


def _judged(pool: Pool, platform: str, cluster: KubeCluster | None, created: Created,
            today: date | None = None) -> Finding | None:
    field, image = pool.image or ("", None)
    own = pool.version if pool.version is not None and pool.version.value is not None else None
    plane = cluster.version if cluster is not None and cluster.version is not None else None
    version = own or (plane if plane is not None and plane.value is not None else None)
    if not isinstance(image, str):
        return None  # which image is not known yet (the pool says it is not known: its unknown)
    end = image_end(platform, image)
    if end is None:
        return None
    if version is None:
        never = _never_created(platform, end, today)
        if never and cluster is not None and created(cluster.urn) and created(pool.urn):
            why, source = derived(end.why, image), derived(end.source, image)
            return Violation(f"{pool.label}: its {field} {image} runs up to Kubernetes {_last(end, image)} only: this "
                             f"preview creates it and its cluster, neither sets a version, and {never}; {why} (table "
                             f"of {end.held}: {source}); use {_listed(end, image)}", pool.urn)
        return undetermined(f"{pool.label}: its {field} {image} runs up to Kubernetes {_last(end, image)} only, and "
                            "neither the pool nor its cluster sets a version, so the platform picks its default: "
                            f"whether its image runs there is not judged; set the version, or use "
                            f"{_listed(end, image)}")
    if version.unknown is not None:
        return undetermined(f"{pool.label}: its {field} {image} runs up to Kubernetes {_last(end, image)} only, and "
                            f"its version ({version.field}) is not known yet, so whether its image runs there is "
                            "not judged")
    minor = version.minor
    if minor is None or minor[0] != end.last[0] or runs_at(platform, image, minor):
        return None
    instead = [candidate for candidate in end.instead if runs_at(platform, candidate, minor)]
    why, source = derived(end.why, image), derived(end.source, image)  # they would tell a secret image
    changed = end.change or change(platform, field)
    changing = f"; {changed}" if changed else ""
    fix = f"use {_listed(end, image, instead)}{changing}"
    where = cluster.ref.label if cluster is not None else "its cluster"
    if own is None and end.follows:  # every node it starts takes the image for its control plane's version
        return Violation(
            f"{pool.label}: its nodes would run Kubernetes {version.shown()}, the version of the control plane of its "
            f"{where}, with {field} {image}, and {why} (table of {end.held}: {source}); {fix}", pool.urn)
    if own is None and created(pool.urn):  # (an inline pool of a deployed cluster is not known to be new)
        return Violation(
            f"{pool.label}: this preview creates it (the previous deployment does not hold it), and a pool that sets "
            f"no version is created at its control plane's, Kubernetes {version.shown()} (its {where}), with {field} "
            f"{image}, and {why} (table of {end.held}: {source}): its creation fails; {fix}", pool.urn)
    if own is None:
        return undetermined(
            f"{pool.label}: its {field} {image} runs up to Kubernetes {_last(end, image)} only (table of "
            f"{end.held}: {source}), and the pool sets no version, so a new pool is created at Kubernetes "
            f"{version.shown()}, the version of the control plane of its {where}: {why}; an existing pool stays at "
            f"its own version and can never be upgraded past {_last(end, image)}: {fix}")
    return Violation(
        f"{pool.label}: its nodes would run Kubernetes {version.shown()} with {field} {image}, and {why} (table of "
        f"{end.held}: {source}); {fix}", pool.urn)


def _last(end: ImageEnd, image: str) -> str:
    """The last release the image runs at (secret when the image is)."""
    return derived(f"{end.last[0]}.{end.last[1]}", image)


def _listed(end: ImageEnd, image: str, instead: list[str] | None = None) -> str:
    """The images to use instead, as a message lists them (secret when the image is: they would tell it)."""
    return derived(listed(end.instead if instead is None else instead, " or "), image)


def _check(stack: Stack, context: Context) -> list[Finding]:
    def created(urn: str) -> bool | None:
        previous = context.previous()
        return None if previous is None else urn not in previous.urns

    return node_image_supported(stack, created, context.state.today)


POLICY = Policy(
    name="node-image-supported",
    subject="stack",
    description="A pool's image runs at the version its nodes move to.",
    severity=Severity.HIGH,
    previous="whether a pool that sets no version is new (created at its control plane's version)",
    remediation_steps="Move the pool to an image its platform publishes for that version (Amazon Linux 2023 or "
                      "Bottlerocket on EKS and in a Karpenter EC2NodeClass's alias; a later Windows Server, or the "
                      "unversioned Ubuntu or AzureLinux OS SKU, on AKS; a "
                      "containerd image on GKE) before its nodes move to it.",
    check=_check,
)
