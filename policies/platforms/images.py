"""The node images each platform stops running at a Kubernetes version (SPEC 23, policy 31 node-image-supported).

The facts live in ``data/node_images.json``, kept by hand: each row names the platform's documentation it comes from,
and tests/policies/test_node_image_supported.py holds every row to its source. The day each row was held to its source
(its own date, else the table's) is said in messages.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "node_images.json"


@dataclass(frozen=True)
class ImageEnd:
    """One image's last Kubernetes minor on one platform, the images that run later, why and where it is said."""

    platform: str
    image: str
    last: tuple[int, int]
    instead: tuple[str, ...]
    why: str
    source: str
    # every node takes the image made for its control plane's version (a Karpenter alias): a pool that sets no version
    # of its own cannot stay behind its cluster
    follows: bool = False
    held: str = ""  # the day the row was held to its source (YYYY-MM-DD)
    change: str = ""  # what changing a pool's image does, where it differs from its platform's (AKS's Linux OS SKUs)


@functools.cache
def _table() -> tuple[Mapping[tuple[str, str], ImageEnd], Mapping[str, str]]:
    document = json.loads(DATA.read_text())
    ends: dict[tuple[str, str], ImageEnd] = {}
    for row in document["rows"]:
        major, minor = (int(part) for part in row["last"].split("."))
        ends[(row["platform"], row["image"])] = ImageEnd(row["platform"], row["image"], (major, minor),
                                                         tuple(row["instead"]), row["why"], row["source"],
                                                         bool(row.get("follows", False)),
                                                         row.get("date", document["date"]), row.get("change", ""))
    return ends, dict(document["changes"])


def image_end(platform: str, image: str) -> ImageEnd | None:
    """The last version this platform runs this image at, where the table knows one (images by exact name: EKS's
    AMI types, a Karpenter alias's family, AKS's OS SKUs)."""
    return _table()[0].get((platform, image))


def runs_at(platform: str, image: str, version: tuple[int, int]) -> bool:
    """The platform runs the image at this version, as far as the table knows."""
    end = image_end(platform, image)
    return end is None or version <= end.last


def change(platform: str, field: str = "") -> str:
    """What changing a pool's image (the input ``field``) does on this platform, as a clause."""
    changes = _table()[1]
    return changes.get(f"{platform}:{field}", changes.get(platform, ""))


__all__ = ["ImageEnd", "change", "image_end", "runs_at"]
