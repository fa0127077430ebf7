"""compute-guard: the ComputeCluster component, the test kit and the policies of the pack.

    from compute_guard.component import ComputeCluster, ComputeClusterArgs   # in Pulumi programs
    from compute_guard.testkit import evaluate                               # in their tests
    from compute_guard.policies import ALL, policy_pack                      # in an organisation's pack

The component also serves programs in other Pulumi languages as a component provider
(``compute_guard.component.provider``; ``compute-guard provider DIR``, compute_guard/cli.py).

The installed distribution carries the three inside this package. In a checkout of the repository
the policies stay at its top level, where the policy pack's layout wants them (PulumiPolicy.yaml,
__main__.py, policies/), and ``compute_guard/policies`` is a link to them: one module name,
``compute_guard.policies``, in a checkout as installed (``import policies`` is refused).
"""
