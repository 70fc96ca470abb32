"""Opening the cache so that no state of its files can stop stepchat from answering.

A cache is a convenience. A table whose files are damaged is moved aside with a timestamp
(`cache.corrupt-YYYYmmdd-HHMMSS`) and a fresh one starts; a table written by an older
stepchat is migrated row by row; one written by a newer stepchat or for another embedder is
moved aside too (its data is kept, never deleted). Each of these is one line for the user.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from stepchat.core.types import CacheEntry, step_from_dict
from stepchat.store.lance import (
    SCHEMA_VERSION,
    TABLE_NAME,
    CorruptStoreError,
    LanceStore,
    SchemaMismatchError,
)
from stepchat.store.lance_import import import_lancedb
from stepchat.store.location import CacheLocation


def move_aside(directory: Path, label: str) -> Path:
    """Rename `directory` to `<name>.<label>-YYYYmmdd-HHMMSS` next to it; returns the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = directory.with_name(f"{directory.name}.{label}-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = directory.with_name(f"{directory.name}.{label}-{stamp}-{n}")
    directory.rename(target)
    return target


def open_lance(
    where: Path | str | CacheLocation, dim: int, **options: Any
) -> tuple[LanceStore, list[str]]:
    """A usable LanceStore at `where`, and what the user should be told about it.

    Raises StoreError only when the directory itself cannot be used (not writable). A cache
    in a bucket is shared: nothing there is moved or migrated on one reader's say-so, so a
    damaged or foreign table in a bucket is a StoreError naming the fix.
    """
    location = where if isinstance(where, CacheLocation) else CacheLocation.of(where)
    if location.remote or options.get("read_only"):
        # Repairs write: a shared bucket and a read-only opening leave them to others.
        return LanceStore(location, dim, **options), []
    directory = location.path
    try:
        return LanceStore(directory, dim, **options), []
    except CorruptStoreError as exc:
        moved = move_aside(directory, "corrupt")
        note = (
            f"the cache could not be read ({_reason(exc)}); moved it to {moved} "
            "and started a fresh cache"
        )
    except SchemaMismatchError as exc:
        note = _migrate_or_move(directory, dim, exc)
    return LanceStore(directory, dim, **options), [note]


def _migrate_or_move(directory: Path, dim: int, exc: SchemaMismatchError) -> str:
    if _migratable(exc, dim):
        try:
            count = migrate(directory, dim)
        except Exception as failure:  # any failure to read the old table: keep it aside
            moved = move_aside(directory, "corrupt")
            return (
                f"the cache could not be migrated ({type(failure).__name__}); moved it to "
                f"{moved} and started a fresh cache"
            )
        return f"migrated the cache ({count} entries) from schema {exc.version} to {SCHEMA_VERSION}"
    label = f"schema-v{exc.version}" if exc.dim == dim else f"dim{exc.dim}"
    moved = move_aside(directory, label)
    return f"{_reason(exc)}; moved the old cache to {moved} and started a fresh cache"


def _reason(exc: Exception) -> str:
    text = str(exc)
    return text.split(": ", 1)[1] if ": " in text else text


def _migratable(exc: SchemaMismatchError, dim: int) -> bool:
    """Older (or unlabelled) schemas with vectors of the right width can be carried over."""
    if exc.dim != dim:
        return False
    return exc.version == "?" or (exc.version.isdigit() and int(exc.version) < SCHEMA_VERSION)


def migrate(directory: Path, dim: int) -> int:
    """Rewrite the table at `directory` in the current schema; returns the entries kept.

    The new table is built next to the old one and swapped in by renames, so a crash
    midway leaves either the old cache or the new one (at worst a fresh, empty one).
    """
    rows = import_lancedb().connect(directory).open_table(TABLE_NAME).to_arrow().to_pylist()
    entries = [e for e in (_entry_from_old(row) for row in rows) if e is not None]
    staging = directory.with_name(f"{directory.name}.migrating")
    shutil.rmtree(staging, ignore_errors=True)
    LanceStore(staging, dim, optimize_every=0).add_many(entries)
    old = move_aside(directory, "old")
    staging.rename(directory)
    shutil.rmtree(old, ignore_errors=True)
    return len(entries)


def _entry_from_old(row: dict[str, Any]) -> CacheEntry | None:
    """A current entry from a row of an older schema, with defaults for missing fields."""
    try:
        created = float(row.get("created") or time.time())
        steps = row.get("steps") or "[]"
        constraints = row.get("constraints") or "{}"
        return CacheEntry(
            id=str(row["id"]),
            prompt=str(row["prompt"]),
            vector=[float(v) for v in row["vector"]],
            scope=str(row["scope"]),
            task=str(row["task"]),
            signature=str(row.get("signature") or ""),
            constraints=json.loads(constraints) if isinstance(constraints, str) else {},
            steps=[step_from_dict(s) for s in json.loads(steps)],
            model=str(row.get("model") or ""),
            created=created,
            last_hit=float(row.get("last_hit") or created),
            hits=int(row.get("hits") or 0),
            tokens=int(row.get("tokens") or 0),
        )
    except (KeyError, TypeError, ValueError):
        return None  # a row this stepchat cannot read is dropped, not guessed at
