"""The compute-guard policy pack: nothing but assembling the policies."""

import gc
import sys

from pulumi_policy import EnforcementLevel, PolicyPack

from policies import ALL, PACK_DESCRIPTION, PACK_NAME, PackState, sdk, sdk_policies

# Read each resource's props from the engine's protobuf on demand instead of materializing three
# copies of it per policy (policies/sdk.py; bench/benchmark.py measures the difference).
if not sdk.install():
    print(f"compute-guard: pulumi-policy {sdk.SDK_VERSION} is not the supported {sdk.SUPPORTED_SDK}: props are "
          "read through the SDK (slower), and advisory findings are reported at their policy's level",
          file=sys.stderr)

# Large stacks allocate many long-lived objects; with CPython's default thresholds the collector
# rescans them again and again, which made AnalyzeStack quadratic (bench/benchmark.py). They hold
# no cycles worth collecting early.
gc.freeze()
gc.set_threshold(100_000, 50, 1_000)

PolicyPack(
    name=PACK_NAME,
    policies=sdk_policies(ALL, PackState()),
    enforcement_level=EnforcementLevel.MANDATORY,
    description=PACK_DESCRIPTION,
)
