"""One line for a config value pydantic rejected: where it is, what was expected, what it was.

pydantic's own report is several lines per error and speaks of Python types and
"keyword arguments"; a user editing a TOML file needs the table and key, the TOML type or
the allowed values, and the value found. Only the first error is told: fixing it and
running again is quicker than reading a list.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import fields, is_dataclass
from typing import Any, get_args, get_type_hints

from pydantic import ValidationError

from stepchat.settings import KIND_SPECS, URL_PATTERN

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
    """('cache', 'repair_tries') -> '[cache] repair_tries'; models by position and id (the
    kind pydantic puts in the path of a model's key is left out: the entry names it)."""
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
        keys = rest[2:] if len(rest) > 1 and rest[1] in KIND_SPECS else rest[1:]
        return " ".join([label, *(str(part) for part in keys)])
    if rest:
        return f"[{head}] " + ".".join(str(part) for part in rest)
    return head


def _foreign_key(loc: tuple[int | str, ...]) -> str | None:
    """For a key of the other kind on a model entry: which kind takes it; None for a key
    no kind takes (an unknown key)."""
    if len(loc) < 4 or loc[0] != "models" or loc[2] not in KIND_SPECS:
        return None
    kind, key = loc[2], loc[3]
    owners = [k for k, cls in KIND_SPECS.items() if key in {f.name for f in fields(cls)}]
    if not owners:
        return None
    return f'not a key of kind = "{kind}" (only kind = "{owners[0]}" takes it)'


def _kind_error(error: dict[str, Any], where: str) -> str:
    """An entry whose `kind` is not one stepchat knows."""
    kinds = " or ".join(f'"{kind}"' for kind in KIND_SPECS)
    entry = error.get("input")
    found = entry.get("kind") if isinstance(entry, dict) else entry
    return f"{where} kind: expected {kinds}, got {_shown(found)}"


def _expected(error: dict[str, Any]) -> str:
    kind = str(error["type"])
    ctx = error.get("ctx") or {}
    if kind in ("literal_error", "enum"):
        return str(ctx.get("expected", "one of the allowed values"))
    if kind == "string_pattern_mismatch":
        if ctx.get("pattern") == URL_PATTERN:
            return "a URL starting with http:// or https://"
        return f"text matching {ctx.get('pattern')}"
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


def _keys_at(root: type, path: tuple[int | str, ...]) -> list[str]:
    """The keys the table at `path` takes (a model entry's by its kind), or none known."""
    if path[:1] == ("models",) and len(path) >= 3 and path[2] in KIND_SPECS:
        return [f.name for f in fields(KIND_SPECS[str(path[2])])]
    table: Any = root
    for part in path:
        if not isinstance(part, str) or not is_dataclass(table):
            return []
        table = _dataclass_in(get_type_hints(table, include_extras=True).get(part))
    return [f.name for f in fields(table)] if is_dataclass(table) else []


def _dataclass_in(hint: Any) -> Any:
    """The dataclass a field's type names, through `X | None` and `Annotated[X, ...]`."""
    if is_dataclass(hint):
        return hint
    return next((found for arg in get_args(hint) if (found := _dataclass_in(arg))), None)


def _did_you_mean(root: type | None, loc: tuple[int | str, ...]) -> str:
    if root is None or not loc:
        return ""
    close = difflib.get_close_matches(str(loc[-1]), _keys_at(root, loc[:-1]), n=1, cutoff=0.7)
    return f" (did you mean {close[0]}?)" if close else ""


def describe_validation_error(
    exc: ValidationError, data: dict[str, Any], root: type | None = None
) -> str:
    """`[cache] repair_tries: expected a whole number, got "3"` for the first error; an
    unknown key near a known one of its table (`root` the file's) names that one."""
    error = exc.errors()[0]
    kind = str(error["type"])
    where = _where(tuple(error.get("loc", ())), data)
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return _kind_error(dict(error), where)
    if kind in ("unexpected_keyword_argument", "extra_forbidden"):
        loc = tuple(error.get("loc", ()))
        foreign = _foreign_key(loc)
        return f"{where}: {foreign or 'unknown key' + _did_you_mean(root, loc)}"
    if kind in ("missing", "missing_argument"):
        return f"{where}: missing (required)"
    return f"{where}: expected {_expected(dict(error))}, got {_shown(error.get('input'))}"
