"""Components whose children their own provider builds, as the engine would have them built.

A remote component (``remote=True``: pulumi-eks's ``eks.Cluster`` and node groups, awsx's ``Vpc``) is built by its
component provider's ``Construct``, which does not run under the test kit's mocks: the program would reach the
policies as one resource each, with no cluster, no node group and no pool, and a clean result would say nothing.

pulumi-eks's components are built here into what pulumi-eks registers (its code: ../shared/third_party/pulumi-eks,
v4.3.0), with the same types, names, parents, the inputs the pool sources read and the dependencies the engine
would record:

* ``eks:index:Cluster`` (cluster/cluster.ts createCore, createCluster): its ``aws:eks/cluster:Cluster``
  ``<name>-eksCluster`` (``name``, else the AWS provider's auto-name; EKS Auto Mode's ``computeConfig``, which
  depends on the node role the component creates and so is not known in a first preview), a
  ``aws:eks/fargateProfile:FargateProfile`` ``<name>-fargateProfile`` with ``fargate``, and, unless
  ``skipDefaultNodeGroup``, ``fargate`` or Auto Mode, its default node group as ``NodeGroupV2`` builds it;
* ``eks:index:NodeGroupV2`` (nodes/nodegroup.ts createNodeGroupV2): an ``aws:ec2/launchTemplate:LaunchTemplate``
  ``<name>-launchTemplate`` (``instanceType``, default t3.medium, nodes/instances.ts; the user data that carries the
  kubelet's ``--node-labels`` and ``--register-with-taints``, nodes/userdata.ts, which holds the cluster's endpoint
  and is not known in a preview) and an ``aws:autoscaling/group:Group`` ``<name>`` (minSize 1, maxSize 2,
  desiredCapacity 2 by default) tagged ``kubernetes.io/cluster/<cluster name>``;
* ``eks:index:NodeGroup`` (createNodeGroup): an ``aws:ec2/launchConfiguration:LaunchConfiguration``
  ``<name>-nodeLaunchConfiguration`` and an ``aws:cloudformation/stack:Stack`` ``<name>-nodes`` whose template holds
  the sizes (it names the launch configuration's id: not known in a preview);
* ``eks:index:ManagedNodeGroup`` (createManagedNodeGroup): an ``aws:eks/nodeGroup:NodeGroup`` ``<name>`` with the
  component's own inputs, ``clusterName`` its cluster's, ``scalingConfig`` 2 / 1 / 2 by default.

and the IAM roles the cluster's inputs name (its service role, its instance role, Auto Mode's node role, Fargate's
pod execution role), each a ``eks:index:ServiceRole`` and its ``aws:iam/role:Role`` ``<name>-role``.

Each child is answered as its provider answers the engine (the monitor's ``_answer``: the AWS provider's Check, its
planned outputs, or its deployed ones where the previous deployment holds it and the preview keeps it), and what the
component reads of a child (a role's ARN, the cluster's endpoint) is that answer: not known in a first preview, known
once deployed and in an update preview that keeps it, as under the engine. The component's outputs are what it
registers: references to these children (``eksCluster``, ``autoScalingGroup``, ``nodeGroup``, ``instanceRoles``) and a
kubeconfig once its cluster's endpoint is known. What pulumi-eks adds besides (security groups, policy attachments,
add-ons, the aws-auth ConfigMap) declares no pool and no workload and is left out. awsx's ``Vpc`` answers its subnets
(:func:`vpc_outputs`) and is listed as not checked; any other remote component is listed as not checked
(``Unchecked``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's unknown value, as the SDK serializes it
SPECIAL = "4dabf18193072939515e22adb298388d"  # the key of a special value (secret, resource reference)
RESOURCE_REFERENCE = "5cf8f73096256a8f31e491e813e4eb8e"
SECRET = "1b47061264138c4ac30d75fd1eb44270"
DEFAULT_INSTANCE_TYPE = "t3.medium"  # pulumi-eks nodes/instances.ts DEFAULT_INSTANCE_TYPE
CLUSTER = "eks:index:Cluster"
NODE_GROUP_V2 = "eks:index:NodeGroupV2"
NODE_GROUP = "eks:index:NodeGroup"
MANAGED_NODE_GROUP = "eks:index:ManagedNodeGroup"
# Remote components that declare networking or registries only (no pool, no workload): listed, not refused.
NO_COMPUTE = {"awsx:ec2:Vpc": "a VPC", "awsx:ec2:DefaultVpc": "a VPC", "awsx:ecr:Repository": "a registry",
              "awsx:ecr:Image": "an image", "eks:index:VpcCniAddon": "the VPC CNI add-on",
              "eks:index:NodeGroupSecurityGroup": "a security group"}


@dataclass
class Child:
    """One resource a component provider registers under its component."""

    type: str
    name: str
    inputs: dict[str, Any]
    depends: dict[str, tuple[str, ...]] = field(default_factory=dict)  # property -> the URNs its value depends on
    custom: bool = True
    urn: str = ""  # filled in by the builder
    parent: str = ""  # the URN of the component it is registered under, when not the one being built


@dataclass
class Built:
    """What a component provider's Construct would answer: its children and the component's outputs."""

    children: list[Child]
    outputs: dict[str, Any]
    facts: dict[str, Any] = field(default_factory=dict)  # what later components read of it (its cluster's)


@dataclass
class Construct:
    """A remote component's registration, as a builder reads it."""

    type: str
    name: str
    urn: str
    inputs: dict[str, Any]  # the JSON form (UNKNOWN, special values as dicts)
    property_dependencies: Mapping[str, tuple[str, ...]]
    preview: bool
    built: Callable[[str], Built | None]  # another component's, by URN
    # a child's outputs as this run knows them (the monitor's answer: its provider's planned outputs, or deployed ones
    # where the previous deployment holds it and this preview keeps it, with "id"), and a registered resource's by URN
    answer: Callable[[Child], dict[str, Any]] = lambda child: {}
    registered: Callable[[str], dict[str, Any] | None] = lambda urn: None
    deployed: Callable[[str], dict[str, Any] | None] = lambda urn: None  # the previous deployment's outputs, by URN

    def child_urn(self, type_: str, name: str, under: str = "") -> str:
        head, _, tail = (under or self.urn).rpartition("::")
        prefix, _, chain = head.rpartition("::")
        return f"{prefix}::{chain}${type_}::{name}"

    def output(self, child: Child, key: str) -> Any:
        """One output of a child this component registers, as this run knows it: not known yet in a preview that
        creates or replaces it, its deployed value where the previous deployment holds it and the preview keeps it."""
        value = self.answer(child).get(key)
        return UNKNOWN if value is None else value

    def referenced(self, value: Any, key: str) -> Any:
        """An output of the resource a reference names (``nodeRole``: a Role), as registered; not known otherwise."""
        value = _unwrap(value)
        if not (isinstance(value, dict) and value.get(SPECIAL) == RESOURCE_REFERENCE):
            return UNKNOWN
        found = self.registered(str(value.get("urn")))
        return UNKNOWN if not found or found.get(key) is None else found[key]

    def get(self, key: str, default: Any = None) -> Any:
        """An input as a plain value: a secret's value (the policies see the child's own input as the engine would;
        the SDK marks it secret again only if the provider does), None when absent."""
        value = _unwrap(self.inputs.get(key))
        return default if value is None else value

    def deps(self, *keys: str) -> tuple[str, ...]:
        found: list[str] = []
        for key in keys:
            found += [urn for urn in self.property_dependencies.get(key, ()) if urn not in found]
        return tuple(found)


