"""An organisation's own pack, composed with `choose`, in its own tests: the test kit runs exactly
the policies chosen, at the levels and with the settings preset, under what --policy-pack-config
still says. (tests/dist starts such a pack from a wheel, as the engine does.)"""

import pytest
from builders import AMD64, ARM64, arm_pool, cluster, deployment, placed, seed_cluster_args

from compute_guard.policies import choose
from compute_guard.testkit import evaluate

ACME = choose(["compute-cluster-valid", "cloud-machine-catalog", "compute-pools-single-architecture",
               "workload-node-architecture"],
              levels={"cloud-machine-catalog": "advisory", "compute-pools-single-architecture": "advisory"},
              settings={"cloud-machine-catalog": {"platform": "aws"}})


def levels(result):
    return sorted((v.policy, v.level) for v in result.violations)


def test_only_the_chosen_policies_at_their_preset_levels_and_settings():
    mixed = seed_cluster_args(capacity_groups=[seed_cluster_args().capacity_groups[0], arm_pool()])
    mixed.capacity_groups[0].instance_type = "m7i.larg"  # a typo the catalog catches, on AWS by the preset

    def program():
        cluster(mixed)()
        deployment("api", labels=placed(), node_selector=ARM64)()  # the apps pool needs amd64

    result = evaluate(program, pack=ACME)
    assert levels(result) == [("cloud-machine-catalog", "advisory"),
                              ("compute-pools-single-architecture", "advisory"),
                              ("workload-node-architecture", "mandatory")]
    # the rest of the pack is not there: no placement, no pin, no Kubernetes check
    assert {n.policy for n in result.not_applicable} <= {policy.name for policy in ACME}


def test_the_policy_pack_config_still_overrides_the_presets():
    def program():
        cluster()()
        deployment("api", labels=placed(), node_selector=AMD64)()

    broken = seed_cluster_args()
    broken.capacity_groups[0].instance_type = "m7i.larg"
    config = {"cloud-machine-catalog": {"enforcementLevel": "mandatory", "platform": "gcp"}}
    result = evaluate(lambda: cluster(broken)(), pack=ACME, policy_config=config)
    (violation,) = result.of("cloud-machine-catalog")
    assert violation.level == "mandatory" and "is not a machine type on GCP" in violation.finding
    assert evaluate(program, pack=ACME).violations == []


def test_policy_pack_hands_the_sdk_the_chosen_policies_at_their_levels(monkeypatch, capsys):
    """What policy_pack gives the SDK's PolicyPack, which serves the engine as soon as it is made."""
    from types import SimpleNamespace

    from pulumi_policy import EnforcementLevel

    import compute_guard.policies as pack_module

    made, tuned = [], []
    monkeypatch.setattr(pack_module, "PolicyPack", lambda **kwargs: made.append(kwargs) or "pack")
    monkeypatch.setattr(pack_module, "gc", SimpleNamespace(freeze=lambda: tuned.append("freeze"),
                                                           set_threshold=lambda *t: tuned.append(t)))
    assert pack_module.policy_pack("acme-compute", ACME, description="Acme's compute rules") == "pack"
    ((kwargs),) = made
    assert (kwargs["name"], kwargs["description"], kwargs["enforcement_level"]) == (
        "acme-compute", "Acme's compute rules", EnforcementLevel.MANDATORY)
    assert [(p.name, p.enforcement_level) for p in kwargs["policies"]] == [
        ("compute-cluster-valid", EnforcementLevel.MANDATORY), ("cloud-machine-catalog", EnforcementLevel.ADVISORY),
        ("compute-pools-single-architecture", EnforcementLevel.ADVISORY),
        ("workload-node-architecture", EnforcementLevel.MANDATORY),
        ("exemptions-in-force", EnforcementLevel.ADVISORY)]  # always there, last: exemptions never hide a finding
    assert tuned == ["freeze", (100_000, 50, 1_000)]
    assert capsys.readouterr().err == ""

    made.clear()
    monkeypatch.setattr(pack_module.sdk, "install", lambda: False)
    pack_module.policy_pack("acme-compute")
    assert [p.name for p in made[0]["policies"]] == [p.name for p in pack_module.ALL]
    assert made[0]["description"] == pack_module.PACK_DESCRIPTION
    assert capsys.readouterr().err.startswith(
        f"acme-compute: pulumi-policy {pack_module.sdk.SDK_VERSION} is not the supported "
        f"{pack_module.sdk.SUPPORTED_SDK}: props are read through the SDK (slower)")


