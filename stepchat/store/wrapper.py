"""The common shape of a store in front of another store.

`DeferredTouchStore`, `LazyStore` and `SharedStore` each change what a few calls do (queue
hits, open the table late, survive a dead bucket) and pass the rest on. `StoreWrapper` is
that passing on, written once: every call reaches the inner store through one of two
doors, so a wrapper changes a whole group of calls by overriding its door instead of
re-forwarding each method (and a method added to the store contract is forwarded by every
wrapper at once).

- `_call(action, fallback)`: serving and reading calls (lookups, hits, listings, counts).
  A wrapper may answer `fallback` instead, as the shared store does while its bucket is down.
- `_housekeep(action)`: figures, evictions and purges for `stepchat cache` and the
  inspector, which need the store itself (a dead bucket is an error there) and may need
  the wrapper's own state settled first (queued hits written).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from stepchat.core.listing import EntryPage
from stepchat.core.ports import MaintainedStore, SearchHit
from stepchat.core.types import CacheEntry

T = TypeVar("T")


class StoreWrapper(MaintainedStore):
    """A `MaintainedStore` that passes every call on to `_inner_store()`."""

    def _inner_store(self) -> MaintainedStore:
        """The store behind this one (opened if need be)."""
        raise NotImplementedError

    def _call(self, action: Callable[[MaintainedStore], T], fallback: T) -> T:
        return action(self._inner_store())

    def _housekeep(self, action: Callable[[MaintainedStore], T]) -> T:
        return action(self._inner_store())

    # ------------------------------------------------------------------ serving and reading

    def add(self, entry: CacheEntry) -> None:
        self._call(lambda s: s.add(entry), None)

    def search(
        self, vector: Sequence[float], *, scope: str, task: str, k: int = 4
    ) -> list[SearchHit]:
        return self._call(lambda s: s.search(vector, scope=scope, task=task, k=k), [])

    def find_signature(self, *, scope: str, signature: str) -> CacheEntry | None:
        return self._call(lambda s: s.find_signature(scope=scope, signature=signature), None)

    def get(self, entry_id: str) -> CacheEntry | None:
        return self._call(lambda s: s.get(entry_id), None)

    def touch(self, entry_id: str, when: float) -> None:
        self._call(lambda s: s.touch(entry_id, when), None)

    def delete(self, entry_id: str) -> bool:
        return self._call(lambda s: s.delete(entry_id), False)

    def clear(self) -> int:
        return self._call(lambda s: s.clear(), 0)

    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        return self._call(lambda s: s.entries(limit), [])

    def listing(self, *, offset: int = 0, limit: int | None = None, needle: str = "") -> EntryPage:
        return self._call(
            lambda s: s.listing(offset=offset, limit=limit, needle=needle), EntryPage([], 0)
        )

    def count(self) -> int:
        return self._call(lambda s: s.count(), 0)

    def flush(self) -> None:
        self._call(lambda s: s.flush(), None)

    def drain_notes(self) -> list[str]:
        return self._call(lambda s: s.drain_notes(), [])

    def close(self) -> None:
        self._inner_store().close()

    # ------------------------------------------------------------------ housekeeping

    def stats(self) -> dict[str, Any]:
        return self._housekeep(lambda s: s.stats())

    def evict_older_than(self, seconds: float, now: float) -> int:
        return self._housekeep(lambda s: s.evict_older_than(seconds, now))

    def purge(self) -> None:
        self._housekeep(lambda s: s.purge())

    def signature_ids(self) -> dict[tuple[str, str], str]:
        return self._housekeep(lambda s: s.signature_ids())
