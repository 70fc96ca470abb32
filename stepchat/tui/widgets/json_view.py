"""A JSON answer shown as one highlighted object, each member's status beside it.

The cache keeps a JSON answer as one step per member, and showing those bare member lines
('"name": "Ana"') left nothing that pastes as JSON. Here the object reads as written, braces
and commas included, with each member row carrying its badge (reused, patched, new, solver)
and, where the record has it, the member's check (stated in the prompt, or open). Badges
and checks cannot be selected, so a mouse drag over the object copies valid JSON.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from stepchat.core.types import AnswerStep, StepCheck
from stepchat.tui.sanitize import clean
from stepchat.tui.widgets.badges import Badge, badge_for

CHECK_MARKS: dict[str, str] = {
    StepCheck.STATED: "✓",
    StepCheck.OPEN: "○",
    StepCheck.TYPED: "?",
    StepCheck.UNCHECKED: "?",
}
"""How a member's check shows beside it (its tooltip names the check): ✓ the prompt states the
value, ○ the prompt leaves it to the model, ? nothing confirms it (at most its type)."""


def check_mark(check: str | None) -> str:
    if not check:
        return ""
    return CHECK_MARKS.get(check, "?")


def json_syntax(text: str) -> Syntax:
    return Syntax(clean(text), "json", background_color="default", word_wrap=True)


class JsonRow(Horizontal):
    """One line of the object: a gutter (badge and check, or blank for a brace) and code."""

    def __init__(
        self, text: str, step: AnswerStep | None = None, check: str | None = None
    ) -> None:
        status = f" -{step.status.value}" if step is not None else " -brace"
        super().__init__(classes=f"json-row{status}")
        self.text = text
        self.step = step
        self.check = check

    def compose(self) -> ComposeResult:
        if self.step is not None:
            yield badge_for(self.step.status)
        else:
            yield Badge(Text(""), classes="badge")
        mark = Badge(Text(check_mark(self.check)), classes="check")
        if self.check:
            mark.tooltip = f"{self.step.key if self.step else 'member'}: {self.check}"
        yield mark
        yield Static(json_syntax(self.text), classes="body", markup=False)


class JsonObjectView(Vertical):
    """Members in order between braces, each with a trailing comma but the last."""

    def __init__(self, steps: Sequence[AnswerStep], checks: Sequence[str | None] = ()) -> None:
        super().__init__(classes="json-object")
        self.members = list(steps)
        self.checks = list(checks) + [None] * (len(steps) - len(checks))

    def compose(self) -> ComposeResult:
        yield JsonRow("{")
        last = len(self.members) - 1
        for i, (step, check) in enumerate(zip(self.members, self.checks, strict=True)):
            yield JsonRow(f"  {step.text}{',' if i < last else ''}", step, check)
        yield JsonRow("}")
