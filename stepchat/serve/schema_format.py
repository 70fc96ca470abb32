"""A `json_schema` response format, held to its schema.

The server writes a JSON request's object with the keys the request's words name, checked
by the JSON task; a schema sent along is not what the object is built from. Rather than
return an object the schema refuses (a strict client would take it for one that passed),
the reply is checked against the schema and refused with a 400 when it does not match:
another key set, another type, an extra member under `additionalProperties: false`.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from stepchat.serve.protocol import ApiError, ChatRequest

PARAM = "response_format.json_schema.schema"


def requested_schema(request: ChatRequest) -> dict[str, Any] | None:
    """The schema a `json_schema` response format carries, checked to be one; None when
    the request asks for no schema (`text`, `json_object`, or `json_schema` without one)."""
    fmt = request.response_format
    if fmt is None or fmt.type != "json_schema":
        return None
    spec = (fmt.model_extra or {}).get("json_schema")
    schema = spec.get("schema") if isinstance(spec, dict) else None
    if schema is None:
        return None
    if not isinstance(schema, dict):
        raise ApiError(400, f"invalid {PARAM}: a JSON schema is an object", param=PARAM)
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ApiError(400, f"invalid {PARAM}: {exc.message}", param=PARAM) from None
    return schema


def hold_to_schema(text: str, schema: dict[str, Any]) -> None:
    """Refuse a reply whose object the request's schema does not accept."""
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(obj))
    if error is None:
        return
    where = "/".join(str(part) for part in error.absolute_path)
    raise ApiError(
        400, f"the answer does not match {PARAM}" + (f" at {where}" if where else "")
        + f" ({error.message}): this server writes the object with the keys the request's "
        "words name, so name the same keys, of the same types, in both",
        param=PARAM, code="unsupported_value",
    )
