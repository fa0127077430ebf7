"""EKS self-managed nodes: an autoscaling group of EC2 instances that join a cluster (SPEC 14.1). This is what
pulumi-eks registers for ``eks:index:Cluster``'s default node group and for ``eks:index:NodeGroupV2``
(../shared/third_party/pulumi-eks, nodes/nodegroup.ts createNodeGroupV2: an ``aws:ec2/launchTemplate:LaunchTemplate``
and an ``aws:autoscaling/group:Group``, children of the component), and for its v1 ``eks:index:NodeGroup``
(createNodeGroup: an ``aws:ec2/launchConfiguration:LaunchConfiguration`` and an ``aws:cloudformation/stack:Stack``
whose template declares the group).

* An autoscaling Group is a pool when it belongs to a cluster: a ``kubernetes.io/cluster/<name>`` tag (the tag EKS's
  own templates and pulumi-eks put on it, docs.aws.amazon.com/eks/latest/userguide/worker.html), tags that depend on
  a cluster resource, or a pulumi-eks component above it. Its machines are its launch template's ``instanceType``
  (the template found by property dependency, id or name) and the mixed-instances ``overrides``; pulumi-eks's default
  is t3.medium (nodes/instances.ts DEFAULT_INSTANCE_TYPE). Its size is ``maxSize`` (minSize, maxSize).
* Its nodes' labels and taints are the kubelet's ``--node-labels`` and ``--register-with-taints`` in the template's
  ``userData`` (base64 for a launch template; the bootstrap script's ``--kubelet-extra-args``, or AL2023's
  NodeConfig ``spec.kubelet.flags``: pulumi-eks nodes/userdata.ts buildKubeletFlags). pulumi-eks's user data holds
  the cluster's endpoint, so in a first preview it is not known; its kubelet flags are built from the component's
  own inputs (the default group's ``nodeGroupOptions``, a ``NodeGroupV2``'s or ``NodeGroup``'s: ``labels``,
  ``taints``, ``kubeletExtraArgs``), which the engine sends to Analyze and which are known then: the labels and taints
  are read from those (Source.remember). Where neither says (user data of its own, Bottlerocket or nodeadm settings,
  an input not known yet), its labels and taints are not known: the pool is possible for every Pod.
* A self-managed node carries none of the labels EKS gives a managed node group's nodes
  (``eks.amazonaws.com/nodegroup``, ``nodegroup-image``, ``capacityType``: those come with the managed group's own
  launch template, docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html), unless its kubelet flags set
  them: a Pod pinned to a managed group by ``eks.amazonaws.com/nodegroup`` is not taken by it.
* A v1 node group's machine is its launch configuration's ``instanceType``; its sizes are in its CloudFormation
  template (``MinSize``, ``MaxSize``), which is not known during a first preview (it holds the configuration's id).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re
import shlex
from collections.abc import Sequence
from typing import Any

import yaml

from ..addresses import Network
from ..clusters import Claim, KubeCluster
from ..labels import LINUX, MACHINE_KEYS
from ..pool import Pool
from ..resources import StackResource
from ..scheduling import Domain, Taint
from ..values import Unknown, child, first_unknown, is_list, is_mapping, plain, undetermined
from . import Context, Read, Replacing, Source, Unread, checked_inputs, eks
from .common import AWS_MAYBE, EVERY_MAYBE, base_labels, machines_of, set_os, size, subnet_spaces

GROUP = "aws:autoscaling/group:Group"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
CFN_STACK = "aws:cloudformation/stack:Stack"
EKS_CLUSTER_COMPONENT = "eks:index:Cluster"  # pulumi-eks's cluster (schema.json, resources)
NODE_GROUP_COMPONENTS = ("eks:index:NodeGroupV2", "eks:index:NodeGroup")  # its self-managed node groups
# the labels EKS sets on a managed node group's nodes only (managed-node-groups.html): never on a self-managed node
# whose kubelet flags are known and do not set them
MANAGED_ONLY = frozenset({"eks.amazonaws.com/nodegroup", "eks.amazonaws.com/nodegroup-image",
                          "eks.amazonaws.com/capacityType"})
# the component inputs pulumi-eks builds a self-managed group's kubelet flags from (nodes/userdata.ts
# buildKubeletFlags), and those that replace or add to them in ways the pack does not read
FLAG_INPUTS = ("labels", "taints", "kubeletExtraArgs")
OTHER_USER_DATA = ("nodeUserDataOverride", "bottlerocketSettings", "nodeadmExtraOptions")
DEFAULT_INSTANCE_TYPE = "t3.medium"  # pulumi-eks nodes/instances.ts DEFAULT_INSTANCE_TYPE
CLUSTER_TAG = "kubernetes.io/cluster/"
MAYBE_PREFIXES = ("eks.amazonaws.com/", "alpha.eksctl.io/", *AWS_MAYBE, *EVERY_MAYBE)
_TAINT = re.compile(r"^([^=:\s]+)(?:=([^:\s]*))?:(NoSchedule|NoExecute|PreferNoSchedule)$")
_CFN_SIZE = re.compile(r"^\s*(MinSize|MaxSize):\s*'?(\d+)'?\s*$", re.MULTILINE)


def _decoded(user_data: str) -> str:
    """A launch template's user data is base64 (the EC2 API's LaunchTemplateData.UserData); anything else as it is."""
    try:
        return base64.b64decode(user_data, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return user_data


def kubelet_flags(user_data: str) -> list[str] | None:
    """The kubelet flags a node's user data passes: the bootstrap script's --kubelet-extra-args, and AL2023's
    NodeConfig spec.kubelet.flags (each MIME part of application/node.eks.aws); None when there are none to read
    (a user data script of its own)."""
    text = _decoded(user_data)
    flags: list[str] = []
    found = False
    for match in re.finditer(r"--kubelet-extra-args\s+('[^']*'|\"[^\"]*\"|\S+)", text):
        found = True
        try:  # '--node-labels=a=b --register-with-taints=...' is one quoted argument of several flags
            flags.extend(flag for token in shlex.split(match.group(1)) for flag in token.split())
        except ValueError:
            return None
    for part in re.split(r"^--[^\n]*$", text, flags=re.MULTILINE):
        if "NodeConfig" not in part:
            continue
        body = part.split("\n\n", 1)[-1] if "Content-Type" in part else part
        try:
            documents = list(yaml.safe_load_all(body))
        except yaml.YAMLError:
            continue
        for document in documents:
            if is_mapping(document) and document.get("kind") == "NodeConfig":
                found = True
                kubelet = ((document.get("spec") or {}).get("kubelet") or {})
                # its kubelet configuration's maxPods (nodeadm's NodeConfig API: spec.kubelet.config), which a flag
                # given after it overrides, as the kubelet's flags override its configuration file
                most = (kubelet.get("config") or {}).get("maxPods") if is_mapping(kubelet.get("config")) else None
                if isinstance(most, int) and not isinstance(most, bool):
                    flags.insert(0, f"--max-pods={most}")
                listed = kubelet.get("flags") or []
                flags.extend(flag for flag in listed if isinstance(flag, str))
    return flags if found else None


def labels_and_taints(flags: list[str]) -> tuple[dict[str, str], tuple[Taint, ...]] | None:
    """--node-labels=k=v,... and --register-with-taints=k=v:Effect,...; None when one cannot be read."""
    labels: dict[str, str] = {}
    taints: list[Taint] = []
    for flag in flags:
        name, _, value = flag.partition("=")
        if name == "--node-labels":
            for item in filter(None, value.split(",")):
                key, equals, label = item.partition("=")
                if not equals:
                    return None
                labels[key] = label
        elif name == "--register-with-taints":
            for item in filter(None, value.split(",")):
                match = _TAINT.match(item)
                if match is None:
                    return None
                taints.append(Taint(match.group(1), match.group(2) or "", match.group(3)))
    return labels, tuple(taints)


def max_pods_flag(flags: list[str]) -> int | None:
    """The kubelet's --max-pods among its flags (the last one given wins, as the kubelet parses them): a self-managed
    node's Pod slots where its user data sets them (docs.aws.amazon.com/eks/latest/userguide/
    choosing-instance-type.html, "How maxPods is determined": a maxPods set outright comes before the ENI table)."""
    found = None
    for flag in flags:
        name, _, value = flag.partition("=")
        if name == "--max-pods" and value.isdigit() and int(value) > 0:
            found = int(value)
    return found


def _template_reference(group: Any) -> tuple[Any, Any, Any]:
    """(id, name, overrides) of a group's launch template, direct or in its mixed-instances policy."""
    direct = child(group, "launchTemplate")
    if direct is not None:
        return child(direct, "id"), child(direct, "name"), None
    mixed = child(child(group, "mixedInstancesPolicy"), "launchTemplate")
    spec = child(mixed, "launchTemplateSpecification")
    return child(spec, "launchTemplateId"), child(spec, "launchTemplateName"), plain(child(mixed, "overrides"))


