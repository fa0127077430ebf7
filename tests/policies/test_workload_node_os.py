"""workload-node-os: a workload whose possible pools run Windows and Linux is pinned to one operating system, and its
Pods' spec.os.name is the one they land on (SPEC 16, policy 23). Each pool's operating system is worked out here from
its platform's field as the platform documents it: AKS osType (default Linux), EKS's WINDOWS_* AMI types, GKE's
WINDOWS_* images (with GKE's Windows taint, tolerated by Pods that select windows), Karpenter's kubernetes.io/os
requirement and its EC2NodeClass's AMI alias."""

from typing import Any

from builders import deployment, gke_node_pool, managed_cluster, node_class, node_group, nodepool, run, workload

POLICY = "workload-node-os"
LINUX = {"kubernetes.io/os": "linux"}
WINDOWS = {"kubernetes.io/os": "windows"}
TINY = {"cpu": "100m", "memory": "128Mi"}


def aks(*windows_pools: str) -> Any:
    """An AKS cluster with its Linux system pool and Windows pools (agentPoolProfiles, as Azure's docs write them:
    osType Windows, a Windows pool name of at most six characters)."""
    pools = [{"count": 1, "max_pods": 110, "mode": "System", "name": "system", "os_type": "Linux",
              "type": "VirtualMachineScaleSets", "vm_size": "Standard_D4s_v5"}]
    pools += [{"count": 1, "mode": "User", "name": name, "os_type": "Windows", "type": "VirtualMachineScaleSets",
               "vm_size": "Standard_D4s_v5"} for name in windows_pools]
    return managed_cluster("aks", pools)


def os_findings(*parts: Any, platform: str) -> list[str]:
    return run(*parts, platform=platform).findings(POLICY)


def test_an_unpinned_deployment_on_a_mixed_aks_cluster_is_refused_and_a_pinned_one_is_not():
    (message,) = os_findings(aks("win"), deployment("api", requests=TINY), platform="azure")
    assert message == (
        "Deployment 'api': its Pods may land on linux and windows nodes (pool 'system' of AKS cluster 'aks' runs "
        "linux, pool 'win' of AKS cluster 'aks' runs windows), but nothing pins them to one operating system, and a "
        "Pod on a node of another never starts; set spec.template.spec.nodeSelector['kubernetes.io/os'] to the one "
        "its images are built for")
    assert os_findings(aks("win"), deployment("api", requests=TINY, node_selector=LINUX), platform="azure") == []
    assert os_findings(aks("win"), deployment("api", requests=TINY, node_selector=WINDOWS), platform="azure") == []
    assert os_findings(aks(), deployment("api", requests=TINY), platform="azure") == []  # Linux only: nothing mixes


def test_a_daemonset_without_an_os_pin_on_a_mixed_cluster_is_refused():
    (message,) = os_findings(aks("win"), workload("DaemonSet", "agent", requests=TINY), platform="azure")
    assert message.startswith("DaemonSet 'agent': its Pods run on every node of the pools that take them: linux and "
                              "windows nodes")
    assert os_findings(aks("win"), workload("DaemonSet", "agent", requests=TINY, node_selector=LINUX),
                       platform="azure") == []


def test_spec_os_name_windows_pinned_to_linux_is_refused():
    windows_pod = {"os": {"name": "windows"}}
    (message,) = os_findings(aks("win"), deployment("api", requests=TINY, node_selector=LINUX, pod=windows_pod),
                             platform="azure")
    assert message == (
        "Deployment 'api': its Pods declare spec.os.name 'windows', but the pools that can take them run linux nodes "
        "(pool 'system' of AKS cluster 'aks' runs linux): the kubelet rejects a Pod whose operating system is not its "
        "node's; set spec.os.name to linux, or set spec.template.spec.nodeSelector['kubernetes.io/os'] to 'windows' "
        "and give it a pool of windows nodes")
    assert os_findings(aks("win"), deployment("api", requests=TINY, node_selector=WINDOWS, pod=windows_pod),
                       platform="azure") == []


def test_eks_windows_ami_types_run_windows_and_the_others_linux():
    groups = (node_group("linux", ["m5.large"], ami_type="AL2023_x86_64_STANDARD"),
              node_group("windows", ["m5.large"], ami_type="WINDOWS_CORE_2022_x86_64"))
    (message,) = os_findings(*groups, deployment("api", requests=TINY), platform="aws")
    assert "(pool 'linux' (NodeGroup) runs linux, pool 'windows' (NodeGroup) runs windows)" in message
    assert os_findings(*groups, deployment("api", requests=TINY, node_selector=WINDOWS), platform="aws") == []
    # no AMI type: EKS's default, Amazon Linux
    assert os_findings(node_group("a", ["m5.large"]), node_group("b", ["m5.large"], ami_type="BOTTLEROCKET_x86_64"),
                       deployment("api", requests=TINY), platform="aws") == []


