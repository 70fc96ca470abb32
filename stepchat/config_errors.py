"""One line for a config value pydantic rejected: where it is, what was expected, what it was.

pydantic's own report is several lines per error and speaks of Python types and
"keyword arguments"; a user editing a TOML file needs the table and key, the TOML type or
the allowed values, and the value found. Only the first error is told: fixing it and
running again is quicker than reading a list.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

_EXPECTED = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string in quotes",
    "dataclass_type": "a table",
    "dict_type": "a table",
    "model_type": "a table",
    "list_type": "an array",
    "too_short": "a non-empty value",
    "string_too_short": "a non-empty string",
}


def _where(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    """('cache', 'repair_tries') -> '[cache] repair_tries'; models by position and id."""
    if not loc:
        return "the file"
    head, rest = str(loc[0]), loc[1:]
    if head == "models" and rest and isinstance(rest[0], int):
        index = rest[0]
        entries = data.get("models")
        ident = None
        if isinstance(entries, list) and index < len(entries) and isinstance(entries[index], dict):
            ident = entries[index].get("id")
        label = f"[[models]] #{index + 1}" + (f" ({ident!r})" if isinstance(ident, str) else "")
        return " ".join([label, *(str(part) for part in rest[1:])])
    if rest:
        return f"[{head}] " + ".".join(str(part) for part in rest)
    return head


def _expected(error: dict[str, Any]) -> str:
    kind = str(error["type"])
    ctx = error.get("ctx") or {}
    if kind == "literal_error":
        return str(ctx.get("expected", "one of the allowed values"))
    if kind == "greater_than_equal":
        return f"a number >= {ctx.get('ge')}"
    if kind == "greater_than":
        return f"a number > {ctx.get('gt')}"
    if kind == "less_than_equal":
        return f"a number <= {ctx.get('le')}"
    if kind == "less_than":
        return f"a number < {ctx.get('lt')}"
    return _EXPECTED.get(kind, str(error.get("msg", kind)).lower())


def _shown(value: Any) -> str:
    """The offending value as TOML would spell it, cut short."""
    try:
        text = json.dumps(value, ensure_ascii=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def describe_validation_error(exc: ValidationError, data: dict[str, Any]) -> str:
    """`[cache] repair_tries: expected a whole number, got "3"` for the first error."""
    error = exc.errors()[0]
    kind = str(error["type"])
    where = _where(tuple(error.get("loc", ())), data)
    if kind in ("unexpected_keyword_argument", "extra_forbidden"):
        return f"{where}: unknown key"
    if kind in ("missing", "missing_argument"):
        return f"{where}: missing (required)"
    return f"{where}: expected {_expected(dict(error))}, got {_shown(error.get('input'))}"
