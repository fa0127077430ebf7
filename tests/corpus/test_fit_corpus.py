"""Fit and capacity over real-world manifests (../shared/corpus), judged by an oracle written here.

Every corpus workload lands on the one pool of one ComputeCluster. The oracle computes each Pod's
request from the manifest with its own quantity parser and Kubernetes' documented formula, the
DaemonSets' share of a node, each workload's replicas (with the corpus's HorizontalPodAutoscalers),
and from them which workload-fits-pool and pool-capacity findings must appear and with what numbers.
It imports nothing from the pack but its public entry points.
"""

import math
import re
from fractions import Fraction

import pytest
from builders import valid_cluster_props
from google.protobuf import json_format
from test_corpus import POD_SPEC, is_workload

from compute_guard.testkit import Resource
from compute_guard.testkit.engine import EnginePack

GIB = 1 << 30
MIB = 1 << 20
SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60, "n": Fraction(1, 10**9),
            "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1, "k": 10**3, "M": 10**6, "G": 10**9,
            "T": 10**12, "P": 10**15, "E": 10**18}
GPUS = ("nvidia.com/gpu", "amd.com/gpu")
RESOURCES = ("cpu", "memory", "ephemeral-storage", *GPUS)
WHAT = {"cpu": "CPU", "memory": "memory", "ephemeral-storage": "ephemeral storage"}