def _unwrap(value: Any) -> Any:
    if isinstance(value, dict) and value.get(SPECIAL) == SECRET:
        return _unwrap(value.get("value"))
    return value


def _text(value: Any) -> Any:
    """A number as the string pulumi-eks passes on (``latestVersion.apply(v => v.toString())``)."""
    return str(int(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _known(value: Any) -> bool:
    if value == UNKNOWN:
        return False
    if isinstance(value, dict):
        return all(_known(item) for item in value.values())
    if isinstance(value, list):
        return all(_known(item) for item in value)
    return True


def auto_name(urn: str, name: str) -> str:
    """The name a provider gives a resource the program names none (``<name>-<7 hex>``, as pulumi's auto-naming
    does; derived from the URN, so a second run gives the same one)."""
    return f"{name}-{hashlib.sha256(urn.encode()).hexdigest()[:7]}"


def reference(urn: str, resource_id: Any = None) -> dict[str, Any]:
    """A resource reference, as a component's outputs carry one."""
    found: dict[str, Any] = {SPECIAL: RESOURCE_REFERENCE, "urn": urn}
    if resource_id is not None:
        found["id"] = resource_id
    return found


# --- what each component registers ---------------------------------------------------------------------------

def _service_role(construct: Construct, name: str, service: str, actions: tuple[str, ...] = ("sts:AssumeRole",)
                  ) -> tuple[list[Child], Child]:
    """A pulumi-eks ``ServiceRole`` (servicerole.ts): the component ``<name>`` and its ``aws:iam/role:Role``
    ``<name>-role`` that ``service`` assumes (its policy attachments declare nothing the policies read: left out)."""
    component_urn = construct.child_urn("eks:index:ServiceRole", name)
    statement = {"Action": list(actions) if len(actions) > 1 else actions[0], "Effect": "Allow",
                 "Principal": {"Service": service}}
    role = Child("aws:iam/role:Role", f"{name}-role", {"assumeRolePolicy": json.dumps(
        {"Version": "2012-10-17", "Statement": [statement]})},
        urn=construct.child_urn("aws:iam/role:Role", f"{name}-role", component_urn), parent=component_urn)
    return [Child("eks:index:ServiceRole", name, {}, custom=False, urn=component_urn), role], role


def _subnets(construct: Construct) -> Any:
    """The cluster's subnets (cluster.ts): ``subnetIds``, else its public then its private subnets; not known while
    any of them is not."""
    given = construct.get("subnetIds")
    if given is not None:
        return given
    public, private = construct.get("publicSubnetIds"), construct.get("privateSubnetIds")
    if public is None and private is None:
        return UNKNOWN
    if not all(isinstance(value, list) for value in (public or [], private or [])):
        return UNKNOWN
    return [*(public or []), *(private or [])]


def _cluster(construct: Construct) -> Built:
    eks_name = construct.get("name")
    child_urn = construct.child_urn("aws:eks/cluster:Cluster", f"{construct.name}-eksCluster")
    auto_mode = construct.get("autoMode") or {}
    children: list[Child] = []
    role_deps: tuple[str, ...]
    if construct.get("serviceRole") is None:  # createCore: the EKS service role, which the cluster's roleArn names
        made, service_role = _service_role(construct, f"{construct.name}-eksRole", "eks.amazonaws.com",
                                           ("sts:AssumeRole", "sts:TagSession"))
        children += made
        role_arn, role_deps = construct.output(service_role, "arn"), (service_role.urn,)
    else:
        role_arn, role_deps = construct.referenced(construct.get("serviceRole"), "arn"), construct.deps("serviceRole")
    subnets = _subnets(construct)
    inputs: dict[str, Any] = {
        "roleArn": role_arn, "vpcConfig": {"subnetIds": subnets},
        "bootstrapSelfManagedAddons": not auto_mode.get("enabled", False)}
    if eks_name is not None:
        inputs["name"] = eks_name
    for key in ("version", "deletionProtection", "upgradePolicy"):
        if construct.get(key) is not None:
            inputs[key] = construct.get(key)
    if construct.get("authenticationMode") is not None:
        inputs["accessConfig"] = {"authenticationMode": construct.get("authenticationMode"),
                                  "bootstrapClusterCreatorAdminPermissions": True}
    depends = {"vpcConfig": construct.deps("subnetIds", "privateSubnetIds", "publicSubnetIds"), "roleArn": role_deps}
    if auto_mode.get("enabled") is True:
        # createCore: {enabled: true, nodeRoleArn, nodePools: [general-purpose, system], ...computeConfig}, waiting on
        # the node role it creates (`<name>-nodeRole`, unless createNodeRole is false): not known until that role is
        node_role_arn: Any = UNKNOWN
        if auto_mode.get("createNodeRole") is not False:
            made, node_role = _service_role(construct, f"{construct.name}-nodeRole", "ec2.amazonaws.com")
            children += made
            node_role_arn = construct.output(node_role, "arn")
            depends["computeConfig"] = (node_role.urn,)
        compute = {"enabled": True, "nodeRoleArn": node_role_arn, "nodePools": ["general-purpose", "system"],
                   **(auto_mode.get("computeConfig") or {})}
        inputs["computeConfig"] = compute if _known(compute) else UNKNOWN
    cluster = Child("aws:eks/cluster:Cluster", f"{construct.name}-eksCluster", inputs, depends, urn=child_urn)
    children.append(cluster)
    cluster_name = construct.output(cluster, "name")
    endpoint = construct.output(cluster, "endpoint")
    authority = construct.output(cluster, "certificateAuthority")
    facts = {"cluster_urn": child_urn, "cluster_name": cluster_name, "endpoint": endpoint, "subnet_ids": subnets}
    fargate = construct.get("fargate")
    if fargate:
        profile = f"{construct.name.replace('-', '_', 1)}fargateProfile" if construct.name.lower() == "eks" \
            or construct.name.lower().startswith("eks-") else f"{construct.name}-fargateProfile"
        given_role = fargate.get("podExecutionRoleArn") if isinstance(fargate, dict) else None
        if given_role is None:
            made, pod_role = _service_role(construct, f"{construct.name}-podExecutionRole",
                                           "eks-fargate-pods.amazonaws.com")
            children += made
            given_role = construct.output(pod_role, "arn")
        children.append(Child("aws:eks/fargateProfile:FargateProfile", profile, {
            "clusterName": cluster_name, "podExecutionRoleArn": given_role,
            "selectors": [{"namespace": "default"}, {"namespace": "kube-system"}]},
            {"clusterName": (child_urn,)}, urn=construct.child_urn("aws:eks/fargateProfile:FargateProfile", profile)))
    instance_roles: Any = []
    if construct.get("instanceRoles") is not None:
        instance_roles = construct.get("instanceRoles")
    elif construct.get("instanceRole") is not None:
        instance_roles = [construct.get("instanceRole")]
    elif construct.get("createInstanceRole") or (not construct.get("skipDefaultNodeGroup")
                                                 and construct.get("createInstanceRole") is None):
        made, instance_role = _service_role(construct, f"{construct.name}-instanceRole", "ec2.amazonaws.com")
        children += made
        instance_roles = [reference(instance_role.urn, construct.output(instance_role, "id"))]
    default_group = not (construct.get("skipDefaultNodeGroup") or fargate or auto_mode.get("enabled"))
    asg_name: Any = ""
    if default_group:
        options = construct.get("nodeGroupOptions") or {key: construct.get(key) for key in (
            "instanceType", "desiredCapacity", "minSize", "maxSize", "nodeAmiId", "gpu", "nodeUserData",
            "nodeSubnetIds", "nodeRootVolumeSize")}
        group = _self_managed_v2(construct, construct.name, options, facts)
        children += group
        asg_name = construct.output(group[-1], "name")
    kubeconfig: Any = UNKNOWN
    data = authority.get("data") if isinstance(authority, dict) else UNKNOWN
    if _known([endpoint, cluster_name, data]):  # cluster/cluster.ts generateKubeconfig, once the cluster is known
        kubeconfig = {"apiVersion": "v1", "kind": "Config", "current-context": "aws", "clusters": [
            {"name": "kubernetes", "cluster": {"server": endpoint, "certificate-authority-data": data}}],
            "contexts": [{"name": "aws", "context": {"cluster": "kubernetes", "user": "aws"}}],
            "users": [{"name": "aws", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                                        "command": "aws", "args": [
                                                            "eks", "get-token", "--cluster-name", cluster_name]}}}]}
    outputs = {
        "eksCluster": reference(child_urn, construct.output(cluster, "id")),
        "kubeconfig": kubeconfig, "kubeconfigJson": UNKNOWN if kubeconfig == UNKNOWN else json.dumps(kubeconfig),
        "instanceRoles": instance_roles, "defaultNodeGroupAsgName": asg_name, "core": UNKNOWN}
    return Built(children, outputs, facts)


