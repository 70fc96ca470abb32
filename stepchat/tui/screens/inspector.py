"""The cache inspector: see every cached request, read its steps, evict what is wrong.

The cache is a folder the user owns, not a hidden one: this screen lists its entries
(filterable), shows one entry's steps and metadata, and evicts one entry, all entries
(after a confirmation) or an entry the user marks wrong. Store calls run in thread workers
(LanceDB may take milliseconds per call); results come back as messages, which go on up
to the app once the screen has shown them, so the chat screen's totals move at once. The
screen is built with what it reads of the app: the store (None while the cache loads), the
clock and whether an answer is being written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from stepchat.core.cutoff import handler_constraints
from stepchat.core.ports import Store
from stepchat.core.types import CacheEntry
from stepchat.runtime import purge_store
from stepchat.tui.errors import describe
from stepchat.tui.messages import CacheChanged, CacheOpFailed, EntriesLoaded
from stepchat.tui.sanitize import clean, one_line, plain
from stepchat.tui.screens.dialogs import ConfirmScreen
from stepchat.tui.stats import format_age, format_bytes

COLUMNS = ("Prompt", "Task", "Steps", "Hits", "Last used", "Size")
OTHER_COLUMNS_WIDTH = 6 + 5 + 4 + 9 + 8 + 2 * len(COLUMNS) + 4
"""Cells the columns after Prompt take (contents plus padding), and the table's margins."""


def shorten_middle(text: str, width: int) -> str:
    """`text` on one line, cut in the middle when too long: requests often differ only at
    their end ('... for Alexander, 40.' / '... for Bartholomew, 41.'), so both ends show."""
    flat = one_line(text, 10**6)
    if len(flat) <= width:
        return flat
    head = (width - 1) * 3 // 5
    tail = width - 1 - head
    return flat[:head].rstrip() + "…" + flat[len(flat) - tail:].lstrip()


def matches(entry: CacheEntry, needle: str) -> bool:
    """Case-insensitive match of the filter against prompt, task, model and id."""
    if not needle:
        return True
    hay = " ".join((entry.prompt, str(entry.task), entry.model, entry.id)).lower()
    return all(word in hay for word in needle.lower().split())


def entry_detail(entry: CacheEntry, now: float) -> Group:
    """The detail pane: prompt, metadata, constraints and steps, all shown literally."""
    head = Text.assemble(
        ("id ", "dim"),
        clean(entry.id),
        (" · task ", "dim"),
        str(entry.task),
        (" · model ", "dim"),
        clean(entry.model),
    )
    meta = Text.assemble(
        ("created ", "dim"),
        format_age(now - entry.created),
        (" · last hit ", "dim"),
        format_age(now - entry.last_hit),
        (" · hits ", "dim"),
        str(entry.hits),
        (" · tokens ", "dim"),
        str(entry.tokens),
        (" · size ", "dim"),
        format_bytes(entry.size_bytes()),
    )
    constraints = json.dumps(
        handler_constraints(entry), sort_keys=True, ensure_ascii=False, default=str
    )
    parts: list[Text] = [
        Text("Prompt", style="bold"),
        plain(entry.prompt),
        Text(""),
        head,
        meta,
        Text.assemble(
            ("scope ", "dim"),
            clean(entry.scope),
            (" · signature ", "dim"),
            one_line(entry.signature, 40),
        ),
        Text(""),
        Text("Constraints", style="bold"),
        plain(constraints),
        Text(""),
        Text(f"Steps ({len(entry.steps)})", style="bold"),
    ]
    for i, step in enumerate(entry.steps, 1):
        label = step.kind + (f" {step.key}" if step.key else "")
        parts.append(Text.assemble((f"{i:>2} {clean(label)}  ", "dim"), clean(step.text)))
    return Group(*parts)


