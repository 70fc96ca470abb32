"""Arm construction and warm-up: warming costs no model calls and leaves no cache behind."""

from __future__ import annotations

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.bench.arms import ARM_NAMES, Shared, StepCacheArm, make_arm, warm_model, warm_up
from stepchat.core.settings import PipelineSettings
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore


def shared() -> Shared:
    return Shared(ScriptedBackend(["x = 1"]), HashedEmbedder(), PipelineSettings(), MemoryStore)


@pytest.mark.parametrize("name", ARM_NAMES)
def test_warm_up_never_calls_the_shared_model(name: str) -> None:
    parts = shared()
    warm_up(name, parts)
    assert isinstance(parts.backend, ScriptedBackend)
    assert parts.backend.calls == []


def test_warm_model_makes_one_short_call() -> None:
    parts = shared()
    warm_model(parts)
    assert isinstance(parts.backend, ScriptedBackend)
    assert len(parts.backend.calls) == 1


def test_each_stepcache_arm_gets_a_fresh_store_and_the_paper_arm_the_paper_settings() -> None:
    stores: list[MemoryStore] = []

    def new_store() -> MemoryStore:
        stores.append(MemoryStore())
        return stores[-1]

    parts = Shared(ScriptedBackend(["x = 1"]), HashedEmbedder(), PipelineSettings(), new_store)
    paper = make_arm("stepcache-paper", parts)
    shipped = make_arm("stepcache", parts)
    assert isinstance(paper, StepCacheArm) and isinstance(shipped, StepCacheArm)
    assert paper.store is not shipped.store and len(stores) == 2
    assert paper.engine.settings == PipelineSettings().paper()
    assert shipped.engine.settings == PipelineSettings()


def test_unknown_arm_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown arm"):
        make_arm("redis", shared())


def test_the_nocache_arm_serves_the_model_text_unchanged_as_the_engine_asks_for_it() -> None:
    """A wrong model answer stays wrong (no solver, no check), asked in the task's own words:
    the linear system message, the JSON schema and token budget."""
    backend = ScriptedBackend(["x = 10", '{"name": "Bob"}'])
    arm = make_arm("nocache", Shared(backend, HashedEmbedder(), PipelineSettings()))
    served = arm.serve("Solve for x: 3x + 5 = 20. Show each step.")
    assert served.text == "x = 10" and served.path == "miss"
    assert served.completion_tokens == 3 and served.steps[0]["kind"] == "raw"
    assert backend.calls[0][0].role == "system" and "'x = value'" in backend.calls[0][0].content
    json_prompt = "Return a JSON object with keys name and age for Bob, whose age is 4."
    assert arm.serve(json_prompt).text == '{"name": "Bob"}'
    assert backend.schemas[1] is not None and backend.schemas[1]["required"] == ["name", "age"]
