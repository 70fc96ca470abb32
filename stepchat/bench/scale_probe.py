"""One size of `stepchat bench --scale`, measured in a process of its own.

The bench process holds every vector of the workload (1.5 GB at 1M entries), so the store's
memory can only be read honestly elsewhere: this process loads the model and the embedder
first when asked (as the app does), notes its RSS, then opens the store the way the app does
and runs the lookups, single inserts and one eviction; RSS after that, minus RSS before the
store, is what the cache costs. Reads a JSON spec on stdin, prints one JSON line.
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from stepchat.bench.metrics import percentile
from stepchat.core.types import CacheEntry, Step, TaskKind

DIM = 384


def rss_bytes() -> int:
    """Current resident set size of this process (Linux /proc), else the peak."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _load_app_parts() -> None:
    from stepchat.config import load_config
    from stepchat.runtime import load_model_and_embedder

    parts = load_model_and_embedder(load_config())
    _KEEP.append(parts)  # kept alive: their memory is the baseline


_KEEP: list[Any] = []


def _new_entry(i: int, vector: np.ndarray, scope: str, now: float) -> CacheEntry:
    return CacheEntry(
        id=f"new-{i}", prompt=f"Solve for x: {i + 2}x + 3 = 7.", vector=vector.tolist(),
        scope=scope, task=TaskKind.LINEAR, signature=f"new-{i}", constraints={},
        steps=[Step("x = 2", "final")], model="bench", created=now, last_hit=now,
    )


def probe(spec: dict[str, Any]) -> dict[str, Any]:
    from stepchat.store.lance import LanceStore

    if spec["with_model"]:
        _load_app_parts()
    queries = np.load(spec["queries"])
    before = rss_bytes()
    started = time.perf_counter()
    store = LanceStore(spec["location"], dim=DIM)
    open_s = time.perf_counter() - started
    scope = spec["scope"]
    for q, task in zip(queries[:10], spec["tasks"][:10], strict=True):  # warm the caches
        store.search(q.tolist(), scope=scope, task=TaskKind(task), k=4)
    lookup_ms, top1 = [], []
    for q, task in zip(queries, spec["tasks"], strict=True):
        start = time.perf_counter()
        hits = store.search(q.tolist(), scope=scope, task=TaskKind(task), k=4)
        lookup_ms.append((time.perf_counter() - start) * 1000)
        top1.append(hits[0].entry.id if hits else None)
    search = store.search_path()
    rng = np.random.default_rng(11)
    fresh = rng.standard_normal((spec["inserts"], DIM)).astype(np.float32)
    insert_ms = []
    now = time.time()
    for i, vec in enumerate(fresh / np.linalg.norm(fresh, axis=1, keepdims=True)):
        start = time.perf_counter()
        store.add(_new_entry(i, vec, scope, now))
        insert_ms.append((time.perf_counter() - start) * 1000)
    rss = rss_bytes()
    total = store.count()
    start = time.perf_counter()
    evicted = store.evict_to_limits(max_entries=max(total - spec["evict"], 0), max_bytes=2**62)
    evict_ms = (time.perf_counter() - start) * 1000
    return {
        "open_s": open_s,
        "search": search,
        "lookup_p50_ms": percentile(lookup_ms, 50),
        "lookup_p95_ms": percentile(lookup_ms, 95),
        "top1": top1,
        "insert_mean_ms": statistics.fmean(insert_ms) if insert_ms else float("nan"),
        "insert_p95_ms": percentile(insert_ms, 95),
        "evict_ms": evict_ms,
        "evicted": evicted,
        "disk_bytes": store.stats()["disk_bytes"],
        "rss_bytes": rss,
        "rss_store_bytes": rss - before,
    }


def main() -> int:
    print(json.dumps(probe(json.loads(sys.stdin.read()))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
