"""Which cluster, when the link is lost (issue 45, SPEC 14.4): an azure-native program with two clusters whose
Kubernetes providers take their kubeconfig from list_managed_cluster_user_credentials_output(resource_name=
cluster.name). In a first preview the SDK returns that invoke unknown and drops its dependencies, so the providers
depend on no cluster: every workload was judged against both clusters, and a Pod too big for its own cluster, or
refused by its own cluster's pool, passed with no word. Now: a note per workload naming the clusters, what fails on
which, and the fix; with the fix (the Provider's depends_on) each workload is judged on its own cluster."""

from __future__ import annotations

import textwrap
from pathlib import Path

from compute_guard.testkit import capture_program, evaluate

PROGRAM = '''
import base64
import pulumi
import pulumi_kubernetes as k8s
from pulumi_azure_native import containerservice

providers = {}
for name, size, taints, zones in (("east", "Standard_D2s_v5", [], ["1", "2", "3"]),
                                  ("west", "Standard_D8s_v5", ["dedicated=batch:NoSchedule"], ["1"])):
    cluster = containerservice.ManagedCluster(name, resource_group_name="rg", dns_prefix=name, agent_pool_profiles=[
        {"name": "agentpool", "mode": "System", "vm_size": size, "count": 2, "node_taints": taints,
         "availability_zones": zones}])
    creds = containerservice.list_managed_cluster_user_credentials_output(resource_group_name="rg",
                                                                         resource_name=cluster.name)
    kubeconfig = creds.kubeconfigs[0].value.apply(lambda value: base64.b64decode(value).decode())
    providers[name] = k8s.Provider(f"k8s-{name}", kubeconfig=kubeconfig, opts=pulumi.ResourceOptions(
        depends_on=[cluster] if DEPENDS_ON else None))


def deploy(name, provider, memory="128Mi", spec=None, kind="Deployment", replicas=None, strategy=None):
    labels = {"app": name}
    extra = {"replicas": replicas} if replicas is not None else {}
    extra.update({"strategy": strategy} if strategy else {})
    getattr(k8s.apps.v1, kind)(name, spec={**extra, "selector": {"matchLabels": labels}, "template": {
        "metadata": {"labels": labels}, "spec": {**(spec or {}), "containers": [{
            "name": name, "image": "nginx", "resources": {"requests": {"cpu": "100m", "memory": memory}}}]}}},
        opts=pulumi.ResourceOptions(provider=providers[provider]))


for workload, cluster, options in WORKLOADS:
    deploy(workload, cluster, **options)
'''
AZURE = {"compute:platform": "azure"}


def project(tmp_path: Path, workload: str, cluster: str, depends_on: bool, *more: tuple[str, str, dict],
            **options) -> Path:
    root = tmp_path / f"{workload}-{depends_on}"
    root.mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: clusters\nruntime: python\n")
    workloads = [(workload, cluster, options), *more]
    (root / "__main__.py").write_text(f"DEPENDS_ON = {depends_on}\nWORKLOADS = {workloads!r}\n"
                                      + textwrap.dedent(PROGRAM))
    return root


def test_the_sdk_drops_the_invokes_dependencies_and_depends_on_restores_the_link(tmp_path):
    providers = {r.name: r for r in capture_program(project(tmp_path, "api", "east", False))
                 if r.type == "pulumi:providers:kubernetes"}
    assert providers["k8s-east"].property_dependencies["kubeconfig"] == () and providers["k8s-east"].dependencies == ()
    linked = {r.name: r for r in capture_program(project(tmp_path / "linked", "api", "east", True))
              if r.type == "pulumi:providers:kubernetes"}
    # (its URN of the project its Pulumi.yaml names: capture_program reads it as evaluate does, issue 57)
    assert linked["k8s-east"].dependencies == (
        "urn:pulumi:stack::clusters::azure-native:containerservice:ManagedCluster::east",)


FIX = ("give the Provider opts=ResourceOptions(depends_on=[<its cluster>]) (its kubeconfig depends on no cluster "
       "resource: an output invoke whose arguments are not known yet, such as "
       "azure_native.containerservice.list_managed_cluster_user_credentials_output(resource_name=cluster.name) in a "
       "first preview, drops its dependencies)")


