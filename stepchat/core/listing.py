"""A page of the cache's entries, as a table of them shows it (the inspector, `cache list`).

Listing the cache once meant reading every entry whole, vectors included: at 50k entries
about 19M Python floats, built while lookups waited on the same store lock, so opening the
inspector stalled answers. A listing row carries only what such a table shows (no vector,
no steps' text), and a listing is read a page at a time, newest hit first, with the filter
applied by the store so that a page and its count mean the same for every store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from stepchat.core.types import CacheEntry

PAGE = 200
"""Rows a table of the cache reads at a time: a few screens, milliseconds at any size."""


@dataclass(frozen=True)
class EntrySummary:
    """One cached entry as a listing shows it."""

    id: str
    prompt: str
    task: str
    model: str
    scope: str
    """The hash of the model and system prompt the entry was cached under
    (`scope.scope_of`): entries are reused only in their own scope."""
    steps: int
    hits: int
    last_hit: float
    size: int
    """Bytes against the cache's byte limit, as `CacheEntry.size_bytes` counts them."""


@dataclass(frozen=True)
class EntryPage:
    """Rows `offset:offset + limit` of a listing and how many entries the listing has."""

    rows: list[EntrySummary]
    matched: int
    """Entries that pass the filter (all of them without one), on this page or not."""


def summary_of(entry: CacheEntry) -> EntrySummary:
    return EntrySummary(
        id=entry.id, prompt=entry.prompt, task=str(entry.task), model=entry.model,
        scope=entry.scope, steps=len(entry.steps), hits=entry.hits, last_hit=entry.last_hit,
        size=entry.size_bytes(),
    )


def matches(needle: str, prompt: str, task: str, model: str, entry_id: str) -> bool:
    """Whether every word of `needle` occurs, in any case, in the prompt, task, model or id."""
    if not needle.strip():
        return True
    hay = " ".join((prompt, task, model, entry_id)).lower()
    return all(word in hay for word in needle.lower().split())


def page_of(
    summaries: Iterable[EntrySummary], *, offset: int, limit: int | None, needle: str
) -> EntryPage:
    """The page of `summaries` a store returns: filtered, newest hit first (entries hit at
    the same moment keep their given order), then sliced."""
    kept = [s for s in summaries if matches(needle, s.prompt, s.task, s.model, s.id)]
    kept.sort(key=lambda s: s.last_hit, reverse=True)
    end = None if limit is None else offset + limit
    return EntryPage(kept[offset:end], len(kept))
