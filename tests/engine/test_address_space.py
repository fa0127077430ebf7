"""Address space (SPEC 20, pool-address-space), through the engine's door: the engine-started pack judges each
platform's rule at both sides of its boundary. Each scenario's in-process twin, which mutation testing sees, is in
tests/policies/test_pool_address_space.py under the same shape; the arithmetic is worked out there.

* AKS, Azure CNI: a /24 holds floor(251 / 31) = 8 nodes of maxPods 30: maxCount 7 with AKS's default surge of one
  passes, 8 is refused (the engine scenario of tests/engine/test_engine_protocol.py is the refused side).
* GKE: a /22 Pod range holds four /24 node blocks of 110 Pods: 4 nodes pass, 5 are refused.
* EKS: a /26 holds floor(59 / 10) = 5 m5.large nodes: 5 pass, 6 are refused; with prefix delegation floor(59 / 17) = 3.
"""

from typing import Any

from builders import aks_on_subnet, eks_on_subnets, gke_on_range, subnet_pool
from test_engine_protocol import engine_run

POLICY = "pool-address-space"


def verdicts(result: Any) -> list[tuple[str, str]]:
    return sorted((found.policy, found.urn.rsplit("::", 1)[-1]) for found in result.violations)


def test_aks_azure_cni_at_both_sides():
    """Twin: test_azure_cni_node_subnet_one_node_short_and_enough."""
    assert engine_run([aks_on_subnet(subnet_pool(max_count=7))], "azure").violations == []


def test_gke_pod_range_at_both_sides():
    """Twin: test_a_gke_pool_takes_a_24_a_node_of_the_clusters_pod_range."""
    assert engine_run([gke_on_range(("apps", 4, None))], "gcp").violations == []
    assert verdicts(engine_run([gke_on_range(("apps", 5, None))], "gcp")) == [(POLICY, "apps")]


def test_eks_subnets_at_both_sides_with_and_without_prefix_delegation():
    """Twins: test_an_eks_node_group_takes_its_first_interfaces_addresses_a_node and
    test_prefix_delegation_takes_a_28_and_the_primary_address_and_warm_targets_are_said."""
    assert engine_run([eks_on_subnets(5)], "aws").violations == []
    assert verdicts(engine_run([eks_on_subnets(6)], "aws")) == [(POLICY, "nodes")]
    on = {"ENABLE_PREFIX_DELEGATION": "true"}
    assert engine_run([eks_on_subnets(3, cni=on)], "aws").violations == []
    assert verdicts(engine_run([eks_on_subnets(4, cni=on)], "aws")) == [(POLICY, "nodes")]
