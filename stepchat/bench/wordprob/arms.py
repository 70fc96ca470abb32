"""The word-problem arms: no cache, a whole-response cache, the stand-in, and ours.

- `nocache`: the bundled model (real) asked what the engine would ask it; it gets word
  problems wrong, which is why a strong model is worth caching in front of;
- `gptcache`: GPTCache as in the main bench, in front of the reference stand-in, so a hit
  returns the cached answer to another question as it was;
- `reference`: the stand-in for every request (right, at the solution's token cost);
- `stepcache`: the engine with the stand-in as its model: first requests and declined
  variants go to the stand-in, variants it can recompute are served from the cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from stepchat.bench.wordprob.reference import ReferenceBackend
from stepchat.core.events import ignore_events
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import Backend, Embedder, Store
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.base import Generation
from stepchat.core.tasks.wordprob.handler import WordProblemHandler
from stepchat.core.types import ChatMessage, StepStatus
from stepchat.heap import collect_if_due

WORD_ARMS = ("nocache", "gptcache", "reference", "stepcache")


@dataclass
class WordServed:
    text: str
    from_cache: bool
    tokens: int
    local_ms: float
    """Milliseconds spent outside the model: lookup, checks, recomputation."""
    note: str = ""
    corrections: int = 0
    model_ms: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)
    """Where `local_ms` went, by stage (embed, retrieve, verify), where the arm tells."""


class ModelArm:
    """A model alone: the bundled one (nocache) or the stand-in (reference)."""

    def __init__(self, name: str, backend: Backend, settings: PipelineSettings) -> None:
        self.name = name
        self.backend = backend
        self.settings = settings
        self.handler = WordProblemHandler()

    def serve(self, prompt: str) -> WordServed:
        started = time.perf_counter()
        task = self.handler.detect(prompt)
        gen = Generation(self.backend, self.settings, ignore_events)
        if task is None:
            reply = gen.complete([ChatMessage("user", prompt)], StepStatus.REGENERATED)
        else:
            reply = gen.send(self.handler.model_request(task), StepStatus.REGENERATED)
        total = (time.perf_counter() - started) * 1000
        return WordServed(reply.text, False, gen.prompt_tokens + gen.generated_tokens,
                          total - gen.generate_ms, corrections=_slips(reply.text, prompt),
                          model_ms=gen.generate_ms)


def _slips(text: str, prompt: str) -> int:
    """How many results of this reply the engine would correct before storing it."""
    from stepchat.core.tasks.wordprob.recompute import Declined, recompute
    from stepchat.core.tasks.wordprob.request import NotSame, align

    steps = [line.strip() for line in text.splitlines() if line.strip()]
    try:
        alignment = align(prompt, prompt, *steps)
        return recompute(steps, alignment.slots, alignment.mark).corrections
    except (Declined, NotSame):
        return 0


class GPTCacheWordArm:
    def __init__(self, reference: ReferenceBackend, embedder: Embedder,
                 settings: PipelineSettings) -> None:
        from stepchat.bench.gptcache_arm import GPTCacheFront

        self.model = ModelArm("reference", reference, settings)
        self.front = GPTCacheFront(embedder)
        self.name = "gptcache"

    def serve(self, prompt: str) -> WordServed:
        text, hit, spent, total = self.front.lookup_timed(prompt, self.model.serve)
        model_ms = sum(s.model_ms for s in spent)
        return WordServed(text, hit, sum(s.tokens for s in spent), total - model_ms,
                          model_ms=model_ms)


class StepCacheWordArm:
    def __init__(self, reference: ReferenceBackend, embedder: Embedder, store: Store,
                 settings: PipelineSettings) -> None:
        self.engine = StepCache(reference, embedder, store, settings=settings,
                                after_model_call=collect_if_due)  # as the app and server do
        self.name = "stepcache"

    def serve(self, prompt: str) -> WordServed:
        answer = self.engine.answer(prompt)
        t = answer.timings
        note = next((n for n in answer.notes if n.startswith("not recomputed")), "")
        return WordServed(
            answer.text, answer.hit, answer.tokens.prompt + answer.tokens.generated,
            t.total_ms - t.generate_ms, note or (answer.skip_reason or ""),
            model_ms=t.generate_ms,
            stages={k: v for k, v in t.as_record().items() if k not in ("generate", "total")},
        )


def make_word_arm(name: str, *, bundled: Backend | None, reference: ReferenceBackend,
                  embedder: Embedder, store: Store, settings: PipelineSettings) -> Any:
    if name == "nocache":
        if bundled is None:
            raise ValueError("the nocache arm needs the bundled model")
        return ModelArm("nocache", bundled, settings)
    if name == "reference":
        return ModelArm("reference", reference, settings)
    if name == "gptcache":
        return GPTCacheWordArm(reference, embedder, settings)
    if name == "stepcache":
        return StepCacheWordArm(reference, embedder, store, settings)
    raise ValueError(f"unknown word-problem arm {name!r} (known: {', '.join(WORD_ARMS)})")
