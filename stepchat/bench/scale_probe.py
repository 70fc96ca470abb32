"""One size of `stepchat bench --scale`, measured in a process of its own.

The bench process holds every vector of the workload (1.5 GB at 1M entries), so the store's
memory can only be read honestly elsewhere: this process loads the model and the embedder
first when asked (as the app does), notes its RSS, then opens the store the way the app does
and runs the lookups, single inserts and one eviction; RSS after that, minus RSS before the
store, is what the cache costs. Then it opens the inspector as F2 does (and, up to 100k
entries, as it did before it paged: a whole-table read) while making lookups, after the RSS
reading so that the old whole-table read cannot inflate it. Reads a JSON spec on stdin,
prints one JSON line.
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from stepchat.bench.metrics import percentile
from stepchat.core.types import CacheEntry, Step, TaskKind

if TYPE_CHECKING:
    from stepchat.store.lance import LanceStore

DIM = 384
F2_ROUNDS = 3
WHOLE_LISTING_LIMIT = 100_000
"""Largest size whose whole-table read (what the inspector did before it paged) is timed:
at 1M entries it would build 384M Python floats."""


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


def open_f2(store: Any) -> None:
    """What the inspector reads when F2 opens it: the first page of the listing, then the
    highlighted (newest) entry whole for the detail pane."""
    from stepchat.core.listing import PAGE

    page = store.listing(limit=PAGE)
    if page.rows:
        store.get(page.rows[0].id)


def open_f2_before(store: Any) -> None:
    """What the inspector read before it paged: every entry whole, vectors included."""
    store.entries()


def lookups_during(
    store: Any, read: Callable[[Any], None], queries: Any, tasks: list[str], scope: str
) -> tuple[list[float], list[float]]:
    """`read` timed `F2_ROUNDS` times, each on a thread of its own while this thread makes
    lookups one after another until it ends (the first starts with it): the open times
    and the latencies of every lookup that overlapped one, in ms."""
    opens: list[float] = []
    lookups: list[float] = []
    n = 0
    for _ in range(F2_ROUNDS):
        def timed_read() -> None:
            start = time.perf_counter()
            read(store)
            opens.append((time.perf_counter() - start) * 1000)

        reader = threading.Thread(target=timed_read)
        reader.start()
        while True:
            q, task = queries[n % len(queries)], tasks[n % len(tasks)]
            n += 1
            start = time.perf_counter()
            store.search(q.tolist(), scope=scope, task=TaskKind(task), k=4)
            lookups.append((time.perf_counter() - start) * 1000)
            if not reader.is_alive():
                break
        reader.join()
    return opens, lookups


def f2_figures(store: Any, queries: Any, tasks: list[str], scope: str) -> dict[str, Any]:
    """Opening the inspector, and a lookup made meanwhile, now and as it was before."""
    figures: dict[str, Any] = {}
    runs = [("f2", open_f2)]
    if store.count() <= WHOLE_LISTING_LIMIT:
        runs.append(("f2_before", open_f2_before))
    for name, read in runs:
        opens, lookups = lookups_during(store, read, queries, tasks, scope)
        figures[f"{name}_open_ms"] = statistics.median(opens)
        figures[f"{name}_lookup_p50_ms"] = percentile(lookups, 50)
        figures[f"{name}_lookup_max_ms"] = max(lookups)
    return figures


def probe(spec: dict[str, Any]) -> dict[str, Any]:
    from stepchat.store.lance import LanceStore

    if spec["with_model"]:
        _load_app_parts()
    queries = np.load(spec["queries"])
    before = rss_bytes()
    started = time.perf_counter()
    store = LanceStore(spec["location"], dim=DIM)
    open_s = time.perf_counter() - started
    try:
        return _measure(store, spec, queries, before, open_s)
    finally:
        store.close()  # its upkeep (a sweep after the eviction) ends before the process


def _measure(store: LanceStore, spec: dict[str, Any], queries: np.ndarray, before: int,
             open_s: float) -> dict[str, Any]:
    """The figures of one opened store; see `probe`."""
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
    f2 = f2_figures(store, queries, spec["tasks"], scope)
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
        **f2,
    }


def main() -> int:
    print(json.dumps(probe(json.loads(sys.stdin.read()))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
