"""What `stepchat ask` shows while it answers: open text as the model writes it.

On a terminal a miss should not be twelve silent seconds followed by a paragraph, so open
text is printed as it streams, through the same `TextStreamer` the server uses: a piece is
shown only once more tokens cannot change it, so what is on screen at the end is exactly
the answer (the one stored and served next time). Equations and JSON objects are printed
once they are checked, as a stream never shows a step that failed verification. Pipes and
`--json` get the whole output at the end (the caller does not use this then).
"""

from __future__ import annotations

from typing import TextIO

from stepchat.core.events import PipelineEvent, RouteEvent, TokenEvent
from stepchat.core.safetext import clean
from stepchat.output import writing
from stepchat.serve.textstream import TextStreamer


class LivePrinter:
    """Feed it the engine's events; `finish` prints what the stream has not shown yet."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._streamer = TextStreamer()
        self._streams = False
        self._shown = ""
        """The last piece written (only its end matters)."""

    def on_event(self, event: PipelineEvent) -> None:
        if isinstance(event, RouteEvent):
            self._streams = event.delivery.streams
        elif isinstance(event, TokenEvent) and self._streams:
            piece = self._streamer.feed(event.text)
            if piece:
                self._write(piece)

    def finish(self, text: str) -> None:
        """Print the rest of `text` and end the line. Should the stream ever differ from
        the answer, the answer follows on a line of its own, whole."""
        rest = self._streamer.finish(text)
        self._write(("\n" + text if rest is None else rest) + "\n")

    def cut_off(self) -> None:
        """The answer failed after some of it was shown (the model process died): end the
        line, so the error that follows on stderr is a line of its own, not the tail of the
        half-written answer."""
        if self._shown and not self._shown.endswith("\n"):
            self._write("\n")

    def _write(self, piece: str) -> None:
        text = clean(piece)
        with writing():
            self._out.write(text)
            self._out.flush()
        if text:
            self._shown = text
