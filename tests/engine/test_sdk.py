"""policies/adapters/props.py and sdk.py: the lazy props read exactly as the SDK's proxies do, on any document; the
patch is installed and undone explicitly, refuses an SDK it does not know, and changes no result at any SDK call
site it touches."""

import ast
import contextlib
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi_policy.proxy
import pytest
from builders import valid_cluster_props
from google.protobuf import json_format, struct_pb2
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi.runtime import proto
from pulumi_policy import deserialize
from pulumi_policy import policy as sdk_policy
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UNKNOWN_OBJECT_VALUE, UNKNOWN_STRING_VALUE, UnknownValueError

from compute_guard.policies.adapters import props as lazy_props
from compute_guard.policies.adapters import sdk
from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment, to_struct

SECRET = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
leaves = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5),
                   st.sampled_from([UNKNOWN_STRING_VALUE, UNKNOWN_NUMBER_VALUE, UNKNOWN_OBJECT_VALUE]))
documents = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4),
    inner.map(lambda v: dict(SECRET, value=v))), max_leaves=25)


def sdk_props(struct: struct_pb2.Struct) -> Any:
    return lazy_props._sdk_proxy(deserialize.deserialize_properties(json_format.MessageToDict(struct)))


def read(container: Any, key: Any) -> tuple[str, Any]:
    try:
        return "value", container[key]
    except UnknownValueError as error:
        return "unknown", error.message


def assert_same(sdk: Any, lazy: Any) -> None:
    if isinstance(sdk, Mapping):
        assert isinstance(lazy, Mapping) and not isinstance(lazy, dict)
        assert list(sdk) == list(lazy) and len(sdk) == len(lazy)
        for key in sdk:
            (kind, a), (other, b) = read(sdk, key), read(lazy, key)
            assert kind == other
            assert_same(a, b) if kind == "value" else None
            if kind == "unknown":
                assert a == b  # same message, same path
    elif isinstance(sdk, Sequence) and not isinstance(sdk, str):
        assert isinstance(lazy, Sequence) and not isinstance(lazy, str) and len(sdk) == len(lazy)
        for index in range(len(sdk)):
            (kind, a), (other, b) = read(sdk, index), read(lazy, index)
            assert kind == other and (a == b if kind == "unknown" else True)
            if kind == "value":
                assert_same(a, b)
    else:
        # the same value; where the program marked it secret, a subclass that never prints it
        assert isinstance(lazy, type(sdk)) and sdk == lazy
        if type(lazy) is not type(sdk):
            assert f"{lazy}" == "[secret]" and repr(lazy) == "[secret]"


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=4), documents, max_size=5))
def test_lazy_props_read_like_the_sdk_proxies(document):
    struct = struct_pb2.Struct()
    struct.update(document)
    assert_same(sdk_props(struct), lazy_props.StructProps(struct))


def test_assets_and_archives_read_as_the_sdk_builds_them():
    struct = struct_pb2.Struct()
    struct.update({
        "text": {"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17", "text": "hi"},
        "file": {"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17", "path": "values.yaml"},
        "archive": {"4dabf18193072939515e22adb298388d": "0def7320c3a5731c473e5ecbe6d01bc7", "assets": {}}})
    sdk_view, lazy = sdk_props(struct), lazy_props.StructProps(struct)
    for key in ("text", "file", "archive"):
        assert type(lazy[key]) is type(sdk_view[key]) and vars(lazy[key]) == vars(sdk_view[key])
    assert lazy["text"].text == "hi" and lazy["file"].path == "values.yaml"


def test_in_and_get_raise_on_unknowns_like_the_sdk():
    struct = struct_pb2.Struct()
    struct.update({"a": UNKNOWN_STRING_VALUE, "b": 1})
    for props in (sdk_props(struct), lazy_props.StructProps(struct)):
        for probe in (lambda p: "a" in p, lambda p: p.get("a"), lambda p: list(p.items())):
            try:
                probe(props)
                raised = False
            except UnknownValueError:
                raised = True
            assert raised
        assert "b" in props and "zzz" not in props and props.get("zzz") is None