def _cluster_tag(tags: Any) -> str | Unknown | None:
    """The cluster a group's tags name (kubernetes.io/cluster/<name>), Unknown when the tags are not known."""
    listed = plain(tags)
    if isinstance(listed, Unknown):
        return listed
    items = listed if is_list(listed) else [{"key": key} for key in listed] if is_mapping(listed) else []
    for item in items:
        key = item.get("key") if is_mapping(item) else None
        if isinstance(key, Unknown):
            return key
        if isinstance(key, str) and key.startswith(CLUSTER_TAG):
            return key[len(CLUSTER_TAG):]
    return None


class _Templates:
    """The stack's launch templates and configurations, found by URN, name and id (under mocks an id is the name)."""

    def __init__(self, resources: Sequence[StackResource]) -> None:
        self.by_urn = {resource.urn: resource for resource in resources
                       if resource.type in (LAUNCH_TEMPLATE, LAUNCH_CONFIGURATION)}
        self.by_name: dict[str, StackResource] = {}
        for resource in self.by_urn.values():
            name = child(resource.props, "name")
            for key in (name, child(resource.props, "id"), resource.name):
                if isinstance(key, str) and key:
                    self.by_name.setdefault(key, resource)

    def of(self, group: StackResource) -> StackResource | None:
        for urn in group.depends("launchTemplate", "mixedInstancesPolicy", "launchConfiguration"):
            if urn in self.by_urn:
                return self.by_urn[urn]
        template_id, template_name, _ = _template_reference(group.props)
        for key in (template_id, template_name, child(group.props, "launchConfiguration")):
            if isinstance(key, str) and key in self.by_name:
                return self.by_name[key]
        return None


