"""The chat screen: transcript, prompt box, savings panel and a banner for load state.

It only lays out and paints; the app owns the conversation, the cache and the workers and
calls the methods here (`add_turn`, `restore`, `show_banner`, `refresh_savings`). Wide
terminals get the savings side panel; narrow ones a one-line status bar instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Header, Static

from stepchat.tui.history import Conversation
from stepchat.tui.sanitize import one_line, plain
from stepchat.tui.screens.base import AppScreen
from stepchat.tui.stats import SessionStats
from stepchat.tui.widgets.prompt import PromptInput
from stepchat.tui.widgets.savings import PanelState, SavingsPanel, StatusLine
from stepchat.tui.widgets.steps import AnswerView, UserTurn

if TYPE_CHECKING:
    pass

WELCOME = (
    "Ask a question. Answers are built from verified steps: ✓ reused from the cache, "
    "✎ patched, ✚ newly generated, ∑ written by the exact solver.\n"
    "Try a linear equation such as 'Solve 3x + 5 = 20 for x.', then ask it again with "
    "another number and watch the steps turn green."
)


class ChatScreen(AppScreen):
    """Transcript of the current conversation and the prompt box."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, *, blink: bool = True) -> None:
        super().__init__()
        self._blink = blink

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with VerticalScroll(id="transcript"):
                yield Static(Text(WELCOME), id="welcome", markup=False)
            yield SavingsPanel(id="savings")
        yield Static("", id="banner", markup=False)
        yield StatusLine(id="statusline")
        yield PromptInput(id="prompt", blink=self._blink)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

    def follow(self) -> None:
        """Keep the newest text in view once the transcript overflows.

        Anchoring a short transcript would push it to the bottom of the screen, so the
        anchor is only set once there is something to scroll; scrolling up releases it.
        """
        self.call_after_refresh(self._anchor_if_overflowing)

    def _anchor_if_overflowing(self) -> None:
        transcript = self.transcript
        if not transcript.is_anchored and transcript.max_scroll_y > 0:
            transcript.anchor()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.stepchat.busy
        return True

    def action_cancel(self) -> None:
        self.stepchat.cancel_answer()

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def transcript(self) -> VerticalScroll:
        return self.query_one("#transcript", VerticalScroll)

    def add_turn(self, prompt: str) -> AnswerView:
        """Show a new user turn and an empty answer under it; return the answer view."""
        self.query("#welcome").remove()
        view = AnswerView()
        self.transcript.mount_all([UserTurn(prompt), view])
        self.follow()
        return view

    async def restore(self, conversation: Conversation) -> None:
        """Replace the transcript with a saved conversation."""
        transcript = self.transcript
        await transcript.remove_children()
        widgets: list[UserTurn | AnswerView | Static] = []
        for turn in conversation.turns:
            widgets.append(UserTurn(turn.prompt))
            view = AnswerView(turn.record)
            if turn.record is None:
                view.error = turn.error
                view.cancelled = turn.cancelled
                view.status_text = "not answered"
            widgets.append(view)
        if not widgets:
            widgets.append(Static(Text(WELCOME), id="welcome", markup=False))
        transcript.anchor(False)
        await transcript.mount_all(widgets)
        self.follow()

    async def clear_transcript(self) -> None:
        transcript = self.transcript
        transcript.anchor(False)
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
