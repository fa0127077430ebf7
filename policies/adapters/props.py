"""The pack's props, read straight from the engine's protobuf when a rule asks (the pack process's fast path).

For every policy the SDK turns each resource's protobuf ``Struct`` into a JSON dict, then into a
deserialized copy, then into a tree of unknown-checking proxies. A stack policy holds that for
every resource at once, so a 50,000-resource stack costs gigabytes and most of the time of a
preview (bench/benchmark.py), while the rules read a handful of fields.

:class:`StructProps` is a read-only Mapping over the ``Struct`` that builds children when they are
read, with the SDK's own semantics: unknown preview values raise the SDK's ``UnknownValueError``
with the same path; secrets read as their value; numbers are floats; assets and archives are built
by the SDK's own deserializer. tests/engine/test_sdk.py checks it against the SDK's proxies on
generated documents. A Remediate request's props (:class:`RemediationProps`) are deserialized the
SDK's way only when a policy at level remediate reads them. sdk.py installs these in place of the
SDK's own steps; the SDK's private names both modules rest on are read where they are used, behind
sdk.py's SUPPORTED_SDK.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi_policy import deserialize as sdk_deserialize
from pulumi_policy import policy as sdk_policy
from pulumi_policy import proxy as sdk_proxy
from pulumi_policy.proxy import UnknownValueError, _is_unknown

from ..model.values import secret, shared

_sdk_proxy = sdk_policy.unknown_checking_proxy  # the SDK's own, as it is before sdk.install replaces it

_SIG = sdk_deserialize.SPECIAL_SIG_KEY
_SECRET = sdk_deserialize.SPECIAL_SECRET_SIG


# The unknown values' sentinels, as the SDK's _is_unknown tests them (a set: one lookup per string read).
_UNKNOWNS = frozenset(value for value in (getattr(sdk_proxy, name) for name in dir(sdk_proxy)
                                          if name.startswith("UNKNOWN_")) if _is_unknown(value))


def _value(value: struct_pb2.Value, parent: tuple[str, ...], key: str) -> Any:
    """The value at ``key`` of the object at path ``parent``; the path ``(*parent, key)`` is made only for what
    carries it (an object, a list, an unknown), not for the strings and numbers most reads return."""
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        text = value.string_value
        if text in _UNKNOWNS:
            raise UnknownValueError(text, [*parent, key])
        # one string per value: a large stack keeps the same labels, selectors and namespaces of thousands of
        # workloads (an interned string is freed with its last reference)
        return sys.intern(text)
    if kind == "number_value":
        return value.number_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        struct = value.struct_value
        if _SIG in struct.fields:
            return _special(struct, (*parent, key))
        return StructProps(struct, _shared((*parent, key)))
    if kind == "list_value":
        return ListProps(value.list_value, _shared((*parent, key)))
    return None


_PATHS: dict[tuple[str, ...], tuple[str, ...]] = {}
_MOST_PATHS = 1 << 16  # a stack's props have a few thousand paths (spec.template.spec, ...); then made per object


def _shared(path: tuple[str, ...]) -> tuple[str, ...]:
    """One tuple per path, shared by every object at that path: a large stack keeps a few objects per workload (its
    pod template and spec) for as long as the stack policies run, each with its path (BENCHMARKS.md, memory)."""
    return shared(_PATHS, path, path, _MOST_PATHS)


def _special(struct: struct_pb2.Struct, path: tuple[str, ...]) -> Any:
    """Secrets read as their value; assets and archives as the SDK builds them."""
    signature = struct.fields[_SIG]
    if signature.WhichOneof("kind") == "string_value" and signature.string_value == _SECRET:
        if "value" not in struct.fields:
            raise AssertionError("Invalid secret encountered when unmarshaling resource property")
        return secret(_value(struct.fields["value"], path[:-1], path[-1] if path else ""))
    return sdk_deserialize._deserialize_property(json_format.MessageToDict(struct))


_ABSENT = object()


class StructProps(Mapping[str, Any]):
    """A resource's properties, read from the protobuf Struct as they are accessed.

    A large stack keeps a few of these per workload for as long as the stack policies run, so each holds only its
    message and its (shared) path: the message's map is asked for at each read, not kept (BENCHMARKS.md)."""

    __slots__ = ("_struct", "_path")

    def __init__(self, struct: struct_pb2.Struct, path: tuple[str, ...] = ()) -> None:
        self._struct = struct
        self._path = path

    def __getitem__(self, key: str) -> Any:
        fields = self._struct.fields
        if not isinstance(key, str) or key not in fields:
            raise KeyError(key)
        return _value(fields[key], self._path, key)

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]``, or ``default`` when absent, without raising and catching a KeyError (the rules
        read many optional fields that are absent)."""
        value = self._struct.fields.get(key) if isinstance(key, str) else None
        if value is None:
            return default
        return _value(value, self._path, key)

    def __contains__(self, key: object) -> bool:
        """Whether the key is there, like the SDK's proxy: reading its value (which raises when unknown)."""
        return self.get(key, _ABSENT) is not _ABSENT  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[str]:
        return iter(self._struct.fields)

    def __len__(self) -> int:
        return len(self._struct.fields)

    @property
    def source(self) -> struct_pb2.Struct:
        """The protobuf message these props read (the same object for every policy of a request)."""
        return self._struct

    def copy(self) -> dict[str, Any]:
        """A plain dict (the SDK copies policy config this way)."""
        return dict(sdk_deserialize.deserialize_properties(json_format.MessageToDict(self._struct)))


