"""The app's machinery: load the parts, keep the app-wide state the screens show.

`ServingApp` owns the cache, the conversation, the settings and the session's figures;
`StepchatApp` (app.py) adds what the user does with keys and the palette, and the chat
screen (`stepchat.tui.screens.chat`) owns the request flow: submit, worker, stream,
finish. The window paints first; the parts load afterwards in a thread worker while the
user may already type: the cache first, so a cached answer is served while the embedder
and the model are still loading. A model switch keeps the working parts until the new
model has loaded.

The state the screens show is Textual reactives (`var`s): the load state, the cache
toggles, the model, the conversation, the session figures. The chat screen watches them
and repaints its savings views when one changes, so no code path has to remember to
redraw them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.reactive import Initialize, var
from textual.screen import Screen

from stepchat.config import Config
from stepchat.core.ports import Clock, SystemClock
from stepchat.core.types import Answer
from stepchat.runtime import Parts, build_cache, close_store
from stepchat.settings import ServerSpec
from stepchat.tui.errors import describe
from stepchat.tui.history import Conversation, History, HistoryError
from stepchat.tui.load_state import LoadState
from stepchat.tui.messages import ModelLoaded, PartsFailed, PartsLoaded
from stepchat.tui.sanitize import one_line
from stepchat.tui.screens.chat import ChatScreen
from stepchat.tui.stats import LastAnswer, SessionStats

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache

LoadParts = Callable[[Config, str | None], Parts]


class ServingApp(App[int]):
    """Loads the parts and keeps the app-wide state; the subclass adds the user's actions
    and calls `start_serving` from its `on_mount`."""

    load_state: var[LoadState] = var(LoadState.IDLE, init=False)
    load_error: var[str | None] = var(None, init=False)
    """Why the last load failed (one line), None while it has not."""
    model_id: var[str] = var("", init=False)
    reuse: var[bool] = var(True, init=False)
    """Serve answers from the cache (off: every answer is generated)."""
    store_answers: var[bool] = var(True, init=False)
    """Store new answers, and save the conversation (off: nothing of a turn reaches disk)."""
    unsaved: var[str | None] = var(None, init=False)
    """Why conversations cannot be saved, said once instead of after every answer."""
    stats: var[SessionStats] = var(SessionStats, init=False)
    """The session's figures; changed in place, then announced (`record_answer`)."""

    def _new_conversation(self) -> Conversation:
        now = self.clock.now()
        return Conversation(self.history.new_id(now), now, now, self.model_id)

    conversation: var[Conversation] = var(Initialize(_new_conversation), init=False)
    """The chat on screen; changed in place (a system prompt), then announced."""

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
        self.set_reactive(ServingApp.model_id, config.default_model)
        self.parts: Parts | None = None
        self.cache: StepCache | None = None
        self._fallback: tuple[str, Parts] | None = None
        """The working model and parts while another loads, to go back to if it fails."""
        self.history = History(config.paths.history_dir)
        self.set_reactive(ServingApp.unsaved, self.history.problem())
        self.set_reactive(ServingApp.conversation, self._new_conversation())
        self.engine_lock = threading.Lock()
        """Engine code runs under it, on one thread at a time (`stepchat.engine_lanes`)."""
        self.chat = ChatScreen(blink=blink)

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
    def loading(self) -> bool:
        return self.load_state is LoadState.LOADING

    @property
    def model_ready(self) -> bool:
        return self.load_state is LoadState.READY

    @property
    def busy(self) -> bool:
        """A prompt is being answered or waits: for the cache, the model or its turn."""
        return self.chat.busy

    @property
    def model_wait(self) -> str:
        """What a request waiting for the model waits for: a server is connected to, a
        local model loaded (nothing is being written yet either way)."""
        spec = self.config.models.get(self.model_id)
        if isinstance(spec, ServerSpec):
            return "waiting for the model: connecting to its server…"
        return "waiting for the model to load…"

    @property
    def model_name(self) -> str:
        spec = self.config.models.get(self.model_id)
        return spec.name if spec else self.model_id

    def record_answer(self, answer: Answer, entries: int) -> None:
        """An answer was served: count it in the session's figures."""
        self.stats.record(answer)
        self.set_entry_count(entries)

    def show_last(self, answer: Answer | None) -> None:
        """"This answer" is the open chat's newest one: none while a new one is being
        answered, after a new chat, the reopened chat's own after Ctrl+O."""
        self.stats.last = None if answer is None else LastAnswer.of(answer)
        self.mutate_reactive(ServingApp.stats)

    def show_newest(self) -> None:
        """"This answer" on the open chat's newest answer: after a reopen, or after the
        newest question ended with none (cancelled, failed)."""
        answered = [turn.answer for turn in self.conversation.turns if turn.answer is not None]
        self.show_last(answered[-1] if answered else None)

    def set_entry_count(self, entries: int) -> None:
        """The store's row count changed (an answer was stored, or entries were evicted)."""
        self.stats.entries = entries
        self.mutate_reactive(ServingApp.stats)

    def save_conversation(self) -> None:
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

    # -- lifecycle -----------------------------------------------------------------------

    def get_default_screen(self) -> Screen[None]:
        return self.chat

    def start_serving(self) -> None:
        """Say what cannot be saved, then load the parts once the first frame is on
        screen; the subclass's `on_mount` calls it after its own setup."""
        if self.unsaved:
            self.notify(
                f"{self.unsaved}. Chats are kept on screen until you quit "
                "(fix: point STEPCHAT_HOME at a directory).",
                title="Conversations will not be saved",
                severity="warning",
                timeout=12
            )
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
        self.load_error = None
        self.load_state = LoadState.LOADING
        self.chat.show_banner(
            f"Loading {self.model_name}, the embedder and the cache… you can type meanwhile.",
            "loading",
        )
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
        self._use_parts(message.parts, message.entries, model_ready=False)
        for warning in message.parts.warnings:
            self.notify(warning, title="Cache", severity="warning", timeout=12)

    def _use_parts(self, parts: Parts, entries: int | None, *, model_ready: bool) -> None:
        """Open the cache on `parts`; the chat screen starts what waited for it."""
        self.parts = parts
        self.cache = build_cache(self.config, parts, self.clock, self.entry_serials)
        self.load_error = None
        if entries is not None:
            self.set_entry_count(entries)
        if model_ready:
            self.chat.show_banner(None)
        else:
            self.chat.show_banner(
                f"Cached answers are served now; {self.model_name} and the embedder are "
                "still loading.",
                "loading",
            )
        self.load_state = LoadState.READY if model_ready else LoadState.CACHE_ONLY

    def on_model_loaded(self, message: ModelLoaded) -> None:
        if message.model_id != self.model_id or message.parts is not self.parts:
            return
        self._fallback = None
        try:
            self.chat.show_banner(None)
            self.load_state = LoadState.READY
        except NoMatches:  # the model finished loading as the app was closing
            pass

    def on_parts_failed(self, message: PartsFailed) -> None:
        if message.model_id != self.model_id:
            return
        if self._fallback is not None:
            # The new model failed (its cache may have opened): back to the one that worked.
            failed = self.model_name
            self.model_id, parts = self._fallback
            self._fallback = None
            self.notify(
                f"Could not load {failed}: {message.error}. Still on {self.model_name}.",
                title="Model not switched",
                severity="error",
                timeout=12
            )
            self._use_parts(parts, None, model_ready=True)
            return
        self.load_error = message.error
        self.chat.show_banner(
            f"⚠ Could not load {self.model_name}: {message.error}  "
            "— F3 picks another model, Ctrl+R retries.",
            "error",
        )
        # With the cache open, requests it can answer still are, the others fail; with
        # nothing open, the chat screen fails the open requests.
        self.load_state = LoadState.FAILED if self.cache is None else LoadState.MODEL_FAILED

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
