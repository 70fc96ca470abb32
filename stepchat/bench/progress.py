"""A one-line text progress bar on stderr, without a dependency.

On a terminal it redraws in place; when stderr is a file or a pipe it prints a line at
every tenth of the way, so logs stay readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    def __init__(self, total: int, *, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.started = time.monotonic()
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_tenth = -1

    def advance(self, label: str = "") -> None:
        self.done = min(self.done + 1, self.total)
        self.draw(label)

    def draw(self, label: str = "") -> None:
        fraction = self.done / self.total
        filled = int(fraction * self.width)
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        line = (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} "
            f"{elapsed:5.0f}s elapsed, ~{eta:4.0f}s left  {label}"
        )
        if self._tty:
            self.stream.write("\r" + line[:118].ljust(118))
            if self.done == self.total:
                self.stream.write("\n")
        else:
            tenth = int(fraction * 10)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(line + "\n")
        self.stream.flush()


class NoProgress(ProgressBar):
    """A progress bar that draws nothing (tests, `--quiet`)."""

    def draw(self, label: str = "") -> None:
        return None
