"""The look-alikes of issue 20 on the real stack: MiniLM finds the cached request, LanceDB
holds it, and the model answers every one of them (none is a hit).

Where MiniLM puts the two requests closer than `text_min_similarity` (0.6), the answer is a
skip-reuse whose reason names the change; farther apart (`π`/`φ` at 0.46, `10³`/`103` at
0.41), it is a plain miss, as for any request nothing near was cached for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.bench.pairs import restate
from stepchat.core.pipeline import StepCache
from stepchat.core.types import CachePath
from stepchat.runtime import close_store, load_embedder, open_store
from tests.core.test_textgate_issue_cases import ISSUE_CASES

pytestmark = pytest.mark.slow


def test_no_look_alike_of_the_issue_is_served_from_a_real_cache(tmp_path: Path) -> None:
    embedder = load_embedder()
    skipped = 0
    for n, (cached, new, quoted) in enumerate(ISSUE_CASES):
        store, _ = open_store(tmp_path / f"cache-{n}", embedder.dim)
        try:
            cache = StepCache(ScriptedBackend([restate]), embedder, store)
            cache.answer(cached)
            answer = cache.answer(new)
        finally:
            close_store(store)
        assert not answer.hit and answer.text == f"An answer to: {new}"
        assert answer.path in (CachePath.SKIP_REUSE, CachePath.MISS)
        if answer.path == CachePath.SKIP_REUSE:
            skipped += 1
            assert quoted[0] in (answer.skip_reason or ""), answer.skip_reason
    assert skipped >= len(ISSUE_CASES) - 5


def test_the_hostile_pairs_go_to_the_model_and_near_repeats_are_served(tmp_path: Path) -> None:
    """The pairs a hostile pass found, fixed by narrowing the forgiven rules, through MiniLM
    and LanceDB: none is served; and surface edits at the new edges still are."""
    from tests.core.test_textgate_hostile import FIXED, short_answer

    embedder = load_embedder()
    store, _ = open_store(tmp_path / "cache", embedder.dim)
    try:
        cache = StepCache(ScriptedBackend([short_answer]), embedder, store)
        for pair in FIXED:
            store.clear()
            cache.answer(pair["a"])
            answer = cache.answer(pair["b"])
            assert not answer.hit, (pair["a"], pair["b"], answer.path)
        for cached, again in [
            ("What is the drinking age in the UK?", "what is the drinking age in the UK"),
            ("How do I reset my router?", "HOW DO I RESET MY ROUTER??"),
            ("How do I reset my router?", "Hi there, how do I reset my router? Thanks!"),
            ("Why won't my Mac start?", "Why will not my Mac start, please?"),
            ("What is 5 kg in pounds?", "WHAT IS 5 KG IN POUNDS?"),
            ("What does the French word maison mean?", "what does the french word maison mean"),
            ("Hello!\nHow do I reset my router?", "How do I reset my router?"),
        ]:
            store.clear()
            cache.answer(cached)
            assert cache.answer(again).hit, again
    finally:
        close_store(store)
