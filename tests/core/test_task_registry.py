"""A task kind is a module and a registry line: the engine serves one it has never heard of.

`ReverseHandler` below is a whole task kind ("Reverse the word: banana"), written as a new
module would be; the only other change it needs is its line in the registry, here
`BUILT_IN.with_kind(...)`. The engine reuses, substitutes and stores it like a built-in kind,
and the stores keep its name as they keep any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.cutoff import handler_constraints
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import FixedClock, Store
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.base import Generation, ModelRequest, Task
from stepchat.core.tasks.registry import BUILT_IN
from stepchat.core.types import AnswerStep, CachePath, Step, StepStatus
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.lance import LanceStore
from stepchat.store.memory import MemoryStore

_ASK = re.compile(r"^Reverse the word:\s*([a-z]+)\s*$")


@dataclass(frozen=True)
class Reverse:
    word: str

    def to_json(self) -> dict[str, Any]:
        return {"word": self.word}


class ReverseHandler:
    """Reverse one word: one step, checked exactly, substituted when the word changes."""

    kind = "reverse"
    similarity_floor = candidate_floor = 0.5

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> ReverseHandler:
        return cls()

    def detect(self, prompt: str) -> Task[Reverse] | None:
        found = _ASK.match(prompt)
        return Task(self.kind, prompt, "reverse|word", Reverse(found[1])) if found else None

    def read_constraints(self, stored: dict[str, Any]) -> Reverse:
        return Reverse(str(stored.get("word", "")))

    def segment(self, text: str) -> list[Step]:
        return [Step(text.strip(), "word")]

    def stitch(self, steps: Sequence[Step]) -> str:
        return "".join(s.text for s in steps)

    def skip_reason(self, task: Task[Reverse], cached: Reverse) -> str | None:
        return None

    def distance(self, task: Task[Reverse], cached: Reverse) -> int:
        return int(task.constraints.word != cached.word)

    def verify(
        self, task: Task[Reverse], steps: Sequence[Step], cached: Reverse | None = None
    ) -> list[bool]:
        return [s.text == task.constraints.word[::-1] for s in steps]

    def substitute(
        self, task: Task[Reverse], cached: Reverse, steps: Sequence[Step]
    ) -> list[Step] | None:
        return [Step(task.constraints.word[::-1], "word")]

    def patch(
        self,
        task: Task[Reverse],
        steps: Sequence[AnswerStep],
        passed: Sequence[bool],
        gen: Generation,
    ) -> list[AnswerStep]:
        return [AnswerStep(task.constraints.word[::-1], "word", StepStatus.FALLBACK)]

    def model_request(self, task: Task[Reverse]) -> ModelRequest:
        return ModelRequest(task.prompt, "Reply with the word reversed.")

    def generate(self, task: Task[Reverse], gen: Generation) -> list[AnswerStep]:
        reply = gen.send(self.model_request(task), StepStatus.REGENERATED)
        steps = self.segment(reply.text)
        return self.patch(task, [], [], gen) if not all(self.verify(task, steps)) else [
            AnswerStep(s.text, s.kind, StepStatus.REGENERATED) for s in steps
        ]

    def annotate(self, task: Task[Reverse], steps: Sequence[AnswerStep]) -> list[AnswerStep]:
        return list(steps)

    def integrity(self, task: Task[Reverse], text: str) -> bool | None:
        return text == task.constraints.word[::-1]


@pytest.fixture(params=["memory", "lance"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "memory":
        return MemoryStore()
    return LanceStore(tmp_path / "cache", 64, consistency_seconds=0.0)


def test_a_new_kind_is_served_cached_and_substituted(store: Store) -> None:
    backend = ScriptedBackend(["ananab"])
    cache = StepCache(
        backend, HashedEmbedder(dim=64), store, clock=FixedClock(),
        kinds=BUILT_IN.with_kind(ReverseHandler.from_settings),
    )
    first = cache.answer("Reverse the word: banana")
    assert (first.task, first.path, first.text, first.verified) == (
        "reverse", CachePath.MISS, "ananab", True,
    )
    again = cache.answer("Reverse the word: banana")
    assert again.path == CachePath.REUSE_ONLY and again.matched_entry == first.stored_entry
    other = cache.answer("Reverse the word: apple")
    assert other.path == CachePath.PATCHED and other.text == "elppa"
    assert other.patch_method == "substitution" and len(backend.calls) == 1
    stored = store.get(first.stored_entry or "")
    assert stored is not None and stored.task == "reverse"
    assert handler_constraints(stored) == {"word": "banana"}  # as the handler wrote them


def test_built_in_kinds_still_come_first_and_text_takes_the_rest() -> None:
    handlers = BUILT_IN.with_kind(ReverseHandler.from_settings).build(PipelineSettings())
    assert handlers.detect("Solve for x: 3x + 5 = 20.")[1].kind == "linear"
    assert handlers.detect("Reverse the word: stop")[1].kind == "reverse"
    assert handlers.detect("Tell me a joke.")[1].kind == "text"
