"""The build tells you: a policy cannot land without its module, its tests, its engine scenario and
its README row, and the public names cannot change by accident."""

import ast
import dataclasses
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from builders import ROOT

from compute_guard import policies
from compute_guard.policies import ALL

NAMES = [line for line in (ROOT / "tests" / "policy_names.txt").read_text().splitlines()
         if line and not line.startswith("#")]
BY_NAME = {policy.name: policy for policy in ALL}


def module_name(name: str) -> str:
    return name.replace("-", "_")


def test_the_public_names_are_the_checked_in_list():
    assert [policy.name for policy in ALL] == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_each_policy_is_one_module_named_after_it(name):
    module = importlib.import_module(f"compute_guard.policies.{module_name(name)}")
    assert module.POLICY is BY_NAME[name]
    assert (module.__doc__ or "").startswith(f"{name}: ")  # what it decides, in its own words
    rule = getattr(module, module_name(name), None)
    assert callable(rule), f"the rule of {name} is a function named {module_name(name)} in its module"


@pytest.mark.parametrize("name", NAMES)
def test_each_policy_has_its_test_module(name):
    path = ROOT / "tests" / "policies" / f"test_{module_name(name)}.py"
    assert path.is_file()
    tests = [node.name for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    assert len(tests) >= 3, f"{path.name} holds {len(tests)} tests"


def test_each_policy_has_an_engine_scenario():
    tree = ast.parse((ROOT / "tests" / "engine" / "test_engine_protocol.py").read_text())
    (scenarios,) = [node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "SCENARIOS" for t in node.targets)]
    assert isinstance(scenarios, ast.Dict)
    assert [key.value for key in scenarios.keys if isinstance(key, ast.Constant)] == NAMES


def readme_rows() -> dict[str, list[str]]:
    section = (ROOT / "README.md").read_text().split("## What each policy rejects", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"\[`([a-z0-9-]+)`\]\(docs/policies\.md#([a-z0-9-]+)\)", cells[0])
        if match and match.group(1) == match.group(2):
            rows[match.group(1)] = cells
    return rows


@pytest.mark.parametrize("name", NAMES)
def test_each_policy_has_a_readme_row_matching_its_metadata(name):
    """The README's table is generated (scripts/policy_reference.py); this holds it to the metadata even so."""
    policy = BY_NAME[name]
    _, kind, level, description = readme_rows()[name]
    assert kind == ("stack" if policy.subject == "stack" else "resource")
    assert level == f"{policy.level.value}, {policy.severity.value}"
    assert description == policy.description


def test_the_readme_lists_no_policy_the_pack_does_not_have():
    assert list(readme_rows()) == NAMES


def test_the_rules_keep_no_module_level_state():
    """What a run learns lives in PackState; a module may hold constants only."""
    mutable = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
    for path in sorted((ROOT / "policies").rglob("*.py")):
        tree = ast.parse(path.read_text())
        if path.name != "sdk.py":  # the SDK patch is process-wide by nature: installed or not
            assert not any(isinstance(node, ast.Global) for node in ast.walk(tree)), path.name
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, mutable):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                name = getattr(target, "id", "")
                assert name.isupper() or name == "__all__", f"{path.name}: mutable module-level '{name}'"


def test_the_pack_version_is_written_once():
    assert re.search(rf"^version: {re.escape(policies.PACK_VERSION)}$", (ROOT / "PulumiPolicy.yaml").read_text(),
                     re.MULTILINE)
    for path in [*ROOT.glob("policies/**/*.py"), *ROOT.glob("compute_guard/**/*.py"), ROOT / "__main__.py", ROOT / "pyproject.toml"]:
        assert policies.PACK_VERSION not in path.read_text(), path


def test_the_policies_are_imported_by_one_name_only():
    """compute_guard.policies everywhere: the top-level policies/ directory imported as `policies` too
    would be a second copy of every module, with state and SDK patches of its own."""
    pattern = re.compile(r"^\s*(from policies[ .]|import policies\b)", re.MULTILINE)
    sources = [path for path in ROOT.rglob("*.py") if not {"venv", "mutants", ".git"} & set(path.parts)]
    assert [str(path) for path in sources if pattern.search(path.read_text())] == []


