"""Derivations two reviews got served wrong, replayed (`linear_found_steps.jsonl`).

- stale-numbers (333): a cached step written as arithmetic on the cached problem's numbers
  (`3x + 5 - 5 = 20 - 5`, `5x = 39 - 9 = 30`, `x = (12 - 2)/2`) was served for another
  equation its value is one step of (3x - 4 = 11): steps were compared as `a·x + b` only.
  The model writes such steps, so the engine that trusts the model's derivation first
  served them.
- bullet (24): `- 3x + 5 = 20` under "Solve:" was read as -3x; a sign set apart from its
  term at the equation's start is a list bullet as often, and the request is not claimed.
- coincident-numbers (257, the second review): the first rule let a side write any number
  of the operation in any place, so cached arithmetic whose numbers coincided passed
  (signs, a 1, `x = 4/2` for 4x = 8, `3 + 3 = 6 = 3x`), on either engine (`reader`: the
  one that asks the second request; the entry is always the model-first engine's). Each
  side now shows its form (`stepchat/core/step_terms.py`).
- order-and-sign (the third review): the forms compared a side's terms as a set and a
  factor by its size, so `(3x + 5) - 5` passed for 3x - 5 plus 5, `2x + 6 - 6 = 6` for
  -2x = -6 (read with its sides swapped), and `x = 8/4` for -4x = -8; and a check
  (`3(5) + 8 - 3 = 20`) was compared by its value alone. The operation's term is now the
  last one written, a factor keeps its sign, and a check writes the problem's own sides.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import LinearStrategy, PipelineSettings
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

FOUND = [json.loads(line) for line in
         (Path(__file__).parent / "linear_found_steps.jsonl").read_text().splitlines()]
MODEL_FIRST = replace(PipelineSettings(), linear_strategy=LinearStrategy.MODEL_FIRST)


@pytest.mark.parametrize("strategy", [MODEL_FIRST, PipelineSettings()],
                         ids=["model-first", "solver-first"])
def test_no_found_derivation_is_served_again(strategy: PipelineSettings) -> None:
    """Each case's entry is written by the engine that trusts the model; the second request
    is asked of `strategy`'s engine on the same store."""
    served = []
    for case in FOUND:
        store = MemoryStore()
        StepCache(ScriptedBackend([case["reply"]]), HashedEmbedder(), store,
                  settings=MODEL_FIRST).answer(case["p1"])
        reader = StepCache(ScriptedBackend(["unused"]), HashedEmbedder(), store,
                           settings=strategy)
        again = reader.answer(case["p2"])
        if again.hit and again.text == case["served"]:
            served.append((case["class"], case["p1"], case["p2"]))
    assert not served, (len(served), served[:5])


def test_the_replayed_cases_are_all_here() -> None:
    assert Counter(case["class"] for case in FOUND) == {
        "stale-numbers": 333, "bullet": 24, "coincident-numbers": 257,
        "order-and-sign": 12}
