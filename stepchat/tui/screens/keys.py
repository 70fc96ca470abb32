"""The app's own keys, in one table: what F1 and the palette's "Keys" show.

Textual's built-in key panel lists the bindings of the focused widget, which in this app
is nearly always the prompt box: a page of generic text-editing keys, and none of Esc,
Shift+Tab or the copy keys a user actually needs. This screen lists stepchat's keys
instead, the same ones the README's table gives.
"""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter / Ctrl+J", "send / new line; sent while the model writes, a prompt the cache "
                       "or the solver can answer is answered at once, others wait their turn"),
    ("↑ / ↓ (empty prompt)", "recall earlier prompts"),
    ("Esc", "cancel the answer being written (what streamed stays, never cached)"),
    ("PageUp / PageDown", "scroll the transcript; scrolling up stops following new text"),
    ("End / Ctrl+End", "back to the newest text, following it again"),
    ("Shift+Tab, or a click", "focus an answer: c copies it, k a code block (again: the "
     "next), j its JSON object"),
    ("F5", "regenerate the last answer with the model, bypassing the cache"),
    ("Ctrl+P", "command palette: every action, including the system prompt and export"),
    ("Ctrl+N / Ctrl+O", "new chat / reopen a saved one (r renames, d deletes)"),
    ("F2", "cache inspector: / filter (↓ to the list), d evict, w mark wrong, D evict all"),
    ("F3", "pick a model"),
    ("Ctrl+R", "retry loading after an error"),
    ("F1", "this list"),
    ("Ctrl+Q", "quit (twice with unsent text in the prompt box)"),
)


def keys_table() -> Table:
    table = Table(show_header=False, box=None, padding=(0, 2, 0, 0), expand=True)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1)
    for key, does in KEYS:
        table.add_row(Text(key), Text(does))
    return table


class KeysScreen(ModalScreen[None]):
    """The key table; Esc, F1 or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f1,q", "dismiss", "Close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="keys"):
            yield Label(Text("Keys"), classes="dialog-title", markup=False)
            yield Static(keys_table(), id="keys-table", markup=False)