def test_secrets_are_marked_and_plain_values_are_not():
    struct = struct_pb2.Struct()
    struct.update({"s": dict(SECRET, value="hunter2"), "n": dict(SECRET, value=7), "p": "plain", "b": dict(SECRET, value=True)})
    props = lazy_props.StructProps(struct)
    assert props["s"] == "hunter2" and f"{props['s']}" == "[secret]" and f"x{props['n']}x" == "x[secret]x"
    assert props["n"] == 7 and props["n"] + 1 == 8
    assert f"{props['p']}" == "plain" and props["b"] is True


def test_objects_at_one_path_share_its_path_and_an_unknown_below_them_names_it(monkeypatch):
    """What a large stack keeps of each workload (its pod template and spec) shares one tuple per path; past the
    limit of shared paths each object makes its own, and an unknown value's path is the SDK's either way."""
    struct = struct_pb2.Struct()
    struct.update({"spec": [{"template": {"x": UNKNOWN_STRING_VALUE}}, {"template": {"x": 1}}]})
    first, second = (lazy_props.StructProps(struct)["spec"][i]["template"] for i in (0, 1))
    again = lazy_props.StructProps(struct)["spec"][0]["template"]
    assert first._path == ("spec", "0", "template") and again._path is first._path
    assert second._path == ("spec", "1", "template") and second._path is not first._path
    monkeypatch.setattr(lazy_props, "_PATHS", {})
    monkeypatch.setattr(lazy_props, "_MOST_PATHS", 2)
    made = [lazy_props.StructProps(struct)["spec"][0]["template"] for _ in range(2)]
    assert made[0]._path == made[1]._path and made[0]._path is not made[1]._path and len(lazy_props._PATHS) == 2
    paths = []
    for props in (sdk_props(struct), lazy_props.StructProps(struct)):
        try:
            props["spec"][0]["template"]["x"]
        except UnknownValueError as error:
            paths.append(error.props)
    assert paths == [["spec", "0", "template", "x"]] * 2


def test_config_copies_to_a_plain_dict():
    struct = struct_pb2.Struct()
    struct.update({"platform": "aws", "n": {"x": [1, 2]}})
    assert lazy_props.StructProps(struct).copy() == {"platform": "aws", "n": {"x": [1.0, 2.0]}}


def test_install_is_idempotent_and_only_for_the_pinned_sdk():
    assert sdk.install() is True
    assert sdk.install() is True
    assert sdk.SUPPORTED_SDK == __import__("pulumi_policy.version", fromlist=["VERSION"]).VERSION


SDK_NAMES = ("json_format", "deserialize_properties", "unknown_checking_proxy")


def test_uninstall_puts_the_sdk_back_and_install_patches_it_again():
    assert sdk.install() and sdk.is_installed()
    patched = [getattr(sdk_policy, name) for name in SDK_NAMES]
    with sdk.uninstalled():
        assert not sdk.is_installed()
        assert [getattr(sdk_policy, name) for name in SDK_NAMES] == [
            json_format, deserialize.deserialize_properties, pulumi_policy.proxy.unknown_checking_proxy]
    assert sdk.is_installed() and [getattr(sdk_policy, name) for name in SDK_NAMES] == patched


def test_another_sdk_version_changes_nothing_warns_in_the_pack_and_fails_under_test(monkeypatch):
    monkeypatch.setattr(sdk, "SDK_VERSION", "1.99.0")
    with sdk.uninstalled():
        assert sdk.install() is False and not sdk.is_installed()
        assert sdk_policy.json_format is json_format
        with pytest.raises(sdk.UnsupportedSDK, match="1.99.0"):
            sdk.install(strict=True)


def _sdk_call_sites() -> set[str]:
    """The SDK functions that call a name the shim replaces."""
    tree = ast.parse(inspect.getsource(sdk_policy))
    sites = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for inner in ast.walk(node):
                name = inner.id if isinstance(inner, ast.Name) else inner.attr if isinstance(inner, ast.Attribute) else None
                if name in SDK_NAMES:
                    sites.add(node.name)
    return sites


def test_the_sdk_uses_json_format_for_message_to_dict_alone():
    """The shim replaces the SDK's json_format with one that has MessageToDict only."""
    tree = ast.parse(inspect.getsource(sdk_policy))
    used = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "json_format"}
    assert used == {"MessageToDict"}


def test_every_sdk_call_site_the_shim_touches_is_covered_below():
    assert _sdk_call_sites() == {"Analyze", "AnalyzeStack", "Remediate", "Configure", "_get_provider_resource"}


