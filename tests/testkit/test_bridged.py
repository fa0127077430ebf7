"""The test kit's picture of a Terraform-bridged provider (compute_guard/testkit/bridged.py): its table held to the
stand-in providers it is written from, and its Check, planned state and Diff on the cases the bridge's own code decides
(pulumi-terraform-bridge pkg/tfbridge/schema.go applyDefaults, nameRequiresDeleteBeforeReplace). The whole of it is
held to the real engine through the stand-ins in tests/cli/test_engine_oracle.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compute_guard.testkit import bridged
from compute_guard.testkit.components import UNKNOWN

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from generate_bridged import TARGET, table  # noqa: E402

ROLE = "urn:pulumi:dev::fleet::aws:iam/role:Role::nodes"
GROUP = "aws:eks/nodeGroup:NodeGroup"


def test_the_table_is_what_the_stand_ins_declare():
    """bridged.json is scripts/generate_bridged.py's output from the stand-ins as built now: a schema changed in
    tests/standin without regenerating it fails here (in CI, where the stand-ins are always built)."""
    built = subprocess.run([str(ROOT / "scripts" / "build-pulumi-cli"), "--built", "standin"], capture_output=True,
                           text=True)
    if built.returncode != 0:
        if os.environ.get("CI") and shutil.which("go"):
            pytest.fail("the stand-in providers are not built: scripts/build-pulumi-cli standin")
        pytest.skip("the stand-in providers are not built")
    standin = Path(built.stdout.strip().splitlines()[-1]) / "compute-guard-standin"
    assert json.loads(TARGET.read_text()) == json.loads(json.dumps(table(standin)))


def test_check_fills_the_schema_defaults_and_the_auto_name_and_lists_them():
    """As pulumi-aws's Check answered for an IAM role under the real engine (a Role with only its policy): its
    defaults, its auto-name, and __defaults listing them in order."""
    checked = bridged.check("aws:iam/role:Role", {"assumeRolePolicy": "{}"}, ROLE, "nodes")
    assert checked == {"assumeRolePolicy": "{}", "forceDetachPolicies": False, "maxSessionDuration": 3600,
                       "path": "/", "name": bridged.auto_name(ROLE, "nodes"),
                       "__defaults": ["forceDetachPolicies", "maxSessionDuration", "name", "path"]}
    assert checked["name"].startswith("nodes-") and len(checked["name"]) == len("nodes-") + 7


def test_a_nested_object_gets_its_own_defaults_and_list():
    checked = bridged.check("aws:eks/cluster:Cluster", {"roleArn": "r", "vpcConfig": {"subnetIds": ["s"]}},
                            "urn:pulumi:dev::fleet::aws:eks/cluster:Cluster::fleet", "fleet")
    assert checked is not None
    assert checked["vpcConfig"] == {"subnetIds": ["s"], "endpointPrivateAccess": False, "endpointPublicAccess": True,
                                    "__defaults": ["endpointPrivateAccess", "endpointPublicAccess"]}
    assert checked["__defaults"] == ["bootstrapSelfManagedAddons", "name"]


def test_a_name_the_program_sets_or_a_prefix_is_no_default():
    urn = "urn:pulumi:dev::fleet::aws:eks/nodeGroup:NodeGroup::general"
    given = {"clusterName": "fleet", "nodeRoleArn": "r", "subnetIds": ["s"],
             "scalingConfig": {"desiredSize": 1, "maxSize": 2, "minSize": 1}}
    named = bridged.check(GROUP, {**given, "nodeGroupName": "general"}, urn, "general")
    assert named is not None and named["__defaults"] == [] and named["nodeGroupName"] == "general"
    prefixed = bridged.check(GROUP, {**given, "nodeGroupNamePrefix": "gen-"}, urn, "general")
    assert prefixed is not None and "nodeGroupName" not in prefixed and prefixed["__defaults"] == []
    auto = bridged.check(GROUP, given, urn, "general")
    assert auto is not None and auto["__defaults"] == ["nodeGroupName"]


def test_an_auto_name_is_kept_while_it_stays_a_default():
    """The previous deployment's name is reused when its __defaults lists it (the bridge's "old default"); a name the
    program had set and no longer sets is made anew."""
    old = {"assumeRolePolicy": "{}", "name": "nodes-1a2b3c4", "__defaults": ["name"]}
    assert bridged.check("aws:iam/role:Role", {"assumeRolePolicy": "{}"}, ROLE, "nodes", old)["name"] == \
        "nodes-1a2b3c4"
    set_before = {"assumeRolePolicy": "{}", "name": "mine", "__defaults": []}
    assert bridged.check("aws:iam/role:Role", {"assumeRolePolicy": "{}"}, ROLE, "nodes", set_before)["name"] == \
        bridged.auto_name(ROLE, "nodes")


def test_a_planned_create_knows_what_the_program_set_and_nothing_the_cloud_computes():
    checked = bridged.check(GROUP, {"clusterName": "fleet", "nodeGroupName": "general", "nodeRoleArn": "r",
                                    "subnetIds": ["s"], "scalingConfig": {"desiredSize": 1, "maxSize": 2,
                                                                          "minSize": 1}},
                            "urn:pulumi:dev::fleet::aws:eks/nodeGroup:NodeGroup::general", "general")
    assert checked is not None
    planned = bridged.planned(GROUP, checked)
    assert planned["nodeGroupName"] == "general" and planned["scalingConfig"] == {"desiredSize": 1, "maxSize": 2,
                                                                                   "minSize": 1}
    assert planned["amiType"] == UNKNOWN and planned["instanceTypes"] == UNKNOWN and planned["id"] == UNKNOWN
    assert planned["labels"] is None and planned["launchTemplate"] is None and planned["taints"] == []
    assert "__defaults" not in planned["scalingConfig"]


def test_a_change_of_a_replacing_field_replaces_and_of_another_updates():
    old = {"clusterName": "fleet", "nodeGroupName": "general", "instanceTypes": ["m7i.large"], "__defaults": [],
           "scalingConfig": {"desiredSize": 1, "maxSize": 2, "minSize": 1, "__defaults": []}}
    assert bridged.change(GROUP, old, old) == bridged.SAME
    assert bridged.change(GROUP, {**old, "instanceTypes": ["m7i.xlarge"]}, old) == bridged.REPLACE
    assert bridged.change(GROUP, {**old, "scalingConfig": {"desiredSize": 1, "maxSize": 3, "minSize": 1}},
                          old) == bridged.UPDATE
    assert bridged.change(GROUP, {**old, "instanceTypes": [UNKNOWN]}, old) == bridged.REPLACE
    assert bridged.change(GROUP, {**old, "scalingConfig": {"desiredSize": 1.0, "maxSize": 2.0, "minSize": 1.0}},
                          old) == bridged.SAME  # (numbers from the wire are floats)


def _force_new(fields: dict, prefix: str = "") -> list[str]:
    """The paths of a type's fields its schema marks ForceNew (a parent's before its children's)."""
    found = []
    for key, field in fields.items():
        path = f"{prefix}{key}"
        if field.get("forceNew"):
            found.append(path)
        found.extend(_force_new(field.get("fields") or {}, f"{path}."))
    return found


