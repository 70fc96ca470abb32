"""Who runs a request, and when: a cache lane that never waits for the model, then the model.

Every request first runs through the unmodified engine on the *cache lane*, with a backend
that refuses to generate. Most cache hits (reused, substituted, solved, filled from the
prompt) finish there in milliseconds. A request that needs the model aborts at its first
generation call and joins the *model lane*: a bounded FIFO queue with one worker per model,
where it runs the engine again from the start, now with the model. A full queue is refused
(503) with an estimate of when to retry.

The engine runs on either lane through `stepchat.engine_lanes`, which says why that keeps
the cache's invariants (one engine step at a time under the process-wide `engine_lock`; an
aborted attempt leaves no trace). What the server adds: a bounded queue per model, and a
queued request looks again: it runs the whole engine when its turn comes, so an identical
request answered while it waited is now found in the cache, not generated twice.

A cancelled request (the client went away) is dropped from the queue if it has not
started, and stops its generation between tokens if it has; a cancelled generation raises
before anything is stored.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from stepchat.core.conversation import dropped_note
from stepchat.core.events import PipelineEvent
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import CancelToken, GenerationCancelled
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import Answer, ChatMessage
from stepchat.engine_lanes import with_model, without_model

T = TypeVar("T")

CACHE_LANE = "cache"
MODEL_LANE = "model"
_FIRST_GUESS_S = 5.0
"""Seconds a generation is assumed to take until one has been measured (for Retry-After)."""


class QueueFull(Exception):
    """The model lane's queue is at its bound; `retry_after` is a guess in seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"the queue for this model is full; retry in {retry_after} s")
        self.retry_after = retry_after


@dataclass(eq=False)
class Job:
    """One request as the lanes see it (compared by identity)."""

    prompt: str
    history: tuple[ChatMessage, ...] = ()
    system_prompt: str | None = None
    """None: the configured system prompt."""
    reuse: bool = True
    store: bool = True
    cancel: threading.Event = field(default_factory=threading.Event)
    notes: list[str] = field(default_factory=list)
    max_tokens: int | None = None
    """A cap on the model's reply below the model's own, for an answer that will not be
    stored: writing past what the client gets back would only cost it time."""
    in_conversation: bool = field(init=False)
    """Whether earlier turns came with the request, though trimming may send none of them."""

    def __post_init__(self) -> None:
        self.in_conversation = bool(self.history)


class _Lane(Generic[T]):
    """One worker thread and how many requests are in it (read and written on the loop)."""

    def __init__(self, name: str) -> None:
        self.worker = ThreadPoolExecutor(1, thread_name_prefix=name)
        self.waiting = 0


@dataclass(frozen=True)
class Served:
    answer: Answer
    lane: str


