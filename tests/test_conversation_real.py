"""A conversation on the real stack: the bundled SmolLM2 GGUF, MiniLM and LanceDB.

The app's model-lane worker (`answer_with_model`) sends earlier turns trimmed with the model's own
tokenizer; the follow-up reaches the model with them and is not cached; an equation cached
as a first turn is not served inside a conversation (its earlier turns may change what it
asks), and is served as another chat's first turn.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from stepchat.config import load_config
from stepchat.core.pipeline import StepCache
from stepchat.core.types import ChatMessage
from stepchat.runtime import build_cache, load_parts
from stepchat.tui.messages import AnswerReady, HistoryTrimmed
from stepchat.tui.requests import Attempt, answer_with_model

pytestmark = pytest.mark.slow

GREEN = "My favourite colour is green. Please remember it."
FOLLOW_UP = "What is my favourite colour?"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StepCache]:
    home: Path = tmp_path_factory.mktemp("stepchat-conversation")
    with pytest.MonkeyPatch.context() as env:  # restores STEPCHAT_HOME afterwards
        env.setenv("STEPCHAT_HOME", str(home))
        config = load_config()
        # Short replies: the flows need the model to answer, not to answer at length.
        config = replace(config, pipeline=replace(config.pipeline, max_tokens=48))
        yield build_cache(config, load_parts(config))


class Never:
    def is_set(self) -> bool:
        return False


def ask(
    cache: StepCache, prompt: str, history: list[ChatMessage], context: int = 2048
) -> list[Any]:
    posted: list[Any] = []
    attempt = Attempt(
        1, prompt, tuple(history), Never(), cache, reuse=True, store=True, context=context
    )
    answer_with_model(attempt, threading.Lock(), post=posted.append)
    return posted


def record_of(posted: list[Any]) -> dict[str, Any]:
    ready = [m for m in posted if isinstance(m, AnswerReady)]
    assert ready, posted
    return ready[0].answer.to_record()


def test_a_follow_up_carries_the_conversation_and_is_not_cached(cache: StepCache) -> None:
    opener = record_of(ask(cache, GREEN, []))
    history = [ChatMessage("user", GREEN), ChatMessage("assistant", opener["answer"])]
    alone = record_of(ask(cache, FOLLOW_UP, []))
    follow = record_of(ask(cache, FOLLOW_UP, history))
    # The earlier exchange reached the model: its prompt is longer by at least that much.
    earlier = sum(cache.backend.count_tokens(m.content) for m in history)
    assert follow["tokens"]["prompt"] >= alone["tokens"]["prompt"] + earlier
    assert follow["path"] == "miss" and follow["stored_entry"] is None
    assert "a follow-up in a conversation: not cached" in follow["notes"]


def test_turns_that_do_not_fit_are_dropped_and_reported(cache: StepCache) -> None:
    long_turn = "Tell me everything about the history of tea. " * 20
    history = [ChatMessage("user", long_turn), ChatMessage("assistant", long_turn),
               ChatMessage("user", GREEN), ChatMessage("assistant", "I will remember.")]
    posted = ask(cache, FOLLOW_UP, history, context=300)  # room for the short exchange only
    trimmed = [m for m in posted if isinstance(m, HistoryTrimmed)]
    assert [m.dropped for m in trimmed] == [1]
    assert record_of(posted)["answer"]


def test_an_equation_is_reused_only_as_a_first_turn(cache: StepCache) -> None:
    first = record_of(ask(cache, "Solve 4x + 2 = 18 for x.", []))
    assert first["stored_entry"]
    other = [ChatMessage("user", "Hello."), ChatMessage("assistant", "Hi! How can I help?")]
    in_chat = record_of(ask(cache, "Solve 4x + 2 = 18 for x.", other))
    assert not in_chat["hit"] and not in_chat["stored_entry"]
    again = record_of(ask(cache, "Solve 4x + 2 = 18 for x.", []))
    assert again["path"] == "reuse-only" and again["hit"]
    assert again["answer"] == first["answer"]
