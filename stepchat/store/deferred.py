"""Hit bookkeeping off the fast path.

Recording a hit is one LanceDB update (9-25 ms measured), longer than serving a reused
answer. `DeferredTouchStore` wraps any store: `touch` only queues; the queue is written
when the request is slow anyway (right after storing a new entry), before any listing or
eviction, when it grows past `max_pending`, on `flush()` (the CLI and the app call it on
exit), and `flush_after` seconds after a hit is queued, on a timer thread: a server or an
app serving hits for hours must not keep them from `stepchat cache list` or `cache evict
--older-than` run beside it (which removed entries just hit). Entries read meanwhile show
their queued hits, so the wrapper keeps the store contract. The answer worker, the timer
and the inspector all reach the queue, hence the lock. A crash can lose queued hit counts,
never entries.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from stepchat.core.listing import EntryPage
from stepchat.core.ports import MaintainedStore, SearchHit
from stepchat.core.types import CacheEntry
from stepchat.store.wrapper import StoreWrapper

T = TypeVar("T")
log = logging.getLogger(__name__)


class DeferredTouchStore(StoreWrapper):
    def __init__(
        self, inner: MaintainedStore, max_pending: int = 64, flush_after: float | None = 1.0
    ) -> None:
        self.inner = inner
        self.max_pending = max_pending
        self.flush_after = flush_after
        self._pending: list[tuple[str, float]] = []
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None

    def _inner_store(self) -> MaintainedStore:
        return self.inner

    def _housekeep(self, action: Callable[[MaintainedStore], T]) -> T:
        self.flush()  # figures count queued hits, and a queued hit can save an entry
        return action(self.inner)

    def touch(self, entry_id: str, when: float) -> None:
        with self._lock:
            self._pending.append((entry_id, when))
            full = len(self._pending) >= self.max_pending
            if not full and self._timer is None and self.flush_after is not None:
                self._timer = threading.Timer(self.flush_after, self._flush_in_background)
                self._timer.daemon = True
                self._timer.start()
        if full:
            self.flush()

    def flush(self) -> None:
        """Write every queued hit. The lock is held while writing, so a reader never sees
        a hit that has left the queue but not yet reached the store."""
        with self._lock:
            self._cancel_timer()
            pending, self._pending = self._pending, []
            for entry_id, when in pending:
                self.inner.touch(entry_id, when)

    def _flush_in_background(self) -> None:
        """The timer's flush: a store that fails here (a full disk, a bucket gone) costs
        the queued hit counts and a log line, never a traceback over the app's screen."""
        try:
            self.flush()
        except Exception as exc:  # nothing above the timer thread to tell
            log.warning("queued cache hits not written: %s", exc)

    def _cancel_timer(self) -> None:
        """Call under the lock. A timer that already fired finds the queue written."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _with_pending(self, entry: CacheEntry | None) -> CacheEntry | None:
        """`entry` as it will be once its queued hits are written; call under the lock,
        with `entry` read under it too."""
        if entry is None:
            return None
        times = [when for entry_id, when in self._pending if entry_id == entry.id]
        if not times:
            return entry
        return replace(entry, hits=entry.hits + len(times), last_hit=max(times))

    def add(self, entry: CacheEntry) -> None:
        self.inner.add(entry)
        self.flush()

    def search(
        self, vector: Sequence[float], *, scope: str, task: str, k: int = 4
    ) -> list[SearchHit]:
        with self._lock:
            hits = self.inner.search(vector, scope=scope, task=task, k=k)
            return [SearchHit(self._with_pending(h.entry) or h.entry, h.similarity) for h in hits]

    def find_signature(self, *, scope: str, signature: str) -> CacheEntry | None:
        with self._lock:
            found = self.inner.find_signature(scope=scope, signature=signature)
            return self._with_pending(found)

    def get(self, entry_id: str) -> CacheEntry | None:
        with self._lock:
            return self._with_pending(self.inner.get(entry_id))

    def delete(self, entry_id: str) -> bool:
        self.flush()
        return self.inner.delete(entry_id)

    def clear(self) -> int:
        with self._lock:
            self._cancel_timer()
            self._pending.clear()
            return self.inner.clear()

    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        self.flush()
        return self.inner.entries(limit)

    def listing(
        self, *, offset: int = 0, limit: int | None = None, needle: str = ""
    ) -> EntryPage:
        self.flush()
        return self.inner.listing(offset=offset, limit=limit, needle=needle)

    def close(self) -> None:
        self.flush()
        self.inner.close()
