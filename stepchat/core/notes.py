"""Notes an answer carries about why it was not stored, where nothing else says: an answer
shown without a line about it reads as cached. Front ends show them on a line of their
own; they are how the answer was kept, not a problem to raise."""

from __future__ import annotations

NOT_CHECKED_NOTE = "not cached: it did not pass its checks"
"""A JSON member the prompt does not confirm, a word problem's computation that does not
hold or cannot be read."""

SLIP_NOTE_START = "not cached: a computation does not hold"
"""Opens the note that names a word problem's computation that does not hold (`slips.py`):
the same refusal as `NOT_CHECKED_NOTE`, with the line and its numbers."""

EMPTY_NOTE = "not cached: the answer is empty"
