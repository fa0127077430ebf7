"""A Pod's request, as Kubernetes computes it, and Kubernetes quantities.

The cases are Kubernetes' own: the quantity grammar of k8s.io/apimachinery (resource.Quantity), and
the effective requests of the init-container and sidecar-container documentation (and of
component-helpers' resource.PodRequests). Every expected number is worked out here by hand.
"""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compute_guard.policies.model.labels import HOSTNAME
from compute_guard.policies.model.pods import (
    extended_resources,
    pod_request,
    repel_key,
    repels_itself,
    replicas,
    selects,
)
from compute_guard.policies.model.values import REDACTED, SecretText, Unknown, undetermined
from compute_guard.policies.platforms.quantity import amount, parse_quantity

MI = 1024**2
GI = 1024**3


@pytest.mark.parametrize(("text", "value"), [
    ("0", 0), ("0m", 0), ("0Ki", 0), ("500m", Decimal("0.5")), ("0.5", Decimal("0.5")), (".5", Decimal("0.5")),
    ("1.", 1), ("+1", 1), ("-1", -1), ("128Mi", 128 * MI), ("1Gi", GI), ("1.5Gi", 3 * GI // 2), ("1G", 10**9),
    ("1k", 1000), ("1M", 10**6), ("1T", 10**12), ("1P", 10**15), ("1E", 10**18), ("1Ei", 2**60), ("5Ti", 5 * 2**40),
    ("1e3", 1000), ("1E3", 1000), ("1e-3", Decimal("0.001")), ("2E+2", 200), ("100n", Decimal("1e-7")),
    ("250u", Decimal("0.00025")), (2, 2), (0.25, Decimal("0.25")),
])
def test_quantities_kubernetes_accepts(text, value):
    assert parse_quantity(text) == Decimal(value)


@pytest.mark.parametrize("text", [
    "", " 1", "1 ", "1Ki ", "1.1.1", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "1e", "1E+",
    "1K", "1KB", "1kb", "1Mb", "1gi", "NaN", "Infinity", "1_000", "0x10", "1e1.5", "m", "Mi", ".", "+", True, None,
    float("nan"), float("inf"), [], {},
])
def test_quantities_the_api_server_refuses(text):
    assert parse_quantity(text) is None


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "Gi"]))
def test_a_whole_number_with_any_suffix_scales_by_the_suffix(number, suffix):
    scale = {"": 1, "m": Decimal("0.001"), "k": 10**3, "M": 10**6, "G": 10**9, "Ki": 2**10, "Mi": 2**20,
             "Gi": 2**30}[suffix]
    assert parse_quantity(f"{number}{suffix}") == number * scale


def test_amounts_read_in_human_units():
    assert [amount("cpu", Decimal(v)) for v in (2000, 1000, 1930, 500, Decimal("82.5"), 95500, 10001)] == [
        "2 cores", "1 core", "1930m", "500m", "82.5m", "95.5 cores", "10.001 cores"]
    assert [amount("memory", Decimal(v)) for v in (2 * GI, 1572 * MI, 10**9, 20 * GI + 5, 1536, 12)] == [
        "2 GiB", "1572 MiB", "953.67 MiB", "20 GiB", "1.5 KiB", "12 bytes"]


# --- the Pod request ----------------------------------------------------------------------------

def container(name, requests=None, limits=None, restart=None):
    result = {"name": name, "image": "x"}
    resources = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    if resources:
        result["resources"] = resources
    if restart:
        result["restartPolicy"] = restart
    return result


def cpu_of(spec):
    return pod_request(spec, "spec").get("cpu")


def test_app_containers_add_up():
    spec = {"containers": [container("a", {"cpu": "100m", "memory": "64Mi"}), container("b", {"cpu": "0.2"})]}
    request = pod_request(spec, "spec")
    assert (request.get("cpu"), request.get("memory"), request.get("ephemeral-storage")) == (300, 64 * MI, 0)


