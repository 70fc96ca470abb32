"""A listing of the LanceDB cache table, read narrow and a page at a time.

`LanceStore.entries` reads whole rows, vectors included (1.5 kB of floats per entry). A
listing first reads two small columns of every row (id and last hit, plus prompt, task and
model when a filter needs them), sorts and filters those, and only then reads the page's
rows, still without vectors. It takes no store lock: LanceDB tables take reads beside
writes, so a lookup never waits for the inspector.
"""

from __future__ import annotations

import json
from typing import Any

from stepchat.core.listing import EntryPage, EntrySummary, matches
from stepchat.store.sql import sql_str
from stepchat.store.upkeep import SIZE_SQL

_CHUNK = 500
"""Ids per `IN (...)` filter when reading a page's rows."""
_PAGE_COLUMNS = {
    "id": "id", "prompt": "prompt", "task": "task", "model": "model", "scope": "scope",
    "hits": "hits", "last_hit": "last_hit", "steps": "steps", "size": SIZE_SQL,
}


def read_listing(
    table: Any, dim: int, *, offset: int, limit: int | None, needle: str
) -> EntryPage:
    """Rows `offset:offset + limit` of the entries matching `needle`, newest hit first
    (entries hit at the same moment keep the table's order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = {"id": "id", "last_hit": "last_hit"}
    if needle.strip():
        columns |= {"prompt": "prompt", "task": "task", "model": "model"}
    keys = table.search().select(columns).limit(None).to_arrow()
    if needle.strip():
        kept = [
            matches(needle, prompt or "", task or "", model or "", entry_id)
            for entry_id, prompt, task, model in zip(
                keys["id"].to_pylist(), keys["prompt"].to_pylist(), keys["task"].to_pylist(),
                keys["model"].to_pylist(), strict=True,
            )
        ]
        keys = keys.filter(pa.array(kept, type=pa.bool_()))
    if keys.num_rows == 0:
        return EntryPage([], 0)
    order = pc.sort_indices(keys, sort_keys=[("last_hit", "descending")])
    end = None if limit is None else offset + limit
    ids: list[str] = keys["id"].take(order[offset:end]).to_pylist()
    return EntryPage(_page_rows(table, dim, ids), keys.num_rows)


def _page_rows(table: Any, dim: int, ids: list[str]) -> list[EntrySummary]:
    """The summaries of `ids`, in that order; an entry deleted meanwhile is left out."""
    found: dict[str, EntrySummary] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        where = "id IN (" + ", ".join(sql_str(i) for i in chunk) + ")"
        query = table.search().where(where).select(_PAGE_COLUMNS).limit(len(chunk))
        for row in query.to_arrow().to_pylist():
            found[row["id"]] = EntrySummary(
                id=row["id"], prompt=row["prompt"] or "", task=str(row["task"]),
                model=row["model"] or "", scope=row["scope"] or "",
                steps=len(json.loads(row["steps"] or "[]")), hits=int(row["hits"]),
                last_hit=float(row["last_hit"]), size=int(row["size"] or 0) + 4 * dim,
            )
    return [found[i] for i in ids if i in found]


def read_all(table: Any, limit: int | None = None) -> list[dict[str, Any]]:
    """Whole rows, vectors included, newest hit first (the first `limit`): what
    `LanceStore.entries` returns, for callers that need every field (export, migration)."""
    rows = table.search().limit(None).to_arrow()
    if rows.num_rows == 0:
        return []
    import pyarrow.compute as pc

    order = pc.sort_indices(rows, sort_keys=[("last_hit", "descending")])
    if limit is not None:
        order = order[:limit]
    found: list[dict[str, Any]] = rows.take(order).to_pylist()
    return found
