"""An in-memory store for tests: same contract as the LanceDB store, no disk."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from stepchat.core.ports import SearchHit
from stepchat.core.types import CacheEntry, TaskKind


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


class MemoryStore:
    def __init__(self) -> None:
        self._rows: dict[str, CacheEntry] = {}

    def add(self, entry: CacheEntry) -> None:
        self._rows[entry.id] = copy.deepcopy(entry)

    def search(
        self, vector: Sequence[float], *, scope: str, task: TaskKind, k: int = 4
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

    def count(self) -> int:
        return len(self._rows)
