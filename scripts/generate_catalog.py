#!/usr/bin/env python3
"""Generate policies/platforms/data/machines.json, the machine catalog.

    venv/bin/python scripts/generate_catalog.py            # rewrite the file
    venv/bin/python scripts/generate_catalog.py --check    # exit 1 if the file is stale

Facts per machine: platform, name, CPU architecture, vCPUs, memory (MiB), GPU type and count,
nested-virtualization support. Sources, all pinned in requirements-dev.txt:

* AWS names: botocore's EC2 service model (the ``InstanceType`` enum: every instance type EC2
  accepts). vCPUs, memory, GPU counts and processors: Apache libcloud's EC2 size table, which is
  generated from the AWS price list. For types newer than that table, vCPUs come from the size
  (medium 1, large 2, xlarge 4, Nxlarge 4N, metal as the family's largest size) and memory from
  the family's GiB-per-vCPU ratio; what cannot be derived is null.
  Architecture: Graviton families (a generation digit followed by ``g``: t4g, m7g, c6gn, x2gd,
  im4gn, is4gen, hpc7g ...), a1 and Apple-silicon Macs are arm64; everything else is x86_64. The
  processor named by the price list is cross-checked against that rule.
  GPU types: the accelerator each GPU family carries, from AWS's instance-type pages (table
  below). Nested virtualization: bare metal, and the 8th-generation Intel families m8i, c8i, r8i
  and their -flex variants.
* GCP: every predefined machine type of Google Cloud's machine-family documentation, written out
  below series by series (shared-core, -lssd and -metal variants, GPU series with their
  accelerators and counts).
* Azure: every size of the generated list of Azure/karpenter-provider-azure
  (../shared/third_party/azure-known-skus, Apache-2.0), read at the commit recorded below; facts
  derived from each name and family as described at azure_machines.
* AWS max Pods per node (``maxPods``): EKS's own table of ENIs and IPv4 addresses per ENI
  (../shared/third_party/eks-instance-info), as EKS's node bootstrap computes it; null for a type
  the table does not list, and for GCP and Azure, whose limit is a cluster setting.

The file records the sources' versions; --check fails when the committed file is not what the
sources give now.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CATALOG_DATE = "2026-11-30"  # when the facts written out below were last checked against their sources
OUTPUT = ROOT / "policies" / "platforms" / "data" / "machines.json"
GIB = 1024

# --- AWS -------------------------------------------------------------------------------------

AWS_GPU_TYPES = {
    "g2": "nvidia-k520", "g3": "nvidia-m60", "g3s": "nvidia-m60", "g4dn": "nvidia-t4",
    "g4ad": "amd-radeon-pro-v520", "g5": "nvidia-a10g", "g5g": "nvidia-t4g", "g6": "nvidia-l4",
    "g6f": "nvidia-l4", "gr6": "nvidia-l4", "gr6f": "nvidia-l4", "g6e": "nvidia-l40s",
    "g7": "nvidia-rtx-pro-4500", "g7e": "nvidia-rtx-pro-6000",
    "p2": "nvidia-k80", "p3": "nvidia-v100", "p3dn": "nvidia-v100",
    "p4d": "nvidia-a100", "p4de": "nvidia-a100-80gb", "p5": "nvidia-h100", "p5e": "nvidia-h200",
    "p5en": "nvidia-h200", "p6-b200": "nvidia-b200", "p6-b300": "nvidia-b300", "p6e-gb200": "nvidia-b200",
}
# GPU counts the price-list table does not have yet.
AWS_GPU_COUNTS = {
    "p5.4xlarge": 1, "p5e.48xlarge": 8, "p5en.48xlarge": 8, "p6-b200.48xlarge": 8, "p6-b300.48xlarge": 8,
    "p6e-gb200.36xlarge": 4, "g4dn.metal": 8, "g5g.metal": 2,
    **{f"{family}.{size}": count for family in ("g7", "g7e")
       for size, count in (("2xlarge", 1), ("4xlarge", 1), ("8xlarge", 1), ("12xlarge", 2), ("24xlarge", 4),
                           ("48xlarge", 8))},
}
# Sizes with a fraction of one GPU (see _machine for how they are counted).
AWS_GPU_FRACTIONS = {"g6f.large": 1 / 8, "g6f.xlarge": 1 / 8, "g6f.2xlarge": 1 / 4, "g6f.4xlarge": 1 / 2,
                     "gr6f.4xlarge": 1 / 2}
AWS_NESTED_FAMILIES = {"m8i", "c8i", "r8i", "m8i-flex", "c8i-flex", "r8i-flex"}
# GiB of memory per vCPU, by the family's class letter, for families the price list lacks.
AWS_GIB_PER_VCPU = {"c": 2, "m": 4, "r": 8, "x": 16}
# What the price-list table lacks, from AWS's own size tables (docs.aws.amazon.com/ec2/latest/instancetypes/,
# the general-purpose, compute-optimized, storage-optimized and accelerated-computing pages, and the
# instance-type pages they link): (vCPUs, GiB) per instance type, and GiB per vCPU per family.
AWS_SIZES: dict[str, tuple[int, float]] = {
    # T8i (gp.html, "T8i"): the burstable sizes of T3 (2 vCPUs up to large)
    **{f"t8i.{size}": (2, gib) for size, gib in (("nano", 0.5), ("micro", 1), ("small", 2), ("medium", 4),
                                                  ("large", 8))},
    "t8i.xlarge": (4, 16), "t8i.2xlarge": (8, 32),
    "c5n.metal": (72, 192),  # co.html, "C5n": c5n.metal as c5n.18xlarge
    # G6f, Gr6f (ac.html, "G6f": fractional NVIDIA L4)
    "g6f.large": (2, 8), "g6f.xlarge": (4, 16), "g6f.2xlarge": (8, 32), "g6f.4xlarge": (16, 64),
    "gr6f.4xlarge": (16, 128),
    # High memory U7i/U-* (mo.html, "High memory"): the memory is in the name
    "u-6tb1.metal": (448, 6144), "u7ib-12tb.224xlarge": (896, 12288), "u7inh-32tb.480xlarge": (1920, 32768),
}
AWS_FAMILY_GIB_PER_VCPU = {"i7i": 8, "i8ge": 8}  # so.html, "I7i" and "I8ge": 8 GiB per vCPU at every size
_GRAVITON = re.compile(r"^[a-z]+\d+g")
_SIZE = re.compile(r"^(\d*)xlarge$")


def aws_architecture(family: str) -> str:
    if family == "a1" or _GRAVITON.match(family) or family.startswith(("mac2", "mac-")):
        return "arm64"
    return "x86_64"


def _size_vcpus(size: str) -> int | None:
    if size == "medium":
        return 1
    if size == "large":
        return 2
    match = _SIZE.match(size)
    if match:
        return 4 * int(match.group(1) or 1)
    match = re.match(r"^metal-(\d+)xl$", size)
    if match:
        return 4 * int(match.group(1))
    return None


def _mib(memory: str | None) -> int | None:
    match = re.match(r"^([\d,.]+) GiB$", memory or "")
    return round(float(match.group(1).replace(",", "")) * GIB) if match else None


def _int(value: Any) -> int | None:
    try:
        number = int(str(value).replace(",", ""))
    except ValueError:
        return None
    return number if number > 0 else None


def aws_machines() -> list[dict[str, Any]]:
    import botocore.loaders
    from libcloud.compute.constants.ec2_instance_types import INSTANCE_TYPES as PRICES

    names = botocore.loaders.Loader().load_service_model("ec2", "service-2")["shapes"]["InstanceType"]["enum"]
    known: dict[str, dict[str, Any]] = {}
    for name in names:
        extra = PRICES.get(name, {}).get("extra", {})
        known[name] = {"vcpus": _int(extra.get("vcpu")), "memory_mib": _mib(extra.get("memory")),
                       "gpus": _int(extra.get("gpu")), "processor": extra.get("physicalProcessor") or ""}
    by_family: dict[str, list[str]] = {}
    for name in names:
        by_family.setdefault(name.split(".", 1)[0], []).append(name)

    machines = []
    for name in sorted(names):
        family, size = name.split(".", 1)
        architecture = aws_architecture(family)
        facts = known[name]
        processor = facts["processor"]
        if processor and ("Graviton" in processor) != (architecture == "arm64" and not family.startswith("mac")):
            raise SystemExit(f"{name}: price list says '{processor}', the naming rule says {architecture}")
        listed = AWS_SIZES.get(name)
        vcpus = listed[0] if listed else facts["vcpus"] or _size_vcpus(size)
        if vcpus is None and size == "metal":
            sizes = [known[n]["vcpus"] or _size_vcpus(n.split(".", 1)[1]) for n in by_family[family] if n != name]
            vcpus = max((v for v in sizes if v), default=None)
        memory = round(listed[1] * GIB) if listed else facts["memory_mib"]
        if memory is None and vcpus and family in AWS_FAMILY_GIB_PER_VCPU:
            memory = AWS_FAMILY_GIB_PER_VCPU[family] * GIB * vcpus
        if memory is None and vcpus:
            ratios = {known[n]["memory_mib"] / known[n]["vcpus"] for n in by_family[family]
                      if known[n]["memory_mib"] and known[n]["vcpus"]}
            if len(ratios) == 1:
                memory = round(ratios.pop() * vcpus)
            elif not ratios and family[0] in AWS_GIB_PER_VCPU and not family.startswith(("mac", "m1", "m2", "m3")):
                memory = AWS_GIB_PER_VCPU[family[0]] * GIB * vcpus
        gpu_type = AWS_GPU_TYPES.get(family)
        gpu_count = facts["gpus"] or AWS_GPU_COUNTS.get(name)
        fraction = AWS_GPU_FRACTIONS.get(name)
        if fraction is not None:
            gpu_count = 1
        nested = size.startswith("metal") or family in AWS_NESTED_FAMILIES
        machines.append(_machine("aws", name, architecture, vcpus, memory, gpu_type if gpu_count or gpu_type else None,
                                 gpu_count if gpu_type else None, nested, fraction))
    return machines


# --- GCP -------------------------------------------------------------------------------------
# Every predefined machine type of Google Cloud's machine-family documentation
# (docs.cloud.google.com/compute/docs/{general-purpose,compute-optimized,memory-optimized,
# storage-optimized,accelerator-optimized}-machines, as of GCP_DOCS_DATE), series by series:
# (architecture, nested virtualization, {kind: (GB per vCPU or None, [vCPU counts])},
#  {variant suffix: {kind: [vCPU counts]}}). Memory is given where the series documents one
# ratio for the kind, else null. Nested virtualization: the Intel series that support it.

GCP_DOCS_DATE = "2026-11"
# Series whose kinds have one ratio above their smallest sizes, and the exceptions the tables list
# (general-purpose-machines, "C4 machine types" and "C4D machine types"): GB per vCPU, and GB of the sizes that
# differ. Metal and -lssd sizes have the memory of the size they extend.
GCP_C4 = {"standard": (3.75, {2: 7}), "highmem": (7.75, {2: 15}), "highcpu": (2, {})}
GCP_C4D = {"standard": (3.875, {2: 7, 4: 15}), "highmem": (7.875, {2: 15, 4: 31}),
           "highcpu": (1.875, {2: 3, 4: 7})}
# The memory-optimized series' tables (memory-optimized-machines, "M1", "M2", "M3", "M4"): GB per machine type.
GCP_MEMORY_GB = {"m1-megamem-96": 1433.6, "m1-ultramem-40": 961, "m1-ultramem-80": 1922, "m1-ultramem-160": 3844,
                 "m2-ultramem-208": 5888, "m2-ultramem-416": 11776, "m2-megamem-416": 5888,
                 "m2-hypermem-416": 8832, "m3-ultramem-32": 976, "m3-ultramem-64": 1952, "m3-ultramem-128": 3904,
                 "m3-megamem-64": 976, "m3-megamem-128": 1952, "m4-megamem-28": 372, "m4-megamem-56": 744,
                 "m4-megamem-112": 1488, "m4-megamem-224": 2976, "m4-ultramem-56": 1488, "m4-ultramem-112": 2976,
                 "m4-ultramem-224": 5952}
GCP_MEMORY = "table"  # the kind's sizes are in GCP_MEMORY_GB
# Bare-metal sizes (general-purpose-machines, "C3", "C4", "C4A", "C4D" bare metal; storage-optimized-machines, "Z3"):
# GB per machine type.
GCP_METAL_GB = {"c3-standard-192-metal": 768, "c3-highmem-192-metal": 1536, "c3-highcpu-192-metal": 512,
                "c4-standard-288-metal": 1080, "c4-highmem-288-metal": 2232, "c4-standard-288-lssd-metal": 1080,
                "c4-highmem-288-lssd-metal": 2232, "c4a-highmem-96-metal": 768, "c4d-standard-384-metal": 1488,
                "c4d-highmem-384-metal": 3024, "c4d-highcpu-384-metal": 720, "z3-highmem-192-highlssd-metal": 1536}
_P2 = [2, 4, 8, 16, 32, 48, 64, 80]
_GCP_SERIES: dict[str, tuple[str, bool, dict[str, tuple[float | None, list[int]]], dict[str, dict[str, list[int]]]]] = {
    "e2": ("x86_64", False, {"standard": (4, [2, 4, 8, 16, 32]), "highmem": (8, [2, 4, 8, 16]),
                             "highcpu": (1, [2, 4, 8, 16, 32])}, {}),
    "n1": ("x86_64", True, {"standard": (3.75, [1, 2, 4, 8, 16, 32, 64, 96]),
                            "highmem": (6.5, [2, 4, 8, 16, 32, 64, 96]),
                            "highcpu": (0.9, [2, 4, 8, 16, 32, 64, 96])}, {}),
    "n2": ("x86_64", True, {"standard": (4, [*_P2, 96, 128]), "highmem": (8, [*_P2, 96, 128]),
                            "highcpu": (1, [*_P2, 96])}, {}),
    "n2d": ("x86_64", False, {"standard": (4, [*_P2, 96, 128, 224]), "highmem": (8, [*_P2, 96]),
                              "highcpu": (1, [*_P2, 96, 128, 224])}, {}),
    "n4": ("x86_64", True, {"standard": (4, _P2), "highmem": (8, _P2), "highcpu": (1, _P2)}, {}),
    "n4d": ("x86_64", False, {"standard": (4, [*_P2, 96]), "highmem": (8, [*_P2, 96]),
                              "highcpu": (1, [*_P2, 96])}, {}),
    "n4a": ("arm64", False, {kind: (ratio, [1, 2, 4, 8, 16, 32, 48, 64])
                             for kind, ratio in (("standard", 4), ("highmem", 8), ("highcpu", 2))}, {}),
    "c4a": ("arm64", False, {kind: (ratio, [1, 2, 4, 8, 16, 32, 48, 64, 72])
                             for kind, ratio in (("standard", 4), ("highmem", 8), ("highcpu", 2))},
            {"-lssd": {"standard": [4, 8, 16, 32, 48, 64, 72], "highmem": [4, 8, 16, 32, 48, 64, 72]},
             "-metal": {"highmem": [96]}}),
    "c4": ("x86_64", True, {kind: (GCP_C4[kind], [2, 4, 8, 16, 24, 32, 48, 96, 144, 192, 288])
                            for kind in ("standard", "highmem", "highcpu")},
           {"-lssd": {kind: [4, 8, 16, 24, 32, 48, 96, 144, 192, 288] for kind in ("standard", "highmem")},
            "-metal": {"standard": [288], "highmem": [288]},
            "-lssd-metal": {"standard": [288], "highmem": [288]}}),
    "c4d": ("x86_64", False, {kind: (GCP_C4D[kind], [2, 4, 8, 16, 32, 48, 64, 96, 192, 384])
                              for kind in ("standard", "highmem", "highcpu")},
            {"-lssd": {kind: [8, 16, 32, 48, 64, 96, 192, 384] for kind in ("standard", "highmem")},
             "-metal": {kind: [384] for kind in ("standard", "highmem", "highcpu")}}),
    "c3": ("x86_64", True, {kind: (ratio, [4, 8, 22, 44, 88, 176])
                            for kind, ratio in (("standard", 4), ("highmem", 8), ("highcpu", 2))},
           {"-lssd": {"standard": [4, 8, 22, 44, 88, 176]},
            "-metal": {kind: [192] for kind in ("standard", "highmem", "highcpu")}}),
    "c3d": ("x86_64", False, {kind: (ratio, [4, 8, 16, 30, 60, 90, 180, 360])
                              for kind, ratio in (("standard", 4), ("highmem", 8), ("highcpu", 2))},
            {"-lssd": {kind: [8, 16, 30, 60, 90, 180, 360] for kind in ("standard", "highmem")}}),
    "c2": ("x86_64", True, {"standard": (4, [4, 8, 16, 30, 60])}, {}),
    "c2d": ("x86_64", False, {kind: (ratio, [2, 4, 8, 16, 32, 56, 112])
                              for kind, ratio in (("standard", 4), ("highmem", 8), ("highcpu", 2))}, {}),
    "t2a": ("arm64", False, {"standard": (4, [1, 2, 4, 8, 16, 32, 48])}, {}),
    "t2d": ("x86_64", False, {"standard": (4, [1, 2, 4, 8, 16, 32, 48, 60])}, {}),
    "h3": ("x86_64", False, {"standard": (4, [88])}, {}),
    "h4d": ("x86_64", False, {"standard": (None, [192]), "highmem": (None, [192])}, {"-lssd": {"highmem": [192]}}),
    "m1": ("x86_64", False, {"ultramem": (GCP_MEMORY, [40, 80, 160]), "megamem": (GCP_MEMORY, [96])}, {}),
    "m2": ("x86_64", False, {"ultramem": (GCP_MEMORY, [208, 416]), "megamem": (GCP_MEMORY, [416]),
                             "hypermem": (GCP_MEMORY, [416])}, {}),
    "m3": ("x86_64", False, {"ultramem": (GCP_MEMORY, [32, 64, 128]), "megamem": (GCP_MEMORY, [64, 128])}, {}),
    "m4": ("x86_64", False, {"hypermem": (None, [16, 32, 64]), "megamem": (GCP_MEMORY, [28, 56, 112, 224]),
                             "ultramem": (GCP_MEMORY, [56, 112, 224])}, {}),
    "z3": ("x86_64", False, {"highmem": (8, [])}, {"-standardlssd": {"highmem": [14, 22, 44, 88, 176]},
                                 "-highlssd": {"highmem": [8, 16, 22, 32, 44, 88]},
                                 "-highlssd-metal": {"highmem": [192]}}),
}
# Names outside the series-kind-vCPUs pattern: (name, vCPUs, GB)
_GCP_OTHER = [("e2-micro", 2, 1), ("e2-small", 2, 2), ("e2-medium", 2, 4), ("f1-micro", 1, 0.6),
              ("g1-small", 1, 1.7), ("z3-highmem-88", 88, 704), ("z3-highmem-176", 176, 1408),
              *[(f"x4-{v}-{t}t-metal", v, t * 1024) for v, t in
                [(480, 6), (480, 8), (960, 12), (960, 16), (1440, 24), (1920, 32)]]]
# accelerator-optimized: (name, architecture, vCPUs, GB, GPU type, GPU count)
_GCP_GPU = [
    *[(f"g2-standard-{v}", "x86_64", v, 4 * v, "nvidia-l4", g) for v, g in
      [(4, 1), (8, 1), (12, 1), (16, 1), (24, 2), (32, 1), (48, 4), (96, 8)]],
    *[(f"g4-standard-{v}", "x86_64", v, 3.75 * v, "nvidia-rtx-pro-6000", g) for v, g in
      [(48, 1), (96, 2), (192, 4), (384, 8)]],
    *[(f"a2-highgpu-{g}g", "x86_64", v, m, "nvidia-a100", g) for g, v, m in
      [(1, 12, 85), (2, 24, 170), (4, 48, 340), (8, 96, 680)]],
    ("a2-megagpu-16g", "x86_64", 96, 1360, "nvidia-a100", 16),
    *[(f"a2-ultragpu-{g}g", "x86_64", v, m, "nvidia-a100-80gb", g) for g, v, m in
      [(1, 12, 170), (2, 24, 340), (4, 48, 680), (8, 96, 1360)]],
    *[(f"a3-highgpu-{g}g", "x86_64", v, m, "nvidia-h100", g) for g, v, m in
      [(1, 26, 234), (2, 52, 468), (4, 104, 936), (8, 208, 1872)]],
    ("a3-megagpu-8g", "x86_64", 208, 1872, "nvidia-h100", 8),
    ("a3-edgegpu-8g", "x86_64", 208, 1872, "nvidia-h100", 8),
    ("a3-ultragpu-8g", "x86_64", 224, 2952, "nvidia-h200", 8),
    ("a4-highgpu-8g", "x86_64", 224, 3968, "nvidia-b200", 8),
    ("a4x-highgpu-4g", "arm64", 140, 884, "nvidia-b200", 4),  # GB200: Grace (Arm) CPUs
]


def _gcp_memory(series: str, kind: str, vcpus: int, ratio: Any) -> int | None:
    """A machine type's memory in MiB (GCP's GB are GiB): the series' ratio, an exception of its table, or the
    table of the memory-optimized series; None where the documentation gives no number."""
    if ratio == GCP_MEMORY:
        gb = GCP_MEMORY_GB.get(f"{series}-{kind}-{vcpus}")
        return round(gb * GIB) if gb is not None else None
    if isinstance(ratio, tuple):
        per, exceptions = ratio
        return round(exceptions.get(vcpus, per * vcpus) * GIB)
    return round(ratio * vcpus * GIB) if ratio else None


def gcp_machines() -> list[dict[str, Any]]:
    machines = []
    for series, (architecture, nested, kinds, variants) in _GCP_SERIES.items():
        for kind, (ratio, counts) in kinds.items():
            for vcpus in counts:
                machines.append(_machine("gcp", f"{series}-{kind}-{vcpus}", architecture, vcpus,
                                         _gcp_memory(series, kind, vcpus, ratio), None, None, nested))
        for suffix, by_kind in variants.items():
            for kind, counts in by_kind.items():
                ratio = kinds.get(kind, (None, []))[0]
                for vcpus in counts:
                    # a metal size is the largest size's memory (c3: 4, 8 and 2.67 GB per vCPU; general-purpose-
                    # machines, "C3 bare metal"), where the documentation lists it
                    memory = GCP_METAL_GB.get(f"{series}-{kind}-{vcpus}{suffix}") if suffix.endswith("-metal") \
                        else _gcp_memory(series, kind, vcpus, ratio)
                    if suffix.endswith("-metal") and memory is not None:
                        memory = round(memory * GIB)
                    machines.append(_machine("gcp", f"{series}-{kind}-{vcpus}{suffix}", architecture, vcpus, memory,
                                             None, None, nested))
    for name, vcpus, size in _GCP_OTHER:
        machines.append(_machine("gcp", name, "x86_64", vcpus, round(size * GIB), None, None, False))
    for name, architecture, vcpus, size, accelerator, count in _GCP_GPU:
        machines.append(_machine("gcp", name, architecture, vcpus, round(size * GIB), accelerator, count, False))
    return sorted(machines, key=lambda m: m["name"])


# --- Azure -----------------------------------------------------------------------------------
# Every size of Azure/karpenter-provider-azure's generated list (../shared/third_party/
# azure-known-skus/known_skus.yaml): Standard_<family letters><vCPUs>[-<active vCPUs>]<features>
# [_<accelerator or variant>...][_v<version>]. vCPUs come from the name (the active count of a
# constrained size; the documented counts for the older families whose number is not a vCPU
# count); arm64 is the 'p' feature (and the Grace CPUs of GB200/GB300 sizes); GPUs come from the
# family's documented accelerator; memory from the family's documented GiB per vCPU (of the full
# size, which a constrained size keeps), null where it has none; nested virtualization on the
# Intel D and E families from v3 and on Fsv2.

# ../shared beside the repository (the nearest ancestor holding one: a copy of the repository, such as
# mutmut's mutants/, finds the same)
SHARED = next((parent / "shared" for parent in ROOT.parents if (parent / "shared").is_dir()), ROOT.parent / "shared")
AZURE_SKUS = SHARED / "third_party" / "azure-known-skus" / "known_skus.yaml"
# EKS's max Pods per node: awslabs/amazon-eks-ami nodeadm's instance-info.jsonl (../shared/third_party/
# eks-instance-info, MIT-0), at the commit recorded below. nodeadm (internal/kubelet) sets the kubelet's
# maxPods to ENIs x (IPv4 addresses per ENI - 1) + 2 when the VPC CNI runs without prefix delegation.
EKS_INSTANCE_INFO = SHARED / "third_party" / "eks-instance-info" / "instance-info.jsonl"
EKS_INSTANCE_INFO_COMMIT = "81fec2e895854f599974fe4d3d72f61c0a9aaffa"


def eks_interfaces() -> dict[str, tuple[int, int]]:
    """Instance type -> (its ENIs, IPv4 addresses per ENI), EKS's own table: the VPC CNI's Pod slots and the addresses
    a node takes from its subnet are counted from them (policies/model/sources/eks.py, pool-address-space)."""
    result = {}
    for line in EKS_INSTANCE_INFO.read_text().splitlines():
        if line.strip():
            item = json.loads(line)
            result[item["instanceType"]] = (item["defaultMaxENIs"], item["ipv4AddressesPerInterface"])
    return result


AZURE_SKUS_COMMIT = "352646f599290c3a6d2f9710fb535a7b288f88ed"
_AZURE_NAME = re.compile(r"^Standard_([A-Z]+)(\d+)(?:-(\d+))?([a-z]*)((?:_[A-Za-z0-9]+)*)$")
# Families whose number is a size code, not a vCPU count: number -> vCPUs.
_AZURE_SIZE_CODES = {
    "D": {1: 1, 2: 2, 3: 4, 4: 8, 5: 16, 11: 2, 12: 4, 13: 8, 14: 16, 15: 20},
    "DS": {1: 1, 2: 2, 3: 4, 4: 8, 5: 16, 11: 2, 12: 4, 13: 8, 14: 16, 15: 20},
    "G": {1: 2, 2: 4, 3: 8, 4: 16, 5: 32}, "GS": {1: 2, 2: 4, 3: 8, 4: 16, 5: 32},
}
# (family letters, accelerator in the name or None, version) -> (GPU type, vCPUs per GPU or a table)
_AZURE_GPUS: dict[tuple[str, str | None, str], tuple[str, dict[int, float] | int]] = {
    ("NC", None, "v3"): ("nvidia-v100", 6),
    ("NC", "T4", "v3"): ("nvidia-t4", {4: 1, 8: 1, 16: 1, 64: 4}),
    ("NC", "A100", "v4"): ("nvidia-a100-80gb", 24),
    ("NC", "A10", "v4"): ("nvidia-a10", {8: 1 / 3, 16: 2 / 3, 32: 1}),
    ("NC", "H100", "v5"): ("nvidia-h100", 40),
    ("NCC", "H100", "v5"): ("nvidia-h100", 40),
    ("NC", "RTXPRO6000BSE", "v6"): ("nvidia-rtx-pro-6000", {}),
    ("ND", None, "v2"): ("nvidia-v100", 5),
    ("ND", None, "v4"): ("nvidia-a100", 12),
    ("ND", "A100", "v4"): ("nvidia-a100-80gb", 12),
    ("ND", "H100", "v5"): ("nvidia-h100", 12),
    ("ND", "H200", "v5"): ("nvidia-h200", 12),
    ("ND", "MI300X", "v5"): ("amd-mi300x", 12),
    ("ND", "GB200", "v6"): ("nvidia-b200", 32),
    ("ND", "GB300", "v6"): ("nvidia-b300", 32),
    ("NG", "V620", "v1"): ("amd-radeon-pro-v620", {8: 1 / 4, 16: 1 / 2, 32: 1}),
    ("NV", None, "v2"): ("nvidia-m60", 6),
    ("NV", None, "v3"): ("nvidia-m60", 12),
    ("NV", None, "v4"): ("amd-radeon-instinct-mi25", {4: 1 / 8, 8: 1 / 4, 16: 1 / 2, 32: 1}),
    ("NV", "A10", "v5"): ("nvidia-a10", {6: 1 / 6, 12: 1 / 3, 18: 1 / 2, 36: 1, 72: 2}),
    ("NV", "V710", "v5"): ("amd-radeon-pro-v710", {4: 1 / 6, 8: 1 / 3, 12: 1 / 2, 24: 1, 28: 1}),
}
_AZURE_ACCELERATORS = {"T4", "A100", "A10", "H100", "H200", "MI300X", "GB200", "GB300", "V620", "V710",
                       "RTXPRO6000BSE"}


# Sizes whose memory is not one ratio of their vCPUs, from Azure's size tables (learn.microsoft.com/azure/
# virtual-machines/sizes/, each family's page): (family letters, number, version) -> GiB of the full size, which a
# constrained size (DS13-2_v2) keeps. D and DS v1 and v2 (general-purpose/dv2-series, dsv2-series; memory-
# optimized/dv2-dsv2-series-memory: D11-D15), G and GS (previous-gen-sizes, "G-series"), B v1
# (general-purpose/bv1-series), M v1 (memory-optimized/m-series).
_DV2_GIB = {1: 3.5, 2: 7, 3: 14, 4: 28, 5: 56, 11: 14, 12: 28, 13: 56, 14: 112, 15: 140}
_G_GIB = {1: 28, 2: 56, 3: 112, 4: 224, 5: 448}
AZURE_MEMORY_GIB: dict[tuple[str, int, int], float] = {
    **{(family, number, version): gib for family in ("D", "DS") for version in (1, 2)
       for number, gib in _DV2_GIB.items() if not (version == 1 and number in (5, 15))},
    **{(family, number, 1): gib for family in ("G", "GS") for number, gib in _G_GIB.items()},
}
_B_V1_GIB = {"1ls": 0.5, "1s": 1, "1ms": 2, "2s": 4, "2ms": 8, "4ms": 16, "8ms": 32, "12ms": 48, "16ms": 64,
             "20ms": 80}
_M_V1_GIB = {"8ms": 218.75, "16ms": 437.5, "32ts": 192, "32ls": 256, "32ms": 875, "64s": 1024, "64ls": 512,
             "64ms": 1792, "128s": 2048, "128ms": 3892, "64": 1000, "64m": 1750, "128": 2000, "128m": 3800}


# GPU sizes' memory, which follows no ratio of their vCPUs: (family letters, accelerator in the name or None, version)
# -> {vCPUs of the full size: GiB}. Azure's size tables (learn.microsoft.com/azure/virtual-machines/sizes/gpu-
# accelerated/: ncast4v3-series, ncv3-series, nc-a100-v4-series, ncadsh100v5-series, nvv4-series), as Azure's SKU API
# reports them (its MemoryGB capability, in GiB; microsoft/aspire's AksNodeVmSizes.cs is generated from it). Other GPU
# families stay null: no node of theirs is counted, and no suggestion names them.
_AZURE_GPU_GIB: dict[tuple[str, str | None, int], dict[int, float]] = {
    ("NC", "T4", 3): {4: 28, 8: 56, 16: 110, 64: 440},
    ("NC", None, 3): {6: 112, 12: 224, 24: 448},
    ("NC", "A100", 4): {24: 220, 48: 440, 96: 880},
    ("NC", "H100", 5): {40: 320, 80: 640},
    ("NV", None, 4): {4: 14, 8: 28, 16: 56, 32: 112},
}


def _azure_table_gib(family: str, number: int, features: str, version: int, full: int) -> float | None:
    """A size's memory from its family's table, where the family has one."""
    found = AZURE_MEMORY_GIB.get((family, number, version))
    if found is not None:
        return found
    if family == "B" and version == 1:
        return _B_V1_GIB.get(f"{number}{features}")
    if family == "M" and version == 1:
        return _M_V1_GIB.get(f"{number}{features}")
    if family == "B" and version == 2:  # general-purpose/bsv2-series, basv2-series, bpsv2-series
        if "t" in features:
            return 0.5 * full  # B2ts_v2, B2ats_v2, B2pts_v2: 2 vCPUs, 1 GiB
        return (2 if "l" in features else 4) * full
    return None


def _azure_gib_per_vcpu(family: str, features: str, version: int) -> float | None:
    """The family's documented GiB per vCPU, or None where it has none."""
    if family == "DC" and version == 2:  # general-purpose/dcsv2-series: 4 GiB per vCPU
        return 4
    if family == "DC" and version == 3:  # general-purpose/dcsv3-series, dcdsv3-series: 8 GiB per vCPU
        return 8
    if family in ("DC", "EC") and version in (5, 6) and ("a" in features or "e" in features):
        # confidential DCasv5/DCadsv5/DCesv5/DCedsv5 (and v6): 4 GiB per vCPU; ECasv5/ECadsv5/ECesv5/ECedsv5 (and
        # v6): 8 GiB per vCPU, up to 64 vCPUs (the largest sizes differ: _azure_confidential)
        return 4 if family == "DC" else 8
    if "t" in features or "o" in features:
        return None
    if family == "D" and version >= 3:
        return 2 if "l" in features else 4
    if family == "E" and version >= 3:
        return 8
    if family == "F" and version >= 6:
        return 2 if "l" in features else 8 if "m" in features else 4
    if family == "F" and version in (1, 2):
        return 2
    if family == "FX":
        return 21
    if family == "L" and version >= 2:
        return 8
    if family == "A" and version == 2:
        return 8 if "m" in features else 2
    return None


