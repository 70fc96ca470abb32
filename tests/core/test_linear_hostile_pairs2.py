"""Issue 21, second hostile round: every case it found serving a wrong linear step, verified;
and the seventieth review's (`data/linear_hostile_pairs3.jsonl`: a mark glued to the
equation's last number read as sentence punctuation, `0.3...` as 0.3 and `4!` as 4) and the
seventy-second's (same file, class L3: a spaced ellipsis, `0.3 . . .`, whose first `.` was
forgiven as a closing mark and the rest taken by the framing) and the seventy-fifth's
(class L4: a number right before a LaTeX fraction, `3\\frac{1}{2}`, read as a product)
the seventy-sixth's (class L5: a whole number, a dash and a fraction glued, `3-1/2`) and
the seventy-seventh's (class L6: the dash spaced on one side, or an obelus), the
seventy-ninth's (class L7: a quotient multiplied again without brackets, `6/2×3`) and the
eighty-second's (`data/linear_hostile_pairs4.jsonl`: D1 a contradiction scaled by a step
no words name, `0 = 5` for `0x = 1`; S1 another problem's equation as the first line by
an unannounced scaling, `2x + 2 = 6` for `x + 1 = 3`; T1 a factor left of an equation
trimmed off as words, `x (x + 1) = 3`; G1 and G2 a mark glued or spaced after a step's
number, `15!`, `0.3  ...`; C1 a chain of thousands of links) and the eighty-third's
(`data/linear_hostile_pairs5.jsonl`: S2 a division no words name that brings in
fractions, S3 a sign flipped to a negative coefficient, S4 a constant moved off the side
without the unknown, P2 `2^3x`, G3 a marked number in the words, `by 0.3...`, G4 a mark
glued before an equation, `,5x`) and the eighty-fourth's (`data/linear_hostile_pairs6.jsonl`:
W1 a move "from" a side read as "to" it, P3 a hyphened fraction in a step, `x = 4-1/2`,
N1 "Divide both sides" with no number taking a factor the equation does not show, S5 a
constant moved onto the side without one while the unknown is on both) and the
eighty-fifth's (`data/linear_hostile_pairs7.jsonl`: P4 a hyphened fraction with a wider
gap, `4  -1/2`; W2 "move the constant on the left", where it goes or where it is).

Each record (`data/linear_hostile_pairs2.jsonl`, `data/linear_hostile_pairs3.jsonl`) is a
cached request with the reply the model gave it (or the solver's, when `cached_model_text`
is null) and a second request asked after it; `served_step` came back `reused` or
`patched` (or, for a misread request, written by the solver) although it was wrong for the
second request. Asked again now, no step with that text may come from the cache, nor from
anywhere for a misread request (the request declines as a linear request, or the step
fails and the solver rewrites it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_linear_hostile_pairs import FROM_CACHE, ask_after

RECORDS = [
    record
    for name in ("linear_hostile_pairs2.jsonl", "linear_hostile_pairs3.jsonl",
                 "linear_hostile_pairs4.jsonl", "linear_hostile_pairs5.jsonl",
                 "linear_hostile_pairs6.jsonl", "linear_hostile_pairs7.jsonl")
    for line in (Path(__file__).parent / "data" / name).open()
    if "class" in (record := json.loads(line))
]


@pytest.mark.parametrize(
    "record", RECORDS, ids=[f"{i}-{r['class'][:24]}" for i, r in enumerate(RECORDS)]
)
def test_a_found_case_is_not_served_its_wrong_step(record: dict[str, Any]) -> None:
    answer = ask_after(record["cached_prompt"], record["cached_model_text"], record["prompt"])
    # a wrong step the solver wrote (a misread request) must not come back from anywhere
    from_cache = record["status"] in ("reused", "patched")
    served = [s.text for s in answer.steps
              if (s.status in FROM_CACHE or not from_cache) and s.text == record["served_step"]]
    assert served == [], (record["prompt"], record["why_wrong"], answer.text)
