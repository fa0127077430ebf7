"""The ComputeCluster component from another language: the component provider in provider/ (Python,
hosted by the SDK's component_provider_host), used by a Pulumi YAML program through `packages:`, under the
real CLI and its YAML language host (scripts/build-pulumi-cli).

The YAML example is the Python example's stack written in YAML; compute-guard must judge both alike."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from importlib import metadata

import yaml
from pulumi_cli import ROOT, bare_shell_env, open_stack, policy_findings, preview_json, report

import compute_guard.component as component
from compute_guard.component import PACKAGE, TYPE_TOKEN
from compute_guard.component.provider import ComputeCluster as ProvidedCluster
from compute_guard.component.provider import ComputeClusterProvider
from compute_guard.policies import PACK_VERSION

PYTHON = ROOT / "examples" / "kubernetes"
YAML = ROOT / "examples" / "yaml"
YAML_BROKEN = ROOT / "examples" / "yaml-broken"
PROVIDER = ROOT / "provider"
PASSED = f"✅ compute-guard@v{PACK_VERSION}"
FAILED = f"❌ compute-guard@v{PACK_VERSION}"
_CREATE = re.compile(r"^ \+  (\S+) (\S+) create", re.MULTILINE)


def without_descriptions(value):
    if isinstance(value, dict):
        return {key: without_descriptions(item) for key, item in value.items() if key != "description"}
    return [without_descriptions(item) for item in value] if isinstance(value, list) else value


def created(output: str) -> set[tuple[str, str]]:
    """The (type, name) of every resource a preview would create, but the stack itself."""
    return {(kind, name) for kind, name in _CREATE.findall(output) if kind != "pulumi:pulumi:Stack"}


def test_the_schema_pulumi_reads_from_the_provider_is_the_one_inferred_from_the_typed_args(toolchain, tmp_path):
    stack = open_stack(toolchain, YAML, tmp_path, "dev")  # a project directory to run the CLI in
    done = stack.run("package", "get-schema", str(PROVIDER))
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    inferred = json.loads(ComputeClusterProvider([ProvidedCluster], PACKAGE, version=metadata.version("compute-guard"))
                          .schema or "{}")
    # tests/component/test_component_schema.py holds the inferred one to SPEC section 2; the CLI adds an empty
    # config, drops the empty dependencies and the descriptions of array items and map values
    assert without_descriptions(schema) | {"dependencies": []} == without_descriptions(inferred) | {"config": {}}
    cluster = schema["resources"][TYPE_TOKEN]
    assert all(spec["description"] for spec in cluster["inputProperties"].values())
    # and field by field against the typed args themselves: every field, by its camelCase name, required
    # exactly when it has no default
    # (the component provider takes ComputeClusterInputs: ComputeClusterArgs with the id as clusterId)
    kinds = {"ComputeClusterInputs": (cluster["inputProperties"], cluster["requiredInputs"])} | {
        token.rsplit(":", 1)[-1]: (kind["properties"], kind.get("required", []))
        for token, kind in schema["types"].items()}
    for name, (properties, required) in kinds.items():
        fields = dataclasses.fields(getattr(component, name))
        assert set(properties) == {re.sub(r"_(\w)", lambda m: m[1].upper(), f.name) for f in fields}, name
        assert set(required) == {re.sub(r"_(\w)", lambda m: m[1].upper(), f.name) for f in fields
                                 if f.default is dataclasses.MISSING}, name
    assert list(schema["resources"]) == [TYPE_TOKEN] and schema["version"] == PACK_VERSION
    python_args = {field.name for field in dataclasses.fields(component.ComputeClusterArgs)}
    assert python_args - {"id"} == {field.name for field in dataclasses.fields(component.ComputeClusterInputs)} - {
        "cluster_id"}  # the same fields but the id's spelling


def test_the_yaml_program_is_judged_as_the_python_program(toolchain, tmp_path):
    python = open_stack(toolchain, PYTHON, tmp_path / "python", "dev")
    in_python = python.ok(*python.preview())
    stack = open_stack(toolchain, YAML, tmp_path / "yaml", "dev")
    in_yaml = stack.ok(*stack.preview())
    assert PASSED in in_yaml and policy_findings(in_yaml) == policy_findings(in_python) == []
    # the same stack: the same resources by type and name, the ComputeCluster from the component provider
    assert created(in_yaml) == created(in_python)
    assert ("compute:index:ComputeCluster", "compute") in created(in_yaml)
    assert re.search(r"cluster_id: +\"compute\"", in_yaml)  # the component's output, through the provider


def test_the_yaml_broken_variant_fails_with_the_python_broken_stacks_messages(toolchain, tmp_path):
    python = open_stack(toolchain, PYTHON, tmp_path / "python", "broken")
    expected = policy_findings(python.fails(*python.preview()))
    assert len(expected) == 5
    stack = open_stack(toolchain, YAML_BROKEN, tmp_path / "yaml", "broken")
    out = stack.fails(*stack.preview())
    assert FAILED in out
    # the CLI prints them in the order they arrive
    assert sorted(policy_findings(out), key=repr) == sorted(expected, key=repr)


def test_a_secret_integer_of_the_yaml_program_is_judged_and_never_printed(toolchain, tmp_path):
    """`fn::secret` on the stateful pool's memory: the SDK's own component provider failed the whole
    component on it; through compute-guard's, the pack still finds the pool too small, without its numbers."""
    stack = open_stack(toolchain, YAML_BROKEN, tmp_path, "broken")
    program = stack.work / "Pulumi.yaml"
    plain = 'profile: {cpu: "8", memoryBytes: 34359738368,'
    assert program.read_text().count(plain) == 1
    program.write_text(program.read_text().replace(plain, 'profile: {cpu: "8", memoryBytes: {fn::secret: 34359738368},'))
    out = stack.fails(*stack.preview())
    assert "has a problem" not in out and FAILED in out
    findings = policy_findings(out)
    assert sorted(f.policy for f in findings) == ["pool-capacity", "workload-architecture-selector-valid",
                                                  "workload-fits-pool", "workload-node-architecture",
                                                  "workload-pool-placement"]
    (capacity,) = [f for f in findings if f.policy == "pool-capacity"]
    assert capacity.message.startswith("ComputeCluster 'compute' pool 'stateful': at its maxSize of 2 nodes (its "
                                       "profile) it has room for 2 x [secret] = [secret] of memory allocatable")
    assert "34359738368" not in out and "32 GiB" not in out and "31.9 GiB" not in out


