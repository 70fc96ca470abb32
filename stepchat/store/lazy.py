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
from typing import TypeVar

from stepchat.core.ports import MaintainedStore, SearchHit
from stepchat.core.types import CacheEntry
from stepchat.heap import settle
from stepchat.store.signature_index import SignatureIndex
from stepchat.store.wrapper import StoreWrapper

T = TypeVar("T")

OpenStore = Callable[[], tuple[MaintainedStore, list[str]]]
"""Opens the real store; returns it with notes for the user (a table moved aside...)."""


class LazyStore(StoreWrapper):
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
        self._inner: MaintainedStore | None = None
        self._lock = threading.Lock()
        self.notes: list[str] = []
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    def load(self) -> float:
        """Open the table now (idempotent), apply hits recorded while it was closed and
        bring the index in step; returns the seconds opening took."""
        self._inner_store()
        return self.load_seconds or 0.0

    def _inner_store(self) -> MaintainedStore:
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
                settle()
            return self._inner

    def _reconcile(self, store: MaintainedStore) -> None:
        if self.index is not None:
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
        entry = self._inner_store().find_signature(scope=scope, signature=signature)
        if entry is not None and self.index is not None:
            self.index.put(entry)  # entries cached before the index existed join it here
        return entry if entry is None or self._fresh(entry) else None

    def touch(self, entry_id: str, when: float) -> None:
        if self._inner is None and self.index is not None and self.index.touch(entry_id, when):
            return
        self._inner_store().touch(entry_id, when)

    def add(self, entry: CacheEntry) -> None:
        self._inner_store().add(entry)
        if self.index is not None:
            self.index.put(entry)

    def search(
        self, vector: Sequence[float], *, scope: str, task: str, k: int = 4
    ) -> list[SearchHit]:
        hits = self._inner_store().search(vector, scope=scope, task=task, k=k)
        return [hit for hit in hits if self._fresh(hit.entry)]

    def delete(self, entry_id: str) -> bool:
        store = self._inner_store()
        if self.index is not None:
            self.index.remove(entry_id)
        return store.delete(entry_id)

    def clear(self) -> int:
        store = self._inner_store()
        if self.index is not None:
            self.index.clear()
        cleared = store.clear()
        if self.index is not None:
            self.index.purge()
        return cleared

    # ------------------------------------------------------------------ beyond the port

    def flush(self) -> None:
        """Write queued hits and bring the index in step (evictions by size or age happen
        inside the store); nothing to do when the table was never opened."""
        inner = self._inner
        if inner is None:
            return
        inner.flush()
        self._reconcile(inner)

    def drain_notes(self) -> list[str]:
        """Notes of the opened store for the user (a shared cache that went away or came
        back); never opens the table to ask."""
        return self._inner.drain_notes() if self._inner is not None else []

    def close(self) -> None:
        """Finish the table's background upkeep (a sweep started on open), then bring the
        index in step with what it left; nothing to do when the table was never opened."""
        inner = self._inner
        if inner is None:
            return
        inner.close()
        self._reconcile(inner)

    def _housekeep(self, action: Callable[[MaintainedStore], T]) -> T:
        """Figures, evictions and purges change what the table holds (a sweep may run
        inside it): the index follows."""
        store = self._inner_store()
        result = action(store)
        self._reconcile(store)
        return result

    def evict_older_than(self, seconds: float, now: float) -> int:
        """Delete entries not hit for `seconds`, purged from the table and the index."""
        removed = super().evict_older_than(seconds, now)
        if removed and self.index is not None:
            self.index.purge()
        return removed

    def purge(self) -> None:
        """Make deletions final on disk in the table and in the index (no file keeps an
        evicted entry's text)."""
        super().purge()
        if self.index is not None:
            self.index.purge()
