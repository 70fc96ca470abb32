"""Marking an answer wrong: a word problem's instances go together, anything else alone."""

from __future__ import annotations

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.wrong import forget_wrong
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore
from tests.wordprob_cases import FOG, FOG_SOLUTION, fog, fog_solution


def test_a_word_problem_marked_wrong_takes_its_instances_along() -> None:
    store = MemoryStore()
    engine = StepCache(ScriptedBackend([FOG_SOLUTION, fog_solution(20, 3, 42), "Paris."]),
                       HashedEmbedder(), store)
    engine.answer(FOG)
    newest = engine.answer(fog(20, 3, 42)).stored_entry
    engine.answer("What is the capital of France?")
    assert newest is not None and store.count() == 3
    assert forget_wrong(store, newest) == 2
    assert [e.prompt for e in store.entries()] == ["What is the capital of France?"]
    assert not engine.answer(fog(16, 3, 42)).hit


def test_any_other_answer_marked_wrong_goes_alone() -> None:
    store = MemoryStore()
    engine = StepCache(ScriptedBackend(["Paris.", "Rome."]), HashedEmbedder(), store)
    first = engine.answer("What is the capital of France?").stored_entry
    engine.answer("What is the capital of Italy?")
    assert first is not None
    assert forget_wrong(store, first) == 1
    assert store.count() == 1
    assert forget_wrong(store, "no such entry") == 0
