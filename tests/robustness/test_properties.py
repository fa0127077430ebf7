"""Property tests: generated ComputeClusters, pod specs and whole stacks, valid and broken, with
unknowns and secrets anywhere. No policy raises (in-process and over the engine protocol), and
every finding of a resource policy names a field that exists in its input.

What these decide and what they do not: the inputs here are hostile on purpose (any type anywhere),
so no model of the right verdict exists for them; they prove the pack answers (never raises, never
blames the stack for a resource's fault, names only fields that exist) and that a remediation is
deterministic, idempotent and minimal. The verdicts themselves are decided by the oracles of
test_property_oracles.py, test_architecture_oracle.py, test_placement_oracle.py, test_unknown_sweep.py
and the corpus tests.

Bounded (example counts, sizes, no deadline surprises) so the whole suite stays well inside CI's
budget.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UNKNOWN_OBJECT_VALUE, UNKNOWN_STRING_VALUE

from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment
from compute_guard.testkit.engine import EnginePack

SECRET = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
CLUSTER = "compute:index:ComputeCluster"
PROPERTY = settings(max_examples=int(__import__("os").environ.get("PROPERTY_EXAMPLES", "200")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- strategies -------------------------------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 300), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from(["", "x", "general", "apps", "arm64", "x86_64", "amd64", "500m", "4", "-1",
                                     "10.244.0.0/16", "10.0.0.0/25", "m7g.xlarge", "t4g.small"]),
                    st.sampled_from([UNKNOWN_STRING_VALUE, UNKNOWN_NUMBER_VALUE, UNKNOWN_OBJECT_VALUE]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "type", "min", "count", "x"]), inner,
                                                 max_size=3)), max_leaves=8)


def hostile(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A value, or something else in its place: another type, an unknown, a secret around it."""
    return st.one_of(value, value, value, json_values, value.map(lambda v: dict(SECRET, value=v)))


def maybe(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional={k: hostile(v) for k, v in fields.items()})


ranges = st.fixed_dictionaries({"min": st.integers(0, 4), "max": st.integers(0, 12), "default": st.integers(0, 6)})
profiles = st.fixed_dictionaries({"cpu": st.sampled_from(["2", "0.5", "500m", "abc", "0"]),
                                  "memoryBytes": st.integers(-1, 1 << 40),
                                  "ephemeralStorageBytes": st.integers(0, 1 << 40)}, optional={
    "architecture": st.sampled_from(["arm64", "x86_64", "amd64"]),
    "gpu": st.fixed_dictionaries({"type": st.sampled_from(["nvidia-a10g", "nvidia-t4"]), "count": st.integers(0, 8)}),
    "dataDisk": json_values, "memoryByte": st.just(1)})
pools = maybe({
    "groupId": st.sampled_from(["general", "apps", "arm", "Bad", ""]), "minSize": st.integers(-1, 11),
    "maxSize": st.integers(-1, 11), "instanceType": st.sampled_from(["m7g.xlarge", "t4g.small", "g5.xlarge", "nope"]),
    "nestedVirtualization": st.booleans(), "profile": profiles,
    "scalePolicy": st.one_of(st.fixed_dictionaries({"type": st.just("fixed"), "machines": ranges}),
                             st.fixed_dictionaries({"type": st.just("autoscale"), "min": ranges, "max": ranges})),
    "group_id": st.just("apps"), "minSise": st.just(1)})
clusters = maybe({
    "id": st.sampled_from(["compute", "two", "bad id"]), "capacityGroups": st.lists(pools, max_size=4),
    "dynamicContainerPool": st.sampled_from(["general", "apps", "missing"]),
    "failureDomainSpread": st.dictionaries(st.sampled_from(["general", "apps", "zzz"]), st.integers(0, 300), max_size=2),
    "selectedFailureDomains": st.dictionaries(st.sampled_from(["general", "apps"]),
                                              st.lists(st.sampled_from(["a", "b"]), max_size=3), max_size=2),
    "containerCidr": st.sampled_from(["10.244.0.0/16", "10.0.0.0/24", "10.0.0.1/16", "nope"]),
    "type": st.sampled_from(["compute-cluster", "other"]), "capacity_groups": st.lists(pools, max_size=1)})

