"""The admission stage's readers and steps field by field (policies/model/admission/, platforms/managed.py): what each
reads of an object, what it makes of a value of the wrong type or one not known yet, and the exact refusal it returns.
The policies' tests reach them through whole stacks; these pin what a whole stack cannot tell apart (a namespace label
that is not text, a LimitRange of type Pod, a toleration without an operator)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from compute_guard.policies.model.admission import limit_ranger, namespace, runtime_class, written
from compute_guard.policies.model.admission.limit_ranger import Broken, Defaults, LimitRange
from compute_guard.policies.model.admission.runtime_class import RuntimeScheduling, merge_tolerations
from compute_guard.policies.model.pods import ContainerResources
from compute_guard.policies.model.values import Undetermined, Unknown
from compute_guard.policies.platforms import managed
from compute_guard.policies.platforms.quantity import CPU, GIB, MEMORY, MIB

UNKNOWN = Unknown(Undetermined("not known during preview"))


# --- NamespaceLifecycle: a Namespace's labels, an object's namespace and name ----------------------------------------

def test_a_namespaces_labels_are_read_as_text_or_not_known_and_nothing_else():
    labels = {namespace.ENFORCE: "restricted", namespace.ENFORCE_VERSION: "v1.34",
              namespace.DEFAULT_CLASS: "balanced"}
    read = namespace.parse_namespace("urn:ns", {"metadata": {"name": "team", "labels": labels}}, "p")
    assert read == namespace.Namespace("urn:ns", "team", "p", "restricted", "v1.34", "balanced", "balanced")
    odd = {key: 3 for key in labels}  # a label value that is not text: the API server takes none such
    assert namespace.parse_namespace("urn:ns", {"metadata": {"name": 7, "labels": odd}}, "p") == \
        namespace.Namespace("urn:ns", None, "p", None, None, None, None)
    late = namespace.parse_namespace("urn:ns", {"metadata": {"name": UNKNOWN, "labels": dict.fromkeys(labels, UNKNOWN)}},
                                     "p")
    assert (late.name, late.enforce, late.version, late.compute_class, late.daemonset_class) == (UNKNOWN,) * 5
    # the non-DaemonSet label alone chooses the class of every Pod but a DaemonSet's
    only = namespace.parse_namespace("urn:ns", {"metadata": {"labels": {namespace.DEFAULT_CLASS_NON_DAEMONSET: "x"}}}, "p")
    assert (only.compute_class, only.daemonset_class) == ("x", None)


def test_an_objects_namespace_and_name_as_written():
    assert namespace.written_namespace({"metadata": {"namespace": "team"}}) == "team"
    assert namespace.written_namespace({"metadata": {"namespace": UNKNOWN}}) is UNKNOWN
    assert namespace.written_namespace({"metadata": {"namespace": 5}}) is None
    assert namespace.written_namespace({"metadata": {}}) is None
    assert namespace.object_name({"metadata": {"name": "gvisor"}}) == "gvisor"
    assert namespace.object_name({"metadata": {"name": UNKNOWN}}) is UNKNOWN
    assert namespace.object_name({"metadata": {"name": ["gvisor"]}}) is None


# --- what a pod spec writes of where it runs --------------------------------------------------------------------------

def test_node_placement_reads_the_selector_and_the_node_affinity():
    affinity = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
    spec = {"nodeSelector": {"disk": "ssd"}, "affinity": {"nodeAffinity": affinity, "podAffinity": {"x": 1}}}
    assert written.node_placement(spec) == ({"disk": "ssd"}, affinity)
    assert written.node_placement({"affinity": UNKNOWN}) == (None, UNKNOWN)
    assert written.node_placement(UNKNOWN) == (UNKNOWN, UNKNOWN)
    assert written.node_placement({}) == (None, None)


# --- RuntimeClass -----------------------------------------------------------------------------------------------------

def test_a_runtime_class_whose_scheduling_is_not_known_gives_neither_selector_nor_tolerations():
    assert runtime_class.parse_runtime_class({"metadata": {"name": "kata"}, "scheduling": UNKNOWN}) == \
        ("kata", RuntimeScheduling(UNKNOWN, UNKNOWN))
    scheduling = {"nodeSelector": {"sandbox": "kata"}, "tolerations": [{"key": "sandbox", "operator": "Exists"}]}
    assert runtime_class.parse_runtime_class({"metadata": {"name": "kata"}, "scheduling": scheduling}) == \
        ("kata", RuntimeScheduling({"sandbox": "kata"}, [{"key": "sandbox", "operator": "Exists"}]))


def test_a_runtime_class_whose_name_is_not_text_is_kept_under_none():
    stack = SimpleNamespace(runtime_classes={})
    runtime_class.add(stack, SimpleNamespace(urn="urn:rc", props={"metadata": {"name": 5}}))
    runtime_class.add(stack, SimpleNamespace(urn="urn:kata", props={"metadata": {"name": "kata"}}))
    assert stack.runtime_classes == {None: [("urn:rc", RuntimeScheduling())], "kata": [("urn:kata", RuntimeScheduling())]}


def test_a_runtime_class_selector_that_is_not_a_mapping_adds_nothing():
    assert runtime_class.with_runtime({"disk": "ssd"}, None, RuntimeScheduling(["sandbox"], None), "Pod 'p'") == \
        ({"disk": "ssd"}, None)


TAINT = {"key": "sandbox", "operator": "Equal", "value": "kata", "effect": "NoSchedule"}


def test_merge_tolerations_goes_on_past_a_dropped_one_and_looks_at_every_later_one():
    exists = {**TAINT, "operator": "Exists", "value": ""}
    other = {"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}
    assert merge_tolerations([exists, TAINT, other]) == [exists, other]
    assert merge_tolerations([TAINT, exists, other]) == [exists, other]


def test_an_empty_operator_is_equal_and_an_empty_effect_is_any():
    """isSuperset: an operator not written is Equal, an effect not written covers every effect."""
    unwritten = {"key": "sandbox", "value": "kata", "effect": "NoSchedule"}
    assert merge_tolerations([TAINT, unwritten]) == [unwritten]
    any_effect = {**TAINT, "effect": ""}
    assert merge_tolerations([TAINT, any_effect]) == [any_effect]


def test_no_execute_seconds_a_toleration_without_them_stays_for_ever():
    """isSuperset: a NoExecute toleration with tolerationSeconds covers one that stays as long or less; one without
    covers every one (it stays for ever)."""
    soon = {"key": "gone", "operator": "Equal", "value": "yes", "effect": "NoExecute", "tolerationSeconds": 30}
    wide = {"key": "gone", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}
    assert merge_tolerations([soon, wide]) == [wide]  # as long
    forever = {"key": "gone", "operator": "Exists", "effect": "NoExecute"}
    assert merge_tolerations([soon, forever]) == [forever]


# --- LimitRanger ------------------------------------------------------------------------------------------------------

def test_a_limit_range_not_known_yet_is_kept_with_its_namespace():
    props = {"metadata": {"namespace": "team"}, "spec": {"limits": UNKNOWN}}
    assert limit_ranger.parse_limit_range("urn:lr", "defaults", props, "p") == \
        LimitRange("urn:lr", "defaults", "team", "p", unknown=UNKNOWN)


def test_a_limit_range_reads_its_container_limits_only_and_its_own_name():
    props = {"metadata": {"name": "written", "namespace": "team"}, "spec": {"limits": [
        {"type": "Pod", "max": {"cpu": "1"}},
        {"type": "Container", "min": {"cpu": "100m"}, "defaultRequest": {"memory": "64Mi"}},
        {"max": {"memory": "1Gi"}}]}}  # (no type: Container, the API server's default)
    read = limit_ranger.parse_limit_range("urn:lr", "resource-name", props, "p")
    assert (read.name, read.namespace) == ("written", "team")
    assert read.minimum == {CPU: Decimal(100)} and read.maximum == {MEMORY: Decimal(GIB)}
    assert read.requests == {CPU: Decimal(100), MEMORY: Decimal(64 * MIB)} and read.limits == {MEMORY: Decimal(GIB)}
    unnamed = limit_ranger.parse_limit_range("urn:lr", "resource-name", {"metadata": {"name": 3}}, "p")
    assert unnamed.name == "resource-name"


@dataclass
class _Stack:
    """What LimitRanger's step asks of a stack: its LimitRanges and where each object is."""

    limit_ranges: list[LimitRange]
    known: dict[str, Any] = field(default_factory=dict)  # urn -> namespace the stack gives it

    def place(self, urn: str, namespace: Any = None) -> Any:
        found = namespace if namespace is not None else self.known.get(urn)
        return _Place(found if isinstance(found, str) else None)


