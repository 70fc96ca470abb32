"""The chat screen: transcript, prompt box, savings panel, load banner, and the request flow.

The screen owns what happens to a prompt, as one place: submitted, queued for its lane,
served by a worker, streamed into its answer view, finished or failed (`stepchat.tui.
requests` holds the queue and the workers' jobs). The app owns what outlives a request:
the cache, the conversation, the settings, the session's figures, the load state. Those
are reactives on the app; the screen watches them, so the savings views repaint when any
of them changes, and the queue moves when the cache opens or fails to.

A prompt the cache can answer is answered at once; one that needs the model waits its turn.
Every request carries the conversation's earlier turns (trimmed to the model's context).
Wide terminals get the savings side panel; narrow ones a one-line status bar instead.

Typing always reaches the prompt box: a printable key pressed while something else has
focus (after a mouse drag, or on a focused answer) moves focus back and types it there.
PageUp/PageDown scroll the transcript from anywhere; End (in an empty prompt box) or
Ctrl+End returns to the newest text and follows it again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar, NamedTuple, cast

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from textual.worker import get_current_worker

from stepchat.core.conversation import FOLLOW_UP_NOTE, WAITING_NOTE
from stepchat.core.events import Stage, StageEvent
from stepchat.core.notes import EMPTY_NOTE, NOT_CHECKED_NOTE, SLIP_NOTE_START
from stepchat.core.standalone import NOT_ALONE_NOTE
from stepchat.tui.history import Conversation, Turn, earlier_turns
from stepchat.tui.load_state import LoadState
from stepchat.tui.messages import (
    AnswerFailed,
    AnswerReady,
    HistoryTrimmed,
    ModelNeeded,
    PipelineUpdate,
    PromptSubmitted,
)
from stepchat.tui.requests import (
    CACHE_LANE,
    ActiveRequest,
    Attempt,
    EitherEvent,
    RequestQueue,
    answer_from_cache,
    answer_with_model,
)
from stepchat.tui.sanitize import one_line, plain
from stepchat.tui.system_prompt import with_system_prompt
from stepchat.tui.widgets.prompt import PromptInput
from stepchat.tui.widgets.savings import PanelState, SavingsPanel, StatusLine
from stepchat.tui.widgets.steps import AnswerView, UserTurn
from stepchat.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache
    from stepchat.tui.serving import ServingApp

QUIET_NOTES = frozenset({FOLLOW_UP_NOTE, WAITING_NOTE, NOT_ALONE_NOTE, NOT_CHECKED_NOTE,
                         EMPTY_NOTE})
"""Notes the answer shows on a line of its own and no notice repeats: they are how it was
answered, not a problem."""


def is_quiet(note: str) -> bool:
    """One of `QUIET_NOTES`, or the note naming a computation that does not hold."""
    return note in QUIET_NOTES or note.startswith(SLIP_NOTE_START)


WELCOME = (
    "Ask a question. Each step says where it came from: ✓ reused from the cache, "
    "✎ patched, ✚ newly generated, ∑ written by the exact solver, ↻ recomputed.\n"
    "Try 'Solve 3x + 5 = 20 for x.', then 'Solve 3x + 7 = 22 for x.' in a new chat "
    "(Ctrl+N): the steps that still hold come back green. The cache answers a chat's "
    "first question; later ones lean on the conversation and are not cached."
)

PANEL_STATE = (
    "load_state", "load_error", "model_id", "reuse", "store_answers", "unsaved", "stats",
    "conversation",
)
"""The app's reactives the savings views and the header show."""


class Pending(NamedTuple):
    """The request queue as the savings panel shows it."""

    open: int = 0
    """Requests being answered or waiting (Esc has something to cancel)."""
    queued: int = 0
    """Those waiting for their turn: for the model, or for the cache to open."""


