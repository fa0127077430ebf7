"""cluster-support-window: a control plane whose version has left its platform's standard support (SPEC 23, policy 32,
advisory), on today's date as the test sets it (COMPUTE_GUARD_TODAY), through pulumi-aws, pulumi-eks and azure-native.

The oracle is EKS's release calendar, written out here row by row with its source, and the price arithmetic written out
as a formula: the table the pack reads (policies/platforms/data/support_windows.json) must say the same."""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pulumi_aws as aws
import pulumi_eks as eks
import pytest

from compute_guard.testkit import evaluate

POLICY = "cluster-support-window"
ROLE = "arn:aws:iam::123456789012:role/eks"
TABLE = Path(__file__).resolve().parents[2] / "policies" / "platforms" / "data" / "support_windows.json"
AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}

# docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html, "Amazon EKS Kubernetes release calendar": each
# minor's end of standard support and end of extended support (14 months, then 12 more)
EKS_CALENDAR = {
    (1, 28): (date(2024, 11, 26), date(2025, 11, 26)),
    (1, 29): (date(2025, 3, 23), date(2026, 3, 23)),
    (1, 30): (date(2025, 7, 23), date(2026, 7, 23)),
    (1, 31): (date(2025, 11, 26), date(2026, 11, 26)),
    (1, 32): (date(2026, 3, 23), date(2027, 3, 23)),
    (1, 33): (date(2026, 7, 29), date(2027, 7, 29)),
    (1, 34): (date(2026, 12, 2), date(2027, 12, 2)),
    (1, 35): (date(2027, 3, 27), date(2028, 3, 27)),
}
# aws.amazon.com/eks/pricing: a cluster hour in standard support, and in extended support (USD)
STANDARD_HOUR, EXTENDED_HOUR = Decimal("0.10"), Decimal("0.60")


def test_the_calendar_says_what_eks_documents():
    document = json.loads(TABLE.read_text())
    aws_entry = document["platforms"]["aws"]
    assert aws_entry["source"].startswith("docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html")
    assert {tuple(int(part) for part in version.split(".")): (date.fromisoformat(ends[0]), date.fromisoformat(ends[1]))
            for version, ends in aws_entry["versions"].items()} == EKS_CALENDAR
    assert (Decimal(aws_entry["standard_hour"]), Decimal(aws_entry["extended_hour"])) == (STANDARD_HOUR, EXTENDED_HOUR)
    assert aws_entry["price_source"].startswith("aws.amazon.com/eks/pricing")


def cluster(version: str | None, support: str | None = None):
    def program():
        aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version=version,
                        upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type=support) if support else None,
                        vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
    return program


def judged(program, today: date, monkeypatch) -> list[str]:
    monkeypatch.setenv("COMPUTE_GUARD_TODAY", today.isoformat())
    result = evaluate(program, stack_config=AWS)
    assert {v.level for v in result.of(POLICY)} <= {"advisory"}
    return result.findings(POLICY)


@pytest.mark.parametrize("minor", sorted(EKS_CALENDAR))
def test_each_version_on_both_sides_of_its_end_of_standard_support(minor, monkeypatch):
    standard_end, extended_end = EKS_CALENDAR[minor]
    version = f"{minor[0]}.{minor[1]}"
    assert judged(cluster(version), standard_end, monkeypatch) == []
    (message,) = judged(cluster(version), standard_end + timedelta(days=1), monkeypatch)
    assert f"Kubernetes {version} left standard support on {standard_end.isoformat()} and is in extended support " \
           f"until {extended_end.isoformat()}" in message
    (message,) = judged(cluster(version), extended_end + timedelta(days=1), monkeypatch)
    assert f"Kubernetes {version} left extended support on {extended_end.isoformat()}" in message