@dataclass(frozen=True)
class _Workload:
    urn: str
    namespace: str | None
    defaults: Defaults | None = None


@dataclass(frozen=True)
class _Place:
    namespace: str | None

    @property
    def known(self) -> bool:
        return self.namespace is not None


def test_limit_ranger_gives_each_workload_its_own_namespaces_defaults():
    team = LimitRange("urn:team", "a", "team", "p", {CPU: Decimal(250)}, {CPU: Decimal(500)})
    late = LimitRange("urn:late", "b", None, "p", {CPU: Decimal(900)}, {})  # its namespace not known at all
    stack = _Stack([team, late], {"urn:team": "default"})
    admit = limit_ranger.prepare(stack)
    there = admit(_Workload("urn:w", "team"))
    assert there.defaults == Defaults({CPU: Decimal(250)}, {CPU: Decimal(500)})
    elsewhere = _Workload("urn:v", "default")
    assert admit(elsewhere) is elsewhere
    unplaced = _Workload("urn:u", None)
    assert admit(unplaced) is unplaced


def test_each_broken_bound_is_returned_as_it_is_broken():
    bounds = LimitRange("urn:lr", "a", "team", "p", minimum={CPU: Decimal(500)}, maximum={MEMORY: Decimal(GIB)},
                        ratio={CPU: Decimal(2)})
    small = ContainerResources("app", {CPU: Decimal(100)}, {CPU: Decimal(1000), MEMORY: Decimal(2 * GIB)})
    assert limit_ranger.broken(bounds, (small,)) == [
        Broken("app", CPU, "min", Decimal(500), "request", Decimal(100)),
        Broken("app", CPU, "ratio", Decimal(2), "limit", Decimal(1000), Decimal(100)),
        Broken("app", MEMORY, "max", Decimal(GIB), "limit", Decimal(2 * GIB))]
    no_request = ContainerResources("app", {}, {CPU: Decimal(1000)})
    no_limit = ContainerResources("app", {CPU: Decimal(1000)}, {})
    ratio_only = LimitRange("urn:lr", "a", "team", "p", ratio={CPU: Decimal(2)})
    assert limit_ranger.broken(ratio_only, (no_request,)) == [Broken("app", CPU, "missing", Decimal(2), "request")]
    assert limit_ranger.broken(ratio_only, (no_limit,)) == [Broken("app", CPU, "missing", Decimal(2), "limit")]


