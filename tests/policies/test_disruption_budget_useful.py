"""disruption-budget-useful: every budget protects Pods and lets a drain move them (SPEC section 15, policy 18)."""

import pytest

from compute_guard.policies.model.budgets import parse_budget
from compute_guard.policies.model.values import undetermined
from compute_guard.testkit import Analyzer, Resource
from compute_guard.testkit.analyzer import stack_environment

POLICY = "disruption-budget-useful"


def deployment(name="api", replicas=3, labels=None, namespace=None):
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    spec = {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name, **(labels or {})}},
                         "spec": {"containers": [{"name": name, "image": f"example.test/{name}:1"}]}}}
    return Resource.of("kubernetes:apps/v1:Deployment", name, {"metadata": metadata, "spec": spec})


def budget(name="api", selector=None, *, namespace=None, **spec):
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return Resource.of("kubernetes:policy/v1:PodDisruptionBudget", name, {
        "metadata": metadata, "spec": {"selector": {"matchLabels": {"app": "api"}} if selector is None else selector,
                                       **spec}})


def findings(*resources):
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        result = Analyzer({}).run(list(resources))
    assert all(violation.level == "advisory" for violation in result.of(POLICY))
    return result.findings(POLICY)


# The eviction API's arithmetic, written out (Kubernetes' disruption controller): allowed = replicas - desired.
@pytest.mark.parametrize(("replicas", "spec", "blocks"), [
    (3, {"minAvailable": "90%"}, True),  # ceil(2.7) = 3 of 3
    (5, {"minAvailable": "50%"}, False),  # ceil(2.5) = 3 of 5: two may go
    (3, {"minAvailable": 3}, True),
    (3, {"minAvailable": 2}, False),
    (3, {"minAvailable": 4}, True),
    (3, {"maxUnavailable": "10%"}, False),  # ceil(0.3) = 1 may go
    (3, {"maxUnavailable": 1}, False),
    (1, {"minAvailable": "50%"}, True),  # ceil(0.5) = 1 of 1
    (2, {"minAvailable": "50%"}, False),
])
def test_a_budget_that_allows_no_eviction_at_its_replicas(replicas, spec, blocks):
    found = findings(deployment(replicas=replicas), budget(**spec))
    assert bool(found) == blocks, found


def test_the_message_shows_the_rounding_and_the_fix():
    assert findings(deployment(replicas=3), budget(minAvailable="90%")) == [
        "PodDisruptionBudget 'api': it selects the 3 Pods of Deployment 'api', and minAvailable 90% of 3 = 3 (rounded "
        "up) keeps all 3 of them: it allows no eviction, so every drain of a node they run on (a node upgrade, a "
        "machine change) is blocked: a drain fails, or retries until the budget allows an eviction: lower "
        "minAvailable to at most 2, use maxUnavailable: 1, or add replicas"]
    assert findings(deployment(replicas=3), budget(maxUnavailable=0)) == [
        "PodDisruptionBudget 'api': it selects the Pods of Deployment 'api', and maxUnavailable 0 allows no eviction "
        "at any number of replicas: every drain of a node they run on (a node upgrade, a machine change) is blocked: "
        "a drain fails, or retries until the budget allows an eviction: allow one (maxUnavailable: 1)"]


def test_a_budget_that_selects_nothing_names_the_label_it_likely_meant():
    assert findings(deployment(), budget(selector={"matchLabels": {"app": "apii"}}, maxUnavailable=1)) == [
        "PodDisruptionBudget 'api': its selector matches the Pods of no workload of namespace 'default' in the stack, "
        "so it protects nothing: make its selector match the labels of the Pods it is for (did you mean app=api, a label "
        "of the Pods of Deployment 'api'?), or remove it"]
    (message,) = findings(deployment(namespace="shop"),
                          budget(selector={"matchLabels": {"app": "cart"}}, namespace="shop", maxUnavailable=1))
    assert "no workload of namespace 'shop' in the stack" in message and "did you mean" not in message