def azure_machines() -> list[dict[str, Any]]:
    import yaml

    machines = []
    for entry in yaml.safe_load(AZURE_SKUS.read_text()):
        name = entry["name"]
        match = _AZURE_NAME.match(name)
        if match is None:
            raise SystemExit(f"{name}: not an Azure size name this generator can read")
        family, number, active, features, rest = match.groups()
        parts = [part for part in rest.split("_") if part]
        version = next((int(part[1:]) for part in parts if re.fullmatch(r"v\d+", part)), 1)
        accelerator = next((part for part in parts if part in _AZURE_ACCELERATORS), None)
        size = _AZURE_SIZE_CODES.get(family, {}).get(int(number)) if version <= 2 else None
        full = size or int(number)
        vcpus = int(active) if active else full
        architecture = "arm64" if "p" in features or accelerator in ("GB200", "GB300") else "x86_64"
        gpu_type = gpu_count = gpu_fraction = None
        gpu = _AZURE_GPUS.get((family, accelerator, f"v{version}"))
        if family.startswith("N") and family != "NP" and gpu is None:
            raise SystemExit(f"{name}: a GPU family without a documented accelerator in this generator")
        if gpu is not None:
            gpu_type, per = gpu
            share = per.get(full) if isinstance(per, dict) else full / per
            if share is not None:
                gpu_count, gpu_fraction = (1, share) if share < 1 else (round(share), None)
        ratio = None if gpu else _azure_gib_per_vcpu(family, features, version)
        if ratio is not None and family == "EC" and full > 64:
            ratio = None  # EC96as_v5: 672 GiB, not 8 per vCPU (memory-optimized/ecasv5-series): not one ratio
        table = _AZURE_GPU_GIB.get((family, accelerator, version), {}).get(full) if gpu else \
            _azure_table_gib(family, int(number), features, version, full)
        intel = "a" not in features and "p" not in features
        nested = intel and ((family in ("D", "E") and version >= 3) or (family == "F" and "s" in features
                                                                       and version == 2))
        memory = round(table * GIB) if table is not None else round(ratio * full * GIB) if ratio else None
        machines.append(_machine("azure", name, architecture, vcpus, memory, gpu_type, gpu_count, nested,
                                 gpu_fraction))
    return sorted(machines, key=lambda m: m["name"])


