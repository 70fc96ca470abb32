"""The cache table's layout: its Arrow schema, what one row holds, and how a table written
under another layout is told apart.

A row is one `CacheEntry`; constraints and steps are JSON text, since their shape is each
task kind's own and the table must not change when a kind does. The schema carries its
version and vector width as metadata, so a table from another version of stepchat, or
written with another embedder, is recognised on open (`schema_mismatch`) and migrated or
moved aside by `stepchat.store.maintenance` instead of being misread.
"""

from __future__ import annotations

import json
from typing import Any

from stepchat.core.ports import StoreError
from stepchat.core.types import CacheEntry, step_from_dict, steps_json

SCHEMA_VERSION = 1
TABLE_NAME = "entries"
META_VERSION = b"stepchat.schema_version"
META_DIM = b"stepchat.dim"
KEY_COLUMNS = ["id", "scope", "signature", "created"]
"""What the in-memory signature map is rebuilt from."""
FILTER_COLUMNS = ("scope", "task")
"""What a table search filters on, so need not read back: the hit's are the query's."""
FILE_FORMAT = "2.1"
"""LanceDB file format of a new table. The newer 2.2 stores a column that holds one value
throughout a page (one scope, one model, no hits yet: common in a cache) as that value
alone, and reading a row back from such a page walks every row before it: at 1M rows, 4-5
ms per such column for each read of four hits, against ~1.4 ms in 2.1. A table keeps the
format it was created with."""


class CorruptStoreError(StoreError):
    """The table exists but cannot be read: its files are damaged."""


class SchemaMismatchError(StoreError):
    """The table was written under another schema version or vector width."""

    def __init__(self, message: str, version: str, dim: int | None) -> None:
        super().__init__(message)
        self.version = version
        self.dim = dim


def arrow_schema(pa: Any, dim: int) -> Any:
    """The table's Arrow schema for vectors of `dim` floats (`pa` is pyarrow)."""
    return pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("prompt", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
            pa.field("scope", pa.string()),
            pa.field("task", pa.string()),
            pa.field("signature", pa.string()),
            pa.field("constraints", pa.string()),
            pa.field("steps", pa.string()),
            pa.field("model", pa.string()),
            pa.field("created", pa.float64()),
            pa.field("last_hit", pa.float64()),
            pa.field("hits", pa.int64()),
            pa.field("tokens", pa.int64()),
        ],
        metadata={META_VERSION: str(SCHEMA_VERSION), META_DIM: str(dim)},
    )


def schema_mismatch(
    schema: Any, expected: Any, dim: int, location: object
) -> SchemaMismatchError | None:
    """Why a table whose schema is `schema` cannot be read as `expected`, or None."""
    meta = schema.metadata or {}
    version = meta.get(META_VERSION, b"?").decode(errors="replace")
    try:
        vector_type = schema.field("vector").type
    except KeyError:
        vector_type = None
    stored_dim = getattr(vector_type, "list_size", None)
    if version != str(SCHEMA_VERSION) or set(schema.names) != set(expected.names):
        return SchemaMismatchError(
            f"cache store {location}: schema version {version}, this stepchat "
            f"reads {SCHEMA_VERSION} (fix: stepchat cache clear)",
            version,
            stored_dim,
        )
    if stored_dim != dim:
        return SchemaMismatchError(
            f"cache store {location}: vectors have {stored_dim} dimensions, the "
            f"embedder gives {dim} (fix: stepchat cache clear)",
            version,
            stored_dim,
        )
    return None


def entry_row(entry: CacheEntry, dim: int) -> dict[str, Any]:
    """The row that stores `entry`; a vector of another width is a StoreError."""
    if len(entry.vector) != dim:
        raise StoreError(
            f"cache store: vector has {len(entry.vector)} dimensions, expected {dim}"
        )
    return {
        "id": entry.id,
        "prompt": entry.prompt,
        "vector": [float(v) for v in entry.vector],
        "scope": entry.scope,
        "task": str(entry.task),
        "signature": entry.signature,
        "constraints": json.dumps(entry.constraints, sort_keys=True),
        "steps": steps_json(entry.steps),
        "model": entry.model,
        "created": float(entry.created),
        "last_hit": float(entry.last_hit),
        "hits": int(entry.hits),
        "tokens": int(entry.tokens),
    }


def row_entry(row: dict[str, Any]) -> CacheEntry:
    """The entry a row stores."""
    return CacheEntry(
        id=row["id"],
        prompt=row["prompt"],
        vector=[float(v) for v in row["vector"]],
        scope=row["scope"],
        task=str(row["task"]),
        signature=row["signature"],
        constraints=json.loads(row["constraints"] or "{}"),
        steps=[step_from_dict(s) for s in json.loads(row["steps"] or "[]")],
        model=row["model"],
        created=float(row["created"]),
        last_hit=float(row["last_hit"]),
        hits=int(row["hits"]),
        tokens=int(row["tokens"]),
    )


def copy_entry(entry: CacheEntry) -> CacheEntry:
    """A copy callers may mutate without changing the cached one."""
    return CacheEntry(
        id=entry.id,
        prompt=entry.prompt,
        vector=list(entry.vector),
        scope=entry.scope,
        task=entry.task,
        signature=entry.signature,
        constraints=json.loads(json.dumps(entry.constraints)),
        steps=list(entry.steps),
        model=entry.model,
        created=entry.created,
        last_hit=entry.last_hit,
        hits=entry.hits,
        tokens=entry.tokens,
    )