def test_extended_support_is_said_with_its_price_and_the_version_to_move_to(monkeypatch):
    """The engine scenario's in-process twin (tests/engine/test_engine_protocol.py), twice in one process."""
    more = (EXTENDED_HOUR - STANDARD_HOUR) * 730  # 24 x 365 / 12 hours a month
    for _ in range(2):
        assert judged(cluster("1.32"), date(2026, 12, 1), monkeypatch) == [
            "EKS cluster 'fleet': Kubernetes 1.32 left standard support on 2026-03-23 and is in extended support until "
            "2027-03-23 (calendar of 2026-06-19: docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html, "
            "\"Amazon EKS Kubernetes release calendar\"; today 2026-12-01): with upgradePolicy.supportType EXTENDED, "
            "the default, its control plane costs $0.60 an hour instead of $0.10, ($0.60 - $0.10) x 730 hours = "
            f"${more:.2f} a month more (aws.amazon.com/eks/pricing (per cluster hour, standard and extended support)); "
            "upgrade it one minor at a time to 1.34, the oldest in standard support, or set "
            "upgradePolicy.supportType to STANDARD to have the platform upgrade it at once"]
    assert f"{more:.2f}" == "365.00"


def test_standard_support_type_is_said_as_an_upgrade_on_the_platforms_schedule(monkeypatch):
    (message,) = judged(cluster("1.33", support="STANDARD"), date(2026, 12, 1), monkeypatch)
    assert message.endswith("and its upgradePolicy.supportType is STANDARD: the platform upgrades the control plane to "
                            "the next version on its own schedule, not the stack's; upgrade it one minor at a time to "
                            "1.34, the oldest in standard support before it does")
    (message,) = judged(cluster("1.33", support="EXTENDED"), date(2026, 12, 1), monkeypatch)
    assert "with upgradePolicy.supportType EXTENDED, its control plane costs $0.60" in message


def test_versions_the_calendar_does_not_know(monkeypatch):
    """Older than its oldest row once that row's extended support is over: said; newer than its newest: not judged;
    a cluster that names no version (EKS's default, its newest) neither."""
    (message,) = judged(cluster("1.27"), date(2026, 12, 1), monkeypatch)
    assert "Kubernetes 1.27 is older than every version of the calendar, whose oldest, 1.28, left extended support " \
           "on 2025-11-26" in message
    assert judged(cluster("1.27"), date(2025, 11, 26), monkeypatch) == []
    assert judged(cluster("1.36"), date(2026, 12, 1), monkeypatch) == []
    assert judged(cluster(None), date(2026, 12, 1), monkeypatch) == []


def test_a_pulumi_eks_cluster_is_judged_by_its_version(monkeypatch):
    def program():
        eks.Cluster("fleet", version="1.31", skip_default_node_group=True)
    (message,) = judged(program, date(2026, 12, 1), monkeypatch)
    assert message.startswith("EKS cluster 'fleet': Kubernetes 1.31 left extended support on 2026-11-26")


def test_a_secret_version_is_judged_and_never_told(monkeypatch):
    import pulumi

    def program():
        aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version=pulumi.Output.secret("1.32"),
                        vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
    (message,) = judged(program, date(2026, 12, 1), monkeypatch)
    assert "1.32" not in message and "2026-03-23" not in message and "2027-03-23" not in message


# --- AKS (learn.microsoft.com/azure/aks/supported-kubernetes-versions, at MicrosoftDocs/azure-aks-docs fb060ab) --------
# "AKS Kubernetes release calendar and upcoming versions" (End of life) and "LTS versions" (LTS End of life): "Unless an
# explicit date is provided, the End of Life (EOL) date is the last day of the specified month"
AKS_CALENDAR = {
    (1, 29): ("Mar 2025", "Apr 2026"),
    (1, 30): ("Aug 22, 2025", "Jul 2026"),
    (1, 31): ("Nov 1, 2025", "Nov 2026"),
    (1, 32): ("Mar 2026", "Mar 2027"),
    (1, 33): ("Jul 2026", "Jul 2027"),
    (1, 34): ("Nov 2026", "Nov 2027"),
    (1, 35): ("Mar 2027", "Mar 2028"),
    (1, 36): ("Jun 2027", "Jun 2028"),
    (1, 37): ("Oct 2027", "Oct 2028"),
}
AZURE = {"compute:platform": "azure", "azure-native:location": "westeurope"}


