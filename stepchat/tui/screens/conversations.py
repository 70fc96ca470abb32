"""The conversation picker: reopen, rename or delete a saved conversation.

It works on the history directory itself (renames and deletions are written at once) and
tells the app, when it closes, what changed: which one to open, and which were renamed or
deleted, so the chat on screen can follow (a deleted current chat is replaced by a new one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from stepchat.tui.history import History, HistoryError, Summary
from stepchat.tui.sanitize import one_line
from stepchat.tui.screens.dialogs import ConfirmScreen, TextEntryScreen
from stepchat.tui.stats import format_age


@dataclass
class PickerOutcome:
    """What happened in the picker."""

    open: str | None = None
    renamed: dict[str, str] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)


class ConversationPickerScreen(ModalScreen[PickerOutcome]):
    """Saved conversations, newest first; Enter reopens, r renames, d deletes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("r", "rename", "Rename"),
        Binding("d,delete", "delete", "Delete"),
    ]

    def __init__(
        self, history: History, now: float, *, blink: bool = True, current: str | None = None
    ) -> None:
        super().__init__(classes="dialog-screen")
        self._history = history
        self._now = now
        self._current = current
        """The open chat's id: marked in the list."""
        self._blink = blink
        self._summaries: list[Summary] = []
        self.outcome = PickerOutcome()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="conversations"):
            yield Label("Open a conversation", classes="dialog-title")
            yield Label(
                Text("Enter opens · r renames · d deletes · Esc closes"),
                id="conversation-help",
                classes="dialog-detail",
                markup=False,
            )
            yield OptionList(id="conversation-list")

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        option_list = self.query_one(OptionList)
        highlighted = option_list.highlighted
        try:
            self._summaries = self._history.list()
        except OSError as exc:
            self.notify(str(exc), severity="error", markup=False)
            self._summaries = []
        option_list.clear_options()
        option_list.add_options([self._option(s) for s in self._summaries])
        if not self._summaries:
            help_label = self.query_one("#conversation-help", Label)
            help_label.update(Text("No saved conversations yet."))
        else:
            option_list.highlighted = min(highlighted or 0, len(self._summaries) - 1)

    def _option(self, summary: Summary) -> Option:
        turns = f"{summary.turns} turn{'s' if summary.turns != 1 else ''}"
        mark = "● " if summary.id == self._current else "  "
        return Option(
            Text(f"{mark}{one_line(summary.title, 68)}  ·  {turns}  ·  "
                 f"{format_age(self._now - summary.updated)}"),
            id=summary.id,
        )

    @property
    def selected(self) -> Summary | None:
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self._summaries):
            return None
        return self._summaries[index]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.outcome.open = event.option.id
        self.dismiss(self.outcome)

    def action_close(self) -> None:
        self.dismiss(self.outcome)

    def action_rename(self) -> None:
        summary = self.selected
        if summary is None:
            return

        def renamed(name: str | None) -> None:
            if name is None:
                return
            try:
                conversation = self._history.rename(summary.id, name)
            except HistoryError as exc:
                self.notify(str(exc), title="Not renamed", severity="error", markup=False)
                return
            self.outcome.renamed[summary.id] = conversation.name
            self._fill()

        self.app.push_screen(
            TextEntryScreen(
                "Rename conversation",
                "A name for the list; leave it empty to use the first prompt again.",
                summary.title,
                blink=self._blink,
            ),
            renamed,
        )

    def action_delete(self) -> None:
        summary = self.selected
        if summary is None:
            return

        def confirmed(answer: bool | None) -> None:
            if not answer:
                return
            try:
                self._history.delete(summary.id)
            except HistoryError as exc:
                self.notify(str(exc), title="Not deleted", severity="error", markup=False)
                return
            self.outcome.deleted.add(summary.id)
            self._fill()

        self.app.push_screen(
            ConfirmScreen(
                f"Delete “{one_line(summary.title, 40)}”?",
                "The conversation is removed from disk. Answers it stored in the cache stay "
                "there (the cache inspector evicts them).",
                confirm_label="Delete",
            ),
            confirmed,
        )
