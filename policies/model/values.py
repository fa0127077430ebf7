"""Reading the engine's property proxies safely.

``args.props`` is a proxy: reading a value that is unknown during preview raises
``UnknownValueError``, and so do ``in``, ``.get()`` and ``.items()`` when they touch one.
Everything here turns proxies into plain Python values once, replacing each unknown value
with an :class:`Unknown` marker that remembers the SDK's error, so rules can check what is
known and report what is not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence, Sized
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pulumi_policy.proxy import UNKNOWN_OBJECT_VALUE, UnknownValueError

if TYPE_CHECKING:  # for the checker only: narrowing, at no cost at run time
    from typing_extensions import TypeIs


@dataclass(frozen=True)
class Unknown:
    """A value that cannot be known yet (a preview unknown, or configuration not available)."""

    error: UnknownValueError
    # the resource whose props it was read from, as messages name it (Deployment 'api'), when it was read under
    # :func:`reading`: a stack policy's note says which resource each check it could not make is about
    about: str = field(default="", compare=False)

    @property
    def words(self) -> str:
        """Its own words, without the resource they are about (for a message that names the resource itself)."""
        message = getattr(self.error, "message", None)
        return message if isinstance(message, str) else "a value can't be known during preview"

    @property
    def said(self) -> str:
        """What a note says of it: its words, after the resource they are about unless they name it first."""
        words = self.words
        if self.about and not words.startswith(f"{self.about}:"):
            return f"{self.about}: {words}"
        return words


READING: ContextVar[str] = ContextVar("compute_guard_reading", default="")  # see reading()


@contextlib.contextmanager
def reading(subject: str) -> Iterator[None]:
    """The props read inside are ``subject``'s (a Deployment's, a ComputeCluster's): an unknown among them says so."""
    token = READING.set(subject)
    try:
        yield
    finally:
        READING.reset(token)


class Undetermined(UnknownValueError):
    """An UnknownValueError with our own message, for things the pack cannot see yet."""

    def __init__(self, message: str) -> None:
        super().__init__(UNKNOWN_OBJECT_VALUE, [])
        self.message = message


REDACTED = "[secret]"


class SecretText(str):
    """A string the program or the state marks secret.

    It compares, hashes and matches like its value, so rules use it as they would any string;
    formatted into a message (an f-string, ``format``) it reads ``[secret]``.
    """

    def __format__(self, spec: str) -> str:
        return format(REDACTED, spec)

    def __repr__(self) -> str:
        return REDACTED


class SecretNumber(float):
    """A number marked secret: arithmetic and comparisons as usual, ``[secret]`` in messages."""

    def __format__(self, spec: str) -> str:
        return REDACTED

    def __repr__(self) -> str:
        return REDACTED


class SecretInt(int):
    def __format__(self, spec: str) -> str:
        return REDACTED

    def __repr__(self) -> str:
        return REDACTED


_K = TypeVar("_K")
_V = TypeVar("_V")


def shared(table: dict[_K, _V], key: _K, value: _V, most: int) -> _V:
    """The one object kept in ``table`` for ``key``: ``value`` the first time, while the table holds fewer than
    ``most`` (then each caller keeps its own). A large stack's objects share their equal parts this way
    (BENCHMARKS.md, memory)."""
    found = table.get(key)
    if found is not None:
        return found
    if len(table) < most:
        table[key] = value
    return value


def secret(value: Any) -> Any:
    """The value, marked secret where its type allows (strings and numbers)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return SecretText(value)
    if isinstance(value, float):
        return SecretNumber(value)
    if isinstance(value, int):
        return SecretInt(value)
    return value


def is_secret(value: Any) -> bool:
    return isinstance(value, (SecretText, SecretNumber, SecretInt))


def holds_secret(value: Any) -> bool:
    """Whether a plain value holds a secret anywhere: itself, a list's item, an object's key or value (what a message
    that shows the whole value would print in clear)."""
    if is_secret(value):
        return True
    if isinstance(value, Mapping):
        return any(holds_secret(key) or holds_secret(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(holds_secret(item) for item in value)
    return False


def derived(value: str, *sources: Any) -> str:
    """``value``, computed from ``sources``: secret (``[secret]`` in messages) when any of them is, such as
    the node architecture a Pod needs when its pool's architecture is secret."""
    return SecretText(value) if any(is_secret(source) for source in sources) else value


def listed(values: Iterable[Any], separator: str = ", ") -> str:
    """Values joined for a message, each formatted as an f-string formats it, so that a secret reads
    ``[secret]`` (``str.join`` would copy its plain text)."""
    return separator.join(format(value) for value in values)


def more(items: Sized, limit: int) -> str:
    """What a message that lists the first ``limit`` of ``items`` adds: " and 2,498 more", or nothing, so that a
    message stays short however many there are (a cluster may have thousands of pools)."""
    return f" and {len(items) - limit:,} more" if len(items) > limit else ""