def remember(resource_type: str, props: Any) -> Any:
    """What a pulumi-eks component's inputs say of its self-managed nodes' kubelet flags (the default group's
    ``nodeGroupOptions``; a node group's own inputs), as plain values: the engine sends them to Analyze only."""
    if resource_type == EKS_CLUSTER_COMPONENT:
        options = child(props, "nodeGroupOptions")
        if options is None:
            options = props  # the default group is built from the cluster's own node inputs (cluster.ts)
    elif resource_type in NODE_GROUP_COMPONENTS:
        options = props
    else:
        return None
    if isinstance(options, Unknown):
        return {"unknown": options}
    return {key: plain(child(options, key)) for key in (*FLAG_INPUTS, *OTHER_USER_DATA)}


def component_labels(options: Any) -> tuple[dict[str, str], tuple[Taint, ...]] | Unknown | None:
    """The labels and taints pulumi-eks gives its nodes' kubelet from a component's inputs (nodes/userdata.ts
    buildKubeletFlags: its kubeletExtraArgs, then --node-labels from ``labels`` and --register-with-taints from
    ``taints``); Unknown when one is not known yet, None when its user data is made otherwise (its own, Bottlerocket's
    or nodeadm's settings) or cannot be read."""
    if not is_mapping(options):
        return None
    if isinstance(options.get("unknown"), Unknown):
        return options["unknown"]
    if any(options.get(key) is not None for key in OTHER_USER_DATA):
        return None
    for key in FLAG_INPUTS:
        found = first_unknown(options.get(key))
        if found is not None:
            return found
    extra = options.get("kubeletExtraArgs")
    read = labels_and_taints([flag for flag in extra.split(" ") if flag] if isinstance(extra, str) else [])
    if read is None:
        return None
    labels, found_taints = dict(read[0]), list(read[1])
    given = options.get("labels")
    if is_mapping(given):
        labels.update({key: value for key, value in given.items() if isinstance(value, str)})
    for key, taint in (options.get("taints") or {}).items() if is_mapping(options.get("taints")) else ():
        value = taint.get("value") if is_mapping(taint) else None
        effect = taint.get("effect") if is_mapping(taint) else None
        if effect not in ("NoSchedule", "NoExecute", "PreferNoSchedule"):
            return None  # the kubelet refuses the flag: the nodes never join
        found_taints.append(Taint(key, value if isinstance(value, str) else "", effect))
    return labels, tuple(found_taints)


