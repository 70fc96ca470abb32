"""The cache store, opened only when a request needs more than the signature index.

`LazyStore` is what the CLI and the app hand to the engine. A structural lookup is answered
from the `SignatureIndex` while the LanceDB table stays closed; anything else (a nearest-
neighbour search, a write, a listing) opens the table first. Every change goes through
here, so the index stays in step: entries are indexed after the table commits them and
forgotten before the table deletes them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from stepchat.core.ports import SearchHit, Store
from stepchat.core.types import CacheEntry, TaskKind
from stepchat.store.signature_index import SignatureIndex

OpenStore = Callable[[], tuple[Store, list[str]]]
"""Opens the real store; returns it with notes for the user (a table moved aside...)."""


@runtime_checkable
class SignatureSource(Protocol):
    """A store that can list the newest entry id of every (scope, signature)."""

    def signature_ids(self) -> dict[tuple[str, str], str]: ...


class LazyStore:
    """A `Store` over a table opened on first need, with the structural lookup in front."""

    def __init__(
        self,
        open_store: OpenStore,
        index: SignatureIndex | None = None,
        *,
        max_age_seconds: float | None = None,
    ) -> None:
        self._open_store = open_store
        self.index = index
        self.max_age_seconds = max_age_seconds
        self._inner: Store | None = None
        self._lock = threading.Lock()
        self.notes: list[str] = []
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    def load(self) -> float:
        """Open the table now (idempotent), apply hits recorded while it was closed and
        bring the index in step; returns the seconds opening took."""
        self._store()
        return self.load_seconds or 0.0

    def _store(self) -> Store:
        inner = self._inner
        if inner is not None:
            return inner
        with self._lock:
            if self._inner is None:
                started = time.perf_counter()
                store, notes = self._open_store()
                self.notes.extend(notes)
                self._inner = store
                if self.index is not None:
                    for entry_id, when in self.index.take_touches():
                        store.touch(entry_id, when)
                    self._reconcile(store)
                self.load_seconds = time.perf_counter() - started
            return self._inner

    def _reconcile(self, store: Store) -> None:
        if self.index is not None and isinstance(store, SignatureSource):
            self.index.reconcile(store.signature_ids())

    # ------------------------------------------------------------------ Store protocol

    def _fresh(self, entry: CacheEntry) -> bool:
        """Not past the TTL (`max_age_seconds` since its last hit). An expired entry is
        never served, whether or not a sweep has deleted it yet; an index copy whose hit
        time is that old is checked against the table, which has the hits since."""
        limit = self.max_age_seconds
        return limit is None or entry.last_hit >= time.time() - limit

    def find_signature(self, *, scope: str, signature: str) -> CacheEntry | None:
        if self._inner is None and self.index is not None:
            found = self.index.find(scope, signature)
            if found is not None and self._fresh(found):
                return found
        entry = self._store().find_signature(scope=scope, signature=signature)
        if entry is not None and self.index is not None:
            self.index.put(entry)  # entries cached before the index existed join it here
        return entry if entry is None or self._fresh(entry) else None

    def touch(self, entry_id: str, when: float) -> None:
        if self._inner is None and self.index is not None and self.index.touch(entry_id, when):
            return
        self._store().touch(entry_id, when)

    def add(self, entry: CacheEntry) -> None:
        self._store().add(entry)
        if self.index is not None:
            self.index.put(entry)

    def search(
        self, vector: Sequence[float], *, scope: str, task: TaskKind, k: int = 4
    ) -> list[SearchHit]:
        hits = self._store().search(vector, scope=scope, task=task, k=k)
        return [hit for hit in hits if self._fresh(hit.entry)]

    def get(self, entry_id: str) -> CacheEntry | None:
        return self._store().get(entry_id)

    def delete(self, entry_id: str) -> bool:
        store = self._store()
        if self.index is not None:
            self.index.remove(entry_id)
        return store.delete(entry_id)

    def clear(self) -> int:
        store = self._store()
        if self.index is not None:
            self.index.clear()
        cleared = store.clear()
        if self.index is not None:
            self.index.purge()
        return cleared

    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        return self._store().entries(limit)

    def count(self) -> int:
        return self._store().count()

    # ------------------------------------------------------------------ beyond the port

    def flush(self) -> None:
        """Write queued hits and bring the index in step (evictions by size or age happen
        inside the store); nothing to do when the table was never opened."""
        inner = self._inner
        if inner is None:
            return
        flush = getattr(inner, "flush", None)
        if callable(flush):
            flush()
        self._reconcile(inner)

    def close(self) -> None:
        """Finish the table's background upkeep (a sweep started on open), then bring the
        index in step with what it left; nothing to do when the table was never opened."""
        inner = self._inner
        if inner is None:
            return
        close = getattr(inner, "close", None)
        if callable(close):
            close()
        self._reconcile(inner)

    def evict_older_than(self, seconds: float, now: float) -> int:
        """Delete entries not hit for `seconds`, purged from the table and the index."""
        store = self._store()
        evict = getattr(store, "evict_older_than", None)
        removed = int(evict(seconds, now)) if callable(evict) else 0
        self._reconcile(store)
        if removed and self.index is not None:
            self.index.purge()
        return removed

    def purge(self) -> None:
        """Make deletions final on disk in the table and in the index (no file keeps an
        evicted entry's text)."""
        store = self._store()
        purge = getattr(store, "purge", None)
        if callable(purge):
            purge()
        self._reconcile(store)
        if self.index is not None:
            self.index.purge()

    def __getattr__(self, name: str) -> Any:
        """Store-specific extras (stats, evict_older_than, index_kind): open, pass through,
        and bring the index in step after anything that may have deleted entries."""
        if name.startswith("_"):
            raise AttributeError(name)
        attr = getattr(self._store(), name)
        if not callable(attr):
            return attr

        def reconciled(*args: Any, **kwargs: Any) -> Any:
            result = attr(*args, **kwargs)
            if self._inner is not None:
                self._reconcile(self._inner)
            return result

        return reconciled
