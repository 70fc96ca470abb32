"""Turn any exception from the core or an adapter into one line for the user.

The app never shows a traceback: expected failures (ConfigError, BackendError, StoreError,
PromptError, HistoryError) already carry a one-line message written for the user; anything
else is named by its type so a bug report can still say what happened.
"""

from __future__ import annotations

from stepchat.config import ConfigError
from stepchat.core.ports import BackendError, StoreError
from stepchat.core.prompt import PromptError
from stepchat.tui.history import HistoryError

EXPECTED: tuple[type[BaseException], ...] = (
    ConfigError,
    BackendError,
    StoreError,
    PromptError,
    HistoryError,
)

MAX_CHARS = 300


def describe(exc: BaseException) -> str:
    """One line, at most MAX_CHARS, saying what failed."""
    text = " ".join(str(exc).split())
    if isinstance(exc, NotImplementedError):
        text = f"not implemented yet{': ' + text if text else ''}"
    elif isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}{': ' + str(exc.filename) if exc.filename else ''}"
    elif not isinstance(exc, EXPECTED):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    text = text or type(exc).__name__
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"