def _target(construct: Construct) -> dict[str, Any]:
    """The cluster a node group names (``cluster``: an ``eks.Cluster``, or its CoreData), as its facts."""
    given = construct.get("cluster")
    if isinstance(given, dict) and given.get(SPECIAL) == RESOURCE_REFERENCE:
        built = construct.built(str(given.get("urn")))
        if built is not None:
            return built.facts
    if isinstance(given, dict) and isinstance(given.get("cluster"), dict):  # CoreData: its cluster's reference
        urn = str(given["cluster"].get("urn", ""))
        return {"cluster_urn": urn, "cluster_name": UNKNOWN, "endpoint": UNKNOWN}
    return {"cluster_urn": None, "cluster_name": UNKNOWN, "endpoint": UNKNOWN}


def _kubelet_flags(options: Mapping[str, Any]) -> list[str]:
    """nodes/userdata.ts buildKubeletFlags: kubeletExtraArgs, then --node-labels and --register-with-taints."""
    flags = str(options.get("kubeletExtraArgs") or "").split()
    labels = options.get("labels") or {}
    if isinstance(labels, dict) and labels:
        flags.append("--node-labels=" + ",".join(f"{key}={value}" for key, value in labels.items()))
    taints = options.get("taints") or {}
    if isinstance(taints, dict) and taints:
        flags.append("--register-with-taints=" + ",".join(
            f"{key}={taint.get('value')}:{taint.get('effect')}" if taint.get("value")
            else f"{key}:{taint.get('effect')}" for key, taint in taints.items() if isinstance(taint, dict)))
    return flags


