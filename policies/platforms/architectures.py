"""CPU architecture names: the one table every other module reads.

Two vocabularies meet here. The seed's MachineProfile and the machine catalog say ``x86_64`` and ``arm64``
(seed C's ``Architecture``); Kubernetes' nodes carry ``kubernetes.io/arch`` with Go's GOARCH names
(kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-arch: "the Go runtime's GOARCH"),
so ``x86_64`` is ``amd64`` there.
"""

from __future__ import annotations

# The seed's architectures (MachineProfile.architecture) and the catalog's -> the node label's value.
NODE_ARCHITECTURE = {"x86_64": "amd64", "arm64": "arm64"}
MACHINE_ARCHITECTURES = tuple(NODE_ARCHITECTURE)
# The node label's value -> the seed's and the catalog's name.
MACHINE_ARCHITECTURE = {node: machine for machine, node in NODE_ARCHITECTURE.items()}

# Every value kubernetes.io/arch can have: Go's GOARCH values for the platforms Kubernetes builds for
# (kubernetes/kubernetes hack/lib/golang.sh, KUBE_SUPPORTED_NODE_PLATFORMS, and the GOARCH list of go tool dist).
KUBERNETES_ARCHITECTURES = frozenset({
    "amd64", "arm64", "arm", "386", "ppc64le", "s390x", "riscv64",
    "mips64le", "mips64", "mipsle", "mips", "loong64",
})

# Names people write for a Kubernetes architecture (uname -m, distribution and vendor names) -> the GOARCH name.
MISTAKES = {
    "x86_64": "amd64", "x86-64": "amd64", "x64": "amd64", "amd": "amd64", "intel": "amd64",
    "aarch64": "arm64", "arm64v8": "arm64", "armv8": "arm64", "armhf": "arm", "armv7": "arm",
    "armv7l": "arm", "i386": "386", "i686": "386", "x86": "386",
}
# Names people write for a seed architecture -> the seed's name (profile.architecture's did-you-mean).
MACHINE_MISTAKES = {"amd64": "x86_64", "x86-64": "x86_64", "aarch64": "arm64", "arm": "arm64"}


def node_label(architecture: str) -> str:
    """The kubernetes.io/arch value of nodes of a seed or catalog architecture (an unknown name as it is)."""
    return NODE_ARCHITECTURE.get(architecture, architecture)
