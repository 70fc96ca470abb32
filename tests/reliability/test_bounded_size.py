"""Item 8: the cache stays within CacheLimits without slowing requests, and disk stays bounded.

- max_entries / max_bytes / ttl_days are enforced by a background sweep as soon as a write
  crosses one (and every `evict_every` writes), least-recently-hit first; the write that
  triggers it does not wait
- `stepchat cache evict --older-than 7d` removes exactly the entries not hit for 7 days
- compaction drops old table versions, so add/delete churn does not grow the disk forever
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from stepchat.config import CacheLimits
from stepchat.core.types import CacheEntry
from stepchat.runtime import EMBED_DIM
from stepchat.store.lance import LanceStore
from stepchat.store.lance_open import dir_bytes
from tests.reliability.helpers import open_lance
from tests.reliability.worker import entry_for

ROOT = Path(__file__).resolve().parents[2]
NOW = time.time()


def _entry(entry_id: str, last_hit: float, prompt_bytes: int = 0) -> CacheEntry:
    entry = entry_for(entry_id)
    entry.last_hit = entry.created = last_hit
    entry.prompt += "p" * prompt_bytes
    return entry


def test_max_entries_keeps_the_recently_hit(tmp_path: Path) -> None:
    limits = CacheLimits(max_entries=10, max_bytes=10**9, ttl_days=0)
    store = open_lance(tmp_path / "cache", limits=limits, evict_every=5)
    for i in range(30):
        store.add(_entry(f"e{i}", NOW + i))
        if i == 3:
            store.touch("e0", NOW + 100)  # an old entry hit recently survives
        store.wait_for_upkeep(timeout=30)
    assert store.count() <= 10 + 5
    store.sweep()
    assert store.count() == 10
    kept = {e.id for e in store.entries()}
    assert "e0" in kept and "e29" in kept and "e1" not in kept


def test_max_bytes_and_ttl(tmp_path: Path) -> None:
    store = open_lance(tmp_path / "cache", limits=CacheLimits(10**6, 20_000, ttl_days=7))
    store.add(_entry("stale", NOW - 8 * 86400))
    for i in range(10):
        store.add(_entry(f"big{i}", NOW + i, prompt_bytes=5_000))
    store.wait_for_upkeep(timeout=30)  # crossing a limit already started a sweep
    store.sweep(now=NOW + 60)
    assert store.get("stale") is None
    total = sum(e.size_bytes() for e in store.entries())
    assert total <= 20_000 and store.evicted == 1 + (10 - store.count())
    assert store.get("big9") is not None


def test_eviction_never_blocks_the_write_that_triggers_it(tmp_path: Path) -> None:
    store = open_lance(tmp_path / "cache", limits=CacheLimits(2, 10**9, 0), evict_every=3)
    real = store.evict_to_limits

    def slow_evict(max_entries: int, max_bytes: int) -> int:
        time.sleep(1.5)  # a sweep over a huge table
        return real(max_entries, max_bytes)

    store.evict_to_limits = slow_evict  # type: ignore[method-assign]
    for i in range(2):
        store.add(_entry(f"e{i}", NOW + i))
    started = time.perf_counter()
    store.add(_entry("e2", NOW + 2))  # the third write starts the sweep
    assert time.perf_counter() - started < 0.5
    assert store.upkeep_running
    assert store.get("e2") is not None  # reads go on during the sweep
    store.wait_for_upkeep(timeout=30)
    assert store.count() == 2


def test_cli_evict_older_than(tmp_path: Path) -> None:
    cache_dir = tmp_path / "data" / "cache"
    store = LanceStore(cache_dir, EMBED_DIM)
    for i in range(3):
        entry = _entry(f"old{i}", NOW - 10 * 86400)
        entry.vector = entry.vector + [0.0] * (EMBED_DIM - len(entry.vector))
        store.add(entry)
    fresh = _entry("fresh", NOW)
    fresh.vector = fresh.vector + [0.0] * (EMBED_DIM - len(fresh.vector))
    store.add(fresh)
    env = {**os.environ, "STEPCHAT_HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "cache", "evict", "--older-than", "7d"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("evicted 3 entries")
    assert [e.id for e in LanceStore(cache_dir, EMBED_DIM).entries()] == ["fresh"]


@pytest.mark.slow
def test_compaction_bounds_disk_under_churn(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    store = open_lance(directory, optimize_every=0)
    for i in range(20):
        store.add(_entry(f"live{i}", NOW + i))
    baseline = store.compact(timedelta(0))["after"]
    for i in range(1000):
        store.add(_entry(f"churn{i}", NOW + i))
        store.delete(f"churn{i}")
    sizes = store.compact(timedelta(0))
    assert store.count() == 20
    assert sizes["before"] > 20 * baseline
    assert sizes["after"] < 2 * baseline
    assert dir_bytes(directory) == sizes["after"]
    print(f"disk under 1000 add/delete cycles: {sizes['before']} B before compaction, "
          f"{sizes['after']} B after (20 live entries: {baseline} B)")
