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
for name, size, taints in (("east", "Standard_D2s_v5", []), ("west", "Standard_D8s_v5", ["dedicated=batch:NoSchedule"])):
    cluster = containerservice.ManagedCluster(name, resource_group_name="rg", dns_prefix=name, agent_pool_profiles=[
        {"name": "agentpool", "mode": "System", "vm_size": size, "count": 2, "node_taints": taints}])
    creds = containerservice.list_managed_cluster_user_credentials_output(resource_group_name="rg",
                                                                         resource_name=cluster.name)
    kubeconfig = creds.kubeconfigs[0].value.apply(lambda value: base64.b64decode(value).decode())
    providers[name] = k8s.Provider(f"k8s-{name}", kubeconfig=kubeconfig, opts=pulumi.ResourceOptions(
        depends_on=[cluster] if DEPENDS_ON else None))


def deploy(name, provider, memory="128Mi", spec=None):
    labels = {"app": name}
    k8s.apps.v1.Deployment(name, spec={"selector": {"matchLabels": labels}, "template": {
        "metadata": {"labels": labels}, "spec": {**(spec or {}), "containers": [{
            "name": name, "image": "nginx", "resources": {"requests": {"cpu": "100m", "memory": memory}}}]}}},
        opts=pulumi.ResourceOptions(provider=providers[provider]))


deploy(WORKLOAD, CLUSTER, **OPTIONS)
'''
AZURE = {"compute:platform": "azure"}


def project(tmp_path: Path, workload: str, cluster: str, depends_on: bool, **options) -> Path:
    root = tmp_path / f"{workload}-{depends_on}"
    root.mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: clusters\nruntime: python\n")
    (root / "__main__.py").write_text(f"DEPENDS_ON = {depends_on}\nWORKLOAD = {workload!r}\nCLUSTER = {cluster!r}\n"
                                      f"OPTIONS = {options!r}\n" + textwrap.dedent(PROGRAM))
    return root


def test_the_sdk_drops_the_invokes_dependencies_and_depends_on_restores_the_link(tmp_path):
    providers = {r.name: r for r in capture_program(project(tmp_path, "api", "east", False))
                 if r.type == "pulumi:providers:kubernetes"}
    assert providers["k8s-east"].property_dependencies["kubeconfig"] == () and providers["k8s-east"].dependencies == ()
    linked = {r.name: r for r in capture_program(project(tmp_path / "linked", "api", "east", True))
              if r.type == "pulumi:providers:kubernetes"}
    assert linked["k8s-east"].dependencies == (
        "urn:pulumi:stack::project::azure-native:containerservice:ManagedCluster::east",)


FIX = ("give the Provider opts=ResourceOptions(depends_on=[<its cluster>]) (its kubeconfig depends on no cluster "
       "resource: an output invoke whose arguments are not known yet, such as "
       "list_managed_cluster_user_credentials_output(resource_name=cluster.name) in a first preview, drops its "
       "dependencies)")


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