@pytest.mark.parametrize("statement, refused", [
    ("import compute_guard.tests", "No module named 'compute_guard.tests'"),
    ("import compute_guard.bench", "No module named 'compute_guard.bench'"),
    ("import compute_guard.scripts", "No module named 'compute_guard.scripts'"),
    ("import compute_guard.examples", "No module named 'compute_guard.examples'"),
    ("import policies", "the policies load as compute_guard.policies only, not as policies"),
    ("import policies.values", "the policies load as compute_guard.policies only, not as policies"),
])
def test_in_a_checkout_only_compute_guard_policies_imports(statement, refused):
    """SPEC section 7: one name in a checkout as installed. Run from the repository's root, where a
    `policies` directory and every other folder are on the import path."""
    done = subprocess.run([sys.executable, "-c", statement], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and refused in done.stderr, done.stderr


def test_the_checkout_loads_the_policies_from_the_top_level_directory_under_one_name():
    code = ("import sys, compute_guard.policies as p, compute_guard.policies.model.values as v; "
            "print(p.__file__); print(sorted(n for n in sys.modules if n.split('.')[0] == 'policies'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=True)
    file, others = done.stdout.splitlines()
    assert Path(file).resolve() == ROOT / "policies" / "__init__.py" and others == "[]"


def _message_building_slips(tree: ast.AST) -> list[str]:
    """What copies a value's plain text into a string instead of formatting it: a join (use
    findings.listed), '+' or '%' on strings, an f-string's !s or str() of a value."""
    slips = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
                and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
            slips.append(f"line {node.lineno}: a join")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)) and any(
                isinstance(side, ast.JoinedStr) or (isinstance(side, ast.Constant) and isinstance(side.value, str))
                for side in (node.left, node.right)):
            slips.append(f"line {node.lineno}: '+' or '%' on a string")
        elif isinstance(node, ast.FormattedValue) and (node.conversion == ord("s") or (
                isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "str")):
            slips.append(f"line {node.lineno}: str() of a value in an f-string")
    return slips


def test_messages_are_built_by_formatting_which_redacts_secrets():
    """SPEC section 4: a secret reads [secret] however a message is put together. Values are formatted into
    messages (f-strings, findings.listed/quoted), which calls their __format__ (values.SecretText); these
    slips would copy the plain text instead. tests/robustness/test_secret_sweep.py is the oracle behind it."""
    slips = {}
    for path in sorted((ROOT / "policies").rglob("*.py")):
        # listed itself; machine names built from their parts; date patterns built from digits
        if path.name in ("findings.py", "catalog.py", "exemptions.py"):
            continue
        found = _message_building_slips(ast.parse(path.read_text()))
        if found:
            slips[path.name] = found
    assert slips == {}


def test_violations_are_built_only_in_policy_modules():
    """Each policy module writes its own messages; readers and resolvers return typed outcomes. The policy template
    refuses, for every policy that reads the previous deployment, a configured baseline it cannot read (SPEC 5)."""
    builders_of_violations = set()
    for path in sorted((ROOT / "policies").rglob("*.py")):
        tree = ast.parse(path.read_text())
        if any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Violation"
               for node in ast.walk(tree)):
            builders_of_violations.add(path.stem)
    assert builders_of_violations == {module_name(name) for name in NAMES} | {"templates"}


def test_every_file_the_code_and_readme_cite_exists():
    """Doc drift: a comment citing a test or script that was renamed away misleads the next reader."""
    cited = set()
    sources = [*ROOT.glob("policies/**/*.py"), *ROOT.glob("compute_guard/*/*.py"), *ROOT.glob("scripts/*"),
               ROOT / "README.md", ROOT / "CONTRIBUTING.md", *ROOT.glob("docs/*.md"), ROOT / "pyproject.toml"]
    for path in sources:
        cited |= {(path.name, name) for name in
                  re.findall(r"\b((?:tests|scripts|bench|policies|examples)/[\w/.-]*\w)", path.read_text())}
    missing = sorted((source, name) for source, name in cited if not (ROOT / name).exists() and not name.endswith("_"))
    assert missing == []


