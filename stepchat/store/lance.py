"""The persistent cache: one LanceDB table, one row per verified request.

Why the extra machinery around LanceDB:
- Every LanceDB query costs milliseconds even on tiny tables, so exact-signature lookups
  and `get` of hot entries are answered from memory (a signature map and a small LRU), which
  is reloaded when another process commits a new table version.
- One-row appends leave one fragment each and slow every later query, so the table is
  compacted every `optimize_every` writes, in a background thread (requests never wait).
- Up to `mirror_limit` rows, vectors are also kept in memory and searched exactly there
  (`stepchat.store.mirror`); hits are then read by row id. Past `index_threshold` rows the
  table gets the ANN and scalar indexes of `stepchat.store.indexing`, built in the
  background; bigger tables are searched through them, and read their hits in the same
  query. New tables are written in LanceDB's 2.1 file format (`lance_schema.FILE_FORMAT`).
- The table may live in an S3-compatible bucket (`stepchat.store.location`).
- Two processes may write one table: a commit that loses a race is retried with backoff, and
  replacing an entry is one `merge_insert` commit, so a crash never leaves it half-replaced.
- Size is bounded by `CacheLimits`, checked on open and after every write; the same
  background worker evicts expired and least-recently-hit entries, so no request waits.
  Deletions made final on disk, and surviving another process dropping old versions, are
  `stepchat.store.upkeep`'s part.
Every LanceDB failure surfaces as a one-line `StoreError`; a table that cannot be read is a
`CorruptStoreError` and one written under another schema a `SchemaMismatchError`, so the
opener (`stepchat.store.maintenance`) can move it aside or migrate it.
This module keeps the store's state and locks; the table's layout is `lance_schema`'s,
opening it `lance_open`'s, its queries `lance_search`'s and `lance_listing`'s, and turning
failures into one line and retrying lost commits `lance_guard`'s.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from stepchat.core.listing import EntryPage
from stepchat.core.ports import MaintainedStore, SearchHit, StoreError
from stepchat.core.types import CacheEntry
from stepchat.settings import CacheLimits
from stepchat.store.indexing import DEFAULT_PLAN, IndexPlan
from stepchat.store.lance_guard import retry_commit, store_errors
from stepchat.store.lance_listing import read_all, read_listing
from stepchat.store.lance_open import (
    OPEN_TRIES,
    OPEN_WAIT_S,
    connect,
    create,
    dir_bytes,
    open_existing,
    prepare_directory,
    table_exists,
)
from stepchat.store.lance_schema import (
    FILTER_COLUMNS,
    KEY_COLUMNS,
    SCHEMA_VERSION,
    TABLE_NAME,
    CorruptStoreError,
    SchemaMismatchError,
    arrow_schema,
    copy_entry,
    entry_row,
    row_entry,
    schema_mismatch,
)
from stepchat.store.lance_search import nearest_rows, rows_by_id
from stepchat.store.location import CacheLocation
from stepchat.store.mirror import NO_ROW, VectorMirror
from stepchat.store.snapshot import Snapshot, apply_snapshot, read_snapshot
from stepchat.store.sql import sql_str
from stepchat.store.upkeep import UpkeepMixin, survives_cleanup, vanished

__all__ = [
    "SCHEMA_VERSION", "TABLE_NAME", "CorruptStoreError", "LanceStore", "SchemaMismatchError",
    "sql_str",
]

log = logging.getLogger("stepchat.store")

# Old table versions keep deleted prompts on disk; compaction drops those older than this.
_KEEP_OLD_VERSIONS = timedelta(minutes=10)
T = TypeVar("T")


class LanceStore(UpkeepMixin, MaintainedStore):
    """A `Store` on LanceDB; safe to share between threads of one process.

    `read_only` opens an existing table without writing a byte (`--no-store`): no folder is
    created or tightened, nothing is written to a bucket, no upkeep runs, and any write is
    a StoreError.
    """

    def __init__(
        self,
        directory: Path | str | CacheLocation,
        dim: int,
        *,
        optimize_every: int = 64,
        index_threshold: int = 20_000,
        mirror_limit: int = 30_000,
        plan: IndexPlan = DEFAULT_PLAN,
        consistency_seconds: float = 1.0,
        lru_size: int = 256,
        background_index: bool = True,
        limits: CacheLimits | None = None,
        evict_every: int = 32,
        keep_versions: timedelta = _KEEP_OLD_VERSIONS,
        read_only: bool = False,
    ) -> None:
        self.location = (
            directory if isinstance(directory, CacheLocation) else CacheLocation.of(directory)
        )
        self.directory = Path(self.location.uri)
        self.read_only = read_only
        self.dim = dim
        self.optimize_every = optimize_every
        self.index_threshold = index_threshold
        self.mirror_limit = mirror_limit
        self._mirror: VectorMirror | None = None
        self._mirror_stamp: dict[str, float] = {}
        self._lru_size = lru_size
        self._lock = threading.RLock()
        self._lru: OrderedDict[str, CacheEntry] = OrderedDict()
        self._signatures: dict[tuple[str, str], tuple[float, str]] = {}
        self._keys: dict[str, tuple[str, str]] = {}
        self._seen_version = -1
        self._writes = 0
        self._index_kind: str | None = None
        self.background_index = background_index
        self.plan = plan
        self.limits = limits
        self.evict_every = evict_every
        self.keep_versions = keep_versions
        self.evicted = 0
        self._init_upkeep()
        if not self.location.remote:
            if not read_only:
                prepare_directory(self.directory)
            elif not (self.directory / f"{TABLE_NAME}.lance").is_dir():
                raise StoreError(f"cache store {self.location}: no cache yet")
        os.environ.setdefault("LANCEDB_LOG", "error")
        self.location.probe()  # a bucket whose endpoint never answers fails here, in seconds
        with self._guard("open"):
            import pyarrow as pa

            self._pa = pa
            self._schema = arrow_schema(pa, self.dim)
            self._db = connect(self.location, consistency_seconds)
            exists = table_exists(self._db, self.location)
        if exists:
            self._table = open_existing(self._db, self.location)
        elif read_only:
            raise StoreError(f"cache store {self.location}: no cache yet")
        else:
            self._table = create(self._db, self.location, self._schema)
        self._read_consistent()
        self._upkeep_on_open()

    def _read_consistent(self) -> None:
        """Check the schema and read the keys. A file that vanished mid-read was dropped by
        another process's `clear` or purge, not damaged: read the newest version again
        (bounded) before calling the table corrupt."""
        for attempt in range(OPEN_TRIES):
            try:
                self._check_schema()
                with self._guard("read", corrupt=True):
                    self._reload()
                return
            except CorruptStoreError as exc:
                if attempt == OPEN_TRIES - 1 or not vanished(exc):
                    raise
                self._catch_up()
                time.sleep(OPEN_WAIT_S)

    # ------------------------------------------------------------------ plumbing

    def _guard(self, action: str, corrupt: bool = False) -> AbstractContextManager[None]:
        """Any LanceDB / Arrow / OS failure inside is a one-line StoreError (`lance_guard`)."""
        return store_errors(self.location, action, corrupt)

    def _retry(self, write: Callable[[], T]) -> T:
        """Run one commit, retried when another writer came first (`lance_guard`). Every
        write goes through here, so `read_only` holds."""
        if self.read_only:
            raise StoreError(f"cache store {self.location}: opened read-only")
        return retry_commit(write, lambda: self._table.checkout_latest())

    def _check_schema(self) -> None:
        with self._guard("open", corrupt=True):
            schema = self._table.schema
        problem = schema_mismatch(schema, self._schema, self.dim, self.location)
        if problem is not None:
            raise problem

    def _reload(self) -> None:
        """Rebuild the in-memory signature map (and vector mirror) from the table."""
        self._install(self._read_state())

    def _read_state(self) -> Snapshot:
        """Everything `_install` needs, read without touching memory state, so a background
        thread can read while requests go on."""
        limit = self.mirror_limit
        return read_snapshot(self._table, self.dim, limit, dict(self._mirror_stamp))

    def _install(self, state: Snapshot) -> None:
        """Swap in what `_read_state` read (under the lock); cached entries are forgotten."""
        self._signatures.clear()
        self._keys.clear()
        self._lru.clear()
        for entry_id, scope, signature, created in zip(
            state.ids, state.scopes, state.signatures, state.created, strict=True
        ):
            self._remember(entry_id, scope, signature, created)
        self._remeasured()
        complete = True
        if not self._drop_mirror_past_limit(len(state)):
            if self._mirror is None:
                self._mirror, self._mirror_stamp = VectorMirror(self.dim), {}
            complete = apply_snapshot(self._mirror, self._mirror_stamp, state)
        self._seen_version = state.version if complete else -1  # -1: read again next time

    def _drop_mirror_past_limit(self, rows: int) -> bool:
        """Past `mirror_limit` rows the in-memory mirror goes (at once, not at the next
        reload) and searches read the table; True if it went."""
        if rows <= self.mirror_limit:
            return False
        self._mirror, self._mirror_stamp = None, {}
        return True

    def _remember(self, entry_id: str, scope: str, signature: str, created: float) -> None:
        key = (scope, signature)
        self._keys[entry_id] = key
        current = self._signatures.get(key)
        if current is None or created >= current[0]:
            self._signatures[key] = (created, entry_id)

    def _sync(self) -> None:
        """Reload when another process committed since we last looked.

        Not while our own upkeep runs: its commits move the version too, and it re-reads
        the table itself when it ends, so no request pays for a re-read meanwhile.
        """
        if self._table.version != self._seen_version and not self.upkeeping:
            self._reload()

    def _committed(self, commits: int = 1, reload: bool = False) -> None:
        """After our own `commits` writes: follow them, or reload if another writer came
        between (unless it may have been our own upkeep, which re-reads when it ends)."""
        version = self._table.version
        if reload or (version != self._seen_version + commits and not self.upkeeping):
            self._reload()
        else:
            self._seen_version = version

    def _forget(self, entry_id: str) -> None:
        """Drop a deleted entry from memory; find the next newest of its signature if needed."""
        self._lru.pop(entry_id, None)
        if self._mirror is not None:
            self._mirror.drop(entry_id)
            self._mirror_stamp.pop(entry_id, None)
        self._measured_drop(entry_id)
        key = self._keys.pop(entry_id, None)
        if key is None or self._signatures.get(key, (0.0, ""))[1] != entry_id:
            return
        del self._signatures[key]
        where = f"scope = {sql_str(key[0])} AND signature = {sql_str(key[1])}"
        rows = self._table.search().where(where).select(KEY_COLUMNS).limit(None).to_arrow()
        for row in rows.to_pylist():
            self._remember(row["id"], row["scope"], row["signature"], row["created"])

    def _cache(self, entry: CacheEntry) -> None:
        self._lru[entry.id] = entry
        self._lru.move_to_end(entry.id)
        while len(self._lru) > self._lru_size:
            self._lru.popitem(last=False)

    # ------------------------------------------------------------------ Store protocol

    @survives_cleanup
    def add(self, entry: CacheEntry) -> None:
        row = entry_row(entry, self.dim)
        data = self._pa.Table.from_pylist([row], schema=self._schema)
        with self._lock, self._guard("add"):
            self._sync()
            if entry.id in self._keys:
                # One commit replaces the row: a crash leaves the old entry or the new one.
                self._retry(
                    lambda: self._table.merge_insert("id")
                    .when_matched_update_all()
                    .when_not_matched_insert_all()
                    .execute(data)
                )
                self._forget(entry.id)
            else:
                self._retry(lambda: self._table.add(data))
            self._committed()
            self._remember(entry.id, entry.scope, entry.signature, entry.created)
            self._measured_add(entry.id, entry.size_bytes() - 4 * self.dim, entry.last_hit)
            stored = row_entry(row)
            self._cache(stored)
            if self._mirror is not None:
                self._mirror.put(entry.id, entry.scope, str(entry.task), entry.vector)
                self._mirror_stamp[entry.id] = stored.created
                self._drop_mirror_past_limit(len(self._mirror))
            self._after_write()

    def add_many(self, entries: Sequence[CacheEntry]) -> None:
        """New entries in one commit (migration, bulk loads); ids must not be stored yet."""
        if not entries:
            return
        rows = [entry_row(e, self.dim) for e in entries]
        data = self._pa.Table.from_pylist(rows, schema=self._schema)
        with self._lock, self._guard("add"):
            self._retry(lambda: self._table.add(data))
            self._committed(reload=True)

    @survives_cleanup
    def search(
        self, vector: Sequence[float], *, scope: str, task: str, k: int = 4
    ) -> list[SearchHit]:
        if len(vector) != self.dim:
            raise StoreError(
                f"cache store: query vector has {len(vector)} dimensions, expected {self.dim}"
            )
        with self._lock, self._guard("search"):
            self._sync()
            if self._mirror is None:
                found = self._search_table(vector, scope, str(task), k)
            else:
                near = self._mirror.search(vector, scope, str(task), k)
                fetched = self._fetch([(entry_id, row) for entry_id, _sim, row in near])
                found = [(fetched[i], sim) for i, sim, _row in near if i in fetched]
            return [SearchHit(copy_entry(entry), sim) for entry, sim in found]

    def _search_table(
        self, vector: Sequence[float], scope: str, task: str, k: int
    ) -> list[tuple[CacheEntry, float]]:
        """LanceDB's search, reading the hits' rows in the same query (`lance_search`)."""
        tune = self.plan.tune if self.index_kind() != "flat" else None
        columns = [name for name in self._schema.names if name not in FILTER_COLUMNS]
        found = []
        for row, similarity in nearest_rows(
            self._table, vector, scope=scope, task=task, k=k, columns=columns, tune=tune
        ):
            entry = row_entry(row)
            self._cache(entry)
            found.append((entry, similarity))
        return found

    @survives_cleanup
    def find_signature(self, *, scope: str, signature: str) -> CacheEntry | None:
        with self._lock, self._guard("lookup"):
            self._sync()
            found = self._signatures.get((scope, signature))
            return self.get(found[1]) if found else None

    def signature_ids(self) -> dict[tuple[str, str], str]:
        """The newest entry id of every (scope, signature): what a signature index mirrors."""
        with self._lock, self._guard("lookup"):
            self._sync()
            return {key: entry_id for key, (_, entry_id) in self._signatures.items()}

    @survives_cleanup
    def get(self, entry_id: str) -> CacheEntry | None:
        with self._lock, self._guard("get"):
            self._sync()
            if entry_id not in self._keys:
                return None
            row = self._mirror.row_of(entry_id) if self._mirror is not None else NO_ROW
            entry = self._fetch([(entry_id, row)]).get(entry_id)
            return None if entry is None else copy_entry(entry)

    def _fetch(self, wanted: list[tuple[str, int]]) -> dict[str, CacheEntry]:
        """Entries by id: from memory, else read from the table (`lance_search.rows_by_id`)."""
        found = {entry_id: self._lru[entry_id] for entry_id, _ in wanted if entry_id in self._lru}
        unread = [(entry_id, row) for entry_id, row in wanted if entry_id not in found]
        if unread:
            for entry_id, record in rows_by_id(self._table, unread).items():
                found[entry_id] = row_entry(record)
        for entry in found.values():
            self._cache(entry)
        return found

    @survives_cleanup
    def touch(self, entry_id: str, when: float) -> None:
        with self._lock, self._guard("touch"):
            self._sync()
            if entry_id not in self._keys:
                return
            self._retry(
                lambda: self._table.update(
                    where=f"id = {sql_str(entry_id)}",
                    values_sql={"hits": "hits + 1", "last_hit": repr(float(when))},
                )
            )
            self._committed()
            entry = self._lru.get(entry_id)
            if entry is not None:
                entry.hits += 1
                entry.last_hit = float(when)
            self._after_write()

    @survives_cleanup
    def delete(self, entry_id: str) -> bool:
        with self._lock, self._guard("delete"):
            self._sync()
            if entry_id not in self._keys:
                return False
            self._retry(lambda: self._table.delete(f"id = {sql_str(entry_id)}"))
            self._committed()
            self._forget(entry_id)
            self._after_write()
            return True

    @survives_cleanup
    def clear(self) -> int:
        """Delete every entry and the old table versions that still hold their prompts."""
        with self._lock, self._guard("clear"):
            count = int(self._table.count_rows())
            if count:
                self._retry(lambda: self._table.delete("true"))
            with warnings.catch_warnings():
                # LanceDB warns that readers of old versions will fail: they retry on the
                # new one (`survives_cleanup`); clearing means it.
                warnings.simplefilter("ignore", UserWarning)
                self._retry(lambda: self._table.optimize(cleanup_older_than=timedelta(0)))
            self._index_kind = None
            self._committed(reload=True)
            self._writes = 0
            return count

    @survives_cleanup
    def entries(self, limit: int | None = None) -> list[CacheEntry]:
        with self._lock, self._guard("list"):
            self._sync()
            return [row_entry(row) for row in read_all(self._table, limit)]

    @survives_cleanup
    def listing(
        self, *, offset: int = 0, limit: int | None = None, needle: str = ""
    ) -> EntryPage:
        """Read without the store lock (`stepchat.store.lance_listing`): lookups go on."""
        with self._guard("list"):
            return read_listing(self._table, self.dim, offset=offset, limit=limit, needle=needle)

    @survives_cleanup
    def count(self) -> int:
        with self._lock, self._guard("count"):
            return int(self._table.count_rows())

    # ------------------------------------------------------------------ maintenance

    @survives_cleanup
    def stats(self) -> dict[str, Any]:
        with self._lock, self._guard("stats"):
            table_stats: Any = self._table.stats()
            return {
                "rows": int(table_stats["num_rows"]),
                "data_bytes": int(table_stats["total_bytes"]),
                "disk_bytes": self._disk_bytes(table_stats),
                "fragments": int(table_stats["fragment_stats"]["num_fragments"]),
                "index": self.index_kind(),
                "version": int(self._table.version),
                "schema_version": SCHEMA_VERSION,
                "directory": str(self.location),
            }

    @survives_cleanup
    def compact(self, keep_versions: timedelta | None = None) -> dict[str, int]:
        """Merge fragments and drop old table versions; returns disk bytes before and after.

        Old versions still hold deleted rows (prompts included), so this is also what makes
        a deletion final on disk. `keep_versions=timedelta(0)` drops every old version; only
        safe when no other process is reading the cache.
        """
        keep = self.keep_versions if keep_versions is None else keep_versions
        before = self._disk_bytes()
        with self._lock, self._guard("compact"), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            self._retry(lambda: self._table.optimize(cleanup_older_than=keep))
            self._committed(reload=True)
            self._writes = 0
        return {"before": before, "after": self._disk_bytes()}

    def _disk_bytes(self, table_stats: Any = None) -> int:
        """Bytes of the cache's files; in a bucket, the table's data bytes (no listing)."""
        if not self.location.remote:
            return dir_bytes(self.directory)
        if table_stats is None:
            with self._lock, self._guard("stats"):
                table_stats = self._table.stats()
        return int(table_stats["total_bytes"])