def _user_data(options: Mapping[str, Any], facts: Mapping[str, Any]) -> Any:
    """nodes/userdata.ts createUserData for AL2023 (nodeadm, pulumi-eks's default OS) and AL2 (bootstrap.sh): not
    known while the cluster's endpoint is not (a preview of a new cluster)."""
    override = options.get("nodeUserDataOverride")
    if override is not None:
        return base64.b64encode(str(override).encode()).decode() if _known(override) else UNKNOWN
    if not _known([options.get(key) for key in ("labels", "taints", "kubeletExtraArgs")]) \
            or facts.get("endpoint") == UNKNOWN or facts.get("cluster_name") == UNKNOWN:
        return UNKNOWN
    flags = _kubelet_flags(options)
    if options.get("operatingSystem") == "AL2":
        extra = f" --kubelet-extra-args '{' '.join(flags)}'" if len(flags) > 1 else \
            f" --kubelet-extra-args {flags[0]}" if flags else ""
        text = (f'#!/bin/bash\n\n/etc/eks/bootstrap.sh --apiserver-endpoint "{facts["endpoint"]}" --b64-cluster-ca '
                f'"Q0E=" "{facts["cluster_name"]}"{extra}\n\n')
    else:
        parts = [{"apiVersion": "node.eks.aws/v1alpha1", "kind": "NodeConfig", "spec": {"cluster": {
            "name": facts["cluster_name"], "apiServerEndpoint": facts["endpoint"], "certificateAuthority": "Q0E=",
            "cidr": "10.100.0.0/16"}}}]
        if flags:
            parts.append({"apiVersion": "node.eks.aws/v1alpha1", "kind": "NodeConfig",
                          "spec": {"kubelet": {"flags": flags}}})
        text = 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BOUNDARY"\n\n' + "".join(
            f"--BOUNDARY\nContent-Type: application/node.eks.aws\n\n---\n{json.dumps(part)}\n" for part in parts) \
            + "--BOUNDARY--\n"
    return base64.b64encode(text.encode()).decode()


