"""The prompt box: Enter sends, Ctrl+J inserts a newline, Up recalls earlier prompts.

A TextArea rather than an Input because prompts (JSON requests, systems of steps) are often
several lines. Terminals cannot tell Shift+Enter from Enter unless they speak the kitty
keyboard protocol, so the documented newline key is Ctrl+J, which every terminal sends as
a line feed; Shift+Enter and Alt+Enter also work where the terminal reports them.

Up in an empty box recalls the previous prompt, as shells and other chat clients do; Up
and Down walk the list while the recalled text is unedited, and Down past the newest
empties the box again. PageUp/PageDown and End in an empty box are left to the chat screen,
which scrolls the transcript with them: a prompt box is rarely a page long.

Every key of the box is handled in the box's own message queue, in the order it arrived.
Textual runs a key binding where the app handles the key: a priority binding before the
key is forwarded to the focused widget, an ordinary one after the widget let it bubble
back. Characters, though, are inserted later, when the widget's own queue gets to them. A
burst of input (a paste without bracketed paste, `tmux send-keys`, a fast typist) queues
all its keys at once, so Enter ran before the text in front of it had arrived: part of a
prompt was sent, the rest stayed in the box or was glued to the next one; a Backspace or
a cursor key in a burst acted on characters typed after it. So the box's bindings are not
priority bindings, and `on_key` runs them itself as each key comes up in its queue.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.widgets import TextArea

from stepchat.tui.messages import PromptSubmitted


class PromptInput(TextArea):
    """Multi-line prompt editor that submits on Enter and remembers what was sent."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Not priority bindings: `on_key` runs them in order with the typed characters,
        # before TextArea's own key handling would insert a line break for Enter.
        Binding("enter", "submit", "Send", show=True),
        Binding("ctrl+j", "newline", "Newline", show=True),
        Binding("shift+enter,alt+enter", "newline", "Newline", show=False),
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
        self.sent: list[str] = []
        """Prompts sent, oldest first, for Up to recall."""
        self._recalled: int | None = None

    async def on_key(self, event: events.Key) -> None:
        """Run the box's binding for this key here, in the order the keys came (see the
        module docstring). It runs before TextArea's own key handler, which it stops for a
        bound key; a binding whose action declines (SkipAction) lets the key go on, to
        TextArea's typing or up to the screen's bindings. The keys are the bindings': none
        is named here."""
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return

    def action_submit(self) -> None:
        """Post the prompt and clear the box; blank prompts are ignored."""
        text = self.text
        if not text.strip():
            return
        self.post_message(PromptSubmitted(text))
        self.clear()
        self._recalled = None

    def action_newline(self) -> None:
        self.insert("\n")

    # -- history ---------------------------------------------------------------------------

    def remember(self, prompt: str) -> None:
        """Add a sent prompt to the history (a repeat of the last one is kept once)."""
        if prompt.strip() and (not self.sent or self.sent[-1] != prompt):
            self.sent.append(prompt)
        self._recalled = None

    def _recalling(self) -> bool:
        """The box is empty or shows a recalled prompt nobody edited: Up/Down walk history."""
        if not self.text:
            return True
        return self._recalled is not None and self.text == self.sent[self._recalled]

    def _show(self, index: int | None) -> None:
        self._recalled = index
        self.text = "" if index is None else self.sent[index]
        self.move_cursor(self.document.end)

    def action_cursor_up(self, select: bool = False) -> None:
        if select or not self.sent or not self._recalling():
            super().action_cursor_up(select)
            return
        if not self.text:
            self._recalled = None
        older = len(self.sent) - 1 if self._recalled is None else max(0, self._recalled - 1)
        self._show(older)

    def action_cursor_down(self, select: bool = False) -> None:
        if select or self._recalled is None or not self._recalling():
            super().action_cursor_down(select)
            return
        newer = self._recalled + 1
        self._show(newer if newer < len(self.sent) else None)

    # -- keys the chat screen uses ---------------------------------------------------------

    def action_cursor_page_up(self) -> None:
        raise SkipAction()

    def action_cursor_page_down(self) -> None:
        raise SkipAction()

    def action_cursor_line_end(self, select: bool = False) -> None:
        if not self.text:
            raise SkipAction()
        super().action_cursor_line_end(select)