def test_gke_windows_pools_are_tainted_and_windows_pods_tolerated():
    """GKE taints Windows Server nodes node.kubernetes.io/os=windows:NoSchedule and tolerates it for Pods that select
    windows: an unpinned Linux Pod lands on the Linux pool only (nothing mixes), a Pod selecting windows lands on the
    Windows pool."""
    import pulumi_gcp as gcp

    def windows_pool() -> Any:
        from builders import declared_cluster

        declared_cluster("gcp", "fleet")
        return gcp.container.NodePool("win", name="win", cluster="fleet", location="europe-west1", node_count=1,
                                      node_config=gcp.container.NodePoolNodeConfigArgs(
                                          machine_type="n2-standard-4", image_type="WINDOWS_LTSC_CONTAINERD"))

    linux = gke_node_pool("linux", "n2-standard-4")
    result = run(linux, windows_pool, deployment("api", requests=TINY), platform="gcp")
    assert result.findings(POLICY) == [] and result.findings("workload-schedulable") == []
    result = run(linux, windows_pool, deployment("api", requests=TINY, node_selector=WINDOWS), platform="gcp")
    assert result.findings(POLICY) == [] and result.findings("workload-schedulable") == []
    # a Pod that tolerates every taint lands on either: it must be pinned
    tolerant = {"tolerations": [{"operator": "Exists"}]}
    (message,) = run(linux, windows_pool, deployment("api", requests=TINY, pod=tolerant),
                     platform="gcp").findings(POLICY)
    assert "(pool 'linux' (GKE NodePool) runs linux, pool 'win' (GKE NodePool) runs windows)" in message


def test_a_karpenter_nodepool_allowing_windows_and_linux_needs_a_pin():
    """A NodePool whose kubernetes.io/os requirement allows both, and whose EC2NodeClass the stack does not declare:
    Karpenter may start either for an unpinned Pod."""
    both = nodepool("mixed", [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux", "windows"]}])
    (message,) = os_findings(both, deployment("api", requests=TINY), platform="aws")
    assert "(pool 'mixed' (NodePool) runs linux and windows)" in message
    assert os_findings(both, deployment("api", requests=TINY, node_selector=LINUX), platform="aws") == []
    # its EC2NodeClass's AMIs are Amazon Linux 2023 (alias al2023@latest): whatever the requirement allows, its nodes
    # run linux
    assert os_findings(node_class(), both, deployment("api", requests=TINY), platform="aws") == []


def test_what_fits_a_windows_node_is_not_judged_and_said():
    """A Windows Server node reserves and counts Pod slots as its platform does for Windows, which the node model
    does not hold: a Pod pinned to the Windows pool is not refused by its size, and the note says why."""
    huge = {"cpu": "100m", "memory": "15Gi"}  # more than a Standard_D4s_v5's 16 GiB less AKS's Linux reservations
    result = run(aks("win"), deployment("api", requests=huge, node_selector=WINDOWS), platform="azure")
    assert result.findings("workload-fits-pool") == []
    assert any("Windows nodes is not modelled" in note.message for note in result.notes)
    (linux,) = run(aks("win"), deployment("api", requests=huge, node_selector=LINUX),
                   platform="azure").findings("workload-fits-pool")
    assert "pool 'system' of AKS cluster 'aks'" in linux


def test_an_aks_program_with_a_windows_pool_as_azures_docs_write_it():
    """Azure's "Create a Windows Server container on an AKS cluster": a cluster whose system pool runs Linux, a
    Windows pool added beside it (az aks nodepool add --os-type Windows --name npwin: an azure-native AgentPool), and
    the sample ASP.NET application with nodeSelector kubernetes.io/os: windows. As written it is clean; with the
    nodeSelector dropped (the planted fault) its Pods may land on the Linux pool and never start."""
    import pulumi_azure_native as azure_native

    def program_cluster() -> Any:
        cluster = azure_native.containerservice.ManagedCluster(
            "aks", resource_name_="myAKSCluster", resource_group_name="myResourceGroup", dns_prefix="myakscluster",
            agent_pool_profiles=[{"name": "nodepool1", "mode": "System", "os_type": "Linux", "count": 2,
                                  "vm_size": "Standard_DS2_v2"}],
            windows_profile={"admin_username": "azureuser", "admin_password": "P@ssw0rd1234567890"},
            network_profile={"network_plugin": "azure"})
        return azure_native.containerservice.AgentPool(
            "npwin", agent_pool_name="npwin", resource_name_=cluster.name, resource_group_name="myResourceGroup",
            os_type="Windows", vm_size="Standard_D4s_v3", count=1)

    sample = {"cpu": "1", "memory": "800M"}  # the sample's limits, as its manifest sets them
    app = deployment("sample", requests=sample, node_selector=WINDOWS)
    assert os_findings(program_cluster, app, platform="azure") == []
    (message,) = os_findings(program_cluster, deployment("sample", requests=sample), platform="azure")
    assert "(pool 'nodepool1' of AKS cluster 'aks' runs linux, pool 'npwin' (AgentPool) runs windows)" in message


# --- a pool that may take the Pods: what fails only with it is a note naming the workload and the pool (issue 57) ---

def _groups(*extra: Any, labels_known: bool = False) -> list[Any]:
    """An EKS cluster with a Linux on-demand group, and the extra groups, whose labels are not known yet unless
    ``labels_known`` (the engine's unknown, as a first preview sends a value another resource's output decides)."""
    from pulumi_policy.proxy import UNKNOWN_OBJECT_VALUE

    from compute_guard.testkit import Resource

    def group(name: str, machine: str, ami: str, capacity: str = "ON_DEMAND", tier: str = "any",
              known: bool = True) -> Resource:
        return Resource.of("aws:eks/nodeGroup:NodeGroup", name, {
            "clusterName": "fleet", "nodeGroupName": name, "instanceTypes": [machine], "amiType": ami,
            "capacityType": capacity, "labels": {"tier": tier} if known else UNKNOWN_OBJECT_VALUE,
            "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": 3}})

    cluster = Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"})
    return [cluster, group("linux", "m7i.large", "AL2023_x86_64_STANDARD"),
            *(group(*spec[:4], **({"tier": spec[4]} if len(spec) > 4 else {}),
                    known=labels_known or (len(spec) > 4)) for spec in extra)]


def _judged(groups: list[Any], *workloads: Any) -> Any:
    from compute_guard.testkit.analyzer import Analyzer, stack_environment
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        return Analyzer().run([*groups, *workloads])


def _web(replicas: int = 2, selector: dict[str, str] | None = None) -> Any:
    from compute_guard.testkit import Resource
    return Resource.of("kubernetes:apps/v1:Deployment", "web", {"metadata": {"name": "web"}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": {
            "metadata": {"labels": {"app": "web"}}, "spec": {
                **({"nodeSelector": selector} if selector else {}),
                "containers": [{"name": "web", "image": "i", "resources": {"requests": {"cpu": "100m"}}}]}}}})


