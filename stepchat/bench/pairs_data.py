"""Labelled request pairs: the material the open-text gate is measured on.

A text answer can be served from the cache only when the new request asks the same thing as
the cached one. Whether a gate gets that right is a matter of counting, so the counts need
pairs whose label is known: `same` is true only when one answer correctly serves both
requests. The files live in `data/pairs/` as JSONL, one pair per line:

    {"id": "...", "a": "...", "b": "...", "same": true, "category": "...", "source": "..."}

plus the optional `style` and `ambiguous` tags some sources carry. This module reads them and
refuses a malformed row with one line that names the file and the line, so a typo in a data
file stops the bench instead of quietly shifting its figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stepchat.bench.records import json_lines

CATEGORIES = frozenset(
    {
        "near_repeat",
        "paraphrase",
        "negation",
        "entity_swap",
        "number_date",
        "scope",
        "units",
        "direction",
        "superlative",
        "language",
        "word_order",
        "code",
        "antonym",
        "reported",
    }
)
"""The kinds of difference (or sameness) a pair is filed under; reports group by these."""

REQUIRED_TEXT = ("id", "a", "b", "category", "source")
OPTIONAL_TEXT = ("style", "ambiguous")
"""Tags some sources carry (fow-cache marks wording style and pairs whose label depends on
the application); kept so a report can split by them, never needed."""


@dataclass(frozen=True)
class Pair:
    """Two requests and whether one answer correctly serves both."""

    id: str
    a: str
    b: str
    same: bool
    category: str
    source: str


def _problem(row: Any) -> str | None:
    """What is wrong with one decoded row, or None when it is a valid pair."""
    if not isinstance(row, dict):
        return "expected a JSON object"
    unknown = set(row) - {*REQUIRED_TEXT, *OPTIONAL_TEXT, "same"}
    if unknown:
        return f"unknown field(s) {', '.join(sorted(unknown))}"
    for key in REQUIRED_TEXT:
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            return f"field {key!r} must be a non-empty string"
    for key in OPTIONAL_TEXT:
        if key in row and not isinstance(row[key], str):
            return f"field {key!r} must be a string"
    if not isinstance(row.get("same"), bool):
        return "field 'same' must be true or false"
    if row["category"] not in CATEGORIES:
        return f"unknown category {row['category']!r}"
    return None


def load_pairs(path: str | Path) -> list[Pair]:
    """Read a pairs file; a malformed row raises ValueError naming the file and the line.

    Blank lines are skipped. An id seen twice in one file is an error, since reports and
    reviews refer to pairs by id; so is a file with no pairs, which would measure nothing.
    """
    path = Path(path)
    pairs: list[Pair] = []
    seen: set[str] = set()
    for number, row in json_lines(path, "pairs file"):
        problem = _problem(row)
        if problem is None and row["id"] in seen:
            problem = f"duplicate id {row['id']!r}"
        if problem is not None:
            raise ValueError(f"{path}:{number}: {problem}")
        seen.add(row["id"])
        pairs.append(Pair(**{key: row[key] for key in (*REQUIRED_TEXT, "same")}))
    if not pairs:
        raise ValueError(f"{path}: no pairs in file")
    return pairs
