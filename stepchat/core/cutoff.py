"""Answers cut off at the token limit: never stored, and old ones never served.

A reply the model did not finish reads like a finished one ("…3. Fuel Delivery"), so the
engine keeps what the backend says: a completion whose `finish_reason` is "length" makes the
answer cut off, and a cut-off answer is not cached.

Entries written before finish reasons were kept carry no mark, and some of them are cut off.
Their stored token count tells: a reply cut at the limit is stored at the limit's length,
less a few tokens that trimming and re-tokenising the stitched text lose (6 at most in probes
with the bundled model at limits of 32 to 256). An unmarked entry at least as long as the
model's limit now less `margin(limit)`, or within that margin of the shipped default limit,
is not served: a complete answer of that length is refused too, once, and its fresh answer
is stored with the mark.
Entries written since carry `COMPLETE_KEY` beside their constraints and are served whatever
their length, since only finished answers are written now.
"""

from __future__ import annotations

from typing import Any

from stepchat.core.settings import DEFAULT_SETTINGS
from stepchat.core.types import CacheEntry

COMPLETE_KEY = "_finished"
"""Set on the constraints of every entry written since cut-off answers stopped being stored;
the engine's own mark, removed before a task handler reads the constraints."""


NOTE_START = "cut off"
"""How the note on a cut-off answer begins, for front ends that show it apart."""


def cut_off_note(limit: int, context: int | None = None) -> str:
    """What the answer says when the token limit cut it, or the model's context (`context`
    tokens, the prompt's and the reply's) filled before the limit was reached: a long
    prompt leaves a reply less room than the limit says."""
    if context is not None:
        return f"{NOTE_START} where the model's context filled ({context} tokens); not cached"
    return f"{NOTE_START} at the token limit ({limit} tokens); not cached"


UNFINISHED = "unfinished"
"""The finish reason of a reply whose server gave none: nothing shows it was finished."""


def unfinished_note(reason: str) -> str:
    """What the answer says when the model stopped other than at its end or the limit (a
    server's content filter): the text may stop mid-sentence, as a cut-off one does."""
    why = "no finish reason given" if reason == UNFINISHED else f"finish reason {reason!r}"
    return f"the model stopped before its reply's end ({why}); not cached"


def marked_complete(constraints: dict[str, Any]) -> dict[str, Any]:
    """The constraints an entry is written with: the handler's, and the engine's mark."""
    return {**constraints, COMPLETE_KEY: True}


def handler_constraints(entry: CacheEntry) -> dict[str, Any]:
    """An entry's constraints as its task handler wrote them."""
    return {k: v for k, v in entry.constraints.items() if k != COMPLETE_KEY}


def margin(limit: int) -> int:
    """How far below a limit an unmarked entry may end and still be taken as cut there."""
    return max(16, limit // 16)


def cut_off_reason(entry: CacheEntry, limit: int) -> str | None:
    """Why an entry may hold a cut-off answer (then it is not served), or None.

    `limit` is the model's token limit now; the shipped default is checked too, since most
    entries written before the mark were written under it.
    """
    if entry.constraints.get(COMPLETE_KEY) is True:
        return None
    shipped = DEFAULT_SETTINGS.max_tokens
    if entry.tokens >= limit - margin(limit) or (
        shipped - margin(shipped) <= entry.tokens <= shipped
    ):
        return f"the cached answer may be cut off at the token limit ({entry.tokens} tokens)"
    return None
