"""The stack as typed facts, read once: every pool as the node it will run, every workload as the Pods it
will be, where each lands, and what each pool holds. Every policy, the remediation and the report read these;
none reads props.

    props -> values -> cluster (pools), workloads (Pods) -> pools (machine, architecture) -> placement -> loads
"""
