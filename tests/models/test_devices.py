"""The Dynamic Resource Allocation readers on their own (policies/model/devices.py, issue 78): what each reads of a
DeviceClass, a ResourceClaim, a ResourceClaimTemplate and a pod spec's resourceClaims in every version, what it makes
of a value not known yet or of a shape the API server refuses, and how a Pod's request takes its claims. The policies'
tests (tests/policies/test_workload_fits_pool.py) and the Go oracle (tests/oracle/test_devices_oracle.py) judge them
through whole stacks."""

from __future__ import annotations

from decimal import Decimal

from compute_guard.policies.model import devices
from compute_guard.policies.model.devices import Ask, Claim, DeviceClass, PodClaims, Request
from compute_guard.policies.model.pods import PodRequest, pod_request
from compute_guard.policies.model.values import SecretText, Undetermined, Unknown

UNKNOWN = Unknown(Undetermined("not known during preview"))
V1 = "kubernetes:resource.k8s.io/v1:"


def test_only_resource_k8s_io_objects_are_read():
    assert devices.parse("kubernetes:core/v1:ConfigMap", "urn", {}) is None
    assert devices.parse("kubernetes:resource.k8s.io/v1alpha3:ResourceClaim", "urn", {}) is None
    assert devices.parse("kubernetes:resource.k8s.io/v1:ResourceSlice", "urn", {}) is None


def test_a_device_class_its_name_and_selectors():
    selectors = [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]
    assert devices.parse(V1 + "DeviceClass", "urn:c", {"metadata": {"name": "gpu.nvidia.com"},
                                                      "spec": {"selectors": selectors}}) == \
        DeviceClass("urn:c", "gpu.nvidia.com", selectors)


def test_a_claim_and_a_template_in_each_version():
    exactly = {"deviceClassName": "gpu.nvidia.com", "count": 2}
    claim = devices.parse(V1 + "ResourceClaim", "urn:a", {"metadata": {"name": "a", "namespace": "ml"},
                                                          "spec": {"devices": {"requests": [
                                                              {"name": "r", "exactly": exactly}]}}})
    assert claim == Claim("urn:a", "ResourceClaim", "a", "ml", (Request("r", (Ask("gpu.nvidia.com", 2),)),))
    template = devices.parse("kubernetes:resource.k8s.io/v1beta2:ResourceClaimTemplate", "urn:t", {
        "metadata": {"name": "t"}, "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": exactly}]}}}})
    assert template == Claim("urn:t", "ResourceClaimTemplate", "t", None, (Request("r", (Ask("gpu.nvidia.com", 2),)),))
    flat = devices.parse("kubernetes:resource.k8s.io/v1beta1:ResourceClaimTemplate", "urn:f", {
        "metadata": {"name": "f"}, "spec": {"spec": {"devices": {"requests": [{"name": "r", **exactly}]}}}})
    assert isinstance(flat, Claim) and flat.requests == (Request("r", (Ask("gpu.nvidia.com", 2),)),)


def _asks(*requests: object, version: str = "v1") -> object:
    return devices._requests(list(requests), version)


def test_a_requests_count_mode_and_selectors():
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x"}}) == (Request("r", (Ask("x", 1),)),)  # count 1
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "count": None}}) == (Request("r", (Ask("x", 1),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "count": 3.0}}) == (Request("r", (Ask("x", 3),)),)
    assert _asks({"exactly": {"deviceClassName": "x", "allocationMode": "All", "count": 3}}) == \
        (Request("?", (Ask("x", None),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "allocationMode": UNKNOWN}}) == \
        (Request("r", (Ask("x", UNKNOWN),)),)
    for refused in (True, 1.5, "2"):  # counts the API server refuses: nothing is counted
        assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "count": refused}}) == \
            (Request("r", (Ask("x", 0),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": 7}}) == (Request("r", (Ask(None, 1),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": ["gpu.nvidia.com"]}}) == (Request("r", (Ask(None, 1),)),)
    # selectors: not decided where the class is not the driver's, or some expression is not text, not known or secret
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "selectors": [{"cel": {}}]}}) == \
        (Request("r", (Ask("x", 1, None, selected=None),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "selectors": UNKNOWN}}) == \
        (Request("r", (Ask("x", 1, None, selected=None),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "selectors": []}}) == (Request("r", (Ask("x", 1),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "selectors": [{"cel": {"expression": "true"}}]}}) \
        == (Request("r", (Ask("x", 1, ("true",), selected=None),)),)
    gpu = "device.attributes['gpu.nvidia.com'].type == 'gpu'"
    secret = SecretText(gpu)
    for selectors, selected in (([gpu], True), ([gpu, "device.attributes['gpu.nvidia.com'].type == 'mig'"], False),
                                ([gpu, "device.attributes['gpu.nvidia.com'].productName == 'x'"], None)):
        asked = [{"cel": {"expression": expression}} for expression in selectors]
        assert _asks({"name": "r", "exactly": {"deviceClassName": "gpu.nvidia.com", "selectors": asked}}) == \
            (Request("r", (Ask("gpu.nvidia.com", 1, tuple(selectors), selected=selected),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": "gpu.nvidia.com", "selectors": [
        {"cel": {"expression": gpu}}, {"cel": {"expression": secret}}]}}) == \
        (Request("r", (Ask("gpu.nvidia.com", 1, None, selected=None),)),)
    assert _asks({"name": "r"}) == (Request("r", (Ask(None, 0),)),)  # neither exactly nor firstAvailable


