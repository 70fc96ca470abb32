"""Reading a JSON request: its keys, their types, the values it states and the keys it
leaves open.

`read_spec` puts the parts together: `json_request` finds the request and its key list,
`json_flags` reads types, booleans and open keys said in words, `json_cues` finds stated
values and `json_assign` places them on keys. A key gets a stated value only when exactly
one reading fits; a key some unplaced value might belong to is *pending* (unchecked).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stepchat.core.tasks.json_assign import Candidate, Placement, key_classes
from stepchat.core.tasks.json_cues import Reader
from stepchat.core.tasks.json_flags import open_keys, read_boolean, stated_types
from stepchat.core.tasks.json_request import is_json_request, read_keys
from stepchat.core.tasks.json_types import fits, type_from_name, type_of_value, type_schema

__all__ = ["JsonSpec", "read_spec"]


@dataclass(frozen=True)
class JsonSpec:
    """A JSON request: keys in order, their types, stated values, open and pending keys."""

    keys: tuple[str, ...]
    types: dict[str, str]
    entities: dict[str, Any]
    open: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    declared: tuple[str, ...] = field(default=(), compare=False)

    def schema(self, keys: tuple[str, ...] | None = None, *, typed: bool = True) -> dict[str, Any]:
        """The object's JSON Schema (bounded for decoding); no keys asked means any object."""
        wanted = keys if keys is not None else self.keys
        if not wanted and keys is None:
            return {"type": "object"}
        props = {k: (type_schema(self.types[k], bounded=True) if typed else {}) for k in wanted}
        return {
            "type": "object",
            "properties": props,
            "required": list(wanted),
            "additionalProperties": False,
        }


_CLASS_TYPES = {
    "AGE": "integer", "YEAR": "integer", "SERVINGS": "integer", "PRICE": "number",
    "RATING": "number", "SALARY": "number", "WEIGHT": "number", "TEMPERATURE": "number",
    "TAGS": "array:string", "SKILLS": "array:string",
}
"""Kinds of key whose values are numbers or lists even when the name alone does not say so."""


def _named_type(key: str) -> str | None:
    named = type_from_name(key)
    if named:
        return named
    return next((_CLASS_TYPES[c] for c in sorted(key_classes(key)) if c in _CLASS_TYPES), None)


def _placement_type(key: str, declared: dict[str, str]) -> str:
    said = declared.get(key)
    named = _named_type(key)
    if said == "array" and named and named.startswith("array"):
        return named
    return said or named or "string"


def _final_type(key: str, declared: dict[str, str], placed: str, entities: dict[str, Any]) -> str:
    """Declared in words > what the key's name says, if the stated value fits it > what the
    stated value is > text."""
    if key in declared and placed != "array":
        return placed
    if key in entities:
        value_type = type_of_value(entities[key])
        if placed != "string" and fits(value_type, placed):
            return placed
        return value_type
    return placed


def read_spec(prompt: str) -> JsonSpec | None:
    """The JSON request in `prompt`, or None when it does not ask for JSON."""
    if not is_json_request(prompt):
        return None
    listed = read_keys(prompt)
    keys = listed.keys
    blocked = list(listed.spans)
    declared = {**stated_types(prompt, keys, blocked), **listed.types}
    types = {k: _placement_type(k, declared) for k in keys}
    reader = Reader(prompt, keys, types, blocked)
    candidates = reader.read()
    flags: list[Candidate] = []
    explicit_spans = [c.span for c in candidates if c.key is not None]
    for key in keys:
        if types[key] != "boolean" or any(c.key == key for c in candidates):
            continue
        said = read_boolean(prompt, key, blocked + explicit_spans)
        if said is not None:
            flags.append(Candidate(said, str(said).lower(), (0, 0), "bool", 3, key))
    placement = Placement(keys, types, set(declared))
    placement.resolve(candidates + flags)
    entities = {k: placement.entities[k] for k in keys if k in placement.entities}
    final = {k: _final_type(k, declared, types[k], entities) for k in keys}
    pending = tuple(k for k in keys if k in placement.pending and k not in entities)
    opened = tuple(
        k for k in open_keys(prompt, keys, set(entities)) if k not in pending
    )
    return JsonSpec(tuple(keys), final, entities, opened, pending, tuple(declared))

