"""Background upkeep of the cache table: compaction and index builds, off the request path.

A build takes seconds at 20k rows and minutes at a million; one-row appends need compacting
every few dozen writes. Both run in one background thread without the store lock (LanceDB
tables take reads, appends and maintenance at once); only the final swap of the store's
in-memory state takes the lock, and only if nobody wrote meanwhile (else the next request
re-reads the table anyway). Until a build commits, searches use what is already there (the
mirror, or the older index plus an exhaustive scan of newer rows), so a half-built index
never answers.
"""

from __future__ import annotations

import logging
import re
import threading
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any, TypeVar

from stepchat.core.ports import StoreError
from stepchat.store.indexing import SCALAR_COLUMNS, IndexPlan
from stepchat.store.mirror import VectorMirror
from stepchat.store.snapshot import Snapshot

log = logging.getLogger("stepchat.store")
T = TypeVar("T")


def index_label(index_type: str) -> str:
    """LanceDB's 'IvfHnswSq' spelled the way its create_index takes it: 'IVF_HNSW_SQ'."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", index_type).upper()


class UpkeepMixin:
    """Compaction and index builds for `LanceStore`, which provides these attributes."""

    _table: Any
    _lock: threading.RLock
    _upkeep_lock: threading.Lock
    _indexer: threading.Thread | None
    _index_kind: str | None
    _mirror: VectorMirror | None
    _writes: int
    _seen_version: int
    upkeeping: bool = False
    """True while compaction or a build runs (its commits are ours; skip re-reads)."""
    background_index: bool
    index_threshold: int
    keep_versions: timedelta
    plan: IndexPlan
    dim: int

    def _guard(self, action: str, corrupt: bool = False) -> AbstractContextManager[None]:
        raise NotImplementedError

    def _retry(self, write: Callable[[], T]) -> T:
        raise NotImplementedError

    def _read_state(self) -> Snapshot:
        raise NotImplementedError

    def _install(self, state: Snapshot) -> None:
        raise NotImplementedError

    def optimize(self) -> None:
        """Compact fragments, fold new rows into the indexes, build them once the table is big.

        With `background_index` this runs in a thread and returns at once: a build takes
        seconds to minutes (1M rows), and appends and hits must not wait for it. Until the
        build commits, searches use what is there (the mirror, or the older index plus an
        exhaustive scan of newer rows), so a half-built index never answers.
        """
        self._writes = 0
        if not self.background_index:
            self._upkeep()
            return
        with self._lock:
            if self.indexing:
                return
            self._indexer = threading.Thread(
                target=self._upkeep_logged, name="stepchat-lance-upkeep", daemon=True
            )
            self._indexer.start()

    @property
    def indexing(self) -> bool:
        """Whether compaction or an index build is running in the background."""
        return self._indexer is not None and self._indexer.is_alive()

    def build_index(self, wait: bool = True) -> None:
        """Build the vector and scalar indexes now, whatever the table's size."""
        if wait:
            with self._guard("index"):
                self._create_indexes(int(self._table.count_rows()))
            self._follow_upkeep()
            return
        self.optimize()

    def wait_for_index(self, timeout: float | None = None) -> None:
        """Block until background upkeep has finished (for tests and the bench)."""
        if self._indexer is not None:
            self._indexer.join(timeout)

    def _upkeep_logged(self) -> None:
        try:
            self._upkeep()
        except StoreError as exc:
            log.warning("%s", exc)  # searches keep what they had; the next upkeep tries again

    def _upkeep(self) -> None:
        """Runs without the store lock: LanceDB tables take reads, appends and maintenance
        at once, so requests go on; only the final swap of in-memory state takes the lock."""
        with self._upkeep_lock:
            self.upkeeping = True
            try:
                with self._guard("optimize"):
                    rows = int(self._table.count_rows())
                    if rows >= self.index_threshold and self.index_kind() == "flat":
                        self._create_indexes(rows)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", UserWarning)
                        keep = self.keep_versions
                        self._retry(lambda: self._table.optimize(cleanup_older_than=keep))
            finally:
                try:
                    self._follow_upkeep()
                finally:
                    self.upkeeping = False

    def _follow_upkeep(self) -> None:
        """Re-read keys (row ids move when fragments merge) and swap them in; if someone
        wrote between the read and the swap, read again (a few times, then leave it to the
        next request)."""
        for _ in range(3):
            with self._guard("optimize"):
                state = self._read_state()
            with self._lock:
                self._index_kind = None
                if self._table.version == state.version:
                    self._install(state)
                    return
        with self._lock:
            self._seen_version = -1

    def _create_indexes(self, rows: int) -> None:
        config = self.plan.vector_config(rows, self.dim)
        self._table.create_index("vector", config=config, replace=True)
        from lancedb.index import Bitmap

        for column in SCALAR_COLUMNS:
            self._table.create_index(column, config=Bitmap(), replace=True)

    def search_path(self) -> str:
        """How a search runs now: 'mirror' (in memory, exact), 'flat', or the index type."""
        return "mirror" if self._mirror is not None else self.index_kind()

    def index_kind(self) -> str:
        """'flat' (exhaustive search) or the vector index type, e.g. 'IVF_SQ'."""
        if self._index_kind is None:
            with self._lock, self._guard("index"):
                kind = "flat"
                for index in self._table.list_indices():
                    if "vector" in list(index.columns):
                        kind = index_label(str(index.index_type))
                        break
                self._index_kind = kind
        return self._index_kind
