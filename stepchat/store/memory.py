"""An in-memory store for tests: same contract as the LanceDB store, no disk."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from stepchat.core.listing import EntryPage, page_of, summary_of
from stepchat.core.ports import MaintainedStore, SearchHit
from stepchat.core.types import CacheEntry


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


class MemoryStore(MaintainedStore):
    """Nothing is queued and nothing lingers on disk: flush, close and purge keep the
    protocol's defaults or do nothing."""

    def __init__(self) -> None:
        self._rows: dict[str, CacheEntry] = {}

    def add(self, entry: CacheEntry) -> None:
        self._rows[entry.id] = copy.deepcopy(entry)

    def search(
        self, vector: Sequence[float], *, scope: str, task: str, k: int = 4
    ) -> list[SearchHit]:
        hits = [
            SearchHit(copy.deepcopy(e), cosine(vector, e.vector))
            for e in self._rows.values()
            if e.scope == scope and e.task == task
        ]
        hits.sort(key=lambda h: h.similarity, reverse=True)
        return hits[:k]

    def find_signature(self, *, scope: str, signature: str) -> CacheEntry | None:
        found = [e for e in self._rows.values() if e.scope == scope and e.signature == signature]
        if not found:
            return None
        return copy.deepcopy(max(found, key=lambda e: e.created))

    def signature_ids(self) -> dict[tuple[str, str], str]:
        """The newest entry id of every (scope, signature), as `LanceStore` reports it."""
        newest: dict[tuple[str, str], CacheEntry] = {}
        for entry in self._rows.values():
            key = (entry.scope, entry.signature)
            if key not in newest or entry.created >= newest[key].created:
                newest[key] = entry
        return {key: entry.id for key, entry in newest.items()}

    def get(self, entry_id: str) -> CacheEntry | None:
        entry = self._rows.get(entry_id)
        return copy.deepcopy(entry) if entry else None

    def touch(self, entry_id: str, when: float) -> None:
        entry = self._rows.get(entry_id)
        if entry is not None:
            entry.hits += 1
            entry.last_hit = when

    def delete(self, entry_id: str) -> bool:
        return self._rows.pop(entry_id, None) is not None

    def clear(self) -> int:
        n = len(self._rows)
        self._rows.clear()
        return n

    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        rows = sorted(self._rows.values(), key=lambda e: e.last_hit, reverse=True)
        return [copy.deepcopy(e) for e in rows[:limit]]

    def listing(
        self, *, offset: int = 0, limit: int | None = None, needle: str = ""
    ) -> EntryPage:
        summaries = (summary_of(e) for e in self._rows.values())
        return page_of(summaries, offset=offset, limit=limit, needle=needle)

    def count(self) -> int:
        return len(self._rows)

    def stats(self) -> dict[str, Any]:
        return {"rows": len(self._rows), "data_bytes": self._bytes(), "disk_bytes": 0}

    def _bytes(self) -> int:
        return sum(e.size_bytes() for e in self._rows.values())

    def evict_older_than(self, seconds: float, now: float) -> int:
        doomed = [k for k, e in self._rows.items() if e.last_hit < now - seconds]
        for key in doomed:
            del self._rows[key]
        return len(doomed)

    def purge(self) -> None:
        """Deleted entries are gone already."""
