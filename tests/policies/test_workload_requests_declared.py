"""workload-requests-declared: the Pods the capacity rules count on a pool say what they need (policy 21)."""

from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

POLICY = "workload-requests-declared"
GIB = 1 << 30
SECRET = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
PLACED = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "general"}
NOTHING = ("Deployment 'api': its Pods request no CPU and no memory (no container sets a request or a limit for "
           "either), so workload-fits-pool and pool-capacity count them as needing nothing on pool 'general' of "
           "ComputeCluster 'compute': the pool may run out once they run: set resources.requests.cpu and "
           "resources.requests.memory on its containers")


def cluster(profile=True, pools=("general",)):
    return Resource.of("compute:index:ComputeCluster", "compute", {"id": "compute", "capacityGroups": [
        {"groupId": pool, "minSize": 1, "maxSize": 3,
         **({"profile": {"cpu": "4", "memoryBytes": 16 * GIB, "architecture": "x86_64"}} if profile else {})}
        for pool in pools]})


def workload(resources=None, kind="Deployment", name="api", labels=PLACED, init=None, replicas=2):
    container = {"name": name, "image": f"example.test/{name}:1"}
    if resources is not None:
        container["resources"] = resources
    pod = {"containers": [container], "nodeSelector": {"kubernetes.io/arch": "amd64"}}
    if init is not None:
        pod["initContainers"] = [{"name": "init", "image": "example.test/init:1", "resources": init}]
    template = {"metadata": {"labels": {"app": name}}, "spec": pod}
    if kind == "PodTemplate":
        return Resource.of("kubernetes:core/v1:PodTemplate", name, {"metadata": {"name": name, "labels": labels},
                                                                    "template": template})
    spec = {"selector": {"matchLabels": {"app": name}}, "template": template}
    if kind == "Deployment":
        spec["replicas"] = replicas
    return Resource.of(f"kubernetes:apps/v1:{kind}", name, {"metadata": {"name": name, "labels": labels},
                                                             "spec": spec})


def findings(*resources, platform="kubernetes"):
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        result = Analyzer({}).run(list(resources))
    assert not result.notes or all(note.policy != POLICY for note in result.notes)
    return result.findings(POLICY)


def test_a_workload_that_requests_nothing_on_a_pool_the_capacity_rules_count_is_named():
    assert findings(cluster(), workload()) == [NOTHING]
    assert findings(cluster(), workload({"requests": {"cpu": "0", "memory": "0"}})) == [NOTHING]  # 0 is nothing


def test_a_pod_that_requests_cpu_or_memory_is_counted_and_not_named():
    assert findings(cluster(), workload({"requests": {"cpu": "250m"}})) == []
    assert findings(cluster(), workload({"requests": {"memory": "1Gi"}})) == []


def test_requests_a_limit_or_an_init_container_declare_what_the_pods_need():
    assert findings(cluster(), workload({"requests": {"cpu": "250m", "memory": "256Mi"}})) == []
    assert findings(cluster(), workload({"limits": {"cpu": "1", "memory": "1Gi"}})) == []  # a limit stands for one
    assert findings(cluster(), workload(init={"requests": {"cpu": "1", "memory": "1Gi"}})) == []  # it runs first


def test_a_request_not_known_yet_secret_or_malformed_is_not_nothing():
    assert findings(cluster(), workload({"requests": {"cpu": UNKNOWN_STRING_VALUE}})) == []
    assert findings(cluster(), workload({"requests": {"memory": UNKNOWN_STRING_VALUE}})) == []
    # a secret 0 would tell the secret; a malformed quantity is workload-fits-pool's to report
    assert findings(cluster(), workload({"requests": {"cpu": dict(SECRET, value="0")}})) == []
    assert findings(cluster(), workload({"requests": {"memory": dict(SECRET, value="0")}})) == []
    assert findings(cluster(), workload({"requests": {"cpu": "lots"}})) == []
    assert findings(cluster(), workload({"requests": {"memory": "-1Gi"}})) == []


def test_only_pools_whose_nodes_the_capacity_rules_know_and_workloads_that_run_pods():
    assert findings(cluster(profile=False), workload()) == []  # no machine: nothing is added up
    nowhere = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "gone"}
    assert findings(cluster(), workload(labels=nowhere)) == []  # on no pool of the stack
    assert findings(cluster(), workload(kind="PodTemplate")) == []  # a template runs nothing
    assert findings(cluster(), workload(replicas=0)) == []
    assert findings(cluster(), workload(replicas=dict(SECRET, value=0))) == [NOTHING]  # not told by silence


def test_daemonsets_count_on_every_node_and_are_named_too():
    daemon = workload(kind="DaemonSet", name="agent")
    assert findings(cluster(), daemon) == [NOTHING.replace("Deployment 'api'", "DaemonSet 'agent'")]


def test_each_workload_once_among_others_that_declare():
    found = findings(cluster(), workload(), workload({"requests": {"cpu": "1", "memory": "1Gi"}}, name="web"))
    assert found == [NOTHING]


def nodepool(name):
    return Resource.of("kubernetes:karpenter.sh/v1:NodePool", name, {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
        "spec": {"template": {"spec": {"requirements": [
            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.large"]}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}})


def test_a_workload_several_pools_may_take_is_named_once_with_each_of_them():
    found = findings(nodepool("general"), nodepool("spare"), workload(labels={"app": "api"}), platform="aws")
    assert found == [NOTHING.replace("pool 'general' of ComputeCluster 'compute'",
                                     "pool 'general' (NodePool); pool 'spare' (NodePool)")]
    many = [nodepool(f"pool{n:02}") for n in range(12)]
    (message,) = findings(*many, workload(labels={"app": "api"}), platform="aws")
    assert "on pool 'pool00' (NodePool); " in message and "pool 'pool09' (NodePool) and 2 more: " in message
    assert "pool10" not in message
