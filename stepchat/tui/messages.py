"""Messages the workers post to the app, and the screens' widgets post up to it.

Workers run on threads and never touch widgets: they call one core function and report
what happened with one of these. Each is a small dataclass; `request` ties pipeline
messages to the prompt that caused them, so late events of a cancelled or superseded
request are dropped instead of painting into the wrong answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from stepchat.core.events import PipelineEvent
from stepchat.core.listing import EntrySummary
from stepchat.core.types import Answer, CacheEntry
from stepchat.runtime import Parts


@dataclass
class PromptSubmitted(Message):
    """The user pressed Enter in the prompt box with this text."""

    text: str


@dataclass
class PartsLoaded(Message):
    """The cache is open, so cached answers can be served; the model and the embedder may
    still be loading (see `ModelLoaded`). `entries` is the store's row count."""

    parts: Parts
    model_id: str
    entries: int


@dataclass
class ModelLoaded(Message):
    """The model and the embedder of `parts` finished loading: every request can be served."""

    parts: Parts
    model_id: str


@dataclass
class PartsFailed(Message):
    """Loading failed (missing model, unwritable cache, ...); `error` is one line."""

    model_id: str
    error: str


@dataclass
class PipelineUpdate(Message):
    """The pipeline emitted an event (route, token, settled step) while serving `request`."""

    request: int
    event: PipelineEvent


@dataclass
class HistoryTrimmed(Message):
    """`dropped` earlier exchanges did not fit the model's context and were not sent."""

    request: int
    dropped: int


@dataclass
class AnswerReady(Message):
    """`request` was served: its answer and the store's new row count."""

    request: int
    answer: Answer
    entries: int


@dataclass
class ModelNeeded(Message):
    """The cache lane could not answer `request` without the model: it waits its turn."""

    request: int


@dataclass
class AnswerFailed(Message):
    """`request` ended without an answer: cancelled by the user, or an error to show."""

    request: int
    error: str | None
    cancelled: bool = False


@dataclass
class EntriesLoaded(Message):
    """A page of the inspector's listing, most recently hit first: rows from `offset` of
    the entries matching `needle`, of which there are `matched`; `total` entries in all."""

    entries: list[EntrySummary]
    total: int
    matched: int
    offset: int = 0
    needle: str = ""


@dataclass
class EntryRead(Message):
    """One entry read whole for the inspector's detail pane (None: it left the cache)."""

    entry_id: str
    entry: CacheEntry | None


@dataclass
class CacheChanged(Message):
    """Entries were evicted; `note` says what happened, `entries` is the new count."""

    note: str
    entries: int


@dataclass
class CacheOpFailed(Message):
    """A store operation of the inspector failed; `error` is one line."""

    error: str