TOLERATES = {"tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]}


def test_a_pod_too_big_for_its_own_cluster_is_a_note_naming_both_and_the_fix(tmp_path):
    result = evaluate(project(tmp_path, "too-big", "east", False, memory="16Gi", spec=TOLERATES),
                      stack_config=AZURE)
    assert result.mandatory == []
    (note,) = [n.finding.split("during preview: ", 1)[1] for n in result.notes if n.policy == "workload-fits-pool"]
    assert note == (
        "Deployment 'too-big': which cluster the Kubernetes provider 'k8s-east' it is deployed with targets is not "
        "known, and its verdict differs between the clusters it may run on (on AKS cluster 'east': one Pod fits no "
        "node (pool 'agentpool' of AKS cluster 'east' has at most 8 GiB capacity - 2 GiB kube-reserved - 100 MiB "
        "eviction threshold = 6044 MiB allocatable of memory (Standard_D2s_v5)); on AKS cluster 'west': one Pod fits "
        f"a node), so it is not judged: {FIX}")
    fixed = evaluate(project(tmp_path / "fixed", "too-big", "east", True, memory="16Gi", spec=TOLERATES),
                     stack_config=AZURE)
    assert [v.policy for v in fixed.mandatory] == ["workload-fits-pool"]
    assert "pool 'agentpool' of AKS cluster 'east' has at most 8 GiB capacity" in fixed.mandatory[0].finding


def test_a_taint_on_its_own_cluster_is_a_note_naming_both_and_the_fix(tmp_path):
    result = evaluate(project(tmp_path, "api", "west", False), stack_config=AZURE)
    assert result.mandatory == []
    (note,) = [n.finding.split("during preview: ", 1)[1] for n in result.notes if n.policy == "workload-schedulable"]
    assert note == (
        "Deployment 'api': which cluster the Kubernetes provider 'k8s-west' it is deployed with targets is not known, "
        "and its verdict differs between the clusters it may run on (on AKS cluster 'east': a pool can run them; on "
        "AKS cluster 'west': no pool can run its Pods (pool 'agentpool' of AKS cluster 'west' has taint "
        f"dedicated=batch:NoSchedule that it does not tolerate)), so it is not judged: {FIX}")
    fixed = evaluate(project(tmp_path / "fixed", "api", "west", True), stack_config=AZURE)
    assert [(v.policy, v.finding.split(": ", 1)[1].split(". They")[0]) for v in fixed.mandatory] == [
        ("workload-schedulable", "no pool can run its Pods: pool 'agentpool' of AKS cluster 'west' has taint "
                                 "dedicated=batch:NoSchedule that it does not tolerate")]


def test_a_workload_that_fits_either_cluster_gets_no_note(tmp_path):
    result = evaluate(project(tmp_path, "small", "east", False, spec=TOLERATES), stack_config=AZURE)
    assert result.mandatory == [] and [n for n in result.notes if "which cluster" in n.finding] == []


def notes_of(result, policy: str) -> list[str]:
    return [reason for n in result.notes if n.policy == policy for reason in n.reasons]


def test_a_pool_too_small_for_its_own_clusters_workload_is_a_note_naming_it_and_the_fix(tmp_path):
    # 16 replicas x 1 GiB on east's 2 x Standard_D2s_v5 (6044 MiB allocatable each): 16 GiB of 11.8 GiB; west's two
    # Standard_D8s_v5 hold them. Before: counted on neither pool (shared), so nothing was said.
    many = {"memory": "1Gi", "spec": TOLERATES, "replicas": 16}
    result = evaluate(project(tmp_path, "many", "east", False, **many), stack_config=AZURE)
    assert result.mandatory == []
    (note,) = notes_of(result, "pool-capacity")
    assert note.startswith("AKS cluster 'east' pool 'agentpool': at its maxSize of 2 nodes (machine Standard_D2s_v5) "
                           "it has room for 2 x 6044 MiB = 11.8 GiB of memory allocatable")
    assert note.endswith(
        "; but this counts Deployment 'many' on AKS cluster 'east', and which cluster the Kubernetes provider "
        f"'k8s-east' it is deployed with targets is not known, so this is not judged: {FIX}")
    fixed = evaluate(project(tmp_path / "fixed", "many", "east", True, **many), stack_config=AZURE)
    assert [v.policy for v in fixed.mandatory] == ["pool-capacity"]
    assert fixed.mandatory[0].finding == note.split("; but this counts")[0]


def test_a_rollout_that_cannot_finish_on_its_own_cluster_is_a_note(tmp_path):
    # two replicas that repel each other on kubernetes.io/hostname, maxUnavailable 0, on east's 2 nodes: the third
    # Pod has no node. On west it would be the same (2 nodes), so a DaemonSet-free case where both agree is a
    # violation once linked; unlinked, the rollout is counted on neither pool (shared) and was silent.
    spec = {**TOLERATES, "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "spread"}}, "topologyKey": "kubernetes.io/hostname"}]}}}
    options = {"spec": spec, "replicas": 2, "strategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}}
    result = evaluate(project(tmp_path, "spread", "east", False, **options), stack_config=AZURE)
    assert result.mandatory == []
    notes = notes_of(result, "workload-rollout-fits")
    # one per candidate cluster's pool (the second was hidden behind the first until one note listed every check)
    assert len(notes) == 2 and all(note.startswith("Deployment 'spread': it rolls out 2 replicas with ")
                                   for note in notes)
    assert ["AKS cluster 'east' pool" in notes[0], "AKS cluster 'west' pool" in notes[1]] == [True, True]
    assert notes[0].endswith(f"; but which cluster the Kubernetes provider 'k8s-east' it is deployed with targets "
                             f"is not known, so this is not judged: {FIX}")
    fixed = evaluate(project(tmp_path / "fixed", "spread", "east", True, **options), stack_config=AZURE)
    assert [v.policy for v in fixed.mandatory] == ["workload-rollout-fits"]
    assert fixed.mandatory[0].finding == notes[0].split("; but which cluster")[0]


def test_workloads_of_one_provider_whose_cluster_is_not_known_roll_out_together(tmp_path):
    """Issue 77: two Deployments through the one unlinked provider k8s-east run on the same cluster whichever it is
    (SPEC 14.2): on east's 2 x 6044 MiB they take 2 x 2 x 2500 MiB = 10000 MiB, leaving 2088 MiB, less than one more
    Pod, so each rollout is a note; each was counted alone (7088 MiB left: no word), and a pool's totals were counted
    again for each such workload (an app stack's cost grew with the square of its Deployments). Through two
    providers (east, west) they may run apart: counted alone, no note."""
    rolling = {"memory": "2500Mi", "spec": TOLERATES, "replicas": 2,
               "strategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}}
    result = evaluate(project(tmp_path, "a", "east", False, ("b", "east", rolling), **rolling), stack_config=AZURE)
    assert result.mandatory == []
    notes = [note for note in notes_of(result, "workload-rollout-fits") if "AKS cluster 'east' pool" in note]
    assert [note.split(":", 1)[0] for note in notes] == ["Deployment 'a'", "Deployment 'b'"], notes
    assert "what is placed on it takes 10000 MiB, leaving 2088 MiB, less than one more Pod's 2500 MiB" in notes[0], notes
    apart = evaluate(project(tmp_path / "apart", "a", "east", False, ("b", "west", rolling), **rolling),
                     stack_config=AZURE)
    assert notes_of(apart, "workload-rollout-fits") == []


def test_a_daemonset_of_one_cluster_is_not_counted_on_the_other(tmp_path):
    # a 20 GiB DaemonSet of west (Standard_D8s_v5, 32 GiB) beside a Deployment of east that fits a D2s_v5 node:
    # counted on east's nodes too, it left no room there, a false violation of the Deployment
    agent = ("agent", "west", {"kind": "DaemonSet", "memory": "20Gi", "spec": TOLERATES})
    result = evaluate(project(tmp_path, "small", "east", False, agent, memory="4Gi"), stack_config=AZURE)
    assert [v.policy for v in result.mandatory] == []
    (note,) = [n for n in notes_of(result, "pool-capacity") if "DaemonSet 'agent'" in n]
    assert note.startswith("AKS cluster 'east' pool 'agentpool': one Pod of Deployment 'small' fits no node of "
                           "it with the DaemonSets this counts; but this counts DaemonSet 'agent', Deployment "
                           "'small' on AKS cluster 'east', and which cluster their Kubernetes providers target is "
                           "not known, so this is not judged: ")


SPREAD = {"topologySpreadConstraints": [{"maxSkew": 1, "minDomains": 3, "topologyKey": "topology.kubernetes.io/zone",
                                         "whenUnsatisfiable": "DoNotSchedule",
                                         "labelSelector": {"matchLabels": {"app": "zonal"}}}]}


def test_a_spread_its_own_cluster_cannot_meet_is_one_note_naming_both_clusters(tmp_path):
    # minDomains 3 over zones: east offers 3 (eastus-1..3), west 1: 6 replicas x maxSkew 1 leave 5 Pending on west.
    # Before: judged on both clusters' pools together (4 zones), it passed; a zone note named the other cluster.
    options = {"spec": {**TOLERATES, **SPREAD}, "replicas": 6}
    result = evaluate(project(tmp_path, "zonal", "west", False, **options), stack_config=AZURE)
    assert result.mandatory == []
    (note,) = notes_of(result, "workload-zone-spread")
    assert note.startswith("Deployment 'zonal': which cluster the Kubernetes provider 'k8s-west' it is deployed with "
                           "targets is not known, and its verdict differs between the clusters it may run on (on AKS "
                           "cluster 'east': its spread can be met; on AKS cluster 'west': its topologySpreadConstraints"
                           "[0] (topology.kubernetes.io/zone, maxSkew 1, minDomains 3, DoNotSchedule) asks for 3 "
                           "zones, but its pools offer 1")
    fixed = evaluate(project(tmp_path / "fixed", "zonal", "west", True, **options), stack_config=AZURE)
    assert [v.policy for v in fixed.mandatory] == ["workload-zone-spread"]
    on_east = evaluate(project(tmp_path / "east", "zonal", "east", True, **options), stack_config=AZURE)
    assert on_east.mandatory == [] and notes_of(on_east, "workload-zone-spread") == []


WINDOWS = '''
import base64
import pulumi
import pulumi_kubernetes as k8s
from pulumi_azure_native import containerservice

providers = {}
for name, windows in (("east", True), ("west", False)):
    pools = [{"name": "agentpool", "mode": "System", "vm_size": "Standard_D4s_v5", "count": 2}]
    if windows:  # an untainted Windows pool beside the system pool (azure-py-aks-multicluster, extended)
        pools.append({"name": "win", "mode": "User", "vm_size": "Standard_D4s_v5", "count": 2, "os_type": "Windows"})
    cluster = containerservice.ManagedCluster(name, resource_group_name="rg", dns_prefix=name,
                                              agent_pool_profiles=pools)
    creds = containerservice.list_managed_cluster_user_credentials_output(resource_group_name="rg",
                                                                         resource_name=cluster.name)
    kubeconfig = creds.kubeconfigs[0].value.apply(lambda value: base64.b64decode(value).decode())
    providers[name] = k8s.Provider(f"k8s-{name}", kubeconfig=kubeconfig, opts=pulumi.ResourceOptions(
        depends_on=[cluster] if DEPENDS_ON else None))

k8s.apps.v1.Deployment("web", spec={"selector": {"matchLabels": {"app": "web"}}, "template": {
    "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {
        "requests": {"cpu": "100m", "memory": "128Mi"}}}]}}}, opts=pulumi.ResourceOptions(provider=providers["east"]))
'''


def test_an_unpinned_linux_deployment_beside_a_windows_pool_of_one_of_two_clusters_is_said(tmp_path):
    """Issue 66, silent since last round: on east (a Linux and an untainted Windows pool) the unpinned Deployment may
    land on Windows nodes; on west it may not; which one its provider targets is not known: a note naming it and the
    fix. With the fix applied (depends_on), it is judged on east and refused."""
    def judged(depends_on: bool):
        root = tmp_path / f"windows-{depends_on}"
        root.mkdir()
        (root / "Pulumi.yaml").write_text("name: clusters\nruntime: python\n")
        (root / "__main__.py").write_text(f"DEPENDS_ON = {depends_on}\n" + WINDOWS)
        return evaluate(root, stack_config=AZURE)
    result = judged(False)
    assert [v.policy for v in result.mandatory] == []
    (note,) = notes_of(result, "workload-node-os")
    assert note == (
        "Deployment 'web': which cluster the Kubernetes provider 'k8s-east' it is deployed with targets is not known, "
        "and its verdict differs between the clusters it may run on (on AKS cluster 'east': its Pods may land on linux "
        "and windows nodes (pool 'agentpool' of AKS cluster 'east' runs linux, pool 'win' of AKS cluster 'east' runs "
        "windows), unpinned; on AKS cluster 'west': its Pods land on linux nodes), so it is not judged: " + FIX)
    fixed = judged(True)
    assert [v.policy for v in fixed.mandatory] == ["workload-node-os"]
    assert "may land on linux and windows nodes" in fixed.mandatory[0].finding