def test_a_limit_stands_for_a_missing_request():
    spec = {"containers": [container("a", limits={"cpu": "1", "memory": "1Gi"}),
                           container("b", {"cpu": "250m"}, {"cpu": "2", "memory": "2Gi"})]}
    request = pod_request(spec, "spec")
    assert request.get("cpu") == 1000 + 250  # b's own request wins over its limit
    assert request.get("memory") == GI + 2 * GI  # b requests no memory: its limit stands for it


def test_the_init_container_documentation_example():
    """kubernetes.io/docs/concepts/workloads/pods/init-containers, 'Resource sharing within containers':
    the larger of the sum of the app containers and the largest init container."""
    spec = {"initContainers": [container("init1", {"cpu": "2"}), container("init2", {"cpu": "1"})],
            "containers": [container("app1", {"cpu": "500m"}), container("app2", {"cpu": "700m"})]}
    assert cpu_of(spec) == 2000
    spec["initContainers"] = [container("init1", {"cpu": "1"})]
    assert cpu_of(spec) == 1200


def test_sidecars_run_beside_the_app_and_the_init_containers_after_them():
    """Sidecar containers (init containers with restartPolicy Always), as in KEP-753 and
    resource.PodRequests: sidecar1 1, init1 2, sidecar2 3, app 4 -> max(4 + 1 + 3, 2 + 1) = 8 cores."""
    spec = {"initContainers": [container("sidecar1", {"cpu": "1"}, restart="Always"), container("init1", {"cpu": "2"}),
                               container("sidecar2", {"cpu": "3"}, restart="Always")],
            "containers": [container("app", {"cpu": "4"})]}
    assert cpu_of(spec) == 8000
    # an init container after a sidecar runs beside it: 1 + 10 beats 1 + 3 + 4
    spec["initContainers"][1] = container("init1", {"cpu": "10"})
    assert cpu_of(spec) == 11000
    # a big init container before any sidecar runs alone
    spec["initContainers"] = [container("init0", {"cpu": "9"}), *spec["initContainers"][::2]]
    assert cpu_of(spec) == 9000


