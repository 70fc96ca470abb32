"""The transcript's building blocks: a user turn, an answer, and the step blocks inside it.

An answer is a column of steps, each coloured by where it came from (reused, patched,
regenerated, solver fallback) with a left border and a badge, so the cache's work is
visible at a glance. Steps settle one by one from pipeline events; tokens of a step the
model is still writing stream into a live block below them. Everything shown from the
model or the cache passes through `sanitize.clean` and is rendered without markup.
"""

from __future__ import annotations

from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Label, Markdown, Static

from stepchat.core.events import (
    DoneEvent,
    PipelineEvent,
    RouteEvent,
    StageEvent,
    StepEvent,
    TokenEvent,
)
from stepchat.core.types import AnswerStep, CachePath, StepStatus
from stepchat.tui.sanitize import clean, plain
from stepchat.tui.stats import format_ms

BADGES: dict[StepStatus, str] = {
    StepStatus.REUSED: "✓ reused",
    StepStatus.PATCHED: "✎ patched",
    StepStatus.REGENERATED: "✚ new",
    StepStatus.FALLBACK: "∑ solver",
}

PATH_LABELS: dict[str, str] = {
    CachePath.REUSE_ONLY: "served from the cache",
    CachePath.PATCHED: "from the cache, patched",
    CachePath.SKIP_REUSE: "cache skipped",
    CachePath.MISS: "not in the cache",
    CachePath.SOLVER: "written by the solver",
}

PLAIN_KINDS = frozenset({"equation", "final", "prose", "member"})
"""Shown literally: in equations `*` and `_` are algebra, not Markdown emphasis, and a JSON
member ('"age": 40') is clearer bare than in a padded code block."""


def step_from_record(data: dict[str, Any]) -> AnswerStep:
    """An AnswerStep from a record's step dict; unknown statuses show as regenerated."""
    try:
        status = StepStatus(str(data.get("status")))
    except ValueError:
        status = StepStatus.REGENERATED
    return AnswerStep(
        text=str(data.get("text", "")),
        kind=str(data.get("kind", "paragraph")),
        status=status,
        key=data.get("key"),
    )


def step_body(step: AnswerStep) -> Widget:
    """Equations and JSON members literally, whole JSON highlighted, prose as Markdown."""
    text = clean(step.text)
    if step.kind in PLAIN_KINDS:
        return Static(Text(text), classes="body", markup=False)
    if text.lstrip().startswith(("{", "[")):
        syntax = Syntax(text, "json", background_color="default", word_wrap=True)
        return Static(syntax, classes="body", markup=False)
    return Markdown(text, classes="body", open_links=False)


class StepBlock(Horizontal):
    """One step of an answer: a coloured badge beside its text."""

    def __init__(self, step: AnswerStep, index: int = 0) -> None:
        super().__init__(classes=f"step -{step.status.value}")
        self.step = step
        self.index = index

    def compose(self) -> ComposeResult:
        yield Label(Text(BADGES[self.step.status]), classes="badge", markup=False)
        yield step_body(self.step)


class UserTurn(Static):
    """What the user asked, shown literally."""

    def __init__(self, prompt: str) -> None:
        super().__init__(plain(prompt), classes="user-turn", markup=False)
        self.prompt = prompt


def _summary(record: dict[str, Any]) -> Text:
    tokens = record.get("tokens", {})
    generated = int(tokens.get("generated", 0))
    saved = int(tokens.get("saved", 0))
    total_ms = float(record.get("timings_ms", {}).get("total", 0.0))
    full = generated + saved
    line = f"{record.get('path', '?')} · {format_ms(total_ms)} · {generated} of {full} tokens"
    if saved:
        line += f" · {saved} saved"
    return Text(line)


