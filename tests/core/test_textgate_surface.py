"""Near repeats as the gate must serve them: surface edits of every request in the pair sets.

The requests come from the labelled sets in data/pairs (public, reported and hand-written
questions); the edits are the ones a person makes when asking again: case, punctuation,
spacing, contractions, "please", greetings and thanks, trailing question marks. The gate must
pass at least 95% of each kind of edit, but three whose misses include what a ninth hostile
pass showed to be meaning (`FLOORS`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stepchat.bench.pairs_data import load_pairs
from stepchat.bench.surface_edits import SURFACE_EDITS
from stepchat.core.textgate.gate import compare

PAIRS = Path(__file__).resolve().parents[2] / "data" / "pairs"


def _requests() -> list[str]:
    seen: dict[str, None] = {}
    for path in sorted(PAIRS.glob("*.jsonl")):
        for pair in load_pairs(path):
            seen.setdefault(pair.a, None)
    return list(seen)


FLOORS = {
    "no punctuation": 0.94,  # a mark inside the request against none: `Anna. Maria Lopez`
    "upper case": 0.94,  # a word with a digit and a capital: `IPv4`, `Jet2` (`COCl2`)
    "greeting and thanks": 0.94,  # "Hi there, " before no opening word: `Hi, bye, see you`
}
"""Edits held to less than 95%, each for a class of requests it would serve wrongly: the
misses are the cost of declining them (docs/open-text.md, "A ninth hostile pass")."""


@pytest.mark.parametrize("edit", list(SURFACE_EDITS))
def test_surface_edits_pass_the_gate(edit: str) -> None:
    requests = _requests()
    assert len(requests) > 500
    changed = [(r, SURFACE_EDITS[edit](r)) for r in requests if SURFACE_EDITS[edit](r) != r]
    passed = sum(compare(a, b).same for a, b in changed)
    assert changed and passed / len(changed) >= FLOORS.get(edit, 0.95), f"{passed}/{len(changed)}"
