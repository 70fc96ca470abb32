"""The stepchat terminal app: what the user does with keys and the command palette.

Built from injected parts by `build_app(config, load, clock)`, used by the CLI (with
`stepchat.runtime.load_parts`) and by the tests (with the scripted backend, hashed embedder
and in-memory store), so there is no module-level state. Loading the parts and the
app-wide state are `ServingApp`'s (serving.py), answering prompts is the chat screen's
(screens/chat.py); this class adds the actions: new chat, clear (after asking), reopen /
rename / delete saved conversations, switch model, the cache toggles, export, copy,
regenerate, and it remembers the chosen theme.

Importing this module must not import torch, sentence_transformers, llama_cpp or lancedb
(tests/tui/test_import_hygiene.py): the real adapters are imported by `load` only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import ClassVar

from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.screen import Screen

from stepchat.config import Config
from stepchat.core.ports import Clock, Store
from stepchat.core.types import CachePath
from stepchat.modelstate import check_model
from stepchat.paths import ensure_private_dir
from stepchat.tui.commands import palette_commands
from stepchat.tui.errors import describe
from stepchat.tui.export import export_markdown
from stepchat.tui.history import HistoryError
from stepchat.tui.messages import CacheChanged, EntriesLoaded
from stepchat.tui.prefs import load_prefs, save_pref
from stepchat.tui.sanitize import one_line
from stepchat.tui.screens.conversations import ConversationPickerScreen, PickerOutcome
from stepchat.tui.screens.dialogs import ConfirmScreen, ModelPickerScreen, TextEntryScreen
from stepchat.tui.screens.inspector import InspectorScreen
from stepchat.tui.screens.keys import KeysScreen
from stepchat.tui.serving import LoadParts, ServingApp
from stepchat.tui.system_prompt import with_system_prompt
from stepchat.tui.widgets.steps import AnswerView

QUIT_AGAIN_SECONDS = 5.0
"""How long a second Ctrl+Q quits past an unsent draft."""


class StepchatApp(ServingApp):
    """Chat with a local model through the step-level cache."""

    _quit_asked = float("-inf")
    """When Ctrl+Q last stopped at an unsent draft (the clock's monotonic seconds)."""

    CSS_PATH = "app.tcss"
    TITLE = "stepchat"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new_chat", "New chat"),
        Binding("ctrl+o", "open_conversation", "Open"),
        Binding("f2", "inspector", "Cache"),
        Binding("f3", "pick_model", "Model"),
        Binding("ctrl+r", "retry_load", "Retry load"),
        Binding("f1", "keys", "Keys", show=False),
        Binding("f5", "regenerate", "Regenerate", show=False),
    ]

    # -- lifecycle -----------------------------------------------------------------------

    def on_mount(self) -> None:
        """The one mount step: the theme chosen last time (before the first frame), then
        the parts start loading."""
        self._restore_theme()
        self.start_serving()

    def _restore_theme(self) -> None:
        """Apply the theme chosen last time and remember the next choice."""
        theme = load_prefs(self.config.paths.ui_file).get("theme")
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._remember_theme)

    def _remember_theme(self, theme: object) -> None:
        """Keep the chosen theme for the next run; a failed write is not worth a warning."""
        with contextlib.suppress(OSError):
            save_pref(self.config.paths.ui_file, "theme", self.theme)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's "Keys" lists the focused prompt box's editing keys; ours replaces it.
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")
        yield from palette_commands(self)

    def action_keys(self) -> None:
        if not isinstance(self.screen, KeysScreen):
            self.push_screen(KeysScreen())

    async def action_quit(self) -> None:
        """Quit; with text in the prompt box that was never sent, only when asked again
        within `QUIT_AGAIN_SECONDS`: a draft is kept nowhere else."""
        now = self.clock.monotonic()
        try:
            draft = self.chat.prompt.text.strip()
        except NoMatches:  # the chat is not shown yet
            draft = ""
        if draft and now - self._quit_asked > QUIT_AGAIN_SECONDS:
            self._quit_asked = now
            self.notify("The prompt box holds text you have not sent. Press Ctrl+Q again "
                        "to quit and lose it.", title="Quit?", timeout=QUIT_AGAIN_SECONDS)
            return
        await super().action_quit()

    def action_help_quit(self) -> None:
        """Ctrl+C does not quit (it copies in the prompt box); say what does, plainly (the
        built-in hint is markup, and this app's toasts show text as it is)."""
        self.notify("Press Ctrl+Q to quit.", title="Do you want to quit?")

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """Screenshots go to stepchat's data dir (created on demand), not ~/Downloads,
        which may not exist."""
        if path is None:
            try:
                path = str(ensure_private_dir(self.config.paths.screenshots_dir))
            except OSError as exc:
                self.notify(describe(exc), title="Screenshot not saved", severity="error")
                return None
        return super().deliver_screenshot(filename, path, time_format)


    # -- the conversation ----------------------------------------------------------------

    async def action_new_chat(self) -> None:
        self.chat.drop_requests()
        self.conversation = self._new_conversation()
        self.show_last(None)
        await self.chat.clear_transcript()

    def action_system_prompt(self) -> None:
        """Set this chat's system prompt; it is saved with the conversation."""
        default = self.config.pipeline.system_prompt
        current = self.conversation.system_prompt
        detail = (
            "Every answer in this chat is asked with it, and cached under it apart from "
            "answers written under any other. Empty: none. "
            + (f"New chats start with the one in config.toml: {default!r}." if default
               else "New chats start with none (system_prompt in config.toml sets one).")
        )

        def chosen(text: str | None) -> None:
            if text is None:
                return
            self.conversation.system_prompt = text.strip()
            self.mutate_reactive(StepchatApp.conversation)  # the header shows it
            self.save_conversation()
            shown = f"“{one_line(text.strip(), 50)}”" if text.strip() else "none"
            self.notify(f"System prompt for this chat: {shown}")

        self.push_screen(
            TextEntryScreen(
                "System prompt for this chat", detail,
                default if current is None else current, blink=self.blink,
            ),
            chosen,
        )

    def action_clear(self) -> None:
        """Ask first: clearing deletes the saved conversation too."""
        turns = len(self.conversation.turns)
        if not turns:
            self.notify("Nothing to clear.")
            return

        async def confirmed(answer: bool | None) -> None:
            if answer:
                await self.clear_conversation()

        self.push_screen(
            ConfirmScreen(
                "Clear this conversation?",
                (f"Its {turns} turns are" if turns != 1 else "Its one turn is")
                + " removed from the screen and "
                "the saved conversation is deleted from disk. Answers it stored in the cache "
                "stay there.",
                confirm_label="Clear",
            ),
            confirmed,
        )

    async def clear_conversation(self) -> None:
        self.chat.drop_requests()
        self.conversation.turns.clear()
        self.show_last(None)
        try:
            self.history.delete(self.conversation.id)
        except HistoryError as exc:
            self.notify(str(exc), severity="error")
        await self.chat.clear_transcript()

    def action_open_conversation(self) -> None:
        self.push_screen(
            ConversationPickerScreen(self.history, self.clock.now(), blink=self.blink,
                                     current=self.conversation.id),
            self._picker_closed,
        )

    async def _picker_closed(self, outcome: PickerOutcome | None) -> None:
        if outcome is None:
            return
        current = self.conversation.id
        if current in outcome.renamed:
            self.conversation.name = outcome.renamed[current]
        if outcome.open is not None:
            await self.open_conversation(outcome.open)
        elif current in outcome.deleted:
            await self.action_new_chat()

    async def open_conversation(self, conversation_id: str) -> None:
        try:
            conversation = self.history.load(conversation_id)
        except HistoryError as exc:
            self.notify(str(exc), title="Cannot open", severity="error")
            return
        self.chat.drop_requests()
        self.conversation = conversation
        for turn in conversation.turns:
            self.chat.prompt.remember(turn.prompt)
        self.show_newest()
        await self.chat.restore(conversation)

    def action_export(self) -> None:
        if not self.conversation.turns:
            self.notify("Nothing to export yet.", severity="warning")
            return
        try:
            path = export_markdown(self.conversation, self.config.paths.exports_dir)
        except HistoryError as exc:
            self.notify(str(exc), title="Export failed", severity="error")
            return
        self.notify(f"Transcript written to {path}", title="Exported")

    # -- one answer ----------------------------------------------------------------------

    def _answer_view(self) -> AnswerView | None:
        """The focused answer, else the newest one with something in it."""
        focused = self.focused
        if isinstance(focused, AnswerView):
            return focused
        views = [v for v in self.chat.query(AnswerView) if v.text.strip()]
        return views[-1] if views else None

    def action_copy(self, kind: str) -> None:
        """Copy the answer, its code block or its JSON object (palette: the newest answer)."""
        view = self._answer_view()
        if view is None:
            self.notify("No answer to copy yet.", severity="warning")
            return
        view.action_copy(kind)

    def action_regenerate(self) -> None:
        """Ask the model again for the last answer, bypassing the cache (F5). An answer the
        exact solver or the prompt's own values wrote would come back the same: say so."""
        if self.busy:
            self.notify("An answer is being written: wait for it or press Esc first.",
                        severity="warning")
            return
        if not self.conversation.turns:
            self.notify("Nothing to regenerate yet.", severity="warning")
            return
        last = self.conversation.turns[-1].answer
        if last is not None and last.path == CachePath.SOLVER:
            self.notify(
                "The exact solver (or the values the prompt states) wrote this answer: "
                "asking again gives the same one.", title="Nothing to regenerate",
            )
            return
        self.call_later(self.chat.regenerate_last)

    # -- model and cache settings ----------------------------------------------------------

    def action_inspector(self) -> None:
        if not isinstance(self.screen, InspectorScreen):
            self.push_screen(
                InspectorScreen(self._store, self.clock.now, lambda: self.busy, blink=self.blink,
                                chat_scope=self._chat_scope)
            )

    def _chat_scope(self) -> str | None:
        """The scope this chat's answers are cached under (its model and system prompt)."""
        if self.cache is None:
            return None
        return with_system_prompt(self.cache, self.conversation.system_prompt).scope

    def _store(self) -> Store | None:
        return self.parts.store if self.parts is not None else None

    def on_entries_loaded(self, message: EntriesLoaded) -> None:
        """The inspector listed the cache: its size is news for the savings panel too."""
        self.set_entry_count(message.total)

    def on_cache_changed(self, message: CacheChanged) -> None:
        self.set_entry_count(message.entries)

    def action_pick_model(self) -> None:
        self.push_screen(
            ModelPickerScreen(
                self.config.models,
                self.model_id,
                str(self.config.paths.config_file),
                check_model,
            ),
            self.switch_model,
        )

    def switch_model(self, model_id: str | None) -> None:
        """Load another model; the pipeline scopes the cache by model id, so none is shared."""
        if model_id is None or self.has_or_loads(model_id):
            return
        self.chat.drop_requests()
        self.start_loading(model_id)
        self.notify(f"Switching to {self.model_name}")

    def action_toggle_reuse(self) -> None:
        self.reuse = not self.reuse
        self.notify(
            "Cache reuse on" if self.reuse else "Cache reuse off: every answer is generated"
        )

    def action_toggle_store(self) -> None:
        self.store_answers = not self.store_answers
        self.notify(
            "Storing answers in the cache" if self.store_answers
            else "Storing off: new answers are not cached"
        )


def build_app(
    config: Config,
    load: LoadParts,
    clock: Clock | None = None,
    *,
    blink: bool = True,
    entry_serials: Iterator[int] | None = None,
) -> StepchatApp:
    """The app wired to `load` (real parts for the CLI, fakes for tests).

    `blink=False` stops cursor blinking and `entry_serials` (see `StepCache`) numbers new
    entries from the test's own count, so snapshots are identical on every run.
    """
    return StepchatApp(config, load, clock, blink=blink, entry_serials=entry_serials)
