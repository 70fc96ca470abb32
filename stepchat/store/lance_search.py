"""How the cache table is searched and read by id: the LanceDB queries behind
`LanceStore.search` and `get`, apart from the store's locks and in-memory state.

A search reads its hits' rows in the same query: a second query by row id cost more than
the columns themselves (at 100k rows, p50 13.3 ms for search then read, 11.1 ms in one
query). Scope and task are not read: the filter fixes them, and a column holding one value
throughout is the slowest kind to read from a file of LanceDB's 2.2 format (see
`lance_schema.FILE_FORMAT`). An entry is read by its row id (~1 ms) when the store knows
it, else by an id filter; a row id read before another process compacted the table may
point elsewhere now, so a row whose id is not the one asked for falls back to the filter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stepchat.store.mirror import NO_ROW
from stepchat.store.sql import sql_str


def nearest_rows(
    table: Any,
    vector: Sequence[float],
    *,
    scope: str,
    task: str,
    k: int,
    columns: list[str],
    tune: Callable[[Any], Any] | None = None,
) -> list[tuple[dict[str, Any], float]]:
    """The `k` rows of `scope` and `task` nearest `vector` by cosine, with their
    similarity; `columns` are read (scope and task filled in), `tune` sets an index's
    search parameters."""
    where = f"scope = {sql_str(scope)} AND task = {sql_str(task)}"
    # search() is typed as the generic builder; with a vector it is the vector one.
    vector_query: Any = table.search([float(v) for v in vector], vector_column_name="vector")
    query = (
        vector_query.distance_type("cosine")
        .where(where, prefilter=True)
        .select(columns)
        .limit(k)
    )
    if tune is not None:
        query = tune(query)
    return [
        ({**row, "scope": scope, "task": task}, 1.0 - float(row["_distance"]))
        for row in query.to_arrow().to_pylist()
    ]


def rows_by_id(table: Any, wanted: Sequence[tuple[str, int]]) -> dict[str, dict[str, Any]]:
    """The rows of `wanted` (entry id, row id or `NO_ROW`), by id: by row id where one is
    given and still holds that entry, else by an id filter."""
    found: dict[str, dict[str, Any]] = {}
    by_row = {row: entry_id for entry_id, row in wanted if row != NO_ROW}
    if by_row:
        taken: list[dict[str, Any]] = table.take_row_ids(list(by_row)).to_arrow().to_pylist()
        asked = set(by_row.values())
        for got in taken:
            if got["id"] in asked:
                found[got["id"]] = got
    rest = [entry_id for entry_id, _row in wanted if entry_id not in found]
    if rest:
        where = "id IN (" + ", ".join(sql_str(i) for i in rest) + ")"
        records: list[dict[str, Any]] = (
            table.search().where(where).limit(len(rest)).to_arrow().to_pylist()
        )
        for record in records:
            found[record["id"]] = record
    return found