def test_no_two_test_modules_share_a_name():
    """Test directories are not packages: pytest imports each test module by its file name, so two
    test_report.py files in two folders make the second fail to collect."""
    names = [path.name for path in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({name for name in names if names.count(name) > 1}) == []


def _imports_of(path: Path, module: str, package: bool) -> set[str]:
    """Every module of the distribution this file imports, at any depth of the file: a function's lazy import closes
    a circle too, and so does an import for the type checker only (issue 47: the Stack imported the types of what
    four modules above it derived, each of which imported the Stack)."""
    found = set()
    base = module.split(".") if package else module.split(".")[:-1]
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            parent = base[:len(base) - node.level + 1] if node.level else []
            stem = ".".join([*parent, node.module] if node.module else parent)
            found.add(stem)
            found |= {f"{stem}.{alias.name}" for alias in node.names}
    return {name for name in found if name.split(".")[0] == "compute_guard"}


def test_no_module_imports_itself_round_a_circle():
    """Data flows one way (STYLE.md): the command line and the report's, the adapters and exemptions-in-force,
    each imported the other (issue 'One model of the stack')."""
    modules: dict[str, Path] = {}
    for path in sorted([*ROOT.glob("compute_guard/**/*.py"), *ROOT.glob("policies/**/*.py")]):
        if "policies" in path.relative_to(ROOT).parts[:1]:
            parts = ["compute_guard", "policies", *path.relative_to(ROOT / "policies").with_suffix("").parts]
        else:
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if package else parts)] = path
    graph = {}
    for module, path in modules.items():
        graph[module] = {name for name in _imports_of(path, module, path.name == "__init__.py") if name in modules
                         and name != module}
    # a package's __init__ importing its own modules is how it assembles them, not a circle
    circles = []
    for start in graph:
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in graph[node]:
                if nxt == start and len(trail) > 1 and not any(start.startswith(f"{t}.") or t.startswith(f"{start}.")
                                                               for t in trail[1:]):
                    circles.append(" -> ".join([*trail, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
    assert circles == []


READS_INPUTS = re.compile(r"\.props\b|\.pod_spec\b|\.template\b|\bchild\(|\bplain\(|\bread\(|architecture_constraint\("
                          r"|pod_request\(|\breplicas\(|repels_itself\(|\bparse_workload\(")


@pytest.mark.parametrize("name", NAMES)
def test_no_policy_module_reads_props_or_a_pod_spec(name):
    """One model (issue 'One model of the stack'): a rule reads the typed facts (a workload's constraint, request,
    replicas; a pool's machine and node; its placement), never the resource's inputs or its pod spec. The one
    exception is what a remediation hands back to be edited: the SDK's own view of the inputs."""
    text = (ROOT / "policies" / f"{module_name(name)}.py").read_text()
    text = text.replace("remediation_props(context.props)", "")
    found = [match.group(0) for match in READS_INPUTS.finditer(text)]
    assert found == [], f"{name} reads the inputs itself: {found}"


def test_mutmut_copies_every_part_of_the_distribution_the_tests_import():
    """mutmut runs the tests in a copy holding only what it mutates and what also_copy lists: a module missing
    there (compute_guard/exits.py, once) makes every mutant's run fail on an import, which counted as done."""
    import tomllib

    also_copy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["also_copy"]
    parts = [path.relative_to(ROOT).as_posix() + ("/" if path.is_dir() else "")
             for path in (ROOT / "compute_guard").iterdir()
             if path.name not in ("policies", "__pycache__") and not path.name.endswith(".egg-info")]
    assert [part for part in parts if part not in also_copy] == []


# Modules that are neither a policy nor the model, and what text they write: the adapters' own words.
WORDS_OUTSIDE_POLICIES = {
    "__init__.py": "the pack's description",
    "baseline.py": "why the previous deployment cannot be read (a policy's not-applicable reason)",
    "exemptions.py": "what an exemption adds to any policy's finding, and its schema's description",
    "findings.py": "the internal-error message every policy fails closed with",
    "platform.py": "the platform setting's schema description",
    "sdk.py": "the refusal of an SDK version the shim does not know",
    "templates.py": "what every policy that reads the previous deployment says without one (SPEC 5, Policy.previous)",
}


def _message_texts(tree: ast.AST) -> list[str]:
    """String pieces shaped like a message ('what is wrong; the fix'), docstrings left out."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        else:
            continue
        if "; " in text and len(text.split()) >= 5:
            texts.append(text)
    return texts


def test_the_model_writes_no_words_the_policies_write_them():
    """Issue 'One model of the stack': readers and resolvers return typed outcomes and each policy module writes
    its own words (the shape sentences of cluster.py and the problems of architecture.py were written there)."""
    policy_modules = {f"{module_name(name)}.py" for name in NAMES}
    worded = {path.name: _message_texts(ast.parse(path.read_text()))
              for path in sorted((ROOT / "policies").rglob("*.py")) if path.name not in policy_modules}
    assert {name: texts for name, texts in worded.items() if texts and name not in WORDS_OUTSIDE_POLICIES} == {}


SOURCES = sorted(path.stem for path in (ROOT / "policies" / "model" / "sources").glob("*.py")
                 if path.stem not in {"__init__", "common"})


@pytest.mark.parametrize("source", SOURCES)
def test_each_pool_source_is_one_module_documented_and_has_an_engine_scenario(source):
    """CONTRIBUTING.md, "Adding a pool source": a module of policies/model/sources/ declares its SOURCES (the package
    finds it: nothing else names it), has its row in docs/platform-pools.md, and an engine scenario."""
    from compute_guard.policies.model import sources

    module = importlib.import_module(f"compute_guard.policies.model.sources.{source}")
    assert module.SOURCES and all(found in sources.sources() for found in module.SOURCES)
    registry = (ROOT / "policies" / "model" / "sources" / "__init__.py").read_text()
    assert f"import {source}" not in registry and f".{source} " not in registry  # found, not listed
    table = (ROOT / "docs" / "platform-pools.md").read_text()
    assert re.search(rf"(?m)^\| [^|]*\(`{source}\.py`\)", table), f"no row of docs/platform-pools.md names {source}.py"
    engine = ast.parse((ROOT / "tests" / "engine" / "test_platform_pools.py").read_text())
    scenarios = [node.name for node in engine.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    assert any(source in name for name in scenarios), f"no engine scenario names {source}"


def test_every_source_yields_the_one_pool_type_and_no_policy_imports_another():
    """One pool (issue 37): no module defines a pool type of its own or builds a ComputeCluster group as a stand-in
    for another pool; no policy module imports another policy; no model module imports an adapter, and no platform
    module the model or an adapter (issue 47: platforms/platform.py imported an adapter, the one arrow back up)."""
    names = {path.stem for path in (ROOT / "policies").glob("*.py")} - {"__init__", "words"}
    for path in sorted((ROOT / "policies").rglob("*.py")):
        tree = ast.parse(path.read_text())
        classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
        assert not classes & {"PlatformPool", "PoolMachine"}, path
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1
                    and node.module is None for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                     and node.level == 1 and node.module}
        if path.parent == ROOT / "policies" and path.stem in names:
            assert not imported & (names - {path.stem}), f"{path.name} imports another policy"
        if "model" in path.relative_to(ROOT / "policies").parts:
            text = path.read_text()
            assert "adapters" not in {part for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                                      for part in (node.module or "").split(".")}, f"{path.name} imports an adapter"
            assert "CapacityGroup(0" not in text and "Pool(0," not in text, path
        if "platforms" in path.relative_to(ROOT / "policies").parts:  # the floor: the platforms' facts import no
            assert not {"adapters", "model"} & {part for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                                                for part in (node.module or "").split(".")}, path.name  # layer above
    from compute_guard.policies.platforms.platform import ONE_OF, PLATFORMS

    assert ONE_OF == ", ".join(PLATFORMS)  # written out: the floor has no listed() to call


@pytest.mark.parametrize("name", NAMES)
def test_no_policy_names_a_platform_module(name):
    """Issue 67: every platform fact is its source's, reached through what the source sets on the pools and clusters
    it reads (``Source`` hooks, ``KubeCluster.admission``), so a new platform is one module: platform-admits-workload
    imported sources.eks (Fargate) and sources.gke (Autopilot) by name."""
    tree = ast.parse((ROOT / "policies" / f"{module_name(name)}.py").read_text())
    named = sorted(module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                   for module in [node.module or ""] if module.startswith("model.sources."))
    assert named == [], f"{name} imports {named}"


def test_one_table_of_architecture_names_and_typed_derived_facts():
    """Issue 37: the seed's and catalog's architecture names meet Kubernetes' in one table
    (policies/platforms/architectures.py). Issue 47: the Stack holds the parsed facts and nothing derived; each
    module that derives something from it keeps it per stack (memo.PerStack), typed, never in a dict on the Stack
    keyed by strings."""
    from compute_guard.policies.model.stack import Stack

    tables = [path.name for path in sorted((ROOT / "policies").rglob("*.py"))
              if re.search(r"""["']x86_64["']\s*:\s*["']amd64["']""", path.read_text())]
    assert tables == ["architectures.py"]
    assert not hasattr(Stack(), "derived")
    derived = {"architectures", "placements", "landings", "loads", "nodes", "pool_nodes", "catalog_nodes",
               "pool_groups", "candidates", "pool_index", "groups_by_id", "protection", "autoscaling"}
    assert not derived & {field.name for field in dataclasses.fields(Stack)}
    kept = [path.name for path in sorted((ROOT / "policies" / "model").glob("*.py"))
            if re.search(r"^_[A-Z_]+: PerStack\[", path.read_text(), re.MULTILINE)]
    assert kept == ["disruption.py", "landing.py", "loads.py", "placement.py", "replacement.py", "totals.py"]


def test_one_table_of_well_known_node_labels():
    """Issue 47: kubernetes.io/arch was a constant in five modules. The well-known labels are written once, in
    policies/model/labels.py, and every module names them from there."""
    keys = ("kubernetes.io/arch", "kubernetes.io/os", "kubernetes.io/hostname", "node.kubernetes.io/instance-type",
            "topology.kubernetes.io/zone", "topology.kubernetes.io/region")
    writing = sorted({path.name for path in (ROOT / "policies").rglob("*.py") for key in keys
                      if re.search(rf"""["']{re.escape(key)}["']""", path.read_text())})
    assert writing == ["labels.py"]
    operators = [path.name for path in sorted((ROOT / "policies").rglob("*.py"))
                 if re.search(r"""==\s*["']NotIn["']""", path.read_text())]
    assert operators == ["selectors.py"]  # one matcher of the operators


def test_a_pool_is_named_as_its_source_says():
    """Issue 47: words.py listed the kinds of pools their cluster declares by string, and chose a pool's words by how
    Pods reach it, so a new source had to edit it. A source says how its pools are named (Pool.member) and how large
    they may grow (Pool.most_nodes); the shared words and the size advice read those."""
    # a source's kind is its own: no rule outside policies/model/sources/ chooses by it (workload-disruption-allowed
    # chose its Karpenter words by pool.kind in ("NodePool", "Auto Mode NodePool"))
    choosing = sorted(path.name for path in (ROOT / "policies").rglob("*.py") if "sources" not in path.parts
                      and re.search(r"pool\.kind\s*(==|!=|in\b|not\s+in\b)", path.read_text()))
    assert choosing == []
    # how Pods reach a pool is the landing's answer (a verdict that its labels name it: Landing.named, Placed.named),
    # not a pool's property that rules and messages branch on (placed_by was asked in eleven places)
    asking = sorted(path.name for path in (ROOT / "policies").rglob("*.py") if "placed_by" in path.read_text())
    asking += sorted(path.name for path in (ROOT / "compute_guard").rglob("*.py") if "placed_by" in path.read_text()
                     and "policies" not in path.parts)
    assert asking == []
    for name in ("pool_capacity.py", "workload_rollout_fits.py"):
        assert "MAX_POOL_SIZE" not in (ROOT / "policies" / name).read_text(), name


FIT_HELPERS = {"daemonset_totals", "room", "largest", "packing", "fit", "node_of", "override"}


def test_no_policy_computes_allocatable_or_a_fit_itself():
    """Issue 47: "allocatable minus the DaemonSets" was worked out in six places and "does one Pod fit a node" in
    four. The node model gives allocatable (nodes.py), fit.py the one fit, a node's packing and a resource's room;
    a policy module and the report read them through the pool's load (PoolLoad.fit, .packing, .room, .taken) and
    write their words: none calls a node's allocatable() but words.py (which writes its arithmetic out), and none
    imports the fit's helpers."""
    modules = [*(ROOT / "policies").glob("*.py"), *(ROOT / "compute_guard" / "report").glob("*.py")]
    computing = {}
    for path in sorted(modules):
        if path.name in {"__init__.py", "words.py"}:
            continue
        tree = ast.parse(path.read_text())
        calls = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Attribute) and node.func.attr == "allocatable"]
        helpers = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                   for alias in node.names if alias.name in FIT_HELPERS}
        if calls or helpers:
            computing[path.name] = (len(calls), sorted(helpers))
    # the report draws the node of the pool's machine with the most memory: its allocatable, read once per resource
    assert computing == {"model.py": (1, ["largest"])}