def test_selectors_match_as_the_api_matches_them():
    expressions = {"matchExpressions": [{"key": "app", "operator": "In", "values": ["api", "web"]}]}
    assert findings(deployment(), budget(selector=expressions, maxUnavailable=1)) == []
    assert findings(deployment(), budget(selector={}, maxUnavailable=1)) == []  # policy/v1: every Pod
    excluded = {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["api"]}]}
    assert len(findings(deployment(), budget(selector=excluded, maxUnavailable=1))) == 1
    # another namespace's workload is not selected
    assert len(findings(deployment(namespace="other"), budget(namespace="shop", maxUnavailable=1))) == 1


def test_what_it_cannot_see_is_a_note_not_a_finding():
    release = Resource.of("kubernetes:helm.sh/v3:Release", "shop", {"chart": "shop"})
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        result = Analyzer({}).run([release, budget(selector={"matchLabels": {"app": "cart"}}, maxUnavailable=1)])
    assert result.findings(POLICY) == []
    assert any("Helm v3 Releases" in note.finding for note in result.notes if note.policy == POLICY)


def test_a_budget_on_another_provider_than_its_workload_is_a_note():
    """The workload runs through a provider that targets an EKS cluster, the budget through the default provider:
    the pack cannot tell they share a cluster, so neither 'it protects nothing' nor 'it blocks' is certain."""
    import dataclasses

    eks = Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet", "roleArn": "arn:aws:iam::1:role/eks"})
    provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", "fleet-k8s", {"kubeconfig": "x"}),
                                   property_dependencies={"kubeconfig": (eks.urn,)})
    api = dataclasses.replace(deployment(), provider=provider.urn)
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        result = Analyzer({}).run([eks, provider, api, budget(minAvailable=3)])
    assert result.findings(POLICY) == []
    assert [note.finding.rsplit(": ", 1)[-1] for note in result.notes if note.policy == POLICY] == [
        "a PodDisruptionBudget selects the Pods of a workload whose cluster or namespace may not be its own"]
    # on the workload's own provider, the budget is judged: 3 of 3 kept
    with stack_environment({"compute:platform": "aws"}, "project", "stack", True):
        result = Analyzer({}).run([eks, provider, api, dataclasses.replace(budget(minAvailable=3),
                                                                          provider=provider.urn)])
    assert len(result.findings(POLICY)) == 1


def test_a_secret_selector_value_hides_which_workload_the_budget_selects():
    """SPEC section 4: which Pods a budget selects follows from its selector; with a secret value there, the message
    names none of them (the secret sweep found 'it selects the Pods of StatefulSet ...' telling the value)."""
    secret = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "api"}
    (message,) = findings(deployment(replicas=3), budget(selector={"matchLabels": {"app": secret}}, maxUnavailable=0))
    assert message.startswith("PodDisruptionBudget 'api': it selects the Pods of [secret], and maxUnavailable 0")
    assert "Deployment 'api'" not in message


def test_a_budget_over_many_workloads_names_ten_and_counts_the_rest():
    """A budget selecting twelve workloads: its message lists ten (sorted by name) and says how many more."""
    workloads = [deployment(f"w{index:02}", replicas=1, labels={"tier": "web"}) for index in range(12)]
    (message,) = findings(*workloads, budget(selector={"matchLabels": {"tier": "web"}}, maxUnavailable=0))
    named = ", ".join(f"Deployment 'w{index:02}'" for index in range(10))
    assert f"it selects the Pods of {named} and 2 more, and maxUnavailable 0" in message, message
    (message,) = findings(*workloads[:10], budget(selector={"matchLabels": {"tier": "web"}}, maxUnavailable=0))
    assert f"it selects the Pods of {named}, and maxUnavailable 0" in message, message


def test_a_budget_whose_spec_is_not_known_keeps_its_name_and_namespace():
    """Its spec not known (a preview): the budget is still the one named, in its namespace, and what is not known is
    its spec, which every later use of it reports."""
    spec = undetermined("spec")
    budget = parse_budget("kubernetes:policy/v1:PodDisruptionBudget",
                          {"metadata": {"name": "web", "namespace": "prod"}, "spec": spec}, "urn:web", "web")
    assert budget is not None
    assert (budget.urn, budget.subject, budget.namespace) == ("urn:web", "PodDisruptionBudget 'web'", "prod")
    assert budget.unknown is spec and budget.selector is spec and budget.readable


