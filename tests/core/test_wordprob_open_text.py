"""Prompts claimed as word problems whose answers write no arithmetic are open text: stored
and reused exactly as the text kind would, and claimed alike under every edit the text
gate forgives."""

from __future__ import annotations

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.wordprob.request import is_word_problem
from stepchat.core.types import CachePath, ChatMessage, TaskKind
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore
from tests.wordprob_cases import FOG, FOG_SOLUTION

APOLLO = ("What happened in 1969 when Apollo 11 landed on the Moon, and who is the man who "
          "walked there first?")
APOLLO_ANSWER = "Apollo 11 landed on July 20, 1969; Neil Armstrong walked on the Moon first."

NEAR_REPEATS = [
    APOLLO,
    APOLLO.lower(),
    APOLLO.rstrip("?"),
    "Hi! " + APOLLO,
    APOLLO + " Thanks!",
    APOLLO.replace("who is", "who's"),
]
LOOK_ALIKES = [
    APOLLO.replace("1969", "1970"),
    APOLLO.replace("Apollo 11", "Apollo 13"),
    APOLLO.replace("first", "second"),
    APOLLO.replace("landed on", "left"),
]


def engine_with(*replies: str) -> tuple[StepCache, ScriptedBackend]:
    backend = ScriptedBackend(list(replies))
    return StepCache(backend, HashedEmbedder(), MemoryStore()), backend


@pytest.mark.parametrize("near", NEAR_REPEATS)
def test_an_open_answer_is_served_for_exact_and_near_repeats(near: str) -> None:
    engine, backend = engine_with(APOLLO_ANSWER)
    first = engine.answer(APOLLO)
    assert first.task == TaskKind.WORD_PROBLEM and first.stored_entry is not None
    again = engine.answer(near)
    assert again.hit and again.path == CachePath.REUSE_ONLY
    assert again.text == APOLLO_ANSWER and len(backend.calls) == 1


@pytest.mark.parametrize("other", LOOK_ALIKES)
def test_look_alikes_of_an_open_answer_go_to_the_model(other: str) -> None:
    engine, backend = engine_with(APOLLO_ANSWER, "Another answer.")
    engine.answer(APOLLO)
    answer = engine.answer(other)
    assert not answer.hit and answer.path == CachePath.SKIP_REUSE
    assert len(backend.calls) == 2


def test_a_claim_does_not_change_under_the_edits_the_text_gate_forgives() -> None:
    """Ten words with "please", nine without: a near repeat must reach the same kind."""
    short = "What happened in 1969 when Apollo 11 landed there?"
    assert is_word_problem(short) == is_word_problem("Please, " + short)
    assert is_word_problem(short) == is_word_problem(short + " Thanks a lot!")
    assert is_word_problem(APOLLO) == is_word_problem(APOLLO.rstrip("?")) is True
    assert is_word_problem(APOLLO.replace("who is", "who's"))


def test_a_word_problem_repeated_with_a_greeting_is_served_whole() -> None:
    engine, backend = engine_with(FOG_SOLUTION)
    engine.answer(FOG)
    again = engine.answer("Hi! " + FOG)
    assert again.hit and again.text == FOG_SOLUTION and len(backend.calls) == 1


def test_a_number_changed_in_an_open_answer_is_never_recomputed() -> None:
    engine, _ = engine_with("I think it takes about 140 minutes.", "Fresh answer.")
    engine.answer(FOG)
    variant = engine.answer(FOG.replace("10 minutes", "20 minutes"))
    assert not variant.hit and variant.skip_reason is not None
    assert "number changed" in variant.skip_reason


def test_a_follow_up_claimed_as_a_word_problem_reads_the_earlier_turns() -> None:
    engine, backend = engine_with(APOLLO_ANSWER, "Michael Collins stayed in orbit.")
    history = [ChatMessage("user", APOLLO), ChatMessage("assistant", APOLLO_ANSWER)]
    follow_up = "And who stayed in orbit around the Moon in 1969 while the 2 others walked?"
    answer = engine.answer(follow_up, history=history)
    assert answer.task == TaskKind.WORD_PROBLEM
    sent = backend.calls[-1]
    assert [m.content for m in sent if m.role != "system"] == [APOLLO, APOLLO_ANSWER, follow_up]
    assert answer.stored_entry is None


@pytest.mark.parametrize("prompt", [
    "A plague infects ten people. Every day, each infected person infects six others. How "
    "many people are infected after three days?",
    "Una plaga infecta a diez personas. Cada día, cada persona infectada infecta a otras seis. "
    "¿Cuántas personas están infectadas después de tres días?",
    "Eine Seuche infiziert zehn Menschen. Jeden Tag steckt jeder Infizierte sechs weitere an. "
    "Wie viele Menschen sind nach drei Tagen infiziert?",
    "Эпидемия заражает десять человек. Каждый день каждый заражённый заражает ещё шесть "
    "человек. Сколько людей заражено через три дня?",
])
def test_a_prompt_that_writes_its_numbers_in_words_is_claimed(prompt: str) -> None:
    assert is_word_problem(prompt)


@pytest.mark.parametrize("prompt", [
    # "to" is Danish for 2 and "once" Spanish for 11: one word, or one said twice, is no count
    "I want to go to the market to buy bread once more before it closes tonight, any tips?",
    "Could you write me a short poem about the sea and the wind in autumn, please?",
    "Un poème sur la mer et le vent d'automne, avec une rime à la fin de chaque vers.",
])
def test_a_word_that_reads_as_a_number_in_another_language_claims_nothing(prompt: str) -> None:
    assert not is_word_problem(prompt)
