"""The ComputeCluster component as a component provider: the schema Pulumi infers from its typed args
keeps SPEC section 2's names and JSON types, and a cluster that comes through the provider (camelCase
on the wire, mapped to Python names by the SDK's host) reaches the pack exactly as the Python program's.

The real CLI's `pulumi package get-schema` of provider/ is compared with this schema in
tests/cli/test_component_provider.py."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import subprocess
import sys

import pulumi
import pulumi_kubernetes as k8s
import pytest
import yaml
from builders import ROOT
from google.protobuf import json_format
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pulumi.errors import InputPropertyError
from pulumi.provider.experimental.component import ComponentProvider

from compute_guard.cli import main
from compute_guard.component import (
    PACKAGE,
    TYPE_TOKEN,
    AutoscaleScalePolicy,
    CapacityGroup,
    ComputeChoiceRange,
    ComputeCluster,
    ComputeClusterArgs,
    FixedScalePolicy,
    GpuSpec,
    MachineProfile,
    ScalePolicy,
    to_inputs,
)
from compute_guard.component.provider import ComputeCluster as ProvidedCluster
from compute_guard.component.provider import ComputeClusterProvider
from compute_guard.testkit import ProgramError, capture_program

# SPEC section 2, written out: every key, its JSON type ("#Name" is an object of that type), required or not.
SPEC = {
    "ComputeCluster": {"id": ("string", True), "capacityGroups": ("array of #CapacityGroup", True),
                       "dynamicContainerPool": ("string", False),
                       "selectedFailureDomains": ("map of array of string", False),
                       "failureDomainSpread": ("map of integer", False), "containerCidr": ("string", False)},
    "CapacityGroup": {"groupId": ("string", True), "instanceType": ("string", False),
                      "profile": ("#MachineProfile", False), "minSize": ("integer", True),
                      "maxSize": ("integer", True), "scalePolicy": ("#ScalePolicy", False),
                      "nestedVirtualization": ("boolean", False)},
    "MachineProfile": {"cpu": ("string", True), "memoryBytes": ("integer", True),
                       "ephemeralStorageBytes": ("integer", True), "architecture": ("string", False),
                       "gpu": ("#GpuSpec", False)},
    "GpuSpec": {"type": ("string", True), "count": ("integer", True)},
    # {"type": "fixed", "machines": R} or {"type": "autoscale", "min": R, "max": R}: one object type
    "ScalePolicy": {"type": ("string", True), "machines": ("#ComputeChoiceRange", False),
                    "min": ("#ComputeChoiceRange", False), "max": ("#ComputeChoiceRange", False)},
    "ComputeChoiceRange": {"min": ("integer", True), "max": ("integer", True), "default": ("integer", True)},
}


def spelled(spec: dict) -> str:
    """A schema property's type in the words of SPEC above."""
    if "$ref" in spec:
        return "#" + spec["$ref"].rsplit(":", 1)[-1]
    if spec["type"] == "array":
        return "array of " + spelled(spec["items"])
    if spec["type"] == "object" and "additionalProperties" in spec:
        return "map of " + spelled(spec["additionalProperties"])
    return spec["type"]


def described(properties: dict, required: list[str]) -> dict:
    return {name: (spelled(spec), name in required) for name, spec in properties.items()}


SCHEMA = """
import json
from pulumi.provider.experimental.component import ComponentProvider
from compute_guard.component import PACKAGE, ComputeCluster
print(json.dumps(json.loads(ComponentProvider([ComputeCluster], PACKAGE, version="1.2.3").schema or "{}")))
"""


