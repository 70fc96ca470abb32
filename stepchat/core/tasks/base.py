"""What every task kind provides to the pipeline, and the generation context it works in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from stepchat.core.cutoff import UNFINISHED
from stepchat.core.events import SERVED_WHOLE, Delivery, EventSink, TokenEvent
from stepchat.core.ports import Backend, CancelToken, Clock, SystemClock
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import AnswerStep, ChatMessage, Completion, Step, StepStatus


class Constraints(Protocol):
    """What a task's checks need from its request, typed by its task kind.

    A handler works on its own constraints class; `to_json` is called only where an entry
    is written to the store, and the handler's `read_constraints` parses a cached entry's
    JSON back, so nothing in between reads constraints by string key.
    """

    def to_json(self) -> dict[str, Any]: ...


C = TypeVar("C", bound=Constraints)


@dataclass(frozen=True)
class Task(Generic[C]):
    """A detected request: its kind, the constraints its checks need, and its signature.

    `signature` is the request's structure with its constants masked, so structurally
    identical requests find each other without an embedding.
    """

    kind: str
    prompt: str
    signature: str
    constraints: C


@dataclass(frozen=True)
class ModelRequest:
    """What a task asks the model for a whole answer.

    `system` None means a free conversation: the configured system prompt and the earlier
    turns go first. The handler's own `generate` sends it, and so does the bench's no-cache
    arm, so both ask the model the same thing.
    """

    user: str
    system: str | None = None
    json_schema: dict[str, Any] | None = None
    max_tokens: int | None = None


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
    notes: list[str] = field(default_factory=list)
    clock: Clock = field(default_factory=SystemClock)
    history: tuple[ChatMessage, ...] = ()
    """Earlier turns of the conversation, oldest first, for requests that read them."""
    cut_off_at: int | None = None
    """The token limit of the first call the limit cut short, or None: an answer any part of
    which the model may not have finished is said to be cut off and never cached."""
    context_filled: int | None = None
    """The tokens in the model's context where that call was cut short by the context
    filling before the limit (a long prompt), or None."""
    unfinished: str | None = None
    """How the first call that ended neither at the reply's end ("stop") nor at the token
    limit ended: a server's "content_filter" or "tool_calls", or `UNFINISHED` where it gave
    no reason. Such an answer is shown as the model gave it and never cached."""

    def conversation(self, request: str) -> list[ChatMessage]:
        """System prompt, earlier turns, then the request: what a chat model expects."""
        messages = [ChatMessage("system", self.settings.system_prompt)] if (
            self.settings.system_prompt
        ) else []
        return [*messages, *self.history, ChatMessage("user", request)]

    def send(self, request: ModelRequest, status: StepStatus) -> Completion:
        """Ask the model what `request` says; its tokens stream as steps of `status`. Earlier
        turns go with it, under the task's own system prompt too: "Bruno is a chef" said
        before a JSON request for his bio is what the bio must say."""
        if request.system is None:
            messages = self.conversation(request.user)
        else:
            messages = [ChatMessage("system", request.system), *self.history,
                        ChatMessage("user", request.user)]
        return self.complete(
            messages, status, json_schema=request.json_schema, max_tokens=request.max_tokens
        )

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
        limit = min(max_tokens or cap, cap)
        started = self.clock.monotonic()
        try:
            result = self.backend.complete(
                messages,
                max_tokens=limit,
                stop=stop,
                json_schema=json_schema,
                on_token=lambda piece: self.on_event(TokenEvent(piece, status)),
                cancel=self.cancel,
            )
        finally:
            self.generate_ms += (self.clock.monotonic() - started) * 1000
        self.generate_ms -= result.load_ms  # waiting for the model to load is not writing
        self.calls += 1
        self.prompt_tokens += result.prompt_tokens
        self.generated_tokens += result.completion_tokens
        if result.finish_reason == "length" and self.cut_off_at is None:
            self.cut_off_at = limit
            if result.completion_tokens < limit:
                self.context_filled = result.prompt_tokens + result.completion_tokens
        elif result.finish_reason not in ("stop", "length") and self.unfinished is None:
            self.unfinished = result.finish_reason or UNFINISHED
        return result

    def timed(self, started: float) -> None:
        """Add deterministic work (the exact solver) to the generate time."""
        self.generate_ms += (self.clock.monotonic() - started) * 1000


class TaskHandler(Protocol[C]):
    """One task kind: detection, steps, checks and patches, and what decides reuse.

    The engine knows no kind by name: it asks the handler for everything kind-specific,
    including how similar a neighbour must be and how far a same-shaped entry is.
    """

    kind: str
    """The name stored with an entry; a search only returns entries of the same kind."""
    similarity_floor: float
    """Cosine similarity below which a neighbour is neither reused nor named in a skip."""
    candidate_floor: float
    """Cosine similarity a neighbour needs before `skip_reason` is asked about it; a handler
    whose own test decides (the text gate) can take any neighbour it finds."""

    def detect(self, prompt: str) -> Task[C] | None: ...

    def read_constraints(self, stored: dict[str, Any]) -> C:
        """A cached entry's constraints, parsed from the JSON the store keeps (tolerating
        entries written before a field existed)."""
        ...

    def segment(self, text: str) -> list[Step]: ...

    def stitch(self, steps: Sequence[Step]) -> str: ...

    def skip_reason(self, task: Task[C], cached: C) -> str | None:
        """Why a cached request of the same kind must not be reused, or None."""
        ...

    def distance(self, task: Task[C], cached: C) -> int:
        """How many constants differ from a same-shaped cached request (fewer is closer)."""
        ...

    def verify(
        self, task: Task[C], steps: Sequence[Step], cached: C | None = None
    ) -> list[bool]:
        """Per step: does it still hold for this task (given the cached request's constraints)?"""
        ...

    def substitute(self, task: Task[C], cached: C, steps: Sequence[Step]) -> list[Step] | None:
        """Steps rewritten by pure substitution of changed constants, or None."""
        ...

    def patch(
        self, task: Task[C], steps: Sequence[AnswerStep], passed: Sequence[bool], gen: Generation
    ) -> list[AnswerStep]:
        """Replace the failing steps; keep the passing ones."""
        ...

    def model_request(self, task: Task[C]) -> ModelRequest:
        """What the model is asked for a whole answer to this task."""
        ...

    def generate(self, task: Task[C], gen: Generation) -> list[AnswerStep]:
        """A whole answer, checked and repaired (the model may not be needed at all)."""
        ...

    def annotate(self, task: Task[C], steps: Sequence[AnswerStep]) -> list[AnswerStep]:
        """The served steps, each marked with what checked it where the kind reports that."""
        ...

    def integrity(self, task: Task[C], text: str) -> bool | None:
        """Check the stitched answer as a whole; None when the task cannot be checked."""
        ...


@dataclass(frozen=True)
class Routed(Generic[C]):
    """The cached entry a request was routed to (reused or not): what it asked and answered."""

    constraints: C
    steps: tuple[Step, ...]


@runtime_checkable
class LearnsFromEarlierAnswers(Protocol[C]):
    """A kind whose stored entry keeps more than its request: what it learns from the answer
    and from the cached entry the request was routed to (an earlier instance of the same
    request, say). Kinds without it store their task's constraints as detected."""

    def stored_constraints(
        self, task: Task[C], steps: Sequence[Step], routed: Routed[C] | None
    ) -> C:
        """The constraints to store with `steps`, the answer about to be cached."""
        ...


def delivery_of(handler: TaskHandler[Any] | type) -> Delivery:
    """How front ends show `handler`'s answers (a kind's `delivery`, read from a handler or
    its class); a kind that does not say is served whole and shown literally, the safe
    choice for steps that are checked."""
    delivery = getattr(handler, "delivery", SERVED_WHOLE)
    return delivery if isinstance(delivery, Delivery) else SERVED_WHOLE


def answers_alone(handler: TaskHandler[Any], task: Task[Any]) -> bool:
    """Whether `handler` writes the whole answer to `task` without the model (a kind's
    `answers_without_model`); a kind that does not say is taken to need the model."""
    probe = getattr(handler, "answers_without_model", None)
    return bool(probe(task)) if callable(probe) else False


class FallbackHandler(TaskHandler[C], Protocol[C]):
    """The kind that takes every prompt no other kind claims (open text)."""

    def detect(self, prompt: str) -> Task[C]: ...
