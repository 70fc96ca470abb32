"""Getting exactly one JSON object out of model text: fences, chatter and near-misses.

Small models wrap objects in prose or code fences, write Python literals or leave a comma
before a closing bracket; this module finds the object and reads those near-misses too, so
the model is asked again only when the text holds no object at all. `sole_object` says
whether a reply was one standard object and nothing else: only such a reply is cached
(`stepchat.core.tasks.json_task`), since anything else is read by choices made here.

What is taken is JSON as the standard has it, whatever reader got there: a string of
valid Unicode (no lone surrogate, which no UTF-8 writer can send), a finite number a
double holds (not NaN, Infinity, 1e999 or an integer that rounds to infinity), string
keys, each key once. Near-miss repairs are a closed list, made by reading the text, never
by substituting in it: a comma before a closing bracket is dropped, Python's `True`,
`False` and `None` and its single-quoted strings are written as JSON; text inside strings
is never touched, and a comment or a triple quote makes a span unreadable. A reply with
two different objects (an example beside the answer) is no answer, and a broken object is
skipped whole: an object nested in it (`"discount": {"price": 5}`) is never taken.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"(?m)^[ \t]*```(?:json|JSON)?([^`]*)```")
"""A code fence opens a line, as Markdown writes one: "```" inside a string is text."""
_JSON_SPACE = " \t\n\r"
MAX_JSON_CHARS = 200_000
_PYTHON_WORDS = {"True": "true", "False": "false", "None": "null"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "/": "/"}
_UNSURE = ("#", "//", "/*", "'''", '"""')
"""Outside strings, these leave a span's end unknown (a comment may hold a bracket, a
triple quote is read as three strings), so such a span is not read."""


class _NotJson(ValueError):
    pass


def _not_json(constant: str) -> Any:
    raise _NotJson(f"{constant} is not a JSON value")


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys appear once: a repeated key's two values leave it unclear
    which the writer meant (a reader takes either)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _NotJson(f"the key {json.dumps(key)} appears twice")
        out[key] = value
    return out


def _checked(value: Any) -> Any:
    """`value` if it is JSON as the standard has it (module docstring), else ValueError."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        try:
            finite = math.isfinite(float(value))
        except OverflowError:
            finite = False
        if not finite:
            raise _NotJson("a number no double holds")
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
            _checked(key)
            _checked(item)
        return value
    raise _NotJson(f"a {type(value).__name__} is not a JSON value")


def loads(text: str | bytes) -> Any:
    """`text` as one JSON value (bytes in any encoding JSON allows), refused (ValueError)
    unless it is standard JSON with each key once, or where it nests deeper than the
    reader can follow."""
    try:
        return _checked(json.loads(text, parse_constant=_not_json, object_pairs_hook=_once))
    except RecursionError:
        raise ValueError("nested too deep") from None


def _strings_and_rest(text: str, start: int) -> Iterator[tuple[int, str, bool]]:
    """Each character from `start` with its place and whether it stands outside a quoted
    string (double or single quotes, backslash escapes), read lazily."""
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote is None:
            yield i, ch, True  # an opening quote stands outside (a triple quote is seen)
            if ch in "\"'":
                quote = ch
            continue
        yield i, ch, False
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == quote:
            quote = None


def _object_end(text: str, start: int) -> int | None:
    """Where the object opened at `start` closes (the index after its `}`), counting
    brackets outside strings; None when it never does, or when a comment or a triple
    quote leaves where it closes unknown."""
    depth = 0
    for i, ch, outside in _strings_and_rest(text, start):
        if not outside:
            continue
        if any(text.startswith(mark, i) for mark in _UNSURE):
            return None
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _single_quoted(body: str) -> str:
    """A single-quoted Python string's body as a JSON string."""
    out: list[str] = []
    chars = iter(body)
    for ch in chars:
        if ch != "\\":
            out.append(ch)
            continue
        escape = next(chars, "")
        if escape not in _ESCAPES:
            raise _NotJson(f"the escape \\{escape} in a single-quoted string")
        out.append(_ESCAPES[escape])
    return json.dumps("".join(out), ensure_ascii=False)


_WORD = re.compile(r"[A-Za-z_]\w*")


def _as_json(span: str) -> str:
    """`span` with the closed list of near-misses written as JSON (module docstring)."""
    out: list[str] = []
    i = 0
    while i < len(span):
        ch = span[i]
        if ch in "\"'":
            end = i + 1
            while end < len(span) and span[end] != ch:
                end += 2 if span[end] == "\\" else 1
            if end >= len(span):
                raise _NotJson("an unclosed string")
            body = span[i + 1:end]
            out.append(span[i:end + 1] if ch == '"' else _single_quoted(body))
            i = end + 1
        elif ch == ",":
            after = i + 1
            while after < len(span) and span[after].isspace():
                after += 1
            before = next((piece.rstrip()[-1:] for piece in reversed(out) if piece.strip()), "")
            if span[after:after + 1] not in ("}", "]") or before in ("{", "[", ","):
                out.append(ch)  # `{,}` stays unreadable: a comma after nothing is no near-miss
            i += 1
        elif word := _WORD.match(span, i):
            out.append(_PYTHON_WORDS.get(word.group(), word.group()))
            i = word.end()
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _read_span(span: str) -> dict[str, Any] | None:
    for read in (loads, lambda s: loads(_as_json(s))):
        try:
            value = read(span)
        except ValueError:
            continue
        return value if isinstance(value, dict) else None
    return None


def _objects(text: str) -> Iterator[dict[str, Any]]:
    """Each object read from a span whose braces close, in order; a span that reads as
    nothing is skipped whole. Stops at a span whose end is unknown (cut short, or a
    comment or triple quote in it): what follows it may be inside it."""
    start = text.find("{")
    while start >= 0:
        end = _object_end(text, start)
        if end is None:
            return
        found = _read_span(text[start:end])
        if found is not None:
            yield found
        start = text.find("{", end)


def extract_object(text: str) -> dict[str, Any] | None:
    """The one object `text` holds: the whole text as one, or the one object found in
    its fences and its prose; None when there is none, or two that differ."""
    if len(text) > MAX_JSON_CHARS:
        return None  # cut, it could hide a second object: no answer from it
    whole = _read_span(text.strip(_JSON_SPACE))
    if whole is not None:
        return whole
    found: dict[str, dict[str, Any]] = {}
    for fenced in _FENCE.finditer(text):
        for obj in _objects(fenced.group(1)):
            found.setdefault(json.dumps(obj, sort_keys=True), obj)
    for obj in _objects(text):
        found.setdefault(json.dumps(obj, sort_keys=True), obj)
    return next(iter(found.values())) if len(found) == 1 else None


def sole_object(text: str) -> bool:
    """The reply is one standard JSON object and nothing else, whitespace aside, or in a
    code fence with nothing else around it."""
    stripped = text.strip(_JSON_SPACE)
    fenced = _FENCE.fullmatch(stripped)
    return is_single_object(fenced.group(1) if fenced else stripped)


def is_single_object(text: str) -> bool:
    """The whole text, whitespace aside, is exactly one JSON object."""
    try:
        value = loads(text)
    except ValueError:
        return False
    return isinstance(value, dict)
