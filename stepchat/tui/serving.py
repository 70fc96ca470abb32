"""The app's machinery: load the parts, serve prompts one at a time, paint their events.

`ServingApp` owns the conversation, the cache and the workers; `StepchatApp` (app.py) adds
what the user does with keys and the palette. The window paints first; the parts load
afterwards in a thread worker while the user may already type: the cache first, so a
cached answer is served while the embedder and the model are still loading. A model
switch keeps the working parts until the new model has loaded. Workers are
thin: each calls one function and posts messages from `stepchat.tui.messages`; the handlers
here update the screens. Every request carries the conversation's earlier turns (trimmed
to the model's context); a prompt the cache can answer is answered at once, one that needs
the model waits its turn (`stepchat.tui.requests`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import get_current_worker

from stepchat.config import Config
from stepchat.core.conversation import FOLLOW_UP_NOTE
from stepchat.core.ports import Clock, SystemClock
from stepchat.runtime import Parts, build_cache, close_store
from stepchat.tui.errors import describe
from stepchat.tui.history import Conversation, History, HistoryError, Turn, earlier_turns
from stepchat.tui.messages import (
    AnswerFailed,
    AnswerReady,
    CancelRequested,
    HistoryTrimmed,
    ModelLoaded,
    ModelNeeded,
    PartsFailed,
    PartsLoaded,
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
from stepchat.tui.sanitize import one_line
from stepchat.tui.screens.chat import ChatScreen
from stepchat.tui.system_prompt import with_system_prompt

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache
from stepchat.tui.stats import SessionStats
from stepchat.tui.widgets.savings import PanelState

LoadParts = Callable[[Config, str | None], Parts]


class ServingApp(App[int]):
    """Loads the parts and answers prompts; the user-facing actions are in the subclass."""

    def __init__(
        self,
        config: Config,
        load: LoadParts,
        clock: Clock | None = None,
        *,
        blink: bool = True,
        entry_serials: Iterator[int] | None = None,
    ) -> None:
        """`entry_serials` numbers new entries for every engine of this app (see
        `StepCache`); tests give each app its own so snapshots show the same ids."""
        super().__init__()
        self.config = config
        self.entry_serials = entry_serials
        self.clock: Clock = clock or SystemClock()
        self.blink = blink
        self._load = load
        self.model_id = config.default_model
        self.parts: Parts | None = None
        self.cache: StepCache | None = None
        self.loading = False
        self.model_ready = False
        self.load_error: str | None = None
        self._fallback: tuple[str, Parts] | None = None
        """The working model and parts while another loads, to go back to if it fails."""
        self.reuse = True
        self.store_answers = True
        self.stats = SessionStats()
        self.history = History(config.paths.history_dir)
        self.unsaved: str | None = self.history.problem()
        """Why conversations cannot be saved, said once instead of after every answer."""
        self.conversation = self._new_conversation()
        self.requests = RequestQueue()
        self.engine_lock = threading.Lock()
        """Engine code runs under it, on one thread at a time (`stepchat.engine_lanes`)."""
        self.chat = ChatScreen(lambda: self.busy, blink=blink)

    # -- state -------------------------------------------------------------------------

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast shows its text literally, whoever raises it (screens call this too).

        Toasts carry prompts, model names and error text; parsed as markup, `[/nope]` raised
        a MarkupError that closed the app and `[bold red]Bob[/]` restyled the toast. No toast
        of this app uses markup on purpose, so `markup` is accepted and ignored.
        """
        super().notify(
            one_line(message), title=one_line(title), severity=severity, timeout=timeout,
            markup=False,
        )

    @property
    def active(self) -> ActiveRequest | None:
        """The request the model is answering (or will, once it has loaded)."""
        return self.requests.active

    @property
    def busy(self) -> bool:
        """A prompt is being answered or waits: for the cache, the model or its turn."""
        return bool(self.requests.open)

    @property
    def model_name(self) -> str:
        spec = self.config.models.get(self.model_id)
        return spec.name if spec else self.model_id

    def _new_conversation(self) -> Conversation:
        now = self.clock.now()
        return Conversation(self.history.new_id(now), now, now, self.model_id)

    def panel_state(self) -> PanelState:
        if self.loading:
            status = "loading model, embedder and cache…"
        elif self.load_error:
            status = "not loaded" if self.cache is None else "answers from the cache only"
        elif self.busy:
            queued = self.requests.queued
            status = "answering…" + (f" ({queued} queued)" if queued else "")
        elif not self.model_ready:
            status = "answers from the cache; loading model…"
        else:
            status = "ready"
        if self.unsaved:
            status += " · not saving chats"
        return PanelState(self.model_name, status, self.reuse, self.store_answers)

    def refresh_savings(self) -> None:
        """Redraw the savings views and the footer (Esc and Ctrl+R come and go with state)."""
        if self.chat.is_mounted:
            self.chat.refresh_savings(self.panel_state(), self.stats)
            self.chat.refresh_bindings()

    def set_entry_count(self, entries: int) -> None:
        """The store's row count changed (an answer was stored, or entries were evicted)."""
        self.stats.entries = entries
        self.refresh_savings()

    def _save_conversation(self) -> None:
        """Write the conversation to history, unless no-store is on: then nothing of this
        turn reaches the disk, neither the cache nor the transcript."""
        if not self.store_answers:
            return
        self.conversation.updated = self.clock.now()
        self.conversation.model = self.model_id
        if self.unsaved:
            return
        try:
            self.history.save(self.conversation)
        except HistoryError as exc:
            self.unsaved = str(exc)
            self.notify(
                f"{exc}. Chats are kept on screen until you quit.",
                title="Conversations are not being saved",
                severity="error",
                timeout=12
            )
            self.refresh_savings()

    # -- lifecycle -----------------------------------------------------------------------

    def get_default_screen(self) -> Screen[None]:
        return self.chat

    def on_mount(self) -> None:
        if self.unsaved:
            self.notify(
                f"{self.unsaved}. Chats are kept on screen until you quit "
                "(fix: point STEPCHAT_HOME at a directory).",
                title="Conversations will not be saved",
                severity="warning",
                timeout=12
            )
        self.refresh_savings()
        # Load the heavy parts only after the first frame is on screen.
        self.call_after_refresh(self.start_loading)

    def has_or_loads(self, model_id: str) -> bool:
        """Whether `model_id` is the model in use, loaded or loading (not failed: a retry
        must load it again)."""
        if model_id != self.model_id or self.load_error is not None:
            return False
        return self.loading or self.parts is not None

    def start_loading(self, model_id: str | None = None) -> None:
        """Load (or reload, for another model) the parts in a worker; show the loading state.

        Switching models keeps the working parts aside until the new ones load, so a model
        that fails to load leaves the chat on the one that worked. A model already loaded
        or loading is not loaded again (say, one chosen before the first load began): a
        second load would replace the parts under a prompt being answered.
        """
        target = model_id or self.model_id
        if self.has_or_loads(target):
            return
        if self.parts is not None and self.model_ready and target != self.model_id:
            self._fallback = (self.model_id, self.parts)
        previous = self.parts
        self.model_id = target
        self.parts = None
        self.cache = None
        self.loading = True
        self.model_ready = False
        self.load_error = None
        self.chat.show_banner(
            f"Loading {self.model_name}, the embedder and the cache… you can type meanwhile.",
            "loading",
        )
        self.refresh_savings()
        self.load_parts(self.model_id, previous)

    @work(thread=True, exclusive=True, exit_on_error=False, group="load")
    def load_parts(self, model_id: str, previous: Parts | None = None) -> None:
        """Open the cache, report it, then load the embedder and the model and report that.

        Reporting the cache first lets a prompt typed meanwhile be answered from it before
        the model has loaded. The parts being replaced (a model switch) get their queued hit
        counts written first.
        """
        if previous is not None:
            try:
                close_store(previous.store)
            except Exception as exc:  # a full disk loses hit counts, not the model switch
                self.notify(f"hit counts not saved: {describe(exc)}", severity="warning")
        try:
            parts = self._load(self.config, model_id)
            entries = parts.store.count()
        except Exception as exc:
            self.post_message(PartsFailed(model_id, describe(exc)))
            return
        self.post_message(PartsLoaded(parts, model_id, entries))
        try:
            parts.embedder.load()
            parts.backend.load()
        except Exception as exc:
            self.post_message(PartsFailed(model_id, describe(exc)))
            return
        self.post_message(ModelLoaded(parts, model_id))

    def on_parts_loaded(self, message: PartsLoaded) -> None:
        if message.model_id != self.model_id:
            return
        self._use_parts(message.parts, message.entries)
        for warning in message.parts.warnings:
            self.notify(warning, title="Cache", severity="warning", timeout=12)

    def _use_parts(self, parts: Parts, entries: int | None) -> None:
        self.parts = parts
        self.cache = build_cache(self.config, parts, self.clock, self.entry_serials)
        self.loading = False
        self.load_error = None
        if entries is not None:
            self.stats.entries = entries
        if self.model_ready:
            self.chat.show_banner(None)
        else:
            self.chat.show_banner(
                f"Cached answers are served now; {self.model_name} and the embedder are "
                "still loading.",
                "loading",
            )
        self._advance()

    def on_model_loaded(self, message: ModelLoaded) -> None:
        if message.model_id != self.model_id or message.parts is not self.parts:
            return
        self.model_ready = True
        self._fallback = None
        try:
            self.chat.show_banner(None)
            self.refresh_savings()
        except NoMatches:  # the model finished loading as the app was closing
            pass

    async def on_parts_failed(self, message: PartsFailed) -> None:
        if message.model_id != self.model_id:
            return
        if self._fallback is not None:
            # The new model failed (its cache may have opened): back to the one that worked.
            failed = self.model_name
            self.model_id, parts = self._fallback
            self._fallback = None
            self.model_ready = True
            self.notify(
                f"Could not load {failed}: {message.error}. Still on {self.model_name}.",
                title="Model not switched",
                severity="error",
                timeout=12
            )
            self._use_parts(parts, None)
            return
        self.loading = False
        self.load_error = message.error
        self.chat.show_banner(
            f"⚠ Could not load {self.model_name}: {message.error}  "
            "— F3 picks another model, Ctrl+R retries.",
            "error",
        )
        self.refresh_savings()
        if self.cache is not None:
            return  # the cache opened: requests it can answer still are, the others fail
        for request in self.requests.open:
            self.requests.end(request)
            request.turn.error = f"model not loaded: {message.error}"
            await request.view.fail(request.turn.error)
        self._save_conversation()
        self.refresh_savings()

    def close_parts(self) -> None:
        """Write the store's queued bookkeeping; called when the app has exited."""
        if self.parts is not None:
            try:
                close_store(self.parts.store)
            except Exception as exc:  # exiting: report, never raise
                print(f"stepchat: could not save hit counts: {describe(exc)}", file=sys.stderr)

    def action_retry_load(self) -> None:
        if not self.loading:
            self.start_loading()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry_load":
            return self.load_error is not None
        return True

    # -- answering ---------------------------------------------------------------------

    async def on_prompt_submitted(self, message: PromptSubmitted) -> None:
        prompt = message.text.strip("\n")
        self.chat.prompt.remember(prompt)
        view = await self.chat.add_turn(prompt)
        turn = Turn(prompt)
        self.conversation.turns.append(turn)
        self._enqueue(self.requests.new(prompt, view, turn))

    def _enqueue(self, request: ActiveRequest) -> None:
        """A new request: to the cache lane, once the cache is open (or why it never will)."""
        if self.cache is None and self.load_error:
            request.turn.error = f"model not loaded: {self.load_error}"
            self.call_later(self._end_with_error, request)
        elif self.cache is None:
            request.view.set_status("waiting for the model to load…")
        self._advance()

    async def _end_with_error(self, request: ActiveRequest) -> None:
        await request.view.fail(request.turn.error)
        self._after(request)

    def _advance(self) -> None:
        """Start what can start: the next request on the cache lane and the next one on the
        model lane, each when its lane is free and the cache is open."""
        cache = self.cache
        if cache is not None:
            checking = self.requests.next_check()
            if checking is not None:
                self._start(checking, cache)
            answering = self.requests.next_model()
            if answering is not None:
                self._start(answering, cache)
        self.refresh_savings()

    def _after(self, finished: ActiveRequest) -> None:
        """One request ended: save, and start what waited for its lane."""
        self.requests.end(finished)
        self._advance()
        self._save_conversation()
        self.chat.follow()

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
        request.view.set_status("thinking…")
        cache = with_system_prompt(cache, self.conversation.system_prompt)
        turns = self.conversation.turns
        index = next((i for i, t in enumerate(turns) if t is request.turn), len(turns))
        on_cache_lane = request.lane == CACHE_LANE
        attempt = Attempt(
            request.request,
            request.prompt,
            tuple(earlier_turns(turns[:index], unanswered=on_cache_lane)),
            request.cancel,
            self.reuse if request.reuse is None else request.reuse,
            self.store_answers,
        )
        if on_cache_lane:
            self.check_cache(cache, attempt)
        else:
            spec = self.config.models.get(self.model_id)
            self.write_answer(cache, attempt, spec.context if spec else 2048)

    @work(thread=True, exit_on_error=False, group="cache-lane")
    def check_cache(self, cache: StepCache, attempt: Attempt) -> None:
        """Answer one prompt without the model, or report that it needs the model."""
        token = EitherEvent(attempt.cancel, get_current_worker().cancelled_event)
        answer_from_cache(
            cache, self.engine_lock, replace(attempt, cancel=token), post=self.post_message
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="answer")
    def write_answer(self, cache: StepCache, attempt: Attempt, context: int) -> None:
        """Answer one prompt with the model, streaming its events as messages."""
        token = EitherEvent(attempt.cancel, get_current_worker().cancelled_event)
        answer_with_model(
            cache, self.engine_lock, replace(attempt, cancel=token), context=context,
            post=self.post_message,
        )

    async def on_pipeline_update(self, message: PipelineUpdate) -> None:
        request = self.requests.find(message.request)
        if request is not None:
            await request.view.apply(message.event)
            self.chat.follow()

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
        answer = message.answer
        request.turn.answer = answer
        if not self.model_ready and answer.hit:
            self.notify("Answered from the cache; the model is still loading.",
                        title="From the cache")
        self.stats.record(answer)
        self.stats.entries = message.entries
        await request.view.finish(answer)
        for note in answer.notes:
            # e.g. "the answer was not cached: … No space left on device", "prompt truncated"
            if note != FOLLOW_UP_NOTE:  # not a problem: the answer itself says why
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
        self._after(request)

    def on_cancel_requested(self, message: CancelRequested) -> None:
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
