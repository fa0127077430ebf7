"""The probe pack: the engine starts it in its directory (python -m pulumi.policy), so probe.py imports as it is."""

from probe import PROBE

from compute_guard.policies import policy_pack

policy_pack("probe", [PROBE])
