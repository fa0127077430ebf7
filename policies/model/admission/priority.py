"""The Priority admission plugin (SPEC 21): a Pod's ``priorityClassName`` must name a PriorityClass that exists, else
the API server refuses it; ``system-cluster-critical`` and ``system-node-critical`` exist in every cluster
(kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption). namespace-admits-workload words the refusal.
"""

from __future__ import annotations

import re

PRIORITY_CLASS = re.compile(r"^kubernetes:scheduling\.k8s\.io/v1(beta1|alpha1)?:PriorityClass$")
SYSTEM_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")
