"""namespace-admits-workload (issue 61, SPEC 21, policy 29): what the namespace's ResourceQuota and the stack's
PriorityClasses let the API server admit, with the arithmetic written out here (kubernetes.io/docs/concepts/policy/
resource-quotas: the Pods of a namespace together within spec.hard; a container that sets nothing of a tracked
resource is refused unless a LimitRange gives it a default)."""

import pulumi_kubernetes as k8s
from builders import namespaced_deployment, quota_part, run

POLICY = "namespace-admits-workload"


def quota(hard, name="team-quota", namespace="team", scopes=None):
    return quota_part(hard, name, namespace, scopes)


def limit_range(default):
    def declare():
        return k8s.core.v1.LimitRange("defaults", metadata={"name": "defaults", "namespace": "team"},
                                      spec={"limits": [{"type": "Container", "defaultRequest": default}]})
    return declare


def deployment(name, replicas, requests=None, **more):
    return namespaced_deployment(name, replicas, requests, **more)


def findings(*parts):
    return run(*parts).findings(POLICY)


def notes(*parts):
    return [note for note in run(*parts).notes if note.policy == POLICY]


def test_pods_past_the_quota_are_refused():
    """pods: 10; api 6 + web 4 = 10 fit; web 5 makes 11."""
    assert findings(quota({"pods": "10"}), deployment("api", 6, {"cpu": "100m"}), deployment("web", 4, {"cpu": "1"})) \
        == []
    (message,) = findings(quota({"pods": "10"}), deployment("api", 6, {"cpu": "100m"}),
                          deployment("web", 5, {"cpu": "1"}))
    assert message == (
        "ResourceQuota 'team-quota' of namespace 'team' allows 10 of spec.hard.pods, but the stack's workloads there "
        "take 11 (Deployment 'api' 6 x 1, Deployment 'web' 5 x 1): the API server refuses their Pods past 10, which "
        "never run; raise spec.hard.pods to at least 11, or run fewer replicas")


def test_requested_cpu_and_memory_against_the_quota():
    """requests.cpu 2: 4 x 500m = 2 fit, 4 x 501m = 2004m do not; memory 1Gi: 4 x 256Mi fit, 4 x 257Mi do not."""
    assert findings(quota({"requests.cpu": "2"}), deployment("api", 4, {"cpu": "500m"})) == []
    (cpu,) = findings(quota({"requests.cpu": "2"}), deployment("api", 4, {"cpu": "501m"}))
    assert "allows 2 cores of spec.hard.requests.cpu, but the stack's workloads there take 2004m (Deployment 'api' " \
        "4 x 501m)" in cpu
    assert findings(quota({"memory": "1Gi"}), deployment("api", 4, {"cpu": "1m", "memory": "256Mi"})) == []
    assert len(findings(quota({"memory": "1Gi"}), deployment("api", 4, {"cpu": "1m", "memory": "257Mi"}))) == 1


def test_another_namespace_and_a_scoped_quota_are_not_counted():
    assert findings(quota({"pods": "1"}), deployment("api", 5, {"cpu": "1m"}, namespace="other")) == []
    assert findings(quota({"pods": "1"}, scopes=["BestEffort"]), deployment("api", 5, {"cpu": "1m"})) == []
    (note,) = notes(quota({"pods": "1"}, scopes=["BestEffort"]), deployment("api", 5, {"cpu": "1m"}))
    assert "ResourceQuota 'team-quota' counts only the Pods its scopes select" in str(note)


def test_a_rollout_that_keeps_every_old_pod_and_surges_past_the_quota_never_finishes():
    """pods 4, 4 replicas with maxUnavailable 0 and maxSurge 25% of 4 = 1: 5 at once; maxUnavailable 1 finishes (the
    controller removes an old Pod first); without a rollout strategy the defaults (25%, 25%) let one go too."""
    keep = {"rollingUpdate": {"maxUnavailable": 0}}
    (message,) = findings(quota({"pods": "4"}), deployment("api", 4, {"cpu": "1m"}, strategy=keep))
    assert message == (
        "Deployment 'api': it rolls out 4 replicas with maxUnavailable 0, maxSurge 25% of 4 = 1 (rounded up): it keeps "
        "every old Pod until a new one is available, so namespace 'team' needs 5 of spec.hard.pods at once (4 for the "
        "stack's workloads there + 1 x 1), more than ResourceQuota 'team-quota' allows (4): the new Pods are refused "
        "and the rollout never finishes: allow maxUnavailable: 1, or raise spec.hard.pods to at least 5")
    assert findings(quota({"pods": "5"}), deployment("api", 4, {"cpu": "1m"}, strategy=keep)) == []
    assert findings(quota({"pods": "4"}), deployment("api", 4, {"cpu": "1m"},
                                                     strategy={"rollingUpdate": {"maxUnavailable": 1}})) == []
    assert findings(quota({"pods": "4"}), deployment("api", 4, {"cpu": "1m"})) == []