WALK = ["adapters/props.py", "model/values.py", "model/workloads.py", "model/pods.py", "platforms/quantity.py",
        "model/loads.py", "model/fit.py", "workload_fits_pool.py", "words.py"]


def test_a_memory_request_reaches_its_fit_message_through_the_files_contributing_names():
    """Issue 47: a Deployment's memory request reached its fit message through 22 files. A run of one Deployment
    requesting 777Mi on a 512 MiB pool is traced: every function of policies/ that returns the value (as the text
    '777Mi', its bytes, the PodRequest, the Placed workload, the Short, a message saying '777 MiB') is in one of
    the files CONTRIBUTING.md's walk names, in its order, and each of them is on the path."""
    from decimal import Decimal

    from compute_guard.policies.adapters.findings import Violation
    from compute_guard.policies.model.fit import Fit, Short
    from compute_guard.policies.model.loads import Placed
    from compute_guard.policies.model.pods import PodRequest
    from compute_guard.testkit import Analyzer, Resource
    from compute_guard.testkit.analyzer import stack_environment

    value = Decimal(777 << 20)

    def carries(found: object, depth: int = 0) -> bool:
        if isinstance(found, str):
            return "777Mi" in found or "777 MiB" in found
        if isinstance(found, Decimal):
            return found == value
        if isinstance(found, PodRequest):
            return found.amounts.get("memory") == value
        if isinstance(found, (Placed, Violation)):
            return carries(found.request if isinstance(found, Placed) else found.message)
        if isinstance(found, Short):
            return found.requested == value
        if isinstance(found, Fit):
            return any(map(carries, found.short))
        return depth < 2 and isinstance(found, (list, tuple)) and any(carries(item, depth + 1) for item in found[:50])

    files: set[str] = set()

    def tracer(frame: object, event: str, returned: object) -> object:
        name = frame.f_code.co_filename  # type: ignore[attr-defined]
        if event == "return" and "/policies/" in name and carries(returned):
            files.add(name.split("/policies/", 1)[1])
        return tracer

    cluster = Resource.of("compute:index:ComputeCluster", "compute", {"id": "compute", "capacityGroups": [
        {"groupId": "apps", "minSize": 1, "maxSize": 3, "profile": {
            "cpu": "2", "memoryBytes": 512 << 20, "ephemeralStorageBytes": 20 << 30, "architecture": "x86_64"}}]})
    template = {"metadata": {"labels": {"app": "api", "compute.alien.dev/cluster": "compute",
                                        "compute.alien.dev/pool": "apps"}},
                "spec": {"nodeSelector": {"kubernetes.io/arch": "amd64"}, "containers": [
                    {"name": "api", "image": "api:1", "resources": {"requests": {"memory": "777Mi", "cpu": "100m"}}}]}}
    deployment = Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {"name": "api"}, "spec": {
        "replicas": 1, "selector": {"matchLabels": {"app": "api"}}, "template": template}})
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        analyzer = Analyzer()
        sys.settrace(tracer)  # type: ignore[arg-type]
        try:
            result = analyzer.run([cluster, deployment])
        finally:
            sys.settrace(None)
    fits = [found.finding for found in result.violations if found.policy == "workload-fits-pool"]
    assert len(fits) == 1 and "one Pod requests 777 MiB of memory" in fits[0], fits
    # (and templates.py, which hands the policy's findings to the engine)
    assert sorted(files) == sorted({*WALK, "adapters/templates.py"})
    walk = (ROOT / "CONTRIBUTING.md").read_text().split("**From a Deployment's memory request", 1)[1].split(
        "Tests by layer", 1)[0]
    named = re.findall(r"`policies/([a-z_/]+\.py)`", walk)
    assert [path for path in named if path in WALK] == WALK, named


