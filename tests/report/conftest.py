"""Fixtures of the report's tests: the bundled example's resources, and files to read (tests/report_inputs.py
shapes them as the CLI writes them)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from builders import ROOT

from compute_guard.testkit import Resource, capture_program

EXAMPLE = ROOT / "examples" / "kubernetes"


@pytest.fixture(scope="session")
def example() -> Callable[[str], list[Resource]]:
    """The bundled example's resources under mocks, per stack (dev, broken)."""
    cache: dict[str, list[Resource]] = {}

    def resources(stack: str) -> list[Resource]:
        if stack not in cache:
            config = {"compute:platform": "kubernetes", **({"compute-guard-example:demoMistakes": "true"}
                                                           if stack == "broken" else {})}
            cache[stack] = capture_program(EXAMPLE, stack_config=config, project="compute-guard-example",
                                           stack=stack)
        return cache[stack]

    return resources


@pytest.fixture
def write(tmp_path):
    def write(document: Any, name: str = "input.json") -> str:
        path = tmp_path / name
        path.write_text(json.dumps(document))
        return str(path)

    return write
