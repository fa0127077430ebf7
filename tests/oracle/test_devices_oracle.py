"""GPUs claimed through Dynamic Resource Allocation (issue 78, SPEC 24) held to the structured allocator of
k8s.io/dynamic-resource-allocation (tests/oracle/devices.go), as kube-scheduler's DynamicResources plugin runs it.

Generated cases, all in one pulumi-kubernetes program parsed once: an EKS node group of one machine (labelled with its
case), NVIDIA's DRA driver's Helm release, one to two ResourceClaimTemplates of one to two requests each (gpu.nvidia.com
or mig.nvidia.com, a count of one to nine or allocationMode All, CEL selectors or none; now and then a firstAvailable
list of such subrequests; now and then a matchAttribute constraint; a quarter of the claims a ResourceClaim its Pods
share), and a Deployment pinned to the
group whose Pods claim them. The node's ResourceSlice is written here from the machine's GPUs as AWS lists them and
NVIDIA's driver publishes them (one device per GPU, type gpu; seven MIG devices per GPU that MIG splits, type mig:
NVIDIA's MIG user guide; each with the attributes and capacity its GetDevice gives, valued as the GPU has them), the
DeviceClasses as the driver's chart writes them (templates/deviceclass-gpu.yaml, deviceclass-mig.yaml), each template's
claim as the resourceclaim controller makes it for one Pod. The pack refuses a Deployment (workload-fits-pool) exactly
where the allocator allocates its Pod's claims on no node of its group."""

from __future__ import annotations

import os
import random
from typing import Any

import pulumi_kubernetes as k8s
from builders import cluster_resource, node_group
from google.protobuf import json_format
from kube_oracle import ask

from compute_guard.policies.adapters.findings import Violation
from compute_guard.policies.model.stack import parse_stack
from compute_guard.policies.model.values import Unknown
from compute_guard.policies.workload_fits_pool import workload_fits_pool
from compute_guard.testkit import capture_program

SEED = int(os.environ.get("ORACLE_SEED", "78"))
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000")) // 20
# machine -> (NVIDIA GPUs, whether MIG splits them): aws.amazon.com/ec2/instance-types (accelerated computing)
MACHINES = {"m6i.large": (0, False), "g5.xlarge": (1, False), "g6.xlarge": (1, False), "g5.12xlarge": (4, False),
            "p5.4xlarge": (1, True), "p4d.24xlarge": (8, True)}
# each machine's GPU as NVML names it, its architecture and compute capability, and the MIG profiles a slice holds
GPUS = {"g5": ("NVIDIA A10G", "Ampere", "8.6.0", ()), "g6": ("NVIDIA L4", "Ada Lovelace", "8.9.0", ()),
        "p5": ("NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", ("1g.10gb", "2g.20gb", "3g.40gb")),
        "p4d": ("NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", ("1g.5gb", "2g.10gb", "3g.20gb"))}
A = "device.attributes['gpu.nvidia.com']"
# selectors the pack decides (over the type every device of a class has, has() of what the driver publishes) and
# selectors it does not (over what differs per GPU), alone and combined
SELECTORS = [f"{A}.type == 'gpu'", f"{A}.type == 'mig'", "device.driver == 'gpu.nvidia.com'",
             f"{A}.productName == 'NVIDIA A10G'", f"{A}.productName.startsWith('NVIDIA H100')",
             f"{A}.architecture == 'Ampere'", f"{A}.profile == '1g.5gb'", f"has({A}.productName)",
             f"{A}.type == 'mig' && {A}.architecture == 'Hopper'", f"{A}.type == 'gpu' || {A}.productName == 'x'",
             f"{A}.type == 'gpu' ? {A}.architecture == 'Ampere' : {A}.profile == '1g.10gb'"]
# matchAttribute constraints: over what every device of a node publishes alike, and over what differs
ALIKE = [f"gpu.nvidia.com/{name}" for name in ("productName", "driverVersion", "architecture", "type", "brand",
                                                "cudaComputeCapability", "cudaDriverVersion")]