class InspectorScreen(Screen[None]):
    """Table of cached requests with a filter box and a detail pane."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("d,delete", "evict", "Evict"),
        Binding("w", "mark_wrong", "Mark wrong"),
        Binding("D", "evict_all", "Evict all"),
        Binding("slash", "focus_filter", "Filter"),
        Binding("r", "reload", "Reload"),
        Binding("down", "table_from_filter", "To the list", show=False),
    ]

    def __init__(
        self,
        store: Callable[[], Store | None],
        now: Callable[[], float],
        busy: Callable[[], bool],
        *,
        blink: bool = True,
    ) -> None:
        """`store` is asked at each action: the cache may finish loading, or another
        model's cache replace it, while the screen is open."""
        super().__init__()
        self._store = store
        self._now = now
        self._busy = busy
        self._blink = blink
        self._entries: list[CacheEntry] = []
        self._total = 0

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="inspector"):
            yield Input(placeholder="Filter by prompt, task or model…  (/)", id="filter")
            table: DataTable[Text] = DataTable(id="entries", cursor_type="row", zebra_stripes=True)
            yield table
            with VerticalScroll(id="detail"):
                yield Static(
                    Text("Select an entry to see its steps.", style="dim"),
                    id="detail-body",
                    markup=False,
                )
            yield Static("", id="inspector-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "cache inspector"
        self.query_one("#filter", Input).cursor_blink = self._blink
        table = self.query_one("#entries", DataTable)
        table.add_columns(*COLUMNS)
        table.focus()
        self.action_reload()

    @property
    def store(self) -> Store | None:
        return self._store()

    def action_reload(self) -> None:
        store = self.store
        if store is None:
            self._set_status("The cache is still loading (or failed to load).")
            return
        self.load_entries(store)

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspector-read")
    def load_entries(self, store: Store) -> None:
        """List the store's entries on a thread; report them or the error."""
        try:
            entries = store.entries()
        except Exception as exc:
            self.post_message(CacheOpFailed(describe(exc)))
            return
        self.post_message(EntriesLoaded(entries, len(entries)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspector-write")
    def evict_entries(self, store: Store, ids: list[str] | None, note: str) -> None:
        """Delete the given entries (all of them when `ids` is None) and report the new count.

        The deletions are purged before the note is shown: an evicted or wrong entry's text
        is gone from the cache's files, not only hidden from lookups."""
        try:
            if ids is None:
                store.clear()
            else:
                for entry_id in ids:
                    store.delete(entry_id)
                purge_store(store)
            count = store.count()
        except Exception as exc:
            self.post_message(CacheOpFailed(describe(exc)))
            return
        self.post_message(CacheChanged(note, count))

    def on_entries_loaded(self, message: EntriesLoaded) -> None:
        self._entries = message.entries
        self._total = message.total
        self._fill_table()

    def on_cache_changed(self, message: CacheChanged) -> None:
        self.notify(message.note)
        self.action_reload()

    def on_cache_op_failed(self, message: CacheOpFailed) -> None:
        self._set_status(f"⚠ {message.error}")
        self.notify(message.error, title="Cache error", severity="error")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self._fill_table()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one("#entries", DataTable).focus()

    def _visible(self) -> list[CacheEntry]:
        needle = self.query_one("#filter", Input).value.strip()
        return [e for e in self._entries if matches(e, needle)]

    def _fill_table(self) -> None:
        table = self.query_one("#entries", DataTable)
        previous = self.selected_id
        table.clear()
        visible = self._visible()
        for entry in visible:
            table.add_row(
                Text(shorten_middle(entry.prompt, self._prompt_width())),
                Text(str(entry.task)),
                Text(str(len(entry.steps)), justify="right"),
                Text(str(entry.hits), justify="right"),
                Text(format_age(self._now() - entry.last_hit)),
                Text(format_bytes(entry.size_bytes()), justify="right"),
                key=entry.id,
            )
        ids = [e.id for e in visible]
        if previous in ids:
            table.move_cursor(row=ids.index(previous), animate=False)
        shown = (
            f"{len(visible)} of {self._total}" if len(visible) != self._total else str(self._total)
        )
        self._set_status(f"{shown} cached entr{'y' if self._total == 1 else 'ies'}")
        self._show_detail(self.selected_entry)

    def _prompt_width(self) -> int:
        """The Prompt column takes what the other columns leave of the screen's width."""
        return max(24, self.size.width - OTHER_COLUMNS_WIDTH)

    def on_resize(self) -> None:
        if self._entries:
            self._fill_table()

    def _set_status(self, text: str) -> None:
        self.query_one("#inspector-status", Static).update(Text(text))

    @property
    def selected_id(self) -> str | None:
        table = self.query_one("#entries", DataTable)
        if table.row_count == 0:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return row_key.value

    @property
    def selected_entry(self) -> CacheEntry | None:
        selected = self.selected_id
        return next((e for e in self._entries if e.id == selected), None)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(self.selected_entry)

    def _show_detail(self, entry: CacheEntry | None) -> None:
        body = self.query_one("#detail-body", Static)
        if entry is None:
            body.update(Text("No entry selected.", style="dim"))
        else:
            body.update(entry_detail(entry, self._now()))

    def action_back(self) -> None:
        if self.focused is self.query_one("#filter", Input):
            self.query_one("#entries", DataTable).focus()
            return
        self.dismiss()

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_table_from_filter(self) -> None:
        """Down in the filter box moves into the list, as in a search field."""
        self.query_one("#entries", DataTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "table_from_filter":  # elsewhere Down belongs to the focused widget
            return self.focused is self.query_one("#filter", Input)
        return True

    def _writable(self) -> bool:
        """Evictions wait for a running answer: the pipeline may be writing the same store."""
        if self._busy():
            self.notify("An answer is being served: try again when it is done.", severity="warning")
            return False
        return True

    def action_evict(self) -> None:
        entry, store = self.selected_entry, self.store
        if entry is None or store is None or not self._writable():
            return
        self.evict_entries(store, [entry.id], f"Evicted: {one_line(entry.prompt, 40)}")

    def action_mark_wrong(self) -> None:
        entry, store = self.selected_entry, self.store
        if entry is None or store is None or not self._writable():
            return
        self.evict_entries(
            store, [entry.id], f"Marked wrong and evicted: {one_line(entry.prompt, 40)}"
        )

    def action_evict_all(self) -> None:
        store = self.store
        if store is None or not self._total or not self._writable():
            return
        count = self._total

        def confirmed(answer: bool | None) -> None:
            if answer:
                self.evict_entries(store, None, f"Evicted all {count} entries")

        self.app.push_screen(
            ConfirmScreen(
                f"Evict all {count} cached entries?",
                "Every cached request of every model is deleted from disk. "
                "Answers will be generated again until the cache refills.",
                confirm_label="Evict all",
            ),
            confirmed,
        )
