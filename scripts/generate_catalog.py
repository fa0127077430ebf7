#!/usr/bin/env python3
"""Generate policies/data/machines.json, the machine catalog.

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
* GCP and Azure: their common general-purpose, compute, memory, storage and GPU families,
  written out below from the providers' machine-series documentation.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "policies" / "data" / "machines.json"
GIB = 1024

# --- AWS -------------------------------------------------------------------------------------

AWS_GPU_TYPES = {
    "g2": "nvidia-k520", "g3": "nvidia-m60", "g3s": "nvidia-m60", "g4dn": "nvidia-t4",
    "g4ad": "amd-radeon-pro-v520", "g5": "nvidia-a10g", "g5g": "nvidia-t4g", "g6": "nvidia-l4",
    "g6f": "nvidia-l4", "gr6": "nvidia-l4", "gr6f": "nvidia-l4", "g6e": "nvidia-l40s",
    "g7e": "nvidia-rtx-pro-6000", "p2": "nvidia-k80", "p3": "nvidia-v100", "p3dn": "nvidia-v100",
    "p4d": "nvidia-a100", "p4de": "nvidia-a100-80gb", "p5": "nvidia-h100", "p5e": "nvidia-h200",
    "p5en": "nvidia-h200", "p6-b200": "nvidia-b200", "p6-b300": "nvidia-b300", "p6e-gb200": "nvidia-b200",
}
# GPU counts the price-list table does not have yet (whole GPUs only; fractional sizes stay null).
AWS_GPU_COUNTS = {
    "p5.4xlarge": 1, "p5e.48xlarge": 8, "p5en.48xlarge": 8, "p6-b200.48xlarge": 8, "p6-b300.48xlarge": 8,
}
AWS_NESTED_FAMILIES = {"m8i", "c8i", "r8i", "m8i-flex", "c8i-flex", "r8i-flex"}
# GiB of memory per vCPU, by the family's class letter, for families the price list lacks.
AWS_GIB_PER_VCPU = {"c": 2, "m": 4, "r": 8, "x": 16}
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
        vcpus = facts["vcpus"] or _size_vcpus(size)
        if vcpus is None and size == "metal":
            sizes = [known[n]["vcpus"] or _size_vcpus(n.split(".", 1)[1]) for n in by_family[family] if n != name]
            vcpus = max((v for v in sizes if v), default=None)
        memory = facts["memory_mib"]
        if memory is None and vcpus:
            ratios = {known[n]["memory_mib"] / known[n]["vcpus"] for n in by_family[family]
                      if known[n]["memory_mib"] and known[n]["vcpus"]}
            if len(ratios) == 1:
                memory = round(ratios.pop() * vcpus)
            elif not ratios and family[0] in AWS_GIB_PER_VCPU and not family.startswith(("mac", "m1", "m2", "m3")):
                memory = AWS_GIB_PER_VCPU[family[0]] * GIB * vcpus
        gpu_type = AWS_GPU_TYPES.get(family)
        gpu_count = facts["gpus"] or AWS_GPU_COUNTS.get(name)
        nested = size.startswith("metal") or family in AWS_NESTED_FAMILIES
        machines.append(_machine("aws", name, architecture, vcpus, memory, gpu_type if gpu_count or gpu_type else None,
                                 gpu_count if gpu_type else None, nested))
    return machines


# --- GCP -------------------------------------------------------------------------------------
# series: (architecture, Intel nested virtualization, {type: (GiB per vCPU, [vCPU counts])})

_GCP_SERIES: dict[str, tuple[str, bool, dict[str, tuple[float | None, list[int]]]]] = {
    "e2": ("x86_64", False, {"standard": (4, [2, 4, 8, 16, 32]), "highmem": (8, [2, 4, 8, 16]),
                             "highcpu": (1, [2, 4, 8, 16, 32])}),
    "n1": ("x86_64", True, {"standard": (3.75, [1, 2, 4, 8, 16, 32, 64, 96]),
                            "highmem": (6.5, [2, 4, 8, 16, 32, 64, 96]),
                            "highcpu": (0.9, [2, 4, 8, 16, 32, 64, 96])}),
    "n2": ("x86_64", True, {"standard": (4, [2, 4, 8, 16, 32, 48, 64, 80, 96, 128]),
                            "highmem": (8, [2, 4, 8, 16, 32, 48, 64, 80, 96, 128]),
                            "highcpu": (1, [2, 4, 8, 16, 32, 48, 64, 80, 96])}),
    "n2d": ("x86_64", False, {"standard": (4, [2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224]),
                              "highmem": (8, [2, 4, 8, 16, 32, 48, 64, 80, 96]),
                              "highcpu": (1, [2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224])}),
    "n4": ("x86_64", False, {"standard": (4, [2, 4, 8, 16, 32, 48, 64, 80]),
                             "highmem": (8, [2, 4, 8, 16, 32, 48, 64, 80]),
                             "highcpu": (2, [2, 4, 8, 16, 32, 48, 64, 80])}),
    "c2": ("x86_64", True, {"standard": (4, [4, 8, 16, 30, 60])}),
    "c2d": ("x86_64", False, {"standard": (4, [2, 4, 8, 16, 32, 56, 112]),
                              "highmem": (8, [2, 4, 8, 16, 32, 56, 112]),
                              "highcpu": (2, [2, 4, 8, 16, 32, 56, 112])}),
    "c3": ("x86_64", True, {"standard": (4, [4, 8, 22, 44, 88, 176]), "highmem": (8, [4, 8, 22, 44, 88, 176]),
                            "highcpu": (2, [4, 8, 22, 44, 88, 176])}),
    "c3d": ("x86_64", False, {"standard": (4, [4, 8, 16, 30, 60, 90, 180, 360]),
                              "highmem": (8, [4, 8, 16, 30, 60, 90, 180, 360]),
                              "highcpu": (2, [4, 8, 16, 30, 60, 90, 180, 360])}),
    "c4": ("x86_64", False, {"standard": (3.75, [2, 4, 8, 16, 32, 48, 96, 192]),
                             "highmem": (7.75, [2, 4, 8, 16, 32, 48, 96, 192]),
                             "highcpu": (2, [2, 4, 8, 16, 32, 48, 96, 192])}),
    "c4a": ("arm64", False, {"standard": (4, [1, 2, 4, 8, 16, 32, 48, 64, 72]),
                             "highmem": (8, [1, 2, 4, 8, 16, 32, 48, 64, 72]),
                             "highcpu": (2, [1, 2, 4, 8, 16, 32, 48, 64, 72])}),
    "n4a": ("arm64", False, {"standard": (4, [1, 2, 4, 8, 16, 32, 48, 64]),
                             "highmem": (8, [1, 2, 4, 8, 16, 32, 48, 64]),
                             "highcpu": (2, [1, 2, 4, 8, 16, 32, 48, 64])}),
    "t2a": ("arm64", False, {"standard": (4, [1, 2, 4, 8, 16, 32, 48])}),
    "t2d": ("x86_64", False, {"standard": (4, [1, 2, 4, 8, 16, 32, 48, 60])}),
    "m1": ("x86_64", False, {"ultramem": (None, [40, 80, 160]), "megamem": (None, [96])}),
    "m2": ("x86_64", False, {"ultramem": (None, [208, 416]), "megamem": (None, [416])}),
    "m3": ("x86_64", False, {"ultramem": (None, [32, 64, 128]), "megamem": (None, [64, 128])}),
    "z3": ("x86_64", False, {"highmem": (8, [88, 176])}),
}
# accelerator-optimized: (name, vCPUs, GiB, GPU type, GPU count)
_GCP_GPU = [
    *[(f"g2-standard-{v}", v, m, "nvidia-l4", g) for v, m, g in
      [(4, 16, 1), (8, 32, 1), (12, 48, 1), (16, 64, 1), (24, 96, 2), (32, 128, 1), (48, 192, 4), (96, 384, 8)]],
    *[(f"a2-highgpu-{g}g", v, m, "nvidia-a100", g) for g, v, m in
      [(1, 12, 85), (2, 24, 170), (4, 48, 340), (8, 96, 680)]],
    ("a2-megagpu-16g", 96, 1360, "nvidia-a100", 16),
    *[(f"a2-ultragpu-{g}g", v, m, "nvidia-a100-80gb", g) for g, v, m in
      [(1, 12, 170), (2, 24, 340), (4, 48, 680), (8, 96, 1360)]],
    ("a3-highgpu-8g", 208, 1872, "nvidia-h100", 8),
    ("a3-megagpu-8g", 208, 1872, "nvidia-h100", 8),
    ("a3-ultragpu-8g", 224, 2952, "nvidia-h200", 8),
]


def gcp_machines() -> list[dict[str, Any]]:
    machines = []
    for series, (architecture, nested, types) in _GCP_SERIES.items():
        for kind, (gib_per_vcpu, counts) in types.items():
            for vcpus in counts:
                memory = round(gib_per_vcpu * vcpus * GIB) if gib_per_vcpu else None
                machines.append(_machine("gcp", f"{series}-{kind}-{vcpus}", architecture, vcpus, memory,
                                         None, None, nested))
    for name, vcpus, size, accel, count in [("e2-micro", 2, 1, None, None), ("e2-small", 2, 2, None, None),
                                            ("e2-medium", 2, 4, None, None)] + [
            (n, v, m, t, c) for n, v, m, t, c in _GCP_GPU]:
        machines.append(_machine("gcp", name, "x86_64", vcpus, size * GIB, accel, count, False))
    return sorted(machines, key=lambda m: m["name"])


# --- Azure -----------------------------------------------------------------------------------
# family: (name pattern with {n}, architecture, GiB per vCPU, vCPU counts, nested virtualization)

_AZURE_FAMILIES: list[tuple[str, str, float, list[int], bool]] = [
    *[(f"Standard_D{{n}}{v}_v5", "x86_64", 4, [2, 4, 8, 16, 32, 48, 64, 96], True)
      for v in ("", "s", "d", "ds")],
    *[(f"Standard_E{{n}}{v}_v5", "x86_64", 8, [2, 4, 8, 16, 20, 32, 48, 64, 96, 104], True)
      for v in ("", "s", "d", "ds")],
    *[(f"Standard_D{{n}}{v}_v6", "x86_64", 4, [2, 4, 8, 16, 32, 48, 64, 96, 128], True) for v in ("s", "ds")],
    *[(f"Standard_E{{n}}{v}_v6", "x86_64", 8, [2, 4, 8, 16, 20, 32, 48, 64, 96, 128], True) for v in ("s", "ds")],
    ("Standard_F{n}s_v2", "x86_64", 2, [2, 4, 8, 16, 32, 48, 64, 72], True),
    *[(f"Standard_D{{n}}{v}_v5", "x86_64", 4, [2, 4, 8, 16, 32, 48, 64, 96], False) for v in ("as", "ads")],
    *[(f"Standard_E{{n}}{v}_v5", "x86_64", 8, [2, 4, 8, 16, 20, 32, 48, 64, 96], False) for v in ("as", "ads")],
    ("Standard_D{n}s_v3", "x86_64", 4, [2, 4, 8, 16, 32, 48, 64], False),
    ("Standard_D{n}s_v4", "x86_64", 4, [2, 4, 8, 16, 32, 48, 64], False),
    ("Standard_L{n}s_v3", "x86_64", 8, [8, 16, 32, 48, 64, 80], False),
    *[(f"Standard_D{{n}}{v}_v5", "arm64", 4, [2, 4, 8, 16, 32, 48, 64], False) for v in ("ps", "pds")],
    *[(f"Standard_D{{n}}{v}_v5", "arm64", 2, [2, 4, 8, 16, 32, 48, 64], False) for v in ("pls", "plds")],
    *[(f"Standard_E{{n}}{v}_v5", "arm64", 8, [2, 4, 8, 16, 20, 32], False) for v in ("ps", "pds")],
    *[(f"Standard_D{{n}}{v}_v6", "arm64", 4, [2, 4, 8, 16, 32, 48, 64, 96], False) for v in ("ps", "pds")],
    *[(f"Standard_D{{n}}{v}_v6", "arm64", 2, [2, 4, 8, 16, 32, 48, 64, 96], False) for v in ("pls", "plds")],
    *[(f"Standard_E{{n}}{v}_v6", "arm64", 8, [2, 4, 8, 16, 32, 48, 64, 96], False) for v in ("ps", "pds")],
]
_AZURE_B = [("Standard_B2s", 2, 4), ("Standard_B2ms", 2, 8), ("Standard_B4ms", 4, 16), ("Standard_B8ms", 8, 32),
            ("Standard_B12ms", 12, 48), ("Standard_B16ms", 16, 64), ("Standard_B20ms", 20, 80)]
# GPU sizes: (name, vCPUs, GiB, GPU type, GPU count)
_AZURE_GPU = [
    ("Standard_NC6s_v3", 6, 112, "nvidia-v100", 1), ("Standard_NC12s_v3", 12, 224, "nvidia-v100", 2),
    ("Standard_NC24s_v3", 24, 448, "nvidia-v100", 4),
    ("Standard_NC4as_T4_v3", 4, 28, "nvidia-t4", 1), ("Standard_NC8as_T4_v3", 8, 56, "nvidia-t4", 1),
    ("Standard_NC16as_T4_v3", 16, 110, "nvidia-t4", 1), ("Standard_NC64as_T4_v3", 64, 440, "nvidia-t4", 4),
    ("Standard_NC24ads_A100_v4", 24, 220, "nvidia-a100-80gb", 1),
    ("Standard_NC48ads_A100_v4", 48, 440, "nvidia-a100-80gb", 2),
    ("Standard_NC96ads_A100_v4", 96, 880, "nvidia-a100-80gb", 4),
    ("Standard_NV36ads_A10_v5", 36, 440, "nvidia-a10", 1), ("Standard_NV72ads_A10_v5", 72, 880, "nvidia-a10", 2),
    ("Standard_ND96asr_v4", 96, 900, "nvidia-a100", 8),
    ("Standard_ND96amsr_A100_v4", 96, 1900, "nvidia-a100-80gb", 8),
    ("Standard_ND96isr_H100_v5", 96, 1900, "nvidia-h100", 8),
    ("Standard_NC40ads_H100_v5", 40, 320, "nvidia-h100", 1), ("Standard_NC80adis_H100_v5", 80, 640, "nvidia-h100", 2),
]


def azure_machines() -> list[dict[str, Any]]:
    machines = []
    for pattern, architecture, gib_per_vcpu, counts, nested in _AZURE_FAMILIES:
        for vcpus in counts:
            machines.append(_machine("azure", pattern.format(n=vcpus), architecture, vcpus,
                                     round(gib_per_vcpu * vcpus * GIB), None, None, nested))
    for name, vcpus, size in _AZURE_B:
        machines.append(_machine("azure", name, "x86_64", vcpus, size * GIB, None, None, False))
    for name, vcpus, size, accel, count in _AZURE_GPU:
        machines.append(_machine("azure", name, "x86_64", vcpus, size * GIB, accel, count, False))
    return sorted(machines, key=lambda m: m["name"])


def _machine(platform: str, name: str, architecture: str, vcpus: int | None, memory_mib: int | None,
             gpu_type: str | None, gpu_count: int | None, nested: bool) -> dict[str, Any]:
    return {"platform": platform, "name": name, "architecture": architecture, "vcpus": vcpus,
            "memoryMiB": memory_mib, "gpuType": gpu_type, "gpuCount": gpu_count, "nestedVirtualization": nested}


def render() -> str:
    import botocore
    import libcloud

    machines = aws_machines() + gcp_machines() + azure_machines()
    names = [(m["platform"], m["name"]) for m in machines]
    if len(set(names)) != len(names):
        raise SystemExit("duplicate machine names")
    header = {"generatedBy": "scripts/generate_catalog.py",
              "sources": {"botocore": botocore.__version__, "apache-libcloud": libcloud.__version__}}
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
