"""The real-CLI layer: one toolchain per test session (scripts/build-pulumi-cli builds it once).

These tests run wherever Go is installed, and always in CI: there a missing Go fails them
instead of skipping them.
"""

from __future__ import annotations

import os
import shutil

import pytest
from pulumi_cli import Toolchain, build_toolchain


@pytest.fixture(scope="session")
def toolchain(tmp_path_factory: pytest.TempPathFactory) -> Toolchain:
    if shutil.which("go") is None:
        if os.environ.get("CI"):
            pytest.fail("Go is needed to build the Pulumi CLI (scripts/build-pulumi-cli), and CI runs these tests")
        pytest.skip("building the Pulumi CLI needs Go")
    return build_toolchain(tmp_path_factory.mktemp("pulumi-home"))
