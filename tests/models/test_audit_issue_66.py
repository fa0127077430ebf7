"""Issue 66's planted-bug audit: realistic one-line bugs of last round's code that every fast test let through, each
now pinned by a test that fails when it is planted. Each fact is worked out here from the platform's documentation or
source (cited), never read back from the pack's own table."""

from __future__ import annotations

import json
from decimal import Decimal
from types import SimpleNamespace

import pytest

from compute_guard.policies.model.admission.limit_ranger import parse_limit_range
from compute_guard.policies.model.clusters import ClusterIndex, KubeCluster
from compute_guard.policies.model.sources import aks
from compute_guard.policies.model.sources.gke import autopilot_refusals
from compute_guard.policies.model.values import undetermined
from compute_guard.policies.platforms.managed import AKS_MAX_PODS

MIB = 1024 * 1024


@pytest.mark.parametrize("setting, nodes, surge", [
    ("33%", 10, 4),  # ceil(3.3): AKS rounds a percentage of the pool up (AgentPoolUpgradeSettings.maxSurge)
    ("10%", 5, 1),   # ceil(0.5)
    ("50%", 4, 2),
    ("3", 10, 3),
])
def test_an_aks_max_surge_percentage_rounds_up(setting, nodes, surge):
    assert aks._surge({"upgradeSettings": {"maxSurge": setting}}, nodes)[0] == surge


def test_an_aks_network_plugin_mode_not_known_yet_is_not_known():
    """networkPlugin azure with networkPluginMode overlay is Azure CNI Overlay; a mode not known yet may be either."""
    late = undetermined("not known yet")
    assert aks.plugin_of({"networkPlugin": "azure", "networkPluginMode": late}) is late
    assert aks.plugin_of({"networkPlugin": "Azure", "networkPluginMode": "Overlay"}) == "overlay"
    assert aks.plugin_of({"networkPlugin": "azure"}) == "azure"


@pytest.mark.parametrize("profile, pods", [
    # learn.microsoft.com/azure/aks/azure-cni-overview ("Maximum pods per node": Azure CNI node subnet 30 by default,
    # kubenet 110, Azure CNI Overlay 250)
    ({"networkPlugin": "azure"}, 30),
    ({"networkPlugin": "kubenet"}, 110),
    ({"networkPlugin": "azure", "networkPluginMode": "overlay"}, 250),
])
def test_an_aks_clusters_default_max_pods_follow_its_plugin_and_mode(profile, pods):
    found = aks.network_max_pods(profile)
    assert (AKS_MAX_PODS if found is None else found) == pods


def test_an_azure_native_pools_pod_subnet_is_read_under_its_own_spelling():
    """azure-native writes podSubnetID, pulumi-azure podSubnetId (each provider's schema): read under the other's
    spelling, a pool with a pod subnet was counted as taking its Pods' addresses from the node subnet."""
    subnet = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/pods"
    assert aks._network({"podSubnetID": subnet}, True, 3, (), {}).pod_subnet is True
    assert aks._network({"podSubnetId": subnet}, False, 3, (), {}).pod_subnet is True
    assert aks._network({"podSubnetId": subnet}, True, 3, (), {}).pod_subnet is False


def test_the_classic_aks_pools_rotated_inputs_are_azurerms_whole_list():
    """The inputs azurerm changes only by cycling the pool through temporary_name_for_rotation
    (internal/services/containers/kubernetes_cluster_node_pool_resource.go, its cycleNodePoolProperties; the error
    "`temporary_name_for_rotation` must be specified when updating any of the following properties"), written out:
    a row missing from the pack's table (maxPods, planted) passed every fast test."""
    azurerm = {"fips_enabled", "host_encryption_enabled", "kubelet_config", "kubelet_disk_type", "linux_os_config",
               "max_pods", "node_public_ip_enabled", "os_disk_size_gb", "os_disk_type", "pod_subnet_id",
               "snapshot_id", "ultra_ssd_enabled", "vm_size", "vnet_subnet_id", "zones"}

    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(part.title() if part not in ("id",) else "Id" for part in rest)
    assert set(aks.ROTATED) == {camel(name) for name in azurerm}


def test_a_limit_ranges_default_request_is_its_default_before_its_min():
    """The API server's defaulting (pkg/apis/core/v1/defaults.go SetDefaults_LimitRangeItem): defaultRequest unset is
    default (itself max when unset), and only then min."""
    def request(**limit: dict) -> Decimal:
        found = parse_limit_range("urn", "limits", {"spec": {"limits": [{"type": "Container", **limit}]}}, "")
        return found.requests["memory"] / MIB
    assert request(min={"memory": "100Mi"}, default={"memory": "200Mi"}) == 200
    assert request(min={"memory": "100Mi"}, max={"memory": "300Mi"}) == 300
    assert request(min={"memory": "100Mi"}) == 100
    assert request(min={"memory": "100Mi"}, default={"memory": "200Mi"}, defaultRequest={"memory": "150Mi"}) == 150


def host(*paths: str) -> SimpleNamespace:
    return SimpleNamespace(privileged=(), host_network=False, host_pid=False, host_ipc=False, host_paths=paths,
                           host_ports=())


@pytest.mark.parametrize("path, refused", [
    # cloud.google.com/kubernetes-engine/docs/concepts/autopilot-security: hostPath volumes only under /var/log/
    ("/var/log", False), ("/var/log/", False), ("/var/log/pods", False), ("/var/logs", True), ("/var", True),
    ("/etc", True),
])
def test_autopilot_admits_hostpath_volumes_under_var_log_the_directory_itself_included(path, refused):
    assert bool(autopilot_refusals(host(path))) is refused


def test_a_kubeconfig_that_names_two_clusters_names_neither():
    """A kubeconfig with both clusters' contexts names no one cluster: matched to the first, its Pods were judged on
    a cluster they may not run on."""
    prod = KubeCluster("urn:prod", "prod", "EKS cluster", names=frozenset({"prod"}))
    staging = KubeCluster("urn:staging", "staging", "EKS cluster", names=frozenset({"staging"}))
    index = ClusterIndex([prod, staging], {})

    def kubeconfig(*names: str) -> str:
        return json.dumps({"clusters": [{"name": name, "cluster": {"server": f"https://{name}.example"}}
                                        for name in names]})
    assert index.named_by(kubeconfig("prod", "staging")) is None
    assert index.named_by(kubeconfig("staging")) is staging


@pytest.mark.parametrize("given", [
    "apps",
    "projects/p/regions/us-central1/subnetworks/apps",  # a self-link, as a Shared VPC program writes it
    "https://www.googleapis.com/compute/v1/projects/p/regions/us-central1/subnetworks/apps",
])
def test_a_gke_clusters_subnetwork_by_name_or_self_link_finds_its_secondary_ranges(given):
    """The provider takes a subnetwork's name or self-link (resource_container_cluster.go: "The name or self_link of
    the Google Compute Engine subnetwork"); by self-link it was not found, and the cluster's Pod range not read."""
    from compute_guard.policies.model.resources import StackResource
    from compute_guard.policies.model.sources import Context
    from compute_guard.policies.model.sources.gke import SUBNETWORK, _secondary

    subnet = StackResource(SUBNETWORK, "urn:subnet", "apps-subnet", {"name": "apps", "secondaryIpRanges": [
        {"rangeName": "pods", "ipCidrRange": "10.8.0.0/14"}]})
    cluster = StackResource("gcp:container/cluster:Cluster", "urn:gke", "gke", {"subnetwork": given})
    assert _secondary(cluster, "pods", Context(resources={subnet.urn: subnet})) == "10.8.0.0/14"