def test_pod_level_requests_replace_the_containers_for_cpu_and_memory_and_overhead_adds():
    spec = {"containers": [container("a", {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"})],
            "resources": {"requests": {"cpu": "2"}, "limits": {"memory": "3Gi"}},
            "overhead": {"cpu": "250m", "memory": "120Mi"}}
    request = pod_request(spec, "spec")
    assert request.get("cpu") == 2000 + 250
    assert request.get("memory") == 3 * GI + 120 * MI  # the pod-level limit stands for its request
    assert request.get("ephemeral-storage") == GI  # pod-level resources cover cpu and memory only


def test_requests_round_up_to_whole_millicores_and_bytes():
    spec = {"containers": [container("a", {"cpu": "0.0001", "memory": "0.5"})]}
    request = pod_request(spec, "spec")
    assert (request.get("cpu"), request.get("memory")) == (1, 1)


def test_gpus_count_as_devices_of_their_vendor():
    spec = {"containers": [container("a", limits={"nvidia.com/gpu": 2}), container("b", {"amd.com/gpu": "1"})]}
    request = pod_request(spec, "spec")
    assert (request.get("nvidia.com/gpu"), request.get("amd.com/gpu")) == (2, 1)


def test_malformed_quantities_name_their_field_and_count_as_nothing():
    spec = {"containers": [container("a", {"cpu": "1 core", "memory": "-1Gi"}, {"nvidia.com/gpu": "0.5"})],
            "initContainers": [container("i", {"memory": SecretText("lots")})], "overhead": {"cpu": "x"}}
    request = pod_request(spec, "spec.template.spec")
    assert [(bad.field, bad.value, bad.problem) for bad in request.bad] == [
        ("spec.template.spec.containers[0].resources.requests['cpu']", "1 core", "malformed"),
        ("spec.template.spec.containers[0].resources.requests['memory']", "-1Gi", "negative"),
        ("spec.template.spec.containers[0].resources.limits['nvidia.com/gpu']", "0.5", "fraction"),
        ("spec.template.spec.initContainers[0].resources.requests['memory']", None, "malformed"),  # secret: not shown
        ("spec.template.spec.overhead['cpu']", "x", "malformed")]
    assert request.get("cpu") == 0 and request.get("memory") == 0


def test_unknown_values_make_only_their_resource_unknown():
    unknown = undetermined("not yet")
    spec = {"containers": [container("a", {"cpu": unknown, "memory": "1Gi"})]}
    request = pod_request(spec, "spec")
    assert set(request.unknown) == {"cpu"} and request.get("memory") == GI
    everything = pod_request({"containers": unknown}, "spec")
    assert set(everything.unknown) == {"cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "amd.com/gpu",
                                       "gpu.nvidia.com", "mig.nvidia.com"}
    restart = pod_request({"containers": [container("a", {"cpu": "1"})],
                           "initContainers": [{"name": "i", "restartPolicy": unknown}]}, "spec")
    assert "cpu" in restart.unknown and isinstance(restart.unknown["cpu"], Unknown)


def test_secret_quantities_are_marked_secret():
    request = pod_request({"containers": [container("a", {"cpu": SecretText("2"), "memory": "1Gi"})]}, "spec")
    assert request.get("cpu") == 2000 and request.secret == {"cpu"}


# --- replicas and anti-affinity -----------------------------------------------------------------

@pytest.mark.parametrize(("kind", "props", "count"), [
    ("Deployment", {"spec": {"replicas": 4}}, 4),
    ("Deployment", {"spec": {}}, 1),
    ("StatefulSet", {"spec": {"replicas": 0.0}}, 0),
    ("Deployment", {"spec": {"replicas": 1.5}}, None),
    ("Deployment", {"spec": {"replicas": -1}}, None),
    ("Job", {"spec": {"parallelism": 5}}, 5),
    ("Job", {"spec": {"parallelism": 5, "completions": 2}}, 2),
    ("Job", {"spec": {}}, 1),
    ("CronJob", {"spec": {"jobTemplate": {"spec": {"parallelism": 3}}}}, 3),
    ("Pod", {"spec": {"replicas": 9}}, 1),
    ("PodTemplate", {}, 0),
])
def test_replicas_per_kind(kind, props, count):
    assert replicas(kind, props).count == count


def test_a_job_whose_completions_are_not_known_yet_runs_its_parallelism():
    unknown = undetermined("not known during preview")
    assert replicas("Job", {"spec": {"parallelism": 3, "completions": unknown}}).count == 3
    assert replicas("Job", {"spec": {"parallelism": unknown, "completions": 2}}).count == unknown


LABELS = {"app": "db", "tier": "data"}
TEMPLATE = {"metadata": {"labels": LABELS}}
REPEL = {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "db"}}}


def anti(*terms):
    return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}}


@pytest.mark.parametrize(("term", "repels"), [
    (REPEL, True),
    ({**REPEL, "topologyKey": "topology.kubernetes.io/zone"}, False),
    ({**REPEL, "labelSelector": {"matchLabels": {"app": "web"}}}, False),
    ({**REPEL, "labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["data"]}]}}, True),
    ({**REPEL, "labelSelector": {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["data"]}]}},
     False),
    ({**REPEL, "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}}, True),
    ({**REPEL, "labelSelector": {"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]}}, True),
    ({**REPEL, "labelSelector": {}}, True),  # an empty selector matches every Pod
    ({"topologyKey": "kubernetes.io/hostname"}, False),  # a null selector matches none
    ({**REPEL, "namespaces": ["other"]}, False),
    ({**REPEL, "namespaces": ["prod"]}, True),
    ({**REPEL, "namespaceSelector": {}}, True),  # every namespace
    ({**REPEL, "namespaceSelector": {"matchLabels": {"team": "a"}}}, False),  # not known here
    ({**REPEL, "mismatchLabelKeys": ["app"]}, False),
])
def test_pods_that_repel_each_other_on_the_hostname(term, repels):
    assert repels_itself(anti(term), TEMPLATE, "prod") is repels


def test_the_key_pods_repel_on_is_written_as_the_hostname_or_secret_when_the_program_marked_it_so():
    """A message names the key its Pods repel each other on; a secret one reads [secret], never the value it holds
    (that the verdict holds tells only that it is the hostname)."""
    assert repel_key(anti(REPEL)) == HOSTNAME
    assert repel_key(anti({**REPEL, "topologyKey": SecretText(HOSTNAME)})) == REDACTED
    assert repel_key(anti(REPEL, {**REPEL, "topologyKey": SecretText(HOSTNAME)})) == REDACTED
    assert repel_key({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {**REPEL, "topologyKey": SecretText(HOSTNAME)}]}}}) == HOSTNAME  # affinity, not anti-affinity
    assert repel_key({"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": undetermined("terms")}}}) == HOSTNAME


