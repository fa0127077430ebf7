"""An existing Kubernetes cluster with two x86_64 compute pools and workloads placed on them.

Every workload states what its Pods request, so compute-guard can tell whether one Pod fits a node of
its pool (4 cores and 16 GiB in 'general', 8 cores and 32 GiB in 'stateful') and whether each pool,
at its maxSize, holds everything placed on it.

Run with compute-guard: `pulumi preview --policy-pack ../..` (or `scripts/preview` offline).
The Kubernetes provider renders YAML to a directory, so no cluster is needed.
"""

import signal
import sys

import pulumi
import pulumi_kubernetes as k8s

from compute_guard.component import (
    AutoscaleScalePolicy,
    CapacityGroup,
    ComputeChoiceRange,
    ComputeCluster,
    ComputeClusterArgs,
    MachineProfile,
)

GIB = 1 << 30
# After a failed preview the engine stops the program with SIGINT: exit quietly rather than print Python's
# KeyboardInterrupt traceback (docs/troubleshooting.md).
signal.signal(signal.SIGINT, lambda signum, frame: sys.exit(1))
AMD64 = {"kubernetes.io/arch": "amd64"}  # what x86_64 is called on Kubernetes nodes

# On a cloud (the stack 'aws'), 'general' is given by its machine alone, as cloud users write it: the machine's
# catalog facts are its node and its architecture (m7i.xlarge: 4 vCPUs, 16 GiB, x86_64).
machine = pulumi.Config().get("generalMachine")
general = (dict(instance_type=machine) if machine else
           dict(profile=MachineProfile(cpu="4", memory_bytes=16 * GIB, ephemeral_storage_bytes=100 * GIB,
                                       architecture="x86_64")))

compute = ComputeCluster("compute", ComputeClusterArgs(
    id="compute",
    capacity_groups=[
        CapacityGroup(group_id="general", min_size=1, max_size=3, **general,
                      scale_policy=AutoscaleScalePolicy(min=ComputeChoiceRange(min=1, max=2, default=1),
                                                        max=ComputeChoiceRange(min=3, max=5, default=3))),
        CapacityGroup(group_id="stateful", min_size=2, max_size=2,
                      profile=MachineProfile(cpu="8", memory_bytes=32 * GIB, ephemeral_storage_bytes=200 * GIB,
                                             architecture="x86_64")),
    ],
    dynamic_container_pool="general",
))

render = k8s.Provider("render", render_yaml_to_directory="rendered")
opts = pulumi.ResourceOptions(provider=render)


def placement(pool: str, role: str = "container") -> dict:
    return {"compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": pool,
            "compute.alien.dev/workload": role}


def pod(name: str, cpu: str, memory: str, **spec) -> dict:
    container = {"name": name, "image": f"registry.example.com/{name}:1.0",
                 "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {"memory": memory}}}
    return {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], "nodeSelector": AMD64, **spec}}


k8s.apps.v1.Deployment("api", metadata={"name": "api", "labels": placement("general")}, spec={
    "replicas": 2, "selector": {"matchLabels": {"app": "api"}}, "template": pod("api", "500m", "1Gi")}, opts=opts)

k8s.apps.v1.StatefulSet("db", metadata={"name": "db", "labels": placement("stateful")}, spec={
    "serviceName": "db", "selector": {"matchLabels": {"app": "db"}}, "template": pod("db", "2", "8Gi")}, opts=opts)

k8s.apps.v1.DaemonSet("log-agent", metadata={"name": "log-agent", "labels": placement("general", "daemon")}, spec={
    "selector": {"matchLabels": {"app": "log-agent"}}, "template": pod("log-agent", "100m", "128Mi")}, opts=opts)

k8s.batch.v1.CronJob("report", metadata={"name": "report", "labels": {"compute.alien.dev/workload": "worker"}},
                     spec={"schedule": "0 3 * * *", "jobTemplate": {"spec": {
                         "template": pod("report", "250m", "256Mi", restartPolicy="OnFailure")}}}, opts=opts)

# A Helm chart (examples/charts/status-page) placed by its values: its Deployment carries the same labels and pin.
# The Kubernetes provider renders it, so the offline preview says it could not check it; `pulumi preview` does.
k8s.helm.v4.Chart("status", chart="../charts/status-page", namespace="default",
                  values={"labels": placement("general"), "nodeSelector": AMD64}, opts=opts)

if pulumi.Config().get_bool("demoMistakes"):
    # The stack 'broken' turns this on to show what compute-guard rejects: a pool that does not
    # exist, and Pods pinned with the classic x86_64 spelling that no Kubernetes node carries ...
    k8s.apps.v1.Deployment("legacy", metadata={"name": "legacy", "labels": placement("gpu")}, spec={
        "selector": {"matchLabels": {"app": "legacy"}},
        "template": pod("legacy", "100m", "128Mi", nodeSelector={"kubernetes.io/arch": "x86_64"})}, opts=opts)
    # ... a Pod larger than any node of its pool (6 cores on 4-core machines), which would sit Pending ...
    k8s.apps.v1.Deployment("encoder", metadata={"name": "encoder", "labels": placement("general")}, spec={
        "selector": {"matchLabels": {"app": "encoder"}}, "template": pod("encoder", "6", "4Gi")}, opts=opts)
    # ... and a pool that, at its maxSize of 2 machines of 32 GiB, cannot hold 5 x 12 GiB beside the db.
    k8s.apps.v1.StatefulSet("cache", metadata={"name": "cache", "labels": placement("stateful")}, spec={
        "serviceName": "cache", "replicas": 5, "selector": {"matchLabels": {"app": "cache"}},
        "template": pod("cache", "500m", "12Gi")}, opts=opts)

pulumi.export("cluster_id", compute.cluster_id)
