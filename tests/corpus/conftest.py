"""The shared corpus, read once per module for the corpus tests."""

import os

import pytest
from test_corpus import CORPUS, corpus_resources, is_workload


@pytest.fixture(scope="module")
def corpus():
    if not CORPUS.is_dir():  # CI always has it beside the clone: there its absence is a failure
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"the shared corpus is not at {CORPUS}")
    resources = corpus_resources()
    workloads = [r for r in resources if is_workload(r)]
    assert len(resources) > 300 and len(workloads) > 100
    assert {r.type.rsplit(":", 1)[-1] for r in workloads} >= {"Pod", "Deployment", "ReplicationController",
                                                                "StatefulSet", "DaemonSet"}
    return resources, workloads
