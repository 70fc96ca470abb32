"""`stepchat bench --scale`: how the persistent store behaves with many entries.

For each size the store is filled with synthetic entries (random unit vectors, short
linear/JSON prompts and steps) in bulk through LanceDB itself — one `add` per row would
measure compaction, not the store at that size — then reopened the way stepchat opens it
and optimised (which builds the ANN index past the store's threshold, here in the
foreground so it is in place before anything is measured). Then it measures
lookup latency (and whether the nearest entry is found), single inserts, eviction of the
least-recently-hit entries, disk size, process RSS and the index kind in use.
"""

from __future__ import annotations

import json
import math
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from stepchat.bench.metrics import percentile
from stepchat.core.types import CacheEntry, Step, TaskKind

SCOPE = "bench-scale"
DIM = 384
"""MiniLM's dimension, so sizes and timings match the shipped embedder."""
FILL_BATCH = 10_000


def _rss_bytes() -> int:
    """Current resident set size of this process (Linux /proc), else the peak."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    vecs = rng.standard_normal((n, dim)).astype("float32")
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def _columns(start: int, vectors: np.ndarray, now: float) -> dict[str, list[Any]]:
    """Synthetic rows, column by column, in the store's on-disk layout."""
    n = len(vectors)
    ids = [f"scale-{start + i}" for i in range(n)]
    tasks = [str(TaskKind.LINEAR) if (start + i) % 2 == 0 else str(TaskKind.JSON) for i in range(n)]
    prompts = [
        f"Solve for x: {i % 9 + 2}x + {i % 17} = {i % 41}. Show each step."
        for i in range(start, start + n)
    ]
    steps = json.dumps(
        [{"text": "2x + 3 = 7", "kind": "equation"}, {"text": "x = 2", "kind": "final"}]
    )
    return {
        "id": ids,
        "prompt": prompts,
        "scope": [SCOPE] * n,
        "task": tasks,
        "signature": [f"sig-{start + i}" for i in range(n)],
        "constraints": ["{}"] * n,
        "steps": [steps] * n,
        "model": ["synthetic"] * n,
        "created": [now - (start + i) for i in range(n)],
        "last_hit": [now - (start + i) for i in range(n)],
        "hits": [0] * n,
        "tokens": [40] * n,
    }


def bulk_fill(directory: Path, vectors: np.ndarray, now: float) -> None:
    """Append synthetic rows straight into the store's LanceDB table, in big batches."""
    import lancedb
    import pyarrow as pa

    from stepchat.store.lance import TABLE_NAME

    table = lancedb.connect(directory).open_table(TABLE_NAME)
    schema = table.schema
    for start in range(0, len(vectors), FILL_BATCH):
        chunk = vectors[start : start + FILL_BATCH]
        cols = _columns(start, chunk, now)
        flat = pa.array(chunk.reshape(-1), type=pa.float32())
        vector = pa.FixedSizeListArray.from_arrays(flat, chunk.shape[1])
        arrays = [
            vector if f.name == "vector" else pa.array(cols[f.name], type=f.type) for f in schema
        ]
        table.add(pa.Table.from_arrays(arrays, schema=schema))


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return (time.perf_counter() - start) * 1000, result


def measure_size(
    size: int,
    workdir: Path,
    *,
    lookups: int = 200,
    inserts: int = 100,
    evict: int = 100,
    seed: int = 7,
) -> dict[str, Any]:
    """Fill a fresh store with `size` entries and measure it."""
    from stepchat.store.lance import LanceStore

    rng = np.random.default_rng(seed)
    directory = workdir / f"store-{size}"
    now = time.time()
    vectors = _unit(rng, size, DIM)
    LanceStore(directory, dim=DIM)  # creates the table with the store's schema
    fill_ms, _ = _timed(lambda: bulk_fill(directory, vectors, now))
    # Build the index in the foreground: the bench measures the store once it has landed.
    open_ms, store = _timed(lambda: LanceStore(directory, dim=DIM, background_index=False))
    optimize_ms, _ = _timed(store.optimize)

    picks = rng.integers(0, size, lookups)
    lookup_ms: list[float] = []
    found = 0
    for i in picks:
        noisy = vectors[i] + rng.standard_normal(DIM).astype("float32") * 0.01
        query = (noisy / np.linalg.norm(noisy)).tolist()
        task = TaskKind.LINEAR if i % 2 == 0 else TaskKind.JSON
        start = time.perf_counter()
        hits = store.search(query, scope=SCOPE, task=task, k=4)
        ms = (time.perf_counter() - start) * 1000
        lookup_ms.append(ms)
        found += bool(hits) and hits[0].entry.id == f"scale-{i}"

    insert_ms: list[float] = []
    for vec in _unit(rng, inserts, DIM):
        entry = CacheEntry(
            id=f"new-{len(insert_ms)}",
            prompt="Solve for x: 2x + 3 = 7.",
            vector=vec.tolist(),
            scope=SCOPE,
            task=TaskKind.LINEAR,
            signature=f"new-{len(insert_ms)}",
            constraints={},
            steps=[Step("x = 2", "final")],
            model="synthetic",
            created=now,
            last_hit=now,
        )
        start = time.perf_counter()
        store.add(entry)
        insert_ms.append((time.perf_counter() - start) * 1000)

    total = store.count()
    evict_ms, evicted = _timed(
        lambda: store.evict_to_limits(max_entries=max(total - evict, 0), max_bytes=2**62)
    )
    stats = store.stats()
    return {
        "entries": size,
        "index": store.index_kind(),
        "fill_s": fill_ms / 1000,
        "open_s": open_ms / 1000,
        "optimize_s": optimize_ms / 1000,
        "lookup_p50_ms": percentile(lookup_ms, 50),
        "lookup_p95_ms": percentile(lookup_ms, 95),
        "lookup_top1_found": found / lookups if lookups else math.nan,
        "insert_mean_ms": statistics.fmean(insert_ms) if insert_ms else math.nan,
        "insert_p95_ms": percentile(insert_ms, 95),
        "evict_ms": evict_ms,
        "evicted": evicted,
        "disk_bytes": stats["disk_bytes"],
        "rss_bytes": _rss_bytes(),
    }


def run_scale(
    sizes: list[int],
    *,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    workdir: Path | None = None,
) -> list[dict[str, Any]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="stepchat-scale-") as tmp:
        base = workdir or Path(tmp)
        for size in sizes:
            row = measure_size(size, base)
            results.append(row)
            if on_done is not None:
                on_done(row)
    return results


def scale_table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| entries | index | lookup p50 ms | lookup p95 ms | top-1 found | insert mean ms | "
        "insert p95 ms | evict 100 ms | disk MB | RSS MB | fill s | optimize s |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    body = "".join(
        f"| {r['entries']:,} | {r['index']} | {r['lookup_p50_ms']:.1f} | {r['lookup_p95_ms']:.1f} "
        f"| {r['lookup_top1_found'] * 100:.0f}% | {r['insert_mean_ms']:.1f} "
        f"| {r['insert_p95_ms']:.1f} | {r['evict_ms']:.0f} | {r['disk_bytes'] / 2**20:.1f} "
        f"| {r['rss_bytes'] / 2**20:.0f} | {r['fill_s']:.1f} | {r['optimize_s']:.1f} |\n"
        for r in rows
    )
    return head + body
