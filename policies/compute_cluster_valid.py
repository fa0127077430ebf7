"""compute-cluster-valid: every ComputeCluster is well formed.

Every other ComputeCluster policy reads a model in which an invalid field is left out, so each
mistake is reported once, here, with the field path and the fix: unknown fields (with a
did-you-mean), ids, pools and their sizes, the scale policy, the machine profile, failure domains
and the container network. Reading the inputs and checking them are one pass
(policies/cluster.py): a value that cannot be read is exactly a value that is not well formed.
"""

from __future__ import annotations

from pulumi_policy import Severity

from .cluster import ParsedCluster
from .findings import Finding
from .templates import Context, Policy


def compute_cluster_valid(cluster: ParsedCluster) -> list[Finding]:
    """Everything reading the ComputeCluster's inputs found wrong, and every value it could not know yet."""
    return list(cluster.problems)


def _check(cluster: ParsedCluster, context: Context) -> list[Finding]:
    return compute_cluster_valid(cluster)


POLICY = Policy(
    name="compute-cluster-valid",
    subject="ComputeCluster",
    description="Every ComputeCluster is well formed: known fields, valid ids, pools, sizes, scale policy, "
                "machine profile, failure domains and container network.",
    severity=Severity.HIGH,
    remediation_steps="Fix the ComputeCluster field named in the message: remove or rename unknown fields, keep "
                      "0 <= minSize <= maxSize <= 10, make the scale policy contain the sizes, give cpu as cores "
                      "or millicores, use arm64 or x86_64, and give containerCidr a /24 for every machine.",
    check=_check,
)
