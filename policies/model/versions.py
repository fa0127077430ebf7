"""The Kubernetes versions a stack declares (SPEC 19): its clusters' control planes and its pools' nodes, as each
source reads them (``KubeCluster.version``, ``Pool.version``), and the minor versions they name.

A version is written as its platform takes it: EKS ``1.31``, GKE ``1.31.1-gke.1146000`` or the alias ``1.31``, AKS
``1.31.2`` or ``1.31``. Only its major and minor matter here: what the skew policy and the API removals are stated
in. A value that names no release (GKE's ``latest`` or ``-``) is not a version the pack can judge; one not known yet
(an output during preview) neither, and the rules that need it say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .values import Unknown, derived, is_secret

_MINOR = re.compile(r"v?(\d+)\.(\d+)(?:$|[.+-])")


@dataclass(frozen=True)
class Version:
    """A Kubernetes version as an input sets it: the input's name (for messages and fixes) and its value (None: not
    set, so the platform's default)."""

    field: str  # version, minMasterVersion, kubernetesVersion, orchestratorVersion, nodeVersion
    value: Any = None  # str (maybe secret) | Unknown | None
    # the platform may run a later minor than it says: GKE's minMasterVersion is a minimum GKE upgrades past, an AKS
    # cluster on the stable or rapid upgrade channel is moved to later minors
    least: bool = False

    @property
    def minor(self) -> tuple[int, int] | None:
        """(major, minor) it names, or None when it names no release or is not known."""
        return minor_of(self.value)

    @property
    def unknown(self) -> Unknown | None:
        return self.value if isinstance(self.value, Unknown) else None

    def shown(self) -> str:
        """As messages show it: the minor, then the input as written (a secret one, and its minor, never)."""
        found = self.minor
        if is_secret(self.value):
            return f"{self.value} (its {self.field}, a secret)"
        if found is None:
            return f"{self.field} {self.value!r}"
        release = f"{found[0]}.{found[1]}"
        return release if self.value == release else f"{release} ({self.field} '{self.value}')"


def minor_of(value: Any) -> tuple[int, int] | None:
    """The (major, minor) a version string names ("1.31", "v1.31.2", "1.31.1-gke.1146000"); None otherwise."""
    if not isinstance(value, str):
        return None
    found = _MINOR.match(value.strip())
    return (int(found.group(1)), int(found.group(2))) if found else None


def release(minor: tuple[int, int], *sources: Any) -> str:
    """A release as messages name it ("1.31"): secret when a version it was computed from (``sources``) is."""
    return derived(f"{minor[0]}.{minor[1]}", *sources)


__all__ = ["Version", "minor_of", "release"]