def _machine(platform: str, name: str, architecture: str, vcpus: int | None, memory_mib: int | None,
             gpu_type: str | None, gpu_count: int | None, nested: bool,
             gpu_fraction: float | None = None) -> dict[str, Any]:
    """One machine's facts. A machine with a fraction of a GPU has gpuCount 1 (the node shows its
    partition as one GPU device, and a pool declares whole devices per machine) and the fraction in
    gpuFraction."""
    return {"platform": platform, "name": name, "architecture": architecture, "vcpus": vcpus,
            "memoryMiB": memory_mib, "gpuType": gpu_type, "gpuCount": gpu_count,
            "gpuFraction": round(gpu_fraction, 4) if gpu_fraction else None, "nestedVirtualization": nested}


def render() -> str:
    import botocore
    import libcloud

    machines = aws_machines() + gcp_machines() + azure_machines()
    interfaces = eks_interfaces()
    for machine in machines:  # only AWS has a per-type limit; GKE's and AKS's are per cluster (policies/model/nodes.py)
        found = interfaces.get(machine["name"]) if machine["platform"] == "aws" else None
        # nodeadm's default maxPods without prefix delegation: ENIs x (IPv4 addresses per ENI - 1) + 2
        machine["maxPods"] = found[0] * (found[1] - 1) + 2 if found else None
        machine["enis"], machine["ipv4PerEni"] = found or (None, None)
    names = [(m["platform"], m["name"]) for m in machines]
    if len(set(names)) != len(names):
        raise SystemExit("duplicate machine names")
    header = {"generatedBy": "scripts/generate_catalog.py", "refreshed": CATALOG_DATE,
              "sources": {"botocore": botocore.__version__, "apache-libcloud": libcloud.__version__,
                          "azure-known-skus": f"Azure/karpenter-provider-azure@{AZURE_SKUS_COMMIT}",
                          "eks-instance-info": f"awslabs/amazon-eks-ami@{EKS_INSTANCE_INFO_COMMIT}",
                          "gcp-machine-families": f"docs.cloud.google.com/compute/docs, as of {GCP_DOCS_DATE}"}}
    lines = ["{", f'"about": {json.dumps(header, sort_keys=True)},', '"machines": [']
    lines += [json.dumps(m, sort_keys=True) + ("," if i < len(machines) - 1 else "") for i, m in enumerate(machines)]
    lines += ["]", "}", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed file differs")
    args = parser.parse_args()
    text = render()
    if args.check:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT} is stale: run scripts/generate_catalog.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
