"""Address arithmetic (SPEC 20) against the platforms' published tables, written out here.

GKE (cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr, "CIDR range per node"): a node's range is the
smallest block holding twice its maximum Pods: 8 Pods a /28, 9-16 a /27, 17-32 a /26, 33-64 a /25, 65-110 a /24.
"""

import pytest

from compute_guard.policies.model.addresses import block, cidr_size, space_of
from compute_guard.policies.model.values import SecretText, Unknown

GKE_TABLE = [(8, 28), (9, 27), (16, 27), (17, 26), (32, 26), (33, 25), (64, 25), (65, 24), (110, 24)]


@pytest.mark.parametrize(("max_pods", "prefix"), GKE_TABLE)
def test_a_gke_nodes_block_is_the_published_one(max_pods, prefix):
    assert block(2 * max_pods) == 2 ** (32 - prefix)


@pytest.mark.parametrize(("cidr", "size"), [("10.0.0.0/24", 256), ("/14", 262144), ("10.0.1.7/28", 16),
                                            ("0.0.0.0/0", 2**32), ("/32", 1), ("10.0.0.0/33", None), ("/x", None),
                                            ("fd00::/64", None), ("10.0.0.0", None), (24, None), (None, None)])
def test_a_cidrs_addresses(cidr, size):
    assert cidr_size(cidr) == size


def test_a_space_not_known_or_secret_is_said_not_sized():
    assert isinstance(space_of("k", "subnet 'a'", Unknown(None)), Unknown)
    secret = space_of("k", "subnet 'a'", SecretText("10.0.0.0/24"))
    assert isinstance(secret, Unknown) and "10.0.0.0" not in str(secret.error)
    found = space_of("k", "subnet 'a'", "10.0.0.0/24", 5, "AWS")
    assert (found.size, found.usable, found.shown()) == (256, 251, "256 - 5 reserved by AWS = 251 addresses")
    assert space_of("k", "subnet 'a'", "10.0.0.0/29", 5, "AWS").usable == 3