def provider_schema() -> dict:
    """The schema the SDK infers, in a fresh interpreter as `pulumi package get-schema` runs the provider: the SDK reads
    the fields' descriptions and resolves their types through the component's module (inspect.getsource, sys.modules),
    which a test process that has run a thousand programs before does not keep as a fresh one does (issue 57: this
    test failed once in eighteen full runs, passing alone; its order of tests could not be reproduced)."""
    found = subprocess.run([sys.executable, "-c", SCHEMA], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(found.stdout)


def test_the_inferred_schema_keeps_every_field_of_spec_section_2():
    schema = provider_schema()
    assert schema["name"] == "compute" and schema["version"] == "1.2.3"
    assert list(schema["resources"]) == [TYPE_TOKEN]
    cluster = schema["resources"][TYPE_TOKEN]
    assert cluster["isComponent"] is True
    assert described(cluster["inputProperties"], cluster["requiredInputs"]) == SPEC["ComputeCluster"]
    assert {name.rsplit(":", 1)[-1] for name in schema["types"]} == set(SPEC) - {"ComputeCluster"}
    for token, kind in schema["types"].items():
        name = token.rsplit(":", 1)[-1]
        assert token == f"compute:index:{name}"
        assert described(kind["properties"], kind.get("required", [])) == SPEC[name], name
    # the outputs: the cluster's id (its whole configuration is registered as outputs too, for the stack
    # policies, but is not part of the typed interface)
    assert described(cluster["properties"], cluster["required"]) == {"clusterId": ("string", True)}
    # every field and type says what it is in the SDKs generated from the schema
    assert cluster["description"] and all(spec.get("description") for spec in cluster["inputProperties"].values())
    assert all(kind["description"] and all(spec.get("description") for spec in kind["properties"].values())
               for kind in schema["types"].values())


def test_the_python_spellings_of_the_scale_policies_keep_their_json_form():
    r = ComputeChoiceRange(min=1, max=2, default=1)
    assert to_inputs(FixedScalePolicy(machines=r)) == {"type": "fixed", "machines": {"min": 1, "max": 2, "default": 1}}
    assert to_inputs(AutoscaleScalePolicy(min=r, max=r)) == {"type": "autoscale", "min": to_inputs(r),
                                                            "max": to_inputs(r)}
    assert to_inputs(ScalePolicy(type="fixed", machines=r)) == to_inputs(FixedScalePolicy(machines=r))


names = st.text("abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=8)
counts = st.integers(0, 300)
ranges = st.builds(ComputeChoiceRange, min=counts, max=counts, default=counts)
profiles = st.builds(MachineProfile, cpu=st.sampled_from(["4", "4.0", "500m"]), memory_bytes=st.integers(0, 1 << 40),
                     ephemeral_storage_bytes=st.integers(0, 1 << 40),
                     architecture=st.none() | st.sampled_from(["arm64", "x86_64", "amd64"]),
                     gpu=st.none() | st.builds(GpuSpec, type=names, count=counts))
policies = st.none() | st.builds(FixedScalePolicy, machines=ranges) | st.builds(AutoscaleScalePolicy, min=ranges,
                                                                               max=ranges)
groups = st.builds(CapacityGroup, group_id=names, min_size=counts, max_size=counts,
                   instance_type=st.none() | names, profile=st.none() | profiles, scale_policy=policies,
                   nested_virtualization=st.none() | st.booleans())
clusters = st.builds(
    ComputeClusterArgs, id=names, capacity_groups=st.lists(groups, max_size=3),
    dynamic_container_pool=st.none() | names,
    # map keys are pool ids as the user wrote them: snake_case ones must not be rewritten
    selected_failure_domains=st.none() | st.dictionaries(names, st.lists(names, max_size=3), max_size=3),
    failure_domain_spread=st.none() | st.dictionaries(names, st.integers(1, 255), max_size=3),
    container_cidr=st.none() | st.sampled_from(["10.244.0.0/16", "172.30.0.0/16"]))


def present(**fields):
    return {key: value for key, value in fields.items() if value is not None}


def json_of(args: ComputeClusterArgs) -> dict:
    """SPEC section 2's JSON of a cluster, written out field by field (the oracle: no code of the component)."""
    def choice(r):
        return r and {"min": r.min, "max": r.max, "default": r.default}

    def profile(p):
        return p and present(cpu=p.cpu, memoryBytes=p.memory_bytes, ephemeralStorageBytes=p.ephemeral_storage_bytes,
                             architecture=p.architecture, gpu=p.gpu and {"type": p.gpu.type, "count": p.gpu.count})

    def group(g):
        policy = g.scale_policy and present(type=g.scale_policy.type, machines=choice(g.scale_policy.machines),
                                            min=choice(g.scale_policy.min), max=choice(g.scale_policy.max))
        return present(groupId=g.group_id, minSize=g.min_size, maxSize=g.max_size, instanceType=g.instance_type,
                       profile=profile(g.profile), scalePolicy=policy, nestedVirtualization=g.nested_virtualization)

    return present(id=args.id, capacityGroups=[group(g) for g in args.capacity_groups],
                   dynamicContainerPool=args.dynamic_container_pool,
                   selectedFailureDomains=args.selected_failure_domains,
                   failureDomainSpread=args.failure_domain_spread, containerCidr=args.container_cidr)


def on_the_wire(value):
    """A JSON value as protobuf's Struct carries it: every number a float."""
    if isinstance(value, dict):
        return {key: on_the_wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [on_the_wire(item) for item in value]
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


@settings(max_examples=60, deadline=None)
@given(clusters)
def test_a_cluster_through_the_component_provider_is_the_python_programs_cluster(args):
    provider = ComputeClusterProvider([ProvidedCluster], PACKAGE)
    spec_form = json_of(args)
    assert to_inputs(args) == spec_form
    # what the SDK's component provider hands the component: the wire's camelCase mapped to Python names
    # every language sends the id as clusterId (the SDKs of TypeScript and Go reserve `id`)
    wire = {("clusterId" if key == "id" else key): value for key, value in spec_form.items()}
    mapped = provider.map_inputs(on_the_wire(wire), provider._component_defs["ComputeCluster"])
    (hosted,) = capture_program(lambda: ProvidedCluster("compute", mapped))
    (native,) = capture_program(lambda: ComputeCluster("compute", args))
    assert json_format.MessageToDict(hosted.inputs) == json_format.MessageToDict(native.inputs) \
        == on_the_wire(spec_form)
    assert json_format.MessageToDict(hosted.outputs) == json_format.MessageToDict(hosted.inputs)
    assert hosted.type == native.type == TYPE_TOKEN


def test_the_provider_command_writes_the_checkouts_plugin_bound_to_this_environment(tmp_path, capsys):
    assert main(["provider", str(tmp_path / "plugin")]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {tmp_path / 'plugin'}: ")
    assert (tmp_path / "plugin" / "__main__.py").read_text() == (ROOT / "provider" / "__main__.py").read_text()
    written = yaml.safe_load((tmp_path / "plugin" / "PulumiPlugin.yaml").read_text())
    checkout = yaml.safe_load((ROOT / "provider" / "PulumiPlugin.yaml").read_text())
    assert written == {"runtime": {"name": "python", "options": {"virtualenv": sys.prefix}}}
    # the checkout's provider runs in an environment of its own (provider/venv: pulumi and compute_guard only, so that
    # `pulumi package add provider` installs no cloud plugin of the development venv's SDKs; issue 39)
    assert checkout == {"runtime": {"name": "python", "options": {"virtualenv": "venv"}}}
    pins = [line for line in (ROOT / "provider" / "requirements.txt").read_text().splitlines()
            if line and not line.startswith("#")]
    assert pins == [line for line in (ROOT / "requirements.txt").read_text().splitlines() if line.startswith("pulumi==")]


def test_the_provider_command_refuses_a_python_pulumi_would_not_run_it_with(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "base_prefix", sys.prefix)  # not a virtual environment
    assert main(["provider", str(tmp_path / "plugin")]) == 2
    assert capsys.readouterr().err == (
        f"compute-guard provider: {sys.prefix} is not a virtual environment: install compute-guard in one "
        "(Pulumi runs a Python plugin in a virtual environment only)\n")
    assert not (tmp_path / "plugin").exists()
    monkeypatch.undo()
    (tmp_path / "file").write_text("")
    assert main(["provider", str(tmp_path / "file")]) == 2  # a file where the directory should be
    assert "compute-guard provider: [Errno 17] File exists" in capsys.readouterr().err


SECRET = "4dabf18193072939515e22adb298388d"  # the signature of a secret value in the SDKs' wire form


def test_integers_that_are_secret_or_unknown_pass_through_the_provider_as_they_are():
    """A YAML program's `memoryBytes: {fn::secret: ...}` or `maxSize: ${other.count}` (unknown in a preview)
    arrives as an Output: the SDK's own component provider fails the whole component on it (its int()
    check), compute-guard's passes it on and the component registers it as the secret or unknown it is."""
    wire = {"clusterId": "compute", "capacityGroups": [{"groupId": "general", "minSize": 1.0, "maxSize": 3.0, "profile": {
        "cpu": "4", "memoryBytes": 17179869184.0, "ephemeralStorageBytes": 107374182400.0}}]}
    definition = ComputeClusterProvider([ProvidedCluster], PACKAGE)._component_defs["ComputeCluster"]
    failures: list[BaseException] = []

    def program(provider_class) -> None:
        unknown = k8s.core.v1.ConfigMap("settings").immutable.apply(lambda m: (m or {}).get("generation"))
        group = wire["capacityGroups"][0]
        inputs = dict(wire, capacityGroups=[dict(group, maxSize=unknown, profile=dict(
            group["profile"], memoryBytes=pulumi.Output.secret(17179869184.0)))])
        try:
            mapped = provider_class([ProvidedCluster], PACKAGE).map_inputs(inputs, definition)
        except TypeError as error:  # the SDK's: int() argument must be ... not 'Output'
            failures.append(error)
            return
        ProvidedCluster("compute", mapped)

    # (the engine's default Kubernetes provider is registered too, as the engine registers it)
    assert [r.type for r in capture_program(lambda: program(ComponentProvider))] == [
        "pulumi:providers:kubernetes", "kubernetes:core/v1:ConfigMap"]
    assert len(failures) == 1
    (cluster,) = [r for r in capture_program(lambda: program(ComputeClusterProvider)) if r.type == TYPE_TOKEN]
    group = json_format.MessageToDict(cluster.inputs)["capacityGroups"][0]
    assert group["profile"]["memoryBytes"] == {SECRET: "1b47061264138c4ac30d75fd1eb44270", "value": 17179869184.0}
    assert group["maxSize"] == "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the wire's unknown
    assert group["minSize"] == 1.0 and group["profile"]["cpu"] == "4"


def test_objects_and_lists_that_are_secret_or_unknown_pass_through_the_provider_as_they_are():
    """`capacityGroups: ${other.pools}` is unknown in a preview, and a profile may be a secret object: the
    SDK's own provider maps an object that is an Output as an empty one and fails on its required fields."""
    definition = ComputeClusterProvider([ProvidedCluster], PACKAGE)._component_defs["ComputeCluster"]
    profile = {"cpu": "4", "memoryBytes": 1.0, "ephemeralStorageBytes": 1.0}

    def program(provider_class, pools) -> None:
        inputs = {"clusterId": "compute", "capacityGroups": pools()}
        ProvidedCluster("compute", provider_class([ProvidedCluster], PACKAGE).map_inputs(inputs, definition))

    def unknown_pools():
        return k8s.core.v1.ConfigMap("settings").immutable.apply(lambda m: (m or {}).get("pools"))

    def secret_profile():
        return [{"groupId": "general", "minSize": 1.0, "maxSize": 1.0, "profile": pulumi.Output.secret(profile)}]

    with pytest.raises(ProgramError, match="Missing required input 'capacityGroups\\[0\\].profile.cpu'") as failed:
        capture_program(lambda: program(ComponentProvider, secret_profile))
    assert isinstance(failed.value.error, InputPropertyError)
    (unknown,) = [r for r in capture_program(lambda: program(ComputeClusterProvider, unknown_pools))
                  if r.type == TYPE_TOKEN]
    assert json_format.MessageToDict(unknown.inputs)["capacityGroups"] == "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    (secret,) = capture_program(lambda: program(ComputeClusterProvider, secret_profile))
    group = json_format.MessageToDict(secret.inputs)["capacityGroups"][0]
    assert group["profile"] == {SECRET: "1b47061264138c4ac30d75fd1eb44270", "value": profile}


FIELD_NAMES = sorted({field.name for kind in (ComputeClusterArgs, CapacityGroup, MachineProfile, GpuSpec, ScalePolicy,
                                              ComputeChoiceRange) for field in dataclasses.fields(kind)})
hostile = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=4),
                                                                inner, max_size=4),
    max_leaves=12)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(FIELD_NAMES), hostile, max_size=6))
