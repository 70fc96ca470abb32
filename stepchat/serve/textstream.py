"""Streaming a model's open-text reply so that what the client pieces together is the answer.

The engine serves a text reply as steps (paragraphs and list items, see `segment_text` and
`stitch_text`): lines lose trailing spaces, blank runs collapse, list items in consecutive
blocks join with one newline. A client that concatenates the streamed pieces must end with
exactly that text, the same one the cache stores and the next client receives. So pieces are
sent only once they can no longer change: the current block's text up to its last
non-blank character, and the separator before a block once both neighbours' kinds are
settled. The rest is sent when the answer is complete.
"""

from __future__ import annotations

import re

from stepchat.core.tasks.text_task import segment_text, stitch_text

_BLOCK_BREAK = re.compile(r"\n\s*\n")


def _settled(buffer: str) -> str:
    """The longest prefix of the final stitched text that more tokens cannot change."""
    breaks = list(_BLOCK_BREAK.finditer(buffer.lstrip()))
    text = buffer.lstrip()
    if not breaks:
        # One block so far: its lines join with "\n" whatever it turns out to be.
        return _block_text(text)
    done = text[: breaks[-1].start()]
    tail = text[breaks[-1].end():]
    steps = segment_text(done)
    settled = stitch_text(steps)
    tail_text = _block_text(tail)
    if not steps or not tail_text:
        return settled
    if steps[-1].kind != "item":
        # After a paragraph the next block always follows a blank line.
        return settled + "\n\n" + tail_text
    # After a list item the separator depends on whether the next block is a list too,
    # which is only certain once the block ends.
    return settled


def _block_text(block: str) -> str:
    """A block's text as stitched: non-blank lines, right-stripped, joined by newlines.

    The last line is cut at its last non-blank character; trailing blanks are kept only
    once more text follows them on the same line.
    """
    lines = [line.rstrip() for line in block.splitlines()]
    return "\n".join(line for line in lines if line)


class TextStreamer:
    """Feed model pieces, get the text that is safe to send; `finish` sends the rest."""

    def __init__(self) -> None:
        self._buffer = ""
        self.sent = ""

    def feed(self, piece: str) -> str:
        self._buffer += piece
        settled = _settled(self._buffer)
        if len(settled) > len(self.sent) and settled.startswith(self.sent):
            delta = settled[len(self.sent):]
            self.sent = settled
            return delta
        return ""

    def finish(self, final: str) -> str | None:
        """What is left of `final` to send, or None if what was sent is not its prefix."""
        if not final.startswith(self.sent):
            return None
        rest = final[len(self.sent):]
        self.sent = final
        return rest
