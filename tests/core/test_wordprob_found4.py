"""Wrong answers the fourth hostile review got served from the word-problem cache: each
must now be declined (the model answers) or served right, and so must every earlier
request of a sequence that the cache serves.

`wordprob_found4.jsonl` keeps what was served, why it was wrong, and the class (A to I);
16 of the 25 were served on main before round six, the rest by round six's first rules.
The classes and what closes them are in docs/word-problems.md (round six).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_wordprob_found2 import assert_declined_or_right

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "wordprob_found4.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[c["label"] for c in CASES])
def test_a_found_wrong_answer_is_declined_or_right(case: dict[str, Any]) -> None:
    assert_declined_or_right(case)


def test_every_case_was_served_wrong() -> None:
    assert len(CASES) >= 25
    assert all(c["served"] and "right" in c for c in CASES)
