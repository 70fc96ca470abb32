"""The bench arms: the same model behind five different caching strategies.

Every arm shares one loaded backend and one embedder (so decoding, prompt template and
max tokens are identical) and starts each seed with an empty cache of its own:

- `nocache`: the model alone, asked what the engine would ask it for a whole answer (the
  task's own request), so the text is exactly what the model wrote;
- `exact`: a dict keyed by the exact prompt in front of `nocache`;
- `gptcache`: the GPTCache library as a whole-response semantic cache in front of `nocache`;
- `solver`: our engine with reuse and storing off: the exact solver, stated-value fills and
  the model with the same checks, but nothing from a cache, so the tables show what reuse adds
  beyond the deterministic path;
- `stepcache-paper`: our engine with the paper's settings (`PipelineSettings.paper()`);
- `stepcache`: our engine as shipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from stepchat.bench.records import ARM_NAMES
from stepchat.core.events import ignore_events
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import Backend, Embedder, Store
from stepchat.core.prompt import clean_prompt
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.base import Generation
from stepchat.core.tasks.registry import BUILT_IN
from stepchat.core.types import (
    Answer,
    AnswerStep,
    ChatMessage,
    StepStatus,
    Timings,
    is_hit_path,
    step_record,
)
from stepchat.heap import collect_if_due
from stepchat.store.memory import MemoryStore

__all__ = ["ARM_NAMES", "Shared", "make_arm"]

WARMUP_REPLIES = {
    "Solve for q: 7q - 2 = 12. Show each step.": "7q - 2 = 12\n7q = 14\nq = 2",
    "Return a JSON object with keys colour and size (integer) for a shirt whose colour is "
    "teal and size is 40.": '{"colour": "teal", "size": 40}',
    "Name one primary colour.": "Red.",
}
"""Warm-up requests and the canned replies a scratch arm gets for them; never counted."""

HIT = "hit"
"""The path of a whole-response cache's hit (the exact and GPTCache arms)."""
MISS = "miss"


def from_cache(path: str) -> bool:
    """Whether an arm's path says the answer came at least partly from a cache: a
    whole-response cache's hit, or a path stepchat gives only to answers with a step from
    the cache (`is_hit_path`)."""
    return path == HIT or is_hit_path(path)


@dataclass
class Served:
    """What one arm served for one request, in the bench's terms."""

    text: str
    path: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    timings_ms: dict[str, float] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def served_from_answer(answer: Answer) -> Served:
    return Served(
        text=answer.text,
        path=str(answer.path),
        prompt_tokens=answer.tokens.prompt,
        completion_tokens=answer.tokens.generated,
        timings_ms=answer.timings.as_record(),
        steps=[step_record(s) for s in answer.steps],
    )


def as_cache_hit(original: Served, timings_ms: dict[str, float]) -> Served:
    """A whole-response cache hit: the stored text, no tokens, every step reused."""
    steps = [{**step, "status": "reused"} for step in original.steps]
    return Served(original.text, HIT, 0, 0, timings_ms, steps)


class Arm(Protocol):
    name: str

    def serve(self, prompt: str) -> Served: ...


@dataclass
class Shared:
    """What every arm of one run shares, and how a fresh step store is made."""

    backend: Backend
    embedder: Embedder
    settings: PipelineSettings
    new_store: Callable[[], Store] = MemoryStore


class NoCacheArm:
    """The model's first reply, unchecked: no cache, no solver, no repair."""

    name = "nocache"

    def __init__(self, shared: Shared) -> None:
        self.backend = shared.backend
        self.settings = shared.settings
        self.handlers = BUILT_IN.build(shared.settings)

    def serve(self, prompt: str) -> Served:
        started = time.perf_counter()
        text, _notes = clean_prompt(prompt)
        handler, task = self.handlers.detect(text)
        gen = Generation(self.backend, self.settings, ignore_events)
        reply = gen.send(handler.model_request(task), StepStatus.REGENERATED)
        total_ms = (time.perf_counter() - started) * 1000
        step = AnswerStep(reply.text, "raw", StepStatus.REGENERATED)
        timings = Timings(generate_ms=gen.generate_ms, total_ms=total_ms)
        return Served(
            text=reply.text,
            path=MISS,
            prompt_tokens=gen.prompt_tokens,
            completion_tokens=gen.generated_tokens,
            timings_ms=timings.as_record(),
            steps=[step_record(step)],
        )


