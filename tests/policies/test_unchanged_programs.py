"""An unchanged program is never a change (issue 75; SPEC 19): a deployed program previewed again with nothing changed
gets no finding of pool-replacement-safe, workload-disruption-allowed or pool-safe-update, wherever the previous
deployment's outputs hold what the provider writes and the program never wrote.

Each previous deployment here is the program exported as deployed, its outputs then written as the provider writes
them (the shapes below, each cited); on main each was refused as a replacement on every preview, in words that showed
the state's internal key ``__defaults``. Each has its valid twin: a real change to the same input is still refused,
and its message holds no internal key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
from builders import exported

from compute_guard.policies.model.replacement import same_link
from compute_guard.testkit import evaluate

GCP = {"compute:platform": "gcp", "gcp:project": "acme", "gcp:region": "us-central1"}
CHANGES = ("pool-replacement-safe", "workload-disruption-allowed", "pool-safe-update")
T4 = {"type": "nvidia-tesla-t4", "count": 1}
# what pulumi-gcp writes for a guest accelerator of a node pool after an up: the Terraform provider's state, with an
# empty string for the partition size the program leaves unset and null for the unset blocks (pulumi/pulumi-gcp
# provider/provider_test.go, TestNodePoolGpuAcceleratorPanic)
WRITTEN_T4 = {"count": 1, "gpuDriverInstallationConfig": None, "gpuPartitionSize": "", "gpuSharingConfig": None,
              "type": "nvidia-tesla-t4"}
SELF_LINK = "projects/acme/regions/us-central1/subnetworks/default"


def gke(accelerators: list[dict[str, Any]], *, inline: bool = False, subnetwork: str | None = "default") -> Any:
    """A zonal GKE cluster with a GPU node pool 'gpu' of one n1-standard-4 node (its name set), as a NodePool resource
    or inline in the cluster's nodePools, a budget that allows no eviction of the StatefulSet that runs there."""
    def program() -> None:
        pool = {"name": "gpu", "node_count": 1, "node_config": {"machine_type": "n1-standard-4",
                                                                "guest_accelerators": accelerators}}
        cluster = gcp.container.Cluster("gke", name="gke", location="us-central1-a", network="default",
                                        subnetwork=subnetwork, deletion_protection=False,
                                        **({"node_pools": [pool]} if inline else {"initial_node_count": 1,
                                                                                 "remove_default_node_pool": True}))
        if not inline:
            gcp.container.NodePool("gpu", cluster=cluster.name, location="us-central1-a", **pool)
        provider = k8s.Provider("gke", kubeconfig=cluster.endpoint)
        opts = pulumi.ResourceOptions(provider=provider)
        labels = {"app": "db"}
        k8s.apps.v1.StatefulSet("db", metadata={"name": "db"}, spec={
            "replicas": 1, "serviceName": "db", "selector": {"matchLabels": labels}, "template": {
                "metadata": {"labels": labels}, "spec": {
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                    "containers": [{"name": "db", "image": "db", "resources": {"requests": {"cpu": "100m"}}}]}}},
            opts=opts)
        k8s.policy.v1.PodDisruptionBudget("db", metadata={"name": "db"}, spec={
            "maxUnavailable": 0, "selector": {"matchLabels": labels}}, opts=opts)
    return program


def as_written(path: Path, **outputs: Any) -> Path:
    """The export with the provider's own outputs: ``accelerators`` for the pool's (or the inline pool's) guest
    accelerators, ``subnetwork`` for the cluster's."""
    document = json.loads(path.read_text())
    for entry in document["deployment"]["resources"]:
        written = entry.get("outputs") or {}
        if "accelerators" in outputs and entry["type"] == "gcp:container/nodePool:NodePool":
            written["nodeConfig"]["guestAccelerators"] = outputs["accelerators"]
        if entry["type"] == "gcp:container/cluster:Cluster":
            if "accelerators" in outputs and written.get("nodePools"):
                written["nodePools"][0]["nodeConfig"]["guestAccelerators"] = outputs["accelerators"]
            if "subnetwork" in outputs:
                written["subnetwork"] = outputs["subnetwork"]
    path.write_text(json.dumps(document))
    return path


def findings(result: Any) -> list[tuple[str, str]]:
    return [(found.policy, found.finding) for found in result.violations if found.policy in CHANGES]


