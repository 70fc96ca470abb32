"""The cache inspector: see every cached request, read its steps, evict what is wrong.

The cache is a folder the user owns, not a hidden one: this screen lists its entries
(filterable), shows one entry's steps and metadata, and evicts one entry, all entries
(after a confirmation) or an entry the user marks wrong. Store calls run in thread workers
(LanceDB may take milliseconds per call); results come back as messages, which go on up
to the app once the screen has shown them, so the chat screen's totals move at once. The
screen is built with what it reads of the app: the store (None while the cache loads), the
clock and whether an answer is being written.

A cache holds up to 50k entries by default, so the table is paged, as log and query
viewers page theirs: it reads the store's narrow listing (`stepchat.core.listing`) a page
at a time, the next page when the cursor reaches the last row read, and the highlighted
entry whole for the detail pane. While the whole cache fits in what was read, the filter
works on those rows at once; past that, the store filters and the page is read again.
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
from stepchat.core.listing import PAGE, EntrySummary, matches
from stepchat.core.ports import Store
from stepchat.core.scope import scope_tag
from stepchat.core.types import CacheEntry, TaskKind
from stepchat.core.wrong import forget_wrong
from stepchat.runtime import purge_store
from stepchat.tui.errors import describe
from stepchat.tui.messages import CacheChanged, CacheOpFailed, EntriesLoaded, EntryRead
from stepchat.tui.sanitize import clean, one_line, plain
from stepchat.tui.screens.dialogs import ConfirmScreen
from stepchat.tui.stats import format_age, format_bytes

COLUMNS = ("Prompt", "Task", "Steps", "Hits", "Last used", "Size")
TASK_WIDTH = max(len(kind) for kind in TaskKind)
"""The Task column is as wide as the longest built-in kind (`word-problem`), whichever
rows are listed: a wider row read later would push Size off the screen."""
OTHER_COLUMNS_WIDTH = TASK_WIDTH + 5 + 4 + 9 + 8 + 2 * len(COLUMNS) + 4
"""Cells the columns after Prompt take (contents plus padding), and the table's margins."""
DETAILS_KEPT = 64
"""Entries read whole for the detail pane and kept, so moving back and forth reads none
again."""


def shorten_middle(text: str, width: int) -> str:
    """`text` on one line, cut in the middle when too long: requests often differ only at
    their end ('... for Alexander, 40.' / '... for Bartholomew, 41.'), so both ends show."""
    flat = one_line(text, 10**6)
    if len(flat) <= width:
        return flat
    head = (width - 1) * 3 // 5
    tail = width - 1 - head
    return flat[:head].rstrip() + "…" + flat[len(flat) - tail:].lstrip()


def shown(row: EntrySummary, needle: str) -> bool:
    """Whether the filter keeps `row` (case-insensitive, on prompt, task, model and id)."""
    return matches(needle, row.prompt, row.task, row.model, row.id)


def entry_detail(entry: CacheEntry, now: float, chat_scope: str | None = None) -> Group:
    """The detail pane: prompt, metadata, constraints and steps, all shown literally. The
    scope says whether this chat (`chat_scope`: its model and system prompt) reuses the
    entry: one prompt cached under two system prompts is two entries, not a duplicate."""
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
            clean(scope_tag(entry.scope)),
            (_scope_note(entry.scope, chat_scope), "dim"),
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


