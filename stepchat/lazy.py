"""A model and an embedder that are built and loaded the first time a request needs them.

Most requests that reach a warm cache need neither: a structural hit is settled by the
store, and only a step that must be written needs the model. The proxies carry what is
known without loading (the model id that scopes the cache, the embedder's name and width),
so the engine can start at once; `load()` loads ahead of need (the app does it in the
background) and is idempotent, so a request and a background load never load twice.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Generic, TypeVar

from stepchat.core.ports import Backend, BackendError, Embedder
from stepchat.core.types import ChatMessage, Completion
from stepchat.heap import settle

Part = TypeVar("Part", Backend, Embedder)


class _OnFirstUse(Generic[Part]):
    """Builds a part once (cheap: no weights read) and loads it once (the slow step)."""

    def __init__(self, build: Callable[[], Part]) -> None:
        self._build: Callable[[], Part] = build
        self._part: Part | None = None
        # Two locks: counting tokens needs only the built part and must not wait for a load.
        self._build_lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._loaded = False
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._loaded

    def _built(self) -> Part:
        with self._build_lock:
            if self._part is None:
                self._part = self._build()
            return self._part

    def load(self) -> float:
        """Load now (idempotent); returns the seconds loading took."""
        part = self._built()
        with self._load_lock:
            if not self._loaded:
                self.load_seconds = part.load()
                self._loaded = True
                settle()
            return self.load_seconds or 0.0

    def _ready(self) -> Part:
        self.load()
        return self._built()


class LazyBackend(_OnFirstUse[Backend]):
    """A `Backend` whose model loads when the first step has to be generated.

    Counting tokens (for the tokens an answer saved) builds the backend without loading the
    model where the adapter can count with its tokenizer alone (llama.cpp reads only the
    vocabulary), so a cache hit never waits for the model.
    """

    def __init__(self, model_id: str, build: Callable[[], Backend]) -> None:
        super().__init__(build)
        self.model_id = model_id

    def complete(self, messages: Sequence[ChatMessage], **options: Any) -> Completion:
        """The real backend's `complete`, after loading the model if it is not loaded yet
        (the wait is the completion's `load_ms`)."""
        waited = 0.0
        if not self.loaded:
            started = time.monotonic()
            self.load()
            waited = (time.monotonic() - started) * 1000
        result = self._built().complete(messages, **options)
        return replace(result, load_ms=result.load_ms + waited) if waited else result

    def count_tokens(self, text: str) -> int:
        """Tokens under the model's tokenizer. A model that cannot be built (its GGUF is
        missing) is a BackendError here too, so an answer the solver wrote is still served,
        uncached, rather than lost to a configuration error."""
        from stepchat.config import ConfigError

        try:
            return self._built().count_tokens(text)
        except ConfigError as exc:
            raise BackendError(str(exc)) from None


class LazyEmbedder(_OnFirstUse[Embedder]):
    """An `Embedder` whose weights load when the first prompt must be embedded."""

    def __init__(self, name: str, dim: int, build: Callable[[], Embedder]) -> None:
        super().__init__(build)
        self.name = name
        self.dim = dim

    def embed(self, text: str) -> list[float]:
        return self._ready().embed(text)
