"""Events the pipeline emits while it serves one request.

The UI paints steps as they settle and streams tokens from these; the bench ignores
them and reads the final `Answer`. Handlers run on the pipeline's thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from stepchat.core.types import SERVED_WHOLE as SERVED_WHOLE  # kinds import these from here
from stepchat.core.types import Answer, AnswerStep, CachePath, StepStatus
from stepchat.core.types import Delivery as Delivery


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
