"""Hit bookkeeping off the fast path.

Recording a hit is one LanceDB update (9-25 ms measured), longer than serving a reused
answer. `DeferredTouchStore` wraps any store: `touch` only queues; the queue is written
when the request is slow anyway (right after storing a new entry), before any listing or
eviction, when it grows past `max_pending`, and on `flush()` (the CLI and the app call it
on exit). A crash can lose queued hit counts, never entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stepchat.core.ports import SearchHit, Store
from stepchat.core.types import CacheEntry


class DeferredTouchStore:
    def __init__(self, inner: Store, max_pending: int = 64) -> None:
        self.inner = inner
        self.max_pending = max_pending
        self._pending: list[tuple[str, float]] = []

    def touch(self, entry_id: str, when: float) -> None:
        self._pending.append((entry_id, when))
        if len(self._pending) >= self.max_pending:
            self.flush()

    def flush(self) -> None:
        """Write every queued hit."""
        pending, self._pending = self._pending, []
        for entry_id, when in pending:
            self.inner.touch(entry_id, when)

    def add(self, entry: CacheEntry) -> None:
        self.inner.add(entry)
        self.flush()

    def search(
        self, vector: Sequence[float], *, scope: str, task: str, k: int = 4
    ) -> list[SearchHit]:
        return self.inner.search(vector, scope=scope, task=task, k=k)

    def find_signature(self, *, scope: str, signature: str) -> CacheEntry | None:
        return self.inner.find_signature(scope=scope, signature=signature)

    def get(self, entry_id: str) -> CacheEntry | None:
        return self.inner.get(entry_id)

    def delete(self, entry_id: str) -> bool:
        self.flush()
        return self.inner.delete(entry_id)

    def clear(self) -> int:
        self._pending.clear()
        return self.inner.clear()

    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        self.flush()
        return self.inner.entries(limit)

    def count(self) -> int:
        return self.inner.count()

    def __getattr__(self, name: str) -> Any:
        """Store-specific extras (stats, eviction, index_kind) flush first, then pass through."""
        attr = getattr(self.inner, name)
        if callable(attr):
            def flushed(*args: Any, **kwargs: Any) -> Any:
                self.flush()
                return attr(*args, **kwargs)
            return flushed
        return attr
