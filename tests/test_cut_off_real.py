"""The bundled model cut at a tiny token limit, on the real stack: the answer says "length",
nothing is stored in LanceDB, and the same request is answered by the model again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from stepchat.config import load_config
from stepchat.core.pipeline import StepCache
from stepchat.core.types import CachePath
from stepchat.runtime import close_store, load_parts

pytestmark = pytest.mark.slow

PROMPT = "Explain in detail how a car engine works."


def test_the_real_model_cut_at_12_tokens_is_never_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path))
    monkeypatch.delenv("STEPCHAT_CONFIG", raising=False)
    config = load_config()
    parts = load_parts(config)
    settings = replace(config.pipeline_for(parts.backend.model_id), max_tokens=12)
    cache = StepCache(parts.backend, parts.embedder, parts.store, settings=settings)
    try:
        first = cache.answer(PROMPT)
        assert first.finish_reason == "length" and first.tokens.generated == 12
        assert "cut off at the token limit (12 tokens); not cached" in first.notes
        assert first.stored_entry is None and parts.store.count() == 0
        again = cache.answer(PROMPT)
        assert again.path == CachePath.MISS and not again.hit
        assert again.finish_reason == "length"

        roomy = StepCache(parts.backend, parts.embedder, parts.store,
                          settings=replace(settings, max_tokens=256))
        short = roomy.answer("Say only the word yes.")
        assert short.finish_reason == "stop" and short.stored_entry is not None
    finally:
        close_store(parts.store)
