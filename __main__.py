"""The compute-guard policy pack: nothing but assembling the policies."""

import gc

from pulumi_policy import EnforcementLevel, PolicyPack

from policies import ALL, PACK_DESCRIPTION, PACK_NAME

# The SDK deserializes every resource once per policy. With CPython's default thresholds the
# collector rescans those long-lived objects again and again, which makes AnalyzeStack quadratic
# on large stacks (bench/benchmark.py). They hold no cycles worth collecting early.
gc.freeze()
gc.set_threshold(100_000, 50, 1_000)

PolicyPack(
    name=PACK_NAME,
    policies=ALL,
    enforcement_level=EnforcementLevel.MANDATORY,
    description=PACK_DESCRIPTION,
)
