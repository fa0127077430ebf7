"""One organisation, many stacks under the real CLI (issue 58, SPEC 18), on a local file backend.

The platform stack organization/platform/prod holds an EKS cluster and its amd64 node group: the AWS provider cannot
run here, so its state is written with `pulumi stack import`, its kubeconfig output a secret. The app stack
organization/shop/dev's Kubernetes provider takes that kubeconfig through a StackReference (no dependency reaches the
pack): with compute:stacks naming the platform stack, and again without it once the app's own deployed state holds
its StackReference, `pulumi preview --policy-pack` refuses a Pod too big for the platform's node group and an arm64
pin on it, naming the platform's pool, and passes once fixed (the app's cluster cannot be reached here, which a
preview allows; its deployed state is imported too). The other direction: a platform stack of Karpenter
NodePools (rendered offline) whose compute:dependents names the app stack refuses moving its NodePool to arm64 under
the app's amd64-pinned Deployment, on the NodePool, naming the app stack."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from pulumi_cli import SHARED, open_stack, policy_findings

PROGRAMS = Path(__file__).resolve().parent / "programs"
KARPENTER = SHARED / "third_party" / "karpenter"
SECRET = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
KUBECONFIG = json.dumps({
    "apiVersion": "v1", "kind": "Config", "current-context": "prod",
    "clusters": [{"name": "prod", "cluster": {"server": "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com"}}],
    "contexts": [{"name": "prod", "context": {"cluster": "prod", "user": "prod"}}],
    "users": [{"name": "prod", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                                 "command": "aws", "args": ["eks", "get-token", "--cluster-name",
                                                                            "prod"]}}}]})
POOL = "pool 'general' (NodeGroup) of EKS cluster 'prod' (stack organization/platform/prod)"


def platform_state(exported: dict) -> dict:
    """The platform stack's state as an EKS program would leave it: its stack (a secret kubeconfig output), the AWS
    provider, the cluster and an amd64 node group of m7i.large (at most 2 nodes)."""
    prefix = "urn:pulumi:prod::platform::"
    provider = f"{prefix}pulumi:providers:aws::default"
    cluster = f"{prefix}aws:eks/cluster:Cluster::prod"
    resources = [
        {"urn": f"{prefix}pulumi:pulumi:Stack::platform-prod", "custom": False, "type": "pulumi:pulumi:Stack",
         "outputs": {"kubeconfig": {**SECRET, "plaintext": json.dumps(KUBECONFIG)}}},
        {"urn": provider, "custom": True, "id": "p", "type": "pulumi:providers:aws", "inputs": {"region": "us-west-2"},
         "outputs": {"region": "us-west-2"}, "parent": f"{prefix}pulumi:pulumi:Stack::platform-prod"},
        {"urn": cluster, "custom": True, "id": "prod", "type": "aws:eks/cluster:Cluster", "provider": f"{provider}::p",
         "parent": f"{prefix}pulumi:pulumi:Stack::platform-prod",
         "inputs": {"name": "prod", "roleArn": "arn:aws:iam::1:role/eks", "vpcConfig": {"subnetIds": ["subnet-1"]}},
         "outputs": {"name": "prod", "endpoint": "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com",
                     "roleArn": "arn:aws:iam::1:role/eks"}},
        {"urn": f"{prefix}aws:eks/nodeGroup:NodeGroup::prod-general", "custom": True, "id": "prod:general",
         "type": "aws:eks/nodeGroup:NodeGroup", "provider": f"{provider}::p", "dependencies": [cluster],
         "parent": f"{prefix}pulumi:pulumi:Stack::platform-prod",
         "propertyDependencies": {"clusterName": [cluster]},
         "inputs": {"clusterName": "prod", "nodeGroupName": "general", "nodeRoleArn": "arn:aws:iam::1:role/n",
                    "subnetIds": ["subnet-1"], "instanceTypes": ["m7i.large"], "amiType": "AL2023_x86_64_STANDARD",
                    "scalingConfig": {"desiredSize": 1, "minSize": 1, "maxSize": 2}},
         "outputs": {"clusterName": "prod", "nodeGroupName": "general", "instanceTypes": ["m7i.large"],
                     "amiType": "AL2023_x86_64_STANDARD", "scalingConfig": {"desiredSize": 1, "minSize": 1,
                                                                            "maxSize": 2}}},
    ]
    exported["deployment"]["resources"] = resources
    return exported


def app_state(exported: dict) -> dict:
    """The app stack's state after an update (the cluster it deploys to cannot be reached here): its StackReference
    to the platform stack, its provider from the platform's secret kubeconfig, and its Deployments 'api' (64 MiB) and
    'pinned' (amd64), as a deployed program leaves them."""
    prefix = "urn:pulumi:dev::shop::"
    stack = f"{prefix}pulumi:pulumi:Stack::shop-dev"
    reference = f"{prefix}pulumi:pulumi:StackReference::organization/platform/prod"
    provider = f"{prefix}pulumi:providers:kubernetes::k8s"
    kubeconfig = {**SECRET, "plaintext": json.dumps(KUBECONFIG)}

    def deployment(name: str, selector: dict) -> dict:
        labels = {"app": name}
        props = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
                 "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {
                     "metadata": {"labels": labels}, "spec": {**selector, "containers": [{
                         "name": name, "image": "nginx", "resources": {"requests": {"cpu": "100m",
                                                                                      "memory": "64Mi"}}}]}}}}
        return {"urn": f"{prefix}kubernetes:apps/v1:Deployment::{name}", "custom": True, "id": f"default/{name}",
                "type": "kubernetes:apps/v1:Deployment", "provider": f"{provider}::k8s-id", "parent": stack,
                "dependencies": [provider], "inputs": props, "outputs": props}

    exported["deployment"]["resources"] = [
        {"urn": stack, "custom": False, "type": "pulumi:pulumi:Stack", "outputs": {}},
        {"urn": reference, "custom": True, "id": "organization/platform/prod", "type": "pulumi:pulumi:StackReference",
         "external": True, "parent": stack, "inputs": {"name": "organization/platform/prod"},
         "outputs": {"name": "organization/platform/prod", "outputs": {"kubeconfig": kubeconfig},
                     "secretOutputNames": ["kubeconfig"]}},
        {"urn": provider, "custom": True, "id": "k8s-id", "type": "pulumi:providers:kubernetes", "parent": stack,
         "dependencies": [reference], "inputs": {"kubeconfig": kubeconfig}, "outputs": {"kubeconfig": kubeconfig}},
        deployment("api", {}), deployment("pinned", {"nodeSelector": {"kubernetes.io/arch": "amd64"}})]
    return exported


def refused(output: str) -> list[tuple[str, str, str]]:
    return [(f.policy, f.name, f.message) for f in policy_findings(output) if f.level == "mandatory"]


def nodepool(tmp_path: Path, arch: str) -> str:
    """Karpenter's own example amd64 NodePool and its EC2NodeClass, with its architecture ``arch``."""
    documents = [document for document in yaml.safe_load_all(
        (KARPENTER / "examples" / "nodepools" / "multiple-arch.yaml").read_text())
        if document and document["metadata"]["name"] in ("amd64", "default")]
    for document in documents:
        for requirement in document["spec"].get("template", {}).get("spec", {}).get("requirements", []):
            if requirement["key"] == "kubernetes.io/arch":
                requirement["values"] = [arch]
    path = tmp_path / f"pools-{arch}.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    crds = [KARPENTER / "crds" / name for name in ("karpenter.sh_nodepools.yaml",
                                                   "karpenter.k8s.aws_ec2nodeclasses.yaml")]
    return ",".join(str(file) for file in [*crds, path])