arch_names = st.sampled_from(["amd64", "arm64", "x86_64", "aarch64", "s390x", "nope"])
expressions = st.fixed_dictionaries({"key": st.sampled_from(["kubernetes.io/arch", "beta.kubernetes.io/arch", "zone"]),
                                     "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Eq"])},
                                    optional={"values": st.lists(arch_names, max_size=3)})
terms = st.fixed_dictionaries({}, optional={"matchExpressions": st.lists(hostile(expressions), max_size=3),
                                            "matchFields": st.just([{"key": "metadata.name", "operator": "In",
                                                                     "values": ["n"]}])})
affinities = st.fixed_dictionaries({"nodeAffinity": maybe({
    "requiredDuringSchedulingIgnoredDuringExecution": st.fixed_dictionaries({
        "nodeSelectorTerms": st.lists(hostile(terms), max_size=3)})})})
labels = st.dictionaries(st.sampled_from(["compute.alien.dev/workload", "compute.alien.dev/cluster",
                                          "compute.alien.dev/pool", "app"]),
                         hostile(st.sampled_from(["container", "daemon", "worker", "dynamic", "compute", "two",
                                                  "general", "apps", "nope"])), max_size=3)
metadata = maybe({"name": st.just("w"), "labels": labels, "annotations": labels})
pod_specs = maybe({"nodeSelector": st.dictionaries(st.sampled_from(["kubernetes.io/arch", "beta.kubernetes.io/arch",
                                                                    "disk"]), hostile(arch_names), max_size=2),
                   "affinity": affinities, "containers": st.just([{"name": "c", "image": "i"}])})
templates = maybe({"metadata": metadata, "spec": pod_specs})
KINDS = {"kubernetes:apps/v1:Deployment": lambda t: {"spec": {"template": t}},
         "kubernetes:apps/v1:DaemonSet": lambda t: {"spec": {"template": t}},
         "kubernetes:batch/v1:CronJob": lambda t: {"spec": {"jobTemplate": {"spec": {"template": t}}}},
         "kubernetes:core/v1:Pod": lambda t: {"spec": t.get("spec")},
         "kubernetes:core/v1:PodTemplate": lambda t: {"template": t},
         "kubernetes:apps/v1:StatefulSetPatch": lambda t: {"spec": {"template": t}}}
workloads = st.tuples(st.sampled_from(sorted(KINDS)), metadata, templates).map(
    lambda k: (k[0], dict(KINDS[k[0]](k[2]), metadata=k[1])))
stacks = st.tuples(st.lists(clusters, max_size=3), st.lists(workloads, max_size=5))


def stack_resources(stack: tuple[list[Any], list[Any]]) -> list[Resource]:
    cluster_list, workload_list = stack
    resources = [Resource.of(CLUSTER, f"c{i}", props, outputs=props if i % 2 else {})
                 for i, props in enumerate(cluster_list)]
    resources += [Resource.of(kind, f"w{i}", props) for i, (kind, props) in enumerate(workload_list)]
    return resources


def run_in_process(resources: list[Resource], platform: str = "kubernetes"):
    with stack_environment({"compute:platform": platform}, "project", "stack", True):
        result = Analyzer().run(resources)
    for item in result.violations + result.notes:
        assert "could not evaluate" not in item.message, item.message
    return result


# --- every finding names a field of its input --------------------------------------------------

_PATH = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\]|\['[^']*'\])*)")
_TOKEN = re.compile(r"\.?([A-Za-z_]\w*)|\[(\d+)\]|\['([^']*)'\]")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _unwrap(value: Any) -> Any:
    return value["value"] if isinstance(value, dict) and value.get(next(iter(SECRET))) else value


