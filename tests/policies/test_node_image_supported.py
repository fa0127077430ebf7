"""node-image-supported: a pool's node image runs at the Kubernetes version its nodes run or move to (SPEC 23, policy
31), at each source through the providers' own SDKs.

The oracle is the platforms' documentation, row by row, written out here with the source each row comes from: the
table the pack reads (policies/platforms/data/node_images.json) must say the same, and every row is tried on both sides
of its last version."""

from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pulumi_aws as aws
import pulumi_azure as azure_classic
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
import pytest
from pulumi_azure_native import containerservice

from compute_guard.testkit import evaluate

POLICY = "node-image-supported"
ROLE = "arn:aws:iam::123456789012:role/eks"
TABLE = Path(__file__).resolve().parents[2] / "policies" / "platforms" / "data" / "node_images.json"
EKS_VERSIONS = "docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html"
GKE_DOCKER = "docs.cloud.google.com/kubernetes-engine/docs/deprecations/docker-containerd"
AKS_OS_SKUS = "learn.microsoft.com/azure/aks/upgrade-os-version"

# (platform, image, the last minor it runs at, the images to use instead, where the platform says it)
DOCUMENTED = [
    # "For Kubernetes versions 1.33 and later, EKS will not provide pre-built optimized Amazon Linux 2 (AL2) AMIs"
    ("aws", "AL2_x86_64", (1, 32), ["AL2023_x86_64_STANDARD", "BOTTLEROCKET_x86_64"], EKS_VERSIONS),
    ("aws", "AL2_x86_64_GPU", (1, 32), ["AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA"], EKS_VERSIONS),
    ("aws", "AL2_ARM_64", (1, 32), ["AL2023_ARM_64_STANDARD", "BOTTLEROCKET_ARM_64"], EKS_VERSIONS),
    # the same EKS words: Karpenter's alias al2@... selects the EKS optimized AL2 AMI for the cluster's version
    ("aws", "al2", (1, 32), ["al2023", "bottlerocket"], EKS_VERSIONS),
    # "GKE does not support node images that use Docker as the runtime in GKE version 1.24 and later"
    ("gcp", "COS", (1, 23), ["COS_CONTAINERD", "UBUNTU_CONTAINERD"], GKE_DOCKER),
    ("gcp", "UBUNTU", (1, 23), ["UBUNTU_CONTAINERD", "COS_CONTAINERD"], GKE_DOCKER),
    ("gcp", "WINDOWS_LTSC", (1, 23), ["WINDOWS_LTSC_CONTAINERD"], GKE_DOCKER),
    # AKS's release notes of 2026-05-29: Windows Server 2019 retired on 2026-03-01, no pools in 1.33+
    ("azure", "Windows2019", (1, 32), ["Windows2022", "Windows2025"], "github.com/Azure/AKS/releases/tag/2026-05-29"),
    # AKS's release notes of 2026-06-19: "Windows Server 2022 is not supported in Kubernetes version 1.37 and above"
    ("azure", "Windows2022", (1, 36), ["Windows2025"], "github.com/Azure/AKS/releases/tag/2026-06-19"),
    # AKS's OS SKU table (MicrosoftDocs/azure-aks-docs at fb060ab, 2026-08-21): Ubuntu2204 "is supported in Kubernetes
    # versions 1.25 to 1.36", AzureLinux3 "in Kubernetes 1.28 to 1.36", Ubuntu2404 "will only be supported in
    # Kubernetes 1.32 to 1.38"; Ubuntu and AzureLinux "in all Kubernetes versions"
    ("azure", "Ubuntu2204", (1, 36), ["Ubuntu", "Ubuntu2404"], AKS_OS_SKUS),
    ("azure", "AzureLinux3", (1, 36), ["AzureLinux"], AKS_OS_SKUS),
    ("azure", "Ubuntu2404", (1, 38), ["Ubuntu"], AKS_OS_SKUS),
]


def test_the_table_says_what_each_platform_documents():
    rows = json.loads(TABLE.read_text())["rows"]
    found = [(row["platform"], row["image"], tuple(int(part) for part in row["last"].split(".")), row["instead"],
              row["source"].split(" ", 1)[0]) for row in rows]
    assert found == DOCUMENTED


