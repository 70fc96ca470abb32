"""The task kinds the engine serves: the one place that names them.

The engine asks these handlers for everything kind-specific and knows no kind by name, so
a new kind is a module with a handler and one line in `BUILT_IN` (or a `TaskKinds` passed
to `StepCache`). Claiming kinds are asked in the order listed, which is their precedence
when two could read one prompt; the fallback takes whatever none claims.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from stepchat.core.events import SERVED_WHOLE, Delivery
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.base import FallbackHandler, Task, TaskHandler, delivery_of
from stepchat.core.tasks.json_task import JsonHandler
from stepchat.core.tasks.linear_task import LinearHandler
from stepchat.core.tasks.text_task import TextHandler
from stepchat.core.tasks.wordprob.handler import WordProblemHandler

__all__ = ["BUILT_IN", "Handlers", "TaskKinds"]

HandlerFactory = Callable[[PipelineSettings], TaskHandler[Any]]
FallbackFactory = Callable[[PipelineSettings], FallbackHandler[Any]]


class Handlers:
    """The handlers of one engine, built under its settings."""

    def __init__(
        self, claiming: tuple[TaskHandler[Any], ...], fallback: FallbackHandler[Any]
    ) -> None:
        self.claiming = claiming
        self.fallback = fallback

    def detect(self, prompt: str) -> tuple[TaskHandler[Any], Task[Any]]:
        """The first claiming kind that reads `prompt`, else the fallback."""
        for handler in self.claiming:
            task = handler.detect(prompt)
            if task is not None:
                return handler, task
        return self.fallback, self.fallback.detect(prompt)

    def __iter__(self) -> Iterator[TaskHandler[Any]]:
        yield from self.claiming
        yield self.fallback


@dataclass(frozen=True)
class TaskKinds:
    """Which kinds an engine serves: handler factories, claiming ones in precedence order."""

    claiming: tuple[HandlerFactory, ...]
    fallback: FallbackFactory

    def build(self, settings: PipelineSettings) -> Handlers:
        return Handlers(tuple(make(settings) for make in self.claiming), self.fallback(settings))

    def with_kind(self, factory: HandlerFactory) -> TaskKinds:
        """These kinds and one more, asked after the others."""
        return TaskKinds((*self.claiming, factory), self.fallback)

    def delivery_of(self, kind: str) -> Delivery:
        """How answers of the kind named `kind` are shown: what an answer read back from a
        saved record (which names its kind) carries. A factory is a handler class's
        `from_settings`, and `delivery` a class attribute, so no handler is built; a kind
        none of these serves is served whole."""
        for make in (*self.claiming, self.fallback):
            handler = getattr(make, "__self__", None)
            if isinstance(handler, type) and getattr(handler, "kind", None) == kind:
                return delivery_of(handler)
        return SERVED_WHOLE


BUILT_IN = TaskKinds(
    claiming=(
        LinearHandler.from_settings,
        JsonHandler.from_settings,
        WordProblemHandler.from_settings,
    ),
    fallback=TextHandler.from_settings,
)