def resolves(doc: Any, path: str) -> bool:
    value = _unwrap(doc)
    for name, index, key in _TOKEN.findall(path):
        if index:
            if not isinstance(value, list) or int(index) >= len(value):
                return False
            value = _unwrap(value[int(index)])
        else:
            field = name or key
            if not isinstance(value, dict):
                return False
            snake = _snake(field)
            spelled = field if field in value and (value[field] is not None or snake not in value) else snake
            if spelled not in value:
                return False
            value = _unwrap(value[spelled])
    return True


def named_path(message: str) -> str | None:
    """The field a finding is about, relative to the subject it names; None when it names none."""
    match = re.match(r"^(?:unknown field|both|field) '([^']*)'", message)
    if match:
        return None if " is required" in message else match.group(1)
    if message.startswith(("a fixed scalePolicy", "its ", "no ", "can't change machine", "pool '")):
        return {"a": "scalePolicy", "c": "instanceType"}.get(message[0])
    match = _PATH.match(message)
    return match.group(1) if match else None


def subject_root(props: dict[str, Any], subject: str) -> Any:
    match = re.search(r"[ (]capacityGroups\[(\d+)\]\)?$", subject) or re.search(r" pool '([^']*)'$", subject)
    if match is None:
        return props
    groups = _unwrap(props.get("capacityGroups"))
    groups = _unwrap(props.get("capacity_groups")) if groups is None else groups
    assert isinstance(groups, list), subject
    if match.group(0).startswith(" pool '"):
        def group_id(g: dict[str, Any]) -> Any:
            raw = g.get("groupId") if g.get("groupId") is not None else g.get("group_id")
            return "[secret]" if isinstance(raw, dict) and next(iter(SECRET)) in raw else raw

        found = [g for g in map(_unwrap, groups) if isinstance(g, dict) and match.group(1) == group_id(g)]
        assert found, subject
        return found[0]
    return _unwrap(groups[int(match.group(1))])


def assert_names_existing_fields(props: dict[str, Any], findings: list[str]) -> None:
    for finding in findings:
        subject, _, message = finding.partition(": ")
        path = named_path(message)
        if path is not None:
            assert resolves(subject_root(props, subject), path), finding


@PROPERTY
@given(clusters, st.sampled_from(["kubernetes", "aws", "gcp"]))
def test_generated_clusters_never_raise_and_name_real_fields(props, platform):
    result = run_in_process([Resource.of(CLUSTER, "compute", props)], platform)
    for policy in ("compute-cluster-valid", "kubernetes-compute-enforceable", "cloud-machine-catalog"):
        assert_names_existing_fields(props, result.findings(policy))


@PROPERTY
@given(workloads)
def test_generated_workloads_never_raise_and_name_real_fields(workload):
    kind, props = workload
    result = run_in_process([Resource.of(kind, "w", props)])
    for finding in result.findings("workload-architecture-selector-valid"):
        path = named_path(finding.partition(": ")[2])
        if path is not None:
            assert resolves(props, path), finding


@PROPERTY
@given(stacks)
def test_generated_stacks_never_raise(stack):
    """Answering at all is the property: hostile stacks have no right verdict to compare with (the oracles
    decide verdicts); every violation is on one of the stack's resources."""
    result = run_in_process(stack_resources(stack))
    urns = {r.urn for r in stack_resources(stack)}
    assert all(v.urn in urns for v in result.violations)  # attributed to a resource, never to the stack


@pytest.fixture(scope="module")
def engine():
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        yield pack


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(stacks)
def test_no_grpc_error_ever_comes_back(engine, stack):
    """Over the engine protocol, answering is the property: an exception in a policy would come back as a
    gRPC error (or the pack's own "could not evaluate"), failing the user's whole preview."""
    result = engine.run(stack_resources(stack))  # a policy that raised would surface as a gRPC error here
    assert not any("could not evaluate" in v.message for v in result.violations)