def test_choose_makes_the_pack_it_is_asked_for():
    """choose itself, called here (ACME above is built at import, before anything can watch it)."""
    from compute_guard.policies import BY_NAME
    from compute_guard.testkit import Analyzer

    chosen = choose(["workload-pool-placement", "cloud-machine-catalog"],
                    levels={"workload-pool-placement": "advisory"},
                    settings={"cloud-machine-catalog": {"platform": "gcp"}, "workload-pool-placement": {}})
    assert [p.name for p in chosen] == ["workload-pool-placement", "cloud-machine-catalog"]
    info = {p.name: p.enforcementLevel for p in Analyzer(pack=chosen).info().policies}
    assert info == {"workload-pool-placement": 0, "cloud-machine-catalog": 1,  # advisory, mandatory
                    "exemptions-in-force": 0}  # added to every pack
    assert chosen[1].defaults == {"platform": "gcp"} and chosen[0].defaults == {}
    assert [p.name for p in choose()] == list(BY_NAME)
    assert choose(["cloud-machine-catalog"]) == [BY_NAME["cloud-machine-catalog"]]  # as it is, unless asked


@pytest.mark.parametrize("bad, message", [
    (dict(names=["no-such-policy"]), "no policy 'no-such-policy'; known: compute-cluster-valid, "),
    (dict(levels={"compute-cluster-valid": "loud"}), "'loud' is not a valid EnforcementLevel"),
    (dict(names=["compute-cluster-valid"], levels={"cloud-machine-catalog": "advisory"}),
     "no chosen policy 'cloud-machine-catalog'; known: compute-cluster-valid"),
    (dict(names=["compute-cluster-valid"], settings={"cloud-machine-catalog": {"platform": "aws"}}),
     "no chosen policy 'cloud-machine-catalog'; known: compute-cluster-valid"),
    (dict(settings={"cloud-machine-catalog": {"platfrom": "aws"}}),
     "no setting of cloud-machine-catalog 'platfrom'; known: newMachineFamilies, platform, exemptions"),
    (dict(settings={"compute-cluster-valid": {"platform": "aws"}}), "no setting of compute-cluster-valid 'platform'; "
                                                                     "known: exemptions"),
])
def test_choose_refuses_what_does_not_exist_saying_what_does(bad, message):
    with pytest.raises(ValueError) as raised:
        choose(**bad)
    assert str(raised.value).startswith(message)


def test_every_policy_declares_its_settings_to_the_engine_in_process():
    """The schemas the engine validates --policy-pack-config against, stack policies' included."""
    from compute_guard.policies import ALL
    from compute_guard.testkit import Analyzer
    from compute_guard.testkit.analyzer import ConfigError

    declared = {p.name: set(p.configSchema.properties) for p in Analyzer().info().policies}
    assert declared == {p.name: set(p.config_schema.properties) if p.config_schema else set() for p in ALL}
    assert declared["workload-pool-placement"] == {"helmReleases", "exemptions"}  # helmReleases: to say where it moved
    with pytest.raises(ConfigError, match="workload-pool-placement: 'loud' is not one of"):
        Analyzer({"workload-pool-placement": {"helmReleases": "loud"}})
    with pytest.raises(ConfigError, match="workload-pool-placement: 'enforce' is not one of"):
        Analyzer({"workload-pool-placement": {"helmReleases": "enforce"}})  # what 0.1.0 accepted
