"""Markdown list markers: a sign or a bullet, and which one is not written.

Chat models write solutions as lists. `- 12 * 24 = 288` renders as a bullet before
`12 * 24 = 288`, while `- 4 + 20 = 16` was written by whoever meant minus four; inside
fenced or indented code markdown prints the `-` as it is. Three hostile
reviews of a reading that took such a `-` for a bullet where markdown would (CommonMark's
fences, indentation, nested lists) each found it storing or serving wrong answers, since
the answer is split into stripped lines before it is read, and since a bullet is as
often a sign to its writer. So a `-`, `*` or `+` with a space or tab after it, opening a
line after at most three spaces or after other markers (`- - 5`, `1. - 5`), is a marker
here, and a computation that starts right after one is not read at all: the answer is
shown and not stored. Found too often is safe (a computation left unread); a marker
found too rarely is read as a sign, as before this rule.
"""

from __future__ import annotations

import re

MARKERS = frozenset("-*+")
_PREFIX = re.compile(r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)*")
"""What may stand before a marker on its line: indentation, then other markers."""
MAX_PREFIX = 40
"""Characters scanned back from a marker for the start of its line (the scan stays
linear): past them it is read as a sign, as before this rule."""


def is_marker_at(text: str, i: int) -> bool:
    """Whether the `-`, `*` or `+` at `i` may be a list marker."""
    if text[i] not in MARKERS or text[i + 1:i + 2] not in (" ", "\t"):
        return False
    start = i
    while start > 0 and i - start <= MAX_PREFIX and text[start - 1] not in "\r\n":
        start -= 1
    if start > 0 and text[start - 1] not in "\r\n":
        return False
    return _PREFIX.fullmatch(text, start, i) is not None