POOL_TYPES = sorted(kind for kind in json.loads(TARGET.read_text())
                    if kind.split(":")[1].split("/")[0] in ("eks", "container", "autoscaling"))


@pytest.mark.parametrize("kind", POOL_TYPES)
def test_every_field_the_providers_schema_forces_new_is_a_replacing_input_of_the_pack(kind):
    """Issue 66's planted-bug audit: with capacityType dropped from the EKS node group's replacing inputs every fast test
    passed, because the table tests were parametrized over the pack's own table (a missing row only removed a case).
    Here the table is held to the stand-ins' schemas, which declare the fields as the upstream Terraform providers do
    (tests/standin): each field they force new is one of the pack's replacing inputs, or under one; a row missing
    from the pack fails here. (The stand-ins declare the fields the tests use, so the pack's table may hold more.)"""
    from compute_guard.policies.model.sources import replacing_of

    rule = replacing_of(kind)
    forced = _force_new(json.loads(TARGET.read_text())[kind]["fields"])
    if rule is None:
        assert kind == "aws:eks/fargateProfile:FargateProfile" or kind == "aws:eks/addon:Addon", (kind, forced)
        return
    inputs = (*rule.inputs, *rule.rotated)
    missing = [path for path in forced if not any(path == given or path.startswith(f"{given}.") for given in inputs)]
    assert missing == [], f"{kind}: forced new by its provider's schema, not in the pack's table: {missing}"
