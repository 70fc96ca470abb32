"""Wrong answers a hostile review got served from the word-problem cache: each must now be
declined (the model answers) or served right.

The 40 cases (`wordprob_found.jsonl`) cover ten classes: conditions decided in words, stated
values mentioned only in prose, values the solution does not use, constants computed from
the values (factorials, handshakes, lcm, remainders, rounding, repeated factors), problems
that are no arithmetic on stated values (digits, primes, binary), meaning words renamed as
names, a currency changed in one place, and values that make the problem meaningless. Each
row keeps what was served and why it was wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.wordprob.solution import answer_holds
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "wordprob_found.jsonl").read_text().splitlines()]
MODEL = "the model answered #### -1"


@pytest.mark.parametrize("case", CASES, ids=[c["label"] for c in CASES])
def test_a_found_wrong_answer_is_declined_or_right(case: dict[str, Any]) -> None:
    cached = case["cached"]
    backend = ScriptedBackend([c["model_text"] for c in cached] + [MODEL])
    engine = StepCache(backend, HashedEmbedder(), MemoryStore())
    for c in cached:
        # Stored, unless its last line states no last result (`finalline`: "4 * 7 = 28 ≤ 30"
        # then "#### 4"), which leaves nothing to serve the new request from.
        stored = engine.answer(c["prompt"]).stored_entry is not None
        assert stored or not answer_holds(c["model_text"]), c["prompt"]
    answer = engine.answer(case["prompt"])
    if MODEL in answer.text:
        assert not answer.hit
        return
    final = re.findall(r"####\s*\$?(\S+)", answer.text)
    assert final and final[-1] == str(case["right"]), (case["why_wrong"], answer.text)


def test_the_found_cases_are_the_ten_classes() -> None:
    assert len(CASES) == 40
    assert all(c["served"] and c["right"] for c in CASES)
