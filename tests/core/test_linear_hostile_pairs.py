"""Issue 21: every pair a hostile pass found serving a wrong linear step or answer, verified.

Each record (`data/linear_hostile_pairs.jsonl`) is a cached request with the reply the model
gave it (or the solver's, when `cached_model_text` is null) and a second request asked
after it; the record names the step that came back `reused` or `patched` although it was
wrong for the second request (for a request that is not a linear solve request, the solve
derivation's last line). Asked again now, that step must not come from the cache.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import LinearStrategy, PipelineSettings
from stepchat.core.types import Answer, StepStatus
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

RECORDS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "linear_hostile_pairs.jsonl").open()
]
FROM_CACHE = (StepStatus.REUSED, StepStatus.PATCHED, StepStatus.RECOMPUTED)


def ask_after(cached_prompt: str, cached_reply: str | None, prompt: str) -> Answer:
    """`prompt` asked of an engine whose store holds the answer to `cached_prompt` (the
    model's `cached_reply`, or the solver's when None); every entry is a candidate."""
    store = MemoryStore()
    strategy = (
        LinearStrategy.SOLVER_FIRST if cached_reply is None else LinearStrategy.MODEL_FIRST
    )
    writer = StepCache(
        ScriptedBackend([cached_reply or "(the model's answer)"]), HashedEmbedder(), store,
        settings=replace(PipelineSettings(), linear_strategy=strategy),
    )
    writer.answer(cached_prompt)
    reader = StepCache(
        ScriptedBackend(["(the model's answer)"]), HashedEmbedder(), store,
        settings=replace(PipelineSettings(), min_similarity=-1.0),
    )
    return reader.answer(prompt)


def served_wrong(record: dict[str, Any]) -> list[str]:
    """The wrong step the record names, if it came from the cache again after the same
    lines as then ("no solution" after a derivation that reaches `1 = 5` is right; straight
    from the problem it is the wrong step)."""
    answer = ask_after(record["cached_prompt"], record["cached_model_text"], record["prompt"])
    then = record["served_text"].splitlines()
    wrong = then.index(record["served_step"])
    now = [s.text for s in answer.steps]
    return [
        s.text for i, s in enumerate(answer.steps)
        if s.status in FROM_CACHE and s.text == record["served_step"]
        and now[:i] == then[:wrong]
    ]


@pytest.mark.parametrize(
    "record", RECORDS, ids=[f"{i}-{r['class'][:24]}" for i, r in enumerate(RECORDS)]
)
def test_a_found_pair_is_not_served_its_wrong_step(record: dict[str, Any]) -> None:
    assert served_wrong(record) == [], (record["prompt"], record["why_wrong"])
