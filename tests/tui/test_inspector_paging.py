"""The inspector reads the cache a page at a time, never whole.

A cache of more entries than a page: the table starts with one page, the next arrives when
the cursor reaches the last row, a filter past what was read asks the store, and only the
highlighted entry is read whole (for the detail pane).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from stepchat.core.listing import PAGE
from stepchat.core.types import CacheEntry, Step, TaskKind
from stepchat.store.memory import MemoryStore
from stepchat.tui.screens.inspector import InspectorScreen

from .conftest import FakeLoader, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
EXTRA = 30
T0 = 1_767_225_600.0


class WatchedStore(MemoryStore):
    """Counts whole-entry reads: a listing must not make any."""

    def __init__(self) -> None:
        super().__init__()
        self.whole_reads = 0
        self.gets: list[str] = []

    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        self.whole_reads += 1
        return super().entries(limit)

    def get(self, entry_id: str) -> CacheEntry | None:
        self.gets.append(entry_id)
        return super().get(entry_id)


def fill(store: MemoryStore, count: int) -> None:
    for i in range(count):
        store.add(CacheEntry(
            id=f"e{i:04d}", prompt=f"Solve for x: {i}x + 1 = 2. Request number {i}.",
            vector=[1.0, 0.0], scope="s", task=TaskKind.LINEAR, signature=f"sig{i}",
            constraints={}, steps=[Step("x = 1", "final")], model="tiny",
            created=T0 + i, last_hit=T0 + i,
        ))


def table(screen: InspectorScreen) -> DataTable[Any]:
    return screen.query_one("#entries", DataTable)


def status(screen: InspectorScreen) -> str:
    return str(screen.query_one("#inspector-status", Static).content)


def detail(screen: InspectorScreen) -> str:
    """The detail pane's text (the entry's prompt, metadata and steps)."""
    content = screen.query_one("#detail-body", Static).content
    parts = getattr(content, "renderables", [content])
    return "\n".join(str(part) for part in parts)


@pytest.fixture
def store() -> WatchedStore:
    """A cache of a page and some more entries, e0000 (oldest hit) to e0229."""
    watched = WatchedStore()
    fill(watched, PAGE + EXTRA)
    return watched


@asynccontextmanager
async def inspector(
    make_app: Any, store: WatchedStore
) -> AsyncIterator[tuple[Any, InspectorScreen]]:
    """The app on `store`, with the inspector opened (F2) and its first read done."""
    loader = FakeLoader()
    loader.store = store
    async with make_app(loader).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, InspectorScreen)
        yield pilot, screen


async def test_a_big_cache_is_listed_a_page_at_a_time(
    make_app: Any, store: WatchedStore
) -> None:
    async with inspector(make_app, store) as (pilot, screen):
        assert table(screen).row_count == PAGE
        assert status(screen) == (
            f"{PAGE + EXTRA} cached entries · {PAGE} listed, more as you scroll down"
        )
        newest = f"e{PAGE + EXTRA - 1:04d}"
        assert screen.selected_id == newest
        assert f"Request number {PAGE + EXTRA - 1}." in detail(screen)

        await pilot.press("ctrl+end")
        await settle(pilot)
        assert table(screen).row_count == PAGE + EXTRA
        assert status(screen) == f"{PAGE + EXTRA} cached entries"
        assert [row.id for row in screen._entries][-1] == "e0000"

        await pilot.press("slash", *"E0007", "enter")
        await settle(pilot)
        assert [row.id for row in screen._visible()] == ["e0007"]
        assert status(screen) == f"1 of {PAGE + EXTRA} cached entries"
        assert store.whole_reads == 0
        assert len(set(store.gets)) <= 5  # entries highlighted on the way, not a page


async def test_a_filter_past_the_rows_read_asks_the_store(
    make_app: Any, store: WatchedStore
) -> None:
    async with inspector(make_app, store) as (pilot, screen):
        # e0003 is older than the first page: only the store can find it.
        await pilot.press("slash", *"e0003", "enter")
        await settle(pilot)
        assert [row.id for row in screen._visible()] == ["e0003"]
        assert screen.selected_id == "e0003"
        assert status(screen) == f"1 of {PAGE + EXTRA} cached entries"
        assert store.whole_reads == 0


async def test_a_word_problem_row_leaves_every_column_on_screen(make_app: Any) -> None:
    """The Prompt column was sized for a six-letter kind: a `word-problem` row widened Task
    and pushed Size past the edge (`Siz`, `1.7`)."""
    small = WatchedStore()
    fill(small, 3)
    small.add(CacheEntry(
        id="wp", prompt="Ana has 3 boxes of 12 pens each. How many pens does she have in all?",
        vector=[1.0, 0.0], scope="s", task=TaskKind.WORD_PROBLEM, signature="wp",
        constraints={}, steps=[Step("3 * 12 = 36", "final")], model="tiny",
        created=T0 + 9, last_hit=T0 + 9,
    ))
    async with inspector(make_app, small) as (_, screen):
        entries = table(screen)
        widths = [column.get_render_width(entries) for column in entries.columns.values()]
        assert sum(widths) <= entries.scrollable_content_region.width
        assert entries.max_scroll_x == 0
