"""Distractors in every hand-written JSON request: no member is ever stated wrong.

stepchat.bench.json_distractors puts twenty-six classes of distractor (a relative's age, a
denied or former place, an old value, a past state, a value with symbols, a number in
another format, a comparison, a sum, and the ten classes of the hostile review: a value
taken back, a change or another form asked in words, a hedge, someone else's value, a
non-place after `from`/`in`, a key beside words that state no value, numbers written with
trailing zeros or dashes, an instruction sentence, a negated open instruction; and the
eight of the second review: a connector bringing in someone else, the request's words
after it, a value scoped to `it`/`this`, a second thing or person of the same name, an
ellipsis, values inside a quoted title, a hedging modifier, a value asked cut short) in
three places of each request of both phrasing files: over thirty thousand prompts the
reader was not written for. A member stated with another value than the hand-written one, a
key lost, a key added or a key made open by the distractor counts against precision; where the
distractor takes the values back, asks for them changed or in another form, hedges them
or is an instruction, any member stated counts against it. Precision must be exactly
1.000 (the reader before the hostile review scored 0.422 on the same prompts).
Recall per class is what it is: the
whole prompt must be accounted for, so a distractor in words no construction reads
declines every value (recall 0 is the right trade there); each floor sits just under the
measured figure so that losing it is noticed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stepchat.bench.json_distractors import (
    CLASSES,
    ClassTally,
    Distracted,
    distract,
    score,
    table,
)
from stepchat.bench.phrasings import load

DATA = Path(__file__).resolve().parents[2] / "data"
RECALL_FLOORS = {"relative": 0.45}
"""0.46 until a cue after an agent named by `by` became the agent's: 0.457 since."""
"""Only `relative` keeps values: `whose daughter is 12` is a construction the reader
accounts for. Every other class is declined whole (recall 0.000 at precision 1.000)."""


@pytest.fixture(scope="module")
def items() -> list[Distracted]:
    cases = load(DATA / "json_phrasings.jsonl") + load(DATA / "json_phrasings_heldout.jsonl")
    return list(distract(cases))


@pytest.fixture(scope="module")
def tallies(items: list[Distracted]) -> dict[str, ClassTally]:
    return score(items)


def test_at_least_five_thousand_prompts_of_every_class(items: list[Distracted]) -> None:
    assert len(items) >= 5000
    assert {i.position for i in items} == {"before", "after", "inside"}
    for cls in CLASSES:
        assert sum(1 for i in items if i.cls == cls) >= 600, cls


def test_each_prompt_is_its_request_with_one_distractor_in_it(items: list[Distracted]) -> None:
    for item in items:
        assert item.inserted and item.inserted in item.prompt
        assert item.prompt.replace(item.inserted, "", 1) == item.original
        for value in item.stated.values():  # the distractor never repeats a stated value
            if isinstance(value, str | int) and not isinstance(value, bool):
                alone = rf"(?<![\w.,]){re.escape(str(value))}(?!\w|[.,]\d)"
                assert not re.search(alone, item.inserted), (value, item.inserted)


def test_no_member_is_ever_stated_wrong(tallies: dict[str, ClassTally]) -> None:
    wrong = [w for t in tallies.values() for w in t.wrong]
    assert wrong == [], "\n".join(wrong[:10])
    assert all(t.precision == 1.0 for t in tallies.values())


def test_recall_per_class(tallies: dict[str, ClassTally]) -> None:
    print("\n" + table(tallies))
    for cls, floor in RECALL_FLOORS.items():
        assert tallies[cls].recall >= floor, (cls, tallies[cls].recall)
