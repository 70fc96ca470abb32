"""Getting exactly one JSON object out of model text: fences, chatter and near-misses.

Small models wrap objects in prose or code fences, write Python literals or leave a comma
before a closing bracket; this module finds the first object and reads those near-misses
too, so the model is asked again only when the text holds no object at all.

What is taken is JSON as the standard has it, whatever reader got there: a string of
valid Unicode (no lone surrogate, which no UTF-8 writer can send), a finite number a
double holds (not NaN, Infinity, 1e999 or a 400-digit integer, which a client's parser
reads as infinity), keys that are strings. Repairs never touch the text inside a string
("It is True that" stays as written), and a broken object is skipped whole: an object
nested in it (`"discount": {"price": 5}`) is never taken for the answer.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_CLOSING = frozenset("}]")
MAX_JSON_CHARS = 200_000
_LARGEST = 2**1024
"""No double holds an integer this large: a client's parser reads it as infinity."""


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def _checked(value: Any) -> Any:
    """`value` if it is JSON as the standard has it (module docstring), else ValueError."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) >= _LARGEST:
            raise ValueError("an integer no double holds")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("a number out of range")
        return value
    if isinstance(value, str):
        value.encode("utf-8")  # UnicodeEncodeError (a ValueError) for a lone surrogate
        return value
    if isinstance(value, list):
        for item in value:
            _checked(item)
        return value
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError("a key that is not a string")
            _checked(key)
            _checked(item)
        return value
    raise ValueError(f"a {type(value).__name__} is not a JSON value")


def loads(text: str | bytes) -> Any:
    """`text` as one JSON value (bytes in any encoding JSON allows), refused (ValueError)
    unless it is standard JSON, or where it nests deeper than the reader can follow."""
    try:
        return _checked(json.loads(text, parse_constant=_not_json))
    except RecursionError:
        raise ValueError("nested too deep") from None


def _outside_strings(text: str) -> list[tuple[int, str]]:
    """Each character outside a quoted string (double or single quotes, backslash
    escapes), with its place."""
    out: list[tuple[int, str]] = []
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(text):
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        out.append((i, ch))
    return out


def _object_end(text: str, start: int) -> int | None:
    """Where the object opened at `start` closes (the index after its `}`), counting
    brackets outside strings; None when it never does."""
    depth = 0
    for i, ch in _outside_strings(text[start:]):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return start + i + 1
    return None


def _without_trailing_commas(span: str) -> str:
    """`span` with each comma outside strings dropped where only spaces stand between it
    and a closing bracket."""
    drop: set[int] = set()
    following = ""  # the next character outside strings that is not a space
    for i, ch in reversed(_outside_strings(span)):
        if ch == "," and following in _CLOSING:
            drop.add(i)
        if not ch.isspace():
            following = ch
    return "".join(ch for i, ch in enumerate(span) if i not in drop)


def _python_literal(span: str) -> Any:
    """`span` read as a Python literal (`{'name': 'Ana', 'ok': True}`) by Python's literal
    reader, which runs no code; ValueError when it is none."""
    try:
        return ast.literal_eval(span)
    except (SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise ValueError("not a Python literal") from exc


def _read_span(span: str) -> dict[str, Any] | None:
    readers = (loads, lambda s: loads(_without_trailing_commas(s)),
               lambda s: _checked(_python_literal(s)))
    for read in readers:
        try:
            value = read(span)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _first_object(text: str) -> dict[str, Any] | None:
    """The first object in `text` whose braces close, read as JSON or a near-miss; a
    span that reads as neither is skipped whole, objects nested in it too."""
    start = text.find("{")
    while start >= 0:
        end = _object_end(text, start)
        if end is None:
            return None  # cut short: nothing after it stands alone
        found = _read_span(text[start:end])
        if found is not None:
            return found
        start = text.find("{", end)
    return None


def extract_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (inside a code fence if there is one), or None."""
    text = text[:MAX_JSON_CHARS]
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        found = _first_object(candidate)
        if found is not None:
            return found
    return None


def is_single_object(text: str) -> bool:
    """The whole text, whitespace aside, is exactly one JSON object."""
    try:
        value = loads(text)
    except ValueError:
        return False
    return isinstance(value, dict)