def test_a_secret_pod_label_that_decides_the_selection_hides_which_workload_it_is():
    """SPEC section 4, issue 46's audit: a Pod label from a secret decides that budget 'pdb' selects Deployment
    'checkout'; the message names neither that workload nor the label's value (selecting it tells the value)."""
    secret = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "shop"}
    (message,) = findings(deployment("checkout", labels={"tier": secret}),
                          budget("pdb", selector={"matchLabels": {"tier": "shop"}}, maxUnavailable=0))
    assert message.startswith("PodDisruptionBudget 'pdb': it selects the Pods of [secret], and maxUnavailable 0")
    assert "checkout" not in message and "shop" not in message


@pytest.mark.parametrize("platform, pools, says", [
    ("aws", "eks", "(a node upgrade, a machine change) is blocked: EKS fails the update with PodEvictionFailure: "),
    ("gcp", "gke", "(a node upgrade, a machine change) is blocked: GKE waits up to an hour on the budget, then evicts "
                   "them anyway: "),
    ("azure", "aks", "(a node upgrade, a machine change) is blocked: AKS stops the upgrade on the blocking budget: "),
    ("aws", "karpenter", "(a node upgrade, a machine change, Karpenter consolidation) is blocked: Karpenter waits on "
                         "the budget and never finishes replacing the nodes: "),
])
def test_a_blocking_budget_says_what_its_platforms_drain_does(platform, pools, says):
    """Issue 66: every blocking budget was said to make a drain wait "for ever" through "Karpenter consolidation", on
    GKE, AKS and EKS clusters without Karpenter. Each platform's drain as its docs say it (model/disruption.py); the
    hint applied (maxUnavailable: 1) leaves nothing."""
    import builders

    declared = {"eks": lambda: builders.node_group("general", ["m7i.large"]),
                "gke": lambda: builders.gke_node_pool("general", "e2-standard-4"),
                "aks": lambda: builders.aks_node_pool("apps", "Standard_D4s_v5"),
                "karpenter": lambda: [builders.node_class(), builders.nodepool("general", [
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}])]}[pools]()
    parts = declared if isinstance(declared, list) else [declared]

    def budget_of(**spec):
        import pulumi_kubernetes as k8s

        def declare():
            return k8s.policy.v1.PodDisruptionBudget("api", metadata={"name": "api"}, spec={
                "selector": {"matchLabels": {"app": "api"}}, **spec})
        return declare
    api = builders.deployment("api", requests={"cpu": "100m"}, spec={"replicas": 2})
    (message,) = builders.run(*parts, api, budget_of(maxUnavailable=0), platform=platform).findings(POLICY)
    assert f"every drain of a node they run on {says}allow one (maxUnavailable: 1)" in message, message
    assert builders.run(*parts, api, budget_of(maxUnavailable=1), platform=platform).findings(POLICY) == []


def test_what_a_budget_may_select_is_said_of_it_and_of_the_workload():
    """A workload whose Pods' labels are not known yet may be selected by any budget of the stack: a budget that
    selects nothing for certain then protects nothing only maybe (said, not advised against), and a workload it
    certainly selects with one budget may have a second (workload-disruption-allowed says so of it); a budget whose
    selector is not known yet is said too. The loose workload's labels known, each is judged."""
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

    loose = deployment("loose", labels={"team": UNKNOWN_STRING_VALUE})
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        result = Analyzer({}).run([deployment(), loose, budget(maxUnavailable=1),
                                   budget("other", selector={"matchLabels": {"team": "x"}}, maxUnavailable=1)])
    assert result.findings(POLICY) == [] and result.findings("workload-disruption-allowed") == []
    said = " ".join(note.finding for note in result.notes if note.policy in (POLICY, "workload-disruption-allowed"))
    assert "string value at .spec.template.metadata.labels.team" in said or "labels" in said, said
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        known = Analyzer({}).run([deployment(), deployment("loose", labels={"team": "y"}), budget(maxUnavailable=1),
                                  budget("other", selector={"matchLabels": {"team": "x"}}, maxUnavailable=1)])
    assert [found.split(":")[0] for found in known.findings(POLICY)] == ["PodDisruptionBudget 'other'"]
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        late = Analyzer({}).run([deployment(), budget(selector={"matchLabels": {"app": UNKNOWN_STRING_VALUE}},
                                                      maxUnavailable=0)])
    assert late.findings(POLICY) == []
    assert [note for note in late.notes if note.policy == POLICY], late.notes


