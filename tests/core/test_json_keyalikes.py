"""Look-alike key lists in every hand-written JSON request: none is read wrong.

stepchat.bench.json_keyalikes changes the keys of each request of both phrasing files the
ways the second hostile review found the reader taken in by: a key renamed with a qualifier
that makes it another value (`retirement_age`, `sequel_year`, `age_lb`), the name key
renamed to a key naming something else (`title`, `song`, `company`, `username`), and the
key list joined by words or marks no closed list holds (`、`, ` · `, ` + `, ` along with `).
A renamed key must never be stated; a list read short or long must never be called sure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stepchat.bench.json_keyalikes import CLASSES, KeyAlike, KeyTally, keyalikes, score
from stepchat.bench.phrasings import load

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def items() -> list[KeyAlike]:
    cases = load(DATA / "json_phrasings.jsonl") + load(DATA / "json_phrasings_heldout.jsonl")
    return list(keyalikes(cases))


@pytest.fixture(scope="module")
def tallies(items: list[KeyAlike]) -> dict[str, KeyTally]:
    return score(items)


def test_every_class_has_hundreds_of_prompts(items: list[KeyAlike]) -> None:
    for cls in CLASSES:
        assert sum(1 for i in items if i.cls == cls) >= 500, cls


@pytest.mark.parametrize("cls", CLASSES)
def test_no_look_alike_key_list_is_read_wrong(tallies: dict[str, KeyTally], cls: str) -> None:
    assert tallies[cls].wrong == [], tallies[cls].wrong[:5]