def test_an_app_stack_on_its_platform_stack_and_back(toolchain, tmp_path):
    # the platform stack, as imported state
    platform = open_stack(toolchain, PROGRAMS / "stacks-platform", tmp_path, "prod")
    exported = json.loads(platform.ok("stack", "export"))
    (tmp_path / "platform.json").write_text(json.dumps(platform_state(exported)))
    platform.ok("stack", "import", "--file", str(tmp_path / "platform.json"))

    # the app stack, named to the pack by compute:stacks
    app = open_stack(toolchain, PROGRAMS / "stacks-app", tmp_path, "dev", {
        "compute:platform": "aws", "platform": "organization/platform/prod",
        "compute:stacks": '["organization/platform/prod"]', "memory": "9Gi", "arch": "arm64"})
    output = app.fails(*app.preview())
    found = refused(output)
    assert [(policy, name) for policy, name, _ in found] == [("workload-fits-pool", "api"),
                                                             ("workload-schedulable", "pinned")], output
    assert POOL in found[0][2] and "more than any node of the pools that can take it" in found[0][2]
    assert f"{POOL} runs amd64 nodes, not arm64" in found[1][2]
    assert "ABCDEF" not in output and "get-token" not in output  # the secret kubeconfig is matched, never shown
    app.config("memory", "64Mi")
    app.config("arch", "amd64")
    assert refused(app.ok(*app.preview())) == []
    # deployed (its cluster cannot be reached here, so its state is imported): it holds its StackReference
    exported = json.loads(app.ok("stack", "export"))
    (tmp_path / "app.json").write_text(json.dumps(app_state(exported)))
    app.ok("stack", "import", "--file", str(tmp_path / "app.json"))

    # without compute:stacks: the StackReference its previous deployment holds names the platform stack
    app.ok("config", "rm", "compute:stacks")
    app.config("memory", "9Gi")
    found = refused(app.fails(*app.preview()))
    assert [(policy, name) for policy, name, _ in found] == [("workload-fits-pool", "api")]
    assert POOL in found[0][2]
    app.config("memory", "64Mi")

    # and back: a platform of Karpenter NodePools, deployed amd64, with the app stack as its dependent
    fleet = open_stack(toolchain, PROGRAMS / "stacks-platform", tmp_path / "fleet", "fleet", {
        "compute:platform": "aws", "manifests": nodepool(tmp_path, "amd64")}, backend=f"file://{tmp_path / 'state'}")
    fleet.ok(*fleet.up())
    fleet.config("compute:dependents", '["organization/shop/dev"]')
    assert refused(fleet.ok(*fleet.preview())) == []
    fleet.config("manifests", nodepool(tmp_path, "arm64"))
    output = fleet.fails(*fleet.preview())
    found = [(policy, name, message) for policy, name, message in refused(output) if policy != "pool-safe-update"]
    assert [(policy, name) for policy, name, _ in found] == [("workload-schedulable", "pools:amd64")], output
    assert found[0][2].startswith(
        "This change breaks a workload of stack organization/shop/dev (compute:dependents): Deployment 'pinned': no "
        "pool can run its Pods: pool 'amd64' (NodePool) runs arm64 nodes, not amd64"), found[0][2]
