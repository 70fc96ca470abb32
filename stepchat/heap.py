"""Keeps what a process loads once out of the garbage collector's way.

A model adapter, the embedder's weights and tokenizer, LanceDB, sympy and the text
tables are hundreds of thousands of objects that live until the process ends. Each full
collection walks all of them, and one that falls inside a request adds tens of
milliseconds to it (a served word problem: 4 ms typical, 60 to 70 ms at a collection).
Freezing the heap once a part has loaded moves those objects out of every later
collection; what requests create is collected as before. The cost: a cycle among the
frozen objects that becomes garbage later is never freed, which for parts loaded once
is nothing. A collection runs first (about 30 ms after the imports), so that only what
is alive is frozen: garbage frozen would never be freed, and a process that builds
engines again (a model switched in the app, a test run) would keep all of it.

What requests leave alive (the checks' bounded caches of read prompts, stored entries)
still grows past a hundred thousand objects, and a full collection over it takes 40 to
70 ms. Such a collection is put off to a moment where it costs nothing next to what just
ran: after a model call, which takes seconds (`collect_if_due`, which the engine calls
there). A process that never calls the model still collects, ten times less often.
"""

from __future__ import annotations

import gc
import time

FULL_DUE = 10
"""Collections of the middle generation after which a full one is due: CPython's own
default, kept for `collect_if_due`."""
FULL_DEFERRED = 10 * FULL_DUE
"""The same count for a full collection that runs by itself, wherever it falls: the
bound on how long one is put off when no model call comes."""


def settle() -> None:
    """Exclude every object alive now from later garbage collections, and put off full
    collections to `collect_if_due`."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_DEFERRED)


def collect_if_due() -> None:
    """Run a full collection if one would have run by now under CPython's defaults."""
    if gc.get_count()[2] >= FULL_DUE:
        gc.collect()


class PauseClock:
    """Milliseconds the garbage collector has held the process up since this clock was
    made: what a bench puts beside a request's time, so that a slow one can be told from
    a collection that happened to fall inside it."""

    def __init__(self) -> None:
        self.paused_ms = 0.0
        self._began: float | None = None
        gc.callbacks.append(self._on_collection)

    def __enter__(self) -> PauseClock:
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop counting: the collector keeps no reference to the clock."""
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        elif self._began is not None:
            self.paused_ms += 1000 * (time.perf_counter() - self._began)
            self._began = None