def _self_managed_v2(construct: Construct, name: str, options: Mapping[str, Any],
                     facts: Mapping[str, Any]) -> list[Child]:
    """createNodeGroupV2: a launch template and the autoscaling group that runs it."""
    template_urn = construct.child_urn("aws:ec2/launchTemplate:LaunchTemplate", f"{name}-launchTemplate")
    template_inputs: dict[str, Any] = {
        "name": auto_name(template_urn, f"{name}-launchTemplate"), "imageId": options.get("amiId")
        or options.get("nodeAmiId") or "ami-0123456789abcdef0",
        "instanceType": options.get("instanceType") or DEFAULT_INSTANCE_TYPE,
        "userData": _user_data(options, facts)}
    if options.get("spotPrice"):
        template_inputs["instanceMarketOptions"] = {"marketType": "spot",
                                                    "spotOptions": {"maxPrice": options["spotPrice"]}}
    cluster_urn = facts.get("cluster_urn")
    on_cluster = (cluster_urn,) if cluster_urn else ()
    template = Child("aws:ec2/launchTemplate:LaunchTemplate", f"{name}-launchTemplate", template_inputs,
                     {"userData": on_cluster, "instanceType": construct.deps("instanceType")}, urn=template_urn)
    group_urn = construct.child_urn("aws:autoscaling/group:Group", name)
    cluster_name = facts.get("cluster_name", UNKNOWN)
    tags = UNKNOWN if cluster_name == UNKNOWN else [
        {"key": f"kubernetes.io/cluster/{cluster_name}", "value": "owned", "propagateAtLaunch": True},
        *({"key": key, "value": value, "propagateAtLaunch": True}
          for key, value in (options.get("autoScalingGroupTags") or {}).items())]
    group_inputs = {  # (its name the AWS provider's: the pool is named by the resource's, as before it is known)
        "minSize": options.get("minSize", 1) if options.get("minSize") is not None else 1,
        "maxSize": options.get("maxSize") if options.get("maxSize") is not None else 2,
        "desiredCapacity": options.get("desiredCapacity") if options.get("desiredCapacity") is not None else 2,
        "launchTemplate": {"name": template_inputs["name"], "version": _text(construct.output(template,
                                                                                         "latestVersion"))},
        "vpcZoneIdentifiers": options.get("nodeSubnetIds") or UNKNOWN, "tags": tags,
        "instanceRefresh": {"strategy": "Rolling", "preferences": {"minHealthyPercentage": 50}}}
    group = Child("aws:autoscaling/group:Group", name, group_inputs, {
        "launchTemplate": (template_urn,), "tags": on_cluster,
        **{key: construct.deps(key) for key in ("minSize", "maxSize", "desiredCapacity")}}, urn=group_urn)
    return [template, group]


