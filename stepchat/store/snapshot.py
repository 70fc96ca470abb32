"""What the store keeps in memory about its table, read in one go at one table version.

The signature map needs every entry's keys, and the vector mirror needs the vectors it does
not hold yet. Both are read here, without touching the store's memory, so a background
thread can do the reading (seconds at a million rows) and the store swaps the result in
under its lock in microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stepchat.store.mirror import VectorMirror

KEY_COLUMNS = ["id", "scope", "signature", "created"]
_TAKE_CHUNK = 4096


@dataclass
class Snapshot:
    """The table's keys (column by column, with row ids) and the vectors the mirror lacked,
    at `version`. Columns, not row dicts: a million dicts would cost a gigabyte."""

    version: int
    ids: list[str]
    scopes: list[str]
    signatures: list[str]
    created: list[float]
    rowids: list[int]
    vectors: list[tuple[list[dict[str, Any]], Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)


def matrix(column: Any, dim: int) -> Any:
    """A FixedSizeList<float32> column as an (n, dim) numpy matrix, without Python floats."""
    flat = column.combine_chunks().flatten() if hasattr(column, "combine_chunks") else column
    return flat.to_numpy(zero_copy_only=False).reshape(-1, dim)


def read_snapshot(table: Any, dim: int, mirror_limit: int, stamps: dict[str, float]) -> Snapshot:
    """Keys of every row; vectors of rows whose `created` differs from `stamps` (new or
    replaced) when the table is small enough to mirror."""
    version = table.version
    keys = table.search().select(KEY_COLUMNS).with_row_id(True).limit(None).to_arrow()
    snapshot = Snapshot(
        version,
        *(keys[name].to_pylist() for name in ("id", "scope", "signature", "created", "_rowid")),
    )
    if len(snapshot) > mirror_limit:
        return snapshot
    missing = [
        row
        for entry_id, created, row in zip(
            snapshot.ids, snapshot.created, snapshot.rowids, strict=True
        )
        if stamps.get(entry_id) != created
    ]
    for begin in range(0, len(missing), _TAKE_CHUNK):
        fetched = (
            table.take_row_ids(missing[begin : begin + _TAKE_CHUNK])
            .select(["id", "scope", "task", "created", "vector"])
            .with_row_id()
            .to_arrow()
        )
        snapshot.vectors.append((fetched.to_pylist(), matrix(fetched["vector"], dim)))
    return snapshot


def apply_snapshot(mirror: VectorMirror, stamps: dict[str, float], snapshot: Snapshot) -> bool:
    """Make `mirror` equal to the table; False when a row is missing from it (dropped after
    the stamps were read, so never fetched): the caller reads again.

    Rows the mirror already held only learn their current row ids, which compaction changes.
    """
    present = set(snapshot.ids)
    for gone in [i for i in mirror.ids() if i not in present]:
        mirror.drop(gone)
        stamps.pop(gone, None)
    for fetched, vectors in snapshot.vectors:
        for i, row in enumerate(fetched):
            mirror.put(row["id"], row["scope"], row["task"], vectors[i], row["_rowid"])
            stamps[row["id"]] = row["created"]
    complete = True
    for entry_id, rowid in zip(snapshot.ids, snapshot.rowids, strict=True):
        if entry_id not in mirror:
            complete = False
        mirror.set_row(entry_id, rowid)
    return complete