CONFIG = {"workload-architecture-pin": {"enforcementLevel": "remediate", "architecture": "arm64"},
          "cloud-machine-catalog": {"platform": "aws"}, "compute-cluster-safe-update": "advisory"}


def _stack() -> list[Resource]:
    broken = valid_cluster_props()
    broken["capacityGroups"][0].update(instanceType="m7g.xlarg", maxSize=11)
    # requests too large for the pool, secret, not known yet and malformed (workload-fits-pool, pool-capacity)
    resources = {"requests": {"cpu": "3", "memory": dict(SECRET, value="1Gi"), "ephemeral-storage": UNKNOWN_STRING_VALUE},
                 "limits": {"nvidia.com/gpu": "1x"}}
    api = {"metadata": {"name": "api", "labels": {"compute.alien.dev/pool": "apps"}},
           "spec": {"replicas": 2, "template": {"spec": {"containers": [
               {"name": "api", "image": dict(SECRET, value="img"), "resources": resources}]}}}}
    logs = {"metadata": {"name": "logs"}, "spec": {"template": {"spec": {"containers": [
        {"name": "logs", "image": "img", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}}}
    hpa = {"metadata": {"name": "api"}, "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "api"},
                                                 "minReplicas": 4, "maxReplicas": 5}}
    worker = {"metadata": {"labels": {"compute.alien.dev/workload": "worker"}},
              "spec": {"template": {"spec": {"nodeSelector": {"kubernetes.io/arch": UNKNOWN_STRING_VALUE},
                                             "containers": [{"name": "w", "image": "img"}]}}}}
    return [Resource.of("compute:index:ComputeCluster", "compute", broken),
            Resource.of("kubernetes:apps/v1:Deployment", "api", api),
            Resource.of("kubernetes:apps/v1:StatefulSet", "worker", worker),
            Resource.of("kubernetes:apps/v1:DaemonSet", "logs", logs),
            Resource.of("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "api", hpa)]


def _run(shim: bool) -> Any:
    with contextlib.ExitStack() as stack:
        if not shim:
            stack.enter_context(sdk.uninstalled())
        stack.enter_context(stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True))
        analyzer = Analyzer(CONFIG, shim=shim)
        result = analyzer.run(_stack())
        provider = proto.AnalyzerProviderResource(type="pulumi:providers:kubernetes", urn="urn:provider", name="k8s",
                                          properties=to_struct({"kubeconfig": dict(SECRET, value="x")}))
        request = proto.AnalyzeRequest(type="kubernetes:apps/v1:Deployment", urn="urn:d", name="d",
                                       properties=to_struct({"spec": {"template": {"spec": {}}}}), provider=provider)
        with_provider = analyzer.servicer.Analyze(request, None)
    return result, json_format.MessageToDict(with_provider)


def test_configure_analyze_remediate_and_analyze_stack_give_the_sdks_results_through_the_shim():
    (fast, fast_provider), (plain, plain_provider) = _run(shim=True), _run(shim=False)
    assert fast.violations and fast.remediations and fast.notes and fast.not_applicable  # every path ran
    assert len(fast.of("workload-fits-pool")) == 2  # 3 cores on a 2-core node; a malformed GPU limit
    assert "workload-fits-pool" in {note.policy for note in fast.notes}  # the storage request is not known yet
    assert fast == plain
    assert fast_provider == plain_provider


def test_the_shim_replaces_three_calls_of_the_servicer_and_puts_them_back():
    """Besides reading props, the shim answers Remediate and Analyze at once where the SDK would run nothing, and
    builds AnalyzeStack's resources once: those three methods only, and uninstall restores the SDK's."""
    installed = {name: getattr(sdk.AnalyzerServicer, name) for name in vars(sdk.AnalyzerServicer)}
    with sdk.uninstalled():
        plain = {name: getattr(sdk.AnalyzerServicer, name) for name in vars(sdk.AnalyzerServicer)}
    assert {name for name in plain if installed[name] is not plain[name]} == {"Analyze", "AnalyzeStack", "Remediate"}


def test_the_stack_resources_built_once_read_as_the_ones_the_sdk_builds_for_each_policy():
    """Type, URN, name, props, provider, parent, dependencies and property dependencies: what the model reads of a
    stack policy's resources (policies/model/resources.py) through the shim is what it reads of the SDK's. The shim
    links URNs where the SDK links objects, and builds no options (no rule reads them)."""
    from pulumi_policy import EnforcementLevel, StackValidationPolicy

    from compute_guard.policies.model.resources import StackResource

    received: list[Any] = []
    policy = StackValidationPolicy(name="look", description="d", validate=lambda args, report: received.append(
        [(r.type, r.urn, r.name, _plain(r.props), r.provider, r.parent, r.dependencies, r.depends("s"),
          r.depends_all) for r in map(StackResource.of, args.resources)]))
    setattr(policy, sdk.SHARES_RESOURCES, True)
    provider = proto.AnalyzerProviderResource(type="pulumi:providers:kubernetes", urn="urn:p", name="p",
                                              properties=to_struct({"a": 1}))
    request = proto.AnalyzeStackRequest(resources=[
        proto.AnalyzerResource(type="t:a", urn="urn:a", name="a", properties=to_struct({"x": [1, {"y": "z"}]})),
        proto.AnalyzerResource(type="t:b", urn="urn:b", name="b", properties=to_struct({"s": dict(SECRET, value="v")}),
                               parent="urn:a", dependencies=["urn:a", "urn:gone"], provider=provider,
                               options=proto.AnalyzerResourceOptions(protect=True, parent="urn:a"),
                               propertyDependencies={"s": proto.AnalyzerPropertyDependencies(urns=["urn:a", "urn:x"])}),
    ])
    with stack_environment({}, "project", "stack", True):
        sdk.AnalyzerServicer("pack", "1.0.0", [policy], EnforcementLevel.MANDATORY).AnalyzeStack(request, None)
        with sdk.uninstalled():
            sdk.AnalyzerServicer("pack", "1.0.0", [policy], EnforcementLevel.MANDATORY).AnalyzeStack(request, None)
    fast, plain = received
    assert fast == plain and fast[1][4:] == ("urn:p", "urn:a", ("urn:a",), ("urn:a",), ("urn:a",))
    assert fast[0][4:] == (None, None, (), (), ())


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(value[key]) for key in value}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_plain(item) for item in value]
    return value


def _responses(shim: bool, config: Any, extra: list[Any]) -> list[Any]:
    """Every RPC's raw response over the stack plus Services and ConfigMaps (which no policy of the pack judges),
    with the pack's policies and ``extra`` SDK policies of an organisation's own."""
    from pulumi_policy import EnforcementLevel

    from compute_guard.policies import ALL, PackState, sdk_policies

    resources = [*_stack(), Resource.of("kubernetes:core/v1:Service", "web", {"spec": {"selector": {"app": "x"}}}),
                 Resource.of("kubernetes:core/v1:ConfigMap", "cfg", {"data": {"k": dict(SECRET, value="v")}})]
    with contextlib.ExitStack() as stack:
        if not shim:
            stack.enter_context(sdk.uninstalled())
        stack.enter_context(stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True))
        servicer = sdk.AnalyzerServicer("pack", "1.0.0", [*sdk_policies(list(ALL), PackState()), *extra],
                                        EnforcementLevel.MANDATORY)
        servicer.Configure(proto.ConfigureAnalyzerRequest(policyConfig={
            name: proto.PolicyConfig(enforcementLevel=proto.REMEDIATE if value == "remediate" else proto.MANDATORY)
            for name, value in config.items()}), None)
        requests = [proto.AnalyzeRequest(type=r.type, urn=r.urn, name=r.name, properties=r.inputs) for r in resources]
        answers = [servicer.Remediate(request, None) for request in requests]
        answers += [servicer.Analyze(request, None) for request in requests]
        answers.append(servicer.AnalyzeStack(proto.AnalyzeStackRequest(resources=[
            proto.AnalyzerResource(type=r.type, urn=r.urn, name=r.name, properties=r.outputs or r.inputs,
                                   parent=resources[0].urn if i else "", dependencies=[resources[0].urn] if i else [])
            for i, r in enumerate(resources)]), None))
    return [json_format.MessageToDict(answer) for answer in answers]


