"""workload-api-available's table (policies/platforms/data/removed_apis.json) against Kubernetes' own k8s.io/api at the
oracle's release: every kind whose type says it is removed in a release up to the oracle's is in the table with that
release and its replacement, and the table holds nothing the types contradict. Kinds whose packages a later k8s.io/api
deleted (autoscaling/v2beta2) come from earlier releases' generated files (scripts/generate_removed_apis.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kube_oracle import ask

from compute_guard.policies.platforms.apis import DATA, removals

ROOT = Path(__file__).resolve().parents[2]


def oracle_release() -> tuple[int, int]:
    found = re.search(r"^\s*k8s\.io/api v0\.(\d+)\.", (ROOT / "tests" / "oracle" / "go.mod").read_text(), re.MULTILINE)
    assert found is not None
    return (1, int(found.group(1)))


def test_the_table_says_what_k8s_io_api_says():
    answer = ask({"removed": True})["removed"]
    release = oracle_release()
    table = removals()
    assert json.loads(DATA.read_text())["kubernetes"].startswith(f"{release[0]}.{release[1]}.")
    checked = 0
    for entry in answer:
        token = f"kubernetes:{entry['group'] or 'core'}/{entry['version']}:{entry['kind']}"
        at = tuple(int(part) for part in entry["removed"].split("."))
        if at > release:
            assert token not in table, token  # a planned removal is not a fact yet
            continue
        assert token in table, token
        assert (table[token].removed, table[token].replacement) == (at, entry["replacement"]), token
        checked += 1
    assert checked > 50
    # what the deprecation guide lists for the kinds policy 27 judges, as kubernetes.io writes it
    assert table["kubernetes:policy/v1beta1:PodDisruptionBudget"].removed == (1, 25)
    assert table["kubernetes:batch/v1beta1:CronJob"].removed == (1, 25)
    assert table["kubernetes:autoscaling/v2beta2:HorizontalPodAutoscaler"].removed == (1, 26)
    assert table["kubernetes:autoscaling/v2beta1:HorizontalPodAutoscaler"].removed == (1, 25)
    assert table["kubernetes:extensions/v1beta1:Deployment"].removed == (1, 16)
