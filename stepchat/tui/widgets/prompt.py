"""The prompt box: Enter sends, Ctrl+J inserts a newline.

A TextArea rather than an Input because prompts (JSON requests, systems of steps) are often
several lines. Terminals cannot tell Shift+Enter from Enter unless they speak the kitty
keyboard protocol, so the documented newline key is Ctrl+J, which every terminal sends as
a line feed; Shift+Enter and Alt+Enter also work where the terminal reports them.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import TextArea

from stepchat.tui.messages import PromptSubmitted

NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter"})


class PromptInput(TextArea):
    """Multi-line prompt editor that submits on Enter."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send", show=True, priority=False),
        Binding("ctrl+j", "newline", "Newline", show=True),
    ]

    def __init__(self, *, id: str | None = None, blink: bool = True) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder="Ask something…  (Enter sends, Ctrl+J newline, Ctrl+P commands)",
        )
        self.cursor_blink = blink

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_submit()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()
            return
        await super()._on_key(event)

    def action_submit(self) -> None:
        """Post the prompt and clear the box; blank prompts are ignored."""
        text = self.text
        if not text.strip():
            return
        self.post_message(PromptSubmitted(text))
        self.clear()

    def action_newline(self) -> None:
        self.insert("\n")
