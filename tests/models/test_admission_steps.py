"""The admission stage's steps (policies/model/admission/, issue 77), each on its own: what the RuntimeClass plugin
merges, in the order the API server runs the steps. Held whole to the API server's own plugins by
tests/oracle/test_admission_oracle.py; these are its in-process twins."""

from compute_guard.policies.model import admission
from compute_guard.policies.model.admission.runtime_class import merge_tolerations

EXISTS = {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}
EQUAL = {"key": "sandbox", "operator": "Equal", "value": "kata", "effect": "NoSchedule"}
ANY_EFFECT = {"key": "sandbox", "operator": "Exists"}
EVERYTHING = {"operator": "Exists"}


def test_tolerations_merge_as_merge_tolerations_does():
    """k8s.io/kubernetes pkg/util/tolerations MergeTolerations: one that another tolerates a superset of is dropped
    (an Exists over an Equal of its key, an empty effect over any, an empty key with Exists over all), the first of
    equal ones is kept, and the rest stay in order."""
    assert merge_tolerations([EQUAL, EXISTS]) == [EXISTS]
    assert merge_tolerations([EXISTS, EQUAL]) == [EXISTS]
    assert merge_tolerations([EXISTS, dict(EXISTS)]) == [EXISTS]
    assert merge_tolerations([EXISTS, ANY_EFFECT]) == [ANY_EFFECT]
    assert merge_tolerations([EQUAL, EVERYTHING]) == [EVERYTHING]
    other = {"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}
    assert merge_tolerations([other, EQUAL]) == [other, EQUAL]
    assert merge_tolerations([EQUAL, {**EQUAL, "value": "gvisor"}]) == [EQUAL, {**EQUAL, "value": "gvisor"}]
    soon = {"key": "gone", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}
    later = {**soon, "tolerationSeconds": 60}
    assert merge_tolerations([later, soon]) == [later]  # staying 60 s after the taint covers staying 30 s
    assert merge_tolerations([soon, later]) == [later]
    assert merge_tolerations([soon, {**soon, "effect": "NoSchedule"}]) == [soon, {**soon, "effect": "NoSchedule"}]


def test_the_steps_run_in_the_api_servers_order():
    """AllOrderedPlugins (pkg/kubeapiserver/options/plugins.go): the namespace first, LimitRanger before RuntimeClass,
    the platforms' mutating webhooks after every built-in plugin."""
    assert [name for name, _ in admission.MUTATING] == ["NamespaceLifecycle", "LimitRanger", "RuntimeClass",
                                                        admission.WEBHOOKS]
