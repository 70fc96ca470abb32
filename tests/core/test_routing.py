"""A request is routed once: each cached entry's constraints are read once and the skip rule
(for open text, a whole gate comparison) runs once per entry, whichever way retrieval goes.

The handlers are the engine's real ones; the tests only count how often the engine asks them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import CachePath, ChatMessage, TaskKind
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

ITALY = "What is the capital of Italy?"
LINEAR = "Solve for x: 3x + 5 = 20. Show each step."


def counted(
    cache: StepCache, kind: str, monkeypatch: pytest.MonkeyPatch
) -> Counter[str]:
    """How often the engine asks the `kind` handler to read constraints and to skip."""
    handler = next(h for h in cache.handlers if h.kind == kind)
    calls: Counter[str] = Counter()

    def spy(name: str) -> Callable[..., Any]:
        real = getattr(handler, name)

        def call(*args: Any) -> Any:
            calls[name] += 1
            return real(*args)

        return call

    for name in ("read_constraints", "skip_reason"):
        monkeypatch.setattr(handler, name, spy(name))
    return calls


def engine(replies: list[str], **settings: Any) -> StepCache:
    return StepCache(
        ScriptedBackend(replies), HashedEmbedder(), MemoryStore(),
        settings=replace(PipelineSettings(), **settings),
    )


@pytest.mark.parametrize("signature_lookup", [True, False])
def test_open_text_the_gate_accepts_is_compared_once(
    signature_lookup: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = engine(["Rome is the capital of Italy."], signature_lookup=signature_lookup)
    cache.answer(ITALY)
    calls = counted(cache, TaskKind.TEXT, monkeypatch)
    again = cache.answer("what's the capital of italy")
    assert again.path == CachePath.REUSE_ONLY
    assert calls == {"read_constraints": 1, "skip_reason": 1}


def test_open_text_the_gate_rejects_is_compared_once(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = engine(["Rome is the capital of Italy.", "Paris is the capital of France."])
    cache.answer(ITALY)
    calls = counted(cache, TaskKind.TEXT, monkeypatch)
    other = cache.answer("What is the capital of France?")
    assert other.path == CachePath.SKIP_REUSE
    assert other.skip_reason == "a name changed: Italy → France"
    assert calls == {"read_constraints": 1, "skip_reason": 1}


@pytest.mark.parametrize("signature_lookup", [True, False])
def test_a_same_shaped_equation_is_read_once(
    signature_lookup: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = engine([], signature_lookup=signature_lookup)
    cache.answer(LINEAR)
    calls = counted(cache, TaskKind.LINEAR, monkeypatch)
    changed = cache.answer("Solve for x: 3x + 7 = 20. Show each step.")
    assert changed.path == CachePath.SOLVER and changed.text.endswith("x = 13/3")
    assert calls == {"read_constraints": 1, "skip_reason": 1}


def test_fit_history_drops_the_oldest_exchange_that_does_not_fit() -> None:
    """The engine's rule for every front end: its own system prompt and token limit."""
    cache = engine([], max_tokens=40, system_prompt="Be brief.")
    old = [ChatMessage("user", "one " * 30), ChatMessage("assistant", "two " * 30)]
    new = [ChatMessage("user", "three"), ChatMessage("assistant", "four")]
    fitted = cache.fit_history([*old, *new], "five", context=120)
    assert fitted.messages == tuple(new) and fitted.dropped == 1
    assert cache.fit_history([], "five", context=120).messages == ()
