"""compute-guard: the ComputeCluster component, the test kit and the policies of the pack.

    from compute_guard.component import ComputeCluster, ComputeClusterArgs   # in Pulumi programs
    from compute_guard.testkit import evaluate                               # in their tests
    from compute_guard.policies import ALL, policy_pack                      # in an organisation's pack

The installed distribution carries the three inside this package. In a checkout of the repository
the policies stay at its top level, where the policy pack's layout wants them (PulumiPolicy.yaml,
__main__.py, policies/), and this package reaches them there.
"""

from pathlib import Path as _Path

if not (_Path(__file__).resolve().parent / "policies").is_dir():
    __path__.append(str(_Path(__file__).resolve().parent.parent))  # compute_guard.policies -> ../policies
