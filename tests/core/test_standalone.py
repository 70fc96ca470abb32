"""A checked kind reads only a request that stands alone: a system prompt or earlier turns
that may change what it asks make it open text, sent to the model with all of them."""

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


def solved(cache: StepCache, prompt: str) -> list[ChatMessage]:
    answer = cache.answer(prompt)
    assert answer.path == CachePath.SOLVER
    return [ChatMessage("user", prompt), ChatMessage("assistant", answer.text)]


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


@pytest.mark.parametrize("earlier", [
    [ChatMessage("user", "From now on every age I give is in years; answer in months."),
     ChatMessage("assistant", "OK.")],
    [ChatMessage("user", "Every number I write is in base 8."), ChatMessage("assistant", "OK.")],
    [ChatMessage("user", "Hello"), ChatMessage("assistant", "Hi!")],
])
def test_a_request_after_earlier_turns_is_open_text(earlier: list[ChatMessage]) -> None:
    cache, backend = engine()
    for prompt in (EQUATION, PERSON):
        answer = cache.answer(prompt, history=earlier, in_conversation=True)
        assert (answer.task, answer.text) == (TaskKind.TEXT, MODEL_REPLY)
        assert [m.content for m in backend.calls[-1]] == [
            *(m.content for m in earlier), prompt]


def test_equations_asked_one_after_another_stay_with_the_solver() -> None:
    cache, backend = engine()
    earlier = solved(cache, "Solve for x: 2x + 1 = 7") + solved(cache, "Solve for y: 5y = 20")
    for prompt, kind in [(EQUATION, TaskKind.LINEAR), (PERSON, TaskKind.JSON)]:
        answer = cache.answer(prompt, history=earlier, in_conversation=True)
        assert (answer.task, answer.path) == (kind, CachePath.SOLVER)
    assert backend.calls == []


@pytest.mark.parametrize("reply", [
    "OK. From now on every number is in base 8.",  # no derivation of the equation
    "Subtract 1 from both sides: 2x = 6\nx = 4",  # a wrong one
])
def test_an_earlier_equation_with_an_answer_that_does_not_check_is_not_forgiven(
    reply: str,
) -> None:
    cache, _ = engine()
    earlier = [ChatMessage("user", "Solve for x: 2x + 1 = 7"), ChatMessage("assistant", reply)]
    answer = cache.answer(EQUATION, history=earlier, in_conversation=True)
    assert answer.task == TaskKind.TEXT


def test_earlier_turns_left_out_to_fit_are_never_forgiven() -> None:
    cache, _ = engine()
    earlier = solved(cache, "Solve for x: 2x + 1 = 7")
    assert cache.answer(EQUATION, in_conversation=True).task == TaskKind.TEXT
    assert cache.answer(EQUATION, history=earlier, in_conversation=True,
                        trimmed=True).task == TaskKind.TEXT