def test_a_budget_that_selects_nothing_beside_an_operators_resource_is_said_naming_it():
    """A budget that selects no workload of its namespace, beside a custom resource there whose operator may make the
    Pods it is for: said, naming the resource, not advised against; the resource in another namespace of the same
    cluster: advised against as protecting nothing."""
    runners = Resource.of("kubernetes:actions.example.com/v1:RunnerSet", "runners",
                          {"metadata": {"name": "runners", "namespace": "ci"}})
    elsewhere = Resource.of("kubernetes:actions.example.com/v1:RunnerSet", "runners",
                            {"metadata": {"name": "runners", "namespace": "other"}})
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        result = Analyzer({}).run([runners, budget("ci", selector={"matchLabels": {"app": "runner"}}, namespace="ci",
                                                   maxUnavailable=1)])
    assert result.findings(POLICY) == []
    assert any(note.finding.endswith("a PodDisruptionBudget selects no workload of the stack, and the Pods it is for "
                                     "may be those an operator creates for RunnerSet 'runners'")
               for note in result.notes if note.policy == POLICY), result.notes
    with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
        other = Analyzer({}).run([elsewhere, budget("ci", selector={"matchLabels": {"app": "runner"}}, namespace="ci",
                                                    maxUnavailable=1)])
    assert [found.split(":")[0] for found in other.findings(POLICY)] == ["PodDisruptionBudget 'ci'"]


def test_an_hpa_that_may_scale_the_workload_keeps_a_budget_from_being_refused():
    """A first preview: an HPA whose scaleTargetRef.name (or namespace) is an output not known yet may keep 3 Pods of
    the Deployment its budget selects, so minAvailable 1 may let two go: a note, never the refusal at 1 replica (a
    false violation before: the HPA was dropped and the budget refused). Its target known, the count is 3 and the budget
    is clean; no HPA at all, refused; an HPA of another kind, or asking no more, decides nothing."""
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

    def hpa(name=UNKNOWN_STRING_VALUE, minimum=3, kind="Deployment", namespace=None):
        metadata = {"name": "api", **({"namespace": namespace} if namespace else {})}
        return Resource.of("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "api", {"metadata": metadata, "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": name}, "minReplicas": minimum,
            "maxReplicas": 10}})

    def judged(*resources):
        with stack_environment({"compute:platform": "kubernetes"}, "project", "stack", True):
            result = Analyzer({}).run([deployment(replicas=1), budget(minAvailable=1), *resources])
        return result.findings(POLICY), [note.finding for note in result.notes if note.policy == POLICY]

    refused, (note,) = judged(hpa())
    assert refused == [] and note.endswith(
        "HorizontalPodAutoscaler 'api' may keep 3 Pods of Deployment 'api', which is counted at 1 (its scaleTargetRef "
        "is not known yet), so the Pods beyond those are not counted"), note
    refused, (elsewhere,) = judged(hpa(name="api", namespace=UNKNOWN_STRING_VALUE))
    assert refused == [] and "(its namespace is not known yet)" in elsewhere, elsewhere
    refused, (later,) = judged(hpa(name="api", minimum=UNKNOWN_STRING_VALUE))
    assert refused == [] and "may keep more Pods of Deployment 'api', which is counted at 1 (its minReplicas is not " \
        "known yet)" in later, later
    assert judged(hpa(name="api")) == ([], [])
    assert len(judged()[0]) == 1
    assert len(judged(hpa(kind="StatefulSet"))[0]) == 1
    assert len(judged(hpa(minimum=1))[0]) == 1
    assert len(judged(hpa(name="api", namespace="other"))[0]) == 1
