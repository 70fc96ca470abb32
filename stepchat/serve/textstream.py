"""Streaming a model's open-text reply so that what the client pieces together is the answer.

The engine serves a text reply as steps (`segment_text`, `stitch_text`): a fenced code block
is one step kept as written, blank lines and all; the prose around it splits into paragraphs
and list items whose lines lose trailing spaces and whose blank runs collapse; list items in
consecutive blocks join with one newline, any other two steps with a blank line. A client
that concatenates the streamed pieces must end with exactly that text, the same one the
cache stores and the next client receives, however the model's tokens cut the reply.

So the streamer sends the stitched text of what is already certain and nothing more:

- only whole lines decide where code starts and ends; the line still being written counts
  once it can no longer open a fence (a prose line) or once it has (its fence is certain);
  inside code it counts as code, whatever it turns out to be;
- the text of the last block grows only at its end, but its kind (a list or a paragraph)
  is known only once it ends, so after a list item the separator before it waits;
- trailing blanks wait until text follows them (the answer is stripped at its end).
"""

from __future__ import annotations

from stepchat.core.tasks.text_task import fence_after, segment_text, stitch_text

_FENCE_CHARS = frozenset("`~")


def _stitched(lines: list[str]) -> str:
    return stitch_text(segment_text("\n".join(lines)))


def _may_open_fence(line: str) -> bool:
    """Whether more characters could still make this unfinished prose line a fence."""
    start = line.lstrip()
    return not start or (len(start) < 3 and len(set(start)) == 1 and start[0] in _FENCE_CHARS)


def settled_text(buffer: str) -> str:
    """The longest prefix of the final stitched text that more tokens cannot change."""
    lines = buffer.lstrip().splitlines(keepends=True)
    partial = ""
    if lines and lines[-1].splitlines() == [lines[-1]]:
        partial = lines.pop()  # no line break yet: the model is still writing it
    complete = [line.splitlines()[0] for line in lines]
    prose: list[bool] = []  # per complete line: outside code (not a fence line either)
    fence = ""
    for line in complete:
        after = fence_after(line, fence)
        prose.append(not fence and not after)
        fence = after
    if fence or fence_after(partial):
        # In code, or the unfinished line opens it: the code so far is kept as written, and
        # every block before it has ended.
        return _stitched([*complete, partial])
    known = complete
    if partial.strip() and not _may_open_fence(partial):
        known = [*complete, partial]
        prose.append(True)
    start = len(known)
    while start > 0 and prose[start - 1] and known[start - 1].strip():
        start -= 1
    if start == len(known):
        # The last block has ended (a blank line or a closing fence follows it).
        return _stitched(known)
    head = segment_text("\n".join(known[:start]))
    if head and head[-1].kind == "item":
        # After a list item the separator depends on whether the unfinished block is a
        # list too, which is only certain once it ends.
        return stitch_text(head)
    return _stitched(known)


class TextStreamer:
    """Feed model pieces, get the text that is safe to send; `finish` sends the rest."""

    def __init__(self) -> None:
        self._buffer = ""
        self.sent = ""

    def feed(self, piece: str) -> str:
        self._buffer += piece
        settled = settled_text(self._buffer)
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
