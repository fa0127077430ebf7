"""The compute-guard policy pack: nothing but assembling the policies (policies/__init__.py, policy_pack)."""

from compute_guard.policies import PACK_NAME, policy_pack

policy_pack(PACK_NAME)
