"""A custom resource's outputs under the test kit: its inputs, as a provider gives them back in a preview, in the
shapes the SDK's output types expect, with the names a provider fills in.

* **Shapes.** The SDK translates a resource's outputs by the types of its class (``pulumi._types.resource_types``) and
  asserts that each value has its type's shape. A provider does not always answer in its inputs' shape:
  azure-native takes ``identity.userAssignedIdentities`` as a list of identity ids and answers a map keyed by them
  (the ARM API's ``UserAssignedIdentities`` object), so echoing the list made the SDK raise
  ``AssertionError: Unexpected type. Expected 'list' ...`` inside the program. A list of names where the output
  type is a map becomes that map (each name a key, its value not known yet: ``{}``).
* **Names.** pulumi-kubernetes names a resource whose ``metadata.name`` is not given ``<resource name>-<8 random
  characters>`` in its Check, so a preview knows it (pulumi-kubernetes provider/pkg/metadata/naming.go). The bridged
  cloud providers name theirs in their Check too (bridged.py).
"""

from __future__ import annotations

import collections.abc
import functools
import hashlib
import importlib
import typing
from collections.abc import Callable
from typing import Any

from pulumi import _types
from pulumi.runtime import rpc

from .components import SECRET, SPECIAL, UNKNOWN


@functools.lru_cache(maxsize=1024)
def resource_class(type_token: str) -> type | None:
    """The SDK's class of a resource type, from the resource modules the imported SDKs registered; None when no
    imported SDK declares it."""
    parts = type_token.split(":")
    if len(parts) != 3:
        return None
    for module in rpc._RESOURCE_MODULES.get(f"{parts[0]}:{parts[1]}", []):  # noqa: SLF001 - the SDK's own registry
        info = getattr(module, "mod_info", None)
        if isinstance(info, dict) and type_token in info.get("classes", {}):
            try:
                found = getattr(importlib.import_module(info["fqn"]), info["classes"][type_token], None)
            except ImportError:
                return None
            return found if isinstance(found, type) else None
    return None


