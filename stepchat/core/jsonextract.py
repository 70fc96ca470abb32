"""Getting exactly one JSON object out of model text: fences, chatter and near-misses.

Small models wrap objects in prose or code fences, or write Python literals; this module
finds the first object and applies the few local repairs that are safe, so the model is
asked again only when the text holds no object at all.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
MAX_JSON_CHARS = 200_000


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def _finite(number: str) -> float:
    value = float(number)
    if not math.isfinite(value):  # 1e999 reads as infinity
        raise ValueError(f"{number} is out of range")
    return value


STRICT = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite)
"""JSON as the standard has it: Python's reader also takes NaN and Infinity, and reads
1e999 as infinity, none of which a client's JSON parser accepts."""


def loads(text: str) -> Any:
    """`text` as one JSON value, refused (ValueError) where `STRICT` refuses it or it
    nests deeper than the reader can follow."""
    try:
        return STRICT.decode(text)
    except RecursionError:
        raise ValueError("nested too deep") from None


def _first_object(text: str) -> dict[str, Any] | None:
    for i, ch in enumerate(text):
        if ch != "{":
            continue
        try:
            value, _ = STRICT.raw_decode(text, i)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _local_repairs(text: str) -> str:
    repaired = _TRAILING_COMMA.sub(r"\1", text)
    for py, js in _PY_LITERALS.items():
        repaired = re.sub(rf"(?<![\w\"]){py}(?![\w\"])", js, repaired)
    if '"' not in repaired and "'" in repaired:
        repaired = repaired.replace("'", '"')
    return repaired


def extract_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (inside a code fence if there is one), or None."""
    text = text[:MAX_JSON_CHARS]
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        found = _first_object(candidate)
        if found is None:
            found = _first_object(_local_repairs(candidate))
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
