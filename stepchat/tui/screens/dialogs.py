"""Small modal dialogs: yes/no confirmation, a one-line text entry, the model picker.

Each returns its choice through `dismiss`, so callers use `push_screen(dialog, callback)`
and never reach into the dialog's widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList
from textual.widgets.option_list import Option

from stepchat.config import ModelEntry
from stepchat.modelstate import ModelState
from stepchat.tui.sanitize import clean, one_line


class ConfirmScreen(ModalScreen[bool]):
    """Ask before something that cannot be undone; Enter/y confirms, Esc/n declines."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, detail: str, confirm_label: str = "Yes") -> None:
        super().__init__(classes="dialog-screen")
        self._title = title
        self._detail = detail
        self._confirm = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm"):
            yield Label(Text(self._title), classes="dialog-title", markup=False)
            yield Label(Text(self._detail), classes="dialog-detail", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self._confirm, variant="error", id="yes")
                yield Button("Cancel", variant="default", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class TextEntryScreen(ModalScreen[str | None]):
    """Ask for one line of text (a conversation's name); Enter keeps it, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, title: str, detail: str, value: str = "", *, blink: bool = True) -> None:
        super().__init__(classes="dialog-screen")
        self._title = title
        self._detail = detail
        self._value = value
        self._blink = blink

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="text-entry"):
            yield Label(Text(self._title), classes="dialog-title", markup=False)
            yield Label(Text(self._detail), classes="dialog-detail", markup=False)
            yield Input(self._value, id="entry")

    def on_mount(self) -> None:
        entry = self.query_one(Input)
        entry.cursor_blink = self._blink
        entry.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


StateCheck = Callable[[ModelEntry], ModelState]


class ModelPickerScreen(ModalScreen[str | None]):
    """Models from models.toml and the user's config, each with its state; the current one
    is marked. States are checked in a worker (a server may take seconds to refuse), and
    each line is filled in as its check returns."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "Close")]

    def __init__(
        self,
        models: dict[str, ModelEntry],
        current: str,
        config_file: str,
        check: StateCheck | None = None,
    ) -> None:
        super().__init__(classes="dialog-screen")
        self._models = models
        self._current = current
        self._config_file = config_file
        self._check = check
        self.states: dict[str, ModelState] = {}

    def _prompt(self, spec: ModelEntry, state: str) -> Text:
        mark = "● " if spec.id == self._current else "  "
        return Text(f"{mark}{clean(spec.name)}  ({clean(spec.id)})  ·  {one_line(state, 60)}")

    def compose(self) -> ComposeResult:
        waiting = "checking…" if self._check else ""
        options = [Option(self._prompt(s, waiting), id=s.id) for s in self._models.values()]
        with Vertical(classes="dialog", id="models"):
            yield Label("Switch model", classes="dialog-title")
            yield Label(
                Text("Each model has its own cache: answers are never reused across models."),
                classes="dialog-detail",
                markup=False,
            )
            yield OptionList(*options, id="model-list")
            yield Label(
                Text(
                    "To add a model, give a GGUF file (source) or an OpenAI-compatible "
                    'server (kind = "openai", base_url, model) its own [[models]] entry in '
                    f"{self._config_file} (stepchat config --edit opens it)."
                ),
                classes="dialog-detail dialog-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        ids = list(self._models)
        if self._current in ids:
            option_list.highlighted = ids.index(self._current)
        option_list.focus()
        if self._check is not None:
            self.check_states(self._check)

    @work(thread=True, exit_on_error=False, group="model-states")
    def check_states(self, check: StateCheck) -> None:
        for spec in list(self._models.values()):
            state = check(spec)
            self.app.call_from_thread(self._show_state, spec, state)

    def _show_state(self, spec: ModelEntry, state: ModelState) -> None:
        self.states[spec.id] = state
        if self.is_mounted:
            self.query_one(OptionList).replace_option_prompt(
                spec.id, self._prompt(spec, state.detail)
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
