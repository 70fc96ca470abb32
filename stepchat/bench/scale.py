"""`stepchat bench --scale`: how the persistent store behaves with many entries.

For each size the store is filled in bulk through LanceDB itself (one `add` per row would
measure compaction, not the store at that size) with the entries of `scale_data`, then
opened the way stepchat opens it and optimised in the foreground, which builds the indexes
a table of that size gets; that time is the index build time. Then a fresh process opens
the store the way the app does (model and embedder loaded first, so its RSS is the app's)
and measures lookups, single inserts and an eviction; the bench process judges every lookup
against an exhaustive scan of the same vectors (top-1 recall) and measures disk bytes.

With `uri`, each size lives under that bucket prefix instead of a local temp directory.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np

from stepchat.bench import scale_data
from stepchat.bench.scale_data import Workload

SCOPE = "bench-scale"
DIM = 384
"""MiniLM's dimension, so sizes and timings match the shipped embedder."""
FILL_BATCH = 20_000
RECALL_TOLERANCE = 1e-5
"""A returned entry counts as the nearest when it is as similar as the true nearest (ties)."""


def _columns(start: int, workload: Workload, end: int, now: float) -> dict[str, list[Any]]:
    """Rows `start:end` of the workload, column by column, in the store's on-disk layout."""
    n = end - start
    steps = json.dumps(
        [{"text": "2x + 3 = 7", "kind": "equation"}, {"text": "x = 2", "kind": "final"}]
    )
    return {
        "id": [f"scale-{i}" for i in range(start, end)],
        "prompt": workload.prompts[start:end],
        "scope": [SCOPE] * n,
        "task": [str(t) for t in workload.tasks[start:end]],
        "signature": [f"sig-{i}" for i in range(start, end)],
        "constraints": ["{}"] * n,
        "steps": [steps] * n,
        "model": ["bench"] * n,
        "created": [now - i for i in range(start, end)],
        "last_hit": [now - i for i in range(start, end)],
        "hits": [0] * n,
        "tokens": [40] * n,
    }


def bulk_fill(location: str, workload: Workload, now: float) -> None:
    """Append the workload's rows straight into the store's LanceDB table, in big batches."""
    import pyarrow as pa

    from stepchat.store.lance import TABLE_NAME
    from stepchat.store.lance_import import import_lancedb
    from stepchat.store.location import CacheLocation

    lancedb = import_lancedb()

    where = CacheLocation.of(location)
    table = lancedb.connect(where.uri, storage_options=where.storage_options()).open_table(
        TABLE_NAME
    )
    schema = table.schema
    for start in range(0, len(workload), FILL_BATCH):
        end = min(start + FILL_BATCH, len(workload))
        cols = _columns(start, workload, end, now)
        flat = pa.array(workload.vectors[start:end].reshape(-1), type=pa.float32())
        vector = pa.FixedSizeListArray.from_arrays(flat, DIM)
        arrays = [
            vector if f.name == "vector" else pa.array(cols[f.name], type=f.type) for f in schema
        ]
        table.add(pa.Table.from_arrays(arrays, schema=schema))


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def _probe(location: str, queries: Path, tasks: list[str], *, with_model: bool,
           inserts: int, evict: int) -> dict[str, Any]:
    """Run `stepchat.bench.scale_probe` in a fresh process; its JSON report."""
    spec = {
        "location": location, "queries": str(queries), "tasks": tasks, "scope": SCOPE,
        "with_model": with_model, "inserts": inserts, "evict": evict,
    }
    done = subprocess.run(
        [sys.executable, "-m", "stepchat.bench.scale_probe"],
        input=json.dumps(spec), capture_output=True, text=True, env=os.environ.copy(),
        check=False,
    )
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"scale probe failed: {tail}")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def _open_and_optimize(location: str) -> str:
    """Open the filled table as stepchat does and optimise it in the foreground; returns
    the index kind. Both count as build time: opening a table whose fragments piled up
    already compacts it and builds its indexes (72 s of the 74 s at 1M rows)."""
    from stepchat.store.lance import LanceStore

    with closing(LanceStore(location, dim=DIM, background_index=False)) as store:
        store.optimize()
        return store.index_kind()