def _pool(kind: str, urn: str, name: str, template: StackResource, overrides: Any, sizes: tuple[Any, Any],
          options: Any = None, linux: bool = False) -> Pool:
    """A self-managed group's pool: its template's machine (or the overrides'), labels and taints from user data, or
    from its pulumi-eks component's inputs (``options``, remembered) while the user data is not known. ``linux``: a
    pulumi-eks group's, whose images are Linux (nodes/ami.ts: AL2, AL2023 or Bottlerocket, the operating systems
    its self-managed groups build user data for)."""
    props = template.props
    names: Any = child(props, "instanceType")
    listed = [child(item, "instanceType") for item in overrides] if is_list(overrides) else []
    if any(isinstance(item, Unknown) for item in listed):
        names = next(item for item in listed if isinstance(item, Unknown))
    elif listed and all(isinstance(item, str) for item in listed):
        names = tuple(listed)
    elif isinstance(names, str):
        names = (names,)
    elif names is None:
        names = (DEFAULT_INSTANCE_TYPE,) if template.type == LAUNCH_CONFIGURATION else None
    unknown: Unknown | None = names if isinstance(names, Unknown) else None
    labels: dict[str, Domain] = base_labels(None, None)
    if linux:
        set_os(labels, LINUX)
    found_taints: tuple[Taint, ...] = ()
    user_data = child(props, "userData")
    late: Unknown | None = None
    absent: frozenset[str] = frozenset()
    read: tuple[dict[str, str], tuple[Taint, ...]] | Unknown | None = None
    slots: int | None = None
    if isinstance(user_data, Unknown):
        read = component_labels(options)
        extra = options.get("kubeletExtraArgs") if is_mapping(options) else None
        slots = max_pods_flag(extra.split()) if isinstance(extra, str) and isinstance(read, tuple) else None
        if not isinstance(read, tuple):
            late = undetermined(f"the user data of {template.type.rsplit(':', 1)[-1]} '{template.name}', which sets "
                                "its nodes' labels and taints, is not known yet")
    elif isinstance(user_data, str):
        flags = kubelet_flags(user_data)
        read = labels_and_taints(flags) if flags is not None else ({}, ())  # a script passing the kubelet no flags
        slots = max_pods_flag(flags or [])
        if read is None:
            unknown = undetermined(f"the kubelet flags in the user data of '{template.name}' cannot be read")
    if isinstance(read, tuple):
        labels.update({key: frozenset({value}) for key, value in read[0].items()})
        found_taints = read[1]
        absent = MANAGED_ONLY - set(read[0])
    return Pool(kind, urn, name, platform="aws", options=machines_of("aws", names), labels=labels,
                taints=found_taints, unknown=unknown, labels_unknown=late, maybe_prefixes=MAYBE_PREFIXES,
                absent=absent, machine_keys=MACHINE_KEYS,
                min_size=size(sizes[0]), max_size=size(sizes[1]),
                kubelet={"maxPods": slots} if slots is not None else {},
                named_types=names if isinstance(names, tuple) else ())


