"""The transcript's building blocks: a user turn, an answer, and the step blocks inside it.

An answer is a column of steps, each coloured by where it came from (reused, patched,
regenerated, solver fallback) with a left border and a badge, so the cache's work is
visible at a glance. Steps settle one by one from pipeline events; tokens of a step the
model is still writing stream into a live block below them, rendered as Markdown as it
arrives for open text (a code fence is a code block at once, not literal backticks).
A JSON answer is one highlighted object (`json_view`), a fenced code block one step.
Everything shown from the model or the cache passes through `sanitize.clean` and is
rendered without markup. A focused answer copies itself, its code or its JSON object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from stepchat.core.conversation import FOLLOW_UP_NOTE, WAITING_NOTE, dropped_note
from stepchat.core.cutoff import NOTE_START
from stepchat.core.events import (
    DoneEvent,
    PipelineEvent,
    RouteEvent,
    StageEvent,
    StepEvent,
    TokenEvent,
)
from stepchat.core.types import UNVOUCHED, Answer, AnswerStep, CachePath, StepStatus
from stepchat.tui.copyable import code_blocks, json_object
from stepchat.tui.history import Turn
from stepchat.tui.sanitize import clean, plain
from stepchat.tui.stats import format_ms
from stepchat.tui.widgets.badges import badge_for
from stepchat.tui.widgets.json_view import JsonObjectView
from stepchat.tui.widgets.live_markdown import stop_stream

PATH_LABELS: dict[str, str] = {
    CachePath.REUSE_ONLY: "served from the cache",
    CachePath.PATCHED: "from the cache, patched",
    CachePath.SKIP_REUSE: "cache skipped",
    CachePath.MISS: "not in the cache",
    CachePath.SOLVER: "written by the solver",
}


def route_label(path: str, notes: Sequence[str] = (), *, bypassed: bool = False) -> str:
    """An answer's path in the app's words, as its first line and the export say it."""
    if notes and {FOLLOW_UP_NOTE, WAITING_NOTE} & set(notes):
        return "cache not used"  # the note below the answer says why
    if bypassed and path == CachePath.MISS:
        return "asked again, cache bypassed"
    return PATH_LABELS.get(path, path)


PLAIN_KINDS = frozenset({"equation", "final", "prose", "member", "line"})
"""Shown literally: in equations `*` and `_` are algebra, not Markdown emphasis, and a JSON
member ('"age": 40') is clearer bare than in a padded code block."""


def step_body(step: AnswerStep) -> Widget:
    """Equations and JSON members literally, whole JSON highlighted, prose and code (a
    fenced block, highlighted by its language) as Markdown."""
    text = clean(step.text)
    if step.kind in PLAIN_KINDS:
        body = Text(text)
        if step.check in UNVOUCHED:
            body.append("  ? unchecked", style="italic")  # nothing in the prompt confirms it
        return Static(body, classes="body", markup=False)
    if step.kind != "code" and text.lstrip().startswith(("{", "[")):
        syntax = Syntax(text, "json", background_color="default", word_wrap=True)
        return Static(syntax, classes="body", markup=False)
    return Markdown(text, classes="body", open_links=False)


class StepBlock(Horizontal):
    """One step of an answer: a coloured badge beside its text."""

    def __init__(self, step: AnswerStep, index: int = 0) -> None:
        unchecked = " -unchecked" if step.check in UNVOUCHED else ""
        super().__init__(classes=f"step -{step.status.value}{unchecked}")
        self.step = step
        self.index = index

    def compose(self) -> ComposeResult:
        yield badge_for(self.step.status)
        yield step_body(self.step)


class UserTurn(Static):
    """What the user asked, shown literally."""

    def __init__(self, prompt: str) -> None:
        super().__init__(plain(prompt), classes="user-turn", markup=False)
        self.prompt = prompt


def summary_line(answer: Answer) -> Text:
    """Path, time and tokens. "N of M tokens written" only where part of the answer came
    from the cache: alone, "169 of 169 tokens" read as a quota the model had used up."""
    generated, saved = answer.tokens.generated, answer.tokens.saved
    written = f"{generated} of {generated + saved}" if saved else f"{generated}"
    line = f"{answer.path} · {format_ms(answer.timings.total_ms)} · {written} tokens written"
    if saved:
        line += f" · {saved} saved"
    return Text(line)


def cut_off_line(answer: Answer) -> str:
    """The line under an answer the token limit cut: the engine's own note, which names the
    limit, so the app and `stepchat ask` say the same thing."""
    note = next((n for n in answer.notes if n.startswith(NOTE_START)), None)
    return f"✂ {note or NOTE_START + '; not cached'}"


STREAM_INTERVAL = 0.05
"""Seconds between redraws of streamed text: 20 a second reads as live, and a model
writing 80 tokens a second costs a quarter of the redraws."""


class AnswerView(Vertical, can_focus=True):
    """One answer, live or restored: route, settled steps, streaming text, summary.

    Drive it with `apply(event)` while the pipeline runs and `finish(answer)` at the end;
    `finish` redraws from the answer, which is the authority on the final steps. Focused
    (click it, or Shift+Tab from the prompt), it copies itself, a code block or its JSON.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy('answer')", "Copy answer"),
        Binding("k", "copy('code')", "Copy code"),
        Binding("j", "copy('json')", "Copy JSON"),
    ]

    def __init__(self, answer: Answer | None = None) -> None:
        super().__init__(classes="answer")
        self.answer = answer
        self.status_text = "" if answer is not None else "waiting…"
        self.path: str | None = None
        self.markdown = True
        """Render streamed and partial text as Markdown: open text, and any text before
        the route says otherwise (the route event carries the kind's `delivery`)."""
        self.skip_reason: str | None = None
        self.steps: dict[int, AnswerStep] = {}
        self.checks: dict[int, str | None] = {}
        self.error: str | None = None
        self.cancelled = False
        self.partial = ""
        """What was streamed when the answer was cancelled: kept, shown, never cached."""
        self.dropped = 0
        self.bypassed = False
        """Asked again with the cache bypassed (Regenerate): not "not in the cache"."""
        self._copied: str | None = None
        """What the last copy key took since this answer got the focus: then only `k` (the
        next code block) stays a key here, and any other letter is typing for the prompt."""
        self._stream = ""
        self._stream_status = StepStatus.REGENERATED
        self._markdown_stream: MarkdownStream | None = None
        self._unwritten = ""
        self._redraw: Timer | None = None
        self._copied_code = -1
        if answer is not None:
            self._load_answer(answer)

    @classmethod
    def from_turn(cls, turn: Turn) -> AnswerView:
        """A saved turn as it was left: answered, failed, or cancelled with its partial text."""
        view = cls(turn.answer)
        view.dropped = turn.dropped
        if turn.answer is None:
            view.error = turn.error
            view.cancelled = turn.cancelled
            view.partial = turn.partial
            view.status_text = "cancelled" if turn.cancelled else "not answered"
        return view

    def compose(self) -> ComposeResult:
        if self.dropped:
            yield Static(plain(f"⋯ {dropped_note(self.dropped)}"), classes="trimmed", markup=False)
        yield Static(self._route_text(), classes="route", markup=False)
        if self.skip_reason:
            yield Static(plain(f"skip-reuse: {self.skip_reason}"), classes="skip", markup=False)
        for note in self.answer.notes if self.answer is not None else ():
            if not note.startswith(NOTE_START):  # a cut-off answer's line is below it
                yield Static(plain(note), classes="skip note", markup=False)
        with Vertical(classes="steps"):
            yield from self._step_widgets()
        if self.partial:
            yield self._text_widget(self.partial, "partial")
        if self.answer is not None:
            yield Static(summary_line(self.answer), classes="summary", markup=False)
            if self.answer.finish_reason == "length":
                yield Static(Text(cut_off_line(self.answer)), classes="cutoff", markup=False)
        if self.error:
            yield Static(plain(f"⚠ {self.error}"), classes="error", markup=False)
        if self.cancelled and self.status_text != "cancelled":  # else the route line says it
            note = "cancelled · the partial answer is not cached" if self.partial else "cancelled"
            yield Static(Text(note), classes="cancelled", markup=False)
        elif self.cancelled and self.partial:
            yield Static(Text("the partial answer is not cached"), classes="cancelled",
                         markup=False)
        elif self.partial:  # cut off by a failure, such as the model process dying
            yield Static(Text("cut off · the partial answer is not cached"),
                         classes="cancelled", markup=False)

    def _step_widgets(self) -> list[Widget]:
        order = sorted(self.steps)
        members = [self.steps[i] for i in order]
        if members and all(step.kind == "member" for step in members):
            return [JsonObjectView(members, [self.checks.get(i) for i in order])]
        return [StepBlock(self.steps[i], i) for i in order]

    def _text_widget(self, text: str, classes: str) -> Widget:
        if self.markdown:
            return Markdown(clean(text), classes=classes, open_links=False)
        return Static(plain(text), classes=classes, markup=False)

    def _load_answer(self, answer: Answer) -> None:
        self.answer = answer
        self.path = str(answer.path)
        self.skip_reason = answer.skip_reason
        self.steps = dict(enumerate(answer.steps))
        self.checks = {i: step.check for i, step in enumerate(answer.steps)}
        self.status_text = ""
        self._stream = ""

    def _route_text(self) -> Text:
        """The path once known, followed by the running stage until the answer is in."""
        if self.path is None:
            return Text(self.status_text or "…")
        notes = self.answer.notes if self.answer is not None else ()
        text = route_label(self.path, notes, bypassed=self.bypassed)
        if self.answer is None and self.status_text:
            text += f" · {self.status_text}"
        return Text(text)

    def _set_route(self) -> None:
        route = self.query(".route").first(Static)
        route.update(self._route_text())

    async def apply(self, event: PipelineEvent) -> None:
        """Paint one pipeline event; DoneEvent is left to `finish`, which gets the answer."""
        if not self.query(".steps"):
            return  # removed (a new chat, the app closing) while events were in flight
        if isinstance(event, StageEvent):
            self.status_text = f"{event.stage}…"
            self._set_route()
        elif isinstance(event, RouteEvent):
            self.path = str(event.path)
            self.markdown = event.delivery.markdown
            self.status_text = ""
            self._set_route()
            if event.skip_reason and event.skip_reason != self.skip_reason:
                self.skip_reason = event.skip_reason
                await self.mount(
                    Static(plain(f"skip-reuse: {event.skip_reason}"), classes="skip", markup=False),
                    after=self.query(".route").first(),
                )
        elif isinstance(event, TokenEvent):
            self._append_stream(event.text, event.status)
        elif isinstance(event, StepEvent):
            await self._settle(event.index, event.step)
        elif isinstance(event, DoneEvent):
            pass

    def _append_stream(self, text: str, status: StepStatus) -> None:
        """Add streamed text. It is drawn at most every STREAM_INTERVAL seconds, so a fast
        model costs one redraw per batch rather than one per token; open text goes through
        Textual's Markdown stream (a fence becomes a code block as it arrives), equations
        and JSON are shown literally."""
        stream = self._live_stream()
        if status != self._stream_status:
            stream.set_class(False, f"-{self._stream_status.value}")
            self._stream_status = status
        stream.set_class(True, f"-{status.value}")
        self._stream += text
        self._unwritten += clean(text)
        if self._redraw is None:
            self._redraw = self.set_timer(STREAM_INTERVAL, self._draw_stream)

    def _live_stream(self) -> Widget:
        found = self.query(".stream")
        if found:
            return found.first()
        stream = self._text_widget("", "stream")
        self.mount(stream, after=self.query_one(".steps"))
        return stream

    async def _draw_stream(self) -> None:
        self._redraw = None
        found = self.query(".stream")
        if not found or not self._unwritten:
            return
        stream = found.first()
        if isinstance(stream, Markdown):
            if self._markdown_stream is None:
                self._markdown_stream = Markdown.get_stream(stream)
            text, self._unwritten = self._unwritten, ""
            await self._markdown_stream.write(text)
        elif isinstance(stream, Static):
            self._unwritten = ""
            stream.update(plain(self._stream))

    async def _end_stream(self) -> None:
        """Stop drawing the live block and drop it (its text has settled, or the answer
        ended and is redrawn from the answer)."""
        if self._redraw is not None:
            self._redraw.stop()
            self._redraw = None
        self._unwritten = ""
        if self._markdown_stream is not None:
            stream, self._markdown_stream = self._markdown_stream, None
            await stop_stream(stream)
        self.query(".stream").remove()

    async def _settle(self, index: int, step: AnswerStep) -> None:
        """Put a settled step in its place. Mounts are queued, not awaited: the steps of an
        answer settle in a burst, and awaiting each would lay the transcript out each time.

        Open text settles all at once when the model is done, just before `finish` draws
        the served answer, so its stream stays until then instead of being
        replaced twice.
        """
        self.steps[index] = step
        self.checks[index] = step.check
        if self.markdown:
            return
        container = self.query_one(".steps", Vertical)
        if step.kind == "member":
            container.query(JsonObjectView).remove()
            container.mount_all(self._step_widgets())
        else:
            for old in [b for b in container.query(StepBlock) if b.index == index]:
                old.remove()
            later = [b for b in container.query(StepBlock) if b.index > index]
            block = StepBlock(step, index)
            if later:
                container.mount(block, before=min(later, key=lambda b: b.index))
            else:
                container.mount(block)
        if step.status != StepStatus.REUSED and self._stream:
            self._stream = ""
            await self._end_stream()

    async def finish(self, answer: Answer) -> None:
        """Show the served answer exactly as it is."""
        await self._end_stream()
        self._load_answer(answer)
        await self.recompose()

    async def fail(self, error: str | None, cancelled: bool = False) -> None:
        """End without an answer: keep what settled and what streamed (cancelled, or cut
        off by a failure such as the model process dying), marked as not cached."""
        await self._end_stream()
        self.error = error
        self.cancelled = cancelled
        self.partial = self._stream
        self._stream = ""
        # The line below the steps says what happened; the route line need not repeat it.
        self.status_text = "" if self.path else "not answered"
        await self.recompose()

    def set_status(self, text: str) -> None:
        """A note shown until the route is known, e.g. while the model loads."""
        self.status_text = text
        if self.is_mounted:
            self._set_route()

    # -- copying ---------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The answer as served, or what streamed before it was cancelled."""
        if self.answer is not None:
            return self.answer.text
        return self.partial or self._stream

    def copyable(self, kind: str) -> tuple[str | None, str]:
        """What `kind` ('answer', 'code' or 'json') copies, and a note saying what it was."""
        text = self.text
        if kind == "code":
            blocks = code_blocks(text)
            if not blocks:
                return None, "This answer has no code block."
            self._copied_code = (self._copied_code + 1) % len(blocks)
            which = f" {self._copied_code + 1} of {len(blocks)}" if len(blocks) > 1 else ""
            return blocks[self._copied_code], f"Code block{which} copied"
        if kind == "json":
            obj = json_object(text)
            return (obj, "JSON object copied") if obj else (None, "This answer has no JSON object.")
        if not text.strip():
            return None, "Nothing to copy yet."
        return text, "Answer copied"

    def on_focus(self) -> None:
        self._copied = None
        self.refresh_bindings()

    def on_click(self) -> None:
        self.on_focus()  # a click on the focused answer is as deliberate as the first

    def typing_elsewhere(self) -> None:
        """A letter typed here went to the prompt box: the copy keys rest until the answer
        is focused again (keys typed before the focus moves would otherwise still land
        here: `j` of "justify" copying JSON)."""
        self._copied = "typed"
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A copy key acts once per focus, `k` again for the next block: "can you justify"
        typed after copying is words, not a copy of the answer over the clipboard."""
        if action == "copy" and self._copied is not None:
            return self._copied == "code" and parameters == ("code",)
        return True

    def action_copy(self, kind: str) -> None:
        content, note = self.copyable(kind)
        if content is None:
            self.notify(note, severity="warning")
            return
        self.app.copy_to_clipboard(content)
        self.notify(note)
        self._copied = kind
        self.refresh_bindings()
