"""A cache in a bucket that may go away, in front of requests that must not.

A shared cache is a network service: its server can stop in the middle of a request. The
answer must still come, so `SharedStore` turns a failing bucket into a miss: lookups find
nothing, new entries wait in memory (bounded) and are written when the bucket answers again,
and the user reads one line about it, once per outage. While the bucket is down it is only
asked again every `retry_after` seconds, so requests do not each wait for a timeout. The
store is opened lazily too: a server that is down when stepchat starts is used once it is up.

Housekeeping (`stepchat cache ...`) does not go through here: there a dead bucket is an error.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from stepchat.core.ports import MaintainedStore, SearchHit, StoreError
from stepchat.core.types import CacheEntry

T = TypeVar("T")
SHARED_NOTE = "shared cache "
"""How every note of this module starts, so the app can show them as they come."""


class SharedStore(MaintainedStore):
    """A `Store` over a bucket-backed store that answers as a miss while the bucket is down."""

    def __init__(
        self,
        opener: Callable[[], MaintainedStore],
        *,
        name: str,
        retry_after: float = 10.0,
        max_pending: int = 1000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._opener = opener
        self.name = name
        self.retry_after = retry_after
        self.max_pending = max_pending
        self._clock = clock
        self._inner: MaintainedStore | None = None
        self._down = False
        self._next_try = 0.0
        self._pending: dict[str, CacheEntry] = {}
        self._notes: list[str] = []
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ state

    @property
    def available(self) -> bool:
        """Whether the last call reached the bucket."""
        return self._inner is not None and not self._down

    @property
    def pending(self) -> int:
        """Entries written while the bucket was down, not yet in it."""
        return len(self._pending)

    def drain_notes(self) -> list[str]:
        """What the user should be told since the last call (one line each)."""
        with self._lock:
            notes, self._notes = self._notes, []
            return notes

    def _went_down(self, exc: StoreError) -> None:
        self._next_try = self._clock() + self.retry_after
        if not self._down:
            self._down = True
            reason = str(exc).split(": ", 1)[-1]
            note = f"{SHARED_NOTE}{self.name} unreachable ({reason}); answering without it"
            self._notes.append(note)

    def _came_back(self, store: MaintainedStore) -> None:
        """First success after an outage: write what waited, then say so."""
        self._down = False
        written = 0
        for entry_id, entry in list(self._pending.items()):
            store.add(entry)  # a failure here is a new outage; the rest keep waiting
            del self._pending[entry_id]
            written += 1
        note = f"{SHARED_NOTE}{self.name} is back"
        if written:
            note += f"; wrote {written} entries kept while it was down"
        self._notes.append(note)

    def _call(self, action: Callable[[MaintainedStore], T], fallback: T) -> T:
        with self._lock:
            if self._down and self._clock() < self._next_try:
                return fallback
            try:
                if self._inner is None:
                    self._inner = self._opener()
                store = self._inner
                result = action(store)
                if self._down:
                    self._came_back(store)
                return result
            except StoreError as exc:
                self._went_down(exc)
                return fallback

    # ------------------------------------------------------------------ Store protocol

    def add(self, entry: CacheEntry) -> None:
        with self._lock:
            if not self._call(lambda s: _added(s, entry), False):
                self._keep(entry)

    def _keep(self, entry: CacheEntry) -> None:
        self._pending[entry.id] = entry
        while len(self._pending) > self.max_pending:
            del self._pending[next(iter(self._pending))]  # oldest first

    def search(
        self, vector: Sequence[float], *, scope: str, task: str, k: int = 4
    ) -> list[SearchHit]:
        return self._call(lambda s: s.search(vector, scope=scope, task=task, k=k), [])

    def find_signature(self, *, scope: str, signature: str) -> CacheEntry | None:
        return self._call(lambda s: s.find_signature(scope=scope, signature=signature), None)

    def get(self, entry_id: str) -> CacheEntry | None:
        return self._call(lambda s: s.get(entry_id), None)

    def touch(self, entry_id: str, when: float) -> None:
        self._call(lambda s: s.touch(entry_id, when), None)  # a lost hit count is harmless

    def delete(self, entry_id: str) -> bool:
        with self._lock:
            kept = self._pending.pop(entry_id, None) is not None
        return self._call(lambda s: s.delete(entry_id), False) or kept

    def clear(self) -> int:
        with self._lock:
            kept = len(self._pending)
            self._pending.clear()
        return self._call(lambda s: s.clear(), 0) + kept

    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        return self._call(lambda s: s.entries(limit), [])

    def count(self) -> int:
        return self._call(lambda s: s.count(), 0)

    def flush(self) -> None:
        """Write queued bookkeeping of the inner store, if it queues any."""
        self._call(lambda s: s.flush(), None)

    def close(self) -> None:
        with self._lock:
            inner = self._inner
        if inner is not None:
            inner.close()

    # ------------------------------------------------------------------ housekeeping

    def _opened(self) -> MaintainedStore:
        """The bucket's store for `stepchat cache ...`, where a dead bucket is an error."""
        with self._lock:
            if self._inner is None:
                self._inner = self._opener()
            return self._inner

    def stats(self) -> dict[str, Any]:
        return self._opened().stats()

    def evict_older_than(self, seconds: float, now: float) -> int:
        return self._opened().evict_older_than(seconds, now)

    def purge(self) -> None:
        self._opened().purge()

    def signature_ids(self) -> dict[tuple[str, str], str]:
        return self._opened().signature_ids()


def _added(store: MaintainedStore, entry: CacheEntry) -> bool:
    store.add(entry)
    return True