def _node_group_v2(construct: Construct) -> Built:
    children = _self_managed_v2(construct, construct.name, {key: construct.get(key) for key in construct.inputs},
                                _target(construct))
    return Built(children, {"autoScalingGroup": reference(children[-1].urn, construct.output(children[-1], "id")),
                            "nodeSecurityGroup": UNKNOWN, "extraNodeSecurityGroups": UNKNOWN})


def _node_group(construct: Construct) -> Built:
    """createNodeGroup (v1): a launch configuration and the CloudFormation stack whose template is the group."""
    facts = _target(construct)
    options = {key: construct.get(key) for key in construct.inputs}
    configuration_urn = construct.child_urn("aws:ec2/launchConfiguration:LaunchConfiguration",
                                            f"{construct.name}-nodeLaunchConfiguration")
    user_data = _user_data(options, facts)
    configuration = Child("aws:ec2/launchConfiguration:LaunchConfiguration",
                          f"{construct.name}-nodeLaunchConfiguration", {
                              "imageId": options.get("amiId") or "ami-0123456789abcdef0",
                              "instanceType": options.get("instanceType") or DEFAULT_INSTANCE_TYPE,
                              "userData": base64.b64decode(user_data).decode() if user_data != UNKNOWN else UNKNOWN,
                              **({"spotPrice": options["spotPrice"]} if options.get("spotPrice") else {})},
                          {"instanceType": construct.deps("instanceType")}, urn=configuration_urn)
    sizes = {key: options.get(key) if options.get(key) is not None else default
             for key, default in (("desiredCapacity", 2), ("minSize", 1), ("maxSize", 2))}
    body = UNKNOWN if construct.preview else (
        "\nAWSTemplateFormatVersion: '2010-09-09'\nResources:\n    NodeGroup:\n"
        "        Type: AWS::AutoScaling::AutoScalingGroup\n        Properties:\n"
        f"          DesiredCapacity: {sizes['desiredCapacity']}\n"
        f"          LaunchConfigurationName: {auto_name(configuration_urn, construct.name)}\n"
        f"          MinSize: {sizes['minSize']}\n          MaxSize: {sizes['maxSize']}\n")
    stack = Child("aws:cloudformation/stack:Stack", f"{construct.name}-nodes", {
        "templateBody": body, "tags": {"Name": f"{construct.name}-nodes"}},
        {"templateBody": (configuration_urn, *((facts["cluster_urn"],) if facts.get("cluster_urn") else ()))},
        urn=construct.child_urn("aws:cloudformation/stack:Stack", f"{construct.name}-nodes"))
    return Built([configuration, stack], {"cfnStack": reference(stack.urn, UNKNOWN if construct.preview else "stack"),
                                          "autoScalingGroupName": UNKNOWN, "nodeSecurityGroup": UNKNOWN})


