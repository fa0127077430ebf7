"""What the invokes a cluster program commonly calls answer under the test kit, where no provider runs.

In a real preview a data source's invoke runs against the cloud; here it cannot, and an invoke nobody answers
returns nothing (``aws.get_availability_zones().names`` is None, and the program fails). The common ones have
answers: the region's zones, a caller identity, an AMI id, an engine version. What a preview of a new stack would not
know yet stays unknown: a cluster's credentials (its kubeconfig) are unknown until the cluster exists.

A plain invoke's result (``get_availability_zones()``, not ``..._output``) cannot be unknown: the program reads it
at once; an output invoke's can (``list_managed_cluster_user_credentials_output``).

A test answers other invokes, or answers these differently, with ``evaluate(..., mocks=...)``: a
``pulumi.runtime.Mocks`` whose ``call`` returns the invoke's result, or None to leave it to these answers.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from pulumi.runtime import rpc

UNKNOWN = rpc.UNKNOWN  # the engine's unknown value: what a preview does not know yet
ACCOUNT = "123456789012"  # the documentation's example AWS account id
AMI = "ami-0123456789abcdef0"
ZERO_ID = "00000000-0000-0000-0000-000000000000"
GKE_VERSION = "1.33"  # a GKE minor version (the control plane's version decides no pool's machine)


def _region(config: Mapping[str, Any]) -> str:
    region = config.get("aws:region")
    return region if isinstance(region, str) and region else "us-east-1"


def kubeconfig(cluster: Any) -> str:
    """A deployed AKS cluster's kubeconfig, base64 as the credentials invoke answers it (a documentation address:
    nothing connects to it)."""
    name = cluster if isinstance(cluster, str) and cluster else "cluster"
    text = (f"apiVersion: v1\nkind: Config\nclusters:\n- name: {name}\n  cluster:\n    server: https://203.0.113.10\n"
            f"contexts:\n- name: {name}\n  context:\n    cluster: {name}\n    user: {name}\n"
            f"current-context: {name}\nusers:\n- name: {name}\n  user: {{}}\n")
    return base64.b64encode(text.encode()).decode()


def answer(token: str, args: Mapping[str, Any], config: Mapping[str, Any],
           preview: bool = True) -> dict[str, Any] | None:
    """The test kit's answer to an invoke, None when it has none (``preview``: a new cluster's credentials are not
    known yet; once deployed, under ``pulumi up`` or export_program, they are)."""
    if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
        region = _region(config)
        names = [f"{region}{letter}" for letter in "abc"]
        return {"id": region, "names": names, "zoneIds": [f"use1-az{index}" for index in (1, 2, 3)],
                "groupNames": [region], "state": "available"}
    if token == "aws:index/getCallerIdentity:getCallerIdentity":
        return {"id": ACCOUNT, "accountId": ACCOUNT, "arn": f"arn:aws:iam::{ACCOUNT}:user/compute-guard-test-kit",
                "userId": "AIDACOMPUTEGUARD"}
    if token == "aws:index/getRegion:getRegion":
        region = _region(config)
        return {"id": region, "name": region, "region": region, "endpoint": f"ec2.{region}.amazonaws.com"}
    if token == "aws:index/getPartition:getPartition":
        return {"id": "aws", "partition": "aws", "dnsSuffix": "amazonaws.com"}
    if token == "aws:ec2/getAmi:getAmi":
        return {"id": AMI, "imageId": AMI, "name": "compute-guard-test-kit"}
    if token == "aws:ssm/getParameter:getParameter":
        return {"id": args.get("name", ""), "name": args.get("name", ""), "value": AMI, "type": "String"}
    if token in ("azure-native:containerservice:listManagedClusterUserCredentials",
                 "azure-native:containerservice:listManagedClusterAdminCredentials"):
        return {"kubeconfigs": [{"name": "clusterUser",
                                 "value": UNKNOWN if preview else kubeconfig(args.get("resourceName"))}]}
    if token in ("azure:core/getClientConfig:getClientConfig", "azure-native:authorization:getClientConfig"):
        return {"clientId": ZERO_ID, "objectId": ZERO_ID, "subscriptionId": ZERO_ID, "tenantId": ZERO_ID}
    if token == "gcp:container/getEngineVersions:getEngineVersions":  # a plain invoke: its result cannot be unknown
        return {"id": "engine-versions", "latestMasterVersion": GKE_VERSION, "latestNodeVersion": GKE_VERSION,
                "defaultClusterVersion": GKE_VERSION, "validMasterVersions": [GKE_VERSION],
                "validNodeVersions": [GKE_VERSION]}
    if token == "gcp:organizations/getClientConfig:getClientConfig":
        return {"id": "client-config", "project": config.get("gcp:project", "project"),
                "region": config.get("gcp:region", ""), "zone": config.get("gcp:zone", ""),
                "accessToken": "compute-guard-test-kit"}
    return None