def test_an_unchanged_gpu_node_pool_is_no_change(tmp_path):
    """A named GKE NodePool with guest accelerators, against its deployment as pulumi-gcp writes it: no finding, twice
    in one process (on main: "its nodeConfig.guestAccelerators changes from [{"__defaults": [], "count": 1,
    "gpuPartitionSize": "", ...", mandatory). Its twin: two GPUs instead of one replaces the pool, refused for its
    name, in words that show no internal key."""
    deployed = as_written(exported(gke([T4]), tmp_path / "gpu.json", GCP), accelerators=[WRITTEN_T4])
    for _ in range(2):
        assert findings(evaluate(gke([T4]), stack_config=GCP, deployed=deployed)) == []
    changed = findings(evaluate(gke([{**T4, "count": 2}]), stack_config=GCP, deployed=deployed))
    replaced = [message for policy, message in changed if policy == "pool-replacement-safe"]
    assert replaced and "its nodeConfig.guestAccelerators changes from [{\"count\": 1, " in replaced[0], changed
    assert all("__" not in message for _, message in changed), changed


def test_an_unchanged_inline_gpu_pool_is_no_change(tmp_path):
    """The same pool inline in the cluster's nodePools (on main: "replaces the whole cluster"). Its twin: two GPUs
    replace the whole cluster under its StatefulSet: refused."""
    deployed = as_written(exported(gke([T4], inline=True), tmp_path / "inline.json", GCP),
                          accelerators=[WRITTEN_T4])
    assert findings(evaluate(gke([T4], inline=True), stack_config=GCP, deployed=deployed)) == []
    changed = findings(evaluate(gke([{**T4, "count": 2}], inline=True), stack_config=GCP, deployed=deployed))
    assert any(policy == "pool-replacement-safe" and "replaces the whole cluster" in message
               for policy, message in changed), changed
    assert all("__" not in message for _, message in changed), changed


def test_a_subnetwork_written_by_name_against_its_self_link_is_no_change(tmp_path):
    """The program deployed without a subnetwork (GKE picked the default, and the state holds its self-link) and
    now writes its name: the Google provider suppresses that diff (compareSelfLinkOrResourceName), so nothing replaces
    the cluster (on main: "its subnetwork changes ... it replaces the whole cluster", mandatory). Its twin: another
    subnetwork replaces it: refused."""
    deployed = as_written(exported(gke([T4], subnetwork=None), tmp_path / "link.json", GCP), subnetwork=SELF_LINK)
    assert findings(evaluate(gke([T4]), stack_config=GCP, deployed=deployed)) == []
    changed = findings(evaluate(gke([T4], subnetwork="apps"), stack_config=GCP, deployed=deployed))
    assert any(policy == "pool-replacement-safe" and f"its subnetwork changes from '{SELF_LINK}' to 'apps'" in message
               for policy, message in changed), changed


def test_a_self_link_and_a_name_compare_as_the_google_provider_compares_them():
    """compareSelfLinkOrResourceName written out (hashicorp/terraform-provider-google
    google/tpgresource/self_link_helpers.go): a name is the self-link that ends in it; two self-links the same from
    projects/ on; anything else a change."""
    assert same_link(SELF_LINK, "default")
    assert same_link("default", SELF_LINK)  # the program moved from the name to the self-link
    assert same_link(f"https://www.googleapis.com/compute/v1/{SELF_LINK}", SELF_LINK)
    assert not same_link("regions/r/subnetworks/default", "zones/z/subnetworks/default")  # no projects/: compared
    assert not same_link(SELF_LINK, SELF_LINK.replace("default", "other"))
    assert not same_link(SELF_LINK, "apps")
    assert not same_link(SELF_LINK, "projects/acme/regions/us-east1/subnetworks/default")
    assert not same_link("default", "apps")
    assert not same_link(SELF_LINK, None)


def test_unnamed_objects_compare_entry_for_entry_in_any_order():
    """A list of unnamed objects (guest accelerators) is the same in any order, entry for entry on the keys both sides
    set; one more entry, or one of its values changed, is a change."""
    from compute_guard.policies.model.replacement import _same

    t4, l4 = {"type": "nvidia-tesla-t4", "count": 1}, {"type": "nvidia-l4", "count": 2}
    assert _same([{**t4, "gpuPartitionSize": ""}, l4], [l4, t4])
    assert not _same([t4, l4], [l4, {**t4, "count": 2}])
    assert not _same([t4], [t4, l4]) and not _same([t4, t4], [t4, l4])


def test_a_partition_size_the_deployment_left_unset_and_the_program_now_writes_replaces_the_pool(tmp_path):
    """The deployment's outputs hold what the provider wrote for the unset field (an empty string): a value the program
    writes now is a change from it (gpuPartitionSize forces a new pool), where the inputs alone held nothing."""
    deployed = as_written(exported(gke([T4]), tmp_path / "gpu.json", GCP), accelerators=[WRITTEN_T4])
    changed = findings(evaluate(gke([{**T4, "gpu_partition_size": "1g.5gb"}]), stack_config=GCP, deployed=deployed))
    replaced = [message for policy, message in changed if policy == "pool-replacement-safe"]
    assert replaced and "its nodeConfig.guestAccelerators changes from " in replaced[0], changed
