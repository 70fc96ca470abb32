"""What every task kind provides to the pipeline, and the generation context it works in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from stepchat.core.events import EventSink, TokenEvent
from stepchat.core.ports import Backend, CancelToken, Clock, SystemClock
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import AnswerStep, ChatMessage, Completion, Step, StepStatus, TaskKind


@dataclass(frozen=True)
class Task:
    """A detected request: its kind, the constraints its checks need, and its signature.

    `constraints` is plain JSON so it can be stored with the entry and compared later by
    the skip-reuse policy; `signature` is the request's structure with its constants
    masked, so structurally identical requests find each other without an embedding.
    """

    kind: TaskKind
    prompt: str
    signature: str
    constraints: dict[str, Any]


@dataclass
class Generation:
    """Calls the model for one request: streams tokens, counts them, honours cancel."""

    backend: Backend
    settings: PipelineSettings
    on_event: EventSink
    cancel: CancelToken | None = None
    prompt_tokens: int = 0
    generated_tokens: int = 0
    generate_ms: float = 0.0
    calls: int = 0
    last_text: str = ""
    notes: list[str] = field(default_factory=list)
    clock: Clock = field(default_factory=SystemClock)
    history: tuple[ChatMessage, ...] = ()
    """Earlier turns of the conversation, oldest first, for requests that read them."""

    def conversation(self, request: str) -> list[ChatMessage]:
        """System prompt, earlier turns, then the request: what a chat model expects."""
        messages = [ChatMessage("system", self.settings.system_prompt)] if (
            self.settings.system_prompt
        ) else []
        return [*messages, *self.history, ChatMessage("user", request)]

    def complete(
        self,
        messages: Sequence[ChatMessage],
        status: StepStatus,
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        stop: Sequence[str] = (),
    ) -> Completion:
        cap = self.settings.max_tokens  # the model's own limit; a task may ask for less
        started = self.clock.monotonic()
        try:
            result = self.backend.complete(
                messages,
                max_tokens=min(max_tokens or cap, cap),
                stop=stop,
                json_schema=json_schema,
                on_token=lambda piece: self.on_event(TokenEvent(piece, status)),
                cancel=self.cancel,
            )
        finally:
            self.generate_ms += (self.clock.monotonic() - started) * 1000
        self.calls += 1
        self.last_text = result.text
        self.prompt_tokens += result.prompt_tokens
        self.generated_tokens += result.completion_tokens
        return result

    def timed(self, started: float) -> None:
        """Add deterministic work (the exact solver) to the generate time."""
        self.generate_ms += (self.clock.monotonic() - started) * 1000


class TaskHandler(Protocol):
    """The task-specific half of the pipeline: detection, steps, checks and patches."""

    kind: TaskKind
    candidate_floor: float | None
    """Cosine similarity a neighbour needs before `skip_reason` is asked about it; None means
    the engine's `min_similarity`. A handler whose own test is exact can take any neighbour."""

    def detect(self, prompt: str) -> Task | None: ...

    def segment(self, text: str) -> list[Step]: ...

    def stitch(self, steps: Sequence[Step]) -> str: ...

    def skip_reason(self, task: Task, cached: dict[str, Any]) -> str | None:
        """Why a cached request of the same kind must not be reused, or None."""
        ...

    def verify(
        self, task: Task, steps: Sequence[Step], cached: dict[str, Any] | None = None
    ) -> list[bool]:
        """Per step: does it still hold for this task (given the cached request's constraints)?"""
        ...

    def substitute(
        self, task: Task, cached: dict[str, Any], steps: Sequence[Step]
    ) -> list[Step] | None:
        """Steps rewritten by pure substitution of changed constants, or None."""
        ...

    def patch(
        self, task: Task, steps: Sequence[AnswerStep], passed: Sequence[bool], gen: Generation
    ) -> list[AnswerStep]:
        """Replace the failing steps; keep the passing ones."""
        ...

    def generate(self, task: Task, gen: Generation, *, verify: bool = True) -> list[AnswerStep]:
        """A whole answer from the model, checked and repaired unless verify is False."""
        ...

    def integrity(self, task: Task, text: str) -> bool | None:
        """Check the stitched answer as a whole; None when the task cannot be checked."""
        ...