def test_preferred_anti_affinity_and_unknown_labels_never_repel():
    preferred = {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": REPEL}]}}}
    assert repels_itself(preferred, TEMPLATE, None) is False
    assert repels_itself(anti(REPEL), {"metadata": {"labels": undetermined("labels")}}, None) is False
    assert repels_itself(anti(REPEL), {"metadata": undetermined("metadata")}, None) is False
    assert selects({"matchLabels": {"app": undetermined("x")}}, LABELS) is False


def test_amounts_beyond_what_kubernetes_counts_are_refused_not_computed():
    spec = {"containers": [container("a", {"memory": "1e30", "cpu": "9223372036854775807"})]}
    request = pod_request(spec, "spec")
    assert [(bad.field, bad.value, bad.problem) for bad in request.bad] == [
        ("spec.containers[0].resources.requests['cpu']", "9223372036854775807", "too large"),  # in millicores
        ("spec.containers[0].resources.requests['memory']", "1e30", "too large")]
    fits = pod_request({"containers": [container("a", {"memory": str(2**63 - 1)})]}, "spec")
    assert fits.bad == () and fits.get("memory") == 2**63 - 1
    assert replicas("Deployment", {"spec": {"replicas": 2**31 - 1}}).count == 2**31 - 1
    assert replicas("Deployment", {"spec": {"replicas": 2**31}}).count is None  # an int32 the API server checks
    assert amount("memory", Decimal(10) ** 40) == "1.000E+40"  # never raises, however large


def test_a_selector_whose_match_labels_are_not_a_map_matches_nothing():
    assert selects({"matchLabels": "app=db"}, LABELS) is False
    assert selects({"matchLabels": {}}, LABELS) is True


def test_selectors_with_values_not_known_yet_match_nothing():
    assert selects({"matchExpressions": undetermined("later")}, LABELS) is False
    unknown_option = {"key": "app", "operator": "In", "values": ["db", undetermined("x")]}
    assert selects({"matchExpressions": [unknown_option]}, LABELS) is False
    assert selects({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]}, LABELS) is True
    assert selects({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]}, LABELS) is True
    assert selects({"matchExpressions": [{"key": "app", "operator": "Gt", "values": ["1"]}]}, LABELS) is False


