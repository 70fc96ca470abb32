"""The step badges: where each step of an answer came from, in the product's colours.

A badge is a label beside the text, not part of it: it cannot be selected, so a mouse drag
across an answer copies the answer and not '✚ new' between its paragraphs.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Label

from stepchat.core.types import StepStatus

BADGES: dict[StepStatus, str] = {
    StepStatus.REUSED: "✓ reused",
    StepStatus.PATCHED: "✎ patched",
    StepStatus.REGENERATED: "✚ new",
    StepStatus.FALLBACK: "∑ solver",
    StepStatus.RECOMPUTED: "↻ recalc",
}


class Badge(Label):
    """A label a text selection skips."""

    ALLOW_SELECT = False

    def __init__(self, text: Text, *, classes: str = "badge") -> None:
        super().__init__(text, classes=classes, markup=False)


def badge_for(status: StepStatus) -> Badge:
    return Badge(Text(BADGES[status]))