def _managed_node_group(construct: Construct) -> Built:
    """createManagedNodeGroup: an EKS managed node group with the component's own inputs."""
    if construct.get("nodeRole") is None and construct.get("nodeRoleArn") is None:  # nodes/nodegroup.ts, its roleArn
        raise ComponentError("The input properties for the managed node group are invalid: nodeRole: An IAM role, or "
                             "role ARN must be provided to create a managed node group")
    if construct.get("nodeRole") is not None and construct.get("nodeRoleArn") is not None:
        raise ComponentError("The input properties for the managed node group are invalid: nodeRole: You cannot "
                             "specify both nodeRole and nodeRoleArn when creating a managed node group.")
    facts = _target(construct)
    inputs = {key: value for key, value in construct.inputs.items() if key not in (
        "cluster", "kubeletExtraArgs", "bootstrapExtraArgs", "nodeadmExtraOptions", "bottlerocketSettings",
        "operatingSystem", "gpu", "nodeRole", "enableIMDSv2", "enableEfaSupport", "placementGroupAvailabilityZone",
        "userData", "amiId", "ignoreScalingChanges")}
    depends = {key: construct.deps(key) for key in inputs}
    if construct.get("clusterName") is None:
        inputs["clusterName"] = facts.get("cluster_name", UNKNOWN)
        depends["clusterName"] = (facts["cluster_urn"],) if facts.get("cluster_urn") else construct.deps("cluster")
    if "nodeRoleArn" not in inputs:  # createManagedNodeGroup: nodeRoleArn, else the ARN of the nodeRole it is given
        inputs["nodeRoleArn"] = construct.referenced(construct.get("nodeRole"), "arn")
        depends["nodeRoleArn"] = construct.deps("nodeRole")
    scaling = construct.get("scalingConfig") or {}
    inputs["scalingConfig"] = UNKNOWN if not isinstance(scaling, dict) else {
        "desiredSize": scaling.get("desiredSize", 2), "minSize": scaling.get("minSize", 1),
        "maxSize": scaling.get("maxSize", 2)}
    if "subnetIds" not in inputs:  # its cluster's subnets (core.subnetIds)
        inputs["subnetIds"] = facts.get("subnet_ids", UNKNOWN)
        depends["subnetIds"] = (facts["cluster_urn"],) if facts.get("cluster_urn") else construct.deps("cluster")
    children: list[Child] = []
    custom = [key for key in ("kubeletExtraArgs", "bootstrapExtraArgs", "nodeadmExtraOptions", "userData", "amiId",
                              "enableIMDSv2", "enableEfaSupport") if construct.get(key) is not None]
    if custom:  # createMNGCustomLaunchTemplate: its AMI and user data are the launch template's
        template_urn = construct.child_urn("aws:ec2/launchTemplate:LaunchTemplate", f"{construct.name}-launchTemplate")
        children.append(Child("aws:ec2/launchTemplate:LaunchTemplate", f"{construct.name}-launchTemplate", {
            "userData": UNKNOWN if construct.preview else base64.b64encode(b"#!/bin/bash\n").decode()},
            {"userData": (facts["cluster_urn"],) if facts.get("cluster_urn") else ()}, urn=template_urn))
        inputs["launchTemplate"] = {"id": construct.output(children[-1], "id"),
                                    "version": _text(construct.output(children[-1], "latestVersion"))}
        depends["launchTemplate"] = (template_urn,)
        inputs.pop("amiType", None)  # "amiType ... cannot be set if an AMI ID is set in a custom launch template"
    elif construct.get("amiType") is None and construct.get("operatingSystem") is not None:
        inputs["amiType"] = _ami_type(construct.get("operatingSystem"), construct.get("gpu"),
                                      construct.get("instanceTypes"))
    group = Child("aws:eks/nodeGroup:NodeGroup", construct.name, inputs, depends,
                  urn=construct.child_urn("aws:eks/nodeGroup:NodeGroup", construct.name))
    children.append(group)
    return Built(children, {"nodeGroup": reference(group.urn, construct.output(group, "id")),
                            "placementGroupName": ""})


