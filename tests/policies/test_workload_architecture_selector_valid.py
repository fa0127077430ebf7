"""workload-architecture-selector-valid: a workload's own architecture constraints can be met."""

import pulumi_kubernetes as k8s
import pytest
from builders import AMD64, KINDS, analyze, run, workload

POLICY = "workload-architecture-selector-valid"


def terms(*expressions_per_term):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": list(exprs)} if exprs is not None else {}
                              for exprs in expressions_per_term]}}}


def arch(operator, *values, key="kubernetes.io/arch"):
    expression = {"key": key, "operator": operator}
    if values:
        expression["values"] = list(values)
    return expression


def findings(**kwargs):
    return run(workload("Deployment", "api", **kwargs), platform=None).findings(POLICY)


@pytest.mark.parametrize("kind, group, path", KINDS, ids=[f"{k}-{g.__name__ if g else 'core'}" for k, g, _ in KINDS])
def test_every_kind_and_api_version_is_read_at_its_pod_spec(kind, group, path):
    result = run(workload(kind, "w", group=group, node_selector={"kubernetes.io/arch": "x86_64"}), platform=None)
    (finding,) = result.findings(POLICY)
    assert finding == (f"{kind} 'w': {path}.nodeSelector['kubernetes.io/arch'] 'x86_64' is not a Kubernetes "
                       "architecture; Kubernetes calls it 'amd64'")


def test_patches_are_checked_for_what_they_set():
    def patch():
        k8s.apps.v1.DeploymentPatch("api", metadata={"name": "api"}, spec={"template": {"spec": {
            "nodeSelector": {"kubernetes.io/arch": "aarch64"}}}})

    (finding,) = run(patch, platform=None).findings(POLICY)
    assert finding.startswith("DeploymentPatch 'api': spec.template.spec.nodeSelector['kubernetes.io/arch'] "
                              "'aarch64' is not a Kubernetes architecture; Kubernetes calls it 'arm64'")


@pytest.mark.parametrize("kwargs, expected", [
    (dict(node_selector={"beta.kubernetes.io/arch": "x86_64"}), "nodeSelector['beta.kubernetes.io/arch'] 'x86_64'"),
    (dict(node_selector={"kubernetes.io/arch": "sparc"}), "'sparc' is not a Kubernetes architecture; use one of"),
    (dict(affinity=terms([arch("In", "amd64", "x86_64")])),
     "nodeSelectorTerms[0].matchExpressions[0].values[1] 'x86_64' is not a Kubernetes architecture"),
    (dict(node_selector=AMD64, affinity=terms([arch("In", "arm64")])), "allow no CPU architecture"),
    (dict(node_selector={"kubernetes.io/arch": "amd64", "beta.kubernetes.io/arch": "arm64"}),
     "allow no CPU architecture"),
    (dict(affinity=terms([arch("DoesNotExist")])), "allow no CPU architecture"),
    (dict(affinity=terms([arch("Gt", "1")])), "allow no CPU architecture"),
    (dict(affinity=terms(None)), "allow no CPU architecture"),  # a term with no expressions matches nothing
    (dict(affinity=terms([arch("NotIn", "amd64")], [arch("In", "amd64"), arch("NotIn", "amd64")])),
     None),  # ORed terms: the first still allows arm64 and others
    (dict(affinity=terms()), "nodeSelectorTerms is empty, so it matches no node"),
    (dict(affinity=terms([arch("Equals", "amd64")])), "matchExpressions[0].operator must be one of In, NotIn"),
    (dict(node_selector={"kubernetes.io/arch": 64}), "nodeSelector['kubernetes.io/arch'] must be a string, not a number"),
])
def test_constraints(kwargs, expected):
    found = findings(**kwargs)
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and expected in found[0], found


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(node_selector=AMD64),
    dict(node_selector={"disktype": "ssd"}),
    dict(affinity=terms([arch("In", "amd64", "arm64"), arch("NotIn", "arm64")])),
    dict(affinity=terms([arch("Exists")])),
    dict(affinity=terms([{"key": "zone", "operator": "In", "values": ["a"]}])),
    dict(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchExpressions": [arch("In", "arm64")]}}]}}),
    dict(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}}),
])
def test_satisfiable_constraints_pass(kwargs):
    assert findings(**kwargs) == []


def test_other_resources_are_ignored():
    assert analyze("kubernetes:core/v1:Service", {"spec": {"nodeSelector": {"kubernetes.io/arch": "x86_64"}}},
                   name="svc").violations == []
    assert analyze("acme:apps/v1:Deployment", {"spec": {"template": {"spec": {"nodeSelector": {
        "kubernetes.io/arch": "x86_64"}}}}}, name="x").violations == []


def test_values_that_are_not_a_list_are_named():
    from compute_guard.policies.model.architecture import architecture_constraint
    from compute_guard.policies.workload_architecture_selector_valid import said

    affinity = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/arch", "operator": "In", "values": "amd64"}]}]}}
    constraint = architecture_constraint(None, affinity, "spec")
    assert [said(problem) for problem in constraint.problems] == [
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        ".matchExpressions[0].values must be a list of architectures, not a string"]
    assert constraint.allowed == frozenset()


def test_constraints_that_allow_no_architecture_say_so_in_full():
    (found,) = findings(node_selector=AMD64, affinity=terms([arch("In", "arm64")]))
    assert found.endswith(": its nodeSelector and required node affinity together allow no CPU architecture, so its "
                          "Pods can never be scheduled; make them agree on one architecture")
