"""Real-world rendered manifests (../shared/corpus), through the engine's door.

Every object is evaluated without an error, and every workload's verdict matches what the rules
predict for a stack that declares one ComputeCluster. The oracle below is written from the
manifests' point of view (kind -> where its pod spec is), not from the pack's code.
"""


import re

import pytest
from builders import SHARED, valid_cluster_props

from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import to_struct
from compute_guard.testkit.engine import EnginePack
from compute_guard.testkit.manifests import manifest_resources

CORPUS = SHARED / "corpus"

POD_SPEC = {"Pod": ("spec",), "PodTemplate": ("template", "spec"), "CronJob": ("spec", "jobTemplate", "spec",
                                                                              "template", "spec")}
WORKLOAD_KINDS = {"Pod", "PodTemplate", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
                  "ReplicationController"}
CORE_GROUPS = {"core", "apps", "extensions", "batch"}
# Verdicts on requests and capacity have an oracle of their own (test_fit_and_capacity_by_the_formula).
FIT = {"workload-fits-pool", "pool-capacity", "workload-requests-declared"}  # judged in test_fit_corpus.py


def placement_verdicts(result):
    """The placement and architecture verdicts: not fit (tests/corpus/test_fit_corpus.py) nor disruption
    (test_the_corpus_budgets_one_allows_no_eviction_and_the_operators_are_not_judged)."""
    return [v for v in result.violations if v.policy not in FIT and v.policy not in DISRUPTION]


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


@pytest.mark.parametrize("architecture", ["x86_64", "arm64", None])
def test_every_object_is_evaluated_and_every_workload_gets_the_predicted_verdict(corpus, architecture):
    resources, workloads = corpus
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run([cluster_resource(architecture), *resources])
    assert unexpected_notes(result) == []
    assert not any("could not evaluate" in v.message for v in result.violations)
    node = {"x86_64": "amd64", "arm64": "arm64", None: None}[architecture]
    expected = sorted(("workload-node-architecture", r.urn) for r in workloads
                      if node is not None and not (node == "amd64" and pinned_to_amd64(pod_spec(r))))
    assert sorted((v.policy, v.urn) for v in placement_verdicts(result)) == expected
    for violation in placement_verdicts(result):
        (resource,) = [r for r in workloads if r.urn == violation.urn]
        path = ".".join(POD_SPEC.get(resource.type.rsplit(":", 1)[-1], ("spec", "template", "spec")))
        assert f"set {path}.nodeSelector['kubernetes.io/arch'] to '{node}'" in violation.finding


def test_without_a_compute_cluster_the_corpus_keeps_default_scheduling(corpus):
    resources, _ = corpus
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run(resources)
    assert [v for v in result.violations if v.policy != BUDGETS] == []
    # no pool anywhere: one note says the placement, fit and capacity are not judged, and how to name the cluster's
    # stack (issue 58: a stack of workloads only was silent)
    (note,) = [reason for note in unexpected_notes(result) for reason in note.reasons]
    assert note.startswith("the stack declares no cluster and no pool, and names no stack that does, so the "
                           "placement, fit and capacity of "), note


BUDGETS = "disruption-budget-useful"
REMOVED_APIS = "workload-api-available"
# Kubernetes' deprecation guide, written out (kubernetes.io/docs/reference/using-api/deprecation-guide): the workload,
# budget and autoscaler versions removed, and the release that removed them
GUIDE = {**{f"{version}:{kind}": "1.16" for version in ("extensions/v1beta1", "apps/v1beta1", "apps/v1beta2")
            for kind in ("Deployment", "DaemonSet", "ReplicaSet", "StatefulSet")},
         "policy/v1beta1:PodDisruptionBudget": "1.25", "batch/v1beta1:CronJob": "1.25",
         "autoscaling/v2beta1:HorizontalPodAutoscaler": "1.25", "autoscaling/v2beta2:HorizontalPodAutoscaler": "1.26"}


