"""The compute-guard policy pack: nothing but assembling the policies."""

from pulumi_policy import EnforcementLevel, PolicyPack

from policies import ALL, PACK_DESCRIPTION, PACK_NAME

PolicyPack(
    name=PACK_NAME,
    policies=ALL,
    enforcement_level=EnforcementLevel.MANDATORY,
    description=PACK_DESCRIPTION,
)