def quantity(value):
    """A Kubernetes quantity as a Fraction, or None when malformed (written apart from the pack's)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Fraction(str(value))
    match = re.fullmatch(r"([+-]?\d*\.?\d*)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?))", str(value))
    if match is None or match.group(1) in ("", ".", "+", "-", "+.", "-."):
        return None
    number = Fraction(match.group(1))
    if match.group(2):
        return number * Fraction(10) ** int(match.group(2)[1:])
    return number * SUFFIXES[match.group(3)]


def base(resource, amount):
    """Rounded up to millicores (CPU) or whole units, as the scheduler reads a request."""
    return math.ceil(amount * 1000) if resource == "cpu" else math.ceil(amount)


def container_request(container, resource):
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    value = requests.get(resource, limits.get(resource))
    amount = quantity(value) if value is not None else 0
    return base(resource, amount) if amount is not None and amount >= 0 else 0


def pod_request(spec):
    """max(app containers + sidecars, each init container + the sidecars before it) + overhead."""
    request = {}
    for resource in RESOURCES:
        apps = sum(container_request(c, resource) for c in spec.get("containers") or [])
        sidecars, peak = 0, 0
        for init in spec.get("initContainers") or []:
            if init.get("restartPolicy") == "Always":
                sidecars += container_request(init, resource)
            else:
                peak = max(peak, container_request(init, resource) + sidecars)
        overhead = quantity((spec.get("overhead") or {}).get(resource, 0)) or 0
        request[resource] = max(apps + sidecars, peak) + base(resource, overhead)
    assert not spec.get("resources"), "extend the oracle: pod-level resources"
    return request


def malformed(spec, resources=RESOURCES):
    bad = 0
    for container in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        for part in ("requests", "limits"):
            for resource, value in ((container.get("resources") or {}).get(part) or {}).items():
                amount = quantity(value)
                if resource in resources and (amount is None or amount < 0 or
                                              (resource in GPUS and amount.denominator != 1)):
                    bad += 1
    return bad


def replicas(kind, manifest, autoscalers):
    spec = manifest.get("spec") or {}
    if kind == "Pod":
        return 1
    if kind == "PodTemplate":
        return 0
    if kind in ("Job", "CronJob"):
        job = (spec.get("jobTemplate") or {}).get("spec") or {} if kind == "CronJob" else spec
        count = int(job.get("parallelism", 1))
        return min(count, int(job["completions"])) if "completions" in job else count
    count = int(spec.get("replicas", 1))
    metadata = manifest.get("metadata") or {}
    for minimum in autoscalers.get((metadata.get("namespace"), kind, metadata.get("name")), []):
        count = max(count, minimum)
    return count


def amount_of(text):
    """A number the pack printed, back in base units: '1500m', '2 cores', '953.67 MiB', '3 GiB', '1'."""
    number, _, unit = text.partition(" ")
    if number.endswith("m"):
        return Fraction(number[:-1])
    scale = {"core": 1000, "cores": 1000, "bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "": 1}[unit]
    return Fraction(number) * scale


def close(printed, exact):
    """Printed amounts carry at most two decimals of their unit."""
    return abs(amount_of(printed) - exact) <= max(Fraction(1), exact / 100)


class Oracle:
    def __init__(self, resources, allocatable, max_size):
        self.allocatable, self.max_size = allocatable, max_size
        autoscalers = {}
        for resource in resources:
            if resource.type.rsplit(":", 1)[-1] == "HorizontalPodAutoscaler":
                manifest = json_format.MessageToDict(resource.inputs)
                target, metadata = manifest["spec"]["scaleTargetRef"], manifest.get("metadata") or {}
                autoscalers.setdefault((metadata.get("namespace"), target["kind"], target["name"]), []).append(
                    int(manifest["spec"].get("minReplicas", 1)))
        self.daemonsets, self.workloads, self.bad, self.nothing = [], [], [], []
        for resource in resources:
            if not is_workload(resource):
                continue
            kind = resource.type.rsplit(":", 1)[-1]
            manifest = json_format.MessageToDict(resource.inputs)
            spec = manifest
            for field in POD_SPEC.get(kind, ("spec", "template", "spec")):
                spec = spec.get(field) or {}
            self.bad += [resource.urn] * malformed(spec)
            entry = (resource.urn, pod_request(spec))
            # requests no CPU and no memory, where neither is written malformed, and runs Pods
            if not entry[1]["cpu"] and not entry[1]["memory"] and not malformed(spec, ("cpu", "memory")) and (
                    kind == "DaemonSet" or replicas(kind, manifest, autoscalers) > 0):
                self.nothing.append(resource.urn)
            if kind == "DaemonSet":
                self.daemonsets.append(entry)
            else:
                self.workloads.append((*entry, replicas(kind, manifest, autoscalers)))
        self.daemon = {r: sum(request[r] for _, request in self.daemonsets) for r in RESOURCES}
        self.daemon["pods"] = len(self.daemonsets)

    def free(self, resource):
        """What a node has left for one Pod: after the DaemonSets when they fit, else all of it."""
        if self.daemon[resource] <= self.allocatable[resource]:
            return self.allocatable[resource] - self.daemon[resource]
        return self.allocatable[resource]

    def fits(self):
        """(urn, resource, request) of every finding workload-fits-pool must give."""
        found = [(urn, r, None) for r in RESOURCES if self.daemon[r] > self.allocatable[r]
                 for urn, _ in self.daemonsets]
        for urn, request, _count in self.workloads:
            found += [(urn, r, request[r]) for r in RESOURCES if request[r] > self.free(r)]
        return found

    def fitting(self):
        return [(urn, request, count) for urn, request, count in self.workloads if count > 0 and all(
            request[r] <= self.allocatable[r] - self.daemon[r] for r in RESOURCES)]

    def capacity(self):
        """(resource, demand) of every total that overflows, else the workloads that alone need too many nodes."""
        overflows = []
        for r in (*RESOURCES, "pods"):
            if self.daemon[r] > self.allocatable[r]:
                continue  # workload-fits-pool's finding, on each DaemonSet
            demand = sum(count * (1 if r == "pods" else request[r]) for _, request, count in self.fitting())
            if demand + self.max_size * self.daemon[r] > self.max_size * self.allocatable[r]:
                overflows.append((r, demand))
        if overflows:
            return overflows, []
        packed = []
        for urn, request, count in self.fitting():
            per_node = min((self.free(r) // request[r] for r in RESOURCES if request[r] > 0),
                           default=math.inf)
            per_node = min(per_node, self.allocatable["pods"] - self.daemon["pods"])
            if math.ceil(count / per_node) > self.max_size:
                packed.append(urn)
        return [], packed


def cluster(cpu, memory, storage, max_size):
    props = valid_cluster_props(dynamicContainerPool=None)
    props["capacityGroups"] = [{"groupId": "general", "minSize": 0, "maxSize": max_size, "profile": {
        "cpu": cpu, "memoryBytes": memory, "ephemeralStorageBytes": storage}}]  # no architecture: no pins needed
    return Resource.of("compute:index:ComputeCluster", "compute", props)


# (profile cpu, allocatable millicores, memory, storage, maxSize, at least this many misfits): small pools,
# and a roomy one where only the GPU workload (no GPU on the pool) does not fit
POOLS = [("1", 1000, 2 * GIB, 10 * GIB, 3, 8), ("16", 16000, 64 * GIB, 200 * GIB, 10, 1),
         ("2", 2000, 4 * GIB, 20 * GIB, 10, 3), ("4", 4000, 16 * GIB, 50 * GIB, 4, 1),
         ("250m", 250, GIB, GIB, 1, 25)]


@pytest.mark.parametrize(("cpu", "millicores", "memory", "storage", "max_size", "misfits"), POOLS,
                         ids=[f"{p[0]}-cores" for p in POOLS])
def test_fit_and_capacity_by_the_formula(corpus, cpu, millicores, memory, storage, max_size, misfits):
    resources, _ = corpus
    # on an existing cluster a node loses the kubelet's 100 MiB eviction threshold and holds 110 Pods
    allocatable = {"cpu": millicores, "memory": memory - 100 * MIB, "ephemeral-storage": storage, "pods": 110,
                   "nvidia.com/gpu": 0, "amd.com/gpu": 0}
    oracle = Oracle(resources, allocatable, max_size)
    with EnginePack({"compute:platform": "kubernetes"}) as pack:
        result = pack.run([cluster(cpu, memory, storage, max_size), *resources])
    # disruption-budget-useful's: kube-prometheus budgets for Pods its operator creates; workload-api-available's: the
    # archived examples' removed API versions on a cluster whose version is not known (tests/corpus/test_corpus.py)
    assert [note for note in result.notes if note.policy not in ("disruption-budget-useful",
                                                                 "workload-api-available")] == []

    fits = [v for v in result.violations if v.policy == "workload-fits-pool"]
    bad = [v.urn for v in fits if "the API server refuses it" in v.finding]
    assert sorted(bad) == sorted(oracle.bad)
    expected = oracle.fits()
    assert len(expected) >= misfits  # the findings are there to compare, many of them
    found = []
    for violation in fits:
        if "the API server refuses it" in violation.finding:
            continue
        resource = next(r for r in RESOURCES if f"of {WHAT.get(r, r)}" in violation.finding
                        or f"request 1 {r}" in violation.finding or f" {r}, but" in violation.finding)
        found.append((violation.urn, resource))
        wanted = next(request for urn, r, request in expected if urn == violation.urn and r == resource)
        if wanted is not None and resource in WHAT:  # the request it prints is the oracle's
            printed = re.search(r"one Pod requests (\S+(?: (?:cores?|bytes|KiB|MiB|GiB))?) of", violation.finding)
            assert printed and close(printed.group(1), wanted), (violation.finding, wanted)
    assert sorted(found) == sorted((urn, r) for urn, r, _ in expected)

    # workload-requests-declared: every workload whose Pods request no CPU and no memory, once (advisory)
    nothing = sorted(v.urn for v in result.violations if v.policy == "workload-requests-declared")
    assert nothing == sorted(oracle.nothing) and len(nothing) >= 5
    assert all(v.level == "advisory" for v in result.violations if v.policy == "workload-requests-declared")

    overflows, packed = oracle.capacity()
    print(f"{len(expected)} misfits, {len(oracle.bad)} malformed, overflows {overflows}, {len(packed)} packed")
    capacity = [v.finding for v in result.violations if v.policy == "pool-capacity"]
    assert all(v.urn.endswith("::compute") for v in result.violations if v.policy == "pool-capacity")
    totals = [f for f in capacity if "it has room for" in f]
    assert len(totals) == len(overflows) and len(capacity) == len(overflows) + len(packed)
    for resource, demand in overflows:
        what = "Pods" if resource == "pods" else f"{WHAT.get(resource, resource)} allocatable"
        (finding,) = [f for f in totals if f" of {what}" in f]
        printed = re.search(r"its workloads (?:request|run) (\S+(?: (?:cores?|bytes|KiB|MiB|GiB))?) \(", finding)
        assert printed and close(printed.group(1), demand), (finding, demand)


ARCH = "workload-node-architecture"


def test_a_stack_we_did_not_write_is_rejected_with_its_numbers_and_passes_once_it_fits(corpus):
    """Google's microservices demo (12 Deployments, 1570m and 1368 MiB in all) on EKS. A t4g.nano holds 4 Pods
    (2 ENIs x (2 - 1) + 2) and keeps 512 - (11 x 4 + 255) - 100 = 113 MiB for them: every Pod asking more never
    runs, and one machine cannot hold 12 Pods. Two t4g.small (1930m, 1572 MiB, 11 Pods each) hold all of it."""
    from builders import SHARED

    from compute_guard.testkit.manifests import manifest_resources

    demo = manifest_resources(sorted((SHARED / "corpus" / "GoogleCloudPlatform_microservices-demo").rglob("*.yaml")))

    def machines(instance_type, max_size):
        props = valid_cluster_props(dynamicContainerPool=None)
        props["capacityGroups"] = [{"groupId": "general", "minSize": 1, "maxSize": max_size,
                                    "instanceType": instance_type}]
        with EnginePack({"compute:platform": "aws"}) as pack:
            return pack.run([Resource.of("compute:index:ComputeCluster", "compute", props), *demo])

    oracle = Oracle(demo, {"cpu": 1930, "memory": 113 * MIB, "ephemeral-storage": 0, "pods": 4,
                           "nvidia.com/gpu": 0, "amd.com/gpu": 0}, 1)
    rejected = machines("t4g.nano", 1)
    fits = [v for v in rejected.violations if v.policy == "workload-fits-pool"]
    expected = [(urn, r) for urn, r, _ in oracle.fits() if r != "ephemeral-storage"]  # no disk facts for a machine
    assert len(fits) == len(expected) >= 4  # adservice, cartservice, loadgenerator, recommendationservice
    assert sorted(v.urn for v in fits) == sorted(urn for urn, _ in expected)
    assert all("512 MiB capacity - 299 MiB kube-reserved - 100 MiB eviction threshold = 113 MiB allocatable" in
               v.finding for v in fits)
    # what does fit a node (8 Deployments of 64 MiB) still overflows the one machine, and its 4 Pod slots
    assert oracle.capacity() == ([("memory", 8 * 64 * MIB), ("pods", 8)], [])
    memory, pods = [v.finding for v in rejected.violations if v.policy == "pool-capacity"]
    assert memory.startswith("ComputeCluster 'compute' pool 'general': at its maxSize of 1 node (machine t4g.nano) it "
                             "has room for 1 x 113 MiB = 113 MiB of memory allocatable (a node: 512 MiB capacity - "
                             "299 MiB kube-reserved - 100 MiB eviction threshold = 113 MiB allocatable); its workloads "
                             "request 512 MiB (largest: ")
    assert pods.startswith("ComputeCluster 'compute' pool 'general': at its maxSize of 1 node (machine t4g.nano) it "
                           "has room for 1 x 4 = 4 Pods; its workloads run 8 (largest: ")
    one, two = machines("t4g.small", 1), machines("t4g.small", 2)
    assert [v.policy for v in one.violations if v.policy != ARCH] == ["pool-capacity"]  # 12 Pods, 11 slots
    assert [v for v in two.violations if v.policy != ARCH] == []
    # The demo pins no architecture, and t4g.small provides its pool's, arm64 (SPEC section 2): every Deployment
    # is told to pin itself, the one verdict the machine changes.
    pins = [v for v in two.violations if v.policy == ARCH]
    assert len(pins) == 12 and all("its Pods need arm64 nodes (the stack's compute pools run arm64)"
                                   in v.finding for v in pins)