CONSTRAINED = [*ALIKE, "gpu.nvidia.com/uuid", "resource.kubernetes.io/pcieRoot"]
MIG_PER_GPU = 7
DRIVER = "gpu.nvidia.com"
CLASSES = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": f"{kind}.nvidia.com"},
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == 'gpu.nvidia.com' && "
                                                          f"device.attributes['gpu.nvidia.com'].type == '{kind}'"}}]}}
           for kind in ("gpu", "mig")]


def generated(rng: random.Random, index: int) -> dict[str, Any]:
    machine = rng.choice(sorted(MACHINES))
    claims = []
    for claim in range(1 if rng.random() < 0.7 else 2):
        requests = []
        for request in range(1 if rng.random() < 0.7 else 2):
            device_class = rng.choice(("gpu.nvidia.com", "mig.nvidia.com"))
            if rng.random() < 0.15:  # a firstAvailable list of two or three, of one class (now and then of two)
                subrequests = [{"name": f"s{sub}", **asked(rng, device_class if rng.random() < 0.9 else
                                                          rng.choice(("gpu.nvidia.com", "mig.nvidia.com")))}
                               for sub in range(rng.choice((2, 3)))]
                requests.append({"name": f"r{request}", "firstAvailable": subrequests})
            else:
                requests.append({"name": f"r{request}", "exactly": asked(rng, device_class)})
        constraints = []
        # (drawn apart, so that the rest of each case is what it was before constraints were drawn)
        other = random.Random(f"{SEED}-{index}-{claim}")
        if other.random() < 0.25:  # matchAttribute over what the node's devices share, or what differs between them
            constraint: dict[str, Any] = {"matchAttribute": other.choice(CONSTRAINED)}
            if other.random() < 0.5:
                constraint["requests"] = [other.choice(requests)["name"]]
            constraints.append(constraint)
        claims.append({"name": f"c{index}-{claim}", "requests": requests, "shared": rng.random() < 0.25,
                       "constraints": constraints})
    return {"index": index, "machine": machine, "claims": claims}


def narrowing(claim: dict[str, Any]) -> bool:
    """A claim whose constraints the pack may leave to a note: a matchAttribute over what differs between a node's
    devices (a uuid, the PCIe root the slices here do not publish), over the type across both classes, or among
    requests of a firstAvailable list."""
    for constraint in claim["constraints"]:
        applied = [request for request in claim["requests"]
                   if request["name"] in constraint.get("requests", [request["name"]])]
        classes = {request["exactly"]["deviceClassName"] for request in applied if "exactly" in request}
        if constraint["matchAttribute"] not in ALIKE or any("firstAvailable" in request for request in applied) or \
                (constraint["matchAttribute"] == "gpu.nvidia.com/type" and len(classes) > 1):
            return True
    return False


def asked(rng: random.Random, device_class: str) -> dict[str, Any]:
    """One exact request or subrequest: a count, or all, of a class, with selectors now and then."""
    fields: dict[str, Any] = {"deviceClassName": device_class}
    if rng.random() < 0.15:
        fields["allocationMode"] = "All"
    else:
        fields["count"] = rng.choice((1, 1, 1, 2, 2, 4, 8, 9, 1, 2, 33))  # (33: past a claim's limit)
    if rng.random() < 0.2:
        fields["selectors"] = [{"cel": {"expression": rng.choice(SELECTORS)}}
                               for _ in range(1 if rng.random() < 0.8 else 2)]
    return fields


def unchecked(request: dict[str, Any]) -> bool:
    """A request whose verdict the pack may leave to a note: allocationMode All, selectors, a firstAvailable list of
    two classes."""
    subrequests = request.get("firstAvailable") or [request["exactly"]]
    return any(sub.get("allocationMode") == "All" or "selectors" in sub for sub in subrequests) or \
        len({sub["deviceClassName"] for sub in subrequests}) > 1


