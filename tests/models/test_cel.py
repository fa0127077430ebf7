"""CEL selectors decided over what a device publishes alike (policies/model/cel.py, issue 78): a verdict only where
every value the selector reads is known, or the operators CEL defines decide it whatever the others are; has() true of
what the driver always publishes; anything the pack does not know to be published, cannot compile or run, not decided.
The Go oracle (tests/oracle/test_devices_oracle.py) holds the same verdicts to the allocator's CEL."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compute_guard.policies.model.cel import Device, selects
from compute_guard.policies.model.devices import PUBLISHED

GPU = PUBLISHED["gpu.nvidia.com"]
MIG = PUBLISHED["mig.nvidia.com"]
A = "device.attributes['gpu.nvidia.com']"
NAME = f"{A}.productName == 'NVIDIA A10G'"  # a value that differs per GPU: not known


@pytest.mark.parametrize(("expression", "verdict"), [
    ("device.driver == 'gpu.nvidia.com'", True),
    ("device.driver != 'gpu.nvidia.com'", False),
    (f"{A}.type == 'gpu'", True),
    (f"{A}.type == 'mig'", False),
    (f"{A}.type in ['gpu', 'mig']", True),
    (f"{A}.type.startsWith('g')", True),
    ("true", True),
    ("false", False),
    # a value not known: decided only where the other side decides (CEL's commutative && and ||, and ?:)
    (NAME, None),
    (f"!({NAME})", None),
    (f"{NAME} && {A}.type == 'mig'", False),
    (f"{A}.type == 'mig' && {NAME}", False),
    (f"{NAME} || {A}.type == 'gpu'", True),
    (f"{NAME} || {A}.type == 'mig'", None),
    (f"{NAME} && {A}.type == 'gpu'", None),
    (f"{A}.type == 'gpu' ? true : {NAME}", True),
    (f"{A}.type == 'gpu' ? {NAME} : true", None),
    (f"{A}.productName.startsWith('NVIDIA')", None),
    (f"{A}.productName.matches('A10')", None),
    (f"{A}.productName in ['a', 'b']", None),
    (f"[{A}.productName].exists(x, x == 'a')", None),
    (f"type({A}.productName) == string", None),
    (f"string({A}.productName) == 'x'", None),
    (f"size({A}.productName) > 0", None),
    (f"{A}.productName + 'x' == 'yx'", None),
    (f"'NVIDIA A10G' == {A}.productName", None),  # (the known value on the left: Python's reflected operators)
    (f"'x' != {A}.productName", None),
    (f"'x' < {A}.productName", None),
    (f"[{A}.productName] == ['a']", None),
    (f"{{'k': {A}.productName}} == {{'k': 'a'}}", None),
    (f"size([{A}.productName, 1]) == 2", True),  # (a list's size does not depend on what it holds)
    (f"{A}.cudaComputeCapability.isGreaterThan(semver('8.0.0'))", None),
    ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", None),
    ("device.capacity['gpu.nvidia.com'].memory >= 5", None),
    ("device.capacity['gpu.nvidia.com'].memory == null", None),  # (there, with a value not known: not null either)
    ("has(device.capacity['gpu.nvidia.com'].memory)", True),
    # published by every release: has() is true; published by some, or not at all: not decided
    (f"has({A}.productName)", True),
    (f"!has({A}.productName)", False),
    (f"has({A}.pcieBusID)", None),
    (f"has({A}.profile)", None),
    ("device.attributes['resource.kubernetes.io'].pcieRoot == 'x'", None),
    ("!has(device.allowMultipleAllocations)", None),
    ("has(device.driver)", True),
    (f"'type' in {A}", None),
    (f"size({A}) > 3", None),
    (f"{A}.exists(name, name == 'type')", None),
    (f"{A} == {{'type': 'gpu'}}", None),
    # what the library cannot compile or run, or not a bool
    ("device.driver ==", None),
    ("1 + ", None),
    (f"{A}.type.lowerAscii() == 'gpu'", None),
    (f"{A}.type", None),
    ("device.driver", None),
    ("1", None),
])
def test_a_selectors_verdict_on_a_gpu(expression: str, verdict: bool | None) -> None:
    assert selects((expression,), GPU) is verdict


def test_a_mig_instances_type_and_profile():
    assert selects((f"{A}.type == 'mig'",), MIG) is True
    assert selects((f"has({A}.profile) && has({A}.parentUUID)",), MIG) is True
    assert selects((f"{A}.profile == '1g.5gb'",), MIG) is None
    assert selects(("device.capacity['gpu.nvidia.com'].multiprocessors >= 14",), MIG) is None


def test_several_selectors_are_anded():
    gpu, mig = f"{A}.type == 'gpu'", f"{A}.type == 'mig'"
    assert selects((), GPU) is True
    assert selects((gpu, gpu), GPU) is True
    assert selects((gpu, NAME), GPU) is None
    assert selects((NAME, mig), GPU) is False  # false wherever it stands
    assert selects((mig, NAME), GPU) is False


def test_a_device_of_another_driver_is_its_own_domain():
    other = Device("example.com", (("model", "x"),), frozenset({"serial"}), frozenset())
    assert selects(("device.attributes['example.com'].model == 'x'",), other) is True
    assert selects((f"{A}.type == 'gpu'",), other) is None  # (a domain it is not known to publish)
    assert selects(("device.driver == 'gpu.nvidia.com'",), other) is False


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("device.atribus[']=!&|()?: gpunvidcm'\"0123456789<>+-*/,{}sizehas")),
               max_size=60))
def test_never_raises(expression: str) -> None:
    """Whatever a program writes: a verdict or none, never an exception (SPEC 4)."""
    assert selects((expression,), GPU) in (True, False, None)
