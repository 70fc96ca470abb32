"""A cache in a bucket that may go away, in front of requests that must not.

A shared cache is a network service: its server can stop in the middle of a request. The
answer must still come, so `SharedStore` turns a failing bucket into a miss: lookups find
nothing, new entries wait in memory (bounded) and are written when the bucket answers again,
and the user reads one line about it, once per outage. While the bucket is down it is only
asked again every `retry_after` seconds, so requests do not each wait for a timeout. The
store is opened lazily too: a server that is down when stepchat starts is used once it is up.

A request the engine answers without the model (`ANSWERS_ALONE`: the exact solver, values
the prompt states) never waits for the bucket: if it is not open and answering, its lookups
find nothing, its entry waits with the others, and the bucket is opened (or asked again) in
the background. Such an entry adds nothing when the bucket already holds a request of the
same structure, so it is then not written (without that, every one-shot `stepchat ask` of a
solved equation would add a copy) and the entry held is counted as hit instead.

Housekeeping (`stepchat cache ...`) does not go through here: there a dead bucket is an error.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from stepchat.core.ports import ANSWERS_ALONE, MaintainedStore, StoreError
from stepchat.core.types import CacheEntry, StepOrigin
from stepchat.store.wrapper import StoreWrapper

T = TypeVar("T")
SHARED_NOTE = "shared cache "
"""How every note of this module starts, so the app can show them as they come."""


class SharedStore(StoreWrapper):
    """A `Store` over a bucket-backed store that answers as a miss while the bucket is down."""

    def __init__(
        self,
        opener: Callable[[], MaintainedStore],
        *,
        name: str,
        retry_after: float = 10.0,
        max_pending: int = 1000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._opener = opener
        self.name = name
        self.retry_after = retry_after
        self.max_pending = max_pending
        self._clock = clock
        self._inner: MaintainedStore | None = None
        self._down = False
        self._next_try = 0.0
        self._pending: dict[str, CacheEntry] = {}
        self._notes: list[str] = []
        self._lock = threading.RLock()
        """Held for every call to the bucket, so calls reach it one at a time."""
        self._small = threading.Lock()
        """Held only briefly: the pending entries and the notes."""
        self._background: threading.Thread | None = None

    # ------------------------------------------------------------------ state

    @property
    def available(self) -> bool:
        """Whether the last call reached the bucket."""
        return self._inner is not None and not self._down

    @property
    def pending(self) -> int:
        """Entries written while the bucket was down, not yet in it."""
        return len(self._pending)

    def drain_notes(self) -> list[str]:
        """What the user should be told since the last call (one line each)."""
        with self._small:
            notes, self._notes = self._notes, []
            return notes

    def _note(self, text: str) -> None:
        with self._small:
            self._notes.append(text)

    def _went_down(self, exc: StoreError) -> None:
        self._next_try = self._clock() + self.retry_after
        if not self._down:
            self._down = True
            reason = str(exc).split(": ", 1)[-1]
            self._note(f"{SHARED_NOTE}{self.name} unreachable ({reason}); answering without it")

    def _answered(self, store: MaintainedStore) -> None:
        """After a call the bucket answered: write what waited, and say so after an outage."""
        was_down, self._down = self._down, False
        written = self._write_pending(store)
        if was_down:
            note = f"{SHARED_NOTE}{self.name} is back"
            if written:
                note += f"; wrote {written} entries kept while it was down"
            self._note(note)

    def _write_pending(self, store: MaintainedStore) -> int:
        """Write the waiting entries, oldest first; a failure is a new outage and leaves the
        rest waiting. An entry written without the model is dropped when the bucket holds
        its structure already (see the module's note)."""
        written = 0
        while True:
            with self._small:
                if not self._pending:
                    return written
                entry_id, entry = next(iter(self._pending.items()))
            same = None if any(step.origin == StepOrigin.MODEL for step in entry.steps) else (
                store.find_signature(scope=entry.scope, signature=entry.signature)
            )
            if same is None:
                store.add(entry)
                written += 1
            else:  # the request would have reused it had the bucket been open: a hit
                store.touch(same.id, entry.created)
            with self._small:
                self._pending.pop(entry_id, None)

    def _call(self, action: Callable[[MaintainedStore], T], fallback: T) -> T:
        if ANSWERS_ALONE.get():
            return self._call_without_waiting(action, fallback)
        with self._lock:
            if self._down and self._clock() < self._next_try:
                return fallback
            return self._ask_bucket(action, fallback)

    def _ask_bucket(self, action: Callable[[MaintainedStore], T], fallback: T) -> T:
        """Run `action` on the bucket, opening it first if needed (under `_lock`)."""
        try:
            if self._inner is None:
                self._inner = self._opener()
            store = self._inner
            result = action(store)
            self._answered(store)
            return result
        except StoreError as exc:
            self._went_down(exc)
            return fallback

    def _call_without_waiting(self, action: Callable[[MaintainedStore], T], fallback: T) -> T:
        """`action` if the bucket is open, answering and free now; else `fallback` at once,
        with the bucket opened or asked again in the background."""
        if not self._lock.acquire(blocking=False):
            return fallback  # another call is waiting for the bucket
        try:
            if self._inner is not None and not self._down:
                return self._ask_bucket(action, fallback)
        finally:
            self._lock.release()
        self._reach_in_background()
        return fallback

    def _reach_in_background(self) -> None:
        """Open the bucket (or ask it again once `retry_after` has passed) on a thread of
        its own, writing what waits; one such thread at a time."""
        with self._small:
            if self._background is not None and self._background.is_alive():
                return
            if self._down and self._clock() < self._next_try:
                return
            self._background = threading.Thread(
                target=self._call, args=(lambda _store: None, None),
                name="stepchat-shared-cache", daemon=True,
            )
            self._background.start()

    # ------------------------------------------------------------------ Store protocol

    def add(self, entry: CacheEntry) -> None:
        if ANSWERS_ALONE.get():
            self._keep(entry)  # written with the others once the bucket answers
            self._call(lambda _store: None, None)
            return
        with self._lock:
            if not self._call(lambda s: _added(s, entry), False):
                self._keep(entry)

    def _keep(self, entry: CacheEntry) -> None:
        with self._small:
            self._pending[entry.id] = entry
            while len(self._pending) > self.max_pending:
                del self._pending[next(iter(self._pending))]  # oldest first

    def delete(self, entry_id: str) -> bool:
        with self._small:
            kept = self._pending.pop(entry_id, None) is not None
        return self._call(lambda s: s.delete(entry_id), False) or kept

    def clear(self) -> int:
        with self._small:
            kept = len(self._pending)
            self._pending.clear()
        return self._call(lambda s: s.clear(), 0) + kept

    def flush(self) -> None:
        """Write the entries that wait, then the inner store's queued bookkeeping."""
        self._call(self._flushed, None)

    def _flushed(self, store: MaintainedStore) -> None:
        self._write_pending(store)
        store.flush()

    def close(self) -> None:
        """Close the bucket's store; entries that never reached it are said in a note
        (in a one-shot command they are lost with the process)."""
        with self._lock:
            inner = self._inner
        if inner is not None:
            inner.close()
        if self._pending and not self._down:  # when down, its one line said so already
            self._note(
                f"{SHARED_NOTE}{self.name}: {len(self._pending)} new entries were not "
                "written (the bucket did not answer)"
            )

    # ------------------------------------------------------------------ housekeeping

    def _inner_store(self) -> MaintainedStore:
        """The bucket's store for `stepchat cache ...`, where a dead bucket is an error."""
        with self._lock:
            if self._inner is None:
                self._inner = self._opener()
            return self._inner

def _added(store: MaintainedStore, entry: CacheEntry) -> bool:
    store.add(entry)
    return True