def slices(case: dict[str, Any]) -> list[dict[str, Any]]:
    gpus, mig = MACHINES[case["machine"]]
    product, architecture, capability, profiles = GPUS.get(case["machine"].split(".")[0], ("", "", "0.0.0", ()))

    def device(name: str, kind: str, parent: int, **more: dict[str, str]) -> dict[str, Any]:
        return {"name": name, "attributes": {
            "type": {"string": kind}, "uuid": {"string": f"GPU-{case['index']}-{name}"}, "productName": {"string": product},
            "brand": {"string": "Nvidia"}, "architecture": {"string": architecture},
            "cudaComputeCapability": {"version": capability}, "driverVersion": {"version": "580.95.5"},
            "cudaDriverVersion": {"version": "13.0.0"}, **more},
            "capacity": {"memory": {"value": "10Gi"}}}

    devices = [device(f"gpu-{n}", "gpu", n) for n in range(gpus)]
    if mig:
        devices += [device(f"mig-{n}-{m}", "mig", n, parentUUID={"string": f"GPU-{case['index']}-gpu-{n}"},
                           profile={"string": profiles[m % len(profiles)]})
                    for n in range(gpus) for m in range(MIG_PER_GPU)]
    node = f"node-{case['index']}"
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-gpus"},
             "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1,
                                                                    "resourceSliceCount": 1},
                      "devices": devices}}] if devices else []


def program(cases: list[dict[str, Any]]) -> None:
    cluster_resource("aws", version="1.34")()
    k8s.helm.v3.Release("nvidia-dra-driver", chart="nvidia-dra-driver-gpu",
                        repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo="https://helm.ngc.nvidia.com/nvidia"))
    for case in cases:
        index = case["index"]
        node_group(f"g{index}", [case["machine"]], ami_type="AL2023_x86_64_NVIDIA", labels={"case": str(index)},
                   max_size=1, declare_cluster=False)()
        for claim in case["claims"]:
            if claim["shared"]:  # a ResourceClaim its Pods share: for one Pod, the allocator's claim as it is
                k8s.resource.v1.ResourceClaim(claim["name"], metadata={"name": claim["name"], "namespace": "default"},
                                              spec={"devices": devices(claim)})
            else:
                k8s.resource.v1.ResourceClaimTemplate(claim["name"], metadata={"name": claim["name"]},
                                                      spec={"spec": {"devices": devices(claim)}})
        labels = {"app": f"d{index}"}
        k8s.apps.v1.Deployment(f"d{index}", metadata={"name": f"d{index}"}, spec={
            "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
                "nodeSelector": {"case": str(index)},
                "containers": [{"name": "app", "image": "nvcr.io/nvidia/cuda:12.5.0-base-ubuntu22.04",
                                "resources": {"requests": {"cpu": "100m"},
                                              "claims": [{"name": claim["name"]} for claim in case["claims"]]}}],
                "resourceClaims": [{"name": claim["name"], ("resourceClaimName" if claim["shared"] else
                                                            "resourceClaimTemplateName"): claim["name"]}
                                   for claim in case["claims"]]}}})


def devices(claim: dict[str, Any]) -> dict[str, Any]:
    """A claim's spec.devices: its requests, and its constraints if any."""
    return {"requests": claim["requests"], **({"constraints": claim["constraints"]} if claim["constraints"] else {})}


def parsed(cases: list[dict[str, Any]]) -> Any:
    """The cases' program as the pack reads it in a preview (its resources' inputs, parsed once)."""

    class Outputs:
        def __init__(self, resource: Any) -> None:
            self.resource_type, self.urn, self.name = resource.type, resource.urn, resource.name
            self.props = json_format.MessageToDict(resource.outputs)

    captured = capture_program(lambda: program(cases), stack_config={"compute:platform": "aws"})
    return parse_stack((Outputs(resource) for resource in captured), {})