class AnswerView(Vertical):
    """One answer, live or restored: route, settled steps, streaming text, summary.

    Drive it with `apply(event)` while the pipeline runs and `finish(record)` at the end;
    `finish` redraws from the record, which is the authority on the final steps.
    """

    def __init__(self, record: dict[str, Any] | None = None) -> None:
        super().__init__(classes="answer")
        self.record = record
        self.status_text = "" if record else "waiting…"
        self.path: str | None = None
        self.skip_reason: str | None = None
        self.steps: dict[int, AnswerStep] = {}
        self.error: str | None = None
        self.cancelled = False
        self._stream = ""
        self._stream_status = StepStatus.REGENERATED
        if record is not None:
            self._load_record(record)

    def compose(self) -> ComposeResult:
        yield Static(self._route_text(), classes="route", markup=False)
        if self.skip_reason:
            yield Static(plain(f"skip-reuse: {self.skip_reason}"), classes="skip", markup=False)
        with Vertical(classes="steps"):
            for index in sorted(self.steps):
                yield StepBlock(self.steps[index], index)
        stream = Static(plain(self._stream), classes="stream", markup=False)
        stream.display = bool(self._stream) and self.record is None
        stream.set_class(True, f"-{self._stream_status.value}")
        yield stream
        if self.record is not None:
            yield Static(_summary(self.record), classes="summary", markup=False)
        if self.error:
            yield Static(plain(f"⚠ {self.error}"), classes="error", markup=False)
        if self.cancelled:
            yield Static(Text("cancelled"), classes="cancelled", markup=False)

    def _load_record(self, record: dict[str, Any]) -> None:
        self.record = record
        self.path = str(record.get("path"))
        self.skip_reason = record.get("skip_reason")
        self.steps = {i: step_from_record(s) for i, s in enumerate(record.get("steps", []))}
        self.status_text = ""
        self._stream = ""

    def _route_text(self) -> Text:
        """The path once known, followed by the running stage until the answer is in."""
        if self.path is None:
            return Text(self.status_text or "…")
        text = PATH_LABELS.get(self.path, self.path)
        if self.record is None and self.status_text:
            text += f" · {self.status_text}"
        return Text(text)

    def _set_route(self) -> None:
        route = self.query(".route").first(Static)
        route.update(self._route_text())

    def apply(self, event: PipelineEvent) -> None:
        """Paint one pipeline event; DoneEvent is left to `finish`, which gets the record."""
        if isinstance(event, StageEvent):
            self.status_text = f"{event.stage}…"
            self._set_route()
        elif isinstance(event, RouteEvent):
            self.path = str(event.path)
            self.status_text = ""
            self._set_route()
            if event.skip_reason and event.skip_reason != self.skip_reason:
                self.skip_reason = event.skip_reason
                self.mount(
                    Static(plain(f"skip-reuse: {event.skip_reason}"), classes="skip", markup=False),
                    after=self.query(".route").first(),
                )
        elif isinstance(event, TokenEvent):
            self._append_stream(event.text, event.status)
        elif isinstance(event, StepEvent):
            self._settle(event.index, event.step)
        elif isinstance(event, DoneEvent):
            pass

    def _append_stream(self, text: str, status: StepStatus) -> None:
        stream = self.query(".stream").first(Static)
        if status != self._stream_status:
            stream.set_class(False, f"-{self._stream_status.value}")
            stream.set_class(True, f"-{status.value}")
            self._stream_status = status
        self._stream += text
        stream.update(plain(self._stream))
        stream.display = True

    def _settle(self, index: int, step: AnswerStep) -> None:
        container = self.query_one(".steps", Vertical)
        self.steps[index] = step
        for block in container.query(StepBlock):
            if block.index == index:
                block.remove()
        later = [b for b in container.query(StepBlock) if b.index > index]
        block = StepBlock(step, index)
        if later:
            container.mount(block, before=min(later, key=lambda b: b.index))
        else:
            container.mount(block)
        if step.status != StepStatus.REUSED and self._stream:
            self._stream = ""
            stream = self.query(".stream").first(Static)
            stream.update("")
            stream.display = False

    async def finish(self, record: dict[str, Any]) -> None:
        """Show the served answer exactly as the record tells it."""
        self._load_record(record)
        await self.recompose()

    async def fail(self, error: str | None, cancelled: bool = False) -> None:
        """End without an answer: keep what settled, say why."""
        self.error = error
        self.cancelled = cancelled
        self._stream = ""
        # The line below the steps says what happened; the route line need not repeat it.
        self.status_text = "" if self.path else "not answered"
        await self.recompose()

    def set_status(self, text: str) -> None:
        """A note shown until the route is known, e.g. while the model loads."""
        self.status_text = text
        if self.is_mounted:
            self._set_route()
