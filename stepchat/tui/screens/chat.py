"""The chat screen: transcript, prompt box, savings panel and a banner for load state.

It only lays out and paints; the app owns the conversation, the cache and the workers and
calls the methods here (`add_turn`, `restore`, `show_banner`, `refresh_savings`). What the
screen asks of the app goes up as messages (a submitted prompt, Esc to cancel); whether an
answer is running is the one thing it reads, through the callable it is built with. Wide
terminals get the savings side panel; narrow ones a one-line status bar instead.

Typing always reaches the prompt box: a printable key pressed while something else has
focus (after a mouse drag, or on a focused answer) moves focus back and types it there.
PageUp/PageDown scroll the transcript from anywhere; End (in an empty prompt box) or
Ctrl+End returns to the newest text and follows it again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from stepchat.tui.history import Conversation
from stepchat.tui.messages import CancelRequested
from stepchat.tui.sanitize import one_line, plain
from stepchat.tui.stats import SessionStats
from stepchat.tui.widgets.prompt import PromptInput
from stepchat.tui.widgets.savings import PanelState, SavingsPanel, StatusLine
from stepchat.tui.widgets.steps import AnswerView, UserTurn
from stepchat.tui.widgets.transcript import Transcript

WELCOME = (
    "Ask a question. Answers are built from verified steps: ✓ reused from the cache, "
    "✎ patched, ✚ newly generated, ∑ written by the exact solver.\n"
    "Try a linear equation such as 'Solve 3x + 5 = 20 for x.', then ask it again with "
    "another number and watch the steps turn green."
)


class ChatScreen(Screen[None]):
    """Transcript of the current conversation and the prompt box."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("pageup", "scroll_transcript(-1)", "Page up", show=False),
        Binding("pagedown", "scroll_transcript(1)", "Page down", show=False),
        Binding("end,ctrl+end", "follow_again", "Newest", show=False),
    ]

    def __init__(self, busy: Callable[[], bool], *, blink: bool = True) -> None:
        """`busy` says whether an answer is being written (Esc then cancels it)."""
        super().__init__()
        self._busy = busy
        self._blink = blink

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Transcript(id="transcript"):
                yield Static(Text(WELCOME), id="welcome", markup=False)
            yield SavingsPanel(id="savings")
        yield Static("", id="banner", markup=False)
        yield StatusLine(id="statusline")
        yield PromptInput(id="prompt", blink=self._blink)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

    def follow(self) -> None:
        """Keep the newest text in view, unless the user scrolled up to read."""
        self.call_after_refresh(self.transcript.follow)

    def action_scroll_transcript(self, direction: int) -> None:
        transcript = self.transcript
        if direction < 0:
            transcript.scroll_page_up()
        else:
            transcript.scroll_page_down()

    def action_follow_again(self) -> None:
        self.transcript.resume_following()

    def on_key(self, event: events.Key) -> None:
        """A printable key typed while the prompt box lacks focus goes to the prompt box."""
        prompt = self.prompt
        if self.focused is prompt or not event.is_printable or not event.character:
            return
        if event.key in self.active_bindings:
            return  # a focused answer's copy keys, for instance
        event.stop()
        event.prevent_default()
        prompt.focus()
        prompt.move_cursor(prompt.document.end)
        prompt.insert(event.character)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self._busy()
        return True

    def action_cancel(self) -> None:
        self.post_message(CancelRequested())

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def transcript(self) -> Transcript:
        return self.query_one("#transcript", Transcript)

    async def add_turn(self, prompt: str) -> AnswerView:
        """Show a new user turn and an empty answer under it; return the answer view,
        mounted, so the first streamed events find its parts."""
        await self.query("#welcome").remove()
        view = AnswerView()
        await self.transcript.mount_all([UserTurn(prompt), view])
        self.follow()
        return view

    async def replace_last_answer(self) -> AnswerView:
        """A fresh answer view in place of the newest one (Regenerate)."""
        view = AnswerView()
        old = self.transcript.query(AnswerView)
        if old:
            await self.transcript.mount(view, after=old.last())
            await old.last().remove()
        else:
            await self.transcript.mount(view)
        self.follow()
        return view

    async def restore(self, conversation: Conversation) -> None:
        """Replace the transcript with a saved conversation."""
        transcript = self.transcript
        await transcript.remove_children()
        widgets: list[UserTurn | AnswerView | Static] = []
        for turn in conversation.turns:
            widgets += [UserTurn(turn.prompt), AnswerView.from_turn(turn)]
        if not widgets:
            widgets.append(Static(Text(WELCOME), id="welcome", markup=False))
        transcript.reset()
        await transcript.mount_all(widgets)
        self.follow()

    async def clear_transcript(self) -> None:
        transcript = self.transcript
        transcript.reset()
        await transcript.remove_children()
        await transcript.mount(Static(Text(WELCOME), id="welcome", markup=False))

    def show_banner(self, text: str | None, kind: str = "loading") -> None:
        """A line above the prompt for the load state: loading, error, or hidden (None)."""
        banner = self.query_one("#banner", Static)
        banner.set_classes(f"-{kind}") if text else banner.set_classes("")
        banner.update(plain(text or ""))
        banner.display = bool(text)

    def refresh_savings(self, state: PanelState, stats: SessionStats) -> None:
        self.query_one(SavingsPanel).show(state, stats)
        self.query_one(StatusLine).show(state, stats)
        self.sub_title = one_line(state.model)
