"""What markdown emphasis and LaTeX print, for the tokenizer of word-problem text.

Chat models typeset solutions: `3 × 4 = **12**`, `\\(3 \\times 4 = 12\\)`, `\\boxed{17}`.
The reader takes such markup as what a reader of the rendered text sees: emphasis and math
delimiters print nothing, `\\times` prints a times sign. It takes markup away only where
what is left reads as the rendered text does: markup between two digits (`**1**5`,
`1\\,500`), `**` that neither opens nor closes a span (`2 ** 4`, `3**(2)`) and a brace no
group command opened stay marks, which leave the computation around them unread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SignKind = Literal["op", "rel", "mark"]

SIGNS: dict[str, tuple[SignKind, str]] = {
    "\\times": ("op", "*"), "\\cdot": ("op", "*"), "\\div": ("op", "/"),
    "\\leq": ("rel", "<="), "\\geq": ("rel", ">="), "\\le": ("rel", "<="),
    "\\ge": ("rel", ">="), "\\neq": ("rel", "!="), "\\lt": ("rel", "<"), "\\gt": ("rel", ">"),
}
"""LaTeX's operators and relations, read as the signs they print."""
DELIMITERS = ("\\(", "\\)", "\\[", "\\]", "\\,", "\\;", "\\!", "\\ ")
"""Math-mode delimiters and spacing: they print nothing."""
GROUPS = ("\\boxed{", "\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{")
"""Commands that print their group as it is: the command and the group's braces print
nothing, what is inside is read as written."""
ESCAPED = "$%"
"""`\\$`, `\\%`: the sign itself."""
EMPHASIS = "**"
OPENS_AFTER = "([{\"'“‘«"
"""What may stand before emphasis that opens a span, besides a space or the start."""
CLOSES_BEFORE = ".,;:!?)]}\"'”’»"
"""What may follow emphasis that closes a span, besides a space or the end."""


@dataclass
class Markup:
    """Markup read left to right through one text: LaTeX groups stay open until their
    brace closes, so each `}` is matched with the `{` it closes."""

    text: str
    braces: list[bool] = field(default_factory=list)
    """Each open brace: True where a group command opened it (its `}` prints nothing)."""

    def at(self, i: int) -> tuple[int, tuple[SignKind, str] | None]:
        """(characters of markup at `i`, the sign or mark they print or None where they
        print nothing); (0, None) where no such markup starts."""
        text = self.text
        char = text[i]
        if char == "{":
            self.braces.append(False)
            return 0, None
        if char == "}":
            return (1, None) if self.braces and self.braces.pop() else (0, None)
        if text.startswith(EMPHASIS, i):
            return (len(EMPHASIS), None) if self._emphasis(i) else (0, None)
        if char != "\\":
            return 0, None
        if i + 1 < len(text) and text[i + 1] in ESCAPED:
            return 1, None
        for delimiter in DELIMITERS:
            if text.startswith(delimiter, i):
                return (0, None) if self._between_digits(i, len(delimiter)) else (
                    len(delimiter), None)
        for group in GROUPS:
            if text.startswith(group, i):
                self.braces.append(True)
                return len(group), None
        for command, sign in SIGNS.items():
            end = i + len(command)
            if text.startswith(command, i) and not (end < len(text) and text[end].isalpha()):
                return len(command), sign
        end = i + 1
        while end < len(text) and text[end].isalpha():
            end += 1
        # Any other command (`\\colon`, `\\sqrt`, `\\frac`) prints something this reader
        # does not read: one mark, never a word that a number would take as its unit.
        return (end - i, ("mark", text[i:end])) if end > i + 1 else (0, None)

    def _emphasis(self, i: int) -> bool:
        """`**` that opens a span (after a space, the start or an opening bracket or quote,
        before a printed character) or closes one (the other way round)."""
        before = self.text[i - 1] if i else " "
        end = i + len(EMPHASIS)
        after = self.text[end] if end < len(self.text) else " "
        opens = (before.isspace() or before in OPENS_AFTER) and not after.isspace()
        closes = (after.isspace() or after in CLOSES_BEFORE) and not before.isspace()
        return (opens or closes) and not self._between_digits(i, len(EMPHASIS))

    def _between_digits(self, i: int, width: int) -> bool:
        end = i + width
        return i > 0 and end < len(self.text) and self.text[i - 1].isdigit() and (
            self.text[end].isdigit())