def test_first_available_is_each_of_its_subrequests():
    first = {"name": "r", "firstAvailable": [{"deviceClassName": "a", "count": 2}, "bad", {"deviceClassName": "b"}]}
    assert _asks(first) == (Request("r", (Ask("a", 2), Ask("b", 1)), True),)
    assert _asks(first, {"name": "x", "exactly": {"deviceClassName": "c"}}) == (
        Request("r", (Ask("a", 2), Ask("b", 1)), True), Request("x", (Ask("c", 1),)))  # (the requests after it too)
    assert _asks({"name": "r", "firstAvailable": [], "exactly": {"deviceClassName": "x"}}) == \
        (Request("r", (Ask("x", 1),)),)


def test_what_is_not_known_yet_makes_the_requests_not_known():
    assert devices._requests(UNKNOWN, "v1") is UNKNOWN
    assert _asks({"name": "r", "exactly": UNKNOWN}) == (Request("r", (Ask(UNKNOWN, UNKNOWN),)),)
    assert _asks({"name": "r", "firstAvailable": UNKNOWN}) is UNKNOWN
    assert _asks({"name": "a", "exactly": {"deviceClassName": "x"}}, UNKNOWN) is UNKNOWN
    assert _asks("not a request", {"name": "a", "exactly": {"deviceClassName": "x"}}) == (Request("a", (Ask("x", 1),)),)
    assert devices._requests("not a list", "v1") == ()


def test_a_pod_specs_claims():
    spec = {"resourceClaims": [{"name": "a", "resourceClaimTemplateName": "t"}, {"name": "b", "resourceClaimName": "c"},
                               "bad"]}
    assert devices.claim_refs(spec) == ((True, "t"), (False, "c"))
    assert devices.claim_refs({}) is None and devices.claim_refs({"resourceClaims": []}) is None
    assert devices.claim_refs(UNKNOWN) is UNKNOWN
    assert devices.claim_refs({"resourceClaims": UNKNOWN}) is UNKNOWN
    assert devices.claim_refs({"resourceClaims": [UNKNOWN]}) is UNKNOWN
    assert devices.claim_refs({"resourceClaims": [{"name": "a"}]}) == ((False, None),)


def test_a_stacks_class_counts_only_when_it_selects_as_the_drivers():
    same = [{"cel": {"expression": 'device.driver == "gpu.nvidia.com"  &&  device.attributes["gpu.nvidia.com"].type'
                                   ' == "gpu"'}}]
    assert devices._selects_as_driver(same, "gpu.nvidia.com")
    assert not devices._selects_as_driver(same, "mig.nvidia.com")
    assert not devices._selects_as_driver(same * 2, "gpu.nvidia.com")
    tight = [{"cel": {"expression": "device.driver=='gpu.nvidia.com'&&device.attributes['gpu.nvidia.com'].type=='gpu'"}}]
    assert devices._selects_as_driver(tight, "gpu.nvidia.com")
    assert not devices._selects_as_driver([{"cel": {"expression": UNKNOWN}}], "gpu.nvidia.com")
    assert not devices._selects_as_driver(None, "gpu.nvidia.com")


