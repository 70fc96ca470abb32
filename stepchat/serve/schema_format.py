"""A `json_schema` response format, held to its schema: a closed subset, read here.

The server writes a JSON request's object with the keys the request's words name, checked
by the JSON task; a schema sent along is not what the object is built from. Rather than
return an object the schema refuses (a strict client would take it for one that passed),
the reply is checked against the schema and refused with a 400 when it does not match.

Only what this module can check by itself is accepted, a closed list: an object schema
(`type: "object"`) of `properties`, `required` and a boolean `additionalProperties`, each
property a `type` (string, integer, number, boolean, null, or array with `items` of one of
those), an `enum` of such values, and `title` / `description` anywhere. Any other keyword
is refused before the model runs, naming it: a `$ref` would have a validator fetch a URL
or read a file, a `pattern` run the client's regular expression, a `format` go unchecked,
and nested combinators cost time doubling with their depth. A client that needs more can
send `json_object` and validate the reply itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from stepchat.core import jsonextract as strict_json
from stepchat.core.tasks.json_types import same_value
from stepchat.serve.limits import stop_at
from stepchat.serve.protocol import ApiError, ChatRequest

PARAM = "response_format.json_schema.schema"

SCALARS = frozenset({"string", "integer", "number", "boolean", "null"})
"""The member types this module checks; `array` adds `items` of one of them."""
_TOP = frozenset({"type", "properties", "required", "additionalProperties", "title",
                  "description"})
_MEMBER = frozenset({"type", "items", "enum", "title", "description"})
_ITEMS = frozenset({"type", "enum", "title", "description"})


def _refuse(message: str, *, param: str = PARAM) -> ApiError:
    return ApiError(400, message, param=param, code="unsupported_value")


def requested_schema(request: ChatRequest) -> dict[str, Any] | None:
    """The schema a `json_schema` response format carries, refused unless it is of the
    closed subset (module docstring); None for `text` or `json_object`."""
    fmt = request.response_format
    if fmt is None or fmt.type != "json_schema":
        return None
    spec = (fmt.model_extra or {}).get("json_schema")
    if not isinstance(spec, dict):
        raise ApiError(400, "response_format json_schema needs a json_schema object "
                       "(with the schema under its `schema`)",
                       param="response_format.json_schema")
    schema = spec.get("schema")
    if schema is None:
        return None  # a name alone asks for no shape: any object the request gets
    _read_object(schema)
    return dict(schema)


def _unsupported(keys: set[str], allowed: frozenset[str], where: str) -> None:
    extra = sorted(keys - allowed)
    if extra:
        raise _refuse(
            f"{where}: {_json(extra[0])} is not supported: this server holds its object to a "
            "schema of named members with simple types (type, properties, required, "
            "additionalProperties, items, enum, title, description); send json_object "
            "and validate the reply yourself for more")


def _read_object(schema: Any) -> None:
    if not isinstance(schema, dict):
        raise _refuse(f"invalid {PARAM}: a JSON schema here is an object")
    _unsupported(set(schema), _TOP, PARAM)
    _read_words(schema, PARAM)
    if schema.get("type", "object") != "object":
        raise _refuse(f"invalid {PARAM}: the reply is a JSON object, so its type is "
                      "\"object\"")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise _refuse(f"invalid {PARAM}.properties: an object of member schemas")
    for name, member in properties.items():
        _read_member(member, f"{PARAM}.properties.{name}", _MEMBER)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
        raise _refuse(f"invalid {PARAM}.required: a list of member names")
    closed = schema.get("additionalProperties", True)
    if not isinstance(closed, bool):
        raise _refuse(f"invalid {PARAM}.additionalProperties: true or false here")
    if closed is False and (unlisted := [k for k in required if k not in properties]):
        raise _refuse(f"invalid {PARAM}: {_json(unlisted[0])} is required and no property, "
                      "and additionalProperties false forbids it: no object can match")


def _read_member(member: Any, where: str, allowed: frozenset[str]) -> None:
    if not isinstance(member, dict):
        raise _refuse(f"invalid {where}: a member schema is an object")
    _unsupported(set(member), allowed, where)
    _read_words(member, where)
    if any(word in member and member[word] is None for word in ("type", "enum")):
        raise _refuse(f"invalid {where}: a type or an enum is not null")
    types = _types(member.get("type"), where)
    if ("array" in types) != ("items" in member):
        raise _refuse(f"invalid {where}: an array, and only an array, says its items' "
                      "schema here (type \"array\" with items)")
    if "items" in member:
        _read_member(member["items"], f"{where}.items", _ITEMS)
    enum = member.get("enum")
    if enum is not None and (not isinstance(enum, list) or not enum or not all(
            v is None or isinstance(v, str | int | float | bool) for v in enum)):
        raise _refuse(f"invalid {where}.enum: a list of strings, numbers, booleans or null")


def _read_words(schema: dict[str, Any], where: str) -> None:
    for word in ("title", "description"):
        if word in schema and not isinstance(schema[word], str):
            raise _refuse(f"invalid {where}.{word}: a string")


def _types(given: Any, where: str) -> list[str]:
    types = [] if given is None else [given] if isinstance(given, str) else given
    if not isinstance(types, list) or not all(
            isinstance(t, str) and (t in SCALARS or t == "array") for t in types
    ) or (given is not None and not types) or len(set(types)) != len(types):
        raise _refuse(f"invalid {where}.type: one of string, integer, number, boolean, "
                      "null or array, or a list of them without repeats")
    return types


def _json(value: Any) -> str:
    """A value as JSON writes it (null, true, "text"), not as Python does."""
    return json.dumps(value, ensure_ascii=False)


def _is(value: Any, type_name: str) -> bool:
    if type_name == "null":
        return value is None
    if type_name == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if type_name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if type_name == "number":
        return isinstance(value, int | float)
    if type_name == "array":
        return isinstance(value, list)
    return isinstance(value, str)


def _member_problem(value: Any, member: dict[str, Any]) -> str | None:
    types = _types(member.get("type"), PARAM)
    if types and not any(_is(value, t) for t in types):
        return f"{_json(value)} is not of type {' or '.join(types)}"
    enum = member.get("enum")
    if enum is not None and not any(same_value(value, option) for option in enum):
        return f"{_json(value)} is not one of {', '.join(_json(v) for v in enum)}"
    if isinstance(value, list) and "items" in member:
        for index, item in enumerate(value):
            problem = _member_problem(item, member["items"])
            if problem:
                return f"item {index}: {problem}"
    return None


def schema_problem(obj: Any, schema: dict[str, Any]) -> str | None:
    """Why `obj` does not match `schema` (of the closed subset), or None."""
    if not isinstance(obj, dict):
        return "the reply is not one JSON object"
    properties: dict[str, Any] = schema.get("properties", {})
    for key in schema.get("required", []):
        if key not in obj:
            return f"{_json(key)} is required"
    if schema.get("additionalProperties", True) is False:
        extra = sorted(set(obj) - set(properties))
        if extra:
            return f"{_json(extra[0])} is not among the schema's properties"
    for key, value in obj.items():
        if key in properties:
            problem = _member_problem(value, properties[key])
            if problem:
                return f"at {key}: {problem}"
    return None


def hold_to_schema(text: str, schema: dict[str, Any], stops: Sequence[str]) -> None:
    """Refuse a reply whose object the request's schema does not accept: the answer's
    text, or what a stop sequence leaves of it (a `max_tokens` cut says "length", which a
    client reads as an object cut short)."""
    stopped = stop_at(text, stops)
    if stopped is not None:
        text = text[:stopped]
    try:
        obj = strict_json.loads(text)
    except ValueError:
        obj = None
    problem = schema_problem(obj, schema)
    if problem is not None:
        raise _refuse(
            f"the answer does not match {PARAM} ({problem}): this server writes the object "
            "with the keys the request's words name, so name the same keys, of the same "
            "types, in both")