VPC_OUTPUTS = ("vpcId", "publicSubnetIds", "privateSubnetIds", "isolatedSubnetIds")


def vpc_outputs(construct: Construct) -> dict[str, Any]:
    """What awsx's ``Vpc`` answers of its network (its children, a VPC and its subnets, declare no pool and are not
    built here): once deployed, a VPC and a public and a private subnet in each availability zone
    (``availabilityZoneNames``, else ``numberOfAvailabilityZones``, "defaults to 3", awsx ec2/vpc.ts's default subnet
    specs); in a preview, the deployed outputs the previous deployment holds of it, else not known yet."""
    if construct.preview:
        kept = construct.deployed(construct.urn) or {}
        return {key: UNKNOWN if kept.get(key) is None else kept[key] for key in VPC_OUTPUTS}
    zones = construct.get("availabilityZoneNames")
    count = len(zones) if isinstance(zones, list) else construct.get("numberOfAvailabilityZones", 3)
    count = count if isinstance(count, int) else 3

    def subnet(kind: str, index: int) -> str:
        return f"subnet-{hashlib.sha256(f'{construct.urn}/{kind}/{index}'.encode()).hexdigest()[:17]}"

    return {"vpcId": f"vpc-{hashlib.sha256(construct.urn.encode()).hexdigest()[:17]}",
            "publicSubnetIds": [subnet("public", index) for index in range(count)],
            "privateSubnetIds": [subnet("private", index) for index in range(count)], "isolatedSubnetIds": []}


# Remote components whose outputs (not their children) the test kit answers: listed as not checked, as NO_COMPUTE
OUTPUTS_ONLY: dict[str, Callable[[Construct], dict[str, Any]]] = {"awsx:ec2:Vpc": vpc_outputs}


class ComponentError(Exception):
    """What a component's own code refuses, as its provider would fail the program's registration with it."""


# nodes/ami.ts amiTypeMetadata: (operating system, GPU support, architecture) -> the AMI type; no entry, no AMI type
AMI_TYPES = {
    ("AL2", False, "x86_64"): "AL2_x86_64", ("AL2", True, "x86_64"): "AL2_x86_64_GPU",
    ("AL2", False, "arm64"): "AL2_ARM_64",
    ("AL2023", False, "x86_64"): "AL2023_x86_64_STANDARD", ("AL2023", False, "arm64"): "AL2023_ARM_64_STANDARD",
    ("AL2023", True, "x86_64"): "AL2023_x86_64_NVIDIA",
    ("Bottlerocket", False, "arm64"): "BOTTLEROCKET_ARM_64", ("Bottlerocket", False, "x86_64"): "BOTTLEROCKET_x86_64",
    ("Bottlerocket", True, "arm64"): "BOTTLEROCKET_ARM_64_NVIDIA",
    ("Bottlerocket", True, "x86_64"): "BOTTLEROCKET_x86_64_NVIDIA",
}


def _ami_type(operating_system: Any, gpu: Any, instance_types: Any) -> Any:
    """nodes/nodegroup.ts determineAmiType: the architecture of the instance types (Graviton: a 'g' after the family's
    generation digit, isGravitonInstance), then ami.ts getAmiType's table, which throws where it has no entry."""
    if not isinstance(instance_types, list) or not all(isinstance(name, str) for name in instance_types):
        return UNKNOWN
    architecture = "arm64" if any(_graviton(name) for name in instance_types) else "x86_64"
    found = AMI_TYPES.get((str(operating_system), bool(gpu), architecture))
    if found is None:
        raise ComponentError(f"No AMI type found for OS: {operating_system}, GPU support: {str(bool(gpu)).lower()}, "
                             f"architecture: {architecture}")
    return found


def _graviton(name: str) -> bool:
    family = name.split(".", 1)[0]
    digits = [index for index, char in enumerate(family) if char.isdigit()]
    return bool(digits) and family[digits[0] + 1:digits[0] + 2] == "g"


BUILDERS: dict[str, Callable[[Construct], Built]] = {
    CLUSTER: _cluster, NODE_GROUP_V2: _node_group_v2, NODE_GROUP: _node_group, MANAGED_NODE_GROUP: _managed_node_group}