def test_each_rpc_answers_as_the_sdk_does_with_and_without_the_shims_shortcuts():
    """The same raw responses, byte for byte as JSON: by default (no policy at remediate: Remediate answered at
    once; Services and ConfigMaps answered at once), with a policy at remediate, and with an organisation's own
    resource and stack policies, which the shortcuts leave to the SDK (the resources are theirs to inspect)."""
    from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy

    seen: list[str] = []

    def every_resource(args: Any, report_violation: Any) -> None:
        seen.append(args.resource_type)
        report_violation(f"seen {args.resource_type}")

    def every_stack(args: Any, report_violation: Any) -> None:
        report_violation(f"{len(args.resources)} resources, parents {sum(r.parent is not None for r in args.resources)}")

    own = [ResourceValidationPolicy(name="org-every-resource", description="org", validate=every_resource),
           StackValidationPolicy(name="org-every-stack", description="org", validate=every_stack)]
    for config, extra in (({}, []), ({"workload-architecture-pin": "remediate"}, []), ({}, own)):
        fast, plain = _responses(True, config, extra), _responses(False, config, extra)
        assert fast == plain, (config, extra)
        assert any(answer.get("diagnostics") for answer in fast)
    assert "kubernetes:core/v1:Service" in seen  # the organisation's policy saw what the pack's do not judge


