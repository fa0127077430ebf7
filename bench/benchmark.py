#!/usr/bin/env python3
"""How much a preview pays for compute-guard, against the floor no policy pack can beat.

    venv/bin/python bench/benchmark.py                      # 1,000 / 5,000 / 10,000 / 50,000 resources
    venv/bin/python bench/benchmark.py --sizes 1000 --repeat 1
    venv/bin/python bench/benchmark.py --remediation --sizes 10000   # what Remediate adds
    venv/bin/python bench/benchmark.py --pack-only --pack-dir /tmp/before   # another version, no floor
    venv/bin/python bench/benchmark.py --report --sizes 5000 10000 20000    # compute-guard report
    venv/bin/python bench/benchmark.py --stacks --sizes 10000   # an app stack over its platform's export (SPEC 18)

For each size it builds a synthetic stack (ComputeClusters with pools; Deployments, StatefulSets,
DaemonSets, CronJobs, Jobs, Pods, ReplicaSets, ReplicationControllers and PodTemplates with
realistic pod specs; Services, ConfigMaps and Secrets beside them) and drives a pack process
started the way the engine starts it: Analyze for every resource, then one AnalyzeStack. It does
the same with a pack of as many no-op policies (same resource/stack split) on the same SDK: the
SDK deserializes every resource once per policy, which is the SDK's floor; and with a raw floor, a bare
Analyzer on the same gRPC server that takes each request as gRPC parses it and answers nothing (no SDK).
It prints, per size, the pack's time, each floor's time, the ratios, and the processes' peak memory (VmHWM).

``--remediation`` measures instead what the engine's first pass costs the pack: it calls Remediate
for every resource before Analyze. It prints wall time and the pack process's CPU time for
Analyze alone, then with Remediate with workload-architecture-pin disabled (the default), at
level remediate on the pinned stack, and at remediate on the same stack with every pin removed.

``--report`` measures ``compute-guard report`` (the console script, a process of its own, as CI runs
it) on the same stack written as a ``pulumi stack export`` file: wall time per format and its peak
memory, so that its growth with the stack's size shows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from compute_guard import policies
from compute_guard.testkit import PolicyResult, Resource
from compute_guard.testkit.engine import EnginePack

ROOT = Path(__file__).resolve().parent.parent

KINDS = [
    ("kubernetes:apps/v1:Deployment",
     lambda t: {"replicas": 3, "selector": {"matchLabels": {"app": "x"}}, "template": t}),
    ("kubernetes:apps/v1:StatefulSet", lambda t: {"serviceName": "x", "selector": {"matchLabels": {"app": "x"}},
                                                  "template": t}),
    ("kubernetes:apps/v1:DaemonSet", lambda t: {"selector": {"matchLabels": {"app": "x"}}, "template": t}),
    ("kubernetes:batch/v1:CronJob", lambda t: {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": t}}}),
    ("kubernetes:batch/v1:Job", lambda t: {"template": t}),
    ("kubernetes:apps/v1:ReplicaSet", lambda t: {"selector": {"matchLabels": {"app": "x"}}, "template": t}),
    ("kubernetes:core/v1:ReplicationController", lambda t: {"selector": {"app": "x"}, "template": t}),
]


def pod_template(name: str, cluster: str, pool: str, platform_pools: bool | str = False) -> dict[str, Any]:
    container = {
        "name": name, "image": f"registry.example.com/team/{name}:1.2.3",
        "args": ["--port=8080", "--log-level=info"],
        "env": [{"name": f"SETTING_{i}", "value": f"value-{i}"} for i in range(10)],
        "ports": [{"containerPort": 8080, "name": "http"}],
        "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"cpu": "1", "memory": "512Mi"}},
        "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 10},
        "livenessProbe": {"httpGet": {"path": "/live", "port": 8080}, "initialDelaySeconds": 5},
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
    }
    labels = {"app": name} if platform_pools else {"app": name, "compute.alien.dev/cluster": cluster,
                                                    "compute.alien.dev/pool": pool}
    selector = {"kubernetes.io/arch": "amd64"}
    if platform_pools == "inline":  # the cluster's inline agent pool by its name
        selector["kubernetes.azure.com/agentpool"] = pool
    elif platform_pools:  # the NodePool by its name, as the scheduler's rules place it
        selector["karpenter.sh/nodepool"] = f"{cluster}-{pool}"
    return {
        "metadata": {"labels": labels},
        "spec": {
            "containers": [container, dict(container, name=f"{name}-sidecar", env=container["env"][:3])],
            "nodeSelector": selector,
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": pool, "effect": "NoSchedule"}],
            "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                                    "labelSelector": {"matchLabels": {"app": name}}}}]}},
            "volumes": [{"name": "config", "configMap": {"name": f"{name}-config"}}],
        },
    }


def nodepool(name: str, pool: str) -> Resource:
    """A Karpenter NodePool of amd64 machines of the m, c and r categories, tainted for its pool's workloads."""
    return Resource.of("kubernetes:karpenter.sh/v1:NodePool", name, {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
        "spec": {"limits": {"cpu": "480"}, "template": {"spec": {
            "requirements": [
                {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]}],
            "taints": [{"key": "dedicated", "value": pool, "effect": "NoSchedule"}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}})


INLINE_CLUSTERS = 3


def inline_clusters() -> tuple[list[Resource], list[str]]:
    """Three AKS clusters, each declaring three pools inline (agentPoolProfiles) of up to 100 Standard_D96s_v5 (96
    cores, 384 GiB, 250 Pods), tainted for their workloads, and a Kubernetes provider per cluster whose kubeconfig
    depends on it (SPEC 14.2: each workload judged on its own cluster's pools). Room for what a third of 10,000
    resources places on each pool (~100 DaemonSets of 500m, and ~1,000 Pods)."""
    import dataclasses

    resources, providers = [], []
    for c in range(INLINE_CLUSTERS):
        cluster = Resource.of("azure-native:containerservice:ManagedCluster", f"aks-{c}", {
            "resourceName": f"aks-{c}", "location": "westeurope", "agentPoolProfiles": [
                {"name": pool, "vmSize": "Standard_D96s_v5", "count": 3, "enableAutoScaling": True, "minCount": 1,
                 "maxCount": 100, "osType": "Linux", "nodeTaints": [f"dedicated={pool}:NoSchedule"]}
                for pool in ("general", "batch", "stateful")]})
        provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", f"aks-{c}-k8s", {
            "kubeconfig": "kubeconfig"}), property_dependencies={"kubeconfig": (cluster.urn,)})
        resources += [cluster, provider]
        providers.append(provider.urn)
    return resources, providers


