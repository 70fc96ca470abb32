"""Small text helpers shared by the task handlers: slots, masking and substitution."""

from __future__ import annotations

import re
from collections.abc import Sequence

NEGATION = re.compile(r"\b(?:not|never|no longer|without|don't|do not|doesn't|isn't)\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*\d)")
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+(?:\s[A-Z][a-z]+)*")
_QUOTED = re.compile(r"\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'")


def has_negation(text: str) -> bool:
    return NEGATION.search(text) is not None


def numbers_in(text: str) -> list[str]:
    return _NUMBER.findall(text)


def slots_in(text: str) -> list[str]:
    """Constants and names a request could differ in: numbers, quoted strings, proper names."""
    found: list[tuple[int, str]] = []
    for pattern in (_QUOTED, _NUMBER, _NAME):
        for m in pattern.finditer(text):
            if not any(start <= m.start() < start + len(s) for start, s in found):
                found.append((m.start(), m.group(0)))
    return [s for _, s in sorted(found)]


def mask_slots(text: str) -> str:
    """The request with its slots masked: equal masks mean the same structure."""
    masked = _QUOTED.sub("<q>", text)
    masked = _NUMBER.sub("<n>", masked)
    masked = _NAME.sub("<name>", masked)
    return re.sub(r"\s+", " ", masked.strip().lower())


def slot_mapping(old: Sequence[str], new: Sequence[str]) -> dict[str, str] | None:
    """old -> new for slots that changed, when both lists align one to one and consistently."""
    if len(old) != len(new):
        return None
    mapping: dict[str, str] = {}
    for a, b in zip(old, new, strict=True):
        if a == b:
            continue
        if mapping.get(a, b) != b:
            return None
        mapping[a] = b
    unchanged = {a for a, b in zip(old, new, strict=True) if a == b}
    if unchanged & set(mapping):
        return None
    return mapping


def slot_changes(new: Sequence[str], old: Sequence[str]) -> int:
    """How many constants differ between two slot lists, position by position."""
    changed = sum(a != b for a, b in zip(new, old, strict=False))
    return changed + abs(len(new) - len(old))


def replace_tokens(text: str, mapping: dict[str, str], *, letters: bool = False) -> str:
    """Replace whole tokens only: `5` never inside `15`, `x` never inside `next`."""
    if not mapping:
        return text
    keys = sorted(mapping, key=len, reverse=True)
    if letters:
        pattern = "|".join(rf"(?<![A-Za-z]){re.escape(k)}(?![A-Za-z])" for k in keys)
    else:
        pattern = "|".join(rf"(?<![\w.]){re.escape(k)}(?![\w]|\.\d)" for k in keys)
    return re.sub(pattern, lambda m: mapping[m.group(0)], text)