def test_sizes_round_to_two_decimals_of_their_unit():
    assert [amount("memory", Decimal(v)) for v in (GI + 1, 10 * GI + GI // 2, 9 * GI + GI // 2, MI + 5)] == [
        "1024 MiB", "10.5 GiB", "9728 MiB", "1 MiB"]


def test_a_workloads_placement_labels_are_found_past_places_that_do_not_set_them():
    """The mutation sample's survivors in policies/model/workloads.py: _label looks at every place (the workload's
    labels and annotations, then its template's), past those that lack the key, are not mappings or are not known;
    and a role the labels disagree on reads None, the documented "cannot be read" (not an empty role)."""
    from compute_guard.policies.model.workloads import CLUSTER_KEY, POOL_KEY, ROLE_KEY, LabelsDisagree, parse_workload

    def workload(metadata, template_metadata):
        props = {"metadata": metadata, "spec": {"template": {"metadata": template_metadata, "spec": {
            "containers": [{"name": "a", "image": "i"}]}}}}
        return parse_workload("kubernetes:apps/v1:Deployment", props, "urn:api", "api")

    on_template = {"labels": {CLUSTER_KEY: "compute", POOL_KEY: "batch"}}
    for metadata in ({"labels": {"app": "api"}}, {"labels": "not a mapping"}, {"annotations": {"team": "a"}},
                     {"labels": {"app": "api"}, "annotations": {"note": "x"}}):
        found = workload(metadata, on_template)
        assert (found.cluster, found.pool) == ("compute", "batch"), metadata
    disagreeing = workload({"labels": {ROLE_KEY: "worker"}}, {"labels": {ROLE_KEY: "dynamic"}})
    assert disagreeing.role is None
    assert any(isinstance(problem, LabelsDisagree) for problem in disagreeing.problems)


_LABEL_KEYS = ("compute.alien.dev/workload", "compute.alien.dev/cluster", "compute.alien.dev/pool", "app")
_MAPS = st.none() | st.dictionaries(st.sampled_from(_LABEL_KEYS), st.sampled_from(
    ["container", "daemon", "worker", "dynamic", "unknown-role", "compute", "batch"]) | st.integers(0, 2), max_size=3)


@given(places=st.lists(_MAPS, min_size=4, max_size=4), kind=st.sampled_from(["Deployment", "DaemonSet"]))
def test_a_workload_read_from_a_states_plain_dicts_is_read_as_from_a_previews_props(places, kind):
    """Another stack's workloads arrive as a state's plain dicts, and most carry no compute.alien.dev label: their
    labels are then not read one by one (issue 67). The oracle: the same workload read through mappings that are not
    dicts (as a preview's props are), label by label: the same role, cluster, pool and problems."""
    from types import MappingProxyType

    from compute_guard.policies.model.workloads import parse_workload

    def proxied(value):
        if isinstance(value, dict):
            return MappingProxyType({key: proxied(item) for key, item in value.items()})
        return value

    labels, annotations, template_labels, template_annotations = places
    props = {"metadata": {"name": "api", "labels": labels, "annotations": annotations},
             "spec": {"template": {"metadata": {"labels": template_labels, "annotations": template_annotations},
                                   "spec": {"containers": [{"name": "a", "image": "i"}]}}}}
    resource_type = f"kubernetes:apps/v1:{kind}"
    plain, read = (parse_workload(resource_type, found, "urn:api", "api") for found in (props, proxied(props)))
    assert (plain.role, plain.cluster, plain.pool, plain.problems) == (read.role, read.cluster, read.pool, read.problems)


def test_what_a_workload_reads_of_its_pods_is_read_once_and_kept_per_workload(monkeypatch):
    """A workload's facts are read the first time a policy asks and kept on that workload (policies 1-20 ask for
    them again and again; a large stack holds thousands of workloads, so they are slotted)."""
    from compute_guard.policies.model import workloads

    reads: list[object] = []
    real = workloads.pod_request
    monkeypatch.setattr(workloads, "pod_request",
                        lambda spec, path, *more: reads.append(spec) or real(spec, path, *more))
    spec = {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}
    first = workloads.parse_workload("kubernetes:core/v1:Pod", {"spec": spec}, "urn:a", "a")
    second = workloads.parse_workload("kubernetes:core/v1:Pod", {"spec": dict(spec, containers=[])}, "urn:b", "b")
    assert first is not None and second is not None and not hasattr(first, "__dict__")
    assert first.request is first.request and first.request.get("cpu") == Decimal(1000)
    assert second.request.get("cpu") == Decimal(0) and len(reads) == 2
    assert workloads.Workload.request.__doc__ and "request" in workloads.Workload.request.name


def test_equal_plain_node_selectors_are_one_object_and_a_secret_one_is_never_shared():
    """Thousands of workloads share a few nodeSelectors, kept once (BENCHMARKS.md, memory); a secret value equals its
    text, so sharing by equality would hand a secret selector a plain dict, or a plain one the secret's."""
    from compute_guard.policies.model.values import is_secret, secret
    from compute_guard.policies.model.workloads import parse_workload

    def selector_of(value, name):
        spec = {"containers": [{"name": "a", "image": "i"}], "nodeSelector": {"kubernetes.io/arch": value}}
        workload = parse_workload("kubernetes:core/v1:Pod", {"spec": spec}, f"urn:{name}", name)
        assert workload is not None
        return workload.node_selector

    plain_one, plain_two = selector_of("amd64", "a"), selector_of("amd64", "b")
    assert plain_one == {"kubernetes.io/arch": "amd64"} and plain_one is plain_two
    hidden = selector_of(secret("amd64"), "c")
    assert hidden is not plain_one and is_secret(hidden["kubernetes.io/arch"])
    assert selector_of(secret("amd64"), "d") is not hidden  # a secret selector is never kept for another
    assert not is_secret(selector_of("amd64", "e")["kubernetes.io/arch"])


def test_the_extended_resources_a_pod_requests_are_the_admission_plugins():
    """ExtendedResourceToleration reads every container's and init container's requests and limits, and takes a name
    that is an extended resource: one with a domain that is not kubernetes.io/'s, and not a quota name (requests.)."""
    spec = {"containers": [
        {"name": "a", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1", "hugepages-2Mi": "1Gi"}}},
        {"name": "b", "resources": {"limits": {"aws.amazon.com/neuron": "1", "example.kubernetes.io/thing": "1"}}}],
        "initContainers": [{"name": "c", "resources": {"limits": {"requests.example.com/x": "1",
                                                                    "example.com/fpga": "1"}}}]}
    assert extended_resources(spec) == frozenset({"nvidia.com/gpu", "aws.amazon.com/neuron", "example.com/fpga"})
    assert extended_resources({"containers": [{"name": "a"}]}) == frozenset()
    later = undetermined("not known yet")
    assert extended_resources({"containers": [{"name": "a", "resources": {"limits": later}}]}) is later
    assert extended_resources({"containers": later}) is later
    assert extended_resources(later) is later


def test_a_quantity_text_judged_once_is_each_pods_own():
    """A plain quantity's text is judged once per resource (thousands of Pods request "100m"): each Pod still gets
    its own field in a refusal, and a text whose digits outrun Decimal's precision is judged at the precision it is
    read at (the oracle: the amount worked out afresh in that context)."""
    from decimal import ROUND_CEILING, localcontext

    from compute_guard.policies.platforms.quantity import exact

    def spec(cpu):
        return {"containers": [{"name": "a", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}

    first, second = pod_request(spec("12x"), "spec.a"), pod_request(spec("12x"), "spec.b")
    assert [bad.field for bad in first.bad + second.bad] == [
        "spec.a.containers[0].resources.requests['cpu']", "spec.b.containers[0].resources.requests['cpu']"]
    assert all(bad.problem == "malformed" and bad.value == "12x" for bad in first.bad + second.bad)
    long = "123456789012.1230000000000000000001"  # 34 significant digits: 28 drop the last, which rounds it up
    with localcontext(prec=28):
        default = pod_request(spec(long), "spec").get("cpu")
        assert default == (+Decimal(long) * 1000).to_integral_value(rounding=ROUND_CEILING) == 123456789012123
    with exact():
        precise = pod_request(spec(long), "spec").get("cpu")
        assert precise == (Decimal(long) * 1000).to_integral_value(rounding=ROUND_CEILING) == 123456789012124


_UNKNOWNS = [undetermined("a"), undetermined("b")]
_VALUES = st.recursive(st.none() | st.text(max_size=2) | st.integers() | st.booleans() | st.sampled_from(_UNKNOWNS),
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner,
                                                                                    max_size=3), max_leaves=12)


@given(value=_VALUES)
def test_a_plain_values_first_unknown_and_its_copy(value):
    """values.first_unknown and values.plain on a state's plain dicts and lists (their fast paths): the first unknown in
    depth-first order (the oracle walks it here), and an equal copy that shares no dict or list with the original."""
    from compute_guard.policies.model.values import first_unknown, plain

    def walk(found):
        if isinstance(found, Unknown):
            yield found
        elif isinstance(found, dict):
            for item in found.values():
                yield from walk(item)
        elif isinstance(found, list):
            for item in found:
                yield from walk(item)

    assert first_unknown(value) is next(walk(value), None)
    copied = plain(value)
    assert copied == value

    def containers(found):
        if isinstance(found, (dict, list)):
            yield id(found)
            for item in found.values() if isinstance(found, dict) else found:
                yield from containers(item)

    assert not set(containers(copied)) & set(containers(value))
