"""What a policy could not check reaches the user whole (issue 57): the SDK shows one note per policy and resource, one
per stack policy, so a note that named only the first unknown hid every other workload the policy could not judge
(in a two-cluster program, a Windows Pod on a cluster with no Windows pool was silent behind another workload's
note). One note lists each distinct check, in order, the first ten and how many more; a violation is never held
back by one."""

from __future__ import annotations

import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from compute_guard.policies.adapters.findings import NOTED, Violation, report
from compute_guard.policies.model.values import Unknown, about, child, reading, secret, undetermined
from compute_guard.testkit.analyzer import PolicyViolation


def reported(findings, named=True):
    said = []
    try:
        report(findings, lambda message, urn: said.append((message, urn)), named)
    except UnknownValueError as error:
        return said, error.message
    return said, None


def test_one_unknown_is_said_in_its_own_words():
    assert reported([undetermined("Deployment 'a': x is not known")]) == ([], "Deployment 'a': x is not known")


def test_every_unknown_is_listed_in_one_note_in_order_without_repeats():
    said, note = reported([undetermined("Deployment 'a': one"), Violation("boom", "urn:a"),
                           undetermined("Deployment 'b': two"), undetermined("Deployment 'a': one"),
                           undetermined("Pod 'c': three")])
    assert said == [("boom", "urn:a")]
    assert note == "3 checks could not be made: (1) Deployment 'a': one; (2) Deployment 'b': two; (3) Pod 'c': three"


def test_past_ten_the_note_counts_the_rest():
    said, note = reported([undetermined(f"Deployment 'w{index}': not known") for index in range(NOTED + 3)])
    assert note is not None and note.startswith(f"{NOTED + 3} checks could not be made: (1) Deployment 'w0'")
    assert f"({NOTED}) Deployment 'w{NOTED - 1}': not known; and 3 more not listed" in note
    assert f"({NOTED + 1})" not in note


def test_a_secret_in_one_of_them_stays_secret():
    _, note = reported([undetermined(f"Deployment 'a': pool {secret('hidden-pool')}"), undetermined("Pod 'b': y")])
    assert note is not None and "hidden-pool" not in note and "[secret]" in note


def test_the_sdks_own_unknown_is_said_of_the_resource_it_is_about():
    raw = Unknown(UnknownValueError(UNKNOWN_STRING_VALUE, ["spec", "replicas"]))
    named = about("Deployment 'api'", raw)
    assert named.said == "Deployment 'api': string value at .spec.replicas can't be known during preview"
    assert raw.said == "string value at .spec.replicas can't be known during preview"
    _, note = reported([named, undetermined("Pod 'b': y")])
    assert note is not None and "(1) Deployment 'api': string value at .spec.replicas" in note
    already = undetermined("Deployment 'api': its pool is not known")
    assert about("Deployment 'api'", already).said == "Deployment 'api': its pool is not known"


def test_a_value_read_for_a_resource_says_whose_it_is():
    """What is read under reading() is that resource's: the SDK's unknown raised while reading is said of it."""
    with reading("ComputeCluster 'compute'"):
        found = child(_Raising(), "id")
    assert isinstance(found, Unknown) and found.said.startswith("ComputeCluster 'compute': string value at .id")
    assert child(_Raising(), "id").said.startswith("string value at .id")


class _Raising(dict):
    def get(self, key, default=None):
        raise UnknownValueError(UNKNOWN_STRING_VALUE, [key])


@pytest.mark.parametrize("count", [1, 2, 3, NOTED, NOTED + 4])
def test_the_test_kit_reads_each_reason_back(count):
    messages = [f"Deployment 'w{index}': a; b (c); d" for index in range(count)]
    _, note = reported([undetermined(message) for message in messages])
    item = PolicyViolation("p", "advisory", f"can't run policy 'p' from policy pack 'x@v1' during preview: {note}", "")
    assert item.reasons == tuple(messages[:NOTED])
