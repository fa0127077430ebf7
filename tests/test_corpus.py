"""Real-world rendered manifests (../shared/corpus), through the engine's door.

Every object is evaluated without an error, and every workload's verdict matches what the rules
predict for a stack that declares one ComputeCluster. The oracle below is written from the
manifests' point of view (kind -> where its pod spec is), not from the pack's code.
"""

from pathlib import Path

import pytest
from builders import valid_cluster_props

from testkit import Resource
from testkit.engine import EnginePack
from testkit.manifests import manifest_resources

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside this repository")

POD_SPEC = {"Pod": ("spec",), "PodTemplate": ("template", "spec"), "CronJob": ("spec", "jobTemplate", "spec",
                                                                              "template", "spec")}
WORKLOAD_KINDS = {"Pod", "PodTemplate", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
                  "ReplicationController"}
CORE_GROUPS = {"core", "apps", "extensions", "batch"}


def corpus_resources():
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    return manifest_resources(files)


def is_workload(resource):
    group = resource.type.split(":")[1].split("/")[0]
    return resource.type.rsplit(":", 1)[-1] in WORKLOAD_KINDS and group in CORE_GROUPS


def pod_spec(resource):
    from google.protobuf import json_format

    kind = resource.type.rsplit(":", 1)[-1]
    value = json_format.MessageToDict(resource.inputs)
    for field in POD_SPEC.get(kind, ("spec", "template", "spec")):
        value = value.get(field) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def pinned_to_amd64(spec):
    selector = spec.get("nodeSelector") or {}
    affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    assert "requiredDuringSchedulingIgnoredDuringExecution" not in affinity, "extend the oracle"
    return "amd64" in (selector.get("kubernetes.io/arch"), selector.get("beta.kubernetes.io/arch"))


def cluster_resource(architecture):
    props = valid_cluster_props(dynamicContainerPool=None)
    props["capacityGroups"][0]["groupId"] = "general"
    if architecture is None:
        del props["capacityGroups"][0]["profile"]["architecture"]
    else:
        props["capacityGroups"][0]["profile"]["architecture"] = architecture
    return Resource.of("compute:index:ComputeCluster", "compute", props)


@pytest.fixture(scope="module")
def corpus():
    resources = corpus_resources()
    workloads = [r for r in resources if is_workload(r)]
    assert len(resources) > 300 and len(workloads) > 100
    assert {r.type.rsplit(":", 1)[-1] for r in workloads} >= {"Pod", "Deployment", "ReplicationController",
                                                                "StatefulSet", "DaemonSet"}
    return resources, workloads


@pytest.mark.parametrize("architecture", ["x86_64", "arm64", None])
def test_every_object_is_evaluated_and_every_workload_gets_the_predicted_verdict(corpus, architecture):
    resources, workloads = corpus
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run([cluster_resource(architecture), *resources])
    assert result.notes == []
    assert not any("could not evaluate" in v.message for v in result.violations)
    node = {"x86_64": "amd64", "arm64": "arm64", None: None}[architecture]
    expected = sorted(("workload-node-architecture", r.urn) for r in workloads
                      if node is not None and not (node == "amd64" and pinned_to_amd64(pod_spec(r))))
    assert sorted((v.policy, v.urn) for v in result.violations) == expected
    for violation in result.violations:
        (resource,) = [r for r in workloads if r.urn == violation.urn]
        path = ".".join(POD_SPEC.get(resource.type.rsplit(":", 1)[-1], ("spec", "template", "spec")))
        assert f"set {path}.nodeSelector['kubernetes.io/arch'] to '{node}'" in violation.finding


def test_without_a_compute_cluster_the_corpus_keeps_default_scheduling(corpus):
    resources, _ = corpus
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run(resources)
    assert result.violations == [] and result.notes == []
