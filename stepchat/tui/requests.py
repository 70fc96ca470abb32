"""Prompts being answered or waiting their turn, and the work of answering one.

A prompt sent while the model is busy goes to the cache lane (`stepchat.engine_lanes`, the
mechanism `stepchat serve` uses): the engine runs without the model, so a cache hit, the
solver or values the prompt states answer it in milliseconds, in its place in the
transcript, even while the model writes another answer. A prompt that needs the model
waits its turn for the one model (one llama.cpp context), in the order sent; when its turn
comes the engine serves it from the start with the model, so it also finds what the cache
gained while it waited. With the model free and nobody waiting for it, a prompt goes
straight to the model lane, which serves a hit as fast and a miss without looking it up
twice. Cache-lane attempts run one at a time in the order sent, so prompts reach the
model's queue in that order too; engine code never runs on two threads at once (the
engine lock is let go only while the model generates).

What each prompt is sent as the conversation so far:
- On the model lane, the earlier turns answered when it runs (turns before it in the
  transcript; cancelled and failed ones left out), trimmed to the model's context: a
  prompt sent after one still being written waits for it and sees its answer.
- Answered out of order, on the cache lane: the turns before it answered at the time it
  runs, and the prompts before it still waiting for an answer, since it follows those too.
  Inside a conversation the engine serves from the cache only what it checks against the
  request itself (equations, JSON objects), which does not depend on earlier turns; open
  text only as the first turn of a chat (a repeat of a cached one), so a follow-up of a
  prompt still unanswered never is. Nothing on the cache lane reaches a model, so those
  unanswered prompts are never sent to one.

`answer_from_cache` and `answer_with_model` are the whole jobs of the chat screen's two
answer workers: serve the prompt on their lane and report what happened as messages. They
touch no widget, so they run on threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from stepchat.core.events import PipelineEvent
from stepchat.core.ports import CancelToken, GenerationCancelled
from stepchat.core.types import Answer, ChatMessage
from stepchat.engine_lanes import with_model, without_model
from stepchat.tui.errors import describe
from stepchat.tui.history import Turn
from stepchat.tui.messages import (
    AnswerFailed,
    AnswerReady,
    HistoryTrimmed,
    ModelNeeded,
    PipelineUpdate,
)
from stepchat.tui.widgets.steps import AnswerView

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache

CACHE_LANE = "cache"
MODEL_LANE = "model"


@dataclass
class ActiveRequest:
    """A prompt being served (or waiting for the cache, the model or its turn), and how to
    stop it."""

    request: int
    prompt: str
    view: AnswerView
    turn: Turn
    cancel: threading.Event = field(default_factory=threading.Event)
    reuse: bool | None = None
    """None: the app's reuse setting; False: Regenerate, which bypasses the cache."""
    lane: str | None = None
    """The lane whose worker has it: None until the cache is open and its turn on the cache
    lane comes, then CACHE_LANE, then MODEL_LANE once the model's turn is its."""


class EitherEvent:
    """A cancel token set by Esc (the request's event) or by Textual cancelling the worker,
    which it does for every worker when the app exits, so quitting stops a generation."""

    def __init__(self, *events: CancelToken) -> None:
        self._events = events

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)


