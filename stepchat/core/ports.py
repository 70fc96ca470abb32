"""Ports: the four things the pipeline needs from the outside world.

Each has a real adapter (llama.cpp or an OpenAI-compatible server, MiniLM, LanceDB, the
wall clock) and a fake one for fast, deterministic tests (scripted, hashed, in-memory,
fixed clock). The pipeline only ever sees these protocols.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from stepchat.core.listing import EntryPage
from stepchat.core.types import CacheEntry, ChatMessage, Completion


class CancelToken(Protocol):
    """Anything with `is_set()`, such as `threading.Event`: set it to stop a generation."""

    def is_set(self) -> bool: ...


class GenerationCancelled(Exception):
    """Raised by a backend when its cancel token was set mid-generation."""


class BackendError(Exception):
    """The model could not be loaded or called; the message is one line for the user."""


class PromptTooLong(BackendError):
    """The request alone does not fit the model's context, so no reply can be made.

    Earlier turns are trimmed to fit; the request itself cannot be, so this is the
    sender's to fix, not a failure of the model: a server answers it 400, not 502. Build
    the message with `for_model`, so every backend says it the same way.
    """

    @classmethod
    def for_model(
        cls, model_id: str, tokens: int | None = None, context: int | None = None
    ) -> PromptTooLong:
        """The error for `model_id`, with the prompt's size and the context where known."""
        size = f"the prompt is {tokens} tokens, too long" if tokens else "the prompt is too long"
        unit = "" if tokens else " tokens"
        room = f"its context of {context}{unit}" if context else "its context"
        return cls(f"model {model_id}: {size} for {room} (send a shorter one)")


@runtime_checkable
class Backend(Protocol):
    """A chat-completion model."""

    model_id: str

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> Completion:
        """Generate one reply. Streams pieces to `on_token`; raises GenerationCancelled."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens `text` costs under this model's tokenizer."""
        ...

    def load(self) -> float:
        """Make the model ready now instead of on the first call (idempotent), so a caller
        can load it ahead of need and show progress; returns the seconds it took."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns a prompt into a unit-length vector."""

    name: str
    dim: int

    def embed(self, text: str) -> list[float]: ...

    def load(self) -> float:
        """Load the weights now instead of on the first `embed` (idempotent); seconds."""
        ...


class StoreError(Exception):
    """The cache store failed; the message is one line for the user."""


ANSWERS_ALONE: ContextVar[bool] = ContextVar("stepchat_answers_alone", default=False)
"""True while the engine serves a request it can answer whole without the model (the exact
solver, values the prompt states). The answer then comes in milliseconds whatever the
cache holds, so a store whose backend is slow or far away (a shared bucket that is not
open yet, or not answering) answers "nothing cached" and keeps writes for later instead of
making that answer wait for it."""


@dataclass(frozen=True)
class SearchHit:
    entry: CacheEntry
    similarity: float


@runtime_checkable
class Store(Protocol):
    """Persistent cache of verified requests."""

    def add(self, entry: CacheEntry) -> None: ...

    def search(
        self, vector: Sequence[float], *, scope: str, task: str, k: int = 4
    ) -> list[SearchHit]:
        """Nearest entries by cosine similarity, restricted to one scope and task kind."""
        ...

    def find_signature(self, *, scope: str, signature: str) -> CacheEntry | None:
        """The newest entry with exactly this structural signature, if any."""
        ...

    def get(self, entry_id: str) -> CacheEntry | None: ...

    def touch(self, entry_id: str, when: float) -> None:
        """Record a hit: bump the hit count and last-hit time."""
        ...

    def delete(self, entry_id: str) -> bool: ...

    def clear(self) -> int: ...

    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        """All entries, most recently hit first."""
        ...

    def listing(
        self, *, offset: int = 0, limit: int | None = None, needle: str = ""
    ) -> EntryPage:
        """A page of the entries as a table shows them (no vectors, no steps' text), most
        recently hit first, keeping those that `stepchat.core.listing.matches` `needle`.
        Reads only what the page needs, so a lookup never waits for a listing of the whole
        cache."""
        ...

    def count(self) -> int: ...

    def flush(self) -> None:
        """Write bookkeeping queued off the fast path (hit counts). A store that queues
        nothing keeps this default."""
        return None

    def drain_notes(self) -> list[str]:
        """One-line notes for the user since the last call (a shared cache that went away or
        came back). A store with nothing to say keeps this default."""
        return []

    def close(self) -> None:
        """Finish background upkeep before the process ends (after `flush`), so a one-shot
        process leaves the cache within its limits. Raises StoreError. A store without
        background work keeps this default."""
        return None


@runtime_checkable
class MaintainedStore(Store, Protocol):
    """A store that reports on itself and evicts: what `stepchat cache` and the inspector
    use beyond serving requests."""

    def stats(self) -> dict[str, Any]:
        """Figures for `stepchat cache stats` (entries, bytes on disk, limits...)."""
        ...

    def evict_older_than(self, seconds: float, now: float) -> int:
        """Delete entries not hit for `seconds` before `now`, final on disk; how many."""
        ...

    def purge(self) -> None:
        """Make deletions final on disk: no file keeps a deleted entry's text."""
        ...

    def signature_ids(self) -> dict[tuple[str, str], str]:
        """The newest entry id of every (scope, signature): what a signature index in
        front of the store is reconciled with."""
        ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch (stored in entries)."""
        ...

    def monotonic(self) -> float:
        """Seconds for measuring durations."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.perf_counter()


class FixedClock:
    """A clock for deterministic tests: time moves only when told to."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:
        self._t = start

    def now(self) -> float:
        return self._t

    def monotonic(self) -> float:
        return self._t

    def advance(self, seconds: float) -> None:
        self._t += seconds