def test_the_corpus_workloads_at_removed_api_versions_are_named_in_one_note(corpus):
    """Issue 59 on manifests nobody wrote for the pack: archived examples still declare extensions/v1beta1 DaemonSets
    and a policy/v1beta1 budget. No cluster says its version, so each is named with its removal in one note."""
    resources, _ = corpus
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run(resources)
    assert [v for v in result.violations if v.policy == REMOVED_APIS] == []
    expected = sorted((r.type.split(":", 1)[1].rsplit(":", 1)[1], r.name, r.type.split(":")[1], GUIDE[
        r.type.split(":", 1)[1]]) for r in resources if r.type.split(":", 1)[1] in GUIDE)
    assert len(expected) >= 3
    (note,) = [note for note in result.notes if note.policy == REMOVED_APIS]
    said = sorted((found.group(1), found.group(2), found.group(3), found.group(4)) for reason in note.reasons
                  if (found := re.match(r"(\w+) '([^']+)': its apiVersion (\S+) is removed in Kubernetes (\S+), and the "
                                        "cluster it is applied to is not one the stack declares", reason)))
    assert said == expected
DISRUPTION = (BUDGETS, "workload-disruption-allowed", "workload-rollout-fits", "workload-zone-spread")


def unexpected_notes(result):
    """The notes besides disruption-budget-useful's: the kube-prometheus budgets select Pods its operator creates for
    the Prometheus and Alertmanager resources, which no workload of the corpus declares (never a finding)."""
    return [note for note in result.notes if note.policy not in (BUDGETS, REMOVED_APIS)]


def test_the_corpus_budgets_one_allows_no_eviction_and_the_operators_are_not_judged(corpus):
    """Issue 38 on manifests nobody wrote for the pack: cockroachdb's example budget keeps minAvailable 67% of 3
    replicas, which the disruption controller rounds up to all 3: no drain can evict one (an advisory finding); the
    kube-prometheus budgets select Pods an operator creates: a note, never a finding."""
    resources, _ = corpus
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run(resources)
    found = [(v.urn.rsplit("::", 1)[-1], v.level) for v in result.violations if v.policy == BUDGETS]
    assert found == [("cockroachdb-statefulset:cockroachdb-budget", "advisory")]
    assert "minAvailable 67% of 3 = 3 (rounded up) keeps all 3 of them: it allows no eviction" in \
        result.violations[[v.policy for v in result.violations].index(BUDGETS)].finding
    (note,) = [note.finding for note in result.notes if note.policy == BUDGETS]
    assert "selects no workload of the stack, and the Pods it is for may be those an operator creates" in note


# Labelled and pinned variants: placement and architecture verdicts against an independent oracle ---

def variant(resource, labels, architecture):
    """The same object with compute.alien.dev labels on it and, when given, its Pods pinned."""
    from google.protobuf import json_format

    props = json_format.MessageToDict(resource.inputs)
    metadata = props.setdefault("metadata", {})
    metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
    if architecture is not None:
        spec = props
        for field in POD_SPEC.get(resource.type.rsplit(":", 1)[-1], ("spec", "template", "spec")):
            spec = spec.setdefault(field, {})
        spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), "kubernetes.io/arch": architecture}
    struct = to_struct(props)
    return Resource(resource.type, resource.name, resource.urn, struct, struct, resource.parent)