def test_every_device_beside_another_of_its_class_is_impossible():
    every, one = Ask("gpu.nvidia.com", None), Ask("gpu.nvidia.com", 1)
    narrowed = Ask("gpu.nvidia.com", 1, ("x",), selected=None)
    fix = "ask a count instead of All, or narrow the requests by selectors to devices apart"
    assert devices._impossible([("gpu.nvidia.com", "a", every), ("gpu.nvidia.com", "b", one)]) == (
        "a asks every gpu.nvidia.com device of its node (allocationMode All) and b asks another, and a node's devices "
        "are allocated once each", fix)
    assert devices._impossible([("gpu.nvidia.com", "a", one), ("gpu.nvidia.com", "b", every)]) == (
        "b asks every gpu.nvidia.com device of its node (allocationMode All) and a asks another, and a node's devices "
        "are allocated once each", fix)
    assert devices._impossible([("gpu.nvidia.com", "a", every), ("gpu.nvidia.com", "b", narrowed)]) is None
    assert devices._impossible([("gpu.nvidia.com", "a", Ask("gpu.nvidia.com", None, ("x",), selected=None)),
                                ("gpu.nvidia.com", "b", one)]) is None
    # selectors every device of the class matches narrow nothing
    assert devices._impossible([("gpu.nvidia.com", "a", Ask("gpu.nvidia.com", None, ("true",))),
                                ("gpu.nvidia.com", "b", Ask("gpu.nvidia.com", 1, ("true",)))]) is not None
    assert devices._impossible([("gpu.nvidia.com", "a", every), ("mig.nvidia.com", "b", Ask("mig.nvidia.com", 1))]) \
        is None
    assert devices._impossible([("gpu.nvidia.com", "a", every)]) is None


