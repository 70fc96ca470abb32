"""Upkeep of the LanceDB cache table: limits, compaction, index builds and purges.

Why this is more than a counter:
- `stepchat ask` is one process per question and writes at most one entry, so a sweep
  "every 32 writes of this process" never ran for the CLI. Here the limits are checked
  when the store opens and after every write, from what the table holds (its row count,
  the byte sum of its rows' column lengths, its oldest hit), and a sweep starts as soon as
  one is crossed; compaction starts on open when fragments have piled up. `close()` waits
  for that work, so a one-shot process leaves the cache within its limits.
- Sweeps, compaction and index builds (seconds at 20k rows, minutes at a million) all run
  in one background worker, one job after another, without the store lock: LanceDB tables
  take reads, appends and maintenance at once, so requests never wait for them. Only the
  final swap of the store's in-memory state takes the lock, and only if nobody wrote
  meanwhile (else the next request re-reads the table anyway). Until a build commits,
  searches use what is already there (the mirror, or the older index plus an exhaustive
  scan of newer rows), so a half-built index never answers.
- A deleted row stays in its data file (LanceDB only marks it deleted) and in older table
  versions. `purge()` rewrites the files so the row's text is gone from disk when the
  eviction returns: LanceDB compacts a fragment whose deletions are a small fraction only
  when it merges it with a neighbour, so one live row is rewritten (a no-op update) to give
  it one, and every older version is dropped at once.
- Dropping old versions removes files another process may be reading at that moment (or
  a table handle up to `consistency_seconds` stale). That is survivable: every store
  operation that fails on a vanished file moves to the newest version and runs again
  (`survives_cleanup`), and opening retries the same way, so a concurrent `clear` neither
  fails another process's write nor looks like a damaged table.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager, suppress
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar, cast

from stepchat.core.ports import StoreError
from stepchat.settings import CacheLimits
from stepchat.store.indexing import SCALAR_COLUMNS, IndexPlan
from stepchat.store.sql import sql_str

if TYPE_CHECKING:
    from stepchat.store.mirror import VectorMirror
    from stepchat.store.snapshot import Snapshot

log = logging.getLogger("stepchat.store")

SIZE_SQL = "octet_length(prompt) + octet_length(steps)"
"""A row's bytes against the limit, less its vector (`CacheEntry.size_bytes`), from the
column lengths alone."""
VANISHED_TRIES = 10
_VANISHED = re.compile(r"not found|no such file|does not exist|os error 2\b", re.I)
F = TypeVar("F", bound=Callable[..., Any])


def vanished(exc: BaseException) -> bool:
    """Whether `exc` (or what caused it) says a table file disappeared under the reader."""
    seen: BaseException | None = exc
    while seen is not None:
        if _VANISHED.search(str(seen)):
            return True
        seen = seen.__cause__
    return False


def survives_cleanup(method: F) -> F:
    """Run a store operation again, on the newest table version, when it failed because
    another process dropped the old version's files (a `clear` or a `purge`)."""

    @functools.wraps(method)
    def run(self: UpkeepMixin, *args: Any, **kwargs: Any) -> Any:
        for attempt in range(VANISHED_TRIES):
            try:
                return method(self, *args, **kwargs)
            except StoreError as exc:
                if attempt == VANISHED_TRIES - 1 or not vanished(exc):
                    raise
                self._catch_up()
                time.sleep(0.02 * (attempt + 1))
        raise AssertionError("unreachable")

    return cast(F, run)


