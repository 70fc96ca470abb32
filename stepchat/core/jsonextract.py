"""Getting exactly one JSON object out of model text: fences, chatter and near-misses.

Small models wrap objects in prose or code fences, or write Python literals; this module
finds the first object and applies the few local repairs that are safe, so the model is
asked again only when the text holds no object at all.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
MAX_JSON_CHARS = 200_000


def _first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch != "{":
            continue
        try:
            value, _ = decoder.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):
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
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(value, dict)