def test_a_container_without_what_the_quota_tracks_is_refused_unless_a_limit_range_defaults_it():
    (message,) = findings(quota({"requests.cpu": "10"}), deployment("api", 1, {"memory": "64Mi"}))
    assert message == (
        "Deployment 'api': its container 'api' sets no cpu request or limit, and ResourceQuota 'team-quota' of "
        "namespace 'team' tracks requests.cpu with no LimitRange default for it: the API server refuses its Pods "
        "(must specify requests.cpu); set resources.requests.cpu on it, or give the namespace a LimitRange default")
    assert findings(quota({"requests.cpu": "10"}), deployment("api", 1, limits={"cpu": "1"})) == []  # a limit does
    assert findings(quota({"requests.cpu": "10"}), limit_range({"cpu": "100m"}), deployment("api", 1)) == []
    (limit,) = findings(quota({"limits.memory": "1Gi"}), deployment("api", 1, {"memory": "64Mi"}))
    assert "sets no memory limit, and ResourceQuota 'team-quota' of namespace 'team' tracks limits.memory" in limit


def test_a_priority_class_that_exists_nowhere_is_refused():
    def priority_class(name):
        return lambda: k8s.scheduling.v1.PriorityClass(name, metadata={"name": name}, value=1000)

    (message,) = findings(deployment("api", 1, {"cpu": "1m"}, priority="high"))
    assert message == (
        "Deployment 'api': its Pods name priorityClassName 'high', but no PriorityClass of the stack has that name and "
        "it is not a system one (system-cluster-critical, system-node-critical): the API server refuses every Pod of "
        "it (no PriorityClass with name high was found); declare the PriorityClass or remove the field")
    assert findings(priority_class("high"), deployment("api", 1, {"cpu": "1m"}, priority="high")) == []
    assert findings(deployment("api", 1, {"cpu": "1m"}, priority="system-cluster-critical")) == []


def test_a_limit_range_refuses_containers_outside_its_bounds():
    """Container max cpu 1, min memory 64Mi, maxLimitRequestRatio cpu 2: a 2-core limit, a 32Mi request, and a
    limit 4 times its request are refused; within them, nothing."""
    def bounds():
        return k8s.core.v1.LimitRange("bounds", metadata={"name": "bounds", "namespace": "team"}, spec={"limits": [
            {"type": "Container", "max": {"cpu": "1"}, "min": {"memory": "64Mi"},
             "maxLimitRequestRatio": {"cpu": "2"}}]})
    assert findings(bounds, deployment("api", 1, {"cpu": "500m", "memory": "64Mi"}, limits={"cpu": "1"})) == []
    (message,) = findings(bounds, deployment("api", 1, {"cpu": "500m", "memory": "32Mi"}, limits={"cpu": "2"}))
    assert message == (
        "Deployment 'api': LimitRange 'bounds' of namespace 'team' bounds each container: 'api' cpu limit 2 cores is "
        "above its max 1 core; 'api' cpu limit / request 2 cores / 500m = 4 is above its maxLimitRequestRatio 2; "
        "'api' memory request 32 MiB is below its min 64 MiB: the API server refuses its Pods (LimitRanger "
        "admission); bring the container's resources within the LimitRange, or change the LimitRange")
    # a request the API server defaults from the limit counts as written
    (over,) = findings(bounds, deployment("api", 1, {"memory": "64Mi"}, limits={"cpu": "1500m"}))
    assert "'api' cpu request 1500m is above its max 1 core; 'api' cpu limit 1500m is above its max 1 core" in over



def ranges(*limits):
    """LimitRanges of namespace team, one per Container item given."""
    def declare():
        for number, item in enumerate(limits):
            k8s.core.v1.LimitRange(f"bounds{number}", metadata={"name": f"bounds{number}", "namespace": "team"},
                                   spec={"limits": [{"type": "Container", **item}]})
    return declare