def read(resources: Sequence[StackResource], context: Context) -> Read:
    found = Read()
    templates = _Templates(resources)
    components = {resource.urn for resource in resources if resource.type == EKS_CLUSTER_COMPONENT}
    pulumi_eks = components | {resource.urn for resource in resources if resource.type in NODE_GROUP_COMPONENTS}
    for resource in resources:
        if resource.type == EKS_CLUSTER_COMPONENT:
            found.clusters.append(KubeCluster(resource.urn, resource.name, "EKS cluster", component=True,
                                              platform="aws"))
    for resource in resources:
        props = resource.props
        if resource.type == GROUP:
            tag = _cluster_tag(child(props, "tags"))
            depends = resource.depends("tags")
            in_component = _ancestor_in(resource, components, context)
            if tag is None and not depends and not in_component:
                continue  # not a cluster's nodes
            template = templates.of(resource)
            if template is None:
                found.unread.append(Unread(resource.urn, resource.name, "autoscaling Group",
                                           "joins a cluster, but its launch template is not a resource of the stack"))
                continue
            _, _, overrides = _template_reference(props)
            pool = _pool("autoscaling Group", resource.urn, _group_name(resource), template, overrides,
                         (child(props, "minSize"), child(props, "maxSize")), _options(resource, context),
                         _ancestor_in(resource, pulumi_eks, context))
            pool = dataclasses.replace(pool, network=Network(subnet_spaces(
                child(props, "vpcZoneIdentifiers"), resource.depends("vpcZoneIdentifiers"), context.resources)))
            found.pools.append((pool, Claim(resource, depends=depends, name=tag if tag is not None else None)))
        elif resource.type == CFN_STACK:
            body = child(props, "templateBody")
            configuration = next((templates.by_urn[urn] for urn in resource.depends("templateBody")
                                  if urn in templates.by_urn), None)
            if configuration is None:
                continue
            sizes: tuple[Any, Any] = (body, body)
            if isinstance(body, str):
                read_sizes = dict(_CFN_SIZE.findall(body))
                sizes = (int(read_sizes["MinSize"]) if "MinSize" in read_sizes else None,
                         int(read_sizes["MaxSize"]) if "MaxSize" in read_sizes else None)
            pool = _pool("CloudFormation Stack", resource.urn, resource.name, configuration, None, sizes,
                         _options(resource, context), _ancestor_in(resource, pulumi_eks, context))
            found.pools.append((pool, Claim(resource)))
    return found


def _options(resource: StackResource, context: Context) -> Any:
    """What its pulumi-eks component's inputs said of its nodes (remembered from Analyze): its nearest ancestor's."""
    parent, seen = resource.parent, 0
    while parent is not None and seen < 32:
        if parent in context.remembered:
            return context.remembered[parent]
        upper = context.resources.get(parent)
        parent, seen = (upper.parent if upper is not None else None), seen + 1
    return None


def _ancestor_in(resource: StackResource, urns: set[str], context: Context) -> bool:
    parent, seen = resource.parent, 0
    while parent is not None and seen < 32:
        if parent in urns:
            return True
        upper = context.resources.get(parent)
        parent, seen = (upper.parent if upper is not None else None), seen + 1
    return False


def _group_name(resource: StackResource) -> str:
    name = child(resource.props, "name")
    return name if isinstance(name, str) and name else resource.name


def alone(resource: StackResource) -> list[Pool]:
    """One resource read alone: a launch template or configuration is the machine of the groups that run it (a
    change to it replaces their nodes); a group alone has no machine of its own."""
    if resource.type in (LAUNCH_TEMPLATE, LAUNCH_CONFIGURATION):
        kind = resource.type.rsplit(":", 1)[-1]
        return [_pool(kind, resource.urn, resource.name, resource, None, (None, None))]
    return [pool for pool, _claim in read([resource], Context()).pools]


# What replaces an autoscaling group: the inputs the Terraform AWS provider marks ForceNew
# (internal/service/autoscaling/group.go: name, name_prefix, initial_lifecycle_hook); a launch template change updates
# it in place, and its running nodes keep their machine until they are replaced (no instance refresh by default).
REPLACES = {GROUP: Replacing(("name", "namePrefix", "initialLifecycleHooks"), "name", "namePrefix",
                             provider="the AWS provider")}


def _remembered(resource_type: str, props: Any) -> Any:
    """What Analyze's inputs keep for the stack policies: a pulumi-eks component's node options, a group's checked
    inputs."""
    return remember(resource_type, props) if resource_type != GROUP else checked_inputs(resource_type, props)


SOURCES = (Source("EKS self-managed nodes", (GROUP, LAUNCH_TEMPLATE, LAUNCH_CONFIGURATION, CFN_STACK,
                                             EKS_CLUSTER_COMPONENT, *NODE_GROUP_COMPONENTS), read, alone=alone,
                  remember=_remembered, replaces=REPLACES, settle=eks.prefixed, addresses=eks.addresses),)