def without_urns(value):
    """A report document without what names the project (URNs, the stack's name)."""
    if isinstance(value, dict):
        return {key: without_urns(item) for key, item in value.items() if not key.lower().endswith("urn")
                and key not in ("stack", "tool")}
    return [without_urns(item) for item in value] if isinstance(value, list) else value


def test_the_report_on_the_yaml_preview_is_the_python_examples(toolchain, tmp_path):
    """`compute-guard report` over the two programs' `pulumi preview --json`: the same findings, the same
    pools, workloads and numbers."""
    documents = []
    for program, where in ((PYTHON, "python"), (YAML_BROKEN, "yaml")):
        stack = open_stack(toolchain, program, tmp_path / where, "broken")
        code, document = report(stack, preview_json(stack))
        assert code == 1  # the broken stack's mandatory findings
        documents.append(document)
    python, hosted = documents
    assert len(python["findings"]) == 5 and python["pools"]
    assert sorted(map(json.dumps, without_urns(hosted["findings"]))) == \
        sorted(map(json.dumps, without_urns(python["findings"])))
    assert without_urns(hosted["pools"]) == without_urns(python["pools"])
    assert without_urns(hosted["unplaced"]) == without_urns(python["unplaced"])


def test_up_registers_the_same_cluster_as_the_python_component(toolchain, tmp_path):
    """The stack policies read a component's outputs: through the provider they are the Python
    component's, the configuration in its camelCase form."""
    def cluster_of(stack) -> dict:
        stack.ok(*stack.up())
        done = stack.run("stack", "export")
        assert done.returncode == 0, done.stderr
        exported = json.loads(done.stdout)
        (cluster,) = [r for r in exported["deployment"]["resources"] if r["type"] == TYPE_TOKEN]
        return cluster

    python = cluster_of(open_stack(toolchain, PYTHON, tmp_path / "python", "dev"))
    hosted = cluster_of(open_stack(toolchain, YAML, tmp_path / "yaml", "dev"))
    assert hosted["inputs"] == hosted["outputs"] == python["inputs"] == python["outputs"]
    assert hosted["inputs"]["capacityGroups"][0]["scalePolicy"]["type"] == "autoscale"


def test_the_broken_variant_is_the_yaml_example_and_the_three_mistakes():
    """YAML has no conditionals, so the broken variant is a program of its own: it must not drift."""
    dev, broken = (yaml.safe_load((program / "Pulumi.yaml").read_text()) for program in (YAML, YAML_BROKEN))
    mistakes = {name: broken["resources"].pop(name) for name in ("legacy", "encoder", "cache")}
    assert broken["resources"] == dev["resources"]
    assert {key: value for key, value in broken.items() if key not in ("name", "description")} == \
        {key: value for key, value in dev.items() if key not in ("name", "description")}
    assert [m["properties"]["metadata"]["labels"]["compute.alien.dev/pool"] for m in mistakes.values()] == \
        ["gpu", "general", "stateful"]


def readme_blocks(language: str) -> list[str]:
    """The code blocks of docs/other-languages.md in ``language``."""
    section = (ROOT / "docs" / "other-languages.md").read_text()
    return [body for kind, body in re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL) if kind == language]


def test_the_readme_shows_the_yaml_example_and_its_commands_run_as_written(toolchain, tmp_path):
    (shown,) = readme_blocks("yaml")
    assert shown.startswith("runtime: yaml\npackages:\n  compute: ../../provider\n")
    assert shown in (YAML / "Pulumi.yaml").read_text()
    commands = readme_blocks("sh")[0]
    lines = [line.split("#")[0].split() for line in commands.splitlines()]
    assert lines == [["scripts/preview", "examples/yaml"], ["scripts/preview", "examples/yaml-broken", "broken"]]
    env = bare_shell_env(toolchain, tmp_path)
    dev, broken = (subprocess.run(["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, env=env,
                                  timeout=600) for line in commands.splitlines())
    assert dev.returncode == 0 and PASSED in dev.stdout and policy_findings(dev.stdout) == [], dev.stdout + dev.stderr
    assert ("compute:index:ComputeCluster", "compute") in created(dev.stdout)
    assert broken.returncode != 0 and FAILED in broken.stdout
    assert sorted(finding.policy for finding in policy_findings(broken.stdout)) == [
        "pool-capacity", "workload-architecture-selector-valid", "workload-fits-pool", "workload-node-architecture",
        "workload-pool-placement"]
