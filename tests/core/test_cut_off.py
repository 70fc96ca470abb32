"""Answers the token limit cut: said so, never stored, and old cut entries never served.

The scripted model cuts a reply longer than the call's `max_tokens` and reports
`finish_reason` "length", as llama.cpp and OpenAI-compatible servers do.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.cutoff import COMPLETE_KEY, cut_off_reason, margin
from stepchat.core.notes import EMPTY_NOTE, NOT_CHECKED_NOTE
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import Answer, CacheEntry, CachePath, Completion, Step
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

LIMIT = 12
LONG = " ".join(f"word{i}" for i in range(40))
SHORT = "A short and complete answer."
TEXT = "Explain in detail how a car engine works."


def make(replies: list[str], **settings: Any) -> StepCache:
    return StepCache(
        ScriptedBackend(replies), HashedEmbedder(), MemoryStore(),
        settings=replace(PipelineSettings(max_tokens=LIMIT), **settings),
    )


def test_a_cut_text_answer_says_so_and_is_not_stored() -> None:
    cache = make([LONG])
    first = cache.answer(TEXT)
    assert first.finish_reason == "length"
    assert first.to_record()["finish_reason"] == "length"
    assert "cut off at the token limit (12 tokens); not cached" in first.notes
    assert first.stored_entry is None and cache.store.count() == 0
    again = cache.answer(TEXT)
    assert not again.hit and again.path == CachePath.MISS
    assert len(cache.backend.calls) == 2  # type: ignore[attr-defined]


class _ContextFills(ScriptedBackend):
    """A model whose context fills after a long prompt: "length" before the limit."""

    def complete(self, *args: Any, **kwargs: Any) -> Completion:
        done = super().complete(*args, **kwargs)
        return replace(done, prompt_tokens=2040, completion_tokens=8, finish_reason="length")


def test_a_reply_cut_by_a_full_context_says_so_not_the_limit() -> None:
    cache = StepCache(_ContextFills([SHORT]), HashedEmbedder(), MemoryStore(),
                      settings=replace(PipelineSettings(max_tokens=96)))
    answer = cache.answer(TEXT)
    assert answer.notes == ["cut off where the model's context filled (2048 tokens); not cached"]
    assert answer.stored_entry is None


@pytest.mark.parametrize("reply", ["", "   ", "\n\n"])
def test_an_empty_reply_is_shown_and_never_stored(reply: str) -> None:
    cache = make([reply, SHORT])
    first = cache.answer(TEXT)
    assert first.finish_reason == "stop" and not first.text.strip()
    assert first.stored_entry is None and cache.store.count() == 0
    assert first.notes == [EMPTY_NOTE]
    assert cache.answer(TEXT).text == SHORT


def test_an_answer_that_fails_its_checks_says_it_was_not_stored() -> None:
    cache = make(["Sorry, I cannot help with that."] * 2)
    answer = cache.answer("Give me a JSON object with keys colour and hex for a random colour.")
    assert answer.verified is False and answer.stored_entry is None
    assert NOT_CHECKED_NOTE in answer.notes


def test_a_finished_answer_is_stored_marked_and_served() -> None:
    cache = make([SHORT])
    first = cache.answer(TEXT)
    assert first.finish_reason == "stop" and first.to_record()["finish_reason"] == "stop"
    assert first.stored_entry is not None
    assert cache.store.entries()[0].constraints[COMPLETE_KEY] is True
    again = cache.answer(TEXT)
    assert again.path == CachePath.REUSE_ONLY and again.finish_reason == "stop"


def test_a_cut_json_answer_is_not_stored() -> None:
    """An open member the limit cut mid-string would read as valid after the repair."""
    cut = '{"name": "Bob", "bio": "' + LONG + '"}'
    cache = make([cut, '{"name": "Bob", "bio": "a cut"}'])
    answer = cache.answer("Return a JSON object with keys name and bio for Bob.")
    assert answer.task == "json" and answer.finish_reason == "length"
    assert answer.stored_entry is None and cache.store.count() == 0


def test_a_cut_equation_answer_from_the_model_is_not_stored() -> None:
    rambling = "3x + 5 = 20\n3x = 15\nx = 5\n" + LONG
    cache = make([rambling], linear_strategy="model-first")
    answer = cache.answer("Solve for x: 3x + 5 = 20. Show each step.")
    assert answer.finish_reason == "length" and answer.stored_entry is None


def _old_entry(cache: StepCache, tokens: int, *, marked: bool = False) -> CacheEntry:
    """An entry as a version before cut-off answers were refused wrote it (no mark)."""
    task = cache.detect(TEXT)[1]
    constraints = task.constraints.to_json()
    if marked:
        constraints[COMPLETE_KEY] = True
    entry = CacheEntry(
        id="old", prompt=TEXT, vector=cache.embedder.embed(TEXT), scope=cache.scope,
        task=task.kind, signature=task.signature, constraints=constraints,
        steps=[Step("The engine burns fuel to", "paragraph", origin="model")],
        model="scripted", created=0.0, last_hit=0.0, tokens=tokens,
    )
    cache.store.add(entry)
    return entry


def test_an_old_entry_at_the_limit_is_not_served_and_the_reason_says_why() -> None:
    cache = make([SHORT], max_tokens=256)
    _old_entry(cache, tokens=256)
    answer = cache.answer(TEXT)
    assert answer.path == CachePath.SKIP_REUSE and not answer.hit
    assert answer.skip_reason is not None and "cut off at the token limit" in answer.skip_reason
    again = cache.answer(TEXT)  # the fresh answer was stored, marked, and now serves
    assert again.path == CachePath.REUSE_ONLY and again.text == SHORT


def test_an_old_entry_cut_under_the_shipped_limit_is_refused_after_the_limit_was_raised() -> None:
    cache = make([SHORT], max_tokens=1024)
    _old_entry(cache, tokens=251)
    assert cache.answer(TEXT).path == CachePath.SKIP_REUSE


def test_old_entries_well_under_the_limit_and_marked_entries_are_served() -> None:
    short_old = make([SHORT], max_tokens=256)
    _old_entry(short_old, tokens=40)
    assert short_old.answer(TEXT).path == CachePath.REUSE_ONLY
    marked = make([SHORT], max_tokens=256)
    _old_entry(marked, tokens=256, marked=True)
    assert marked.answer(TEXT).path == CachePath.REUSE_ONLY


def test_the_window_covers_what_trimming_loses() -> None:
    """Probes with the bundled model stored cut replies up to 6 tokens under the limit."""
    entry = CacheEntry("e", "p", [0.0], "s", "text", "sig", {}, [], "m", 0.0, 0.0, tokens=250)
    assert margin(256) >= 6 and cut_off_reason(entry, 256) is not None
    assert cut_off_reason(replace(entry, tokens=200), 256) is None
    assert cut_off_reason(replace(entry, constraints={COMPLETE_KEY: True}), 256) is None


def test_a_saved_record_keeps_the_finish_reason() -> None:
    record = json.loads(json.dumps(make([LONG]).answer(TEXT).to_record()))
    assert Answer.from_record(record).finish_reason == "length"
    del record["finish_reason"]  # a conversation saved before the field existed
    assert Answer.from_record(record).finish_reason == "stop"


class StoppingServer(ScriptedBackend):
    """A server that ends its replies with `reason` (its content filter, or none at all)."""

    def __init__(self, replies: list[str], reason: str) -> None:
        super().__init__(replies)
        self.reason = reason

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        return replace(super().complete(*args, **kwargs), finish_reason=self.reason)


@pytest.mark.parametrize(("reason", "said", "note"), [
    ("content_filter", "content_filter", "finish reason 'content_filter'"),
    ("tool_calls", "tool_calls", "finish reason 'tool_calls'"),
    ("", "unfinished", "no finish reason given"),
])
def test_a_reply_its_server_stopped_early_is_shown_and_never_stored(
    reason: str, said: str, note: str
) -> None:
    """Only a reply the model ended ("stop") is known to be whole: "The capital of France
    is" stopped by a filter, or a stream that closed without a reason, is not cached."""
    cache = StepCache(StoppingServer(["The capital of France is"], reason), HashedEmbedder(),
                      MemoryStore())
    first = cache.answer("What is the capital of France?")
    assert first.text == "The capital of France is" and first.finish_reason == said
    assert f"the model stopped before its reply's end ({note}); not cached" in first.notes
    assert first.stored_entry is None and cache.store.count() == 0
    again = cache.answer("What is the capital of France?")
    assert not again.hit