def test_a_pods_request_takes_its_claims():
    request = pod_request({"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}, "spec")
    taken = devices.with_claims(request, PodClaims({"gpu.nvidia.com": Decimal(2)}))
    assert taken.get("gpu.nvidia.com") == 2 and taken.get("mig.nvidia.com") == 0 and taken.get("cpu") == 1000
    assert devices.with_claims(request, PodClaims()) is request
    late = devices.with_claims(request, PodClaims(unknown=UNKNOWN))
    assert late.unknown == {"gpu.nvidia.com": UNKNOWN, "mig.nvidia.com": UNKNOWN}
    assert "gpu.nvidia.com" not in late.amounts and late.get("cpu") == 1000
    assert isinstance(late, PodRequest)


def _claim(*asks: Ask, first: bool = False) -> Claim:
    return Claim("urn:t", "ResourceClaimTemplate", "t", "ml",
                 tuple(Request(f"r{index}", (ask,), first) for index, ask in enumerate(asks)))


def test_what_one_claim_asks_of_each_counted_class():
    counted = devices._counted(_claim(Ask("gpu.nvidia.com", 2), Ask("gpu.nvidia.com", 1), Ask("mig.nvidia.com", 0),
                                      Ask("neuron.aws.com", 4)), {})
    assert counted.amounts == {"gpu.nvidia.com": 3, "mig.nvidia.com": 0}
    assert counted.total == 7  # (every exact request counts toward a claim's limit, whatever its class)
    assert counted.uncounted == ["request 'r3' of ResourceClaimTemplate 't' (DeviceClass 'neuron.aws.com')"]
    assert counted.late is None and counted.unchecked == []
    assert devices._counted(_claim(Ask(None, 1)), {}).uncounted == [
        "request 'r0' of ResourceClaimTemplate 't' (no DeviceClass)"]
    every = devices._counted(_claim(Ask("gpu.nvidia.com", None)), {})
    assert every.amounts == {"gpu.nvidia.com": 1} and every.total == 0 and len(every.unchecked) == 1
    # a class of the stack that selects otherwise than the driver's is not counted
    assert devices._counted(_claim(Ask("gpu.nvidia.com", 1)), {"gpu.nvidia.com": False}).amounts == {}
    # what is not counted does not stop the requests after it: another class, adminAccess, a firstAvailable list
    for skipped in (Request("r0", (Ask("neuron.aws.com", 1),)), Request("r0", (Ask("gpu.nvidia.com", 1, admin=True),)),
                    Request("r0", (Ask("gpu.nvidia.com", 1), Ask("mig.nvidia.com", 1)), True)):
        after = devices._counted(Claim("urn:t", "ResourceClaimTemplate", "t", "ml",
                                       (skipped, Request("r1", (Ask("gpu.nvidia.com", 2),)))), {})
        assert after.amounts == {"gpu.nvidia.com": 2} and len(after.uncounted) == 1, skipped



def test_a_first_available_list_of_one_counted_class_takes_its_fewest():
    """The allocator takes the first subrequest it can meet: a Pod takes at least the fewest devices of those whose
    selectors select some (All: at least one); a list of several classes, of a class not counted, or with adminAccess
    is not counted; one none of whose subrequests selects a device never is met."""
    def first(*asks: Ask, classes: dict | None = None) -> devices._Counted:
        return devices._counted(Claim("urn:t", "ResourceClaimTemplate", "t", "ml", (Request("r", asks, True),)),
                                classes or {})

    two, one, every = Ask("gpu.nvidia.com", 2), Ask("gpu.nvidia.com", 1), Ask("gpu.nvidia.com", None)
    counted = first(two, one)
    assert (counted.amounts, counted.total, counted.uncounted, counted.unchecked, counted.never) == (
        {"gpu.nvidia.com": 1}, 1, [], [], [])
    assert first(Ask("gpu.nvidia.com", 3), two).amounts == {"gpu.nvidia.com": 2}
    counted = first(two, every)
    assert (counted.amounts, counted.total) == ({"gpu.nvidia.com": 1}, 0)
    assert counted.unchecked == ["how many devices request 'r' of ResourceClaimTemplate 't' takes (a subrequest of "
                                 "allocationMode All)"]
    # a subrequest no device matches is not taken; one not decided is said
    never = Ask("gpu.nvidia.com", 1, ("x",), selected=False)
    assert first(never, two).amounts == {"gpu.nvidia.com": 2}
    assert first(never).never == [("request 'r' of ResourceClaimTemplate 't'", (never,))]
    assert first(never).amounts == {}
    counted = first(Ask("gpu.nvidia.com", 1, ("x",), selected=None), two)
    assert counted.amounts == {"gpu.nvidia.com": 1} and counted.unchecked == [
        "the CEL selectors of the subrequests of request 'r' of ResourceClaimTemplate 't'"]
    for uncounted in (first(two, Ask("mig.nvidia.com", 1)), first(Ask("neuron.aws.com", 1)),
                      first(two, Ask("gpu.nvidia.com", 1, admin=True)), first(two, classes={"gpu.nvidia.com": False}),
                      first()):
        assert (uncounted.amounts, uncounted.uncounted) == (
            {}, ["request 'r' of ResourceClaimTemplate 't' (firstAvailable)"])
    # beside an exact request of the class: both counted, toward the class and the claim's limit
    both = devices._counted(Claim("urn:t", "ResourceClaimTemplate", "t", "ml", (
        Request("a", (Ask("gpu.nvidia.com", 2),)), Request("r", (Ask("gpu.nvidia.com", 3), one), True))), {})
    assert (both.amounts, both.total) == ({"gpu.nvidia.com": 3}, 3)
    late = first(two, Ask("gpu.nvidia.com", UNKNOWN))
    assert late.late is UNKNOWN and late.amounts == {}


def test_a_claim_not_known_yet_is_not_counted():
    assert devices._counted(_claim(Ask("gpu.nvidia.com", UNKNOWN)), {}).late is UNKNOWN
    assert devices._counted(_claim(Ask(UNKNOWN, 1)), {}).late is UNKNOWN
    late = Claim("urn:t", "ResourceClaimTemplate", "t", "ml", UNKNOWN)
    assert devices._counted(late, {}).late is UNKNOWN


def test_admin_access_is_not_counted_and_constraints_are_said():
    """adminAccess: the devices may be allocated to other claims too, so two requests of one GPU, one of them with
    admin access, may share a node's one GPU; matchAttribute constraints narrow what is allocated (said, not checked)."""
    shared = devices._counted(_claim(Ask("gpu.nvidia.com", 1), Ask("gpu.nvidia.com", 1, admin=True)), {})
    assert shared.amounts == {"gpu.nvidia.com": 1} and shared.total == 2
    assert shared.uncounted == ["request 'r1' of ResourceClaimTemplate 't' (adminAccess: devices other claims may "
                                "hold too)"]
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "adminAccess": True}}) == \
        (Request("r", (Ask("x", 1, admin=True),)),)
    assert _asks({"name": "r", "exactly": {"deviceClassName": "x", "adminAccess": UNKNOWN}}) == \
        (Request("r", (Ask("x", 1, admin=True),)),)
    alike = Claim("urn:t", "ResourceClaimTemplate", "t", "ml", (Request("r0", (Ask("gpu.nvidia.com", 2),)),), True)
    assert devices._counted(alike, {}).unchecked == ["the constraints of ResourceClaimTemplate 't'"]
    parsed = devices.parse(V1 + "ResourceClaim", "urn:a", {"metadata": {"name": "a"}, "spec": {"devices": {
        "requests": [], "constraints": [{"requests": ["a", "b"], "matchAttribute": "gpu.nvidia.com/productName"}]}}})
    assert isinstance(parsed, Claim) and parsed.constraints
    assert not devices.parse(V1 + "ResourceClaim", "urn:a", {"spec": {"devices": {"constraints": []}}}).constraints