class RequestQueue:
    """The open requests, each list in the order sent: those on (or waiting for) the cache
    lane, the one the model answers, and those waiting for the model."""

    def __init__(self) -> None:
        self.checking: list[ActiveRequest] = []
        self.active: ActiveRequest | None = None
        self.waiting: list[ActiveRequest] = []
        self._serial = 0

    def new(
        self, prompt: str, view: AnswerView, turn: Turn, reuse: bool | None = None,
    ) -> ActiveRequest:
        self._serial += 1
        request = ActiveRequest(self._serial, prompt, view, turn, reuse=reuse)
        self.checking.append(request)
        return request

    @property
    def open(self) -> list[ActiveRequest]:
        active = [] if self.active is None else [self.active]
        return [*self.checking, *active, *self.waiting]

    @property
    def queued(self) -> int:
        """Requests waiting for their turn: for the model, or for the cache to open."""
        return len(self.waiting) + sum(r.lane is None for r in self.checking)

    def find(self, request: int) -> ActiveRequest | None:
        """The running request numbered `request`: late messages of ended or dropped ones
        are ignored."""
        running = [*self.checking, self.active]
        return next((r for r in running if r is not None and r.request == request), None)

    def front(self) -> ActiveRequest | None:
        """What Esc cancels: the answer the model is writing, else the oldest prompt still
        waiting for the cache to open."""
        return self.active or next(iter(self.checking), None)

    def next_check(self) -> ActiveRequest | None:
        """The oldest request due on the cache lane, if the lane is free, marked as on it.

        When the model is free and nobody waits for it, the request goes straight to the
        model lane instead: nothing is ahead of it there, and the engine would otherwise
        look it up twice (once on each lane) before a miss reached the model."""
        if not self.checking or self.checking[0].lane is not None:
            return None
        front = self.checking[0]
        if self.active is None and not self.waiting:
            self.checking.pop(0)
            self.active = front
            front.lane = MODEL_LANE
        else:
            front.lane = CACHE_LANE
        return front

    def needs_model(self, request: ActiveRequest) -> None:
        """The cache lane could not answer `request`: it waits for the model."""
        self.checking.remove(request)
        self.waiting.append(request)

    def next_model(self) -> ActiveRequest | None:
        """Make the oldest request waiting for the model active, if the model is free."""
        if self.active is not None or not self.waiting:
            return None
        self.active = self.waiting.pop(0)
        self.active.lane = MODEL_LANE
        return self.active

    def end(self, request: ActiveRequest) -> None:
        """`request` was answered, failed or was cancelled: it leaves the queue."""
        if self.active is request:
            self.active = None
        for lane in (self.checking, self.waiting):
            if request in lane:
                lane.remove(request)

    def drop_all(self) -> None:
        """Stop the running requests and forget the waiting ones (new chat, model switch)."""
        for request in self.open:
            request.cancel.set()
        self.checking, self.active, self.waiting = [], None, []


@dataclass(frozen=True)
class Attempt:
    """Everything a worker needs to serve one request, so a worker takes one argument.

    Built on the UI thread when the request's lane comes; frozen, because the worker
    reads it on another thread while the user may change the app's settings."""

    request: int
    prompt: str
    history: tuple[ChatMessage, ...]
    """The earlier turns as this request's lane sees them (untrimmed)."""
    cancel: CancelToken
    cache: StepCache
    """The engine, carrying the conversation's own system prompt."""
    reuse: bool
    store: bool
    context: int = 2048
    """The model's context window, which the model lane trims `history` to."""


Served = tuple[Answer, int]
"""An answer and the store's row count after it."""


def answer_from_cache(
    attempt: Attempt,
    engine_lock: threading.Lock,
    *,
    post: Callable[[Message], object],
) -> None:
    """Serve `attempt` on the cache lane, posting its events and the answer; or post
    `ModelNeeded` (and nothing else: the attempt changed nothing) when it needs the model."""
    held: list[Message] = []

    def run(engine: StepCache) -> Served:
        answer = engine.answer(
            attempt.prompt,
            history=attempt.history,
            on_event=lambda event: held.append(PipelineUpdate(attempt.request, event)),
            cancel=attempt.cancel,
            read_cache=attempt.reuse,
            write_cache=attempt.store,
        )
        return answer, engine.store.count()

    _report(
        attempt.request, lambda: without_model(attempt.cache, engine_lock, run), held, post
    )


def answer_with_model(
    attempt: Attempt,
    engine_lock: threading.Lock,
    *,
    post: Callable[[Message], object],
) -> None:
    """Serve `attempt` on the model lane after its earlier turns (trimmed to fit its
    context), streaming its events, then the answer or why there is none."""

    def forward(event: PipelineEvent) -> None:
        post(PipelineUpdate(attempt.request, event))

    def run(engine: StepCache) -> Served:
        fitted = engine.fit_history(attempt.history, attempt.prompt, context=attempt.context)
        if fitted.dropped:
            post(HistoryTrimmed(attempt.request, fitted.dropped))
        answer = engine.answer(
            attempt.prompt,
            history=fitted.messages,
            in_conversation=bool(attempt.history),
            on_event=forward,
            cancel=attempt.cancel,
            read_cache=attempt.reuse,
            write_cache=attempt.store,
        )
        return answer, engine.store.count()

    _report(attempt.request, lambda: with_model(attempt.cache, engine_lock, run), [], post)


def _report(
    request: int,
    serve: Callable[[], Served | None],
    held: list[Message],
    post: Callable[[Message], object],
) -> None:
    """Run `serve` and post what became of `request`: its held messages and the answer,
    that it needs the model (None), or why there is no answer."""
    try:
        served = serve()
    except GenerationCancelled:
        post(AnswerFailed(request, None, cancelled=True))
        return
    except Exception as exc:
        post(AnswerFailed(request, describe(exc)))
        return
    if served is None:
        post(ModelNeeded(request))
        return
    for message in held:
        post(message)
    answer, entries = served
    post(AnswerReady(request, answer, entries))