def test_a_limit_range_judges_the_container_limitranger_admits():
    """Issue 77, found by tests/oracle/test_admission_oracle.py: LimitRanger validates each container after it has
    given it the namespace's defaults. A default limit of 2 cores (from max) on a 500m request breaks a
    maxLimitRequestRatio of 2 (2 cores / 500m = 4); a ratio needs a request and a limit, so a container that sets no
    cpu (its default request 500m, no default limit) is refused under a ratio alone. (A default below another
    LimitRange's min, or above its max, cannot be told: a min or max is a default too, and two defaults that differ
    leave the resource undecided, below.)"""
    (ratio,) = findings(ranges({"max": {"cpu": "2"}, "maxLimitRequestRatio": {"cpu": "2"}}),
                        deployment("api", 1, {"cpu": "500m"}))
    assert "'api' cpu limit / request 2 cores / 500m = 4 is above its maxLimitRequestRatio 2" in ratio
    assert findings(ranges({"max": {"cpu": "2"}, "maxLimitRequestRatio": {"cpu": "4"}}),
                    deployment("api", 1, {"cpu": "500m"})) == []
    (missing,) = findings(ranges({"defaultRequest": {"cpu": "500m"}, "maxLimitRequestRatio": {"cpu": "2"}}),
                          deployment("api", 1, {"memory": "64Mi"}))
    assert "'api' sets no cpu limit (or 0), and its maxLimitRequestRatio 2 needs both" in missing



def test_a_request_above_the_limit_a_limit_range_gives_is_refused():
    """A container that writes a cpu request of 2 cores and no limit, in a namespace whose LimitRange gives a default
    cpu limit of 1 core: LimitRanger sets the limit, and the Pod's own validation refuses a request above its limit
    (found by tests/oracle/test_admission_oracle.py: the API server refuses it, the pack said nothing). Its own limit
    of 2 cores, or a request of 1 core, is admitted."""
    default = ranges({"default": {"cpu": "1"}})
    (message,) = findings(default, deployment("api", 1, {"cpu": "2"}))
    assert message == (
        "Deployment 'api': the LimitRanges of namespace 'team' give 'api' a default cpu limit of 1 core, below the 2 "
        "cores request it writes: the API server refuses its Pods (a request above its limit fails the Pod's "
        "validation); give each such container a limit at least its request, or change the LimitRange's default")
    assert findings(default, deployment("api", 1, {"cpu": "2"}, limits={"cpu": "2"})) == []
    assert findings(default, deployment("api", 1, {"cpu": "1"})) == []

def test_two_limit_ranges_that_default_differently_leave_the_resource_unjudged():
    """The API server applies each LimitRange in the order it lists them, so a container that takes a resource's
    default gets the first one's: 100m or 500m here, and a min of 250m refuses one and not the other. The pack
    counts no default for it and judges no bound of it; the memory it writes is still judged."""
    both = ranges({"defaultRequest": {"cpu": "100m"}}, {"defaultRequest": {"cpu": "500m"}, "min": {"cpu": "250m"}})
    assert findings(both, deployment("api", 1, {"memory": "64Mi"})) == []
    bounded = ranges({"defaultRequest": {"cpu": "100m"}},
                     {"defaultRequest": {"cpu": "500m"}, "min": {"cpu": "250m", "memory": "128Mi"}})
    (memory,) = findings(bounded, deployment("api", 1, {"memory": "64Mi"}))
    assert "'api' memory request 64 MiB is below its min 128 MiB" in memory and "cpu" not in memory.split(":")[1]

def namespace(level, version=None):
    def declare():
        labels = {"pod-security.kubernetes.io/enforce": level,
                  **({"pod-security.kubernetes.io/enforce-version": version} if version else {})}
        return k8s.core.v1.Namespace("team", metadata={"name": "team", "labels": labels})
    return declare