def quoted(values: Iterable[Any], limit: int | None = None) -> str:
    """Identifiers quoted and joined for a message (:func:`listed`): 'a', 'b'; past ``limit`` of them, the first
    ``limit`` and how many more ("'a', 'b' and 2,498 more")."""
    items = list(values)
    if limit is None:
        return listed(f"'{value}'" for value in items)
    return listed(f"'{value}'" for value in items[:limit]) + more(items, limit)


def first_unknown(value: Any) -> Unknown | None:
    """The first value not known yet anywhere in a plain value (its mappings' values and its lists' items)."""
    if isinstance(value, Unknown):
        return value
    shape = _shape(value)
    if shape == _OTHER:
        return None
    for item in value.values() if shape == _MAPPING else value:
        found = first_unknown(item)
        if found is not None:
            return found
    return None


def undetermined(message: str) -> Unknown:
    return Unknown(Undetermined(message))


def about(subject: str, unknown: Unknown) -> Unknown:
    """An unknown as a stack policy's note says it of one resource (``Deployment 'api': string value at
    .spec.replicas ...``): a stack policy's note has no URN, and lists every check the policy could not make
    (adapters/findings.py), each naming its resource."""
    if unknown.about == subject:
        return unknown
    return Unknown(unknown.error, subject) if type(unknown) is Unknown else dataclasses.replace(unknown, about=subject)


def public(value: Any) -> Any:
    """A plain value without the internal keys a state keeps at any depth (``__defaults``, ``__meta``): what the
    program wrote."""
    if isinstance(value, Mapping):
        return {key: public(item) for key, item in value.items() if not str(key).startswith("__")}
    if isinstance(value, list):
        return [public(item) for item in value]
    return value


def plain(value: Any) -> Any:
    """Convert a proxy (or anything) into dicts, lists and scalars; unknowns become Unknown."""
    kind = type(value)
    if kind is dict:  # a state document's (another stack's): nothing in it raises
        return {key: plain(item) for key, item in value.items()}
    if kind is list:
        return [plain(item) for item in value]
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for key in value:
            out[key] = read(value, key)
        return out
    if isinstance(value, Sequence):
        return [read(value, index) for index in range(len(value))]
    return value


def read(container: Any, key: Any) -> Any:
    """``plain(container[key])``, with an unknown value turned into :class:`Unknown`."""
    try:
        return plain(container[key])
    except UnknownValueError as error:
        return Unknown(error, READING.get())


_SHAPES: dict[type, int] = {}  # a type's shape, decided once: isinstance on an ABC is slow on the hot path
_MAPPING, _SEQUENCE, _OTHER = 1, 2, 0


def _shape(value: Any) -> int:
    kind = type(value)
    shape = _SHAPES.get(kind)
    if shape is None:
        shape = (_MAPPING if isinstance(value, Mapping) else
                 _SEQUENCE if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) else _OTHER)
        _SHAPES[kind] = shape
    return shape


def is_mapping(value: Any) -> TypeIs[Mapping[Any, Any]]:
    """``isinstance(value, Mapping)``, by a table of types (proxies, dicts) decided once."""
    return _shape(value) == _MAPPING


def is_list(value: Any) -> TypeIs[Sequence[Any]]:
    """A Sequence that is not a string (a proxy list, a list, a tuple)."""
    return _shape(value) == _SEQUENCE


def items(value: Any) -> list[Any]:
    """A proxy list's items, each as it is read (an object stays a proxy), one not known yet as :class:`Unknown`:
    iterating the proxy itself raises at the first unknown item, out of the rule that iterates it."""
    found: list[Any] = []
    for index in range(len(value)):
        try:
            found.append(value[index])
        except UnknownValueError as error:
            found.append(Unknown(error, READING.get()))
    return found


def child(container: Any, key: str) -> Any:
    """The plain value at ``key`` of a proxy mapping, or None when absent or not a mapping."""
    if type(container) is dict:  # what a state document holds (another stack's resources): no proxy, no unknown
        return container.get(key)
    if container is None or _shape(container) != _MAPPING:
        return None
    try:
        return container.get(key)  # the props' own get: an absent key costs no exception
    except UnknownValueError as error:
        return Unknown(error, READING.get())


def as_int(value: Any) -> int | None:
    """Numbers arrive as floats over the wire: 3.0 is 3, 1.5 and booleans are not integers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return SecretInt(value) if isinstance(value, SecretNumber) else int(value)
    return None


def type_name(value: Any) -> str:
    """How a JSON reader would name the type of a value, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, Sequence):
        return "a list"
    return f"a {type(value).__name__}"


_CAMEL_BOUNDARY = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    """capacityGroups -> capacity_groups."""
    return _CAMEL_BOUNDARY.sub("_", name).lower()
