"""Prompts being answered or waiting their turn, and the work of answering one.

The app answers one prompt at a time (one model, one llama.cpp context). A prompt sent
while another is answered is not lost: it waits in a queue, visible in the transcript,
and is sent when the answer before it ends, with that answer among its earlier turns.

`answer_request` is the whole job of the app's answer worker: trim the earlier turns to
the model's context, serve the prompt through the cache, and report what happened as
messages. It touches no widget, so it runs on a thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from stepchat.core.conversation import fit_history
from stepchat.core.events import PipelineEvent
from stepchat.core.ports import CancelToken, GenerationCancelled
from stepchat.core.types import ChatMessage
from stepchat.tui.errors import describe
from stepchat.tui.history import Turn
from stepchat.tui.messages import AnswerFailed, AnswerReady, HistoryTrimmed, PipelineUpdate
from stepchat.tui.widgets.steps import AnswerView

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache


@dataclass
class ActiveRequest:
    """A prompt being served (or waiting for the model or its turn), and how to stop it."""

    request: int
    prompt: str
    view: AnswerView
    turn: Turn
    cancel: threading.Event = field(default_factory=threading.Event)
    reuse: bool | None = None
    """None: the app's reuse setting; False: Regenerate, which bypasses the cache."""
    started: bool = False
    """Handed to a serve worker: parts that load later must not serve it a second time."""


class EitherEvent:
    """A cancel token set by Esc (the request's event) or by Textual cancelling the worker,
    which it does for every worker when the app exits, so quitting stops a generation."""

    def __init__(self, *events: CancelToken) -> None:
        self._events = events

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)


class RequestQueue:
    """The request being answered and the ones waiting behind it, oldest first."""

    def __init__(self) -> None:
        self.active: ActiveRequest | None = None
        self.waiting: list[ActiveRequest] = []
        self._serial = 0

    def new(
        self, prompt: str, view: AnswerView, turn: Turn, reuse: bool | None = None
    ) -> ActiveRequest:
        self._serial += 1
        return ActiveRequest(self._serial, prompt, view, turn, reuse=reuse)

    def current(self, request: int) -> ActiveRequest | None:
        """The active request if it is `request`: late messages of dropped ones are ignored."""
        active = self.active
        return active if active is not None and active.request == request else None

    def next(self) -> ActiveRequest | None:
        """Make the oldest waiting request active (the previous one has ended)."""
        self.active = self.waiting.pop(0) if self.waiting else None
        return self.active

    def drop_all(self) -> None:
        """Stop the running request and forget the waiting ones (new chat, model switch)."""
        for request in [self.active, *self.waiting]:
            if request is not None:
                request.cancel.set()
        self.active = None
        self.waiting = []


def answer_request(
    cache: StepCache,
    request: int,
    prompt: str,
    history: Sequence[ChatMessage],
    *,
    context: int,
    cancel: CancelToken,
    reuse: bool,
    store: bool,
    post: Callable[[Message], object],
) -> None:
    """Serve one prompt after its earlier turns (trimmed to fit `context`), posting events,
    then the answer or why there is none."""

    def forward(event: PipelineEvent) -> None:
        post(PipelineUpdate(request, event))

    try:
        fitted = fit_history(
            history,
            prompt,
            count_tokens=cache.backend.count_tokens,
            context=context,
            reply_tokens=cache.settings.max_tokens,
            system_prompt=cache.settings.system_prompt,
        )
        if fitted.dropped:
            post(HistoryTrimmed(request, fitted.dropped))
        answer = cache.answer(
            prompt,
            history=fitted.messages,
            on_event=forward,
            cancel=cancel,
            reuse=reuse,
            store=store,
        )
        entries = cache.store.count()
    except GenerationCancelled:
        post(AnswerFailed(request, None, cancelled=True))
        return
    except Exception as exc:
        post(AnswerFailed(request, describe(exc)))
        return
    post(AnswerReady(request, answer, entries))

