"""PackState: what one pack process keeps between requests, and when it parses again.

The policies' tests see its results; these pin the caching contract itself (one parse per
request, a new parse when anything changed), since a cache that never hits or always hits
would otherwise pass every verdict test.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from builders import valid_cluster_props

from compute_guard.policies.adapters.state import PackState
from compute_guard.policies.model.sources.compute_cluster import configuration as cluster_configuration
from compute_guard.policies.model.values import Unknown

CLUSTER_TYPE = "compute:index:ComputeCluster"
URN = f"urn:pulumi:stack::project::{CLUSTER_TYPE}::compute"


class Props(Mapping[str, Any]):
    """A stand-in for the SDK's props proxy: a mapping over the message it reads, ``source``."""

    def __init__(self, source: dict[str, Any]) -> None:
        self.source = source

    def __getitem__(self, key: str) -> Any:
        return self.source[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.source)

    def __len__(self) -> int:
        return len(self.source)


@dataclass(frozen=True)
class Resource:
    resource_type: str
    props: Any
    urn: str
    name: str


def cluster_resource(props: Any, name: str = "compute") -> Resource:
    return Resource(CLUSTER_TYPE, props, f"urn:pulumi:stack::project::{CLUSTER_TYPE}::{name}", name)


def test_one_stack_request_is_parsed_once_for_all_stack_policies() -> None:
    state = PackState()
    message = valid_cluster_props()
    first = state.stack([cluster_resource(Props(message))])
    # each stack policy gets its own list of its own props proxies, over the same message
    again = state.stack([cluster_resource(Props(message))])
    assert again is first
    assert [entry.label for entry in first.clusters] == ["compute"]


def test_a_new_request_is_parsed_again() -> None:
    state = PackState()
    first = state.stack([cluster_resource(valid_cluster_props())])
    assert state.stack([cluster_resource(valid_cluster_props())]) is not first  # equal, but another message
    longer = state.stack([cluster_resource(valid_cluster_props()), cluster_resource(valid_cluster_props(id="b"), "b")])
    assert [entry.label for entry in longer.clusters] == ["compute", "b"]
    assert len(state.stack([cluster_resource(valid_cluster_props())]).clusters) == 1


def test_the_clusters_seen_in_analyze_are_one_stack_rebuilt_only_when_one_more_is_seen() -> None:
    state = PackState()
    state.cluster(Props(valid_cluster_props()), URN, "compute")
    stack, declared = state.seen_stack()
    assert state.seen_stack()[0] is stack
    assert [(entry.urn, entry.name, entry.label) for entry in stack.clusters] == [(URN, "compute", "compute")]
    assert declared.architectures == ("x86_64",)
    other = URN.replace("::compute", "::other")
    state.cluster(Props(valid_cluster_props(id="other")), other, "other")
    grown, _ = state.seen_stack()
    assert grown is not stack
    assert [entry.name for entry in grown.clusters] == ["compute", "other"]


def test_a_cluster_analyzed_again_with_other_inputs_rebuilds_the_seen_stack() -> None:
    """The same URN seen again (the engine's second request for it, other inputs): the cache would be stale."""
    state = PackState()
    state.cluster(Props(valid_cluster_props()), URN, "compute")
    _, declared = state.seen_stack()
    assert declared.architectures == ("x86_64",)
    arm = valid_cluster_props()
    arm["capacityGroups"][0]["profile"]["architecture"] = "arm64"
    state.cluster(Props(arm), URN, "compute")
    assert state.seen_stack()[1].architectures == ("arm64",)


def test_the_policies_of_one_analyze_request_share_one_parse() -> None:
    state = PackState()
    props = Props(valid_cluster_props())
    parsed = state.cluster(props, URN, "compute")
    assert state.cluster(props, URN, "compute") is parsed
    assert state.cluster(Props(props.source), URN, "compute") is parsed  # the same message
    assert state.cluster(Props(dict(props.source)), URN, "compute") is not parsed  # another request
    assert state.cluster(props, URN.replace("::compute", "::other"), "other") is not parsed  # another resource
    assert state.seen_inputs[URN] is not parsed.model  # the latest inputs are kept


def test_outputs_in_either_spelling_are_the_clusters_configuration() -> None:
    snake = valid_cluster_props()
    snake["capacity_groups"] = snake.pop("capacityGroups")
    configuration = cluster_configuration(snake, URN, "compute", {})
    assert not isinstance(configuration, Unknown)
    assert [pool.group_id for pool in configuration.pools] == ["apps"]


def test_without_pools_in_the_outputs_the_inputs_seen_are_used_else_it_is_not_known() -> None:
    seen = cluster_configuration(valid_cluster_props(), URN, "compute", {})
    assert cluster_configuration({"id": "compute"}, URN, "compute", {URN: seen}) is seen
    missing = cluster_configuration({"id": "compute"}, URN, "compute", {})
    assert isinstance(missing, Unknown)


def test_a_baseline_setting_that_is_not_a_path_is_as_good_as_none(monkeypatch) -> None:
    """The engine validates it as a string; past that, a number is not read as a path (never raises)."""
    monkeypatch.setenv("PULUMI_BACKEND_URL", "file:///nonexistent-compute-guard-backend")
    state = PackState()
    assert state.baseline(7) == state.baseline(None)
