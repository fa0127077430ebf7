"""The stack's resources as the model reads them: type, name, URN, props, and what the engine says links them (its
parent, its provider, the resources each property depends on: SPEC 14.2).

The SDK hands a stack policy ``PolicyResource`` objects whose parent, provider and property dependencies are other
objects (the pack's shim, policies/adapters/sdk.py, hands their URNs); a resource policy has none of them.
:class:`StackResource` reads them lazily, by URN, so that what most resources never need (a workload's dependencies)
is never built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .values import is_mapping

# how Stack.scope names a scope the pack cannot tell is a cluster (a resource's provider): two resources of one such
# scope are on one cluster, which may be any
PROVIDER_SCOPE = "provider:"


def _urn(value: Any) -> str | None:
    """The URN of a linked resource: the SDK's PolicyResource links objects, the pack's shim their URNs."""
    urn = value if isinstance(value, str) else getattr(value, "urn", None)
    return urn if isinstance(urn, str) and urn else None


class StackResource:
    """One resource of the stack, as the model reads it."""

    __slots__ = ("type", "urn", "_name", "_props", "_raw", "stack")

    def __init__(self, resource_type: str, urn: str, name: str, props: Any, raw: Any = None, stack: str = "") -> None:
        self.type = resource_type
        self.urn = urn
        self._name = name
        self._props = props
        self._raw = raw
        self.stack = stack  # another stack's resource (SPEC 18: read from its state), by that stack's name; "" own

    @property
    def name(self) -> str:
        """Its name in the program (the last part of its URN)."""
        return self._name

    @property
    def sent(self) -> StackResource:
        """The resource as the engine sent it (a Settled one's props are read with its checked inputs)."""
        return self

    @property
    def props(self) -> Any:
        """Its properties (outputs, or the inputs the engine sent), as the SDK hands them: read them as values.py
        reads them."""
        return self._props

    @classmethod
    def of(cls, raw: Any) -> StackResource:
        """A resource the SDK built (a PolicyResource), or anything with resource_type, urn, name and props; the
        pack's shim builds StackResources itself (policies/adapters/sdk.py)."""
        if isinstance(raw, StackResource):
            return raw
        return cls(raw.resource_type, raw.urn, raw.name, raw.props, raw)

    @property
    def resource_type(self) -> str:
        """Its type, by the SDK's name."""
        return self.type

    @property
    def parent(self) -> str | None:
        """Its parent's URN."""
        return _urn(getattr(self._raw, "parent", None))

    @property
    def provider(self) -> str | None:
        """Its provider's URN (a default provider's too), None when the engine names none."""
        return _urn(getattr(self._raw, "provider", None))

    @property
    def dependencies(self) -> tuple[str, ...]:
        return tuple(urn for urn in map(_urn, getattr(self._raw, "dependencies", None) or ()) if urn)

    @property
    def delete_before_replace(self) -> bool | None:
        """Its deleteBeforeReplace resource option as the engine sends it (the SDK's PolicyResource.opts); None when
        not set, or not known (a resource read from a state)."""
        found = getattr(getattr(self._raw, "opts", None), "delete_before_replace", None)
        return found if isinstance(found, bool) else None

    @property
    def property_dependencies(self) -> Any:
        """The engine's property dependencies: per property, the resources (or their URNs) its value depends on."""
        return getattr(self._raw, "property_dependencies", None)

    def depends(self, *keys: str) -> tuple[str, ...]:
        """The resources the values of these properties depend on (the engine's property dependencies)."""
        found = self.property_dependencies
        if not isinstance(found, Mapping):
            return ()
        urns: list[str] = []
        for key in keys:
            for item in found.get(key) or ():
                urn = _urn(item)
                if urn is not None and urn not in urns:
                    urns.append(urn)
        return tuple(urns)

    @property
    def depends_all(self) -> tuple[str, ...]:
        """Every resource any of its properties depends on, and its plain dependencies."""
        found = self.property_dependencies
        keys = tuple(found) if is_mapping(found) else ()
        urns = list(self.depends(*keys))
        urns += [urn for urn in self.dependencies if urn not in urns]
        return tuple(urns)


def type_of_urn(urn: str) -> str:
    """The type token a URN names (its last type, after a parent's: urn:pulumi:s::p::parent$type::name)."""
    parts = urn.split("::")
    return parts[2].rsplit("$", 1)[-1] if len(parts) >= 4 else ""


class Settled(StackResource):
    """A resource as a preview leaves it, read with what its provider's Check returned (SPEC 8): in a preview a
    Terraform-bridged provider plans every Computed output the program left unset as not known yet (the cloud fills
    it in on create), so a node pool's outputs hold ``nodeLocations``, ``maxPodsPerNode`` or ``amiType`` not known,
    where the program chose nothing: the platform's default, which each source reads when a field is unset. Its props
    are its outputs with each value not known yet that its checked inputs do not set left out, and each that they set
    taken from them; its links are the resource's own."""

    __slots__ = ("_inner",)

    def __init__(self, inner: StackResource, props: Any) -> None:
        super().__init__(inner.type, inner.urn, inner.name, props, None, inner.stack)
        self._inner = inner

    @property
    def parent(self) -> str | None:
        return self._inner.parent

    @property
    def provider(self) -> str | None:
        return self._inner.provider

    @property
    def dependencies(self) -> tuple[str, ...]:
        return self._inner.dependencies

    @property
    def delete_before_replace(self) -> bool | None:
        return self._inner.delete_before_replace

    @property
    def property_dependencies(self) -> Any:
        return self._inner.property_dependencies

    @property
    def sent(self) -> StackResource:
        return self._inner


_ABSENT = object()


def settled_props(outputs: Any, given: Any) -> Any:
    """A resource's outputs (plain values) with what its checked inputs ``given`` say of its values not known yet."""
    found = _settled(outputs, given)
    return {} if found is _ABSENT else found


def _settled(value: Any, given: Any) -> Any:
    from .values import Unknown

    if isinstance(value, Unknown):
        return _ABSENT if given is None else given
    if isinstance(value, Mapping):
        inner = given if isinstance(given, Mapping) else {}
        out = {}
        for key, item in value.items():
            found = _settled(item, inner.get(key))
            if found is not _ABSENT:
                out[key] = found
        return out
    if isinstance(value, list) and isinstance(given, list) and len(given) == len(value):
        return [item if (item := _settled(entry, other)) is not _ABSENT else None
                for entry, other in zip(value, given, strict=True)]
    return value
