"""Terraform-bridged resources as their providers answer the engine (SPEC 8): what the test kit sends a policy pack for
the resources of pulumi-aws and pulumi-gcp it knows (``bridged.json``), the way pulumi-terraform-bridge's Check and
planned state give them.

* **Check** (:func:`check`): the program's inputs with each field's schema Default where the program leaves it out (in
  every object the program gives), the auto-name the provider makes (``<resource name>-<7 hex>``, kept from the
  previous deployment while it stays a default), and ``__defaults`` in each object, listing what was filled in
  (pulumi-terraform-bridge pkg/tfbridge/schema.go, ``applyDefaults``). The engine keeps these inputs in the state and
  sends them to a pack's Analyze without their top-level internal keys.
* **Planned state** (:func:`planned`): a resource's outputs in a preview. Created (or replaced): what the program set,
  every Computed field it did not set not known yet, every other field null (an empty list for a block list).
  Updated in place: the deployed outputs with what the program set now. Unchanged: its deployed outputs.
* **What a change does** (:func:`change`): the same, an update, or a replacement (a ForceNew field changed, or not
  known yet), as the provider's Diff decides it. A value the previous deployment holds as an encrypted secret, which
  the engine decrypts and the test kit cannot, is taken as unchanged (a state exported with --show-secrets holds the
  value, which is compared).

``bridged.json`` is written by ``scripts/generate_bridged.py`` from the tests' stand-in providers (tests/standin), which
declare these resources with their upstream Terraform schemas under the bridge's own code; tests/standin's oracle
(tests/cli/test_engine_oracle.py) holds what the test kit sends to what the real engine sends through them.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .components import SECRET, SPECIAL, UNKNOWN

DEFAULTS = "__defaults"
_TABLE = Path(__file__).resolve().parent / "bridged.json"


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    table: dict[str, Any] = json.loads(_TABLE.read_text())
    return table


def covered(token: str) -> bool:
    """Whether the test kit knows this resource type as its bridged provider declares it."""
    return token in _table()


def _opaque(value: Any) -> bool:
    """A value the bridge does not look into for defaults: not known yet, or a secret."""
    return value == UNKNOWN or (isinstance(value, Mapping) and SPECIAL in value)


def auto_name(urn: str, name: str, generation: int = 0) -> str:
    """The name pulumi-aws and pulumi-gcp give a resource whose name the program leaves out: its resource name, "-" and
    7 hex digits (tfbridge.AutoName(..., 255, "-"): random there, the URN's hash here, so that a test is repeatable; a
    replacement's, ``generation`` 1, another one, as the bridge makes a new name for it)."""
    seed = urn if not generation else f"{urn}#{generation}"
    return f"{name}-{hashlib.sha256(seed.encode()).hexdigest()[:7]}"[:255]


def check(token: str, news: Mapping[str, Any], urn: str, name: str,
          olds: Mapping[str, Any] | None = None, replacing: bool = False) -> dict[str, Any] | None:
    """The inputs the provider's Check returns for the program's ``news`` (``olds``: the previous deployment's inputs
    of the same URN); None for a type the test kit does not know. ``replacing``: Check again for a replacement, which
    the engine makes without the old inputs (pulumi pkg/resource/deploy/step_generator.go: \"we need to recompute the
    default values\" of a replaced resource), so an auto-name is a new one."""
    resource = _table().get(token)
    if resource is None:
        return None
    return _checked(resource["fields"], news, None if replacing else olds, (urn, name, 1 if replacing else 0),
                    tuple(resource.get("autoNamed", ())))


def _checked(fields: Mapping[str, Any], news: Mapping[str, Any], olds: Mapping[str, Any] | None,
             urn: tuple[str, str, int] | None = None, autonamed: tuple[str, ...] = ()) -> dict[str, Any]:
    result: dict[str, Any] = {}
    olds = olds if isinstance(olds, Mapping) else {}
    for key, value in news.items():
        if key.startswith("__") or value is None:  # (reserved keys are dropped; a null input is no input)
            continue
        result[key] = _input(fields.get(key), value, olds.get(key))
    listed = olds.get(DEFAULTS)
    old_defaults = {item for item in listed if isinstance(item, str)} if isinstance(listed, list) else None

    def usable(key: str) -> bool:  # "if there is no list, we will treat all old values as usable for new defaults"
        return key in olds and (old_defaults is None or key in old_defaults)

    conflicting = {other for key in result for other in (fields.get(key) or {}).get("conflictsWith", ())}
    conflicting |= {key for key, fact in fields.items() if any(other in result for other in
                                                                 fact.get("conflictsWith", ()))}
    filled: list[str] = []
    for key in autonamed:  # the provider's overlays first: its auto-names
        if key in result or key in conflicting or urn is None:
            continue
        result[key] = olds[key] if usable(key) else auto_name(*urn)
        filled.append(key)
        conflicting |= set((fields.get(key) or {}).get("conflictsWith", ()))
    for key, fact in fields.items():  # then the Terraform schema's defaults
        if "default" not in fact or key in result or key in conflicting:
            continue
        if any("default" in (fields.get(other) or {}) for other in fact.get("conflictsWith", ())):
            continue
        result[key] = olds[key] if usable(key) else fact["default"]
        filled.append(key)
    result[DEFAULTS] = sorted(filled)
    return result


def _input(fact: Mapping[str, Any] | None, value: Any, old: Any) -> Any:
    if fact is None or _opaque(value) or "fields" not in fact:
        return value
    if fact["kind"] == "object" and isinstance(value, Mapping):
        return _checked(fact["fields"], value, old if isinstance(old, Mapping) else None)
    if isinstance(value, list):
        olds = old if isinstance(old, list) else []
        return [_checked(fact["fields"], item, olds[index] if index < len(olds) else None)
                if isinstance(item, Mapping) and not _opaque(item) else item for index, item in enumerate(value)]
    return value


def planned(token: str, checked: Mapping[str, Any], prior: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A resource's outputs in a preview: created or replaced (``prior`` None), or updated in place from its deployed
    outputs ``prior``."""
    fields = _table()[token]["fields"]
    outputs = _plan(fields, checked, prior)
    outputs["id"] = prior.get("id", UNKNOWN) if isinstance(prior, Mapping) else UNKNOWN
    return outputs


def deployed(token: str, checked: Mapping[str, Any]) -> dict[str, Any]:
    """A created resource's outputs as a state keeps them, where the test kit cannot know what the cloud computes: its
    inputs, and null for every field it did not set (an empty list for a block list)."""
    return _unknown_as_null(_plan(_table()[token]["fields"], checked, None))


def _unknown_as_null(value: Any) -> Any:
    if value == UNKNOWN:
        return None
    if isinstance(value, dict) and SPECIAL not in value:
        return {key: _unknown_as_null(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unknown_as_null(item) for item in value]
    return value


def _plan(fields: Mapping[str, Any], config: Mapping[str, Any] | None, prior: Mapping[str, Any] | None
          ) -> dict[str, Any]:
    config = config if isinstance(config, Mapping) else {}
    out: dict[str, Any] = {}
    for key, fact in fields.items():
        value = config.get(key)
        old = prior.get(key) if isinstance(prior, Mapping) else None
        if value is not None:
            out[key] = _planned_value(fact, value, old)
        elif fact.get("computed"):
            out[key] = old if isinstance(prior, Mapping) and key in prior else _PLANNED_SENSITIVE if \
                fact.get("sensitive") else UNKNOWN
        else:
            out[key] = [] if fact["kind"] in ("list", "set") and "fields" in fact else None
    for key, value in config.items():  # a field the table does not hold: the provider's schema does (its Check took
        if key not in fields and not key.startswith("__"):  # it), and a planned state holds what the program set
            out[key] = _without_internal(value)
    return out


def _planned_value(fact: Mapping[str, Any], value: Any, old: Any) -> Any:
    if _opaque(value) or "fields" not in fact:
        return _without_internal(value)
    if fact["kind"] == "object" and isinstance(value, Mapping):
        return _plan(fact["fields"], value, old if isinstance(old, Mapping) else None)
    if isinstance(value, list):
        olds = old if isinstance(old, list) else []
        return [_plan(fact["fields"], item, olds[index] if index < len(olds) and isinstance(olds[index], Mapping)
                      else None) if isinstance(item, Mapping) and not _opaque(item) else item
                for index, item in enumerate(value)]
    return value


def _without_internal(value: Any) -> Any:
    if isinstance(value, dict) and value.get(SPECIAL) != SECRET and SPECIAL not in value:
        return {key: _without_internal(item) for key, item in value.items() if not key.startswith("__")}
    if isinstance(value, list):
        return [_without_internal(item) for item in value]
    return value


# A Sensitive Computed field a preview does not know yet, as the engine sends it: a secret of "" (seen under the real
# engine through the stand-ins: a GKE cluster's masterAuth.clientKey)
_PLANNED_SENSITIVE = {SPECIAL: SECRET, "value": ""}

SAME, UPDATE, REPLACE = "same", "update", "replace"


def change(token: str, checked: Mapping[str, Any], olds: Mapping[str, Any],
           outputs: Mapping[str, Any] | None = None) -> str:
    """What the provider's Diff makes of the new checked inputs against the previous deployment's: the same, an
    update in place, or a replacement (a ForceNew field changed, or is not known yet). An input the state keeps
    encrypted (which the engine decrypts and the kit cannot) is read from the deployed ``outputs`` where they hold it in
    plain text, as a bridged resource's outputs repeat its inputs."""
    return _compare(_table()[token]["fields"], _revealed(checked), _readable(olds, outputs))


def _readable(olds: Mapping[str, Any], outputs: Mapping[str, Any] | None) -> dict[str, Any]:
    """The previous inputs as the provider's Diff compares them: a secret as its value (the engine decrypts it), and an
    input the kit cannot read from the deployed outputs where they hold it in plain text."""
    return {key: outputs[key] if _contains_unknown(value) and outputs is not None and key in outputs
            and not _contains_unknown(outputs[key]) and not _sealed(outputs[key]) else _revealed(value)
            for key, value in olds.items()}


def _revealed(value: Any) -> Any:
    """A value with each secret whose value is there as that value: a provider's Diff sees plain values."""
    if isinstance(value, Mapping):
        if value.get(SPECIAL) == SECRET and "value" in value:
            return _revealed(value["value"])
        return {key: _revealed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_revealed(item) for item in value]
    return value


def changed_paths(token: str, checked: Mapping[str, Any], olds: Mapping[str, Any],
                  outputs: Mapping[str, Any] | None = None) -> list[tuple[str, ...]]:
    """The paths of what :func:`change` finds changed, as the bridge's detailed diff names them (an object followed
    into its fields, a list whole): what the engine matches a ``replaceOnChanges`` option against."""
    found: list[tuple[str, ...]] = []
    _paths(_table()[token]["fields"], _revealed(checked), _readable(olds, outputs), (), found)
    return found


def _paths(fields: Mapping[str, Any], new: Mapping[str, Any], old: Mapping[str, Any], at: tuple[str, ...],
           found: list[tuple[str, ...]]) -> None:
    for key in sorted({*new, *old}):
        if key.startswith("__"):
            continue
        fact = fields.get(key) or {}
        before, after = old.get(key), new.get(key)
        if after is None and fact.get("computed"):
            continue
        if fact.get("kind") == "object" and "fields" in fact and isinstance(before, Mapping) \
                and isinstance(after, Mapping) and not _contains_unknown(after) and not _contains_unknown(before):
            _paths(fact["fields"], after, before, (*at, key), found)
        elif _compared(fact, before, after) != SAME:
            found.append((*at, key))


def _sealed(value: Any) -> bool:
    """A special value (a secret, a resource reference), which is not compared here."""
    if isinstance(value, Mapping):
        return SPECIAL in value or any(_sealed(item) for item in value.values())
    if isinstance(value, list):
        return any(_sealed(item) for item in value)
    return False


def _compare(fields: Mapping[str, Any], new: Mapping[str, Any], old: Mapping[str, Any]) -> str:
    verdict = SAME
    for key in {*new, *old}:
        if key.startswith("__"):
            continue
        fact = fields.get(key) or {}
        before, after = old.get(key), new.get(key)
        if after is None and fact.get("computed"):
            continue  # (a computed field the program leaves out keeps what the provider has)
        found = _compared(fact, before, after)
        if found == REPLACE:
            return REPLACE
        if found == UPDATE:
            verdict = UPDATE
    return verdict


def _compared(fact: Mapping[str, Any], before: Any, after: Any) -> str:
    if _contains_unknown(after):
        return REPLACE if fact.get("forceNew") else UPDATE
    if _contains_unknown(before):  # an encrypted secret of the state, which the engine decrypts and the kit cannot:
        return SAME  # taken as unchanged (a state exported with --show-secrets is compared)
    if fact.get("kind") == "object" and "fields" in fact and isinstance(before, Mapping) and isinstance(after,
                                                                                                          Mapping):
        return _compare(fact["fields"], after, before)
    if _canonical(before, fact) == _canonical(after, fact):
        return SAME
    if fact.get("forceNew"):
        return REPLACE
    if "fields" in fact and isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        verdicts = [_compare(fact["fields"], new, old) for old, new in zip(before, after, strict=True)
                    if isinstance(old, Mapping) and isinstance(new, Mapping)]
        return REPLACE if REPLACE in verdicts else UPDATE
    return UPDATE


def _numbers(value: Any) -> Any:
    """Numbers as the provider compares them: 3.0 (every number on the wire is a float) is 3."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_numbers(item) for item in value]
    return value


def _contains_unknown(value: Any) -> bool:
    if value == UNKNOWN:
        return True
    if isinstance(value, Mapping):
        return any(_contains_unknown(item) for item in value.values())
    if isinstance(value, list):
        return any(_contains_unknown(item) for item in value)
    return False


def _canonical(value: Any, fact: Mapping[str, Any]) -> str:
    """A value as the provider compares it: without internal keys, a set in any order, numbers as numbers, an empty
    collection as none."""
    plain = _numbers(_without_internal(value))
    if plain in ([], {}, None):
        return "null"
    if fact.get("kind") == "set" and isinstance(plain, list):
        return json.dumps(sorted(json.dumps(item, sort_keys=True) for item in plain))
    return json.dumps(plain, sort_keys=True, default=str)


__all__ = ["DEFAULTS", "REPLACE", "SAME", "UPDATE", "auto_name", "change", "check", "covered", "deployed", "planned"]