def _day(written: str) -> date:
    """The page's date: "Aug 22, 2025" as written, "Mar 2026" the month's last day."""
    import calendar
    from datetime import datetime

    if "," in written:
        return datetime.strptime(written, "%b %d, %Y").date()
    month = datetime.strptime(written, "%b %Y").date()
    return month.replace(day=calendar.monthrange(month.year, month.month)[1])


def test_the_calendar_says_what_aks_documents():
    entry = json.loads(TABLE.read_text())["platforms"]["azure"]
    assert entry["source"].startswith("learn.microsoft.com/azure/aks/supported-kubernetes-versions")
    assert {tuple(int(part) for part in version.split(".")): (date.fromisoformat(ends[0]), date.fromisoformat(ends[1]))
            for version, ends in entry["versions"].items()} == \
        {minor: (_day(end), _day(lts)) for minor, (end, lts) in AKS_CALENDAR.items()}


def aks(version: str | None, plan=None, channel: str | None = None):
    from pulumi_azure_native import containerservice

    def program():
        args = dict(resource_group_name="rg", resource_name_="aks", location="westeurope", dns_prefix="aks",
                    kubernetes_version=version, agent_pool_profiles=[
                        {"name": "system", "mode": "System", "vm_size": "Standard_D4ds_v5", "count": 3}])
        if channel is not None:
            args["auto_upgrade_profile"] = {"upgrade_channel": channel}
        if plan is not None:
            args["support_plan"] = plan() if callable(plan) else plan
            args["sku"] = {"name": "Base", "tier": "Premium"}
        containerservice.ManagedCluster("aks", **args)
    return program


def judged_on(config: dict, program, today: date, monkeypatch) -> list[str]:
    """The policy's findings (advisory every one) and notes on a stack of the platform ``config`` names."""
    monkeypatch.setenv("COMPUTE_GUARD_TODAY", today.isoformat())
    result = evaluate(program, stack_config=config)
    assert {v.level for v in result.of(POLICY)} <= {"advisory"}
    return result.findings(POLICY) + [note.finding for note in result.notes if note.policy == POLICY]


def aks_judged(program, today: date, monkeypatch) -> list[str]:
    return judged_on(AZURE, program, today, monkeypatch)


@pytest.mark.parametrize("minor", sorted(AKS_CALENDAR))
def test_each_aks_version_on_both_sides_of_its_end_of_life(minor, monkeypatch):
    """Community support to its end of life; after it, platform support only unless the cluster has long-term
    support, which ends a year later for every version."""
    end, lts = (_day(written) for written in AKS_CALENDAR[minor])
    version = f"{minor[0]}.{minor[1]}"
    assert aks_judged(aks(version), end, monkeypatch) == []
    (message,) = aks_judged(aks(version), end + timedelta(days=1), monkeypatch)
    assert message.startswith(f"AKS cluster 'aks': Kubernetes {version} left AKS's community support on "
                              f"{end.isoformat()}: AKS gives it platform support only"), message
    assert f"until {lts.isoformat()} with long-term support (supportPlan AKSLongTermSupport" in message
    assert aks_judged(aks(version, "AKSLongTermSupport"), end + timedelta(days=1), monkeypatch) == []
    (message,) = aks_judged(aks(version, "AKSLongTermSupport"), lts + timedelta(days=1), monkeypatch)
    assert message.startswith(f"AKS cluster 'aks': Kubernetes {version} left long-term support on "
                              f"{lts.isoformat()}"), message


def test_an_aks_cluster_past_community_support_is_said_with_the_version_to_move_to(monkeypatch):
    """On 2026-12-06 1.34 has just left community support (Nov 2026) and 1.35 is the oldest in it. Twice."""
    for _ in range(2):
        assert aks_judged(aks("1.34.2"), date(2026, 12, 6), monkeypatch) == [
            "AKS cluster 'aks': Kubernetes 1.34 (kubernetesVersion '1.34.2') left AKS's community support on "
            "2026-11-30: AKS gives it platform "
            "support only, with no Kubernetes fixes or security patches, and creates no cluster at it (calendar of "
            "2026-08-21: learn.microsoft.com/azure/aks/supported-kubernetes-versions, \"AKS Kubernetes release "
            "calendar and upcoming versions\" and \"LTS versions\" (MicrosoftDocs/azure-aks-docs at fb060ab); a month "
            "without a day is its last day, as the page says; today 2026-12-06); upgrade it one minor at a time to "
            "1.35, the oldest in standard support, or keep it supported until 2027-11-30 with long-term support "
            "(supportPlan AKSLongTermSupport, on the Premium tier)"]