def synthetic_stack(size: int, platform_pools: bool | str = False) -> list[Resource]:
    # One ComputeCluster per 500 resources, three pools of up to 10 machines of 48 cores and 192 GiB: room for
    # the ~190 Pods (500m, 512Mi each) and ~24 DaemonSets each pool gets, so the stack is clean by every
    # policy, workload-fits-pool and pool-capacity included. platform_pools: the same pools as Karpenter NodePools
    # (True), or inline in three AKS clusters ("inline").
    import dataclasses

    clusters = max(1, size // 500)
    resources = []
    providers: list[str] = []
    if platform_pools == "inline":
        resources, providers = inline_clusters()
        clusters = INLINE_CLUSTERS
    for c in range(clusters if platform_pools != "inline" else 0):
        if platform_pools:  # the same pools, declared as Karpenter NodePools
            resources.extend(nodepool(f"cluster-{c}-{pool}", pool) for pool in ("general", "batch", "stateful"))
            continue
        props = {"id": f"cluster-{c}", "capacityGroups": [
            {"groupId": pool, "minSize": 1, "maxSize": 10, "profile": {
                "cpu": "48", "memoryBytes": 192 << 30, "ephemeralStorageBytes": 200 << 30, "architecture": "x86_64"}}
            for pool in ("general", "batch", "stateful")]}
        resources.append(Resource.of("compute:index:ComputeCluster", f"cluster-{c}", props))
    i = 0
    while len(resources) < size:
        name = f"app-{i}"
        # (with three clusters, i % 3 would give each cluster one pool: the pool turns with the next three)
        turn = i // clusters if clusters == 3 else i
        cluster, pool = f"cluster-{i % clusters}", ("general", "batch", "stateful")[turn % 3]
        if i % 10 < 6:
            kind, spec = KINDS[i % len(KINDS)]
            props = {"metadata": {"name": name, "namespace": "apps", "labels": {"app": name}},
                     "spec": spec(pod_template(name, cluster, pool, platform_pools))}
        elif i % 10 == 6:
            kind, props = "kubernetes:core/v1:Pod", {"metadata": {"name": name}, **{
                k: v for k, v in pod_template(name, cluster, pool, platform_pools).items() if k == "spec"}}
            props["metadata"]["labels"] = pod_template(name, cluster, pool, platform_pools)["metadata"]["labels"]
        elif i % 10 == 7:
            kind, props = "kubernetes:core/v1:Service", {"metadata": {"name": name}, "spec": {
                "selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]}}
        elif i % 10 == 8:
            kind, props = "kubernetes:core/v1:ConfigMap", {"metadata": {"name": f"{name}-config"},
                                                           "data": {f"key{k}": "x" * 64 for k in range(16)}}
        else:
            kind, props = "kubernetes:core/v1:Secret", {"metadata": {"name": name}, "stringData": {"token": "t" * 40}}
        resource = Resource.of(kind, name, props)
        if providers:  # on its cluster's provider
            resource = dataclasses.replace(resource, provider=providers[i % clusters])
        resources.append(resource)
        i += 1
    if platform_pools is True:
        resources.append(Resource.of("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "default", {
            "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
            "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}}))
    return resources


def floor_pack(directory: Path) -> Path:
    """A pack with as many no-op policies as compute-guard, of the same kinds."""
    resource_count = sum(p.subject != "stack" for p in policies.ALL)
    stack_count = len(policies.ALL) - resource_count
    (directory / "PulumiPolicy.yaml").write_text("runtime: python\nversion: 0.0.1\n")
    (directory / "__main__.py").write_text(textwrap.dedent(f"""
        from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy, StackValidationPolicy
        def nothing(args, report_violation):
            return None
        PolicyPack(name="floor", enforcement_level=EnforcementLevel.MANDATORY, policies=[
            *[ResourceValidationPolicy(name=f"r{{i}}", description="no-op", validate=nothing)
              for i in range({resource_count})],
            *[StackValidationPolicy(name=f"s{{i}}", description="no-op", validate=nothing)
              for i in range({stack_count})],
        ])
    """))
    return directory


def raw_floor_pack(directory: Path) -> Path:
    """A bare Analyzer: the same gRPC server the SDK starts (options, threads), with the pack's policy names, that
    takes each request as gRPC parses it and answers nothing. No SDK, no proxies, no policy: the floor no pack can
    beat, since every pack must at least receive what the engine sends. With ``COMPUTE_GUARD_BENCH_ANSWER`` (a file
    of an AnalyzeResponse) it answers AnalyzeStack with those diagnostics, read and parsed when the request comes:
    the floor of a pack that must also send what it found (the answering floor)."""
    names = [(policy.name, policy.subject == "stack") for policy in policies.ALL]
    (directory / "PulumiPolicy.yaml").write_text("runtime: python\nversion: 0.0.1\n")
    (directory / "__main__.py").write_text(textwrap.dedent(f"""
        import os, sys, time
        from concurrent import futures
        import grpc
        from google.protobuf import empty_pb2
        from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc, plugin_pb2

        NAMES = {names!r}

        class Bare(analyzer_pb2_grpc.AnalyzerServicer):
            def GetAnalyzerInfo(self, request, context):
                return analyzer_pb2.AnalyzerInfo(name="raw-floor", version="0.0.1", supportsConfig=True,
                    policies=[analyzer_pb2.PolicyInfo(name=name, description="no-op",
                                                      enforcementLevel=analyzer_pb2.MANDATORY)
                              for name, _stack in NAMES])
            def GetPluginInfo(self, request, context):
                return plugin_pb2.PluginInfo(version="0.0.1")
            def Configure(self, request, context):
                return empty_pb2.Empty()
            def ConfigureStack(self, request, context):
                return analyzer_pb2.AnalyzerStackConfigureResponse()
            def Analyze(self, request, context):
                return analyzer_pb2.AnalyzeResponse()
            def AnalyzeStack(self, request, context):
                answer = os.environ.get("COMPUTE_GUARD_BENCH_ANSWER")
                if answer:
                    with open(answer, "rb") as found:
                        return analyzer_pb2.AnalyzeResponse.FromString(found.read())
                return analyzer_pb2.AnalyzeResponse()
            def Remediate(self, request, context):
                return analyzer_pb2.RemediateResponse()

        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4),
                             options=[("grpc.max_receive_message_length", 400 * 1024 * 1024)])
        analyzer_pb2_grpc.add_AnalyzerServicer_to_server(Bare(), server)
        port = server.add_insecure_port(address="127.0.0.1:0")
        server.start()
        sys.stdout.buffer.write(f"{{port}}\\n".encode())
        sys.stdout.flush()
        while True:
            time.sleep(3600)
    """))
    return directory


def peak_memory_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(resources: list[Resource], pack_dir: Path, answer: Path | None = None,
            keep: Path | None = None, config: dict[str, str] | None = None) -> tuple[float, float, int]:
    """One run of the pack at ``pack_dir``: wall time, its peak memory, its findings. ``answer``: the raw floor's
    AnalyzeStack answer (raw_floor_pack); ``keep``: write the pack's AnalyzeStack answer there; ``config``: the stack
    config (the platform is kubernetes)."""
    env = {"COMPUTE_GUARD_BENCH_ANSWER": str(answer)} if answer is not None else None
    with EnginePack(config or {"compute:platform": "kubernetes"}, pack_dir=pack_dir, env=env) as pack:
        if keep is not None:
            asked = pack._analyze_stack

            def _kept(request: Any) -> Any:
                response = asked(request)
                keep.write_bytes(response.SerializeToString())
                return response

            pack._analyze_stack = _kept  # type: ignore[method-assign]
        started = time.perf_counter()
        result = pack.run(resources)
        elapsed = time.perf_counter() - started
        assert pack.process is not None
        memory = peak_memory_mib(pack.process.pid)
    return elapsed, memory, len(result.violations)


def _pack_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _without_pins(resource: Resource) -> Resource:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "nodeSelector"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return Resource.of(resource.type, resource.name, strip(json_format.MessageToDict(resource.inputs)))


def platform_pools(sizes: list[int], repeat: int, variant: bool | str = True) -> None:
    """The synthetic stack with its pools declared as Karpenter NodePools (or, ``variant`` "inline", inline in three
    AKS clusters, each workload on its cluster's provider; workloads placed by the scheduler's rules: a nodeSelector
    naming their pool, a toleration of its taint) against the same stack on ComputeClusters (placed by label),
    interleaved; fastest run of each."""
    print(f"{'resources':>10} {'ComputeCluster s':>17} {'platform s':>11} {'ratio':>7} {'CC MiB':>7} {'PP MiB':>7}",
          flush=True)
    for size in sizes:
        clusters, nodepools = synthetic_stack(size), synthetic_stack(size, platform_pools=variant)
        cc_runs, np_runs = [], []
        for _ in range(repeat):
            cc_runs.append(measure(clusters, ROOT))
            np_runs.append(measure(nodepools, ROOT))
        assert all(run[2] == 0 for run in cc_runs + np_runs), "both synthetic stacks should be clean"
        cc, np_ = min(run[0] for run in cc_runs), min(run[0] for run in np_runs)
        print(f"{size:>10} {cc:>17.2f} {np_:>11.2f} {np_ / cc:>7.3f} {max(r[1] for r in cc_runs):>7.0f} "
              f"{max(r[1] for r in np_runs):>7.0f}", flush=True)


def remediation(sizes: list[int]) -> None:
    pin = {"workload-architecture-pin": "remediate"}
    print(f"{'resources':>10}  {'run':<44} {'wall s':>7} {'pack CPU s':>11} {'remediated':>11}", flush=True)
    for size in sizes:
        pinned = synthetic_stack(size)
        runs = [("Analyze + AnalyzeStack only", pinned, {}, False),
                ("+ Remediate, pin disabled (default)", pinned, {}, True),
                ("+ Remediate, pin at remediate, all pinned", pinned, pin, True),
                ("+ Remediate, pin at remediate, none pinned", [_without_pins(r) for r in pinned], pin, True)]
        for label, resources, config, remediate in runs:
            with EnginePack({"compute:platform": "kubernetes"}, config) as pack:
                assert pack.process is not None
                cpu, started = _pack_cpu_seconds(pack.process.pid), time.perf_counter()
                if remediate:
                    result = pack.run(resources)
                else:
                    result = PolicyResult()
                    for resource in resources:
                        pack.analyze(resource, result)
                    pack.analyze_stack(resources, result)
                wall, cpu = time.perf_counter() - started, _pack_cpu_seconds(pack.process.pid) - cpu
            assert not result.violations, result.violations[:3]
            print(f"{size:>10}  {label:<44} {wall:>7.2f} {cpu:>11.2f} {len(result.remediations):>11}", flush=True)


def report(sizes: list[int], repeat: int) -> None:
    """compute-guard report on a stack export of each size, per format: the fastest of ``repeat`` runs."""
    import resource as rlimit
    import subprocess

    from google.protobuf import json_format

    script = Path(sys.executable).parent / "compute-guard"
    print(f"{'resources':>10} {'format':>9} {'wall s':>8} {'peak MiB':>9} {'exit':>5}", flush=True)
    for size in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            export = Path(scratch) / "export.json"
            export.write_text(json.dumps({"version": 3, "deployment": {"resources": [
                {"urn": r.urn, "type": r.type, "custom": True, "inputs": json_format.MessageToDict(r.inputs)}
                for r in synthetic_stack(size)]}}))
            (Path(scratch) / "Pulumi.stack.yaml").write_text("config:\n  compute:platform: kubernetes\n")
            for form in ("json", "table", "markdown", "sarif", "html"):
                times, code = [], None
                for _ in range(repeat):
                    started = time.perf_counter()
                    done = subprocess.run([str(script), "report", "--format", form, "-o",
                                           str(Path(scratch) / f"report.{form}"), str(export)],
                                          cwd=scratch, capture_output=True, text=True)
                    times.append(time.perf_counter() - started)
                    code = done.returncode
                    assert code == 0, done.stderr[-2000:]
                peak = rlimit.getrusage(rlimit.RUSAGE_CHILDREN).ru_maxrss / 1024
                print(f"{size:>10} {form:>9} {min(times):>8.2f} {peak:>9.0f} {code:>5}", flush=True)


# --- representative: what real stacks have -----------------------------------------------------------------------

def representative_stack(size: int, requests: bool = True) -> list[Resource]:
    """A stack as real ones are, at ``size`` resources: 10 ComputeClusters of 5 pools per 10,000 resources, and per
    10,000 as many again on the platforms' pools (an EKS cluster with node groups and Karpenter NodePools, an AKS
    cluster with inline pools, each through its own provider); six workload kinds (Deployments, StatefulSets,
    DaemonSets, CronJobs, Jobs, bare Pods) with small realistic pod specs, a PodDisruptionBudget beside every
    Deployment and StatefulSet (issue 38's measure), Services and ConfigMaps; one workload in ten pinned to the
    wrong architecture, so about a thousand findings at 10,000 resources (the independent measurement issue 39
    reports). Without ``requests`` (--every-finding) no container declares any, so every workload carries a finding
    (workload-requests-declared's advisory, the wrong architecture's besides): the stack issue 47 measured at 1.46x
    the raw floor's time and 1.83x its memory."""
    import dataclasses

    scale = max(1, size // 10000)
    resources: list[Resource] = []
    clusters = [f"cc-{c}" for c in range(10 * scale)]
    pools = ("general", "batch", "stateful", "edge", "gpu")
    for cluster in clusters:
        resources.append(Resource.of("compute:index:ComputeCluster", cluster, {"id": cluster, "capacityGroups": [
            {"groupId": pool, "minSize": 1, "maxSize": 10, "profile": {
                "cpu": "64", "memoryBytes": 256 << 30, "ephemeralStorageBytes": 500 << 30,
                "architecture": "x86_64"}} for pool in pools]}))
    platform_providers = []
    for c in range(scale):
        eks = Resource.of("aws:eks/cluster:Cluster", f"eks-{c}", {"name": f"eks-{c}", "roleArn": "arn:aws:iam::1:r"})
        aks = Resource.of("azure-native:containerservice:ManagedCluster", f"aks-{c}", {
            "resourceName": f"aks-{c}", "location": "westeurope", "agentPoolProfiles": [
                {"name": pool, "vmSize": "Standard_D96s_v5", "count": 3, "enableAutoScaling": True, "minCount": 1,
                 "maxCount": 100, "osType": "Linux", "mode": "System" if pool == "system" else "User"}
                for pool in ("system", "apps")]})
        groups = [Resource.of("aws:eks/nodeGroup:NodeGroup", f"eks-{c}-{pool}", {
            "clusterName": f"eks-{c}", "nodeGroupName": pool, "instanceTypes": ["m7i.24xlarge"],
            "amiType": "AL2023_x86_64_STANDARD", "scalingConfig": {"minSize": 1, "maxSize": 100, "desiredSize": 3}})
            for pool in ("system", "apps")]
        resources += [eks, aks, *groups]
        for cluster in (eks, aks):
            provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", f"{cluster.name}-k8s", {
                "kubeconfig": "kubeconfig"}), property_dependencies={"kubeconfig": (cluster.urn,)})
            resources.append(provider)
            platform_providers.append(provider.urn)
        resources += [dataclasses.replace(nodepool(f"eks-{c}-karpenter-{n}", f"k{n}"), provider=platform_providers[-2])
                      for n in range(3)]
    kinds = [KINDS[k] for k in (0, 1, 3, 4)]  # Deployment, StatefulSet, CronJob, Job (DaemonSets and Pods below)
    i = 0
    while len(resources) < size:
        name = f"svc-{i}"
        on_platform = i % 2 == 1 and platform_providers
        cluster, pool = clusters[(i // 2) % len(clusters)], pools[(i // 2 // len(clusters)) % len(pools)]
        wrong = i % 10 == 0  # pinned to the architecture its pool does not run
        arch = "arm64" if wrong else "amd64"
        container = {"name": name, "image": f"registry.example.com/{name}:1.0",
                     "ports": [{"containerPort": 8080}],
                     "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}}}
        if not requests:
            del container["resources"]
        labels = {"app": name} if on_platform else {"app": name, "compute.alien.dev/cluster": cluster,
                                                      "compute.alien.dev/pool": pool}
        selector = {"kubernetes.io/arch": "amd64" if on_platform else arch}
        template = {"metadata": {"labels": labels}, "spec": {"containers": [container], "nodeSelector": selector}}
        if i % 7 == 6:
            kind, props = "kubernetes:core/v1:Pod", {"metadata": {"name": name, "labels": labels},
                                                      "spec": template["spec"]}
        elif i % 40 == 3:  # a DaemonSet for every 40 workloads: an agent on each node of its pool
            kind, make = KINDS[2]
            props = {"metadata": {"name": name, "namespace": "apps", "labels": {"app": name}},
                     "spec": make(template)}
        else:
            kind, make = kinds[i % 4]
            props = {"metadata": {"name": name, "namespace": "apps", "labels": {"app": name}},
                     "spec": make(template)}
        resource = Resource.of(kind, name, props)
        if on_platform:
            resource = dataclasses.replace(resource, provider=platform_providers[(i // 2) % len(platform_providers)])
        resources.append(resource)
        if kind in ("kubernetes:apps/v1:Deployment", "kubernetes:apps/v1:StatefulSet"):
            budget = Resource.of("kubernetes:policy/v1:PodDisruptionBudget", f"{name}-pdb", {
                "metadata": {"name": f"{name}-pdb", "namespace": "apps"},
                "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": name}}}})
            resources.append(dataclasses.replace(budget, provider=resource.provider))  # on its workload's cluster
        if i % 4 == 0:
            resources.append(Resource.of("kubernetes:core/v1:Service", f"{name}-svc", {
                "metadata": {"name": name, "namespace": "apps"},
                "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]}}))
        if i % 4 == 2:
            resources.append(Resource.of("kubernetes:core/v1:ConfigMap", f"{name}-config", {
                "metadata": {"name": f"{name}-config", "namespace": "apps"}, "data": {"LOG_LEVEL": "info"}}))
        i += 1
    return resources[:size]


# --- stacks: an app stack on its platform stack's pools (SPEC 18) -------------------------------------------------

def platform_export(size: int, path: Path) -> Path:
    """The representative stack of ``size`` resources as the platform stack acme/platform/prod's `pulumi stack export`
    (its URNs of that project and stack, its providers and dependencies as a state writes them)."""
    return _exported(representative_stack(size), path)


def _exported(resources: list[Resource], path: Path) -> Path:
    """The resources as the platform stack acme/platform/prod's `pulumi stack export`, written at ``path``."""
    ours, theirs = "urn:pulumi:stack::project::", "urn:pulumi:prod::platform::"
    entries = []
    for resource in resources:
        entry: dict[str, Any] = {"urn": resource.urn.replace(ours, theirs), "type": resource.type, "custom": True,
                                 "outputs": json_format.MessageToDict(resource.outputs)}
        if resource.provider:
            entry["provider"] = f"{resource.provider.replace(ours, theirs)}::id"
        if resource.property_dependencies:
            entry["propertyDependencies"] = {key: [urn.replace(ours, theirs) for urn in urns]
                                             for key, urns in resource.property_dependencies.items()}
        entries.append(entry)
    path.write_text(json.dumps({"version": 3, "deployment": {"resources": entries}}))
    return path


def app_stack(size: int) -> list[Resource]:
    """An app stack of ``size`` resources: the representative stack's Kubernetes resources (workloads, budgets,
    services, config maps) without its clusters and pools, every one through one provider whose kubeconfig (from a
    StackReference: it depends on nothing here) names the platform's EKS cluster eks-0."""
    import dataclasses

    kubeconfig = json.dumps({"apiVersion": "v1", "kind": "Config", "current-context": "eks-0",
                             "clusters": [{"name": "eks-0", "cluster": {"server": "https://EKS0.eks.amazonaws.com"}}],
                             "contexts": [{"name": "eks-0", "context": {"cluster": "eks-0", "user": "eks-0"}}],
                             "users": [{"name": "eks-0", "user": {"exec": {"command": "aws", "args": [
                                 "eks", "get-token", "--cluster-name", "eks-0"]}}}]})
    provider = Resource.of("pulumi:providers:kubernetes", "k8s", {"kubeconfig": kubeconfig})
    kept = [dataclasses.replace(resource, provider=provider.urn) for resource in representative_stack(2 * size)
            if resource.type.startswith("kubernetes:") and not resource.type.startswith("kubernetes:karpenter")]
    return [provider, *kept[:size - 1]]


def stacks(sizes: list[int], repeat: int, pack_dir: Path, app_share: float = 1.0) -> list[dict[str, Any]]:
    """The pack on an app stack over a platform export of each size (compute:stacks names it, the kubeconfig names its
    cluster; the app stack ``app_share`` of the export's size), against the raw floor on the same app stack: the
    fastest of ``repeat`` runs, the largest memory."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory() as raw_scratch:
        raw = raw_floor_pack(Path(raw_scratch))
        print(f"{'resources':>10} {'pack s':>9} {'raw floor s':>12} {'ratio':>7} {'pack MiB':>9} {'raw MiB':>8} "
              f"{'ratio':>6}", flush=True)
        for size in sizes:
            export = platform_export(size, Path(scratch) / f"platform-{size}.json")
            config = {"compute:platform": "aws", "compute:stacks": json.dumps({"acme/platform/prod": str(export)})}
            app = app_stack(max(2, int(size * app_share)))
            pack_runs, (pack_s, pack_mib), (raw_s, raw_mib), (answering_s, answering_mib) = _over_export(
                app, config, repeat, pack_dir, raw, Path(raw_scratch) / "answer.bin")
            rows.append({"resources": size, "app_resources": len(app), "pack_s": round(pack_s, 3),
                         "raw_floor_s": round(raw_s, 3),
                         "raw_ratio": round(pack_s / raw_s, 3), "pack_peak_mib": round(pack_mib, 1),
                         "raw_floor_peak_mib": round(raw_mib, 1), "raw_memory_ratio": round(pack_mib / raw_mib, 3),
                         "findings": pack_runs[0][2], "answering_floor_s": round(answering_s, 3),
                         "answering_floor_peak_mib": round(answering_mib, 1)})
            print(f"{size:>10} {pack_s:>9.2f} {raw_s:>12.2f} {pack_s / raw_s:>7.3f} {pack_mib:>9.0f} {raw_mib:>8.0f} "
                  f"{pack_mib / raw_mib:>6.2f} ({pack_runs[0][2]:,} findings)", flush=True)
            print(f"{'':>10} the raw floor answering the pack's {pack_runs[0][2]:,} findings: {answering_s:.2f} s "
                  f"({pack_s / answering_s:.3f}x), {answering_mib:.0f} MiB ({pack_mib / answering_mib:.2f}x)",
                  flush=True)
    return rows


Measured = tuple[float, float]  # the fastest run's seconds, the largest peak MiB


def _over_export(app: list[Resource], config: dict[str, str], repeat: int, pack_dir: Path, raw: Path, answer: Path
                 ) -> tuple[list[tuple[float, float, int]], Measured, Measured, Measured]:
    """The pack, the raw floor and the raw floor answering the pack's findings (``answer``: the pack's AnalyzeStack
    answer) on one app stack, interleaved as main() measures: the pack's runs, and each one's fastest and largest."""
    pack_runs, raw_runs, answering_runs = [], [], []
    for _ in range(repeat):
        pack_runs.append(measure(app, pack_dir, keep=answer, config=config))
        raw_runs.append(measure(app, raw, config=config))
        answering_runs.append(measure(app, raw, answer=answer, config=config))
    return pack_runs, *((min(run[0] for run in runs), max(run[1] for run in runs))  # type: ignore[return-value]
                        for runs in (pack_runs, raw_runs, answering_runs))


# --- rollouts: an app stack's Deployments rolling out on its platform's pools (issue 77) ---------------------------

def _eks_kubeconfig(cluster: str) -> str:
    server = f"https://{cluster.upper().replace('-', '')}.gr7.us-west-2.eks.amazonaws.com"
    return json.dumps({"apiVersion": "v1", "kind": "Config", "current-context": cluster,
                       "clusters": [{"name": cluster, "cluster": {"server": server}}],
                       "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": cluster}}],
                       "users": [{"name": cluster, "user": {"exec": {"command": "aws", "args": [
                           "eks", "get-token", "--cluster-name", cluster]}}}]})


def rollout_platform_export(size: int, path: Path) -> Path:
    """A platform stack's `pulumi stack export` of ``size`` resources (acme/platform/prod): 3 EKS clusters (each with
    its endpoint) of 5 node groups (m7i.2xlarge, up to 10 nodes, labelled tier=apps), each cluster's Kubernetes provider
    (its kubeconfig from the cluster) and two DaemonSets on it, then Deployments (2 replicas) with a budget, an
    autoscaler and a Service each, on the clusters in turn."""
    import dataclasses

    resources: list[Resource] = []
    providers = []
    for c in range(3):
        name = f"eks-{c}"
        cluster = Resource.of("aws:eks/cluster:Cluster", name, {
            "name": name, "roleArn": "arn:aws:iam::1:r", "version": "1.34",
            "endpoint": f"https://{name.upper().replace('-', '')}.gr7.us-west-2.eks.amazonaws.com"})
        resources.append(cluster)
        resources += [Resource.of("aws:eks/nodeGroup:NodeGroup", f"{name}-g{g}", {
            "clusterName": name, "nodeGroupName": f"g{g}", "instanceTypes": ["m7i.2xlarge"],
            "amiType": "AL2023_x86_64_STANDARD", "labels": {"tier": f"g{g}"},
            "scalingConfig": {"minSize": 1, "maxSize": 10, "desiredSize": 2}}) for g in range(5)]
        provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", f"{name}-k8s", {
            "kubeconfig": _eks_kubeconfig(name)}), property_dependencies={"kubeconfig": (cluster.urn,)})
        resources.append(provider)
        providers.append(provider.urn)
        for d in range(2):
            daemon = Resource.of("kubernetes:apps/v1:DaemonSet", f"{name}-agent-{d}", {
                "metadata": {"name": f"agent-{d}", "namespace": "kube-system"}, "spec": KINDS[2][1]({
                    "metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "agent", "image": "agent",
                                                                                  "resources": {"requests": {
                                                                                      "cpu": "100m",
                                                                                      "memory": "128Mi"}}}]}})})
            resources.append(dataclasses.replace(daemon, provider=provider.urn))
    i = 0
    while len(resources) < size:
        name = f"svc-{i}"
        provider = providers[i % len(providers)]
        labels = {"app": name}
        made = [Resource.of("kubernetes:apps/v1:Deployment", name, {
            "metadata": {"name": name, "namespace": "apps"}, "spec": {
                "replicas": 2, "selector": {"matchLabels": labels}, "template": {
                    "metadata": {"labels": labels}, "spec": {
                    "nodeSelector": {"kubernetes.io/arch": "amd64", "tier": f"g{i // 3 % 5}"}, "containers": [{
                        "name": name, "image": "nginx", "resources": {"requests": {"cpu": "50m",
                                                                                   "memory": "64Mi"}}}]}}}}),
                Resource.of("kubernetes:policy/v1:PodDisruptionBudget", f"{name}-pdb", {
                    "metadata": {"name": f"{name}-pdb", "namespace": "apps"},
                    "spec": {"maxUnavailable": 1, "selector": {"matchLabels": labels}}}),
                Resource.of("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", f"{name}-hpa", {
                    "metadata": {"name": name, "namespace": "apps"}, "spec": {
                        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                        "minReplicas": 2, "maxReplicas": 4}}),
                Resource.of("kubernetes:core/v1:Service", f"{name}-svc", {
                    "metadata": {"name": name, "namespace": "apps"},
                    "spec": {"selector": labels, "ports": [{"port": 80, "targetPort": 8080}]}})]
        resources += [dataclasses.replace(resource, provider=provider) for resource in made]
        i += 1
    return _exported(resources[:size], path)


def rollout_app_stack(deployments: int) -> list[Resource]:
    """An app stack of ``deployments`` Deployments (2 replicas, the default rolling update, which keeps every Pod until
    a new one is up: maxUnavailable 25% of 2 is 0) pinned to amd64 and tier=g0, in namespace apps, through one
    provider whose kubeconfig names the platform's cluster eks-0 by its endpoint; one in ten asks for more memory than
    an m7i.2xlarge holds."""
    import dataclasses

    provider = Resource.of("pulumi:providers:kubernetes", "k8s", {"kubeconfig": _eks_kubeconfig("eks-0")})
    resources = [provider]
    for i in range(deployments):
        name = f"app-{i}"
        labels = {"app": name}
        memory = "40Gi" if i % 10 == 0 else "256Mi"
        resources.append(dataclasses.replace(Resource.of("kubernetes:apps/v1:Deployment", name, {
            "metadata": {"name": name, "namespace": "apps"}, "spec": {
                "replicas": 2, "selector": {"matchLabels": labels}, "template": {
                    "metadata": {"labels": labels}, "spec": {
                    "nodeSelector": {"kubernetes.io/arch": "amd64", "tier": "g0"}, "containers": [{
                        "name": name, "image": "nginx", "resources": {"requests": {"cpu": "100m",
                                                                                   "memory": memory}}}]}}}}),
            provider=provider.urn))
    return resources


def rollouts(sizes: list[int], repeat: int, pack_dir: Path) -> list[dict[str, Any]]:
    """The pack on :func:`rollout_app_stack` of each size over :func:`rollout_platform_export` of ten times its size,
    against the raw floor and the answering floor on the same app stack."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory() as raw_scratch:
        raw = raw_floor_pack(Path(raw_scratch))
        print(f"{'apps':>6} {'export':>7} {'pack s':>8} {'raw s':>7} {'answering s':>12} {'ratio':>6} {'pack MiB':>9} "
              f"{'raw MiB':>8} {'answering MiB':>14}", flush=True)
        for size in sizes:
            export = rollout_platform_export(10 * size, Path(scratch) / f"platform-{size}.json")
            config = {"compute:platform": "aws", "compute:stacks": json.dumps({"acme/platform/prod": str(export)})}
            app = rollout_app_stack(size)
            pack_runs, (pack_s, pack_mib), (raw_s, raw_mib), (answering_s, answering_mib) = _over_export(
                app, config, repeat, pack_dir, raw, Path(raw_scratch) / "answer.bin")
            rows.append({"deployments": size, "export_resources": 10 * size, "pack_s": round(pack_s, 3),
                         "raw_floor_s": round(raw_s, 3), "answering_floor_s": round(answering_s, 3),
                         "answering_ratio": round(pack_s / answering_s, 3), "pack_peak_mib": round(pack_mib, 1),
                         "raw_floor_peak_mib": round(raw_mib, 1), "answering_floor_peak_mib": round(answering_mib, 1),
                         "findings": pack_runs[0][2]})
            print(f"{size:>6} {10 * size:>7} {pack_s:>8.2f} {raw_s:>7.2f} {answering_s:>12.2f} "
                  f"{pack_s / answering_s:>6.2f} {pack_mib:>9.0f} {raw_mib:>8.0f} {answering_mib:>14.0f} "
                  f"({pack_runs[0][2]:,} findings)", flush=True)
    return rows


# --- elsewhere: workloads on a pool of a cluster that may have pools the stack does not show -----------------------

def elsewhere_stack(workloads: int) -> list[Resource]:
    """An EKS cluster with one node group and a Fargate profile (nodes no pool of the stack shows: SPEC 14.2), and
    ``workloads`` Deployments of two replicas (maxUnavailable 0) that only that group takes: every one is counted
    "elsewhere", and workload-rollout-fits notes what would fail. Issue 67's quadratic: each recounted the whole
    pool's load (0.75 s, 2.88 s, 11.78 s at 250, 500, 1,000 in process before)."""
    import dataclasses

    eks = Resource.of("aws:eks/cluster:Cluster", "eks", {"name": "eks", "roleArn": "arn:aws:iam::1:role/eks"})
    group = Resource.of("aws:eks/nodeGroup:NodeGroup", "apps", {
        "clusterName": "eks", "nodeGroupName": "apps", "instanceTypes": ["m7i.24xlarge"],
        "amiType": "AL2023_x86_64_STANDARD", "scalingConfig": {"minSize": 1, "maxSize": 100, "desiredSize": 3}})
    fargate = Resource.of("aws:eks/fargateProfile:FargateProfile", "fp", {"clusterName": "eks",
                                                                           "selectors": [{"namespace": "other"}]})
    provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", "k8s", {"kubeconfig": "kubeconfig"}),
                                   property_dependencies={"kubeconfig": (eks.urn,)})
    found = [eks, group, fargate, provider]
    for i in range(workloads):
        name = f"api-{i}"
        template = {"metadata": {"labels": {"app": name}}, "spec": {"nodeSelector": {"kubernetes.io/arch": "amd64"},
                    "containers": [{"name": name, "image": f"registry.example.com/{name}:1.0", "resources": {
                        "requests": {"cpu": "100m", "memory": "128Mi"}}}]}}
        found.append(dataclasses.replace(Resource.of("kubernetes:apps/v1:Deployment", name, {
            "metadata": {"name": name}, "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                                                 "template": template}}), provider=provider.urn))
    return found


def elsewhere(sizes: list[int], repeat: int, pack_dir: Path) -> list[dict[str, Any]]:
    """The pack on elsewhere_stack at each size against the raw floor: the fastest of ``repeat`` runs."""
    rows = []
    with tempfile.TemporaryDirectory() as raw_scratch:
        raw = raw_floor_pack(Path(raw_scratch))
        config = {"compute:platform": "aws"}
        print(f"{'workloads':>10} {'pack s':>9} {'raw floor s':>12} {'ratio':>7} {'pack MiB':>9} {'raw MiB':>8}",
              flush=True)
        for size in sizes:
            resources = elsewhere_stack(size)
            pack_runs = [measure(resources, pack_dir, config=config) for _ in range(repeat)]
            raw_runs = [measure(resources, raw, config=config) for _ in range(repeat)]
            pack_s, raw_s = min(run[0] for run in pack_runs), min(run[0] for run in raw_runs)
            pack_mib, raw_mib = max(run[1] for run in pack_runs), max(run[1] for run in raw_runs)
            rows.append({"workloads": size, "pack_s": round(pack_s, 3), "raw_floor_s": round(raw_s, 3),
                         "pack_peak_mib": round(pack_mib, 1), "raw_floor_peak_mib": round(raw_mib, 1)})
            print(f"{size:>10} {pack_s:>9.2f} {raw_s:>12.2f} {pack_s / raw_s:>7.3f} {pack_mib:>9.0f} {raw_mib:>8.0f}",
                  flush=True)
    return rows


# --- growth: each input doubled in turn --------------------------------------------------------------------------

# The base of each input the growth mode doubles, and what each means in the stack it builds.
GROWTH_BASE = {
    "pools": 2500,           # capacity groups of one ComputeCluster (pools per cluster: a quadratic once)
    "workloads": 2000,       # Deployments, StatefulSets, Jobs, CronJobs, Pods: a third on the ComputeCluster by label,
                             # a third on the AKS clusters through their providers, a third on the NodePools
    "daemonsets": 200,       # DaemonSets: half by label on one ComputeCluster pool, half on every platform node
    "platform_pools": 200,   # Karpenter NodePools, each tainted for its workloads
    "budgets": 500,          # PodDisruptionBudgets, each selecting one workload
    "clusters": 20,          # AKS clusters with three inline pools and a Kubernetes provider each
}


def growth_stack(pools: int, workloads: int, daemonsets: int, platform_pools: int, budgets: int,
                 clusters: int) -> list[Resource]:
    """A stack of every input the pack's cost can grow with, each at its own count, and clean by every policy (the
    pools are large enough for what they take, so findings do not change what is measured)."""
    import dataclasses

    resources = [Resource.of("compute:index:ComputeCluster", "fleet", {"id": "fleet", "capacityGroups": [
        {"groupId": f"pool-{p}", "minSize": 1, "maxSize": 10, "profile": {
            "cpu": "48", "memoryBytes": 192 << 30, "ephemeralStorageBytes": 200 << 30, "architecture": "x86_64"}}
        for p in range(pools)]})]
    providers = []
    for c in range(clusters):
        cluster = Resource.of("azure-native:containerservice:ManagedCluster", f"aks-{c}", {
            "resourceName": f"aks-{c}", "location": "westeurope", "agentPoolProfiles": [
                {"name": pool, "vmSize": "Standard_D96s_v5", "count": 3, "enableAutoScaling": True, "minCount": 1,
                 "maxCount": 1000, "osType": "Linux", "mode": "System" if pool == "system" else "User"}
                for pool in ("system", "general", "batch")]})
        provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", f"aks-{c}-k8s", {
            "kubeconfig": "kubeconfig"}), property_dependencies={"kubeconfig": (cluster.urn,)})
        resources += [cluster, provider]
        providers.append(provider.urn)
    # The NodePools of an EKS cluster, through the provider whose kubeconfig depends on it (Karpenter's nodes join
    # the cluster its NodePools are applied to)
    eks = Resource.of("aws:eks/cluster:Cluster", "eks", {"name": "eks", "roleArn": "arn:aws:iam::1:role/eks",
                                                         "vpcConfig": {"subnetIds": ["subnet-1", "subnet-2"]}})
    eks_provider = dataclasses.replace(Resource.of("pulumi:providers:kubernetes", "eks-k8s", {
        "kubeconfig": "kubeconfig"}), property_dependencies={"kubeconfig": (eks.urn,)})
    resources += [eks, eks_provider]
    resources += [dataclasses.replace(nodepool(f"nodepool-{n}", f"np-{n}"), provider=eks_provider.urn)
                  for n in range(platform_pools)]
    resources.append(Resource.of("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "default", {
        "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
        "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}}))
    kinds = [KINDS[k] for k in (0, 1, 3, 4)]  # Deployment, StatefulSet, CronJob, Job (and Pods below)
    for i in range(workloads):
        name, where = f"app-{i}", i % 3
        template = pod_template(name, "fleet", f"pool-{i % max(1, pools)}", platform_pools=bool(where))
        spec = template["spec"]
        if where == 1:  # an AKS cluster's pool, through its provider
            spec["nodeSelector"] = {"kubernetes.io/arch": "amd64"}
            spec["tolerations"] = []
        elif where == 2:  # a NodePool by its name, tolerating its taint
            n = i % max(1, platform_pools)
            spec["nodeSelector"] = {"kubernetes.io/arch": "amd64", "karpenter.sh/nodepool": f"nodepool-{n}"}
            spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": f"np-{n}",
                                    "effect": "NoSchedule"}]
        if i % 5 == 4:
            kind, props = "kubernetes:core/v1:Pod", {"metadata": {"name": name, **template["metadata"]}, "spec": spec}
        else:
            kind, make = kinds[i % 4]
            props = {"metadata": {"name": name, "namespace": "apps", "labels": {"app": name}}, "spec": make(template)}
        resource = Resource.of(kind, name, props)
        if where == 1 and providers:
            resource = dataclasses.replace(resource, provider=providers[i % len(providers)])
        elif where == 2:
            resource = dataclasses.replace(resource, provider=eks_provider.urn)
        resources.append(resource)
    for d in range(daemonsets):  # half on a ComputeCluster pool by label, a quarter on the EKS and the AKS clusters
        name, where = f"agent-{d}", d % 4
        template = pod_template(name, "fleet", f"pool-{d % max(1, pools)}", platform_pools=bool(where % 2))
        template["spec"]["containers"] = [dict(template["spec"]["containers"][0],
                                               resources={"requests": {"cpu": "10m", "memory": "16Mi"}})]
        if where % 2:  # on every node of its cluster's pools: tolerates everything
            template["spec"]["nodeSelector"] = {"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
            template["spec"]["tolerations"] = [{"operator": "Exists"}]
        daemonset = Resource.of("kubernetes:apps/v1:DaemonSet", name, {
            "metadata": {"name": name, "namespace": "system", "labels": {"app": name}},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": template}})
        if where == 1:
            daemonset = dataclasses.replace(daemonset, provider=eks_provider.urn)
        elif where == 3 and providers:
            daemonset = dataclasses.replace(daemonset, provider=providers[d % len(providers)])
        resources.append(daemonset)
    for b in range(budgets):
        name = f"app-{b % max(1, workloads)}"
        resources.append(Resource.of("kubernetes:policy/v1:PodDisruptionBudget", f"{name}-budget-{b}", {
            "metadata": {"name": f"{name}-budget-{b}", "namespace": "apps"},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": name}}}}))
    return resources


def growth(factor_sizes: list[int], repeat: int, pack_dir: Path = ROOT,
           inputs: list[str] | None = None) -> list[dict[str, Any]]:
    """Each input of GROWTH_BASE doubled in turn (the others at their base), over the engine protocol: the time at
    each multiple and the ratio between the two largest, which a linear cost keeps near 2."""
    rows = []
    print(f"{'input':>15} " + " ".join(f"{'x' + str(f) + ' s':>9}" for f in factor_sizes) + f" {'ratio':>7} "
          f"{'findings':>9}", flush=True)
    for name in inputs or list(GROWTH_BASE):
        times, findings = [], 0
        for factor in factor_sizes:
            counts = dict(GROWTH_BASE, **{name: GROWTH_BASE[name] * factor})
            stack = growth_stack(**counts)
            runs = [measure(stack, pack_dir) for _ in range(repeat)]
            times.append(min(run[0] for run in runs))
            findings = runs[0][2]
        ratio = times[-1] / times[-2]
        rows.append({"input": name, "base": GROWTH_BASE[name], "factors": factor_sizes,
                     "seconds": [round(t, 3) for t in times], "ratio": round(ratio, 3), "violations": findings})
        print(f"{name:>15} " + " ".join(f"{t:>9.2f}" for t in times) + f" {ratio:>7.2f} {findings:>9}", flush=True)
    return rows


def pools_stress(pools: int, pack_dir: Path = ROOT) -> float:
    """One ComputeCluster of ``pools`` pools and nothing else, over the engine protocol: the time to answer."""
    stack = growth_stack(pools=pools, workloads=0, daemonsets=0, platform_pools=0, budgets=0, clusters=0)
    elapsed, _memory, violations = measure(stack, pack_dir)
    assert violations == 0
    return elapsed


DEFAULT_SIZES = [1000, 5000, 10000, 50000]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=DEFAULT_SIZES)
    parser.add_argument("--repeat", type=int, default=3, help="runs per size and pack; the fastest counts")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    parser.add_argument("--remediation", action="store_true", help="measure what Remediate adds instead")
    parser.add_argument("--platform-pools", action="store_true",
                        help="the same stack on Karpenter NodePools instead of ComputeClusters, against it")
    parser.add_argument("--inline-pools", action="store_true",
                        help="the same stack on three AKS clusters' inline pools, against it")
    parser.add_argument("--report", action="store_true", help="measure compute-guard report instead")
    parser.add_argument("--representative", action="store_true",
                        help="the pack against the raw floor on representative_stack (what real stacks have)")
    parser.add_argument("--every-finding", action="store_true",
                        help="--representative with no requests declared: every workload carries a finding")
    parser.add_argument("--growth", action="store_true",
                        help="double each input in turn (--sizes are the multiples, default 1 2 4) and report ratios")
    parser.add_argument("--inputs", nargs="+", choices=list(GROWTH_BASE), help="--growth: only these inputs")
    parser.add_argument("--stress-pools", type=int, nargs="+", metavar="POOLS",
                        help="one ComputeCluster of this many pools, alone: its time to answer")
    parser.add_argument("--stacks", action="store_true",
                        help="an app stack over a platform stack's export of the same size (SPEC 18), against the "
                             "raw floor")
    parser.add_argument("--elsewhere", action="store_true",
                        help="Deployments on a pool of a cluster that may have pools the stack does not show (--sizes "
                             "are the Deployments)")
    parser.add_argument("--rollouts", action="store_true",
                        help="an app stack of Deployments rolling out on its platform's pools, over an export ten "
                             "times its size (--sizes are the Deployments; issue 77)")
    parser.add_argument("--app-share", type=float, default=1.0,
                        help="--stacks: the app stack's size as a share of the platform export's (0.1: 1,000 over "
                             "10,000)")
    parser.add_argument("--pack-only", action="store_true", help="skip the floors (to compare two versions)")
    parser.add_argument("--raw-only", action="store_true", help="skip the SDK's floor (slow at 50,000)")
    parser.add_argument("--pack-dir", type=Path, default=ROOT,
                        help="the pack to measure, such as a worktree of an earlier commit (default: this one)")
    args = parser.parse_args()
    if args.platform_pools or args.inline_pools:
        platform_pools(args.sizes, args.repeat, "inline" if args.inline_pools else True)
        return 0
    if args.remediation:
        remediation(args.sizes)
        return 0
    if args.growth:
        sizes = args.sizes if args.sizes != DEFAULT_SIZES else [1, 2, 4]
        rows = growth(sizes, args.repeat, args.pack_dir, args.inputs)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
        return 0 if all(row["ratio"] <= 2.2 for row in rows) else 1
    if args.stress_pools:
        for pools in args.stress_pools:
            print(f"{pools:>7} pools in one ComputeCluster: {pools_stress(pools, args.pack_dir):.2f} s", flush=True)
        return 0
    if args.report:
        report(args.sizes, args.repeat)
        return 0
    if args.elsewhere:
        rows = elsewhere(args.sizes, args.repeat, args.pack_dir)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
        return 0
    if args.rollouts:
        found = rollouts(args.sizes, args.repeat, args.pack_dir)
        if args.json:
            args.json.write_text(json.dumps(found, indent=2) + "\n")
        return 0
    if args.stacks:
        found = stacks(args.sizes, args.repeat, args.pack_dir, args.app_share)
        if args.json:
            args.json.write_text(json.dumps(found, indent=2) + "\n")
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory() as raw_scratch:
        floor, raw = floor_pack(Path(scratch)), raw_floor_pack(Path(raw_scratch))
        print(f"{'resources':>10} {'pack s':>9} {'SDK floor s':>12} {'ratio':>7} {'raw floor s':>12} {'ratio':>7} "
              f"{'pack MiB':>9} {'SDK MiB':>8} {'raw MiB':>8} {'ratio':>6}", flush=True)
        answer = Path(raw_scratch) / "answer.bin"  # the pack's AnalyzeStack answer, for the answering floor
        for size in args.sizes:
            resources = representative_stack(size, not args.every_finding) \
                if args.representative or args.every_finding else synthetic_stack(size)
            # Interleaved (pack, floors, pack, floors, ...): the machine's speed drifts by as much as 20% over
            # minutes here, and a drift should reach every side of a ratio alike.
            pack_runs: list[tuple[float, float, int]] = []
            floor_runs: list[tuple[float, float, int]] = []
            raw_runs: list[tuple[float, float, int]] = []
            answering_runs: list[tuple[float, float, int]] = []
            answers = args.representative or args.every_finding  # stacks with findings: the answering floor too
            for _ in range(args.repeat):
                pack_runs.append(measure(resources, args.pack_dir, keep=answer if answers else None))
                if not (args.pack_only or args.raw_only):
                    floor_runs.append(measure(resources, floor))
                if not args.pack_only:
                    raw_runs.append(measure(resources, raw))
                    if answers:
                        answering_runs.append(measure(resources, raw, answer=answer))
            pack_time = min(run[0] for run in pack_runs)
            floor_time = min((run[0] for run in floor_runs), default=float("nan"))
            raw_time = min((run[0] for run in raw_runs), default=float("nan"))
            memory = max(run[1] for run in pack_runs)
            floor_memory = max((run[1] for run in floor_runs), default=float("nan"))
            raw_memory = max((run[1] for run in raw_runs), default=float("nan"))
            violations = pack_runs[0][2]
            answering_time = min((run[0] for run in answering_runs), default=float("nan"))
            answering_memory = max((run[1] for run in answering_runs), default=float("nan"))
            assert args.representative or args.every_finding or violations == 0, \
                f"the synthetic stack should be clean, got {violations}"
            rows.append({"resources": size, "pack_s": round(pack_time, 3), "floor_s": round(floor_time, 3),
                         "ratio": round(pack_time / floor_time, 3), "raw_floor_s": round(raw_time, 3),
                         "raw_ratio": round(pack_time / raw_time, 3), "pack_peak_mib": round(memory, 1),
                         "floor_peak_mib": round(floor_memory, 1), "raw_floor_peak_mib": round(raw_memory, 1),
                         "raw_memory_ratio": round(memory / raw_memory, 3), "findings": violations,
                         "answering_floor_s": round(answering_time, 3),
                         "answering_floor_peak_mib": round(answering_memory, 1)})
            print(f"{size:>10} {pack_time:>9.2f} {floor_time:>12.2f} {pack_time / floor_time:>7.3f} {raw_time:>12.2f} "
                  f"{pack_time / raw_time:>7.3f} {memory:>9.0f} {floor_memory:>8.0f} {raw_memory:>8.0f} "
                  f"{memory / raw_memory:>6.2f} ({violations:,} findings)", flush=True)
            if answering_runs:
                print(f"{'':>10} the raw floor answering the pack's {violations:,} findings: {answering_time:.2f} s "
                      f"({pack_time / answering_time:.3f}x), {answering_memory:.0f} MiB "
                      f"({memory / answering_memory:.2f}x)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
