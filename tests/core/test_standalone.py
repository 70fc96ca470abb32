"""A checked kind is read only under no system prompt or a persona line: any other may
change what the request asks, and the request is open text, sent with it to the model."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import DEFAULT_SETTINGS
from stepchat.core.standalone import NOT_ALONE_NOTE, neutral_system_prompt
from stepchat.core.types import CachePath, ChatMessage, TaskKind
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

EQUATION = "Solve for x: 3x + 5 = 20"
PERSON = "Return a JSON object with keys name and age for a person called Alice who is 30."
MODEL_REPLY = "Alice a 360 mois."


def engine(system_prompt: str = "") -> tuple[StepCache, ScriptedBackend]:
    backend = ScriptedBackend([MODEL_REPLY] * 4)
    settings = replace(DEFAULT_SETTINGS, system_prompt=system_prompt)
    return StepCache(backend, HashedEmbedder(), MemoryStore(), settings=settings), backend


@pytest.mark.parametrize("system_prompt", [
    "", "  ", "You are a helpful assistant.", "you are a helpful assistant",
    "You are a helpful AI assistant.",
])
def test_an_empty_or_persona_system_prompt_leaves_the_solver_answering(system_prompt: str) -> None:
    cache, backend = engine(system_prompt)
    for prompt, kind in [(EQUATION, TaskKind.LINEAR), (PERSON, TaskKind.JSON)]:
        answer = cache.answer(prompt)
        assert (answer.task, answer.path) == (kind, CachePath.SOLVER)
    assert backend.calls == []


@pytest.mark.parametrize("system_prompt", [
    "Always answer in French.",
    "All numbers in this conversation are written in base 8.",
    "You are a helpful assistant. Give ages in months.",
    "You are a helpful assistant who never uses digits.",
])
def test_any_other_system_prompt_makes_a_checked_request_open_text(system_prompt: str) -> None:
    cache, backend = engine(system_prompt)
    for prompt in (EQUATION, PERSON):
        answer = cache.answer(prompt)
        assert (answer.task, answer.text) == (TaskKind.TEXT, MODEL_REPLY)
        assert NOT_ALONE_NOTE in answer.notes
        assert backend.calls[-1][0] == ChatMessage("system", system_prompt)
    assert not neutral_system_prompt(system_prompt)


def test_a_request_after_earlier_turns_is_still_read_from_its_own_words() -> None:
    """Earlier turns do not change the kind: the solver and stated values answer the
    request as it writes it, and the conversation rule keeps it out of the cache."""
    cache, backend = engine()
    earlier = [ChatMessage("user", "Hello"), ChatMessage("assistant", "Hi!")]
    for prompt, kind in [(EQUATION, TaskKind.LINEAR), (PERSON, TaskKind.JSON)]:
        answer = cache.answer(prompt, history=earlier, in_conversation=True)
        assert (answer.task, answer.path) == (kind, CachePath.SOLVER)
        assert answer.stored_entry is None
    assert backend.calls == []