def eks(plane: str | None, node: str | None, ami: str | None, secret_ami: bool = False):
    def program():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version=plane,
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=["m7i.large" if ami != "AL2_ARM_64" else "m7g.large"],
                          version=node, ami_type=pulumi.Output.secret(ami) if secret_ami else ami,
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
    return program


def _os_type(sku: str) -> str:
    return "Windows" if sku.startswith("Windows") else "Linux"


def aks_native(plane: str, node: str | None, sku: str):
    def program():
        cluster = containerservice.ManagedCluster(
            "aks", resource_group_name="rg", resource_name_="aks", location="westeurope", dns_prefix="aks",
            kubernetes_version=plane, windows_profile={"admin_username": "azureuser"},
            agent_pool_profiles=[{"name": "system", "mode": "System", "vm_size": "Standard_D4s_v5", "count": 1}])
        containerservice.AgentPool("win", resource_group_name="rg", resource_name_=cluster.name, agent_pool_name="win",
                                   vm_size="Standard_D4s_v5", count=1, os_type=_os_type(sku), os_sku=sku,
                                   orchestrator_version=node)
    return program


def aks_classic(plane: str, node: str, sku: str):
    def program():
        cluster = azure_classic.containerservice.KubernetesCluster(
            "aks", name="aks", resource_group_name="rg", location="westeurope", dns_prefix="aks",
            kubernetes_version=plane, identity={"type": "SystemAssigned"},
            default_node_pool={"name": "system", "vm_size": "Standard_D4s_v5", "node_count": 1})
        azure_classic.containerservice.KubernetesClusterNodePool(
            "win", name="win", kubernetes_cluster_id=cluster.id, vm_size="Standard_D4s_v5", node_count=1,
            os_type=_os_type(sku), os_sku=sku, orchestrator_version=node)
    return program


AWS = {"compute:platform": "aws", "aws:region": "us-west-2"}
AZURE = {"compute:platform": "azure", "azure-native:location": "westeurope", "azure:location": "westeurope"}


def notes(result) -> list[str]:
    """This policy's notes, as users read them after the SDK's preamble."""
    return [note.finding.split(" during preview: ", 1)[1] for note in result.notes if note.policy == POLICY]


def _at(minor: tuple[int, int]) -> str:
    return f"{minor[0]}.{minor[1]}"


