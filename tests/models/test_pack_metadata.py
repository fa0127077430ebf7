"""What the pack tells the engine about itself: its version and the schema of shared settings.

Both are computed once at import, so the verdict tests never see a mistake in them; these call
them directly.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import jsonschema
import pytest

from compute_guard.policies import _pack_version
from compute_guard.policies.adapters.templates import moved_setting


@pytest.mark.parametrize("text, version", [
    ("description: a pack\nruntime: python\nversion: 2.3.4\n", "2.3.4"),  # as the CLI writes it: last
    ("version: '1.0.0-rc.1'\nruntime: python\n", "1.0.0-rc.1"),
    ('runtime:\n  name: python\nversion: "0.9.1"\n', "0.9.1"),
    ("description: no version yet\n", "0.0.0"),
])
def test_the_version_is_the_one_pulumipolicy_yaml_declares(tmp_path: Path, text: str, version: str) -> None:
    (tmp_path / "PulumiPolicy.yaml").write_text(text)
    assert _pack_version(tmp_path) == version


def test_the_first_directory_holding_the_yaml_gives_the_version(tmp_path: Path) -> None:
    (tmp_path / "PulumiPolicy.yaml").write_text("version: 4.5.6\n")  # the staged pack: policies two levels down
    assert _pack_version(tmp_path / "compute_guard", tmp_path) == "4.5.6"


def test_installed_without_the_yaml_the_distribution_carries_the_version(tmp_path: Path) -> None:
    assert _pack_version(tmp_path) == importlib.metadata.version("compute-guard")


def test_a_moved_setting_refuses_every_value_and_says_where_it_went() -> None:
    schema = moved_setting("helm-release-unchecked")
    assert schema["enum"] == ["moved: set the enforcementLevel of the policy helm-release-unchecked instead"]
    assert schema["description"].startswith("Moved to the policy helm-release-unchecked: advisory by default")
    for value in ("advisory", "enforce", "Enforce", "mandatory", "", None, True, ["enforce"]):  # 0.1.0's values too
        with pytest.raises(jsonschema.ValidationError, match="helm-release-unchecked"):
            jsonschema.validate(value, schema)