def test_the_packs_device_verdicts_are_the_allocators():
    rng = random.Random(SEED)
    cases = [generated(rng, index) for index in range(EXAMPLES)]
    answer = ask({"devices": [{
        "node": {"metadata": {"name": f"node-{case['index']}", "labels": {"case": str(case["index"])}}},
        "slices": slices(case), "classes": CLASSES,
        "claims": [{"metadata": {"name": f"{claim['name']}-pod", "namespace": "default"},
                    "spec": {"devices": devices(claim)}} for claim in case["claims"]]}
        for case in cases]})["devices"]
    # the errors the allocator gives here: allocationMode All on a node with more matching devices than a claim may
    # hold (32), which the pack leaves unchecked (and says so), and a selector over an attribute a device does not
    # have (a GPU's MIG profile: a CEL runtime error), which the pack does not decide (and says so): such a claim is
    # allocated on no such node; and a constraint among the subrequests of a firstAvailable list that no devices meet
    # (an error of the allocator's search), which the pack says
    assert all(found["error"] == "" or "exceeds the claim limit of 32" in found["error"]
               or "CEL runtime error: no such key" in found["error"]
               or "because a claim constraint would not be satisfied" in found["error"] for found in answer)
    assert all(any(narrowing(claim) for claim in case["claims"]) for case, found in zip(cases, answer, strict=True)
               if "claim constraint" in found["error"])

    findings = workload_fits_pool(parsed(cases), "aws", {})
    refused = {int(finding.urn.rsplit("::d", 1)[-1]) for finding in findings if isinstance(finding, Violation)}
    notes = [format(finding.words) for finding in findings if isinstance(finding, Unknown)]
    noted = {case["index"] for case in cases if any(note.startswith(f"Deployment 'd{case['index']}':")
                                                    for note in notes)}
    assert len(notes) == len(noted)  # one note per workload, and only on those of the cases
    # the driver's release in the stack: only allocationMode All and selectors are left unchecked, and only where the
    # pack does not refuse; a firstAvailable list of two classes is not counted (said beside a refusal too)
    every = {case["index"] for case in cases
             if any(unchecked(request) for claim in case["claims"] for request in claim["requests"])
             or any(narrowing(claim) for claim in case["claims"])}
    unsure = {case["index"] for case in cases if any(note.startswith(f"Deployment 'd{case['index']}':")
                                                     and "not checked" in note for note in notes)}
    assert noted <= every and not unsure & refused
    # the pack refuses exactly what the allocator allocates on no node, where it judges; never what it allocates
    disagreements = [(case["machine"], case["claims"], found) for case, found in zip(cases, answer, strict=True)
                     if (case["index"] in refused) == found["allocated"]
                     and not (case["index"] in noted and not found["allocated"])]
    assert disagreements == [], disagreements[:5]
    print(f"{len(cases)} cases: {len(refused)} refused, {sum(f['allocated'] for f in answer)} allocated, "
          f"{len(noted)} with allocationMode All, selectors, constraints or a list of two classes said, "
          f"{sum(bool(f.get('timedOut')) for f in answer)} searches past the filter timeout")
    # selectors decide some of the refusals, and some selectors are decided (neither noted nor refused)
    selected = {case["index"] for case in cases if any("selectors" in sub for claim in case["claims"]
                                                       for request in claim["requests"]
                                                       for sub in request.get("firstAvailable") or [request["exactly"]])}
    by_selector = {int(finding.urn.rsplit("::d", 1)[-1]) for finding in findings
                   if isinstance(finding, Violation) and "selects no" in finding.message}
    assert by_selector and by_selector <= selected and selected - noted - refused
    # firstAvailable lists of one class decide verdicts both ways
    listing = {case["index"] for case in cases if any("firstAvailable" in request and not unchecked(request)
                                                      for claim in case["claims"] for request in claim["requests"])}
    assert listing - noted - refused and listing & refused
    # and so do claims with constraints over what a node's devices share
    alike = {case["index"] for case in cases if any(claim["constraints"] and not narrowing(claim)
                                                    for claim in case["claims"])}
    assert alike - noted - refused and alike & refused
    # and so do claims the Pods share (a ResourceClaim: on the Pod's node beside its own)
    sharing = {case["index"] for case in cases if any(claim["shared"] for claim in case["claims"])}
    assert sharing - noted - refused and sharing & refused
    # both verdicts are reached (a fifth or so allocated: selectors refuse a share), and the All mode decides some
    allocated = sum(found["allocated"] for found in answer)
    assert 0.15 * len(cases) < allocated < 0.8 * len(cases), allocated