class ExactArm:
    name = "exact"

    def __init__(self, shared: Shared) -> None:
        self.model = NoCacheArm(shared)
        self.seen: dict[str, Served] = {}

    def serve(self, prompt: str) -> Served:
        start = time.perf_counter()
        cached = self.seen.get(prompt)
        if cached is not None:
            lookup_ms = (time.perf_counter() - start) * 1000
            return as_cache_hit(cached, {"embed": 0.0, "retrieve": lookup_ms, "verify": 0.0})
        served = self.model.serve(prompt)
        self.seen[prompt] = served
        return served


class GPTCacheArm:
    name = "gptcache"

    def __init__(self, shared: Shared) -> None:
        from stepchat.bench.gptcache_arm import GPTCacheFront

        self.model = NoCacheArm(shared)
        self.front = GPTCacheFront(shared.embedder)
        self.by_text: dict[str, Served] = {}

    def serve(self, prompt: str) -> Served:
        text, hit, generated, total_ms = self.front.lookup_timed(prompt, self.model.serve)
        if not hit and generated:
            served = generated[0]
            self.by_text.setdefault(served.text, served)
            served.timings_ms["embed"] = round(self.front.embed_ms, 3)
            return served
        original = self.by_text.get(text, Served(text, HIT))
        embed_ms = self.front.embed_ms
        return as_cache_hit(
            original, {"embed": embed_ms, "retrieve": total_ms - embed_ms, "verify": 0.0}
        )


class StepCacheArm:
    def __init__(
        self, shared: Shared, *, name: str, settings: PipelineSettings, reuse: bool = True
    ) -> None:
        self.name = name
        self.reuse = reuse
        self.store = shared.new_store() if reuse else MemoryStore()
        self.engine = StepCache(shared.backend, shared.embedder, self.store, settings=settings,
                                after_model_call=collect_if_due)  # as the app and server do

    def serve(self, prompt: str) -> Served:
        answer = self.engine.answer(prompt, read_cache=self.reuse, write_cache=self.reuse)
        return served_from_answer(answer)


def make_arm(name: str, shared: Shared) -> Arm:
    """A fresh arm with an empty cache of its own."""
    if name == "nocache":
        return NoCacheArm(shared)
    if name == "exact":
        return ExactArm(shared)
    if name == "gptcache":
        return GPTCacheArm(shared)
    if name == "solver":
        return StepCacheArm(shared, name=name, settings=shared.settings, reuse=False)
    if name == "stepcache-paper":
        return StepCacheArm(shared, name=name, settings=shared.settings.paper())
    if name == "stepcache":
        return StepCacheArm(shared, name=name, settings=shared.settings)
    raise ValueError(f"unknown arm {name!r} (known: {', '.join(ARM_NAMES)})")


def _canned(messages: Sequence[ChatMessage]) -> str:
    text = "\n".join(m.content for m in messages)
    return next((reply for prompt, reply in WARMUP_REPLIES.items() if prompt in text), "Red.")


def warm_model(shared: Shared) -> None:
    """One short real generation, so the first measured request does not pay for page-ins."""
    shared.backend.complete([ChatMessage("user", "Name one primary colour.")], max_tokens=8)


def warm_up(name: str, shared: Shared) -> None:
    """Run the arm's own code paths (imports, embedder, checks, GPTCache) on a scratch copy.

    The scratch arm answers from canned replies and keeps its steps in memory, so warming
    costs no model time and leaves nothing in the cache that is then measured.
    """
    from stepchat.backends.scripted import ScriptedBackend

    scratch = Shared(
        ScriptedBackend([_canned], model_id="warm-up"),
        shared.embedder,
        shared.settings,
        MemoryStore,
    )
    arm = make_arm(name, scratch)
    for prompt in WARMUP_REPLIES:
        arm.serve(prompt)