# Infinities every run, not only when Hypothesis happens to draw one: a Python program can pass math.inf,
# and protobuf's JSON form (MessageToDict) cannot print it, which made this test fail about one run in six.
@example({"id": math.inf, "capacity_groups": [{"min_size": -math.inf}]})
def test_any_shape_the_provider_could_hand_the_component_is_registered_never_raised(args):
    """Whatever reaches the component (a program's own dict, values of the wrong type at any depth), it
    registers it for the pack to judge and never raises: only a field it knows is renamed, only at a place
    its type allows, and a value it cannot read passes on as it is."""
    (registered,) = capture_program(lambda: ComputeCluster("compute", args))
    inputs = registered.inputs.fields  # the Struct's own keys: any number, infinities included
    assert set(inputs) == {re.sub(r"_(\w)", lambda m: m[1].upper(), name) for name, value in args.items()
                           if value is not None and name in {f.name for f in dataclasses.fields(
                               ComputeClusterArgs)}}


def test_the_cluster_id_is_an_output_resolving_to_the_id():
    """Programs chain it into other resources (a label on a workload): a plain string would break every
    'apply' on it, and an unknown id during preview would be lost."""
    seen: list[object] = []

    def program() -> None:
        compute = ComputeCluster("compute", ComputeClusterArgs(id="shop", capacity_groups=[
            CapacityGroup(group_id="general", min_size=1, max_size=2)]))
        assert isinstance(compute.cluster_id, pulumi.Output)
        compute.cluster_id.apply(seen.append)

    capture_program(program)  # the mocks' loop runs every apply before it returns
    assert seen == ["shop"]
