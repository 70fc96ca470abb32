"""Writing what a command prints, and what a failed write means.

A command's output is why it was run, so a write that fails (`> /dev/full`, a full disk
behind `> answer.txt`, a device error) must end the command with one line saying so, not
a traceback. Output to a file or a pipe is buffered, so the failure may come at any write
or only at the last flush: every write and that flush go through `writing`. The reader
going away (`| head -1`) is no failure and stays a BrokenPipeError, which the caller ends
quietly.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from stepchat.core.safetext import clean


class OutputError(Exception):
    """Standard output could not take what was written; the message is the reason."""


@contextlib.contextmanager
def writing() -> Iterator[None]:
    """Report an OSError raised while writing output as an OutputError."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc)) from None


def say(text: str = "") -> None:
    """A line (or lines) for a person on stdout, with no terminal controls in it."""
    with writing():
        print(clean(text))


def flush_stdout() -> None:
    """Push out what is buffered while a failure can still be reported in one line: the
    interpreter's own flush at exit reports it as an "Exception ignored" note and exits
    with status 120."""
    with writing():
        sys.stdout.flush()