def _reasons(result: Any, policy: str) -> list[str]:
    return [reason for note in result.notes if note.policy == policy for reason in note.reasons]


def test_mixed_only_with_a_pool_that_may_take_the_pods_is_a_note_naming_both():
    """Linux certainly takes the unpinned Deployment; a Windows group whose labels are not known yet may: nothing
    certainly mixes, so no violation, and the note says what would fail and which pool decides (before: nothing)."""
    result = _judged(_groups(("win", "m7i.large", "WINDOWS_CORE_2022_x86_64")), _web())
    assert result.of(POLICY) == []
    (note,) = _reasons(result, POLICY)
    assert note.startswith("Deployment 'web': its Pods may land on linux and windows nodes (pool 'linux' (NodeGroup) "
                           "runs linux, pool 'win' (NodeGroup) runs windows), but nothing pins them"), note
    assert note.endswith("; but whether pool 'win' (NodeGroup) takes its Pods is not known (Object value at .labels "
                         "can't be known during preview), so this is not judged"), note
    known = _judged(_groups(("win", "m7i.large", "WINDOWS_CORE_2022_x86_64"), labels_known=True), _web())
    assert len(known.of(POLICY)) == 1 and _reasons(known, POLICY) == []
    pinned = _judged(_groups(("win", "m7i.large", "WINDOWS_CORE_2022_x86_64")),
                     _web(selector={"kubernetes.io/os": "linux"}))
    assert pinned.of(POLICY) == [] and _reasons(pinned, POLICY) == []


def test_the_other_policies_say_what_fails_only_with_a_pool_that_may_take_the_pods():
    """The same for the architecture (an arm64 group that may take it) and for spot capacity (an on-demand group that
    may take a single replica the spot group certainly takes): a note naming the workload and the pool, no violation;
    with the labels known, the violation."""
    arch = "workload-node-architecture"
    result = _judged(_groups(("arm", "m7g.large", "AL2023_ARM_64_STANDARD")), _web())
    assert result.of(arch) == []
    (note,) = _reasons(result, arch)
    assert note.startswith("Deployment 'web': its Pods may land on amd64 and arm64 nodes") and \
        "but whether pool 'arm' (NodeGroup) takes its Pods is not known" in note, note
    assert len(_judged(_groups(("arm", "m7g.large", "AL2023_ARM_64_STANDARD"), labels_known=True),
                       _web()).of(arch)) == 1

    spot = "workload-interruption-tolerant"
    batch = {"tier": "batch"}  # only the spot group is certainly labelled so; a group whose labels are not known may be
    certain = _judged(_groups(("spot", "m7i.large", "AL2023_x86_64_STANDARD", "SPOT", "batch")), _web(1, batch))
    assert len(certain.of(spot)) == 1 and _reasons(certain, spot) == []
    result = _judged(_groups(("spot", "m7i.large", "AL2023_x86_64_STANDARD", "SPOT", "batch"),
                             ("more", "m7i.large", "AL2023_x86_64_STANDARD")), _web(1, batch))
    assert result.of(spot) == []
    (note,) = _reasons(result, spot)
    assert note.startswith("Deployment 'web': its Pods can run only on capacity the provider reclaims (pool 'spot' "
                           "(NodeGroup) (spot)), and it runs one replica") and note.endswith(
        "; but whether pool 'more' (NodeGroup) takes its Pods is not known (Object value at .labels can't be known "
        "during preview), so this is not judged"), note
