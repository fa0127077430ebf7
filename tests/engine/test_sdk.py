"""policies/wire.py reads props exactly as the SDK's proxies do, on any document."""

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import json_format, struct_pb2
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi_policy import deserialize
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UNKNOWN_OBJECT_VALUE, UNKNOWN_STRING_VALUE, UnknownValueError

from policies import wire

SECRET = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
leaves = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5),
                   st.sampled_from([UNKNOWN_STRING_VALUE, UNKNOWN_NUMBER_VALUE, UNKNOWN_OBJECT_VALUE]))
documents = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4),
    inner.map(lambda v: dict(SECRET, value=v))), max_leaves=25)


def sdk_props(struct: struct_pb2.Struct) -> Any:
    return wire._sdk_proxy(deserialize.deserialize_properties(json_format.MessageToDict(struct)))


def read(container: Any, key: Any) -> tuple[str, Any]:
    try:
        return "value", container[key]
    except UnknownValueError as error:
        return "unknown", error.message


def assert_same(sdk: Any, lazy: Any) -> None:
    if isinstance(sdk, Mapping):
        assert isinstance(lazy, Mapping) and not isinstance(lazy, dict)
        assert list(sdk) == list(lazy) and len(sdk) == len(lazy)
        for key in sdk:
            (kind, a), (other, b) = read(sdk, key), read(lazy, key)
            assert kind == other
            assert_same(a, b) if kind == "value" else None
            if kind == "unknown":
                assert a == b  # same message, same path
    elif isinstance(sdk, Sequence) and not isinstance(sdk, str):
        assert isinstance(lazy, Sequence) and not isinstance(lazy, str) and len(sdk) == len(lazy)
        for index in range(len(sdk)):
            (kind, a), (other, b) = read(sdk, index), read(lazy, index)
            assert kind == other and (a == b if kind == "unknown" else True)
            if kind == "value":
                assert_same(a, b)
    else:
        # the same value; where the program marked it secret, a subclass that never prints it
        assert isinstance(lazy, type(sdk)) and sdk == lazy
        if type(lazy) is not type(sdk):
            assert f"{lazy}" == "[secret]" and repr(lazy) == "[secret]"


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=4), documents, max_size=5))
def test_lazy_props_read_like_the_sdk_proxies(document):
    struct = struct_pb2.Struct()
    struct.update(document)
    assert_same(sdk_props(struct), wire.StructProps(struct))


def test_in_and_get_raise_on_unknowns_like_the_sdk():
    struct = struct_pb2.Struct()
    struct.update({"a": UNKNOWN_STRING_VALUE, "b": 1})
    for props in (sdk_props(struct), wire.StructProps(struct)):
        for probe in (lambda p: "a" in p, lambda p: p.get("a"), lambda p: list(p.items())):
            try:
                probe(props)
                raised = False
            except UnknownValueError:
                raised = True
            assert raised
        assert "b" in props and "zzz" not in props and props.get("zzz") is None


def test_secrets_are_marked_and_plain_values_are_not():
    struct = struct_pb2.Struct()
    struct.update({"s": dict(SECRET, value="hunter2"), "n": dict(SECRET, value=7), "p": "plain", "b": dict(SECRET, value=True)})
    props = wire.StructProps(struct)
    assert props["s"] == "hunter2" and f"{props['s']}" == "[secret]" and f"x{props['n']}x" == "x[secret]x"
    assert props["n"] == 7 and props["n"] + 1 == 8
    assert f"{props['p']}" == "plain" and props["b"] is True


def test_config_copies_to_a_plain_dict():
    struct = struct_pb2.Struct()
    struct.update({"platform": "aws", "n": {"x": [1, 2]}})
    assert wire.StructProps(struct).copy() == {"platform": "aws", "n": {"x": [1.0, 2.0]}}


def test_install_is_idempotent_and_only_for_the_pinned_sdk():
    assert wire.install() is True
    assert wire.install() is True
    assert wire.SUPPORTED_SDK == __import__("pulumi_policy.version", fromlist=["VERSION"]).VERSION


def test_an_advisory_finding_fails_closed_without_the_advisory_channel():
    """Without the shim (an SDK the pack does not know), report functions have no ``advisory``
    twin: the finding is reported at the policy's own level instead of being dropped."""
    from policies.findings import Violation, report

    plain_calls: list[tuple[str, str | None]] = []
    report([Violation("hidden", "urn:x", advisory=True)], lambda message, urn=None: plain_calls.append((message, urn)))
    assert plain_calls == [("hidden", "urn:x")]

    def channel(message: str, urn: str | None = None) -> None:
        calls.append(("policy level", message))

    calls: list[tuple[str, str]] = []
    channel.advisory = lambda message, urn=None: calls.append(("advisory", message))  # type: ignore[attr-defined]
    report([Violation("shown", "urn:x", advisory=True), Violation("wrong", "urn:y")], channel)
    assert calls == [("advisory", "shown"), ("policy level", "wrong")]