def shaped_outputs(type_token: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """The outputs in the shapes the SDK's output types of this resource expect."""
    cls = resource_class(type_token)
    if cls is None:
        return outputs
    try:
        types = _types.resource_types(cls)
    except Exception:  # noqa: BLE001 - a class the SDK cannot read types from: the outputs as they are
        return outputs
    return {key: _shaped(value, types.get(key)) for key, value in outputs.items()}


def _bare(typ: Any) -> Any:
    """A type without Optional, Input and Output around it."""
    for _ in range(8):
        args = typing.get_args(typ)
        if _types._is_optional_type(typ):  # noqa: SLF001
            typ = next((arg for arg in args if arg is not type(None)), typ)
        elif typing.get_origin(typ) is not None and getattr(typing.get_origin(typ), "__name__", "") in (
                "Output", "Input", "Awaitable"):
            typ = args[0] if args else typ
        else:
            return typ
    return typ


def _shaped(value: Any, typ: Any) -> Any:
    if typ is None or value is None or value == UNKNOWN:
        return value
    if isinstance(value, dict) and value.get(SPECIAL) == SECRET:
        return {**value, "value": _shaped(value.get("value"), typ)}
    if isinstance(value, dict) and SPECIAL in value:  # a resource reference, an asset: as it is
        return value
    typ = _bare(typ)
    origin = typing.get_origin(typ)
    args = typing.get_args(typ)
    if origin in (dict, collections.abc.Mapping, typing.Mapping):
        if isinstance(value, list):
            if all(isinstance(item, str) and item != UNKNOWN for item in value):
                return {item: {} for item in value}
            return UNKNOWN  # a map keyed by values not known yet
        if isinstance(value, dict) and len(args) == 2:
            return {key: _shaped(item, args[1]) for key, item in value.items()}
        return value
    if origin in (list, collections.abc.Sequence, typing.Sequence) and isinstance(value, list) and len(args) == 1:
        return [_shaped(item, args[0]) for item in value]
    if isinstance(typ, type) and _types.is_output_type(typ) and isinstance(value, dict):
        try:
            fields = _types.output_type_types(typ)
        except Exception:  # noqa: BLE001
            return value
        return {key: _shaped(item, fields.get(key)) for key, item in value.items()}
    return value


def auto_named(type_token: str, urn: str, name: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """A Kubernetes object without ``metadata.name`` named as pulumi-kubernetes names it in its Check. (The bridged
    cloud providers' names are bridged.py's.)"""
    if not type_token.startswith("kubernetes:") or type_token.startswith("kubernetes:helm.sh/") \
            or type_token.endswith("List") or type_token.endswith("Patch"):
        return outputs
    metadata = outputs.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict) or metadata.get("name") is not None:
        return outputs
    suffix = hashlib.sha256(urn.encode()).hexdigest()[:8]
    return {**outputs, "metadata": {**metadata, "name": f"{name}-{suffix}"}}


# What a provider fills in once a resource exists, that programs pass on (a cluster's endpoint and CA certificate to a
# kubeconfig, a service account's email to a node pool, a role's ARN to a node group): under `pulumi up` (and
# export_program, a previous deployment written without the CLI), so that an update preview against it knows them as a
# real one does (a null output is not known to a program in a preview). Documentation addresses, placeholder
# certificates and account numbers, derived from what the program set: nothing connects to them. A preview of a new
# stack does not know them (components.UNKNOWN).
Filled = Callable[[str, dict[str, Any]], dict[str, Any]]
_CA = "Y29tcHV0ZS1ndWFyZC10ZXN0LWtpdA=="  # "compute-guard-test-kit"


def _graviton(instance_types: Any) -> bool:
    """Whether a node group's first instance type is an AWS Graviton (arm64) one ("g" after the generation digit)."""
    first = instance_types[0] if isinstance(instance_types, list) and instance_types else None
    family = first.split(".", 1)[0] if isinstance(first, str) else ""
    digits = [index for index, char in enumerate(family) if char.isdigit()]
    return family == "a1" or (bool(digits) and family[digits[0] + 1:digits[0] + 2] == "g")


def _digest(*parts: Any) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()


DEPLOYED: dict[str, Filled] = {
    "gcp:container/cluster:Cluster": lambda name, out: {
        "endpoint": f"203.0.113.{10 + int(_digest(out.get('name') or name)[:2], 16) % 200}",
        "masterAuth": {"clusterCaCertificate": _CA},
        "selfLink": f"https://container.googleapis.com/v1/projects/example-project/locations/"
                    f"{out.get('location') or 'us-central1'}/clusters/{out.get('name') or name}"},
    "gcp:serviceaccount/account:Account": lambda name, out: {
        "email": f"{out.get('accountId') or name}@{out.get('project') or 'example-project'}.iam.gserviceaccount.com",
        "member": f"serviceAccount:{out.get('accountId') or name}@{out.get('project') or 'example-project'}"
                  ".iam.gserviceaccount.com"},
    "aws:iam/role:Role": lambda name, out: {"arn": f"arn:aws:iam::123456789012:role/{out.get('name') or name}"},
    # what EKS gives a managed node group the request leaves out (docs.aws.amazon.com/eks/latest/APIReference/
    # API_CreateNodegroup.html: t3.medium, ON_DEMAND, a 20 GiB disk without a launch template, the AL2023 AMI of the
    # instance types' architecture), as the stand-in provider (tests/standin/aws.go) gives it
    "aws:eks/nodeGroup:NodeGroup": lambda name, out: {
        "instanceTypes": ["t3.medium"], "capacityType": "ON_DEMAND",
        **({} if out.get("launchTemplate") else {"diskSize": 20}),
        "amiType": "AL2023_ARM_64_STANDARD" if _graviton(out.get("instanceTypes")) else "AL2023_x86_64_STANDARD"},
    # what GKE gives a node pool's nodeConfig the request leaves out (cloud.google.com/kubernetes-engine/docs/reference/
    # rest/v1/NodeConfig), as tests/standin/gcp.go gives it
    "gcp:container/nodePool:NodePool": lambda name, out: {"nodeConfig": {
        "machineType": "e2-medium", "diskSizeGb": 100, "diskType": "pd-balanced", "imageType": "COS_CONTAINERD",
        "spot": False, "preemptible": False}},
    # a Service of type LoadBalancer once its cloud's load balancer is up: its address in status.loadBalancer.ingress
    # (kubernetes.io/docs/concepts/services-networking/service/#loadbalancer; a documentation address here)
    "kubernetes:core/v1:Service": lambda name, out: {"status": {"loadBalancer": {"ingress": [{"ip": (
        f"203.0.113.{10 + int(_digest(name)[:2], 16) % 200}")}]}}} if isinstance(out.get("spec"), dict)
    and out["spec"].get("type") == "LoadBalancer" else {},
    # a launch template's first version (docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateLaunchTemplate.html:
    # "LatestVersionNumber")
    "aws:ec2/launchTemplate:LaunchTemplate": lambda name, out: {"latestVersion": 1, "defaultVersion": 1},
    "aws:eks/cluster:Cluster": lambda name, out: {
        "endpoint": f"https://{_digest(out.get('name') or name)[:32].upper()}.gr7.us-west-2.eks.amazonaws.com",
        "arn": f"arn:aws:eks:us-west-2:123456789012:cluster/{out.get('name') or name}",
        "certificateAuthority": {"data": _CA}},
}
# azure-native's names (pulumi-azure-native provider/pkg/provider/provider.go, applyDefaults and getDefaultName; its
# auto-naming, pulumi/pulumi-azure-native#519): a resource whose name input the program leaves out is named by its
# Check, a top-level resource (a resource group, a virtual network, an AKS cluster) its resource name and 8 random
# characters, marked `__createBeforeDelete: true` in the inputs the state keeps (so that a replacement is created
# before the old one is deleted), a child resource (a subnet, an agent pool) its resource name as it is. Its `name`
# output is that name.
AZURE_NAMES = {
    "azure-native:resources:ResourceGroup": ("resourceGroupName", True),
    "azure-native:network:VirtualNetwork": ("virtualNetworkName", True),
    "azure-native:network:Subnet": ("subnetName", False),
    "azure-native:containerservice:ManagedCluster": ("resourceName", True),
    "azure-native:containerservice:AgentPool": ("agentPoolName", False),
}


def azure_named(type_token: str, urn: str, name: str, inputs: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The inputs azure-native's Check returns for a resource of :data:`AZURE_NAMES` (its name filled in when the
    program gives none), and whether it marks it ``__createBeforeDelete`` (its random name)."""
    found = AZURE_NAMES.get(type_token)
    if found is None or inputs.get(found[0]) is not None:
        return inputs, False
    key, random = found
    return {**inputs, key: f"{name}{_digest(urn)[:8]}" if random else name}, random


def deployed(type_token: str, outputs: dict[str, Any], name: str = "") -> dict[str, Any]:
    """A resource's outputs once deployed: what its provider fills in (:data:`DEPLOYED`) where the program set none."""
    filled = DEPLOYED.get(type_token)
    if filled is not None:
        return _filled(outputs, filled(name, outputs))
    found = AZURE_NAMES.get(type_token)
    if found is not None and outputs.get("name") is None and isinstance(outputs.get(found[0]), str):
        return {**outputs, "name": outputs[found[0]]}
    return outputs


def _filled(current: dict[str, Any], filled: dict[str, Any]) -> dict[str, Any]:
    merged = dict(current)
    for key, value in filled.items():
        now = merged.get(key)
        if isinstance(value, dict) and isinstance(now, dict):
            merged[key] = _filled(now, value)
        elif now is None:
            merged[key] = value
    return merged