class ChatScreen(Screen[None]):
    """Transcript of the current conversation and the prompt box, and the requests its
    prompts started."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("pageup", "scroll_transcript(-1)", "Page up", show=False),
        Binding("pagedown", "scroll_transcript(1)", "Page down", show=False),
        Binding("end,ctrl+end", "follow_again", "Newest", show=False),
    ]

    pending: var[Pending] = var(Pending(), init=False)

    def __init__(self, *, blink: bool = True) -> None:
        super().__init__()
        self._blink = blink
        self.requests = RequestQueue()

    @property
    def serving(self) -> ServingApp:
        """The app, as the owner of the state this screen shows and uses."""
        return cast("ServingApp", self.app)

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
        app = self.serving
        for name in PANEL_STATE:
            self.watch(app, name, self.paint_savings, init=False)
        self.watch(app, "load_state", self._load_state_changed, init=False)
        self.paint_savings()

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
        binding = self.active_bindings.get(event.key)
        if binding is not None and binding.enabled:
            return  # a focused answer's copy keys, for instance
        event.stop()
        event.prevent_default()
        if isinstance(self.focused, AnswerView):
            self.focused.typing_elsewhere()
        prompt.focus()
        prompt.move_cursor(prompt.document.end)
        prompt.insert(event.character)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.busy
        return True

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

    # -- the savings views -----------------------------------------------------------------

    def panel_state(self) -> PanelState:
        """What the savings views show, from the app's state and this screen's queue."""
        app = self.serving
        state = app.load_state
        status = state.status
        pending = self.pending
        if pending.open and state.shows_requests:
            # Until the model is ready an open request is answered from the cache at
            # once or waits for the model: nothing is being answered meanwhile.
            doing = "answering…" if state is LoadState.READY else app.model_wait
            status = doing + (f" ({pending.queued} queued)" if pending.queued else "")
        if app.unsaved:
            status += " · not saving chats"
        return PanelState(app.model_name, status, app.reuse, app.store_answers)

    def paint_savings(self) -> None:
        """Redraw the savings views, the header and the footer (Esc and Ctrl+R come and go
        with state); the watchers of the app's state and of `pending` call it."""
        app = self.serving
        state = self.panel_state()
        try:
            self.query_one(SavingsPanel).show(state, app.stats)
            self.query_one(StatusLine).show(state, app.stats)
        except NoMatches:  # the app is closing
            return
        system = app.conversation.system_prompt
        self.sub_title = (
            f"{one_line(state.model)} · system: {one_line(system, 40)}" if system
            else one_line(state.model)
        )
        self.refresh_bindings()

    def watch_pending(self) -> None:
        self.paint_savings()

    # -- the request flow ----------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A prompt is being answered or waits: for the cache, the model or its turn."""
        return bool(self.requests.open)

    @property
    def active(self) -> ActiveRequest | None:
        """The request the model is answering (or will, once it has loaded)."""
        return self.requests.active

    def _count_pending(self) -> None:
        self.pending = Pending(len(self.requests.open), self.requests.queued)

    def drop_requests(self) -> None:
        """Stop the running requests and forget the waiting ones (new chat, model switch)."""
        self.requests.drop_all()
        self._count_pending()

    async def on_prompt_submitted(self, message: PromptSubmitted) -> None:
        prompt = message.text.strip("\n")
        self.prompt.remember(prompt)
        view = await self.add_turn(prompt)
        turn = Turn(prompt)
        self.serving.conversation.turns.append(turn)
        self.serving.save_conversation()  # a crash while it is answered keeps the question
        self.serving.show_last(None)
        self._enqueue(self.requests.new(prompt, view, turn))

    async def regenerate_last(self) -> None:
        """Ask again for the newest turn's answer, bypassing the cache (Regenerate)."""
        turns = self.serving.conversation.turns
        turn = Turn(turns[-1].prompt)
        turns[-1] = turn
        view = await self.replace_last_answer()
        view.bypassed = True
        self.serving.show_last(None)
        self._enqueue(self.requests.new(turn.prompt, view, turn, reuse=False))

    def _enqueue(self, request: ActiveRequest) -> None:
        """A new request: to the cache lane, once the cache is open (or why it never will)."""
        app = self.serving
        if app.load_state is LoadState.FAILED:
            request.turn.error = f"model not loaded: {app.load_error}"
            self.call_later(self._end_with_error, request)
        elif app.cache is None:
            request.view.set_status("waiting for the model to load…")
        self._advance()

    async def _end_with_error(self, request: ActiveRequest) -> None:
        await request.view.fail(request.turn.error)
        self._after(request)

    def _advance(self) -> None:
        """Start what can start: the next request on the cache lane and the next one on the
        model lane, each when its lane is free and the cache is open."""
        cache = self.serving.cache
        if cache is not None:
            checking = self.requests.next_check()
            if checking is not None:
                self._start(checking, cache)
            answering = self.requests.next_model()
            if answering is not None:
                self._start(answering, cache)
        self._count_pending()

    def _after(self, finished: ActiveRequest) -> None:
        """One request ended: save, and start what waited for its lane."""
        self.requests.end(finished)
        self._advance()
        self.serving.save_conversation()
        self.follow()

    async def _load_state_changed(self, state: LoadState) -> None:
        """The cache opened: start what waited for it. Nothing could load: the open
        requests fail, saying why."""
        if state in (LoadState.CACHE_ONLY, LoadState.READY):
            active = self.requests.active
            if state is LoadState.READY and active is not None and (
                    active.view.status_text == self.serving.model_wait):
                active.view.set_status(f"{Stage.GENERATE}…")
            self._advance()
        elif state is LoadState.FAILED:
            error = f"model not loaded: {self.serving.load_error}"
            for request in self.requests.open:
                self.requests.end(request)
                request.turn.error = error
                await request.view.fail(error)
            self.serving.save_conversation()
            self._count_pending()

    def on_model_needed(self, message: ModelNeeded) -> None:
        """The cache could not answer it: it waits for the model, in the order sent."""
        request = self.requests.find(message.request)
        if request is None:
            return
        self.requests.needs_model(request)
        if self.requests.active is not None:
            request.view.set_status(
                "queued: the model writes it when the answer above is done "
                "(Esc cancels that one)"
            )
            self.notify("Queued: the model writes it when the current answer is done.")
        self._advance()

    def _start(self, request: ActiveRequest, cache: StepCache) -> None:
        """Hand `request` to its lane's worker, with the conversation so far as that lane
        sees it (`stepchat.tui.requests`)."""
        app = self.serving
        request.view.set_status("thinking…")
        turns = app.conversation.turns
        index = next((i for i, t in enumerate(turns) if t is request.turn), len(turns))
        on_cache_lane = request.lane == CACHE_LANE
        spec = app.config.models.get(app.model_id)
        attempt = Attempt(
            request=request.request,
            prompt=request.prompt,
            history=tuple(earlier_turns(turns[:index], unanswered=on_cache_lane)),
            cancel=request.cancel,
            cache=with_system_prompt(cache, app.conversation.system_prompt),
            reuse=app.reuse if request.reuse is None else request.reuse,
            store=app.store_answers,
            context=spec.context if spec else 2048,
        )
        if on_cache_lane:
            self.check_cache(attempt)
        else:
            self.write_answer(attempt)

    @work(thread=True, exit_on_error=False, group="cache-lane")
    def check_cache(self, attempt: Attempt) -> None:
        """Answer one prompt without the model, or report that it needs the model."""
        token = EitherEvent(attempt.cancel, get_current_worker().cancelled_event)
        answer_from_cache(
            replace(attempt, cancel=token), self.serving.engine_lock, post=self.post_message
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="answer")
    def write_answer(self, attempt: Attempt) -> None:
        """Answer one prompt with the model, streaming its events as messages."""
        token = EitherEvent(attempt.cancel, get_current_worker().cancelled_event)
        answer_with_model(
            replace(attempt, cancel=token), self.serving.engine_lock, post=self.post_message
        )

    async def on_pipeline_update(self, message: PipelineUpdate) -> None:
        request = self.requests.find(message.request)
        if request is not None:
            await request.view.apply(message.event)
            if (isinstance(message.event, StageEvent) and message.event.stage is Stage.GENERATE
                    and not self.serving.model_ready):
                # The model loads (or its server is reached) on its first call: until
                # then nothing is being written, and the turn says what it waits for.
                request.view.set_status(self.serving.model_wait)
            self.follow()

    async def on_history_trimmed(self, message: HistoryTrimmed) -> None:
        request = self.requests.find(message.request)
        if request is not None:
            request.turn.dropped = message.dropped
            request.view.dropped = message.dropped
            await request.view.recompose()

    async def on_answer_ready(self, message: AnswerReady) -> None:
        request = self.requests.find(message.request)
        if request is None:
            return
        app = self.serving
        answer = message.answer
        request.turn.answer = answer
        if not app.model_ready and answer.hit:
            self.notify("Answered from the cache; the model is still loading.",
                        title="From the cache")
        app.record_answer(answer, message.entries)
        await request.view.finish(answer)
        for note in answer.notes:
            # e.g. "the answer was not cached: … No space left on device"
            if not is_quiet(note):  # a quiet one: the answer itself says why
                self.notify(note, severity="warning")
        self._after(request)

    async def on_answer_failed(self, message: AnswerFailed) -> None:
        request = self.requests.find(message.request)
        if request is None:
            return
        request.turn.error = message.error
        request.turn.cancelled = message.cancelled
        await request.view.fail(message.error, cancelled=message.cancelled)
        request.turn.partial = request.view.partial
        turns = self.serving.conversation.turns
        if turns and turns[-1] is request.turn:  # the newest question ended with no answer
            self.serving.show_newest()
        self._after(request)

    def action_cancel(self) -> None:
        """Esc: stop the answer the model is writing (the backend checks the event between
        tokens), or drop the oldest prompt still waiting for the cache to open."""
        request = self.requests.front()
        if request is None:
            return
        request.cancel.set()
        if request.lane is None:
            # Nothing runs it yet: end the turn here.
            self.post_message(AnswerFailed(request.request, None, cancelled=True))
        else:
            request.view.set_status("cancelling…")