def test_an_aks_cluster_on_a_channel_that_moves_its_minor_is_said_as_gkes_is(monkeypatch):
    """Issue 75: on the stable or rapid upgrade channel an AKS cluster's kubernetesVersion is a minimum AKS upgrades
    past (learn.microsoft.com/azure/aks/auto-upgrade-cluster): past community support it is moved on AKS's schedule,
    not left in platform support (on main the message said "AKS gives it platform support only" whatever the channel).
    The patch and node-image channels stay in the minor: said as before."""
    for channel in ("stable", "rapid"):
        (message,) = aks_judged(aks("1.34", channel=channel), date(2026, 12, 6), monkeypatch)
        assert message.startswith("AKS cluster 'aks': Kubernetes 1.34 left AKS's community support on 2026-11-30: its "
                                  "upgrade channel (stable or rapid, or one not known yet) moves it to a supported "
                                  "minor on AKS's schedule, not the stack's (calendar of "), message
        assert "upgrade it one minor at a time to 1.35, the oldest in standard support before it does" in message
        assert "platform support only" not in message
    for channel in ("patch", "node-image", "none"):
        (message,) = aks_judged(aks("1.34", channel=channel), date(2026, 12, 6), monkeypatch)
        assert "AKS gives it platform support only" in message, (channel, message)


def test_aks_versions_the_calendar_does_not_know_and_a_plan_not_known_yet(monkeypatch):
    (message,) = aks_judged(aks("1.28"), date(2026, 12, 6), monkeypatch)
    assert message.startswith("AKS cluster 'aks': Kubernetes 1.28 is older than every version of the calendar, whose "
                              "oldest, 1.29, left long-term support on 2026-04-30"), message
    assert "AKS creates no cluster at it and may upgrade an existing one itself" in message
    assert aks_judged(aks("1.38"), date(2026, 12, 6), monkeypatch) == []
    assert aks_judged(aks(None), date(2026, 12, 6), monkeypatch) == []

    def late():
        from pulumi_azure_native import resources

        return resources.ResourceGroup("rg").name.apply(lambda _: "AKSLongTermSupport")

    (message,) = aks_judged(aks("1.34", late), date(2026, 12, 6), monkeypatch)
    assert "whether the cluster has long-term support (supportPlan) is not known yet" in message


def test_a_secret_aks_version_is_judged_and_never_told(monkeypatch):
    import pulumi

    def program():
        from pulumi_azure_native import containerservice

        containerservice.ManagedCluster("aks", resource_group_name="rg", resource_name_="aks", location="westeurope",
                                        dns_prefix="aks", kubernetes_version=pulumi.Output.secret("1.34"),
                                        agent_pool_profiles=[{"name": "system", "mode": "System", "count": 3,
                                                              "vm_size": "Standard_D4ds_v5"}])
    (message,) = aks_judged(program, date(2026, 12, 6), monkeypatch)
    assert message.startswith("AKS cluster 'aks': Kubernetes [secret]"), message
    assert "1.34" not in message and "2026-11-30" not in message and "2027-11-30" not in message


# --- GKE (cloud.google.com/kubernetes-engine/docs/release-schedule, "End of standard support", as endoflife.date
# transcribes it: endoflife-date/endoflife.date products/google-kubernetes-engine.md at a70eca3, its "eol" = "End of
# standard support"); the end of extended support is not in that table
GKE_STANDARD_END = {
    (1, 27): date(2024, 10, 1), (1, 28): date(2025, 2, 4), (1, 29): date(2025, 4, 12), (1, 30): date(2025, 9, 30),
    (1, 31): date(2026, 1, 16), (1, 32): date(2026, 4, 11), (1, 33): date(2026, 8, 3), (1, 34): date(2026, 10, 1),
    (1, 35): date(2027, 4, 11), (1, 36): date(2027, 8, 9),
}
GCP = {"compute:platform": "gcp", "gcp:project": "p", "gcp:region": "europe-west1"}