def test_a_constraint_over_what_a_nodes_devices_share_narrows_nothing():
    """A matchAttribute over what every GPU of a cloud machine publishes alike (its model, brand, architecture, compute
    capability, driver versions; a MIG instance its GPU's: mig.go's CommonAttributesMig; the type within one class)
    holds for any devices of one node: not said. Over what differs per device (uuid, the PCIe root), another domain,
    a distinctAttribute, a request it cannot read or of a class the pack does not count, or not known yet: said."""
    gpu = {"name": "a", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}}
    mig = {"name": "m", "exactly": {"deviceClassName": "mig.nvidia.com"}}
    other = {"name": "n", "exactly": {"deviceClassName": "neuron.aws.com"}}
    first = {"name": "f", "firstAvailable": [{"name": "s", "deviceClassName": "gpu.nvidia.com"}]}

    def narrows(constraints: object, *requests: dict) -> bool:
        claim = devices.parse(V1 + "ResourceClaim", "urn:a", {"metadata": {"name": "a"}, "spec": {"devices": {
            "requests": list(requests) or [gpu, {**gpu, "name": "b"}], "constraints": constraints}}})
        assert isinstance(claim, Claim)
        return claim.constraints

    for attribute in sorted(devices.ALIKE):
        assert not narrows([{"matchAttribute": f"gpu.nvidia.com/{attribute}"}]), attribute
        assert not narrows([{"requests": ["a", "b"], "matchAttribute": f"gpu.nvidia.com/{attribute}"}]), attribute
        assert not narrows([{"requests": ["m"], "matchAttribute": f"gpu.nvidia.com/{attribute}"}], gpu, mig, other)
        # across the two classes, all but the type (a GPU's is gpu, a MIG instance's mig)
        assert narrows([{"matchAttribute": f"gpu.nvidia.com/{attribute}"}], gpu, mig) == (attribute == "type")
    assert devices.ALIKE == {"type", "productName", "brand", "architecture", "cudaComputeCapability",
                             "driverVersion", "cudaDriverVersion"}
    for attribute in ("gpu.nvidia.com/uuid", "gpu.nvidia.com/parentUUID", "gpu.nvidia.com/profile",
                      "resource.kubernetes.io/pcieRoot", "example.com/productName", "productName",
                      SecretText("gpu.nvidia.com/productName"), UNKNOWN, None, 3):
        assert narrows([{"matchAttribute": attribute}]), attribute
    assert narrows([{"distinctAttribute": "gpu.nvidia.com/uuid"}])
    assert narrows([{"matchAttribute": "gpu.nvidia.com/productName", "distinctAttribute": "gpu.nvidia.com/uuid"}])
    assert narrows(UNKNOWN) and narrows([UNKNOWN]) and narrows(["x"])
    for names in (["a", "z"], ["f"], ["f/s"], "a", [SecretText("a")], [UNKNOWN], ["n"]):
        assert narrows([{"requests": names, "matchAttribute": "gpu.nvidia.com/productName"}], gpu, first, other), names
    assert narrows([{"matchAttribute": "gpu.nvidia.com/productName"}], gpu, other)
    assert narrows([{"requests": [], "matchAttribute": "gpu.nvidia.com/productName"}], gpu, other)  # (every request)
    assert not narrows([{"requests": [], "matchAttribute": "gpu.nvidia.com/productName"}], gpu, mig)
    assert narrows([{"matchAttribute": "gpu.nvidia.com/productName"}], gpu, first)
    # one that narrows beside one that does not; the requests not known yet
    assert narrows([{"matchAttribute": "gpu.nvidia.com/productName"}, {"matchAttribute": "gpu.nvidia.com/uuid"}])
    claim = devices.parse(V1 + "ResourceClaim", "urn:a", {"spec": {"devices": {
        "requests": UNKNOWN, "constraints": [{"matchAttribute": "gpu.nvidia.com/productName"}]}}})
    assert isinstance(claim, Claim) and claim.constraints
    assert not narrows([]) and not narrows(None)
