"""Wrong answers the third hostile review got served from the word-problem cache: each
must now be declined (the model answers) or served right, and so must every earlier
request of a sequence that the cache serves.

`wordprob_found3.jsonl` keeps what was served, why it was wrong, and the class (A to K).
The classes and what closes them are in docs/word-problems.md (round five).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_wordprob_found2 import assert_declined_or_right

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "wordprob_found3.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[c["label"] for c in CASES])
def test_a_found_wrong_answer_is_declined_or_right(case: dict[str, Any]) -> None:
    assert_declined_or_right(case)


def test_every_case_was_served_wrong() -> None:
    assert len(CASES) >= 30
    assert all(c["served"] and "right" in c for c in CASES)
