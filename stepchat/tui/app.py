"""The stepchat terminal app: owns the conversation, the cache and the workers.

Built from injected parts by `build_app(config, load, clock)`, used by the CLI (with
`stepchat.runtime.lazy_parts`) and by the tests (with the scripted backend, hashed embedder
and in-memory store), so there is no module-level state. The window paints first; the
parts load afterwards in a thread worker while the user may already type: the cache first,
so a cached answer is served while the embedder and the model are still loading. Workers
are thin: each calls one core function and posts a message from `stepchat.tui.messages`;
the handlers here update the screens.

Importing this module must not import torch, sentence_transformers, llama_cpp or lancedb
(tests/tui/test_import_hygiene.py): the real adapters are imported by `load` only.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.worker import get_current_worker

from stepchat.config import Config
from stepchat.core.events import PipelineEvent
from stepchat.core.ports import Clock, GenerationCancelled, SystemClock
from stepchat.modelstate import check_model
from stepchat.runtime import Parts, build_cache, flush_store
from stepchat.tui.commands import palette_commands
from stepchat.tui.errors import describe
from stepchat.tui.history import Conversation, History, HistoryError, Turn, export_markdown
from stepchat.tui.messages import (
    AnswerFailed,
    AnswerReady,
    ModelLoaded,
    PartsFailed,
    PartsLoaded,
    PipelineUpdate,
    PromptSubmitted,
)
from stepchat.tui.screens.chat import ChatScreen
from stepchat.tui.screens.dialogs import ConversationPickerScreen, ModelPickerScreen
from stepchat.tui.screens.inspector import InspectorScreen

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache
from stepchat.tui.stats import SessionStats
from stepchat.tui.widgets.savings import PanelState
from stepchat.tui.widgets.steps import AnswerView

LoadParts = Callable[[Config, str | None], Parts]


@dataclass
class ActiveRequest:
    """The prompt being served (or waiting for the model), and how to stop it."""

    request: int
    prompt: str
    view: AnswerView
    turn: Turn
    cancel: threading.Event


class EitherEvent:
    """A cancel token set by Esc (the request's event) or by Textual cancelling the worker,
    which it does for every worker when the app exits, so quitting stops a generation."""

    def __init__(self, *events: threading.Event) -> None:
        self._events = events

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)


class StepchatApp(App[int]):
    """Chat with a local model through the step-level cache."""

    CSS_PATH = "app.tcss"
    TITLE = "stepchat"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new_chat", "New chat"),
        Binding("ctrl+o", "open_conversation", "Open"),
        Binding("f2", "inspector", "Cache"),
        Binding("f3", "pick_model", "Model"),
        Binding("ctrl+r", "retry_load", "Retry load"),
    ]

    def __init__(
        self,
        config: Config,
        load: LoadParts,
        clock: Clock | None = None,
        *,
        blink: bool = True,
    ) -> None:
        super().__init__()
        self.config = config
        self.clock: Clock = clock or SystemClock()
        self.blink = blink
        self._load = load
        self.model_id = config.default_model
        self.parts: Parts | None = None
        self.cache: StepCache | None = None
        self.loading = False
        self.model_ready = False
        self.load_error: str | None = None
        self.reuse = True
        self.store_answers = True
        self.stats = SessionStats()
        self.history = History(config.paths.history_dir)
        self.conversation = self._new_conversation()
        self.active: ActiveRequest | None = None
        self._requests = 0
        self.chat = ChatScreen(blink=blink)

    # -- state -------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A prompt is being answered or is waiting for the model to load."""
        return self.active is not None

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
        elif self.active is not None:
            status = "answering…"
        elif not self.model_ready:
            status = "answers from the cache; loading model…"
        else:
            status = "ready"
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
        self.conversation.updated = self.clock.now()
        self.conversation.model = self.model_id
        try:
            self.history.save(self.conversation)
        except HistoryError as exc:
            self.notify(str(exc), title="Conversation not saved", severity="error")

    # -- lifecycle -----------------------------------------------------------------------

    def get_default_screen(self) -> Screen[None]:
        return self.chat

    def on_mount(self) -> None:
        self.refresh_savings()
        # Load the heavy parts only after the first frame is on screen.
        self.call_after_refresh(self.start_loading)

    def start_loading(self, model_id: str | None = None) -> None:
        """Load (or reload, for another model) the parts in a worker; show the loading state."""
        self.model_id = model_id or self.model_id
        previous = self.parts
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
        try:
            if previous is not None:
                flush_store(previous.store)
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
        self.parts = message.parts
        self.cache = build_cache(self.config, message.parts, self.clock)
        self.loading = False
        self.stats.entries = message.entries
        if not self.model_ready:
            self.chat.show_banner(
                f"Cached answers are served now; {self.model_name} and the embedder are "
                "still loading.",
                "loading",
            )
        self.refresh_savings()
        active = self.active
        if active is not None and not active.cancel.is_set():
            self._serve(active)

    def on_model_loaded(self, message: ModelLoaded) -> None:
        if message.model_id != self.model_id or message.parts is not self.parts:
            return
        self.model_ready = True
        try:
            self.chat.show_banner(None)
            self.refresh_savings()
        except NoMatches:  # the model finished loading as the app was closing
            pass

    async def on_parts_failed(self, message: PartsFailed) -> None:
        if message.model_id != self.model_id:
            return
        self.loading = False
        self.load_error = message.error
        self.chat.show_banner(
            f"⚠ Could not load {self.model_name}: {message.error}  "
            "— F3 picks another model, Ctrl+R retries.",
            "error",
        )
        self.refresh_savings()
        active = self.active
        if active is not None and self.cache is None:
            self.active = None
            active.turn.error = f"model not loaded: {message.error}"
            await active.view.fail(active.turn.error)
            self._save_conversation()
            self.refresh_savings()

    def close_parts(self) -> None:
        """Write the store's queued bookkeeping; called when the app has exited."""
        if self.parts is not None:
            try:
                flush_store(self.parts.store)
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

    def on_prompt_submitted(self, message: PromptSubmitted) -> None:
        if self.active is not None:
            self.notify("Still answering: press Esc to cancel first.", severity="warning")
            return
        prompt = message.text.strip("\n")
        self.chat.prompt.clear()
        view = self.chat.add_turn(prompt)
        turn = Turn(prompt)
        self.conversation.turns.append(turn)
        self._requests += 1
        self.active = ActiveRequest(self._requests, prompt, view, turn, threading.Event())
        if self.cache is None:
            if self.load_error:
                self.active = None
                turn.error = f"model not loaded: {self.load_error}"
                self.call_later(view.fail, turn.error)
                self._save_conversation()
            else:
                view.set_status("waiting for the model to load…")
        else:
            self._serve(self.active)
        self.refresh_savings()

    def _serve(self, active: ActiveRequest) -> None:
        assert self.cache is not None
        active.view.set_status("thinking…")
        self.serve(
            self.cache,
            active.request,
            active.prompt,
            active.cancel,
            self.reuse,
            self.store_answers,
        )
        self.refresh_savings()

    @work(thread=True, exclusive=True, exit_on_error=False, group="answer")
    def serve(
        self,
        cache: StepCache,
        request: int,
        prompt: str,
        cancel: threading.Event,
        reuse: bool,
        store: bool,
    ) -> None:
        """Answer one prompt through the cache, streaming its events as messages."""

        def forward(event: PipelineEvent) -> None:
            self.post_message(PipelineUpdate(request, event))

        token = EitherEvent(cancel, get_current_worker().cancelled_event)
        try:
            answer = cache.answer(
                prompt,
                on_event=forward,
                cancel=token,
                reuse=reuse,
                store=store,
            )
            entries = cache.store.count()
        except GenerationCancelled:
            self.post_message(AnswerFailed(request, None, cancelled=True))
            return
        except Exception as exc:
            self.post_message(AnswerFailed(request, describe(exc)))
            return
        self.post_message(AnswerReady(request, answer.to_record(), entries))

    def _current(self, request: int) -> ActiveRequest | None:
        active = self.active
        return active if active is not None and active.request == request else None

    def on_pipeline_update(self, message: PipelineUpdate) -> None:
        active = self._current(message.request)
        if active is not None:
            active.view.apply(message.event)
            self.chat.follow()

    async def on_answer_ready(self, message: AnswerReady) -> None:
        active = self._current(message.request)
        if active is None:
            return
        self.active = None
        active.turn.record = message.record
        if not self.model_ready and message.record.get("hit"):
            self.notify("Answered from the cache; the model is still loading.",
                        title="From the cache")
        self.stats.record(message.record)
        self.stats.entries = message.entries
        await active.view.finish(message.record)
        self._save_conversation()
        self.refresh_savings()
        self.chat.follow()

    async def on_answer_failed(self, message: AnswerFailed) -> None:
        active = self._current(message.request)
        if active is None:
            return
        self.active = None
        active.turn.error = message.error
        active.turn.cancelled = message.cancelled
        await active.view.fail(message.error, cancelled=message.cancelled)
        self._save_conversation()
        self.refresh_savings()

    def cancel_answer(self) -> None:
        """Esc: stop the generation (the backend checks the event between tokens)."""
        active = self.active
        if active is None:
            return
        active.cancel.set()
        if self.cache is None:
            # Still waiting for the model: nothing runs yet, end the turn here.
            self.post_message(AnswerFailed(active.request, None, cancelled=True))
        else:
            active.view.set_status("cancelling…")

    # -- commands ------------------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from palette_commands(self)

    async def action_new_chat(self) -> None:
        self._drop_active()
        self.conversation = self._new_conversation()
        await self.chat.clear_transcript()
        self.refresh_savings()

    async def action_clear(self) -> None:
        self._drop_active()
        self.conversation.turns.clear()
        self.history.delete(self.conversation.id)
        await self.chat.clear_transcript()
        self.refresh_savings()

    def _drop_active(self) -> None:
        """Forget the running request (its late messages are ignored) and stop it."""
        if self.active is not None:
            self.active.cancel.set()
            self.active = None

    def action_open_conversation(self) -> None:
        try:
            summaries = self.history.list()
        except OSError as exc:
            self.notify(describe(exc), severity="error")
            return
        self.push_screen(
            ConversationPickerScreen(summaries, self.clock.now()), self._open_conversation
        )

    async def _open_conversation(self, conversation_id: str | None) -> None:
        if conversation_id is None:
            return
        await self.open_conversation(conversation_id)

    async def open_conversation(self, conversation_id: str) -> None:
        try:
            conversation = self.history.load(conversation_id)
        except HistoryError as exc:
            self.notify(str(exc), title="Cannot open", severity="error")
            return
        self._drop_active()
        self.conversation = conversation
        await self.chat.restore(conversation)
        self.refresh_savings()

    def action_inspector(self) -> None:
        if not isinstance(self.screen, InspectorScreen):
            self.push_screen(InspectorScreen())

    def action_pick_model(self) -> None:
        picker = ModelPickerScreen(self.config.models, self.model_id, check_model)
        self.push_screen(picker, self.switch_model)

    def switch_model(self, model_id: str | None) -> None:
        """Load another model; the pipeline scopes the cache by model id, so none is shared."""
        if model_id is None or (model_id == self.model_id and self.cache is not None):
            return
        self._drop_active()
        self.start_loading(model_id)
        self.notify(f"Switching to {self.model_name}")

    def action_toggle_reuse(self) -> None:
        self.reuse = not self.reuse
        self.notify("Cache reuse on" if self.reuse else "No-reuse: every answer is generated")
        self.refresh_savings()

    def action_toggle_store(self) -> None:
        self.store_answers = not self.store_answers
        self.notify("Storing answers" if self.store_answers else "No-store: answers not cached")
        self.refresh_savings()

    def action_export(self) -> None:
        if not self.conversation.turns:
            self.notify("Nothing to export yet.", severity="warning")
            return
        try:
            path = export_markdown(self.conversation, self.config.paths.data_dir / "exports")
        except HistoryError as exc:
            self.notify(str(exc), title="Export failed", severity="error")
            return
        self.notify(f"Transcript written to {path}", title="Exported")


def build_app(
    config: Config,
    load: LoadParts,
    clock: Clock | None = None,
    *,
    blink: bool = True,
) -> StepchatApp:
    """The app wired to `load` (real parts for the CLI, fakes for tests).

    `blink=False` stops cursor blinking so snapshots are identical on every run.
    """
    return StepchatApp(config, load, clock, blink=blink)