PLACED = {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": "general"}
# (labels, pin, what the stack policies must say) for every fourth workload, on an x86_64 pool
VARIANTS = [
    (PLACED, "amd64", None),
    ({**PLACED, "compute.alien.dev/pool": "missing"}, "amd64", "workload-pool-placement"),
    (PLACED, "arm64", "workload-node-architecture"),
    ({"compute.alien.dev/workload": "worker", "compute.alien.dev/pool": "ignored"}, None, "worker"),
]


def test_labelled_and_pinned_variants_get_their_verdicts(corpus):
    _, workloads = corpus
    stack, expected = [cluster_resource("x86_64")], []
    for index, workload in enumerate(workloads):
        labels, pin, verdict = VARIANTS[index % len(VARIANTS)]
        stack.append(variant(workload, labels, pin))
        if verdict == "worker":  # a worker still needs the stack's architecture; its pool label is ignored
            verdict = None if pinned_to_amd64(pod_spec(workload)) else "workload-node-architecture"
        if verdict is not None:
            expected.append((verdict, workload.urn))
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run(stack)
    assert unexpected_notes(result) == []
    assert sorted((v.policy, v.urn) for v in placement_verdicts(result)) == sorted(expected)
    assert len(expected) > len(workloads) // 2  # every verdict kind is exercised, many times
    for violation in placement_verdicts(result):
        if violation.policy == "workload-pool-placement":
            assert "references missing or ambiguous pool 'missing'" in violation.finding
        elif pinned_to_amd64(pod_spec(next(r for r in stack if r.urn == violation.urn))):
            raise AssertionError(f"a pinned workload was reported: {violation}")
        elif "allow arm64" not in violation.finding:
            assert "nothing pins them there" in violation.finding


# Required node affinity on corpus workloads, judged by the scheduler model of the architecture oracle ---

def _term(*expressions):
    return {"matchExpressions": list(expressions)}


def _arch(operator, *values, key="kubernetes.io/arch"):
    return {"key": key, "operator": operator, **({"values": list(values)} if values else {})}


AFFINITIES = [
    [_term(_arch("In", "amd64"))],
    [_term(_arch("In", "amd64", "arm64"))],
    [_term(_arch("NotIn", "arm64"))],
    [_term(_arch("NotIn", "amd64"))],
    [_term(_arch("In", "amd64", key="beta.kubernetes.io/arch"))],
    [_term(_arch("NotIn", "amd64", key="beta.kubernetes.io/arch"))],
    [_term(_arch("Exists"))],
    [_term(_arch("DoesNotExist"))],
    [_term(_arch("In", "arm64")), _term(_arch("In", "amd64"))],
    [_term(), _term(_arch("In", "amd64"))],  # a term without expressions matches no node
    [_term(_arch("In", "amd64"), _arch("NotIn", "amd64", key="beta.kubernetes.io/arch"))],
    [_term({"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]})],
    [_term(_arch("In", "x86_64"))],  # the classic mistake
    [_term(_arch("Gt", "1"))],
]


def test_corpus_workloads_with_required_node_affinity_get_the_scheduler_models_verdicts(corpus):
    from google.protobuf import json_format
    from scheduler_model import ARCHITECTURES, allowed, wrong_names

    _, workloads = corpus
    stack, specs = [cluster_resource("x86_64")], {}
    for index, workload in enumerate(workloads):
        props = json_format.MessageToDict(workload.inputs)
        spec = props
        for field in POD_SPEC.get(workload.type.rsplit(":", 1)[-1], ("spec", "template", "spec")):
            spec = spec.setdefault(field, {})
        spec.setdefault("affinity", {})["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": AFFINITIES[index % len(AFFINITIES)]}}
        struct = to_struct(props)
        stack.append(Resource(workload.type, workload.name, workload.urn, struct, struct, workload.parent))
        specs[workload.urn] = spec
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run(stack)
    assert unexpected_notes(result) == []
    kinds = set()
    for urn, spec in specs.items():
        can = allowed(spec)
        reported = {v.policy for v in result.violations if v.urn == urn and v.policy not in FIT}
        expected = set()
        if wrong_names(spec) or not can:
            expected.add("workload-architecture-selector-valid")
        if can != {"amd64"}:  # the pool declares x86_64: the Pods must be pinned to amd64
            expected.add("workload-node-architecture")
        assert reported == expected, (urn, spec.get("nodeSelector"), spec["affinity"]["nodeAffinity"])
        kinds.add(frozenset(expected))
        assert set(can) <= set(ARCHITECTURES)
    assert len(kinds) == 3  # clean, unpinned, and impossible workloads all occur