def index_label(index_type: str) -> str:
    """LanceDB's 'IvfHnswSq' spelled the way its create_index takes it: 'IVF_HNSW_SQ'."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", index_type).upper()


class UpkeepMixin:
    """Limits, sweeps, compaction, index builds and purges for `LanceStore`."""

    limits: CacheLimits | None
    dim: int
    optimize_every: int
    evict_every: int
    index_threshold: int
    keep_versions: timedelta
    background_index: bool
    """Compaction and index builds run in the background worker (else in the caller)."""
    plan: IndexPlan
    read_only: bool
    evicted: int
    upkeeping: bool = False
    """True while compaction or a build runs (its commits are ours; skip re-reads)."""
    closed: bool = False
    """True once `close()` has finished the store's upkeep: what a caller that opened a
    store for a while (the bench, in a temporary directory) checks it did not forget."""
    _table: Any
    _lock: threading.RLock
    _keys: dict[str, tuple[str, str]]
    _index_kind: str | None
    _mirror: VectorMirror | None
    _writes: int
    _seen_version: int

    if TYPE_CHECKING:

        def _guard(self, action: str, corrupt: bool = False) -> AbstractContextManager[None]:
            ...

        def _retry(self, write: Callable[[], Any]) -> Any: ...

        def _committed(self, commits: int = 1, reload: bool = False) -> None: ...

        def _forget(self, entry_id: str) -> None: ...

        def _read_state(self) -> Snapshot: ...

        def _install(self, state: Snapshot) -> None: ...

    def _init_upkeep(self) -> None:
        self._since_sweep = 0
        self._appended = False
        self._worker: threading.Thread | None = None
        self._wanted: set[str] = set()
        self._upkeep_lock = threading.Lock()
        self._sizes: dict[str, int] | None = None
        self._oldest_hit = float("inf")

    # ------------------------------------------------------------------ what the table holds

    def _remeasured(self) -> None:
        """Forget the byte tally: the table changed under us (a reload)."""
        self._sizes = None

    def _size_rows(self) -> list[dict[str, Any]]:
        """Every row's id, last hit and bytes less its vector, from column lengths alone."""
        rows: list[dict[str, Any]] = (
            self._table.search()
            .select({"id": "id", "last_hit": "last_hit", "size": SIZE_SQL})
            .limit(None)
            .to_arrow()
            .to_pylist()
        )
        return rows

    def _measure(self) -> tuple[int, int, float]:
        """Rows, bytes (as `CacheEntry.size_bytes` sums them) and the oldest last hit."""
        if self._sizes is None:
            rows = self._size_rows()
            self._sizes = {row["id"]: int(row["size"] or 0) for row in rows}
            self._oldest_hit = min((float(row["last_hit"]) for row in rows), default=float("inf"))
        count = len(self._sizes)
        return count, sum(self._sizes.values()) + count * 4 * self.dim, self._oldest_hit

    def _measured_add(self, entry_id: str, size: int, last_hit: float) -> None:
        if self._sizes is not None:
            self._sizes[entry_id] = size
            self._oldest_hit = min(self._oldest_hit, last_hit)

    def _measured_drop(self, entry_id: str) -> None:
        if self._sizes is not None:
            self._sizes.pop(entry_id, None)

    def over_limits(self, now: float | None = None) -> bool:
        """Whether the table is past a limit right now (count, bytes or age)."""
        limits = self.limits
        if limits is None:
            return False
        now = time.time() if now is None else now
        with self._lock, self._guard("measure"):
            count, size, oldest = self._measure()
        expired = limits.ttl_days > 0 and oldest < now - limits.ttl_days * 86400
        return count > limits.max_entries or size > limits.max_bytes or expired

    # ------------------------------------------------------------------ when work is due

    def _upkeep_on_open(self) -> None:
        """Sweep if a limit is crossed, compact if fragments piled up (other processes)."""
        if self.read_only:
            return
        try:
            if self.over_limits():
                self._want("sweep")
            if self._fragments_piled():
                self.optimize()
        except StoreError as exc:
            log.warning("%s", exc)  # upkeep is best effort; the cache still answers

    def _fragments_piled(self) -> bool:
        """Whether one-row appends (of any process) left enough fragments to compact."""
        with self._lock, self._guard("stats"):
            fragments = int(self._table.stats()["fragment_stats"]["num_fragments"])
        return bool(self.optimize_every) and fragments > max(2, self.optimize_every // 4)

    def _after_write(self) -> None:
        """After one write: compact every `optimize_every` writes of this process, sweep
        every `evict_every` writes and at once when a limit is crossed."""
        self._writes += 1
        self._appended = True
        if self.optimize_every and self._writes >= self.optimize_every:
            self.optimize()
        if self.limits is None:
            return
        self._since_sweep += 1
        if (self.evict_every and self._since_sweep >= self.evict_every) or self.over_limits():
            self._since_sweep = 0
            self._want("sweep")

    def _want(self, job: str) -> None:
        """Queue `job` ('sweep' or 'optimize') for the background worker; start it unless
        it is running. A job asked for while another runs is run after it, never dropped."""
        with self._lock:
            self._wanted.add(job)
            if self._worker is not None and self._worker.is_alive():
                return
            # Not a daemon: a process that ends without `close()` still waits for the job
            # at exit, instead of tearing LanceDB's runtime down under it (SIGABRT).
            self._worker = threading.Thread(
                target=self._work, name="stepchat-lance-upkeep", daemon=False
            )
            self._worker.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._wanted:
                    return
                jobs, self._wanted = self._wanted, set()
            # Evict first: compaction then rewrites what is left.
            for job, run in (("sweep", self.sweep), ("optimize", self._upkeep)):
                if job not in jobs:
                    continue
                try:
                    run()
                except StoreError as exc:
                    # The cache may grow past its limits, or searches keep what they had,
                    # until the next try.
                    log.warning("%s", exc)

    @property
    def upkeep_running(self) -> bool:
        """Whether background upkeep (a sweep, compaction or an index build) is running."""
        return self._worker is not None and self._worker.is_alive()

    def wait_for_upkeep(self, timeout: float | None = None) -> None:
        """Block until background upkeep has finished (tests, the bench, exit)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def close(self) -> None:
        """Finish background upkeep: a one-shot process must not leave a sweep half done,
        nor the fragments its own writes added while a compaction ran (they never wait for
        one, so they can land beside it)."""
        self.wait_for_upkeep()
        if self._appended:
            self._appended = False
            try:
                if self._fragments_piled():
                    self.optimize()
                    self.wait_for_upkeep()
            except StoreError as exc:
                log.warning("%s", exc)  # the next process to open the cache compacts it
        self.closed = True

    # ------------------------------------------------------------------ compaction and indexes

    def optimize(self) -> None:
        """Compact fragments, fold new rows into the indexes, build them once the table is big.

        With `background_index` this queues the work and returns at once: a build takes
        seconds to minutes (1M rows), and appends and hits must not wait for it.
        """
        self._writes = 0
        if self.background_index:
            self._want("optimize")
        else:
            self._upkeep()

    @survives_cleanup
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
        self._retry(lambda: self._table.create_index("vector", config=config, replace=True))
        from lancedb.index import Bitmap

        for column in SCALAR_COLUMNS:
            self._retry(
                functools.partial(self._table.create_index, column, config=Bitmap(), replace=True)
            )

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

    # ------------------------------------------------------------------ eviction

    def sweep(self, now: float | None = None) -> int:
        """Enforce `limits` once: expired entries first, then least-recently-hit ones.

        Automatic sweeps do not purge (that rewrites the data files); the rows leave the
        files at the next purge or `stepchat cache compact`."""
        limits = self.limits
        if limits is None:
            return 0
        now = time.time() if now is None else now
        removed = 0
        if limits.ttl_days > 0:
            removed += self._delete_older_than(limits.ttl_days * 86400, now)
        removed += self.evict_to_limits(limits.max_entries, limits.max_bytes)
        self.evicted += removed
        return removed

    @survives_cleanup
    def evict_older_than(self, seconds: float, now: float) -> int:
        """Delete entries not hit within `seconds` before `now`, purged from disk; how many."""
        removed = self._delete_older_than(seconds, now)
        if removed:
            self.purge()
        return removed

    def _delete_older_than(self, seconds: float, now: float) -> int:
        where = f"last_hit < {float(now) - float(seconds)!r}"
        with self._lock, self._guard("evict"):
            doomed = int(self._table.count_rows(where))
            if doomed:
                self._retry(lambda: self._table.delete(where))
                self._committed(reload=True)
            return doomed

    @survives_cleanup
    def evict_to_limits(self, max_entries: int, max_bytes: int) -> int:
        """Delete least-recently-hit entries until both limits hold; returns how many.

        Bytes are `CacheEntry.size_bytes()` summed, so the limit means the same for every
        store. The scan reads column lengths only and runs without the store lock, so
        requests only wait for the delete commits.
        """
        with self._guard("evict"):
            rows = self._size_rows()
        rows.sort(key=lambda r: r["last_hit"])
        sizes = [int(r["size"] or 0) + 4 * self.dim for r in rows]
        total = sum(sizes)
        count = len(rows)
        doomed: list[str] = []
        for row, size in zip(rows, sizes, strict=True):
            if count <= max_entries and total <= max_bytes:
                break
            doomed.append(row["id"])
            count -= 1
            total -= size
        if not doomed:
            return 0
        with self._lock, self._guard("evict"):
            for start in range(0, len(doomed), 500):
                chunk = doomed[start : start + 500]
                where = "id IN (" + ", ".join(sql_str(i) for i in chunk) + ")"
                self._retry(functools.partial(self._table.delete, where))
            self._committed(reload=True)
        return len(doomed)

    @survives_cleanup
    def purge(self) -> None:
        """Make every deletion final on disk now: no data file or old version keeps the
        text of a deleted entry. Rewrites the table's files (cost grows with the cache)."""
        with self._lock, self._guard("purge"), warnings.catch_warnings():
            # LanceDB warns that readers of old versions will fail: they retry on the new one.
            warnings.simplefilter("ignore", UserWarning)
            survivor = next(iter(self._keys), None)
            if survivor is not None:
                # A fragment with a few deletions is compacted only together with a
                # neighbour; rewriting one live row (unchanged) always gives it one.
                where = f"id = {sql_str(survivor)}"
                self._retry(lambda: self._table.update(where=where, values_sql={"hits": "hits"}))
            self._retry(lambda: self._table.optimize(cleanup_older_than=timedelta(0)))
            self._committed(reload=True)
            self._writes = 0

    def _catch_up(self) -> None:
        """Move to the newest table version and reread it on the next operation."""
        with suppress(Exception):
            self._table.checkout_latest()
        self._seen_version = -1