def _layer(parts: tuple[str, ...]) -> int:
    """policies/ from the floor up: the platforms' facts, the model, the adapters to pulumi-policy, the policies and
    their shared words, the package's __init__ that assembles them."""
    if parts[0] in ("platforms", "model", "adapters"):
        return ("platforms", "model", "adapters").index(parts[0])
    return 4 if parts == ("__init__.py",) else 3


def test_no_module_imports_a_layer_above_its_own():
    """Issue 47: a layout test that fails on an import from a lower layer to a higher one (platforms/platform.py
    imported an adapter), TYPE_CHECKING imports counted."""
    upward = []
    for path in sorted((ROOT / "policies").rglob("*.py")):
        parts = path.relative_to(ROOT / "policies").parts
        mine = _layer(parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            base = list(parts[:-1])[: len(parts) - node.level]  # the package the import is relative to
            target = [*base, *(node.module or "").split(".")] if node.module else base
            names = [alias.name for alias in node.names] if not node.module else [""]
            for name in names:
                full = tuple(part for part in [*target, name] if part)
                theirs = _layer((f"{full[-1]}.py",) if len(full) == 1 else full) if full else 4
                if theirs > mine:
                    upward.append(f"{'/'.join(parts)} imports {'.'.join(full)}")
    assert upward == []


def _literals(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module's code (its docstrings left out), with its line."""
    tree = ast.parse(path.read_text())
    docstrings = {id(body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and (body := node.body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


def _outside(*allowed: str) -> list[Path]:
    return [path for path in sorted((ROOT / "policies").rglob("*.py"))
            if not any(path.relative_to(ROOT / "policies").as_posix().startswith(prefix) for prefix in allowed)]


# what a Pod's spec writes of where it runs, and the namespace labels that change or refuse a Pod
ADMITTED_FIELDS = {"nodeSelector", "nodeAffinity", "runtimeClassName"}
NAMESPACE_LABELS = ("pod-security.kubernetes.io/", "cloud.google.com/default-compute-class")


def test_only_admission_and_the_sources_read_where_a_pod_runs_or_a_namespace_label():
    """Issue 77: a Pod's nodeSelector, node affinity and runtimeClassName are read once (admission/written.py) and
    changed by the admission steps (model/admission/, a source's own step), and a Namespace's labels are read by its
    step; a module that reads them itself again (the stack's four passes did) fails here."""
    slips = [f"{path.relative_to(ROOT / 'policies')}:{line} {value!r}"
             for path in _outside("model/admission/", "model/sources/") for line, value in _literals(path)
             if value in ADMITTED_FIELDS or value.startswith(NAMESPACE_LABELS)]
    assert slips == []


def test_the_stack_rebuilds_no_workload():
    """Issue 77: stack.py parses; what admission does to a workload is model/admission/'s (it rebuilt workloads with
    dataclasses.replace in four passes)."""
    tree = ast.parse((ROOT / "policies" / "model" / "stack.py").read_text())
    rebuilt = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
               and (getattr(node.func, "attr", None) == "replace" or getattr(node.func, "id", None) == "replace")
               and node.args and "workload" in ast.unparse(node.args[0]).lower()]
    assert rebuilt == []


PLATFORM_NAMES = {"aws", "gcp", "azure"}


def test_no_platform_name_is_compared_outside_the_sources_and_the_platforms():
    """Issue 77: what differs by platform is a capability its record (platforms/managed.py) or its source
    (model/sources/) gives; no policy or generic model module names a platform to branch on it (support windows,
    reservations, Pod slots and drains did)."""
    slips = [f"{path.relative_to(ROOT / 'policies')}:{line} {value!r}"
             for path in _outside("model/sources/", "platforms/") for line, value in _literals(path)
             if value in PLATFORM_NAMES]
    assert slips == []