def test_a_request_above_the_default_limit_is_over():
    over = ContainerResources("app", {CPU: Decimal(900)}, {CPU: Decimal(500)}, defaulted=frozenset({CPU}))
    assert limit_ranger.over_limits((over,)) == [Broken("app", CPU, "over", Decimal(500), "request", Decimal(900))]


# --- the platforms' records -------------------------------------------------------------------------------------------

def test_gke_reserves_255_mib_below_1_gib_and_its_tiers_from_1_gib():
    """plan-node-sizes: 255 MiB on machines with less than 1 GiB; 25% of the first 4 GiB from there (1 GiB: 256 MiB)."""
    assert managed.managed("gcp").kube_reserved({MEMORY: Decimal(GIB - MIB)}, 110)[MEMORY] == 255 * MIB
    assert managed.managed("gcp").kube_reserved({MEMORY: Decimal(GIB)}, 110)[MEMORY] == 256 * MIB


def test_aks_reserves_cpu_by_its_tiers_and_memory_by_its_pods():
    """node-resource-reservations: 60m + 40m for two cores; the lesser of 20 MB x 30 Pods + 50 MB = 650 MB and 25%."""
    reserved = managed.managed("azure").kube_reserved({CPU: Decimal(2000), MEMORY: Decimal(8 * GIB)}, 30)
    assert reserved == {CPU: 100, MEMORY: 650 * 1000**2}
    assert managed.managed("azure").kube_reserved({MEMORY: Decimal(GIB)}, 30) == {MEMORY: GIB // 4}


def test_a_platform_the_pack_models_nothing_of_is_the_kubelets():
    assert managed.managed(None) is managed.KUBELET
    assert managed.managed("openstack") is managed.KUBELET
    assert managed.managed("openstack").kube_reserved({CPU: Decimal(4000)}, 110) == {}


# --- the RuntimeClass plugin's merge (k8s.io/kubernetes plugin/pkg/admission/runtimeclass) ----------------------------

KATA = RuntimeScheduling({"sandbox": "kata"}, None)
EXISTS = {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}


def test_a_runtime_class_selector_is_merged_into_the_pods():
    assert runtime_class.with_runtime({"disk": "ssd"}, None, KATA, "Pod 'p'") == ({"disk": "ssd", "sandbox": "kata"},
                                                                                 None)
    assert runtime_class.with_runtime(None, None, KATA, "Pod 'p'") == ({"sandbox": "kata"}, None)
    assert runtime_class.with_runtime({"sandbox": "kata"}, None, KATA, "Pod 'p'") == ({"sandbox": "kata"}, None)
    assert runtime_class.with_runtime("not a selector", None, KATA, "Pod 'p'") == "not a selector"
    assert runtime_class.with_runtime({"disk": "ssd"}, None, RuntimeScheduling({}, None), "Pod 'p'") == \
        ({"disk": "ssd"}, None)


def test_a_runtime_class_selector_that_disagrees_is_not_judged():
    clash = runtime_class.with_runtime({"sandbox": "gvisor", "disk": "ssd"}, None, KATA, "Pod 'p'")
    assert isinstance(clash, Unknown)
    assert format(clash.words) == (
        "Pod 'p': its nodeSelector and its RuntimeClass's disagree on 'sandbox': the RuntimeClass admission plugin "
        "rejects such a Pod, so where it runs is not judged")
    late = RuntimeScheduling(UNKNOWN, None)
    assert runtime_class.with_runtime({"disk": "ssd"}, None, late, "Pod 'p'") is UNKNOWN


def test_a_runtime_class_tolerations_are_merged_into_the_pods():
    with_class = RuntimeScheduling(None, [EXISTS])
    assert runtime_class.with_runtime(None, None, with_class, "Pod 'p'") == (None, [EXISTS])
    assert runtime_class.with_runtime(None, [TAINT], with_class, "Pod 'p'") == (None, [EXISTS])
    other = {"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}
    assert runtime_class.with_runtime(None, [other], with_class, "Pod 'p'") == (None, [other, EXISTS])
    assert runtime_class.with_runtime(None, "not a list", with_class, "Pod 'p'") == (None, "not a list")
    assert runtime_class.with_runtime(None, [other], RuntimeScheduling(None, []), "Pod 'p'") == (None, [other])
    assert runtime_class.with_runtime(None, [other], RuntimeScheduling(None, "bad"), "Pod 'p'") == (None, [other])


def test_merge_tolerations_keeps_the_first_of_equal_ones_and_leaves_what_it_cannot_read():
    first, again = dict(TAINT), dict(TAINT)
    (kept,) = merge_tolerations([first, again])
    assert kept is first
    assert merge_tolerations([TAINT, "bad"]) == [TAINT, "bad"]


def test_two_limit_ranges_that_default_differently_leave_the_default_undecided():
    one = LimitRange("urn:a", "a", "team", "p", {CPU: Decimal(250)}, {CPU: Decimal(500)})
    two = LimitRange("urn:b", "b", "team", "p", {CPU: Decimal(300)}, {CPU: Decimal(500)})
    admit = limit_ranger.prepare(_Stack([one, two]))
    assert admit(_Workload("urn:w", "team")).defaults == Defaults({CPU: None}, {CPU: Decimal(500)})


def test_limit_ranger_admits_each_resource_of_each_container_on_its_own():
    """A resource whose default is undecided is left as written (and marked), the next one still takes its default;
    an init container stays one."""
    defaults = Defaults({CPU: None, MEMORY: Decimal(64 * MIB)}, {})
    (admitted,) = limit_ranger.admitted_containers((ContainerResources("init", {}, {}, init=True),), defaults)
    assert admitted == ContainerResources("init", {MEMORY: Decimal(64 * MIB)}, {}, True, frozenset({CPU}))


def test_a_limit_range_keeps_its_provider():
    read = limit_ranger.parse_limit_range("urn:lr", "n", {"metadata": {"name": "w"}, "spec": {"limits": []}}, "p")
    assert (read.name, read.provider) == ("w", "p")


def test_gke_reserves_cpu_by_its_tiers():
    """plan-node-sizes: 6% of the first core, 1% of the second, 0.5% of cores 3 and 4: 60 + 10 + 5 + 5 = 80m of 4."""
    assert managed.managed("gcp").kube_reserved({CPU: Decimal(4000)}, 110) == {CPU: 80}


def test_limit_ranger_defaults_each_resource_a_container_does_not_write():
    """A container that writes a CPU limit and no memory limit takes the default memory limit (and the default
    requests of both, by its own limit for CPU)."""
    defaults = Defaults({CPU: Decimal(100), MEMORY: Decimal(64 * MIB)}, {CPU: Decimal(500), MEMORY: Decimal(GIB)})
    (admitted,) = limit_ranger.admitted_containers((ContainerResources("app", {}, {CPU: Decimal(1000)}),), defaults)
    assert admitted.limits == {CPU: Decimal(1000), MEMORY: Decimal(GIB)}
    assert admitted.defaulted == frozenset({MEMORY})
