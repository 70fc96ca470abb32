"""The app's entries in the command palette (Ctrl+P).

Everything a key binding does is also here, plus what has no key: clear, the no-reuse and
no-store toggles and the Markdown export. Help lines show the current state of toggles.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from stepchat.tui.app import StepchatApp


def _on_off(value: bool) -> str:
    return "on" if value else "off"


def palette_commands(app: StepchatApp) -> Iterator[SystemCommand]:
    yield SystemCommand("New chat", "Start a new conversation (Ctrl+N)", app.action_new_chat)
    yield SystemCommand("Clear transcript", "Empty the current conversation", app.action_clear)
    yield SystemCommand(
        "Open conversation", "Reopen a saved conversation (Ctrl+O)", app.action_open_conversation
    )
    yield SystemCommand(
        "Cache inspector", "List, inspect and evict cached requests (F2)", app.action_inspector
    )
    yield SystemCommand("Switch model", "Pick a model from models.toml (F3)", app.action_pick_model)
    yield SystemCommand(
        "Toggle no-reuse",
        f"Serve from the cache: now {_on_off(app.reuse)}",
        app.action_toggle_reuse,
    )
    yield SystemCommand(
        "Toggle no-store",
        f"Store verified answers in the cache: now {_on_off(app.store_answers)}",
        app.action_toggle_store,
    )
    yield SystemCommand(
        "Export transcript", "Write this conversation to a Markdown file", app.action_export
    )
    if app.load_error:
        yield SystemCommand("Retry loading", "Load the model again (Ctrl+R)", app.action_retry_load)
