"""Events the pipeline emits while it serves one request.

The UI paints steps as they settle and streams tokens from these; the bench ignores
them and reads the final `Answer`. Handlers run on the pipeline's thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from stepchat.core.types import Answer, AnswerStep, CachePath, StepStatus


class Stage(StrEnum):
    """The stages of serving a request, as a view names the one running ("verify…")."""

    RETRIEVE = "retrieve"
    EMBED = "embed"
    VERIFY = "verify"
    GENERATE = "generate"
    STORE = "store"


@dataclass(frozen=True)
class StageEvent:
    """A pipeline stage started."""

    stage: Stage


@dataclass(frozen=True)
class Delivery:
    """How front ends deliver a kind's answers: a property of the kind, so no front end
    tests a kind by name."""

    streams: bool = False
    """The model's tokens are the answer's text as they arrive (nothing checks or rewrites
    them afterwards), so a front end may show them live; otherwise the answer is served
    whole once it is checked, as a stream would show steps that fail verification."""
    markdown: bool = False
    """Render the text as Markdown; otherwise literally (in an equation `*` and `_` are
    algebra, not emphasis)."""


SERVED_WHOLE = Delivery()
"""Checked before it is shown, and shown literally: what a kind that does not say gets."""


@dataclass(frozen=True)
class RouteEvent:
    """The request's path is known (it may still turn from patched to miss later)."""

    path: CachePath
    skip_reason: str | None = None
    task: str | None = None
    """What kind of request it is."""
    delivery: Delivery = SERVED_WHOLE
    """How to show its text: streamed or whole, as Markdown or literally."""


@dataclass(frozen=True)
class TokenEvent:
    """A piece of text the model just produced for steps of the given status."""

    text: str
    status: StepStatus


@dataclass(frozen=True)
class StepEvent:
    """A step settled in its final position with its final status."""

    index: int
    step: AnswerStep


@dataclass(frozen=True)
class DoneEvent:
    """The answer is complete (and stored if it verified)."""

    answer: Answer


PipelineEvent = StageEvent | RouteEvent | TokenEvent | StepEvent | DoneEvent
EventSink = Callable[[PipelineEvent], None]


def ignore_events(_event: PipelineEvent) -> None:
    """The default sink: drop everything."""
