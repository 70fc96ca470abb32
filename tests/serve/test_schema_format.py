"""A `json_schema` is held to a closed list of keywords the server checks itself.

A hostile review broke the first version, which handed the client's schema to a general
validator: a `$ref` had the server fetch a URL (or read a file into the error message), a
`pattern` ran a regular expression whose time doubled per character, nested `allOf`s
doubled per level, a dangling `$ref` failed after the model ran, `format` passed
unchecked, and a schema 100 levels deep raised RecursionError. Each class is refused here
before the model runs.
"""

from __future__ import annotations

from typing import Any

import pytest

from stepchat.serve.protocol import ApiError, ChatRequest
from stepchat.serve.schema_format import requested_schema, schema_problem


def request(json_schema: Any) -> ChatRequest:
    fmt: dict[str, Any] = {"type": "json_schema"}
    if json_schema is not ...:
        fmt["json_schema"] = json_schema
    return ChatRequest.model_validate(
        {"model": "m", "messages": [{"role": "user", "content": "hi"}],
         "response_format": fmt})


def person(**member: Any) -> dict[str, Any]:
    return {"name": "x", "schema": {"type": "object", "properties": {"name": member}}}


def deep(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return {"name": "x", "schema": schema}


REFUSED = [
    person(**{"$ref": "http://127.0.0.1:9/x.json"}),
    person(**{"$ref": "file:///etc/passwd"}),
    {"name": "x", "schema": {"$ref": "#"}},
    {"name": "x", "schema": {"$id": "http://a/b", "type": "object"}},
    person(type="string", pattern="^(a+)+$"),
    person(type="string", format="email"),
    {"name": "x", "schema": {"allOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {}}}},
    person(type="object", properties={"b": {"type": "string"}}),
    deep(100),
    {"name": "x", "schema": {"type": "array"}},
    {"name": "x", "schema": True},
    {"name": "x", "schema": ["name"]},
    person(type="strnig"),
    person(type="array"),
    person(enum=[{"a": 1}]),
    {"name": "x", "schema": {"type": "object", "additionalProperties": {"type": "string"}}},
    "junk",
    ...,
    # The second review: `items` outside an array went unread (a 500 for `"junk"`, a
    # `$ref` or `pattern` inside it ignored), and a `type` list empty or repeated.
    person(items="junk"),
    person(items={"$ref": "file:///etc/passwd"}),
    person(items={"type": "string", "pattern": "^a$"}),
    person(type="string", items={"type": "string"}),
    person(type="array", items={"enum": "intro-welcome"}),
    person(type=[]),
    person(type=["integer", "integer"]),
    # The third review: a null type or enum left a member unchecked, any value passed as
    # a title, and a schema no object can match was refused only after the model ran.
    person(type=None),
    person(enum=None),
    person(type="string", title={"$ref": "file:///etc/passwd"}),
    {"name": "x", "schema": {"type": "object", "description": 5}},
    {"name": "x", "schema": {"type": "object", "required": ["zzz"],
                             "additionalProperties": False}},
]


@pytest.mark.parametrize("json_schema", REFUSED)
def test_what_the_server_cannot_check_itself_is_refused(json_schema: Any) -> None:
    with pytest.raises(ApiError) as info:
        requested_schema(request(json_schema))
    assert info.value.status == 400
    assert (info.value.param or "").startswith("response_format.json_schema")


def test_the_closed_list_is_read_and_checked() -> None:
    schema = requested_schema(request({"name": "p", "strict": True, "schema": {
        "type": "object", "title": "Person", "additionalProperties": False,
        "required": ["name", "age", "tags"],
        "properties": {
            "name": {"type": "string", "description": "full name"},
            "age": {"type": ["integer", "null"]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "kind": {"enum": ["cat", 1, True, None]},
        }}}))
    assert schema is not None
    assert schema_problem({"name": "Ann", "age": 30, "tags": ["a"]}, schema) is None
    assert schema_problem({"name": "Ann", "age": None, "tags": [], "kind": None}, schema) is None
    problems = {
        "name": ({"age": 1, "tags": []}, '"name" is required'),
        "extra": ({"name": "A", "age": 1, "tags": [], "x": 1}, '"x" is not among'),
        "type": ({"name": "A", "age": "30", "tags": []}, 'at age: "30" is not of type'),
        "bool": ({"name": "A", "age": True, "tags": []}, "at age: true is not of type"),
        "item": ({"name": "A", "age": 1, "tags": ["c"]}, 'at tags: item 0: "c" is not one'),
        "enum": ({"name": "A", "age": 1, "tags": [], "kind": 2}, "at kind: 2 is not one"),
        "enum bool": ({"name": "A", "age": 1, "tags": [], "kind": 1.0}, None),
        "true is not 1": ({"name": "A", "age": 1, "tags": [], "kind": False}, "is not one"),
        "not an object": (["name"], "not one JSON object"),
    }
    for label, (obj, expected) in problems.items():
        problem = schema_problem(obj, schema)
        assert (problem is None) if expected is None else (
            problem is not None and expected in problem), (label, problem)


def test_a_name_alone_asks_for_no_shape() -> None:
    assert requested_schema(request({"name": "anything"})) is None
