"""The cache's folder and table: the folder made private (and measured on disk), the
bucket probed, the table opened or created, without mistaking a table another process is
creating for a damaged one.

A local cache's folder is created 0700 (prompts are private) and must be writable before
anything else; a bucket's endpoint is asked first whether it answers at all
(`CacheLocation.probe`), so a dead one fails in seconds. Two processes may open one cache
at the same moment: one creates the table while the other finds it half made, so opening
an existing table is retried for a moment before its failure counts as damage, and
creating one accepts that the other process created it first.
"""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from stepchat.core.ports import StoreError
from stepchat.paths import ensure_private_dir
from stepchat.store.lance_guard import store_errors
from stepchat.store.lance_import import import_lancedb
from stepchat.store.lance_schema import FILE_FORMAT, TABLE_NAME
from stepchat.store.location import CacheLocation

OPEN_TRIES = 10
OPEN_WAIT_S = 0.2


def prepare_directory(directory: Path) -> None:
    """Create the cache's folder (private) and check it can be written; one-line errors."""
    try:
        ensure_private_dir(directory)
    except OSError as exc:
        raise StoreError(
            f"cache store: cannot create {directory}: {exc.strerror or exc} "
            "(fix: choose a writable STEPCHAT_HOME)"
        ) from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise StoreError(
            f"cache store: {directory} is not writable (fix: chmod u+rwx or move it)"
        )


def connect(location: CacheLocation, consistency_seconds: float) -> Any:
    """A LanceDB connection to `location` that sees other processes' commits within
    `consistency_seconds`."""
    lancedb = import_lancedb()
    return lancedb.connect(
        location.uri,
        read_consistency_interval=timedelta(seconds=consistency_seconds),
        storage_options=location.storage_options(),
    )


def table_exists(db: Any, location: CacheLocation) -> bool:
    if not location.remote:
        return (Path(location.uri) / f"{TABLE_NAME}.lance").exists()
    listing: Any = db.list_tables()
    return TABLE_NAME in list(getattr(listing, "tables", None) or dict(listing)["tables"])


def open_existing(db: Any, location: CacheLocation) -> Any:
    """Open the table; a table another process is creating right now is waited for
    (bounded), so it is never mistaken for a corrupt one and moved aside."""
    for _ in range(OPEN_TRIES - 1):
        try:
            return db.open_table(TABLE_NAME)
        except Exception:
            time.sleep(OPEN_WAIT_S)
    with store_errors(location, "open", corrupt=True):
        return db.open_table(TABLE_NAME)


def create(db: Any, location: CacheLocation, schema: Any) -> Any:
    """A new table in LanceDB's `FILE_FORMAT`; one another process created first is fine."""
    with store_errors(location, "create"):
        return db.create_table(
            TABLE_NAME,
            schema=schema,
            exist_ok=True,
            storage_options={"new_table_data_storage_version": FILE_FORMAT},
        )


def dir_bytes(directory: Path) -> int:
    """Bytes of every file under `directory`; a file removed meanwhile counts nothing."""
    total = 0
    for root, _dirs, files in os.walk(directory):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                continue
    return total
