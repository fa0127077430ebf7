"""A brute-force model of how the scheduler matches a pod spec's architecture constraints to nodes: the
judge of the architecture oracles (tests/robustness/test_architecture_oracle.py, the corpus tests). It is
written from Kubernetes' documentation of nodeSelector and node affinity, not from the pack.

For each Kubernetes architecture, a node labelled with it under both architecture labels. A Pod may land on
it when every architecture label of its nodeSelector equals the node's and, when it has required node
affinity, one of the nodeSelectorTerms matches: a term matches when it has expressions and each expression
on an architecture label holds for the node's value (In, NotIn, Exists, DoesNotExist; Gt and Lt need a
number); expressions on other labels can be met by some node.
"""

from __future__ import annotations

from typing import Any

ARCHITECTURES = ("amd64", "arm64", "arm", "386", "ppc64le", "s390x", "riscv64", "mips64le", "mips64", "mipsle",
                 "mips", "loong64")
ARCH_LABELS = ("kubernetes.io/arch", "beta.kubernetes.io/arch")
OTHER_LABELS = ("kubernetes.io/os", "topology.kubernetes.io/zone")
WRONG = ("x86_64", "aarch64")  # names no node carries: the classic mistakes
NOWHERE = "no-such-arch"


def places(spec: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(container, key) of every architecture value in the spec, where a preview unknown may stand."""
    found = [(spec["nodeSelector"], label) for label in ARCH_LABELS if label in spec.get("nodeSelector", {})]
    affinity = spec.get("affinity", {}).get("nodeAffinity", {})
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(affinity, dict) else None
    for term in (required or {}).get("nodeSelectorTerms", []):
        for expression in term["matchExpressions"]:
            if expression["key"] in ARCH_LABELS and expression["operator"] in ("In", "NotIn"):
                found += [(expression["values"], index) for index in range(len(expression["values"]))]
    return found


def holds(expression: dict[str, Any], node: str) -> bool:
    if expression["key"] not in ARCH_LABELS:
        return True  # some node carries whatever else it asks for
    operator = expression["operator"]
    if operator == "In":
        return node in expression["values"]
    if operator == "NotIn":
        return node not in expression["values"]
    return operator == "Exists"  # DoesNotExist: every node has the label; Gt/Lt: the label is not a number


def schedulable(spec: dict[str, Any], node: str) -> bool:
    selector = spec.get("nodeSelector") or {}
    if any(selector[label] != node for label in ARCH_LABELS if label in selector):
        return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return True
    return any(term["matchExpressions"] and all(holds(e, node) for e in term["matchExpressions"])
               for term in required["nodeSelectorTerms"])


def allowed(spec: dict[str, Any]) -> set[str]:
    return {node for node in ARCHITECTURES if schedulable(spec, node)}


def wrong_names(spec: dict[str, Any]) -> bool:
    """A known architecture value that is no Kubernetes architecture, or required affinity without terms."""
    if any(container[key] in WRONG for container, key in places(spec)):
        return True
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {})
    if not isinstance(required, dict):
        return False
    terms = (required.get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms")
    return terms == []




# --- labels and taints: whole nodes (issue "Pools as the platforms declare them") ----------------------------
# A node is its labels (a dict) and its taints ((key, value, effect) triples). Written from the same pages:
# "assign-pod-node" (nodeSelector, node affinity operators) and "taint-and-toleration" (how a toleration matches).

def expression_holds(expression: dict[str, Any], labels: dict[str, str]) -> bool:
    key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt"):
        if not present or len(values) != 1:
            return False
        try:
            mine, theirs = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return mine > theirs if operator == "Gt" else mine < theirs
    raise ValueError(operator)


def toleration_matches(toleration: dict[str, Any], taint: tuple[str, str, str]) -> bool:
    key, value, effect = taint
    if toleration.get("effect") and toleration["effect"] != effect:
        return False
    if toleration.get("operator") == "Exists":
        return not toleration.get("key") or toleration["key"] == key
    return toleration.get("key") == key and (toleration.get("value") or "") == value


def fits_node(spec: dict[str, Any], labels: dict[str, str], taints: list[tuple[str, str, str]]) -> bool:
    """Whether the scheduler may bind a Pod with this spec to a node with these labels and taints."""
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if required is not None and not any(
            term.get("matchExpressions") and all(expression_holds(e, labels) for e in term["matchExpressions"])
            for term in required["nodeSelectorTerms"]):
        return False
    tolerations = spec.get("tolerations") or []
    return all(any(toleration_matches(t, taint) for t in tolerations)
               for taint in taints if taint[2] in ("NoSchedule", "NoExecute"))


# --- a platform's own taints and several clusters (issue 37) ------------------------------------------------------
# GKE taints every Arm node kubernetes.io/arch=arm64:NoSchedule and adds the matching toleration to a Pod whose
# nodeSelector or required node affinity selects arm64 (cloud.google.com/kubernetes-engine/docs/how-to/
# prepare-arm-workloads-for-deployment, "Overview").

GKE_ARM_TAINT = ("kubernetes.io/arch", "arm64", "NoSchedule")


# GKE taints its Windows Server nodes node.kubernetes.io/os=windows:NoSchedule and adds the toleration to Pods that
# select windows (cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows).
GKE_WINDOWS_TAINT = ("node.kubernetes.io/os", "windows", "NoSchedule")


def _selects(spec: dict[str, Any], key: str, value: str) -> bool:
    """Its nodeSelector, or an In expression of its required node affinity, asks for ``key=value``."""
    if (spec.get("nodeSelector") or {}).get(key) == value:
        return True
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution") or {}
    return any(expression["key"] == key and expression["operator"] == "In" and value in (expression.get("values") or [])
               for term in required.get("nodeSelectorTerms") or [] for expression in term.get("matchExpressions") or [])


def gke_admitted(spec: dict[str, Any]) -> dict[str, Any]:
    """The Pod as GKE admits it: with the Arm toleration when it selects arm64, the Windows one when it selects
    windows."""
    added = []
    if _selects(spec, "kubernetes.io/arch", "arm64"):
        added.append({"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"})
    if _selects(spec, "kubernetes.io/os", "windows"):
        added.append({"key": "node.kubernetes.io/os", "operator": "Equal", "value": "windows", "effect": "NoSchedule"})
    if not added:
        return spec
    return {**spec, "tolerations": [*(spec.get("tolerations") or []), *added]}


def gke_node_taints(arch: str, taints: list[tuple[str, str, str]], os: str = "linux") -> list[tuple[str, str, str]]:
    found = [*taints, GKE_ARM_TAINT] if arch == "arm64" else list(taints)
    return [*found, GKE_WINDOWS_TAINT] if os == "windows" else found


# GKE taints the nodes of a GPU pool added to a cluster that already runs a pool without GPUs nvidia.com/gpu
# (NoSchedule) (cloud.google.com/kubernetes-engine/docs/how-to/gpus, "Create a node pool with GPUs"); pools made
# together may come in either order.
GKE_GPU_TAINT = ("nvidia.com/gpu", "present", "NoSchedule")

# AKS labels and taints a Spot pool's nodes kubernetes.azure.com/scalesetpriority=spot, NoSchedule
# (learn.microsoft.com/azure/aks/spot-node-pool).
AKS_SPOT_LABEL = "kubernetes.azure.com/scalesetpriority"
AKS_SPOT_TAINT = (AKS_SPOT_LABEL, "spot", "NoSchedule")


def requested_extended(spec: dict[str, Any]) -> set[str]:
    """The extended resources its containers and init containers request or limit: resource names with a domain that
    is not kubernetes.io ("Extended resources": "fully-qualified resource names outside the kubernetes.io domain",
    kubernetes.io/docs/concepts/configuration/manage-resources-containers/#extended-resources)."""
    found: set[str] = set()
    for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
        resources = container.get("resources") or {}
        for part in ("requests", "limits"):
            found |= {name for name in resources.get(part) or {} if "/" in name and "kubernetes.io/" not in name}
    return found


def extended_admitted(spec: dict[str, Any]) -> dict[str, Any]:
    """The Pod as the ExtendedResourceToleration admission plugin hands it on, which EKS, GKE and AKS run: "If
    enabled, tolerations for such taints [named after the extended resource] are automatically added to pods
    requesting extended resources": key the resource, operator Exists, effect NoSchedule
    (kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#extendedresourcetoleration)."""
    added = [{"key": name, "operator": "Exists", "effect": "NoSchedule"} for name in sorted(requested_extended(spec))]
    return {**spec, "tolerations": [*(spec.get("tolerations") or []), *added]} if added else spec


# --- PodTopologySpread and the eviction API (SPEC section 15), from Kubernetes' documentation ------------------------
# "Pod Topology Spread Constraints": a Pod may go to a domain when, after it, the domain's matching Pods minus the
# global minimum stay within maxSkew; the global minimum is the smallest count over the eligible domains, or 0 while
# fewer domains are eligible than minDomains. Nodes without the topology key are not placed on (DoNotSchedule).

def spread_places(zones: int, replicas: int, max_skew: int, min_domains: int | None, key_on_nodes: bool = True) -> int:
    """The most of ``replicas`` Pods the scheduler can place, one at a time, over ``zones`` zones of nodes without
    limit, by trying every order (the state is the sorted counts per zone)."""
    if not key_on_nodes or zones == 0:
        return 0
    best = 0
    seen: set[tuple[int, ...]] = set()
    stack = [tuple([0] * zones)]
    while stack:
        counts = stack.pop()
        placed = sum(counts)
        best = max(best, placed)
        if placed == replicas or counts in seen:
            continue
        seen.add(counts)
        minimum = 0 if min_domains is not None and zones < min_domains else min(counts)
        for zone in range(zones):
            if counts[zone] + 1 - minimum <= max_skew:
                after = list(counts)
                after[zone] += 1
                stack.append(tuple(sorted(after)))
    return best


def disruptions_allowed(replicas: int, min_available: int | str | None, max_unavailable: int | str | None) -> int:
    """The eviction API's answer for a budget over ``replicas`` healthy Pods ("Specifying a Disruption Budget for
    your Application": percentages of the expected Pods are rounded up; allowed = healthy - desired healthy)."""
    import math

    def scaled(value: int | str) -> int:
        return math.ceil(int(value[:-1]) * replicas / 100) if isinstance(value, str) else value

    if max_unavailable is not None:
        desired = max(0, replicas - scaled(max_unavailable))
    elif min_available is not None:
        desired = scaled(min_available)
    else:
        desired = 0
    return max(0, replicas - desired)
