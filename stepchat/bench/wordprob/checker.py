"""Judges a served word-problem answer: its final number against the template's #answer.

It shares no code with `stepchat.core`: the last number written in the answer, read with
the language's own decimal mark, must equal the expected value (to a millionth).
"""

from __future__ import annotations

import re

COMMA_DECIMAL = frozenset({"dan", "deu", "fra", "ita", "nld", "nob", "nno", "swe", "fin",
                           "isl", "spa_comma"})
_NUMBER = re.compile(r"-?\d[\d.,\u00a0\u202f]*")


def final_number(text: str, language: str) -> float | None:
    """The last number in `text`, or None when it has none."""
    found = _NUMBER.findall(text)
    if not found:
        return None
    raw = found[-1].rstrip(".,").replace("\u00a0", "").replace("\u202f", "")
    if language in COMMA_DECIMAL:
        raw = raw.replace(".", "").replace(",", ".")
    else:
        raw = raw.replace(",", "")
    try:
        return float(raw)
    except ValueError:
        return None


def is_right(text: str, expected: float, language: str) -> bool:
    got = final_number(text, language)
    return got is not None and abs(got - expected) <= 1e-6 * max(1.0, abs(expected))