def test_the_calendar_says_what_gke_documents():
    entry = json.loads(TABLE.read_text())["platforms"]["gcp"]
    assert entry["source"].startswith("cloud.google.com/kubernetes-engine/docs/release-schedule")
    assert {tuple(int(part) for part in version.split(".")): (date.fromisoformat(ends[0]), ends[1])
            for version, ends in entry["versions"].items()} == {
        minor: (end, None) for minor, end in GKE_STANDARD_END.items()}


def gke(version: str | None, channel=None):
    import pulumi_gcp as gcp

    def program():
        gcp.container.Cluster("gke", name="gke", location="europe-west1-b", initial_node_count=1,
                              min_master_version=version,
                              release_channel={"channel": channel() if callable(channel) else channel}
                              if channel is not None else None)
    return program


def gke_judged(program, today: date, monkeypatch) -> list[str]:
    return judged_on(GCP, program, today, monkeypatch)


@pytest.mark.parametrize("minor", sorted(GKE_STANDARD_END))
def test_each_gke_version_on_both_sides_of_its_end_of_standard_support(minor, monkeypatch):
    """To its end of standard support: nothing; after it, on a channel other than Extended (or none): GKE upgrades the
    cluster on its own schedule, said; on the Extended channel: not judged (its end is not in the table)."""
    end = GKE_STANDARD_END[minor]
    version = f"{minor[0]}.{minor[1]}"
    assert gke_judged(gke(version, "REGULAR"), end, monkeypatch) == []
    (message,) = gke_judged(gke(version, "REGULAR"), end + timedelta(days=1), monkeypatch)
    assert message.startswith(f"GKE cluster 'gke': Kubernetes {version} left GKE's standard support on "
                              f"{end.isoformat()}: with releaseChannel.channel REGULAR, GKE upgrades it"), message
    assert gke_judged(gke(version, "EXTENDED"), end + timedelta(days=1), monkeypatch) == []


def test_a_gke_cluster_past_standard_support_is_said_with_the_version_to_move_to(monkeypatch):
    """On 2026-12-06 1.34 has left standard support (2026-10-01) and 1.35 is the oldest in it. Twice; no channel
    written reads as none; a channel not known yet is a note; no minMasterVersion (the channel's default) is not
    judged."""
    for _ in range(2):
        assert gke_judged(gke("1.34"), date(2026, 12, 6), monkeypatch) == [
            "GKE cluster 'gke': Kubernetes 1.34 left GKE's standard support on 2026-10-01: with no releaseChannel."
            "channel written, GKE upgrades it to a supported minor on its own schedule, not the stack's (calendar of "
            "2026-08-22: "
            "cloud.google.com/kubernetes-engine/docs/release-schedule, \"End of standard support\", as endoflife.date "
            "transcribes it (endoflife-date/endoflife.date products/google-kubernetes-engine.md at a70eca3); the end "
            "of extended support is not in it; today 2026-12-06); upgrade it one minor at a time to 1.35, the oldest "
            "in standard support before it does, or set releaseChannel.channel to EXTENDED to keep it in extended "
            "support (about 10 months more, at extra cost)"]

    def late():
        import pulumi_kubernetes as k8s

        return k8s.core.v1.ConfigMap("source", data={"a": "b"}).immutable.apply(lambda _: "EXTENDED")

    (message,) = gke_judged(gke("1.34", late), date(2026, 12, 6), monkeypatch)
    assert "whether the cluster is on the Extended release channel (releaseChannel.channel) is not known yet" in message
    assert gke_judged(gke(None, "STABLE"), date(2026, 12, 6), monkeypatch) == []
    (older,) = gke_judged(gke("1.26", "STABLE"), date(2026, 12, 6), monkeypatch)
    assert older.startswith("GKE cluster 'gke': Kubernetes 1.26 is older than every version of the calendar, whose "
                            "oldest, 1.27, left standard support on 2024-10-01"), older
    assert "GKE upgrades such a cluster to a supported minor itself, on its own schedule" in older
