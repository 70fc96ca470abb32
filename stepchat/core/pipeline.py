"""StepCache: serve one request through the step-level cache (skeleton; being filled in)."""

from __future__ import annotations

from stepchat.core.events import EventSink, ignore_events
from stepchat.core.ports import Backend, CancelToken, Clock, Embedder, Store, SystemClock
from stepchat.core.settings import DEFAULT_SETTINGS, PipelineSettings
from stepchat.core.types import Answer


class PromptError(ValueError):
    """The prompt cannot be served (empty, binary, too long); one line for the user."""


class StepCache:
    def __init__(
        self,
        backend: Backend,
        embedder: Embedder,
        store: Store,
        *,
        settings: PipelineSettings = DEFAULT_SETTINGS,
        clock: Clock | None = None,
    ) -> None:
        self.backend = backend
        self.embedder = embedder
        self.store = store
        self.settings = settings
        self.clock = clock or SystemClock()

    def answer(
        self,
        prompt: str,
        *,
        on_event: EventSink = ignore_events,
        cancel: CancelToken | None = None,
        reuse: bool = True,
        store: bool = True,
    ) -> Answer:
        raise NotImplementedError