RESTRICTED_POD = {"securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}}
HARDENED = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def secured(name, pod=None, container=None):
    """A Deployment of one container with the pod and container security contexts given."""
    def declare():
        spec = {"replicas": 1, "selector": {"matchLabels": {"app": name}}, "template": {
            "metadata": {"labels": {"app": name}}, "spec": {**(pod or {}), "containers": [
                {"name": name, "image": "nginx", "resources": {"requests": {"cpu": "10m"}},
                 **({"securityContext": container} if container is not None else {})}]}}}
        return k8s.apps.v1.Deployment(name, metadata={"name": name, "namespace": "team"}, spec=spec)
    return declare


def test_a_namespace_enforcing_restricted_refuses_pods_that_break_it():
    """The checks are Kubernetes' own (held to k8s.io/pod-security-admission by tests/oracle/
    test_pod_security_oracle.py): a Pod written for restricted passes; one that leaves allowPrivilegeEscalation and
    the capabilities as they come is refused, naming what it breaks."""
    assert findings(namespace("restricted"), secured("api", RESTRICTED_POD, HARDENED)) == []
    (message,) = findings(namespace("restricted"), secured("api", RESTRICTED_POD, {}))
    assert message == (
        "Deployment 'api': namespace 'team' enforces the Pod Security Standard restricted "
        "(pod-security.kubernetes.io/enforce), which forbids what its Pods ask: allowPrivilegeEscalation != false "
        "(api); capabilities (drop ALL, add at most NET_BIND_SERVICE); the API server refuses every Pod of it: change "
        "its pod spec to meet restricted (kubernetes.io/docs/concepts/security/pod-security-standards), or lower the "
        "namespace's level")


def test_baseline_refuses_the_hosts_namespaces_and_privileged_containers_and_a_pinned_version_is_said():
    assert findings(namespace("baseline"), secured("api")) == []
    (message,) = findings(namespace("baseline"), secured("api", {"hostNetwork": True}, {"privileged": True}))
    assert "which forbids what its Pods ask: hostNetwork=true; privileged (api)" in message
    assert findings(namespace("privileged"), secured("api", {"hostNetwork": True})) == []
    assert findings(namespace("baseline", "v1.29"), secured("api", {"hostNetwork": True})) == []
    (note,) = notes(namespace("baseline", "v1.29"), secured("api", {"hostNetwork": True}))
    assert "namespace 'team' enforces the Pod Security Standard baseline at version v1.29, which the pack does not " \
        "model (it checks latest)" in str(note)


def test_a_limit_ranges_default_request_is_what_fit_and_capacity_judge():
    """A LimitRange's defaultRequest (else default, else max, else min: the API server's defaulting of a LimitRange)
    is the request of a container that sets none, before the scheduler sees the Pod (SPEC 21). A t3.medium node has
    2 cores - 70m = 1930m allocatable: a default request of 2 cores never fits, 1 core does; without the LimitRange
    the Pod requests nothing."""
    from builders import AMD64, node_group

    def api():
        return k8s.apps.v1.Deployment("api", metadata={"name": "api", "namespace": "team"}, spec={
            "replicas": 1, "selector": {"matchLabels": {"app": "api"}}, "template": {
                "metadata": {"labels": {"app": "api"}}, "spec": {"nodeSelector": AMD64, "containers": [
                    {"name": "api", "image": "nginx"}]}}})

    def ranged(item):
        return lambda: k8s.core.v1.LimitRange("defaults", metadata={"name": "defaults", "namespace": "team"},
                                              spec={"limits": [{"type": "Container", **item}]})

    group = node_group("general", ["t3.medium"], max_size=2)
    fits = "workload-fits-pool"
    assert run(group, api, platform="aws").findings(fits) == []
    (message,) = run(group, ranged({"defaultRequest": {"cpu": "2"}}), api, platform="aws").findings(fits)
    assert message.startswith(
        "Deployment 'api': one Pod requests 2 cores of CPU (its namespace's LimitRange default request for cpu "
        "included), more than any node of the pools that can take it")
    assert run(group, ranged({"defaultRequest": {"cpu": "1"}}), api, platform="aws").findings(fits) == []
    for item in ({"default": {"cpu": "2"}}, {"max": {"cpu": "2"}}, {"min": {"cpu": "2"}}):
        assert len(run(group, ranged(item), api, platform="aws").findings(fits)) == 1, item
    # a quota's "must specify" is met by the LimitRange's default, its max included
    assert findings(quota({"requests.cpu": "10"}), ranged({"max": {"cpu": "1"}}), deployment("api", 1)) == []


def test_limits_and_object_counts_against_the_quota():
    """limits.memory 1Gi: 4 Pods of a 256Mi limit fit, of 257Mi do not (their app containers' limits: the least a
    Pod counts); count/deployments.apps 1: a second Deployment in the namespace is refused."""
    def limited(name, memory, replicas=4):
        return deployment(name, replicas, {"cpu": "1m", "memory": "64Mi"}, limits={"memory": memory})

    assert findings(quota({"limits.memory": "1Gi"}), limited("api", "256Mi")) == []
    (message,) = findings(quota({"limits.memory": "1Gi"}), limited("api", "257Mi"))
    assert "allows 1 GiB of spec.hard.limits.memory, but the stack's workloads there take 1028 MiB " \
        "(Deployment 'api' 4 x 257 MiB)" in message
    assert findings(quota({"count/deployments.apps": "1"}), limited("api", "1Mi", 1)) == []
    (count,) = findings(quota({"count/deployments.apps": "1"}), limited("api", "1Mi", 1), limited("web", "1Mi", 1))
    assert count == (
        "ResourceQuota 'team-quota' of namespace 'team' allows 1 of spec.hard['count/deployments.apps'], but the stack "
        "declares 2 Deployments there (Deployment 'api', Deployment 'web'): the API server refuses every one past 1; "
        "raise spec.hard['count/deployments.apps'] to at least 2, or move one to another namespace")


def on_provider(namespace=None, kubeconfig=None, quota_namespace="team-a", replicas=11):
    """A Deployment that names no namespace through a Kubernetes provider of ``namespace`` (or a kubeconfig whose
    current context names one), and a quota of pods 10 in ``quota_namespace``, named or through the provider too."""
    import pulumi

    def declare():
        provider = k8s.Provider("k8s", namespace=namespace, kubeconfig=kubeconfig)
        opts = pulumi.ResourceOptions(provider=provider)
        k8s.core.v1.ResourceQuota("quota", metadata={"name": "quota", **(
            {"namespace": quota_namespace} if quota_namespace else {})}, spec={"hard": {"pods": "10"}}, opts=opts)
        k8s.apps.v1.Deployment("api", metadata={"name": "api"}, spec={
            "replicas": replicas, "selector": {"matchLabels": {"app": "api"}}, "template": {
                "metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{"name": "api", "image": "nginx"}]}}},
            opts=opts)
    return declare


CONTEXT = """apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: dev
  context: {cluster: dev, user: dev, namespace: team-a}
- name: prod
  context: {cluster: prod, user: prod, namespace: team-b}
clusters: []
users: []
"""


def test_a_workload_without_a_namespace_is_in_the_one_the_api_server_creates_it_in():
    """Issue 66, SPEC 21: metadata.namespace, else its provider's namespace, else its kubeconfig's current context's,
    else default. Before, a Deployment without one passed its provider's namespace's quota, and default's."""
    assert len(findings(on_provider(namespace="team-a"))) == 1
    assert findings(on_provider(namespace="team-a", replicas=10)) == []
    assert findings(on_provider(namespace="team-b")) == []  # another namespace's quota
    assert len(findings(on_provider(kubeconfig=CONTEXT))) == 1  # the current context's namespace
    assert len(findings(on_provider(quota_namespace=None))) == 1  # both in the provider's default namespace
    assert len(findings(on_provider(quota_namespace="default"))) == 1  # no namespace anywhere: default
    (message,) = findings(on_provider(namespace="team-a"))
    assert message.startswith("ResourceQuota 'quota' of namespace 'team-a' allows 10 of spec.hard.pods")


def test_object_counts_charge_what_the_workloads_controllers_make():
    """Issue 66: count/pods counts every Pod (kube-apiserver's pod evaluator: "count/pods tracks all pods independent
    of state"), a Deployment's among them; count/replicasets.apps a Deployment's ReplicaSet; count/jobs.batch a
    CronJob's Job. Before, each counted only bare objects of its kind."""
    (pods,) = findings(quota({"count/pods": "3"}), deployment("api", 4, {"cpu": "100m"}))
    assert pods.startswith("ResourceQuota 'team-quota' of namespace 'team' allows 3 of spec.hard['count/pods'], but "
                           "the stack's workloads there take 4 (Deployment 'api' 4 x 1)"), pods
    assert findings(quota({"count/pods": "4"}), deployment("api", 4, {"cpu": "100m"})) == []
    (sets,) = findings(quota({"count/replicasets.apps": "1"}), deployment("api", 1, {"cpu": "100m"}),
                       deployment("web", 1, {"cpu": "100m"}))
    assert "the stack's workloads there make 2 ReplicaSets (one ReplicaSet each of Deployment 'api', Deployment " \
        "'web')" in sets, sets

    def cron():
        k8s.batch.v1.CronJob("nightly", metadata={"name": "nightly", "namespace": "team"}, spec={
            "schedule": "0 0 * * *", "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "job", "image": "busybox"}]}}}}})
    (jobs,) = findings(quota({"count/jobs.batch": "0"}), cron)
    assert "make 1 Jobs (one Job each of CronJob 'nightly')" in jobs, jobs
    assert findings(quota({"count/jobs.batch": "1"}), cron) == []
