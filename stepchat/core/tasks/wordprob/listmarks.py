"""Markdown list markers and fenced code, as a reader of the rendered text sees them.

Chat models write solutions as lists: `- 12 * 24 = 288` renders as a bullet before
`12 * 24 = 288`, so the `-` is no minus. A marker is `-`, `*` or `+` with a space or tab
after it, opening a line after at most three spaces (four indent code) or after other
markers of the same line (`- - 5`, `1. - 5`: a list in a list). Inside fenced code
(CommonMark's fences: three or more backticks or tildes, closed by a line of the same
character, at least as many, and nothing else; a backtick fence's info string has no
backtick) markdown prints `- 5` as it is, a minus.

A marker stays a mark of its own character (`marker`): in a request, `+ $40` and `- $40`
on lines of their own are a deposit and a withdrawal, so two requests that differ there
differ as words do. A line that opens with `- 4` may still mean minus four to whoever
wrote it: nothing is corrected right after a marker (`recompute`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MARKERS = frozenset("-*+")
Fence = tuple[str, int]
"""An open fence: its character and how many of it."""

_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.M)
_PREFIX = re.compile(r" {0,3}(?:(?:[-*+]|\d{1,9}[.)])[ \t]{1,4})*")
"""What may stand before a marker on its line: indentation, then other markers."""
MAX_PREFIX = 40
"""Characters before a marker past which it is not read as one (the scan stays linear)."""


def is_marker_at(text: str, i: int, code: Sequence[tuple[int, int]]) -> bool:
    """Whether the `-`, `*` or `+` at `i` is a list marker (`code`: the spans of fenced
    code, where none is)."""
    if text[i] not in MARKERS or text[i + 1:i + 2] not in (" ", "\t"):
        return False
    start = i
    while start > 0 and i - start <= MAX_PREFIX and text[start - 1] not in "\r\n":
        start -= 1
    if start > 0 and text[start - 1] not in "\r\n":
        return False
    if _PREFIX.fullmatch(text, start, i) is None:
        return False
    return not any(begin <= i < end for begin, end in code)


def code_spans(text: str, fence: Fence | None = None) -> tuple[list[tuple[int, int]], Fence | None]:
    """The spans of `text` inside fenced code, `fence` being open where it starts, and the
    fence still open where it ends."""
    if fence is None and "```" not in text and "~~~" not in text:
        return [], None
    spans: list[tuple[int, int]] = []
    start = 0
    for line in _FENCE_LINE.finditer(text):
        run, rest = line.group(1), line.group(2)
        if fence is None:
            if run[0] == "`" and "`" in rest:
                continue  # no fence: a backtick fence's info string has none
            fence, start = (run[0], len(run)), line.start()
        elif run[0] == fence[0] and len(run) >= fence[1] and not rest.strip():
            spans.append((start, line.end()))
            fence = None
    if fence is not None:
        spans.append((start, len(text)))
    return spans, fence
