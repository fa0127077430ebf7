"""Secrets stay secret in every message, however it is built: the two leaks the review found, through the
engine's door. A pool architecture the program marks secret read in plain text where messages joined the
declared architectures (compute-pools-single-architecture) and where the node architecture derived from it
was printed (workload-node-architecture, workload-architecture-pin)."""

from builders import CLUSTER_TYPE, valid_cluster_props

from compute_guard.testkit import Resource
from compute_guard.testkit.engine import EnginePack

SECRET = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}


def secret(value):
    return dict(SECRET, value=value)


def cluster(*architectures):
    props = valid_cluster_props(dynamicContainerPool=None)
    pool = props["capacityGroups"][0]
    props["capacityGroups"] = [dict(pool, groupId=f"p{i}", profile=dict(pool["profile"], architecture=arch))
                               for i, arch in enumerate(architectures)]
    return Resource.of(CLUSTER_TYPE, "compute", props)


def unpinned():
    return Resource.of("kubernetes:apps/v1:Deployment", "api", {
        "metadata": {"name": "api", "labels": {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "p0"}},
        "spec": {"template": {"spec": {"containers": [{"name": "api", "image": "example.test/api:1"}]}}}})


def run(*resources, config=None):
    with EnginePack({"compute:platform": "kubernetes"}, config) as pack:
        return pack.run(list(resources))


def test_a_secret_architecture_is_never_joined_into_a_message_in_plain_text():
    result = run(cluster(secret("x86_64"), "arm64"))
    (finding,) = result.findings("compute-pools-single-architecture")
    assert finding == ("ComputeCluster 'compute' declares pool 'p0' [secret], pool 'p1' arm64, but the stack's pools "
                       "declare arm64 and [secret]: one image build cannot serve both; declare the same "
                       "profile.architecture on every pool")
    # a secret and a plain declaration of the same architecture: the stack's list keeps it secret (the pool that
    # declares it in plain text still reads so)
    (both,) = run(cluster(secret("x86_64"), "x86_64", "arm64")).findings("compute-pools-single-architecture")
    assert "pool 'p0' [secret], pool 'p1' x86_64, pool 'p2' arm64, but the stack's pools declare arm64 and [secret]" \
        in both


def test_the_architecture_derived_from_a_secret_one_is_secret_too():
    config = {"workload-architecture-pin": "mandatory"}
    result = run(cluster(secret("x86_64")), unpinned(), config=config)
    (node,) = result.findings("workload-node-architecture")
    assert node == ("Deployment 'api': its Pods need [secret] nodes (the stack's compute pools declare [secret]), "
                    "but nothing pins them there and they could be scheduled on another architecture in a "
                    "mixed cluster; set spec.template.spec.nodeSelector['kubernetes.io/arch'] to '[secret]'")
    (pin,) = result.findings("workload-architecture-pin")
    assert "amd64" not in pin and "x86_64" not in pin and "[secret]" in pin
    plain = run(cluster("x86_64"), unpinned(), config=config)
    assert "amd64" in plain.findings("workload-node-architecture")[0]  # the same message, not secret, names it


def secret_machine_stack():
    """A pool whose instanceType is secret, and a DaemonSet too large for it (so workload-fits-pool speaks)."""
    props = {"id": "compute", "capacityGroups": [{"groupId": "apps", "minSize": 0, "maxSize": 1,
                                                  "instanceType": secret("t4g.small")}]}
    daemon = Resource.of("kubernetes:apps/v1:DaemonSet", "logs", {
        "metadata": {"name": "logs", "labels": {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "apps"}},
        "spec": {"template": {"spec": {"containers": [{"name": "logs", "image": "i", "resources": {
            "requests": {"cpu": "100m", "memory": "3Gi"}}}]}}}})
    return [Resource.of(CLUSTER_TYPE, "compute", props), daemon]


def test_the_facts_of_a_secret_machine_are_secret_too():
    """Found by tests/robustness/test_secret_sweep.py: workload-fits-pool named the catalog's machine (and its
    allocatable memory, which tells it) of a pool whose instanceType is secret."""
    with EnginePack({"compute:platform": "aws"}) as pack:
        result = pack.run(secret_machine_stack())
    (finding,) = result.findings("workload-fits-pool")
    assert "t4g" not in finding and "1572 MiB" not in finding and "[secret]" in finding
    assert "3 GiB" in finding  # the request is not secret


def test_the_facts_of_a_secret_machine_are_secret_in_process_too():
    """The same through the test kit's in-process analyzer (mutation testing sees what runs in its process)."""
    from compute_guard.testkit.analyzer import Analyzer, stack_environment

    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        result = Analyzer().run(secret_machine_stack())
    (finding,) = result.findings("workload-fits-pool")
    assert "t4g" not in finding and "1572 MiB" not in finding and "machine [secret]" in finding