def karpenter(plane: str | None, node: str | None, family: str, terms: list | None = None):
    """A Karpenter NodePool whose EC2NodeClass selects the EKS optimized AMI of ``family`` by its alias (or by
    ``terms``), on an EKS cluster at ``plane`` through a Kubernetes provider whose kubeconfig depends on it. An alias
    names no version: every node takes the AMI for the cluster's (``node`` is unused)."""
    def program():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version=plane,
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        provider = k8s.Provider("fleet", kubeconfig=cluster.endpoint)
        opts = pulumi.ResourceOptions(provider=provider)
        k8s.apiextensions.CustomResource("default", api_version="karpenter.k8s.aws/v1", kind="EC2NodeClass",
                                         metadata={"name": "default"}, spec={
                                             "role": "KarpenterNodeRole-fleet", "amiFamily": "AL2",
                                             "amiSelectorTerms": terms or [{"alias": f"{family}@latest"}],
                                             "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "fleet"}}],
                                             "securityGroupSelectorTerms": [
                                                 {"tags": {"karpenter.sh/discovery": "fleet"}}]}, opts=opts)
        k8s.apiextensions.CustomResource("general", api_version="karpenter.sh/v1", kind="NodePool",
                                         metadata={"name": "general"}, spec={"template": {"spec": {
                                             "requirements": [{"key": "kubernetes.io/arch", "operator": "In",
                                                               "values": ["amd64"]}],
                                             "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                              "name": "default"}}}}, opts=opts)
    return program


def gke(plane: str | None, node: str | None, image: str | None):
    """A GKE cluster at ``plane`` (its minimum master version) and a node pool of ``image`` at ``node``."""
    def program():
        cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", initial_node_count=1,
                                        remove_default_node_pool=True, min_master_version=plane)
        gcp.container.NodePool("general", name="general", cluster=cluster.name, location="us-central1-a",
                               node_count=1, version=node,
                               node_config=gcp.container.NodePoolNodeConfigArgs(machine_type="n2-standard-4",
                                                                                image_type=image))
    return program


GCP = {"compute:platform": "gcp", "gcp:project": "acme", "gcp:region": "us-central1"}


@pytest.mark.parametrize("platform,image,last,instead,source", DOCUMENTED)
def test_each_row_at_both_sides_of_its_last_version(platform, image, last, instead, source):
    after = (last[0], last[1] + 1)
    programs = {"aws": [karpenter] if image.islower() else [eks], "gcp": [gke]}.get(platform,
                                                                                    [aks_native, aks_classic])
    for build in programs:
        config = {"aws": AWS, "gcp": GCP}.get(platform, AZURE)
        assert evaluate(build(_at(last), _at(last), image), stack_config=config).findings(POLICY) == []
        refused = evaluate(build(_at(after), _at(after), image), stack_config=config)
        (message,) = refused.findings(POLICY)
        assert [v.level for v in refused.of(POLICY)] == ["mandatory"]
        assert f"would run Kubernetes {_at(after)}" in message and f" {image}, and " in message and source in message
        assert "; use " + " or ".join(instead) in message  # each runs at the version after


def test_an_amazon_linux_2_node_group_moved_to_1_33_is_refused_with_the_images_that_run_there():
    """The engine scenario's in-process twin (tests/engine/test_engine_protocol.py), twice in one process."""
    for _ in range(2):
        result = evaluate(eks("1.34", "1.34", "AL2_x86_64"), stack_config=AWS)
        assert result.findings(POLICY) == [
            "pool 'general' (NodeGroup): its nodes would run Kubernetes 1.34 with amiType AL2_x86_64, and EKS publishes "
            "no Amazon Linux 2 AMIs from Kubernetes 1.33: a node group of it is neither created nor updated at that "
            "version (table of 2026-06-19: docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html "
            "(\"For Kubernetes versions 1.33 and later, EKS will not provide pre-built optimized Amazon Linux 2 (AL2) "
            "AMIs\")); use AL2023_x86_64_STANDARD or BOTTLEROCKET_x86_64; changing amiType replaces the node group, "
            "which pool-replacement-safe judges"]
    assert evaluate(eks("1.34", "1.34", "AL2023_x86_64_STANDARD"), stack_config=AWS).findings(POLICY) == []


def test_a_windows_2019_pool_lists_only_the_images_that_run_at_its_version():
    """At 1.37 Windows Server 2022 has ended too: the fix names Windows2025 alone."""
    (message,) = evaluate(aks_native("1.37", "1.37", "Windows2019"), stack_config=AZURE).findings(POLICY)
    assert message.startswith("pool 'win' (AgentPool): its nodes would run Kubernetes 1.37 with osSKU Windows2019, "
                              "and AKS runs no Windows Server 2019 node pools from Kubernetes 1.33")
    assert "; use Windows2025; AKS moves no Windows node pool to another Windows Server version" in message
    (message,) = evaluate(aks_native("1.34", "1.34", "Windows2019"), stack_config=AZURE).findings(POLICY)
    assert "; use Windows2022 or Windows2025; " in message


FOLLOWS = (
    "pool 'general' (NodeGroup): its amiType AL2_x86_64 runs up to Kubernetes 1.32 only (table of 2026-06-19: "
    f"{EKS_VERSIONS} (\"For Kubernetes versions 1.33 and later, EKS will not provide pre-built optimized Amazon "
    "Linux 2 (AL2) AMIs\")), and the pool sets no version, so a new pool is created at Kubernetes 1.33, the "
    "version of the control plane of its EKS cluster 'fleet': EKS publishes no Amazon Linux 2 AMIs from "
    "Kubernetes 1.33: a node group of it is neither created nor updated at that version; an existing pool stays "
    "at its own version and can never be upgraded past 1.32: use AL2023_x86_64_STANDARD or BOTTLEROCKET_x86_64; "
    "changing amiType replaces the node group, which pool-replacement-safe judges")


def test_a_pool_that_follows_its_control_plane_is_refused_where_this_preview_creates_it(tmp_path):
    """Issue 75 (SPEC 5, "new or deployed"): a node group that sets no version is created at its control plane's.
    In a first preview (the stack never deployed) and where the previous deployment does not hold it (added to a
    deployed stack), this preview creates it there and its creation fails: refused. One the previous deployment holds
    stays at its own version: a note with the arithmetic. Where no previous deployment can be read, which it is is
    not known: the same note. On main every case was the note."""
    from builders import exported

    for _ in range(2):
        result = evaluate(eks("1.33", None, "AL2_x86_64"), stack_config=AWS)
        (message,) = result.findings(POLICY)
        assert [v.level for v in result.of(POLICY)] == ["mandatory"]
        assert message == (
            "pool 'general' (NodeGroup): this preview creates it (the previous deployment does not hold it), and a "
            "pool that sets no version is created at its control plane's, Kubernetes 1.33 (its EKS cluster 'fleet'), "
            "with amiType AL2_x86_64, and EKS publishes no Amazon Linux 2 AMIs from Kubernetes 1.33: a node group of "
            "it is neither created nor updated at that version (table of 2026-06-19: "
            f"{EKS_VERSIONS} (\"For Kubernetes versions 1.33 and later, EKS will not provide pre-built optimized "
            "Amazon Linux 2 (AL2) AMIs\")): its creation fails; use AL2023_x86_64_STANDARD or BOTTLEROCKET_x86_64; "
            "changing amiType replaces the node group, which pool-replacement-safe judges")
        assert notes(result) == []
    # deployed: the same program against its own deployment
    deployed = exported(eks("1.33", None, "AL2_x86_64"), tmp_path / "deployed.json", AWS)
    result = evaluate(eks("1.33", None, "AL2_x86_64"), stack_config=AWS, deployed=deployed)
    assert result.of(POLICY) == []
    assert notes(result) == [FOLLOWS]
    # added to a deployed stack: the deployment holds the cluster only
    def cluster_only():
        aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version="1.33",
                        vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
    before = exported(cluster_only, tmp_path / "cluster.json", AWS)
    result = evaluate(eks("1.33", None, "AL2_x86_64"), stack_config=AWS, deployed=before)
    assert "this preview creates it" in result.findings(POLICY)[0]
    # no previous deployment the pack can read (the engine's analyzer alone, no backend): said, not judged
    from compute_guard.testkit import capture_program
    from compute_guard.testkit.analyzer import Analyzer, stack_environment

    with stack_environment(AWS, "project", "stack", True):
        result = Analyzer().run(capture_program(eks("1.33", None, "AL2_x86_64"), stack_config=AWS))
    assert result.of(POLICY) == []
    assert notes(result)[0].startswith("2 checks could not be made: (1) " + FOLLOWS[:60])
    assert notes(result)[0].endswith("(2) whether a pool that sets no version is new (created at its control "
                                     "plane's version) is not judged: no previous deployment to compare with: set "
                                     "this policy's 'baseline' config to the output of `pulumi stack export --file "
                                     "<path>` taken before the preview, or use a local (file://) backend")
    assert notes(evaluate(eks("1.32", None, "AL2_x86_64"), stack_config=AWS)) == []
    assert evaluate(eks("1.32", None, "AL2_x86_64"), stack_config=AWS).findings(POLICY) == []


@pytest.mark.parametrize("platform", ["azure-native", "azure", "gcp"])
def test_a_new_pool_of_an_image_its_control_planes_version_does_not_run_is_refused(platform):
    """Issue 75's others: a Windows2019 AgentPool on AKS 1.33 (azure-native and the classic provider), a GKE pool of
    imageType UBUNTU (Docker) at 1.34: created in this first preview at the control plane's version, refused."""
    build = {"azure-native": lambda: aks_native("1.33", None, "Windows2019"),
             "azure": lambda: aks_classic("1.34", None, "Windows2019"),
             "gcp": lambda: gke("1.34", None, "UBUNTU")}[platform]()
    config = GCP if platform == "gcp" else AZURE
    (message,) = evaluate(build, stack_config=config).findings(POLICY)
    assert ": this preview creates it (the previous deployment does not hold it), and a pool that sets no version is " \
           "created at its control plane's, Kubernetes 1.3" in message and ": its creation fails; use " in message


def test_no_version_anywhere_or_one_not_known_yet_is_said_not_judged():
    result = evaluate(eks(None, None, "AL2_x86_64"), stack_config=AWS)
    assert result.of(POLICY) == []
    assert [note.split(": ", 1)[1] for note in notes(result)] == [
        "its amiType AL2_x86_64 runs up to Kubernetes 1.32 only, and neither the pool nor its cluster sets a version, "
        "so the platform picks its default: whether its image runs there is not judged; set the version, or use "
        "AL2023_x86_64_STANDARD or BOTTLEROCKET_x86_64"]

    def later():
        cluster = aws.eks.Cluster("fleet", name="fleet", role_arn=ROLE, version="1.33",
                                  vpc_config=aws.eks.ClusterVpcConfigArgs(subnet_ids=["subnet-1"]))
        aws.eks.NodeGroup("general", cluster_name=cluster.name, node_group_name="general", node_role_arn=ROLE,
                          subnet_ids=["subnet-1"], instance_types=["m7i.large"],
                          version=cluster.arn.apply(lambda _: "1.33"),  # the cluster's ARN: known once it exists
                          ami_type="AL2_x86_64",
                          scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=1, max_size=3))
    result = evaluate(later, stack_config=AWS)
    assert result.of(POLICY) == []
    assert [note.split(": ", 1)[1] for note in notes(result)] == [
        "its amiType AL2_x86_64 runs up to Kubernetes 1.32 only, and its version (version) is not known yet, so "
        "whether its image runs there is not judged"]


def test_a_secret_image_is_judged_and_never_told():
    (message,) = evaluate(eks("1.33", "1.33", "AL2_x86_64", secret_ami=True), stack_config=AWS).findings(POLICY)
    assert "AL2" not in message and "Amazon Linux" not in message and "BOTTLEROCKET" not in message
    assert message.startswith("pool 'general' (NodeGroup): its nodes would run Kubernetes 1.33 with amiType [secret]")


def test_an_image_the_table_does_not_know_is_not_judged_by_it():
    for ami in ("AL2023_x86_64_STANDARD", "BOTTLEROCKET_x86_64", "CUSTOM"):
        result = evaluate(eks("1.36", "1.36", ami), stack_config=AWS)
        assert result.of(POLICY) == [] and notes(result) == []


def test_a_karpenter_alias_follows_its_control_plane_and_is_refused_there():
    """Issue 68: an EC2NodeClass selecting Amazon Linux 2 by its alias takes the AMI EKS publishes for the cluster's
    version on every node it starts, so at 1.33 Karpenter finds none and starts no node: refused (a node group that
    sets no version is a note: an existing one stays at its own). Twice in one process."""
    for _ in range(2):
        (message,) = evaluate(karpenter("1.33", None, "al2"), stack_config=AWS).findings(POLICY)
        assert message == (
            "pool 'general' (NodePool): its nodes would run Kubernetes 1.33, the version of the control plane of its "
            "EKS cluster 'fleet', with amiSelectorTerms.alias al2, and EKS publishes no Amazon Linux 2 AMIs from "
            "Kubernetes 1.33, and the alias selects the EKS optimized AMI for the cluster's version: Karpenter finds "
            "no AMI for the EC2NodeClass and starts no node for its NodePools (table of 2026-06-19: "
            f"{EKS_VERSIONS} (\"For Kubernetes versions 1.33 and later, EKS will not provide pre-built optimized "
            "Amazon Linux 2 (AL2) AMIs\"); the karpenter.k8s.aws/v1 EC2NodeClass CRD (amiSelectorTerms.alias: "
            "\"Alias specifies which EKS optimized AMI to select\")); use al2023 or bottlerocket; changing the "
            "EC2NodeClass's alias drifts its nodes, which Karpenter replaces within its NodePools' disruption budgets")
    assert evaluate(karpenter("1.32", None, "al2"), stack_config=AWS).findings(POLICY) == []
    assert evaluate(karpenter("1.35", None, "al2023"), stack_config=AWS).findings(POLICY) == []
    # AMIs it selects otherwise (an id, a name: custom AMIs, which may be built for any version) are not judged
    custom = evaluate(karpenter("1.35", None, "al2", terms=[{"id": "ami-0123456789abcdef0"}]), stack_config=AWS)
    assert custom.of(POLICY) == [] and notes(custom) == []


def test_a_gke_image_is_read_in_any_case_and_a_pool_without_one_runs_gkes_default():
    """GKE takes imageType in any case (cos is COS); a pool that names none runs COS_CONTAINERD, which runs at every
    version the table knows."""
    (message,) = evaluate(gke("1.30", "1.30", "cos"), stack_config=GCP).findings(POLICY)
    assert message.startswith("pool 'general' (GKE NodePool): its nodes would run Kubernetes 1.30 with "
                              "nodeConfig.imageType COS, and GKE runs no node images that use Docker")
    assert message.endswith("; use COS_CONTAINERD or UBUNTU_CONTAINERD; changing nodeConfig.imageType recreates the "
                            "pool's nodes in place, a few at a time (cloud.google.com/kubernetes-engine/docs/how-to/"
                            "node-images)")
    for image in (None, "COS_CONTAINERD", "ubuntu_containerd"):
        result = evaluate(gke("1.33", "1.33", image), stack_config=GCP)
        assert result.of(POLICY) == [] and notes(result) == [], image


def gke_nap(plane: str | None, image: str | None, enabled: bool = True):
    """A GKE cluster at ``plane`` whose node auto-provisioning creates its pools of ``image``
    (clusterAutoscaling.autoProvisioningDefaults.imageType), with one declared pool of GKE's default image."""
    def program():
        defaults = {"image_type": image} if image else None
        cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", initial_node_count=1,
                                        remove_default_node_pool=True, min_master_version=plane,
                                        cluster_autoscaling=gcp.container.ClusterClusterAutoscalingArgs(
                                            enabled=enabled, auto_provisioning_defaults=defaults,
                                            resource_limits=[{"resource_type": "cpu", "maximum": 64},
                                                             {"resource_type": "memory", "maximum": 256}]))
        gcp.container.NodePool("general", name="general", cluster=cluster.name, location="us-central1-a",
                               node_count=1, node_config=gcp.container.NodePoolNodeConfigArgs(
                                   machine_type="n2-standard-4"))
    return program


def test_the_image_node_auto_provisioning_creates_its_pools_with_runs_at_the_control_planes_version():
    """Every pool GKE's node auto-provisioning creates is new, so at its control plane's version, of its
    autoProvisioningDefaults.imageType: a Docker-based image at 1.24 or later is refused on the cluster, with the
    images that run there; at 1.23, a containerd image, none named, or auto-provisioning off, nothing is said. Through
    pulumi-gcp, twice in one process."""
    for _ in range(2):
        result = evaluate(gke_nap("1.30", "cos"), stack_config=GCP)
        assert result.findings(POLICY) == [
            "GKE cluster 'gke': every pool it creates on its own takes clusterAutoscaling.autoProvisioningDefaults."
            "imageType COS, which would run Kubernetes 1.30, the version of its control plane, and GKE runs no node "
            "images that use Docker as the runtime from Kubernetes 1.24 (dockershim removed): a node pool of it is "
            f"neither created nor upgraded at that version (table of 2026-06-19: {GKE_DOCKER} (\"GKE does not support "
            "node images that use Docker as the runtime in GKE version 1.24 and later\")); use COS_CONTAINERD or "
            "UBUNTU_CONTAINERD"]
        assert result.of(POLICY)[0].urn.endswith("gcp:container/cluster:Cluster::gke")
    for program in (gke_nap("1.23", "COS"), gke_nap("1.30", "COS_CONTAINERD"), gke_nap("1.30", None),
                    gke_nap("1.30", "COS", enabled=False)):
        result = evaluate(program, stack_config=GCP)
        assert result.of(POLICY) == [] and notes(result) == []



def test_a_new_cluster_that_sets_no_version_is_created_at_one_its_platform_still_supports(tmp_path):
    """Issue 75: GKE's node auto-provisioning with autoProvisioningDefaults.imageType COS on a new cluster that sets no
    version: GKE creates a cluster only at a version it still supports (a minor's support ends at most about 10
    months past its end of standard support: cloud.google.com/kubernetes-engine/versioning), every one far past COS's
    1.23, so each pool it creates fails: refused (it was a note). The same cluster deployed keeps its version: said,
    as where no previous deployment can be read. A new GKE pool of UBUNTU (Docker) with no version anywhere, the same.
    An EKS AL2 group on a new cluster with no version is not refused: EKS still creates clusters at 1.32 in extended
    support, where AL2 runs (its calendar)."""
    from builders import exported

    for _ in range(2):
        (message,) = evaluate(gke_nap(None, "COS"), stack_config=GCP).findings(POLICY)
        assert message.startswith(
            "GKE cluster 'gke': every pool it creates on its own takes clusterAutoscaling.autoProvisioningDefaults."
            "imageType COS, which runs up to Kubernetes 1.23 only: this preview creates the cluster and it sets no "
            "version, and the platform creates a new cluster only at a version it still supports, 1.3"), message
        assert message.endswith("use COS_CONTAINERD or UBUNTU_CONTAINERD"), message
    deployed = exported(gke_nap(None, "COS"), tmp_path / "nap.json", GCP)
    kept = evaluate(gke_nap(None, "COS"), stack_config=GCP, deployed=deployed)
    assert kept.of(POLICY) == [] and any("every pool it creates on its own takes clusterAutoscaling."
                                         "autoProvisioningDefaults.imageType COS, which runs up to Kubernetes 1.23 "
                                         "only, and the cluster sets no version" in note for note in notes(kept))
    (message,) = evaluate(gke(None, None, "UBUNTU"), stack_config=GCP).findings(POLICY)
    assert message.startswith("pool 'general' (GKE NodePool): its nodeConfig.imageType UBUNTU runs up to Kubernetes "
                              "1.23 only: this preview creates it and its cluster, neither sets a version"), message
    assert evaluate(eks(None, None, "AL2_x86_64"), stack_config=AWS).findings(POLICY) == []


def test_an_aks_linux_os_sku_past_its_versions_is_refused_with_its_own_date_and_an_in_place_change():
    """AKS's OS SKU table (held on 2026-08-21, the row's own date): an Ubuntu2204 pool moved to 1.37 is refused with
    the OS SKUs that run there and the change AKS makes on the pool itself (a Linux OS SKU is updated in place; a
    Windows one needs a new pool). Both sides, twice, through azure-native and pulumi-azure."""
    for _ in range(2):
        for build in (aks_native, aks_classic):
            assert evaluate(build("1.36", "1.36", "Ubuntu2204"), stack_config=AZURE).findings(POLICY) == []
            (message,) = evaluate(build("1.37", "1.37", "Ubuntu2204"), stack_config=AZURE).findings(POLICY)
            assert "(table of 2026-08-21: learn.microsoft.com/azure/aks/upgrade-os-version" in message, message
            assert message.endswith("use Ubuntu or Ubuntu2404; AKS updates a Linux node pool's osSKU on the pool "
                                    "itself, reimaging its nodes, before its Kubernetes version moves (learn.microsoft."
                                    "com/azure/aks/upgrade-os-version, \"Migrate to a new OS version\": \"If you're "
                                    "using a Linux OS, you can update the OS SKU on an existing node pool\")"), message
        (windows,) = evaluate(aks_native("1.37", "1.37", "Windows2022"), stack_config=AZURE).findings(POLICY)
        assert "(table of 2026-06-19: github.com/Azure/AKS/releases/tag/2026-06-19" in windows
        assert windows.endswith("AKS moves no Windows node pool to another Windows Server version: add a pool with one "
                                "of them and move its workloads (learn.microsoft.com/azure/aks/upgrade-windows-os)")