# --- remediation: deterministic, idempotent, minimal -------------------------------------------

PIN = "workload-architecture-pin"
POD_SPEC_PATHS = {"Deployment": "spec.template.spec", "DaemonSet": "spec.template.spec",
                  "StatefulSetPatch": "spec.template.spec", "CronJob": "spec.jobTemplate.spec.template.spec",
                  "Pod": "spec", "PodTemplate": "template.spec"}


def _pod_spec_of(props: Any, kind: str) -> Any:
    node = props
    for field in POD_SPEC_PATHS[kind].split("."):
        node = _unwrap(node)
        node = node.get(field) if isinstance(node, dict) else None
    return _unwrap(node)


def remediate_config(setting: str | None) -> dict[str, Any]:
    return {PIN: {"enforcementLevel": "remediate", **({"architecture": setting} if setting else {})}}


@PROPERTY
@given(stacks, st.sampled_from([None, "arm64", "x86_64"]))
@example(([], [("kubernetes:apps/v1:DaemonSet",  # a null architecture key is unset: the pin replaces it
                {"spec": {"template": {"spec": {"nodeSelector": {"kubernetes.io/arch": None}}}}, "metadata": {}})]),
         "arm64")
def test_remediation_is_deterministic_idempotent_and_minimal(stack, setting):
    from google.protobuf import json_format

    resources = stack_resources(stack)
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        first = Analyzer(remediate_config(setting)).run(resources)
        second = Analyzer(remediate_config(setting)).run(resources)
    assert first.remediations == second.remediations
    assert {r.policy for r in first.remediations} <= {PIN}

    by_urn = {r.urn: r for r in resources}
    for remediation in first.remediations:
        resource = by_urn[remediation.urn]
        kind = resource.type.rsplit(":", 1)[-1]
        original = json_format.MessageToDict(resource.inputs)
        remediated = copy.deepcopy(remediation.properties)
        before, after = _pod_spec_of(original, kind), _pod_spec_of(remediated, kind)
        selector = _unwrap(after["nodeSelector"])
        assert selector.pop("kubernetes.io/arch") in ("amd64", "arm64")
        old_selector = _unwrap(before.get("nodeSelector"))
        # a null value is an unset key (Pulumi drops it): only a set architecture key is a constraint
        assert not any((old_selector or {}).get(key) is not None
                       for key in ("kubernetes.io/arch", "beta.kubernetes.io/arch"))
        if old_selector is not None and "kubernetes.io/arch" in old_selector:
            selector["kubernetes.io/arch"] = old_selector["kubernetes.io/arch"]  # the null the pin replaced
        if old_selector is None:  # absent or null: the pin is the whole selector now
            assert selector == {}
            if "nodeSelector" in before:
                after["nodeSelector"] = before["nodeSelector"]
            else:
                del after["nodeSelector"]
        assert remediated == original  # nothing else changed, unknowns and secrets included

    again = [Resource.of(r.type, r.name, first.remediated.get(r.urn, json_format.MessageToDict(r.inputs)),
                         json_format.MessageToDict(r.outputs)) for r in resources]
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        assert Analyzer(remediate_config(setting)).run(again).remediations == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stacks, st.sampled_from([None, "arm64"]))
def test_the_engine_started_pack_remediates_as_in_process(stack, setting):
    """The pack against itself (started as the engine starts it vs in-process): it checks the process and
    the protocol, not a verdict; test_architecture_oracle.py decides which workloads are pinned."""
    resources = stack_resources(stack)
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        expected = Analyzer(remediate_config(setting)).run(resources).remediations
    with EnginePack({"compute:platform": "kubernetes"}, remediate_config(setting)) as pack:
        assert pack.run(resources).remediations == expected
