"""A request's `max_tokens` and `stop`: what of the answer is returned, and why it ends.

The engine makes (or reuses) the whole answer and stores it as it would without them; a
request's limits apply only to what this request gets back, the same way to a cache hit
and a fresh answer, streamed or whole:

- `stop`: the text ends where the first stop sequence to be completed, reading from the
  start, begins (as a model stops on the token that completes it); finish_reason "stop";
- `max_tokens`: a text that costs more tokens under the model's tokenizer
  (`Backend.count_tokens`, as the engine counts everywhere) is cut to the longest prefix
  that costs at most that many, without the blanks it ends on; finish_reason "length".

A stream sends only what the final text is sure to start with: no text that could be the
beginning of a stop sequence, and nothing more once the token limit is reached (the rest
of the cut text follows when the answer is complete). Cutting assumes a longer prefix never
costs fewer tokens, which holds for the word count, the character estimate and, but for
rare merges at the cut, a model's tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

Counter = Callable[[str], int]


@dataclass(frozen=True)
class Limited:
    """What a request gets back of an answer."""

    text: str
    finish_reason: str | None
    cut: str | None = None
    """"stop" or "max_tokens" when the answer's text was cut, else None."""


def stop_at(text: str, stops: Sequence[str]) -> int | None:
    """Where the text before the first completed stop sequence ends, or None."""
    best: tuple[int, int] | None = None
    for stop in stops:
        start = text.find(stop)
        if start >= 0:
            key = (start + len(stop), start)
            best = key if best is None or key < best else best
    return None if best is None else best[1]


def _held(text: str, stops: Sequence[str]) -> int:
    """How many characters at the end of `text` could begin a stop sequence."""
    longest = 0
    for stop in stops:
        for size in range(min(len(stop) - 1, len(text)), longest, -1):
            if stop.startswith(text[len(text) - size:]):
                longest = size
                break
    return longest


def fit_tokens(text: str, limit: int, count: Counter) -> int:
    """The length of the longest prefix of `text` that costs at most `limit` tokens."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count(text[:middle]) <= limit:
            low = middle
        else:
            high = middle - 1
    return low


@dataclass(frozen=True)
class ReplyLimits:
    """A request's `max_tokens` (None: no limit) and stop sequences."""

    max_tokens: int | None = None
    stops: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return self.max_tokens is not None or bool(self.stops)

    def apply(self, text: str, finish_reason: str | None, count: Counter) -> Limited:
        """The answer's text as this request gets it."""
        cut = None
        stopped = stop_at(text, self.stops)
        if stopped is not None:
            text, finish_reason, cut = text[:stopped], "stop", "stop"
        if self.max_tokens is not None and count(text) > self.max_tokens:
            text = text[: fit_tokens(text, self.max_tokens, count)].rstrip()
            finish_reason, cut = "length", "max_tokens"
        return Limited(text, finish_reason, cut)

    def sendable(self, settled: str, count: Counter) -> str | None:
        """The longest prefix of `settled` (a prefix of the answer's text) that the text
        this request gets is sure to start with; None once `settled` is over the token
        limit (the cut is made when the answer is complete)."""
        stopped = stop_at(settled, self.stops)
        if stopped is not None:
            settled = settled[:stopped]
        else:
            settled = settled[: len(settled) - _held(settled, self.stops)]
        if self.max_tokens is None:
            return settled
        # A cut text loses the blanks it ends on: blanks are sent once text follows them.
        settled = settled.rstrip()
        return None if count(settled) > self.max_tokens else settled


class LimitedSender:
    """The pieces of a streamed answer a request with limits may be sent, in order."""

    def __init__(self, limits: ReplyLimits, count: Counter) -> None:
        self.limits = limits
        self.count = count
        self.sent = ""
        self._full = False

    def offer(self, settled: str) -> str:
        """What to send now, given the answer's settled text so far."""
        if self._full:
            return ""
        sendable = self.limits.sendable(settled, self.count)
        if sendable is None:
            self._full = True
            return ""
        if len(sendable) <= len(self.sent) or not sendable.startswith(self.sent):
            return ""
        delta = sendable[len(self.sent):]
        self.sent = sendable
        return delta

    def finish(self, final: str) -> str | None:
        """What is left of `final` (the text the request gets) to send, or None if what
        was sent is not its prefix."""
        if not final.startswith(self.sent):
            return None
        rest = final[len(self.sent):]
        self.sent = final
        return rest
