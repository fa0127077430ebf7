"""cluster-support-window: a control plane whose Kubernetes version has left its platform's standard support (SPEC 23,
policy 32; advisory).

A minor version is in EKS's standard support for 14 months after its release, then in extended support for 12 more;
past that, EKS upgrades the control plane itself (docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html).
In extended support a control plane costs $0.60 an hour instead of $0.10 (aws.amazon.com/eks/pricing), with no failure
and no approval step: ``upgradePolicy.supportType`` EXTENDED is the default. With STANDARD, EKS upgrades the control
plane at the end of standard support instead (docs.aws.amazon.com/eks/latest/userguide/extended-support-control.html).

The calendar is data (policies/platforms/data/support_windows.json, its date and source in each message); today's date
is the clock's (``COMPUTE_GUARD_TODAY`` in tests). The version is the one the cluster runs or moves to in this
preview.

AKS (learn.microsoft.com/azure/aks/supported-kubernetes-versions): a minor version has community support until its end
of life (a cluster on the stable or rapid upgrade channel, whose version is a minimum, is moved past it on AKS's
schedule: learn.microsoft.com/azure/aks/auto-upgrade-cluster), then platform support only ("Kubernetes components",
"Applying security patches": not supported; "Cluster
creation: Not supported"; "If a cluster is out of support for more than three minor versions ... Azure reserves the
right to automatically upgrade your cluster"); long-term support (``supportPlan`` AKSLongTermSupport, which "requires
moving your cluster to the Premium tier": learn.microsoft.com/azure/aks/long-term-support) keeps it supported for a
year more.

GKE (cloud.google.com/kubernetes-engine/versioning): "GKE provides up to a total of 24 months of support for a minor
version ... around 14 months of standard support and approximately an additional 10 months of extended support
available with the Extended channel"; a cluster on another channel, or none, is upgraded by GKE past the end of standard
support, on GKE's schedule, not the stack's. The calendar has GKE's end of standard support per minor (its release
schedule, as endoflife.date transcribes it), not the end of extended support: a cluster on the Extended channel is
not judged by it. The version is ``minMasterVersion``, a minimum ("GKE will auto-update the master to new versions").
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pulumi_policy import EnforcementLevel, Severity

from .adapters.findings import Finding, Violation
from .adapters.templates import Context, Policy
from .model.clusters import KubeCluster
from .model.stack import Stack
from .model.values import Unknown, derived, undetermined
from .model.versions import release
from .platforms.managed import managed
from .platforms.support import Calendar, Window, calendar

HOURS_A_MONTH = 730  # 24 hours x 365 days / 12 months, the month cloud prices are quoted in


def cluster_support_window(stack: Stack, today: date) -> list[Finding]:
    findings: list[Finding] = []
    for cluster in stack.kube_clusters:
        if cluster.urn in stack.foreign or cluster.version is None or cluster.platform is None:
            continue
        known = calendar(cluster.platform)
        if known is None:
            continue
        finding = _judged(cluster, known, today)
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(cluster: KubeCluster, known: Calendar, today: date) -> Finding | None:
    version = cluster.version
    if version is None or version.value is None:
        return None  # the platform's default: its newest
    if version.unknown is not None:
        return undetermined(f"{cluster.kind} '{cluster.name}': its Kubernetes version ({version.field}) is not known "
                            "yet, so whether it is in standard support is not judged")
    minor = version.minor
    if minor is None:
        return None
    value = version.value
    window = known.window(minor)
    oldest = known.oldest
    where = f"{cluster.kind} '{cluster.name}'"
    said = f"(calendar of {known.held}: {known.source}; today {today.isoformat()})"
    target = known.in_standard(today)
    upgrade = (f"upgrade it one minor at a time to {release(target, value)}, the oldest in standard support"
               if target is not None and target > minor else "upgrade it one minor at a time")
    gone = managed(cluster.platform).past_support or \
        "the platform upgrades such a control plane itself and creates no cluster at it"
    if window is None:
        last = oldest.extended_end or oldest.standard_end
        if minor >= oldest.minor or today <= last:
            return None  # newer than the calendar, or an old version the calendar cannot date yet
        ended = known.extended if oldest.extended_end is not None else "standard support"
        return Violation(
            f"{where}: Kubernetes {version.shown()} is older than every version of the calendar, whose oldest, "
            f"{release(oldest.minor, value)}, left {ended} on {last.isoformat()} {said}: {gone}; {upgrade}",
            cluster.urn)
    if today <= window.standard_end:
        return None
    shown = version.shown()
    if window.extended_end is not None and today > window.extended_end:
        return Violation(
            f"{where}: Kubernetes {shown} left {known.extended} on "
            f"{derived(window.extended_end.isoformat(), value)} {said}: {gone}; {upgrade}", cluster.urn)
    support_model = managed(cluster.platform).support
    if support_model == "long-term":
        return _aks(cluster, known, window, f"{said}; {upgrade}")
    if support_model == "channel":
        return _gke(cluster, window, f"{said}; {upgrade}")
    support = cluster.support
    ended = _left(cluster, "standard support", window)
    if isinstance(support, Unknown):
        return undetermined(f"{ended} {said}, and whether it stays in paid extended support "
                            f"(upgradePolicy.supportType) is not known yet; {upgrade}")
    if isinstance(support, str) and support.upper() == "STANDARD":
        return Violation(
            f"{ended} {said}, and its upgradePolicy.supportType is STANDARD: the platform upgrades the control plane "
            f"to the next version on its own schedule, not the stack's; {upgrade} before it does", cluster.urn)
    if known.extended_hour is None or known.standard_hour is None or window.extended_end is None:
        return None
    more = (known.extended_hour - known.standard_hour) * HOURS_A_MONTH
    written = "EXTENDED" if isinstance(support, str) else "EXTENDED, the default"
    return Violation(
        f"{ended} and is in extended support until {derived(window.extended_end.isoformat(), value)} {said}: with "
        f"upgradePolicy.supportType {written}, its control plane costs ${known.extended_hour} an hour instead of "
        f"${known.standard_hour}, (${known.extended_hour} - ${known.standard_hour}) x {HOURS_A_MONTH} hours = "
        f"${_money(more)} a month more ({known.price_source}); {upgrade}, or set upgradePolicy.supportType to "
        "STANDARD to have the platform upgrade it at once", cluster.urn)


def _left(cluster: KubeCluster, support: str, window: Window) -> str:
    """"<cluster>: Kubernetes <version> left <support> on <its standard end>", the date as secret as the version."""
    value = cluster.version.value if cluster.version is not None else None
    shown = cluster.version.shown() if cluster.version is not None else ""
    return (f"{cluster.kind} '{cluster.name}': Kubernetes {shown} left {support} on "
            f"{derived(window.standard_end.isoformat(), value)}")


EXTENDED_CHANNEL = "EXTENDED"  # releaseChannel.channel: UNSPECIFIED, RAPID, REGULAR, STABLE, EXTENDED


def _gke(cluster: KubeCluster, window: Window, said: str) -> Finding | None:
    """A GKE control plane whose minimum version is past its standard support: on the Extended channel it stays (until
    an end the calendar does not hold), on any other GKE upgrades it on its own schedule."""
    channel = cluster.support
    if isinstance(channel, str) and channel.upper() == EXTENDED_CHANNEL:
        return None
    ended = _left(cluster, "GKE's standard support", window)
    if isinstance(channel, Unknown):
        return undetermined(f"{ended}, and whether the cluster is on the Extended release channel "
                            f"(releaseChannel.channel) is not known yet {said}")
    written = f"releaseChannel.channel {channel}" if isinstance(channel, str) else "no releaseChannel.channel written"
    return Violation(
        f"{ended}: with {written}, GKE upgrades it to a supported minor on its own schedule, not the stack's {said} "
        "before it does, or set releaseChannel.channel to EXTENDED to keep it in extended support (about 10 months "
        "more, at extra cost)", cluster.urn)


LONG_TERM = "akslongtermsupport"  # ManagedCluster supportPlan: KubernetesOfficial (the default) or AKSLongTermSupport


def _aks(cluster: KubeCluster, known: Calendar, window: Window, said: str) -> Finding | None:
    """An AKS control plane past its version's community support and within its long-term support: fine with long-term
    support (supportPlan AKSLongTermSupport), else in platform support only."""
    plan = cluster.support
    if isinstance(plan, str) and plan.lower() == LONG_TERM:
        return None
    ended = _left(cluster, "AKS's community support", window)
    if cluster.version is not None and cluster.version.least:  # its version is a minimum: AKS moves it on
        return Violation(
            f"{ended}: its upgrade channel (stable or rapid, or one not known yet) moves it to a supported minor on "
            f"AKS's schedule, not the stack's {said} before it does, so that the stack says the version it runs",
            cluster.urn)
    if isinstance(plan, Unknown):
        return undetermined(f"{ended}, and whether the cluster has {known.extended} (supportPlan) is not known yet "
                            f"{said}")
    value = cluster.version.value if cluster.version is not None else None
    until = f" until {derived(window.extended_end.isoformat(), value)}" if window.extended_end is not None else ""
    return Violation(
        f"{ended}: AKS gives it platform support only, with no Kubernetes fixes or security patches, and creates no "
        f"cluster at it {said}, or keep it supported{until} with {known.extended} (supportPlan AKSLongTermSupport, on "
        "the Premium tier)", cluster.urn)


def _money(amount: Decimal) -> str:
    return f"{amount.quantize(Decimal('0.01'))}"


def _check(stack: Stack, context: Context) -> list[Finding]:
    return cluster_support_window(stack, context.state.today)


POLICY = Policy(
    name="cluster-support-window",
    subject="stack",
    description="Control planes run versions in their platform's standard support.",
    severity=Severity.MEDIUM,
    level=EnforcementLevel.ADVISORY,
    remediation_steps="Upgrade the control plane one minor version at a time to a version in standard support, or "
                      "choose what the platform does at the end of standard support (EKS upgradePolicy.supportType, "
                      "AKS supportPlan).",
    check=_check,
)