def measure_size(
    size: int,
    location: str,
    workload: Workload,
    *,
    inserts: int = 100,
    evict: int = 100,
    with_model: bool = True,
) -> dict[str, Any]:
    """Fill a fresh store at `location` with `size` entries and measure it."""
    from stepchat.store.lance import LanceStore
    from stepchat.store.location import CacheLocation

    now = time.time()
    LanceStore(location, dim=DIM).close()  # creates the table with the store's schema
    fill_s, _ = _timed(lambda: bulk_fill(location, workload, now))
    build_s, kind = _timed(lambda: _open_and_optimize(location))

    with tempfile.TemporaryDirectory(prefix="stepchat-scale-q-") as tmp:
        queries = Path(tmp) / "queries.npy"
        np.save(queries, workload.queries)
        tasks = [str(t) for t in workload.query_tasks]
        probe = _probe(location, queries, tasks, with_model=with_model, inserts=inserts,
                       evict=evict)
    best = scale_data.exact_bests(workload)
    found = 0
    for i, entry_id in enumerate(probe["top1"]):
        if entry_id is None or not entry_id.startswith("scale-"):
            continue
        row = int(entry_id.removeprefix("scale-"))
        found += float(workload.vectors[row] @ workload.queries[i]) >= best[i] - RECALL_TOLERANCE
    lookups = len(probe["top1"])
    return {
        "entries": size,
        "vectors": "synthetic" if workload.synthetic else "MiniLM",
        "where": "bucket" if CacheLocation.of(location).remote else "local disk",
        "index": kind,
        "search": probe["search"],
        "fill_s": fill_s,
        "index_build_s": build_s,
        "open_s": probe["open_s"],
        "lookup_p50_ms": probe["lookup_p50_ms"],
        "lookup_p95_ms": probe["lookup_p95_ms"],
        "top1_recall": found / lookups if lookups else math.nan,
        "insert_mean_ms": probe["insert_mean_ms"],
        "insert_p95_ms": probe["insert_p95_ms"],
        "evict_ms": probe["evict_ms"],
        "evicted": probe["evicted"],
        "disk_bytes": probe["disk_bytes"],
        "rss_bytes": probe["rss_bytes"],
        "rss_store_bytes": probe["rss_store_bytes"],
        "rss_with_model": with_model,
        **{key: value for key, value in probe.items() if key.startswith("f2_")},
    }


def run_scale(
    sizes: list[int],
    *,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    workdir: Path | None = None,
    uri: str | None = None,
    lookups: int = 200,
    with_model: bool = True,
    embed: scale_data.Embed | None = None,
    vectors_dir: Path | None = None,
    real_limit: int = scale_data.REAL_LIMIT,
) -> list[dict[str, Any]]:
    """Measure each size in a fresh store (a temp dir, or `uri/scale-N` in a bucket);
    sizes past `real_limit` get synthetic vectors grown from the real ones."""
    embed = embed or scale_data.minilm_embed()
    real_pool = min(max(sizes), real_limit)
    results = []
    with tempfile.TemporaryDirectory(prefix="stepchat-scale-") as tmp:
        base = workdir or Path(tmp)
        stamp = time.strftime("%Y%m%d%H%M%S")
        for size in sizes:
            workload = scale_data.build(size, lookups, embed, vectors_dir, real_pool)
            location = (
                f"{uri.rstrip('/')}/scale-{stamp}-{size}" if uri else str(base / f"store-{size}")
            )
            row = measure_size(size, location, workload, with_model=with_model)
            results.append(row)
            if on_done is not None:
                on_done(row)
    return results


def scale_table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| entries | vectors | where | search | lookup p50 ms | lookup p95 ms | top-1 recall "
        "| index build s | insert mean ms | insert p95 ms | evict 100 ms | disk MB "
        "| RSS MB | RSS above model+embedder MB |\n"
        "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    body = "".join(
        f"| {r['entries']:,} | {r['vectors']} | {r['where']} | {r['search']} "
        f"| {r['lookup_p50_ms']:.1f} | {r['lookup_p95_ms']:.1f} "
        f"| {r['top1_recall'] * 100:.1f}% | {r['index_build_s']:.1f} "
        f"| {r['insert_mean_ms']:.1f} | {r['insert_p95_ms']:.1f} | {r['evict_ms']:.0f} "
        f"| {r['disk_bytes'] / 2**20:.1f} | {r['rss_bytes'] / 2**20:.0f} "
        f"| {r['rss_store_bytes'] / 2**20:.0f} |\n"
        for r in rows
    )
    return head + body



def inspector_table(rows: list[dict[str, Any]]) -> str:
    """Opening the inspector (F2) at each size, and a lookup made while it opens: as it is
    (a narrow first page and the highlighted entry) and as it was (every entry whole, under
    the store lock; timed up to 100k entries)."""

    def before(r: dict[str, Any], key: str, fmt: str) -> str:
        return format(r[key], fmt) if key in r else "-"

    head = (
        "| entries | F2 open ms | lookup during F2 p50 ms | lookup during F2 max ms "
        "| before: F2 open ms | before: lookup p50 ms | before: lookup max ms |\n"
        "|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    body = "".join(
        f"| {r['entries']:,} | {r['f2_open_ms']:.1f} | {r['f2_lookup_p50_ms']:.1f} "
        f"| {r['f2_lookup_max_ms']:.1f} | {before(r, 'f2_before_open_ms', '.0f')} "
        f"| {before(r, 'f2_before_lookup_p50_ms', '.1f')} "
        f"| {before(r, 'f2_before_lookup_max_ms', '.0f')} |\n"
        for r in rows
    )
    return head + body
