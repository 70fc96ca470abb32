"""Two ways to run the engine: without the model (the cache lane) and with it (the model
lane), never two engine steps at once. Shared by `stepchat serve` (`stepchat.serve.lanes`)
and the app (`stepchat.tui.requests`), so a request the cache can answer does not wait
behind a generation in either.

The cache lane runs the unmodified engine with a backend that refuses to generate. Most
answers that need no model (a cache hit reused, substituted or solved; values the prompt
states) finish there in milliseconds. A request that needs the model aborts at its first
generation call and is run again from the start on the model lane, with the model.

Why this keeps the cache's invariants:

1. One engine step at a time. Engine code (lookups, checks, the solver, embedding, store
   writes) runs only while holding the caller's one `engine_lock`; the model lane lets go
   of it only for the duration of the backend's `complete` call. So the engine, which is
   not thread-safe, never runs on two threads at once; only generation overlaps it. The
   store sees a sequence of whole operations, as from a single caller.
2. An aborted attempt leaves no trace. `StepCache.answer` records a hit (`touch`) and
   stores an entry only after the last generation call, and the refusal is raised at the
   first one; so the cache lane either completes a request exactly as a single-threaded
   engine would, or changes nothing. (Its events are the caller's to hold back: they
   describe an attempt that may not count.)
3. Nothing unverified is stored, nothing unchecked is served: both lanes run the same
   engine code with the same settings; the lanes only decide where it runs.
4. Tokenizing reads only the model's vocabulary, so `count_tokens` does not wait for a
   running generation (see `LlamaCppBackend.count_tokens`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from stepchat.core.ports import Backend
from stepchat.core.types import ChatMessage, Completion

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache
    from stepchat.core.settings import PipelineSettings

T = TypeVar("T")


class NeedsModel(Exception):
    """Raised by the cache lane's backend: this request cannot be served without the model."""


class RefusesToGenerate:
    """The cache lane's backend: tokens are counted, nothing is generated."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.model_id = inner.model_id

    def complete(self, messages: Sequence[ChatMessage], **_: Any) -> Completion:
        raise NeedsModel()

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def load(self) -> float:
        return 0.0


class GeneratesUnlocked:
    """The model lane's backend: lets go of the engine lock while the model generates."""

    def __init__(self, inner: Backend, lock: threading.Lock) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.engine_lock = lock

    def complete(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Completion:
        self.engine_lock.release()
        try:
            return self.inner.complete(messages, **kwargs)
        finally:
            self.engine_lock.acquire()

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def load(self) -> float:
        return self.inner.load()


def engine_on(
    base: StepCache, backend: Backend, settings: PipelineSettings | None = None
) -> StepCache:
    """`base`'s engine (same embedder, store, clock and task kinds) on another backend and,
    when given, other settings (a request's own system prompt)."""
    # Imported here: the engine brings sympy and jsonschema, which the app loads only after
    # its first paint (`stepchat.runtime.build_cache`), and the app imports this module.
    from stepchat.core.pipeline import StepCache

    return StepCache(
        backend, base.embedder, base.store, settings=settings or base.settings, clock=base.clock,
        entry_serials=base.entry_serials, kinds=base.kinds,
        after_model_call=base.after_model_call,
    )


def without_model(
    base: StepCache,
    engine_lock: threading.Lock,
    run: Callable[[StepCache], T],
    settings: PipelineSettings | None = None,
) -> T | None:
    """`run` on the cache lane: under the lock, on an engine that refuses to generate.
    None when the request needs the model; the attempt then changed nothing."""
    with engine_lock:
        try:
            return run(engine_on(base, RefusesToGenerate(base.backend), settings))
        except NeedsModel:
            return None


def with_model(
    base: StepCache,
    engine_lock: threading.Lock,
    run: Callable[[StepCache], T],
    settings: PipelineSettings | None = None,
) -> T:
    """`run` on the model lane: under the lock, which the engine lets go of only while the
    model generates."""
    with engine_lock:
        return run(engine_on(base, GeneratesUnlocked(base.backend, engine_lock), settings))