def test_a_new_configure_replans_which_policies_judge_a_type_and_at_what_level():
    """The shim plans which resource policies judge a type once per Configure (policies/adapters/sdk.py _judging):
    a Configure that lowers, disables or raises a policy between requests is seen by the next request."""
    bad = Resource.of("kubernetes:apps/v1:Deployment", "legacy", {"spec": {"template": {"spec": {
        "containers": [{"name": "c", "image": "i"}], "nodeSelector": {"kubernetes.io/arch": "x86_64"}}}}})
    policy = "workload-architecture-selector-valid"
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        analyzer = Analyzer()
        assert [v.level for v in analyzer.analyze(bad).violations if v.policy == policy] == ["mandatory"]
        analyzer.configure({policy: "advisory"})
        assert [v.level for v in analyzer.analyze(bad).violations if v.policy == policy] == ["advisory"]
        analyzer.configure({policy: "disabled"})
        assert [v.policy for v in analyzer.analyze(bad).violations] == []
        analyzer.configure({policy: "remediate"})  # a remediated resource still failing counts as mandatory
        assert [v.level for v in analyzer.analyze(bad).violations if v.policy == policy] == ["mandatory"]
        analyzer.configure({})
        assert [v.level for v in analyzer.analyze(bad).violations if v.policy == policy] == ["mandatory"]


def test_the_runtime_is_configured_again_when_what_it_reads_changes(monkeypatch):
    """The SDK configures the Pulumi runtime from the environment on every request; the shim does it when the
    environment changed since this thread last did, so the runtime holds what the SDK's path would set."""
    import pulumi
    import pulumi.runtime

    deployment = Resource.of("kubernetes:apps/v1:Deployment", "api", {"spec": {"template": {"spec": {
        "containers": [{"name": "c", "image": "i"}], "nodeSelector": {"kubernetes.io/arch": "amd64"}}}}})
    with stack_environment({"compute:platform": "kubernetes", "team:owner": "a"}, "project", "stack", True):
        analyzer = Analyzer()
        analyzer.analyze(deployment)
        assert pulumi.runtime.get_config("team:owner") == "a"
        monkeypatch.setenv("PULUMI_CONFIG", '{"compute:platform": "kubernetes", "team:owner": "b"}')
        analyzer.analyze(deployment)
        assert pulumi.runtime.get_config("team:owner") == "b"
        monkeypatch.setenv("PULUMI_STACK", "prod")
        analyzer.analyze(deployment)
        assert pulumi.get_stack() == "prod"


def test_a_remediations_view_checks_unknowns_inside_the_items_of_a_list():
    """unknown_checking_view makes every mapping plain, those inside lists too (the mutation sample's survivor
    lazy_props._plain of a list's items): a mapping of another type inside a list kept its raw unknown marker unchecked."""
    from types import MappingProxyType

    view = lazy_props.unknown_checking_view({"containers": [MappingProxyType({"image": UNKNOWN_STRING_VALUE, "name": "a"})]})
    item = view["containers"][0]
    assert item["name"] == "a"
    with pytest.raises(UnknownValueError):
        item["image"]