class ModelLanes:
    """The cache lane and the model lane of one model; lanes of all models share one lock."""

    def __init__(
        self,
        engine: StepCache,
        engine_lock: threading.Lock,
        *,
        context: int,
        queue_limit: int = 32,
        cache_limit: int = 256,
    ) -> None:
        """`engine` is the model's engine as configured; each request runs a copy of it
        with the lane's backend and the request's system prompt."""
        self.engine = engine
        self.context = context
        self.queue_limit = queue_limit
        self.cache_limit = cache_limit
        self.engine_lock = engine_lock
        backend = engine.backend
        self.cache_lane: _Lane[tuple[Answer, list[PipelineEvent]] | None] = _Lane(
            f"cache-{backend.model_id}"
        )
        self.model_lane: _Lane[Answer] = _Lane(f"model-{backend.model_id}")
        """Its `waiting` counts the request generating and those queued behind it."""
        self._jobs: set[Job] = set()
        self._generation_s = _FIRST_GUESS_S

    # ------------------------------------------------------------------ event loop side

    async def answer(self, job: Job, on_event: Callable[[PipelineEvent], None]) -> Served:
        """Serve `job`; events reach `on_event` on the calling loop. Raises QueueFull,
        GenerationCancelled, PromptError and whatever the backend or store raise."""
        loop = asyncio.get_running_loop()
        if self.cache_lane.waiting >= self.cache_limit:
            raise QueueFull(1)
        found = await self._run(self.cache_lane, job, self._without_model)
        if found is not None:
            answer, events = found
            for event in events:
                on_event(event)
            return Served(answer, CACHE_LANE)
        if job.cancel.is_set():
            raise GenerationCancelled()
        if self.model_lane.waiting > self.queue_limit:
            raise QueueFull(self.retry_after())

        def forward(event: PipelineEvent) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(on_event, event)

        answer = await self._run(self.model_lane, job, lambda j: self._with_model(j, forward))
        return Served(answer, MODEL_LANE)

    async def _run(self, lane: _Lane[T], job: Job, work: Callable[[Job], T]) -> T:
        """Run `work` in `lane`, counted there until it has really finished.

        If the caller is cancelled, the job's cancel event is set: a queued job is dropped
        and a running one stops at its next token; the count drops when it has stopped.
        """
        loop = asyncio.get_running_loop()
        lane.waiting += 1
        self._jobs.add(job)
        future: Future[T] = lane.worker.submit(work, job)

        def settle() -> None:
            lane.waiting -= 1
            self._jobs.discard(job)

        def finished(_: Future[T]) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(settle)

        future.add_done_callback(finished)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            job.cancel.set()
            raise

    def retry_after(self) -> int:
        """Seconds until the queue has room, from the measured generation time."""
        return max(1, min(600, math.ceil(self._generation_s * max(1, self.model_lane.waiting))))

    # ------------------------------------------------------------------ worker side

    def _settings(self, job: Job) -> PipelineSettings | None:
        """The engine's settings with the request's own system prompt and reply cap, if it
        brought them (neither is part of the cache scope's model; the system prompt is of
        the scope)."""
        settings = self.engine.settings
        if job.system_prompt is not None:
            settings = replace(settings, system_prompt=job.system_prompt)
        if job.max_tokens is not None and job.max_tokens < settings.max_tokens:
            settings = replace(settings, max_tokens=job.max_tokens)
        return None if settings is self.engine.settings else settings

    def _without_model(self, job: Job) -> tuple[Answer, list[PipelineEvent]] | None:
        if job.cancel.is_set():
            raise GenerationCancelled()

        def attempt(engine: StepCache) -> tuple[Answer, list[PipelineEvent]]:
            job.history = self._fit_history(job, engine)
            events: list[PipelineEvent] = []
            return self._answer(engine, job, events.append, None), events

        return without_model(self.engine, self.engine_lock, attempt, self._settings(job))

    def _with_model(self, job: Job, on_event: Callable[[PipelineEvent], None]) -> Answer:
        if job.cancel.is_set():
            raise GenerationCancelled()
        started = time.monotonic()
        try:
            return with_model(
                self.engine,
                self.engine_lock,
                lambda engine: self._answer(engine, job, on_event, job.cancel),
                self._settings(job),
            )
        finally:
            self._generation_s = 0.7 * self._generation_s + 0.3 * (time.monotonic() - started)

    def _answer(
        self,
        engine: StepCache,
        job: Job,
        on_event: Callable[[PipelineEvent], None],
        cancel: CancelToken | None,
    ) -> Answer:
        answer = engine.answer(
            job.prompt,
            history=job.history,
            in_conversation=job.in_conversation,
            on_event=on_event,
            cancel=cancel,
            read_cache=job.reuse,
            write_cache=job.store,
        )
        answer.notes.extend(job.notes)
        return answer

    def _fit_history(self, job: Job, engine: StepCache) -> tuple[ChatMessage, ...]:
        """Earlier turns, whole exchanges dropped oldest first, to what fits the model's
        context beside the system prompt, the request and the reply (the app's rule)."""
        fitted = engine.fit_history(job.history, job.prompt, context=self.context)
        if fitted.dropped:
            job.notes.append(dropped_note(fitted.dropped))
        return fitted.messages

    def close(self) -> None:
        """Stop: queued jobs are dropped, running ones cancelled at their next token."""
        for job in list(self._jobs):
            job.cancel.set()
        for lane in (self.cache_lane, self.model_lane):
            lane.worker.shutdown(wait=False, cancel_futures=True)
