"""compute-guard: the rule engine and the policies of the pack.

``ALL`` lists the policy objects in SPEC order; ``__main__.py`` only assembles them into a pack.
"""

from .pack import ALL

PACK_NAME = "compute-guard"
PACK_DESCRIPTION = ("Rejects ComputeCluster compute pools and the Kubernetes workloads placed on them before "
                    "they are deployed: malformed pools, requirements Kubernetes cannot enforce, mixed CPU "
                    "architectures, unresolvable placement and Pods not pinned to their pool's architecture.")

__all__ = ["ALL", "PACK_DESCRIPTION", "PACK_NAME"]
