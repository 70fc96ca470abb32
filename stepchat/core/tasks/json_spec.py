"""Reading a JSON request: the keys it asks for, their types, and values stated in it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_KEYLIST = re.compile(
    r"\b(?:keys?|fields?|properties|attributes)\b\s*(?::|named|called)?\s*", re.I
)
_ITEM = re.compile(
    r"[\"'`]?(?P<key>[A-Za-z_][A-Za-z0-9_]*)[\"'`]?"
    r"(?:\s*\((?P<type>[A-Za-z ]+)\))?"
)
_SEP_COMMA = re.compile(r"\s*,\s*(?:and\s+)?")
_SEP_AND = re.compile(r"\s+and\s+")
_STOP_WORDS = {
    "for", "of", "with", "whose", "where", "that", "the", "a", "an", "about", "to", "in",
    "describing", "which", "who", "only", "each", "all", "and", "or", "values", "set",
}
_TYPE_WORDS = {
    "string": "string", "str": "string", "text": "string",
    "integer": "integer", "int": "integer", "whole number": "integer",
    "number": "number", "float": "number", "decimal": "number",
    "boolean": "boolean", "bool": "boolean",
}
_VALUE = (
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'"
    r"|(?P<email>[\w.+-]+@[\w-]+\.[\w.]*\w)"
    r"|(?P<num>-?\d+(?:\.\d+)?)(?![\w.]*[A-Za-z@])"
    r"|(?P<bool>true|false)\b"
    r"|(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
)
# After an explicit "is", ":" or "=", any short phrase up to the next delimiter is a value.
_PHRASE = r"|(?P<phrase>[^,;.\n\"']{1,40}?)(?=\s*(?:,|;|\.(?:\s|$)|\s(?:and|with)\s|$)))"
_STATED = r"(?:\s*\([^)]*\))?(?:\s(?:is|equals?|should be|set to)\s+|\s*[:=]\s*)"
# Without one, a single lower-case word followed by a delimiter ("role manager, ...").
_WORD = r"|(?P<phrase>[a-z][\w'-]{0,30})(?=\s*(?:,|;|\.(?:\s|$)|\s(?:and|with)\s|$)))"
_BARE = r"(?:\s*\([^)]*\))?\s+"
_INT_KEYS = re.compile(r"(?:^|_)(?:age|year|count|quantity|qty|pages|id|rank|floor|stock)$")
_NUM_KEYS = re.compile(r"(?:^|_)(?:price|score|rating|height|weight|amount|cost|salary)$")
_BOOL_KEYS = re.compile(r"^(?:is|has|can)_|(?:^|_)(?:active|enabled|available|verified)$")


@dataclass(frozen=True)
class JsonSpec:
    keys: tuple[str, ...]
    types: dict[str, str]
    entities: dict[str, Any]
    keylist_span: tuple[int, int]

    def schema(self, keys: tuple[str, ...] | None = None, *, typed: bool = True) -> dict[str, Any]:
        wanted = keys if keys is not None else self.keys
        props = {k: (_property(self.types[k]) if typed else {}) for k in wanted}
        return {
            "type": "object",
            "properties": props,
            "required": list(wanted),
            "additionalProperties": False,
        }


MAX_STRING_CHARS = 80
"""Bounds a generated string: a small model otherwise loops inside one ("john_john_...")."""


def _property(type_name: str) -> dict[str, Any]:
    if type_name == "string":
        return {"type": "string", "maxLength": MAX_STRING_CHARS}
    return {"type": type_name}


def _read_type(raw: str | None) -> str | None:
    if not raw:
        return None
    return _TYPE_WORDS.get(raw.strip().lower())


def read_keys(prompt: str) -> tuple[list[str], dict[str, str], tuple[int, int]]:
    """Keys in the order asked, explicit types, and the span of the key list."""
    m = _KEYLIST.search(prompt)
    if not m:
        return [], {}, (0, 0)
    pos = m.end()
    keys: list[str] = []
    types: dict[str, str] = {}
    last = False
    while True:
        item = _ITEM.match(prompt, pos)
        if not item or item.group("key").lower() in _STOP_WORDS:
            break
        key = item.group("key")
        if key not in keys:
            keys.append(key)
        declared = _read_type(item.group("type"))
        if declared:
            types[key] = declared
        pos = item.end()
        if last:
            break
        sep = _SEP_COMMA.match(prompt, pos)
        if sep:
            last = "and" in sep.group(0)
            pos = sep.end()
            continue
        sep = _SEP_AND.match(prompt, pos)
        if sep:
            last = True
            pos = sep.end()
            continue
        break
    return keys, types, (m.start(), pos)


def _coerce(match: re.Match[str]) -> Any:
    if match.group("dq") is not None:
        return match.group("dq")
    if match.group("sq") is not None:
        return match.group("sq")
    if match.group("email"):
        return match.group("email")
    if match.group("num"):
        text = match.group("num")
        return float(text) if "." in text else int(text)
    if match.group("bool"):
        return match.group("bool") == "true"
    if match.groupdict().get("phrase"):
        return match.group("phrase").strip()
    return match.group("name")


def read_entities(prompt: str, keys: list[str], span: tuple[int, int]) -> dict[str, Any]:
    """Values the prompt states for its keys: `name is Alice`, `age: 30`, `city Paris`."""
    text = prompt[: span[0]] + " " * (span[1] - span[0]) + prompt[span[1] :]
    found: dict[str, Any] = {}
    for key in keys:
        spoken = re.escape(key).replace("_", "[_ ]")
        stated = re.compile(rf"\b{spoken}\b{_STATED}{_VALUE}{_PHRASE}")
        bare = re.compile(rf"\b{spoken}\b{_BARE}{_VALUE}{_WORD}")
        m = stated.search(text) or bare.search(text)
        if m:
            found[key] = _coerce(m)
    return found


_LITERAL = re.compile(rf"^{_VALUE})\s*$")
_TAIL = re.compile(r"^\s*(?:for|of|about|describing)\s+(?P<values>[^.;:\n]+)")


def read_positional(prompt: str, keys: list[str], span: tuple[int, int]) -> dict[str, Any]:
    """Values listed after the keys without naming them: `keys name and age for Bob, 40`.

    Each literal goes to the next key of a matching kind (text to text keys, numbers to
    numeric keys, true/false to boolean keys), so `for Bob, 40` fills name and age.
    """
    tail = _TAIL.match(prompt[span[1] :])
    if not tail:
        return {}
    values: list[Any] = []
    for item in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", tail.group("values").strip()):
        m = _LITERAL.match(item.strip())
        if not m:
            break
        values.append(_coerce(m))
    found: dict[str, Any] = {}
    free = list(keys)
    for value in values:
        kind = infer_type("", value)
        target = next((k for k in free if _fits(infer_type(k, None), kind)), None)
        if target is None:
            return {}
        found[target] = value
        free.remove(target)
    return found


def _fits(key_type: str, value_type: str) -> bool:
    if key_type == value_type:
        return True
    return key_type == "number" and value_type == "integer"


def infer_type(key: str, entity: Any) -> str:
    if isinstance(entity, bool):
        return "boolean"
    if isinstance(entity, int):
        return "integer"
    if isinstance(entity, float):
        return "number"
    if isinstance(entity, str):
        return "string"
    low = key.lower()
    if _BOOL_KEYS.search(low):
        return "boolean"
    if _INT_KEYS.search(low):
        return "integer"
    if _NUM_KEYS.search(low):
        return "number"
    return "string"


def coerce_to(value: Any, type_name: str) -> Any:
    """An entity read from text, as the declared type wants it."""
    if type_name == "string" and not isinstance(value, str):
        return str(value).lower() if isinstance(value, bool) else str(value)
    if type_name == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if type_name == "number" and isinstance(value, int) and not isinstance(value, bool):
        return value
    return value


def read_spec(prompt: str) -> JsonSpec | None:
    if not re.search(r"\bjson\b", prompt, re.I):
        return None
    keys, types, span = read_keys(prompt)
    if not keys:
        return None
    entities = read_entities(prompt, keys, span)
    if not entities:
        entities = read_positional(prompt, keys, span)
    full_types = {k: types.get(k) or infer_type(k, entities.get(k)) for k in keys}
    entities = {k: coerce_to(v, full_types[k]) for k, v in entities.items()}
    return JsonSpec(tuple(keys), full_types, entities, span)