def _scope_note(scope: str, chat_scope: str | None) -> str:
    if chat_scope is None:
        return ""
    if scope == chat_scope:
        return " (this chat's)"
    return " (another model or system prompt: not reused in this chat)"


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
        chat_scope: Callable[[], str | None] = lambda: None,
    ) -> None:
        """`store` is asked at each action: the cache may finish loading, or another
        model's cache replace it, while the screen is open; so is `chat_scope`, the scope
        the chat reads and writes (None while no model is loaded)."""
        super().__init__()
        self._chat_scope = chat_scope
        self._store = store
        self._now = now
        self._busy = busy
        self._blink = blink
        self._entries: list[EntrySummary] = []
        """The rows read so far, in the listing's order."""
        self._listed_with = ""
        """The filter the store applied to `_entries` ("" when it applied none)."""
        self._matched = 0
        self._total = 0
        self._details: dict[str, CacheEntry] = {}
        self._reading: set[str] = set()
        """What a worker is reading now ('page', 'more', 'entry'): one read of each kind at
        a time, however fast keys repeat; what is wanted meanwhile is read when it ends."""
        self._again = False
        """The first page was asked for again while it was being read (the cache changed)."""

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
        for label in COLUMNS:
            table.add_column(label, width=TASK_WIDTH if label == "Task" else None)
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
        if "page" in self._reading:
            self._again = True
            return
        self._reading.add("page")
        self.load_entries(store, self._needle())

    @work(thread=True, exit_on_error=False, group="inspector-read")
    def load_entries(self, store: Store, needle: str, offset: int = 0) -> None:
        """Read a page of the listing on a thread; report it or the error."""
        try:
            page = store.listing(offset=offset, limit=PAGE, needle=needle)
            total = store.count() if needle else page.matched
        except Exception as exc:
            self.post_message(CacheOpFailed(describe(exc)))
            return
        self.post_message(EntriesLoaded(page.rows, total, page.matched, offset, needle))

    @work(thread=True, exit_on_error=False, group="inspector-read")
    def read_entry(self, store: Store, entry_id: str) -> None:
        """Read one entry whole (its steps and constraints) for the detail pane."""
        try:
            entry = store.get(entry_id)
        except Exception as exc:
            self.post_message(CacheOpFailed(describe(exc)))
            return
        self.post_message(EntryRead(entry_id, entry))

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspector-write")
    def evict_entries(self, store: Store, ids: list[str] | None, note: str) -> None:
        """Delete the given entries (all of them when `ids` is None) and report the new count."""

        def delete() -> str:
            if ids is None:
                store.clear()
            for entry_id in ids or ():
                store.delete(entry_id)
            return note

        self._rewrite(store, delete, purge=ids is not None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspector-write")
    def evict_wrong(self, store: Store, entry: EntrySummary) -> None:
        """Delete an entry marked wrong, with the other instances of its word problem."""

        def delete() -> str:
            removed = forget_wrong(store, entry.id)
            others = f" and {removed - 1} other instance(s) of the problem" if removed > 1 else ""
            return f"Marked wrong and evicted: {one_line(entry.prompt, 40)}{others}"

        self._rewrite(store, delete)

    def _rewrite(self, store: Store, delete: Callable[[], str], purge: bool = True) -> None:
        """Run `delete` (it returns the note to show) and report the new count.

        The deletions are purged before the note is shown: an evicted or wrong entry's text
        is gone from the cache's files, not only hidden from lookups."""
        try:
            note = delete()
            if purge:
                purge_store(store)
            count = store.count()
        except Exception as exc:
            self.post_message(CacheOpFailed(describe(exc)))
            return
        self.post_message(CacheChanged(note, count))

    def on_entries_loaded(self, message: EntriesLoaded) -> None:
        self._total = message.total
        if message.offset:
            self._reading.discard("more")
            if message.needle == self._listed_with and message.offset == len(self._entries):
                self._entries.extend(message.entries)
                self._add_rows(message.entries)
                self._set_status(self._status())
            return
        self._reading.discard("page")
        self._entries = message.entries
        self._listed_with = message.needle
        self._matched = message.matched
        self._details.clear()  # hits and last-hit times may have moved
        self._fill_table()
        if self._again or (not self._whole_cache_read() and self._needle() != message.needle):
            self._again = False
            self.action_reload()  # the cache changed, or a filter was typed, meanwhile

    def on_entry_read(self, message: EntryRead) -> None:
        message.stop()
        self._reading.discard("entry")
        if message.entry is not None:
            self._details[message.entry_id] = message.entry
            while len(self._details) > DETAILS_KEPT:
                del self._details[next(iter(self._details))]
        elif message.entry_id == self.selected_id:
            gone = "This entry has left the cache (r reloads the list)."
            self.query_one("#detail-body", Static).update(Text(gone, style="dim"))
            return
        self._show_detail(self.selected_entry)

    def on_cache_changed(self, message: CacheChanged) -> None:
        self.notify(message.note)
        self.action_reload()

    def on_cache_op_failed(self, message: CacheOpFailed) -> None:
        self._reading.clear()  # a read that failed is over; the next key tries again
        self._again = False
        self._set_status(f"⚠ {message.error}")
        self.notify(message.error, title="Cache error", severity="error")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "filter":
            return
        if self._whole_cache_read():
            self._fill_table()  # every entry is here already: filter at once
        else:
            self.action_reload()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one("#entries", DataTable).focus()

    def _needle(self) -> str:
        return self.query_one("#filter", Input).value.strip()

    def _whole_cache_read(self) -> bool:
        """Whether `_entries` is every entry of the cache (read unfiltered, to the end)."""
        return not self._listed_with and len(self._entries) >= self._matched

    def _visible(self) -> list[EntrySummary]:
        needle = self._needle()
        return [e for e in self._entries if shown(e, needle)]

    def _fill_table(self) -> None:
        table = self.query_one("#entries", DataTable)
        previous = self.selected_id
        table.clear()
        visible = self._visible()
        self._add_rows(visible)
        ids = [e.id for e in visible]
        if previous in ids:
            table.move_cursor(row=ids.index(previous), animate=False)
        self._set_status(self._status())
        self._show_detail(self.selected_entry)

    def _add_rows(self, rows: list[EntrySummary]) -> None:
        table = self.query_one("#entries", DataTable)
        width = self._prompt_width()
        now = self._now()
        for entry in rows:
            table.add_row(
                Text(shorten_middle(entry.prompt, width)),
                Text(entry.task),
                Text(str(entry.steps), justify="right"),
                Text(str(entry.hits), justify="right"),
                Text(format_age(now - entry.last_hit)),
                Text(format_bytes(entry.size), justify="right"),
                key=entry.id,
            )

    def _status(self) -> str:
        """'N cached entries', 'M of N' under a filter, and how many are listed so far
        when that is not all of them."""
        total = self._total
        whole = self._whole_cache_read()
        matched = len(self._visible()) if whole else self._matched
        text = f"{matched} of {total}" if matched != total else str(total)
        text += f" cached entr{'y' if total == 1 else 'ies'}"
        if not whole and len(self._entries) < self._matched:
            text += f" · {len(self._entries)} listed, more as you scroll down"
        return text

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
    def selected_entry(self) -> EntrySummary | None:
        selected = self.selected_id
        return next((e for e in self._entries if e.id == selected), None)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(self.selected_entry)
        store = self.store
        near_end = event.cursor_row >= event.data_table.row_count - 1
        more = not self._whole_cache_read() and len(self._entries) < self._matched
        if near_end and more and store is not None and "more" not in self._reading:
            self._reading.add("more")
            self.load_entries(store, self._listed_with, len(self._entries))

    def _show_detail(self, row: EntrySummary | None) -> None:
        body = self.query_one("#detail-body", Static)
        if row is None:
            body.update(Text("No entry selected.", style="dim"))
            return
        entry = self._details.get(row.id)
        if entry is not None:
            body.update(entry_detail(entry, self._now(), self._chat_scope()))
            return
        body.update(Text("Reading the entry…", style="dim"))
        store = self.store
        if store is not None and "entry" not in self._reading:
            self._reading.add("entry")
            self.read_entry(store, row.id)

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
        self.evict_wrong(store, entry)

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
