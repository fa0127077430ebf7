"""The pack's verdicts on generated stacks held to kube-scheduler's own code (issue 46, SPEC 17).

Generated stacks of five sources: an EKS cluster with subnets in three zones and one to three managed node groups
(some of g5.xlarge, of an AMI type that advertises its GPU or one that does not, tainted nvidia.com/gpu or not);
a GKE cluster without its default pool and one to three node pools autoscaled per zone; an AKS cluster's default
pool and up to two more node pools; one or two Karpenter NodePools of one machine each under a CPU limit; a
ComputeCluster's capacity groups, the Deployment placed on one by its labels (no zones, taints or DaemonSets). Their
machines are of both architectures, with labels, taints, sizes and zones; DaemonSets (requests, tolerations, an
architecture pin) and a Deployment (requests, replicas, nodeSelector, tolerations, a zone spread with or without
minDomains, hostname anti-affinity, maxUnavailable 0). Each pool's nodes are written from the pack's own node model
(its labels and taints, each machine's labels, the node's allocatable and Pod slots as the pack computes them),
maxSize of them per pool balanced over its zones (a NodePool: as many as its CPU limit allows); the Pods are as the
platform's admission hands them on (GKE's Arm toleration; the ExtendedResourceToleration plugin EKS, GKE and AKS
run, in the oracle); the DaemonSets' Pods are bound to every node whose filters admit them, and the Go oracle
places the Deployment's replicas one by one with kube-scheduler's Filter plugins. Then, for workload-schedulable, workload-fits-pool, pool-capacity and workload-zone-spread together:

* no violation where the real scheduler places every replica on the pools' maxSize nodes (replicas + 1 for a
  rollout that keeps its old Pods: workload-rollout-fits);
* no silent pass where it cannot place one Pod on any node: some policy refuses it or says what it cannot judge;
* pool-capacity refuses where SPEC 11's arithmetic, written out here, says the one pool that can take the Pods is
  too small for them at its maxSize (or its CPU limit).

The same three hold when the stack is split in two as an organisation splits it (SPEC 18): the Deployment in an
app stack whose stack config compute:stacks names the platform stack's `pulumi stack export`, holding everything
else (clusters, pools, DaemonSets).

(The pack's rules are necessary conditions: between the two, where some replicas find a node and others do not,
either verdict may stand.) ORACLE_SEED and ORACLE_EXAMPLES as in test_kubernetes_oracle.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from kube_oracle import ask, node, pod

from compute_guard.policies.model.loads import pool_nodes
from compute_guard.policies.platforms.quantity import CPU, MEMORY, PODS
from compute_guard.testkit import Resource
from compute_guard.testkit.analyzer import Analyzer, stack_environment

SEED = int(os.environ.get("ORACLE_SEED", "46"))
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000")) // 3  # a stack is heavier than one Pod on one node

# each platform's machines of both architectures, the zones its nodes are labelled with, and its taint effects
MACHINES = {
    "aws": {"t3.medium": "AL2023_x86_64_STANDARD", "m5.large": "AL2023_x86_64_STANDARD",
            "c5.xlarge": "AL2023_x86_64_STANDARD", "m6g.large": "AL2023_ARM_64_STANDARD",
            "t4g.small": "AL2023_ARM_64_STANDARD"},
    "gcp": {"e2-medium": "", "e2-standard-2": "", "e2-standard-4": "", "t2a-standard-2": "", "t2a-standard-4": ""},
    "azure": {"Standard_B2s": "", "Standard_D2s_v5": "", "Standard_D4s_v5": "", "Standard_D2ps_v5": "",
              "Standard_D4ps_v5": ""}}
ZONES = {"aws": ("us-east-1a", "us-east-1b", "us-east-1c"), "gcp": ("us-central1-a", "us-central1-b", "us-central1-c"),
         "azure": ("1", "2", "3")}
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
POLICIES = ("workload-schedulable", "workload-fits-pool", "pool-capacity", "workload-zone-spread")
ZONE = "topology.kubernetes.io/zone"
ARCH = "kubernetes.io/arch"
# g5.xlarge: one NVIDIA A10G (aws.amazon.com/ec2/instance-types/g5), advertised as nvidia.com/gpu by the NVIDIA device
# plugin of EKS's accelerated AMI types only (docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html);
# written here, not taken from the pack's catalog
GPU, GPU_MACHINE = "nvidia.com/gpu", "g5.xlarge"
# each AMI type the stacks use and whether its nodes advertise the GPU, written from that page (its accelerated AMIs:
# AL2023's and Bottlerocket's NVIDIA variants, AL2's GPU one), not from the pack's rule (issue 57: the oracle read
# `endswith("_NVIDIA")`, the pack's own test, so it could not disagree with it)
ADVERTISES = {"AL2023_x86_64_NVIDIA": True, "AL2_x86_64_GPU": True, "BOTTLEROCKET_x86_64_NVIDIA": True,
              "AL2023_x86_64_STANDARD": False, "BOTTLEROCKET_x86_64": False, "AL2_x86_64": False}
GPU_AMIS = tuple(ADVERTISES)


def _daemonset(rng: random.Random, index: int) -> tuple[Resource, dict[str, Any]]:
    spec: dict[str, Any] = {"containers": [{"name": "agent", "image": "agent", "resources": {"requests": {
        "cpu": rng.choice(("10m", "50m", "100m")), "memory": rng.choice(("16Mi", "64Mi", "128Mi"))}}}]}
    if rng.random() < 0.5:
        spec["tolerations"] = [{"operator": "Exists"}]
    if rng.random() < 0.3:
        spec["nodeSelector"] = {"kubernetes.io/arch": rng.choice(("amd64", "arm64"))}
    name = f"agent{index}"
    return Resource.of("kubernetes:apps/v1:DaemonSet", name, {"metadata": {"name": name}, "spec": {
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}), spec


def _eks(rng: random.Random) -> list[Resource]:
    """An EKS cluster, subnets in three zones, one to three managed node groups on some of them."""
    resources = [Resource.of("aws:eks/cluster:Cluster", "fleet", {"name": "fleet"})]
    subnet = {zone: Resource.of("aws:ec2/subnet:Subnet", f"subnet-{zone[-1]}", {
        "vpcId": "vpc-1", "cidrBlock": f"10.0.{index}.0/24", "availabilityZone": zone})
        for index, zone in enumerate(ZONES["aws"])}
    resources += subnet.values()
    mixed = False  # at most one group of two machines: the nodes of each mix of them are asked of the oracle
    for index in range(rng.randint(1, 3)):
        machine = rng.choice(sorted(MACHINES["aws"]))
        machines = [machine]
        gpu = rng.random() < 0.25  # a g5.xlarge group, of an AMI type that advertises its GPU or one that does not
        if gpu:
            machine, machines = GPU_MACHINE, [GPU_MACHINE]
        elif not mixed and rng.random() < 0.3:
            mixed = True
            machines = sorted({machine, rng.choice([other for other in sorted(MACHINES["aws"]) if other != machine
                                                    and MACHINES["aws"][other] == MACHINES["aws"][machine]])})
        subnets = [subnet[zone] for zone in rng.sample(ZONES["aws"], rng.randint(1, 3))]
        props: dict[str, Any] = {
            "clusterName": "fleet", "nodeGroupName": f"g{index}", "instanceTypes": machines,
            "amiType": rng.choice(GPU_AMIS) if gpu else MACHINES["aws"][machine], "subnetIds": [found.name for found in subnets],
            "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": rng.randint(1, 3)}}
        if rng.random() < 0.5:
            props["labels"] = {"team": rng.choice(("a", "b"))}
        if gpu and rng.random() < 0.6:  # as NVIDIA's and AWS's GPU guides taint GPU nodes, or NoExecute
            props["taints"] = [{"key": GPU, "value": "present", "effect": rng.choice(("NO_SCHEDULE", "NO_EXECUTE"))}]
        elif rng.random() < 0.4:
            props["taints"] = [{"key": "dedicated", "value": rng.choice(("x", "y")),
                                "effect": rng.choice(sorted(EFFECTS))}]
        group = Resource.of("aws:eks/nodeGroup:NodeGroup", f"g{index}", props)
        resources.append(dataclasses.replace(group, property_dependencies={
            "subnetIds": tuple(found.urn for found in subnets)}))
    return resources


def _gke(rng: random.Random) -> list[Resource]:
    """A GKE cluster without its default pool and one to three node pools, autoscaled per zone of theirs."""
    cluster = Resource.of("gcp:container/cluster:Cluster", "fleet", {
        "name": "fleet", "location": "us-central1", "removeDefaultNodePool": True, "initialNodeCount": 1})
    resources = [cluster]
    for index in range(rng.randint(1, 3)):
        config: dict[str, Any] = {"machineType": rng.choice(sorted(MACHINES["gcp"]))}
        if rng.random() < 0.5:
            config["labels"] = {"team": rng.choice(("a", "b"))}
        if rng.random() < 0.4:
            config["taints"] = [{"key": "dedicated", "value": rng.choice(("x", "y")),
                                 "effect": rng.choice(sorted(EFFECTS))}]
        pool = Resource.of("gcp:container/nodePool:NodePool", f"g{index}", {
            "cluster": "fleet", "name": f"g{index}", "location": "us-central1", "nodeConfig": config,
            "nodeLocations": sorted(rng.sample(ZONES["gcp"], rng.randint(1, 3))),
            "autoscaling": {"minNodeCount": 0, "maxNodeCount": rng.randint(1, 2)}})
        resources.append(dataclasses.replace(pool, property_dependencies={"cluster": (cluster.urn,)}))
    return resources


def _aks(rng: random.Random) -> list[Resource]:
    """An AKS cluster (its default pool in one zone) and zero to two more node pools, autoscaled."""
    cluster = Resource.of("azure:containerservice/kubernetesCluster:KubernetesCluster", "fleet", {
        "name": "fleet", "location": "eastus", "dnsPrefix": "fleet", "defaultNodePool": {
            "name": "system", "vmSize": rng.choice(sorted(MACHINES["azure"])), "nodeCount": rng.randint(1, 2),
            "zones": [rng.choice(ZONES["azure"])]}})
    resources = [cluster]
    for index in range(rng.randint(0, 2)):
        props: dict[str, Any] = {
            "name": f"g{index}", "kubernetesClusterId": "fleet-id", "vmSize": rng.choice(sorted(MACHINES["azure"])),
            "autoScalingEnabled": True, "minCount": 1, "maxCount": rng.randint(1, 3),
            "zones": sorted(rng.sample(ZONES["azure"], rng.randint(1, 3)))}
        if rng.random() < 0.5:
            props["nodeLabels"] = {"team": rng.choice(("a", "b"))}
        if rng.random() < 0.4:
            effect = EFFECTS[rng.choice(sorted(EFFECTS))]
            props["nodeTaints"] = [f"dedicated={rng.choice(('x', 'y'))}:{effect}"]
        pool = Resource.of("azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool",
                           f"g{index}", props)
        resources.append(dataclasses.replace(pool, property_dependencies={"kubernetesClusterId": (cluster.urn,)}))
    return resources


VCPUS = {"t3.medium": 2, "m5.large": 2, "c5.xlarge": 4, "m6g.large": 2, "t4g.small": 2}


def _karpenter(rng: random.Random) -> list[Resource]:
    """One or two Karpenter NodePools of one machine each, in some zones, their spec.limits.cpu a whole number of
    its nodes (Karpenter launches no node past the limit: nodepools.md, "Limits")."""
    resources = []
    for index in range(rng.randint(1, 2)):
        machine = rng.choice(sorted(MACHINES["aws"]))
        requirements = [
            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [machine]},
            {"key": ZONE, "operator": "In", "values": sorted(rng.sample(ZONES["aws"], rng.randint(1, 3)))}]
        template: dict[str, Any] = {"spec": {"requirements": requirements, "nodeClassRef": {
            "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}
        if rng.random() < 0.5:
            template["metadata"] = {"labels": {"team": rng.choice(("a", "b"))}}
        if rng.random() < 0.4:
            template["spec"]["taints"] = [{"key": "dedicated", "value": rng.choice(("x", "y")),
                                           "effect": rng.choice(sorted(EFFECTS.values()))}]
        limit = str(VCPUS[machine] * rng.randint(1, 3))
        resources.append(Resource.of("kubernetes:karpenter.sh/v1:NodePool", f"g{index}", {
            "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": f"g{index}"},
            "spec": {"template": template, "limits": {"cpu": limit}}}))
    return resources


def _compute(rng: random.Random) -> list[Resource]:
    """A ComputeCluster of one or two capacity groups of catalog machines; its workloads are placed by its labels."""
    groups = [{"groupId": f"p{index}", "minSize": 1, "maxSize": rng.randint(1, 3),
               "instanceType": rng.choice(sorted(MACHINES["aws"]))} for index in range(rng.randint(1, 2))]
    return [Resource.of("compute:index:ComputeCluster", "compute", {"id": "compute", "capacityGroups": groups})]


SOURCES = {"aws": _eks, "gcp": _gke, "azure": _aks, "karpenter": _karpenter, "compute": _compute}
PLATFORM = {"karpenter": "aws", "compute": "aws"}  # the pack's platform setting for each source


def _stack(rng: random.Random, platform: str) -> tuple[list[Resource], dict[str, Any], int, list[dict[str, Any]],
                                                       bool]:
    resources = SOURCES[platform](rng)
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {
        "cpu": rng.choice(("100m", "500m", "1", "1500m", "2", "3")),
        "memory": rng.choice(("256Mi", "1Gi", "1500Mi", "3Gi", "6Gi", "7Gi"))}}}]}
    selector = {}
    placed: dict[str, Any] = {}
    compute = platform == "compute"  # placed on a capacity group by its labels, pinned to its architecture or not
    if compute:
        group = rng.choice(json_format.MessageToDict(resources[0].inputs)["capacityGroups"])
        placed = {"labels": {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": group["groupId"]}}
        if rng.random() < 0.8:
            selector[ARCH] = "arm64" if MACHINES["aws"][group["instanceType"]].startswith("AL2023_ARM") else "amd64"
    elif rng.random() < 0.4:
        selector[ARCH] = rng.choice(("amd64", "arm64"))
    if rng.random() < 0.3 and not compute:
        selector["team"] = rng.choice(("a", "b"))
    if selector:
        spec["nodeSelector"] = selector
    if rng.random() < 0.5:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": rng.choice(("x", "y")),
                                "effect": rng.choice(("NoSchedule", "NoExecute"))}]
    if rng.random() < 0.35 and not compute:
        spread: dict[str, Any] = {"maxSkew": rng.randint(1, 2), "topologyKey": ZONE,
                                  "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "api"}}}
        if rng.random() < 0.7:
            spread["minDomains"] = rng.randint(1, 4)
        spec["topologySpreadConstraints"] = [spread]
    if rng.random() < 0.2:  # one GPU per Pod (a limit: the API server defaults the request to it)
        spec["containers"][0]["resources"]["limits"] = {GPU: "1"}
    if rng.random() < 0.25:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "api"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    replicas = rng.randint(1, 8)
    strategy = {"strategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}} if rng.random() < 0.4 else {}
    daemonsets = [_daemonset(rng, index) for index in range(0 if compute else rng.choice((0, 0, 1, 2)))]
    resources += [resource for resource, _spec in daemonsets]
    resources.append(Resource.of("kubernetes:apps/v1:Deployment", "api", {
        "metadata": {"name": "api", **placed}, "spec": {
        "replicas": replicas, **strategy, "selector": {"matchLabels": {"app": "api"}},
        "template": {"metadata": {"labels": {"app": "api"}}, "spec": spec}}}))
    return resources, spec, replicas, [spec for _resource, spec in daemonsets], bool(strategy)


def admitted(platform: str, spec: dict[str, Any]) -> dict[str, Any]:
    """A Pod spec as the platform's admission hands it to the scheduler. GKE taints its Arm nodes
    kubernetes.io/arch=arm64:NoSchedule and, for a Pod that selects arm64 by its nodeSelector, adds the toleration
    (cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment, "Prepare an Arm workload
    for deployment": "GKE automatically adds the corresponding toleration")."""
    if platform != "gcp" or spec.get("nodeSelector", {}).get(ARCH) != "arm64":
        return spec
    toleration = {"key": ARCH, "operator": "Equal", "value": "arm64", "effect": "NoSchedule"}
    return {**spec, "tolerations": [*spec.get("tolerations", []), toleration]}


def _written(pool: Any, labels: dict[str, str], taints: list[tuple[str, str, str]], zones: tuple[str, ...],
             platform: str, index: int, option: Any, model: Any, gpus: int) -> dict[str, Any]:
    """The pool's node ``index``, of machine ``option`` whose node the pack models as ``model``, advertising ``gpus``
    (the test's own fact)."""
    allocatable = {"cpu": f"{model.allocatable(CPU)}m", "memory": str(model.allocatable(MEMORY)),
                   "pods": str(model.allocatable(PODS)), **({GPU: str(gpus)} if gpus else {})}
    own = dict(labels)
    if platform == "compute":  # the kubelet's own labels, from the machine the pack gives the pool
        own = {ARCH: {"x86_64": "amd64", "arm64": "arm64"}[option.hardware.architecture], **own}
    zone = {ZONE: zones[index % len(zones)]}  # an autoscaling group balances its nodes over its zones
    return node(f"{pool.name}-{index}", {**own, **option.labels, **zone}, taints, allocatable)


def _mixes(stack: Any, platform: str, gpus: dict[str, int]) -> list[list[dict[str, Any]]]:
    """Every pool's maxSize nodes, written from the pack's own node model (the GPUs each node advertises: ``gpus``,
    by pool); a pool of two machines may start any mix of them, so one list of nodes per mix (k of the first
    machine, the rest of the second)."""
    mixes: list[list[dict[str, Any]]] = [[]]
    for pool in stack.pools:
        labels = {key: next(iter(values)) for key, values in pool.labels.items()
                  if isinstance(values, frozenset) and len(values) == 1}
        taints = [(taint.key, taint.value, taint.effect) for taint in pool.taints]
        built = pool_nodes(stack, pool, PLATFORM.get(platform, platform), {})
        assert isinstance(built, list) and 1 <= len(built) <= 2, (pool.name, built)
        count = pool.max_size
        if pool.kind == "NodePool":  # as many nodes as its CPU limit allows, as Karpenter launches them
            count = int(pool.limits["cpu"] // built[0][0].hardware.capacity[CPU])
        zones = ("none",) if platform == "compute" else pool.zones  # no zone is judged on a ComputeCluster here
        assert isinstance(count, int) and isinstance(zones, tuple) and zones, (pool.name, count, zones)

        first, last = built[0], built[-1]
        choices = [[_written(pool, labels, taints, zones, platform, index, *(first if index < k else last),
                             gpus.get(pool.name, 0))
                    for index in range(count)]
                   for k in (range(count + 1) if len(built) == 2 else (count,))]
        mixes = [[*mix, *choice] for mix in mixes for choice in choices]
    return mixes


@dataclasses.dataclass
class Case:
    platform: str
    resources: list[Resource]
    spec: dict[str, Any]  # the Deployment's Pod spec, as its platform admits it
    replicas: int
    mixes: list[list[dict[str, Any]]]  # the nodes of every pool at maxSize, one list per mix of machines
    daemons: list[dict[str, Any]]  # the DaemonSets' Pod specs, as admitted
    refused: list[tuple[str, Any]]  # the violations of POLICIES, by policy
    said: bool  # some policy of POLICIES refused it or said what it could not judge
    surges: bool  # its rollout keeps every old Pod until a new one is available
    rollout: list[Any]  # workload-rollout-fits' violations
    capacity: list[Any]  # pool-capacity's violations
    # the same stack as two (SPEC 18): the Deployment in an app stack, the rest in its platform stack's export
    split_refused: list[tuple[str, Any]] = dataclasses.field(default_factory=list)
    split_said: bool = False

    @property
    def nodes(self) -> list[dict[str, Any]]:
        """The nodes, where every pool has one machine."""
        assert len(self.mixes) == 1
        return self.mixes[0]

    def shown(self, found: dict[str, Any]) -> tuple[Any, ...]:
        resources = [(r.type, json_format.MessageToDict(r.inputs)) for r in self.resources if "Subnet" not in r.type]
        return self.platform, resources, found["nodes"], self.refused


def _case(rng: random.Random, platform: str) -> Case:
    resources, spec, replicas, daemons, surges = _stack(rng, platform)
    with stack_environment({"compute:platform": PLATFORM.get(platform, platform)}, "project", "stack", True):
        analyzer = Analyzer()
        result = analyzer.run(resources)
    refused = [(policy, message) for policy in POLICIES for message in result.of(policy)]
    said = bool(refused) or any(note.policy in POLICIES for note in result.notes)
    advertised = {inputs["nodeGroupName"]: 1 for inputs in (json_format.MessageToDict(r.inputs) for r in resources
                                                              if r.type == "aws:eks/nodeGroup:NodeGroup")
                  if inputs["instanceTypes"] == [GPU_MACHINE] and ADVERTISES[inputs["amiType"]]}
    mixes = _mixes(analyzer.state.last_stack(), platform, advertised)
    if platform == "compute":  # its Pods run on the capacity group its labels name, and on no other
        group = json_format.MessageToDict(resources[-1].inputs)["metadata"]["labels"]["compute.alien.dev/pool"]
        mixes = [[written for written in mix if written["metadata"]["name"].rsplit("-", 1)[0] == group]
                 for mix in mixes]
    split_refused, split_said = _split(resources, platform)
    return Case(platform, resources, admitted(platform, spec), replicas, mixes,
                [admitted(platform, daemon) for daemon in daemons], refused, said, surges,
                result.of("workload-rollout-fits"), result.of("pool-capacity"), split_refused, split_said)


def _split(resources: list[Resource], platform: str) -> tuple[list[tuple[str, Any]], bool]:
    """The verdicts on the Deployment (the last resource) deployed by an app stack, everything else by the platform
    stack acme/platform/prod, whose `pulumi stack export` the app's compute:stacks names (SPEC 18)."""
    ours, theirs = "urn:pulumi:stack::project::", "urn:pulumi:prod::platform::"
    entries = []
    for resource in resources[:-1]:
        entry: dict[str, Any] = {"urn": resource.urn.replace(ours, theirs), "type": resource.type, "custom": True,
                                 "outputs": json_format.MessageToDict(resource.outputs)}
        if resource.parent:
            entry["parent"] = resource.parent.replace(ours, theirs)
        if resource.provider:
            entry["provider"] = f"{resource.provider.replace(ours, theirs)}::id"
        if resource.dependencies:
            entry["dependencies"] = [urn.replace(ours, theirs) for urn in resource.dependencies]
        if resource.property_dependencies:
            entry["propertyDependencies"] = {key: [urn.replace(ours, theirs) for urn in urns]
                                             for key, urns in resource.property_dependencies.items()}
        entries.append(entry)
    with tempfile.TemporaryDirectory() as scratch:
        export = Path(scratch) / "platform.json"
        export.write_text(json.dumps({"version": 3, "deployment": {"resources": entries}}))
        config = {"compute:platform": PLATFORM.get(platform, platform),
                  "compute:stacks": json.dumps({"acme/platform/prod": str(export)})}
        with stack_environment(config, "project", "stack", True):
            result = Analyzer().run(resources[-1:])
    refused = [(policy, message) for policy in POLICIES for message in result.of(policy)]
    return refused, bool(refused) or any(note.policy in POLICIES for note in result.notes)


def _daemon_pods(asked: list[tuple[Case, list[dict[str, Any]]]]) -> list[list[dict[str, Any]]]:
    """The DaemonSet Pods of each (stack, nodes), one on every node whose filters admit it (the DaemonSet
    controller's own predicates), asked of the oracle."""
    each = [(index, number, spec) for index, (case, _nodes) in enumerate(asked)
            for number, spec in enumerate(case.daemons)]
    answer = ask({"filter": [{"nodes": asked[index][1], "pods": [], "pod": pod(f"agent{number}", spec),
                              "replicas": 0} for index, number, spec in each]}) if each else {"filter": []}
    found: list[list[dict[str, Any]]] = [[] for _ in asked]
    for (index, number, spec), verdicts in zip(each, answer["filter"], strict=True):
        for name, verdict in sorted(verdicts["nodes"].items()):
            if verdict == "":
                bound = pod(f"agent{number}-{name}", {**spec, "nodeName": name}, {"app": f"agent{number}"})
                found[index].append(bound)
    return found


UNITS = {"m": Decimal("0.001"), "Ki": Decimal(1024), "Mi": Decimal(1024 ** 2), "Gi": Decimal(1024 ** 3)}


def _quantity(text: str) -> Decimal:
    """A Kubernetes quantity in its base unit (cores, bytes), for the suffixes the generator writes."""
    for suffix, scale in UNITS.items():
        if text.endswith(suffix):
            return Decimal(text[: -len(suffix)]) * scale
    return Decimal(text)


def _beyond_max_size(case: Case, found: dict[str, Any], bound: list[dict[str, Any]]) -> bool:
    """SPEC 11's capacity arithmetic written out, where it is certain: the Deployment fits a node of exactly one pool
    and every other pool refuses it for its labels or taints (not for room), and on that pool its replicas' requests
    plus the DaemonSets' Pods bound to its nodes exceed maxSize x allocatable, or its Pods its Pod slots; on a
    NodePool, its replicas' CPU exceeds spec.limits.cpu (SPEC 14: Karpenter's limits cap its nodes' capacity). Then
    pool-capacity must refuse it."""
    def pool_of(name: str) -> str:
        return name.rsplit("-", 1)[0]

    if len(case.mixes) != 1:
        return False  # which machines its nodes are is the autoscaler's choice: left to the placement sides
    taking = {pool_of(name) for name, verdict in found["nodes"].items() if verdict == ""}
    if len(taking) != 1 or any(not verdict.startswith(("NodeAffinity", "TaintToleration"))
                               for name, verdict in found["nodes"].items() if pool_of(name) not in taking):
        return False
    requests = case.spec["containers"][0]["resources"]["requests"]
    if case.platform == "karpenter":
        (pool,) = taking
        (nodepool,) = [r for r in case.resources if r.type.endswith(":NodePool") and r.name == pool]
        limit = json_format.MessageToDict(nodepool.inputs)["spec"]["limits"]["cpu"]
        return case.replicas * _quantity(requests["cpu"]) > _quantity(limit)
    nodes = [written for written in case.nodes if pool_of(written["metadata"]["name"]) in taking]
    names = {written["metadata"]["name"] for written in nodes}
    daemons = [daemon["spec"] for daemon in bound if daemon["spec"]["nodeName"] in names]
    for resource in ("cpu", "memory", "pods"):
        supply = sum(_quantity(written["status"]["allocatable"][resource]) for written in nodes)
        each = Decimal(1) if resource == "pods" else _quantity(requests[resource])
        taken = sum(Decimal(1) if resource == "pods" else
                    _quantity(daemon["containers"][0]["resources"]["requests"][resource]) for daemon in daemons)
        if case.replicas * each + taken > supply:
            return True
    return False


def test_fit_capacity_and_placement_verdicts_agree_with_kube_scheduler():
    rng = random.Random(SEED)
    cases = [_case(rng, platform) for _ in range(max(1, EXAMPLES // len(SOURCES))) for platform in sorted(SOURCES)]
    asked = [(case, nodes) for case in cases for nodes in case.mixes]
    daemon_pods = _daemon_pods(asked)
    # a rolling update with maxUnavailable 0 keeps every old Pod until a new one is available: replicas + 1 at once
    # EKS, GKE and AKS run the ExtendedResourceToleration admission plugin: a GPU Pod tolerates nvidia.com/gpu:NoSchedule
    answers = ask({"filter": [{"nodes": nodes, "pods": bound, "pod": pod("api", case.spec),
                               "replicas": case.replicas + (1 if case.surges else 0), "admit": True}
                              for (case, nodes), bound in zip(asked, daemon_pods, strict=True)]})["filter"]
    by_case: dict[int, list[tuple[dict[str, Any], list[dict[str, Any]]]]] = {}
    for (case, _nodes), found, bound in zip(asked, answers, daemon_pods, strict=True):
        by_case.setdefault(id(case), []).append((found, bound))
    # the mix of machines that places the most: what the pool can do at best
    judged = [(case, max((found for found, _bound in by_case[id(case)]), key=lambda found: found["placed"]))
              for case in cases]
    false_rollouts = [(case.shown(found), case.rollout) for case, found in judged
                      if case.surges and found["placed"] == case.replicas + 1 and case.rollout]
    assert not false_rollouts, f"{len(false_rollouts)} false rollout violations; the first: {false_rollouts[0]}"
    assert any(case.rollout for case, _found in judged), "the generator must reach a rollout that cannot finish"
    false = [case.shown(found) for case, found in judged if found["placed"] >= case.replicas and case.refused]
    silent = [case.shown(found) for case, found in judged if found["placed"] == 0 and not case.said]
    # the same verdicts when the Deployment is an app stack's and its pools its platform stack's (SPEC 18)
    false += [case.shown(found) for case, found in judged if found["placed"] >= case.replicas and case.split_refused]
    silent += [case.shown(found) for case, found in judged if found["placed"] == 0 and not case.split_said]
    smallest = min(false + silent, key=lambda shown: len(repr(shown)), default=None)
    assert not false and not silent, (f"{len(false)} false violations, {len(silent)} silent passes; the smallest: "
                                      f"{smallest}")
    assert any(len(case.mixes) > 1 and case.refused for case in cases), "a group of two machines must be refused"
    exceeded = [(case, found) for case in cases for found, bound in by_case[id(case)]
                if _beyond_max_size(case, found, bound)]
    missed = [case.shown(found) for case, found in exceeded if not case.capacity]
    missed += [case.shown(found) for case, found in exceeded  # the platform's pool, reported on the app's Deployment
               if not any(policy == "pool-capacity" for policy, _message in case.split_refused)]
    assert not missed, f"{len(missed)} pools certainly too small and not refused; the first: {missed[0]}"
    assert exceeded, "the generator must reach a pool too small for its workloads"
    for platform in SOURCES:  # every platform reaches both sides of the verdict
        mine = [(case, found) for case, found in judged if case.platform == platform]
        assert any(found["placed"] >= case.replicas for case, found in mine), platform
        assert any(found["placed"] == 0 and case.refused for case, found in mine), platform
        assert any(found["placed"] == 0 and case.split_refused for case, found in mine), platform
    gpu = [(case, found) for case, found in judged if GPU in case.spec["containers"][0]["resources"].get("limits", {})]
    assert any(found["placed"] >= case.replicas for case, found in gpu), "a GPU Pod must find its GPU nodes"
    assert any(found["placed"] == 0 and case.refused for case, found in gpu), "and one must be refused"
