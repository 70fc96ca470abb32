"""The structural lookup without LanceDB: the newest entry per signature in a SQLite file.

Importing LanceDB costs about 1.5 s of CPU before a single row is read, longer than the
whole budget of a structural hit from the shell. This index answers `find_signature` with
the standard library's sqlite3 (a few milliseconds), so `stepchat ask` on an exact or
structural repeat never imports LanceDB, torch or llama.cpp.

LanceDB stays the one source of truth; this file is derived from it and may lag behind:
- Entries are written here after LanceDB committed them, and removed here before LanceDB
  deletes them, so a crash between the two leaves an entry the index lacks (the request
  then takes the LanceDB path), never one the index serves after the user evicted it.
- Whenever a process has LanceDB open it reconciles the index with the table's own
  signature map (`reconcile`), which also drops entries evicted by size or age limits.
- A hit served from here is recorded as a pending touch and written to LanceDB by the next
  process that opens it, so hit counts (and least-recently-hit eviction) stay right.
Any SQLite failure disables the index for the process: the request goes on through LanceDB.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stepchat.core.types import CacheEntry, TaskKind, step_from_dict, step_to_dict

log = logging.getLogger("stepchat.store")

INDEX_FILE = "signatures.sqlite3"
SCHEMA_VERSION = "1"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS signatures (scope TEXT NOT NULL, signature TEXT NOT NULL, "
    "id TEXT NOT NULL, created REAL NOT NULL, entry TEXT NOT NULL, "
    "PRIMARY KEY (scope, signature))",
    "CREATE INDEX IF NOT EXISTS signatures_id ON signatures (id)",
    "CREATE TABLE IF NOT EXISTS touches (id TEXT NOT NULL, at REAL NOT NULL)",
)


def _payload(entry: CacheEntry) -> str:
    """The entry without its vector: a structural hit never needs it."""
    return json.dumps(
        {
            "id": entry.id, "prompt": entry.prompt, "scope": entry.scope,
            "task": str(entry.task), "signature": entry.signature,
            "constraints": entry.constraints, "steps": [step_to_dict(s) for s in entry.steps],
            "model": entry.model, "created": entry.created, "last_hit": entry.last_hit,
            "hits": entry.hits, "tokens": entry.tokens,
        },
        ensure_ascii=False,
    )


def _entry(payload: str) -> CacheEntry:
    data: dict[str, Any] = json.loads(payload)
    return CacheEntry(
        id=str(data["id"]), prompt=str(data["prompt"]), vector=[], scope=str(data["scope"]),
        task=TaskKind(data["task"]), signature=str(data["signature"]),
        constraints=dict(data["constraints"]),
        steps=[step_from_dict(s) for s in data["steps"]], model=str(data["model"]),
        created=float(data["created"]), last_hit=float(data["last_hit"]),
        hits=int(data["hits"]), tokens=int(data["tokens"]),
    )


class SignatureIndex:
    """Newest entry per (scope, signature), kept next to the LanceDB table in `directory`."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / INDEX_FILE
        self._conn: sqlite3.Connection | None = None
        self._broken = False
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ plumbing

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """The open connection, or None when there is no index (yet) or it failed."""
        if self._conn is not None or self._broken:
            return self._conn
        if not create and not self.path.is_file():
            return None
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None,
                               check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        # Deleted rows are overwritten with zeros, not left in free pages: an evicted
        # prompt must not stay readable in this file (see `purge` for the journal).
        conn.execute("PRAGMA secure_delete=ON")
        with conn:
            for statement in _SCHEMA:
                conn.execute(statement)
            row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if row is None or row[0] != SCHEMA_VERSION:
                conn.execute("DELETE FROM signatures")
                conn.execute("DELETE FROM touches")
                conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)",
                    (SCHEMA_VERSION,),
                )
        self._conn = conn
        return conn

    def _run(self, action: str, work: Any, *, create: bool = False, default: Any = None) -> Any:
        """Run `work(conn)` under the lock; a SQLite failure disables the index."""
        with self._lock:
            try:
                conn = self._connect(create)
                return default if conn is None else work(conn)
            except (sqlite3.Error, OSError, ValueError, KeyError, TypeError) as exc:
                # Not a warning: the request goes on through LanceDB, and on a full disk the
                # user is told once, by the store, that the answer was not cached.
                log.info("stepchat: signature index %s failed (%s); not using it", action, exc)
                self._broken = True
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None
                return default

    # ------------------------------------------------------------------ lookups

    def find(self, scope: str, signature: str) -> CacheEntry | None:
        def work(conn: sqlite3.Connection) -> CacheEntry | None:
            row = conn.execute(
                "SELECT entry FROM signatures WHERE scope = ? AND signature = ?",
                (scope, signature),
            ).fetchone()
            return None if row is None else _entry(row[0])

        found: CacheEntry | None = self._run("lookup", work)
        return found

    def touch(self, entry_id: str, when: float) -> bool:
        """Queue a hit for LanceDB; False when the index could not record it."""

        def work(conn: sqlite3.Connection) -> bool:
            conn.execute("INSERT INTO touches (id, at) VALUES (?, ?)", (entry_id, when))
            return True

        return bool(self._run("touch", work, default=False))

    def take_touches(self) -> list[tuple[str, float]]:
        """The queued hits, removed from the queue in the same transaction."""

        def work(conn: sqlite3.Connection) -> list[tuple[str, float]]:
            with conn:
                rows = conn.execute("SELECT rowid, id, at FROM touches ORDER BY rowid").fetchall()
                if rows:
                    conn.execute("DELETE FROM touches WHERE rowid <= ?", (rows[-1][0],))
            return [(str(r[1]), float(r[2])) for r in rows]

        touches: list[tuple[str, float]] = self._run("read touches", work, default=[])
        return touches

    # ------------------------------------------------------------------ changes

    def put(self, entry: CacheEntry) -> None:
        """Record a committed entry if it is the newest of its signature."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO signatures (scope, signature, id, created, entry) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, signature) DO UPDATE SET "
                "id = excluded.id, created = excluded.created, entry = excluded.entry "
                "WHERE excluded.created >= signatures.created",
                (entry.scope, entry.signature, entry.id, entry.created, _payload(entry)),
            )

        self._run("write", work, create=True)

    def remove(self, entry_id: str) -> bool:
        """Forget one entry before the store deletes it; False if the index is unusable."""

        def work(conn: sqlite3.Connection) -> bool:
            conn.execute("DELETE FROM signatures WHERE id = ?", (entry_id,))
            return True

        return self._run("delete", work, default=False) or self._discard()

    def clear(self) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            with conn:
                conn.execute("DELETE FROM signatures")
                conn.execute("DELETE FROM touches")
            return True

        return self._run("clear", work, default=False) or self._discard()

    def reconcile(self, newest: Mapping[tuple[str, str], str]) -> int:
        """Drop rows whose signature's newest entry in the store is another one (or none).

        `newest` maps (scope, signature) to the store's newest entry id. Rows the index
        lacks are added by `put` when their entries are next found or written.
        """

        def work(conn: sqlite3.Connection) -> int:
            with conn:
                rows = conn.execute("SELECT scope, signature, id FROM signatures").fetchall()
                stale = [(s, g) for s, g, i in rows if newest.get((s, g)) != i]
                conn.executemany(
                    "DELETE FROM signatures WHERE scope = ? AND signature = ?", stale
                )
            return len(stale)

        dropped: int = self._run("reconcile", work, default=0)
        return dropped

    def purge(self) -> None:
        """Write the journal back into the file and empty it: older copies of pages that
        held a removed entry live in the WAL until then."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

        self._run("purge", work)

    def _discard(self) -> bool:
        """Delete an index that cannot be updated, so it can never serve a removed entry;
        True when no index file is left."""
        self.close()
        for suffix in ("", "-wal", "-shm"):
            try:
                self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
            except OSError as exc:
                log.warning("stepchat: cannot remove the signature index: %s", exc)
                return False
        return True

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