class ListProps(Sequence[Any]):
    __slots__ = ("_list", "_path")

    def __init__(self, values: struct_pb2.ListValue, path: tuple[str, ...]) -> None:
        self._list = values.values
        self._path = path

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not isinstance(index, int):
            raise TypeError("list indices must be integers")
        if index < 0:
            index += len(self._list)
        if not 0 <= index < len(self._list):
            raise IndexError(index)
        return _value(self._list[index], self._path, str(index))

    def __len__(self) -> int:
        return len(self._list)

    def __iter__(self) -> Iterator[Any]:
        """Each item in turn (Sequence's default asks for one index past the end and catches IndexError)."""
        path = self._path
        for index, value in enumerate(self._list):
            yield _value(value, path, str(index))


def _message_to_dict(message: Any, *args: Any, **kwargs: Any) -> Any:
    if isinstance(message, struct_pb2.Struct) and not args and not kwargs:
        return StructProps(message)
    return json_format.MessageToDict(message, *args, **kwargs)


def _deserialize_properties(props: Any, proxy_secrets: bool = False) -> Any:
    if isinstance(props, StructProps):
        return RemediationProps(props._struct) if proxy_secrets else props
    return sdk_deserialize.deserialize_properties(props, proxy_secrets)


class RemediationProps(Mapping[str, Any]):
    """A Remediate request's props, deserialized the SDK's way (secrets preserved) only when a
    policy at level remediate reads them. The engine sends every resource to Remediate before
    Analyze, and the SDK would deserialize each one whole even when no policy remediates."""

    __slots__ = ("_struct", "_target")

    def __init__(self, struct: struct_pb2.Struct) -> None:
        self._struct = struct
        self._target: Any = None

    @property
    def target(self) -> Any:
        """The SDK's secret-preserving view: what a remediation edits and returns."""
        if self._target is None:
            self._target = sdk_deserialize.deserialize_properties(json_format.MessageToDict(self._struct), True)
        return self._target

    def __getitem__(self, key: str) -> Any:
        return self.target[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.target[key] = value

    def __iter__(self) -> Iterator[str]:
        return iter(self.target)

    def __len__(self) -> int:
        return len(self.target)


def remediation_props(props: Any) -> Any:
    """What a remediation edits in place and returns (the SDK serializes it back)."""
    return props.target if isinstance(props, RemediationProps) else props


def remediation_view(props: Any) -> Any:
    """A remediation's props for reading them like ``args.props`` in Analyze: unknown values
    raise the SDK's error, secrets read as marked values. Nothing is deserialized."""
    if isinstance(props, RemediationProps):
        return StructProps(props._struct)
    return unknown_checking_view(props)


def _unknown_checking_proxy(props: Any) -> Any:
    if isinstance(props, StructProps):
        return props
    return _sdk_proxy(props)


def unknown_checking_view(props: Any) -> Any:
    """A remediation's props (the SDK hands them secret-preserving, with unknowns as raw markers)
    as plain values behind the SDK's unknown-checking proxy, for reading them like ``args.props``."""
    return _sdk_proxy(_plain(props))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(value[key]) for key in value}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [_plain(item) for item in value]
    return value
