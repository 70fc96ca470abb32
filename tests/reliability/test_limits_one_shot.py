"""Issue 12 item 3: limits, TTL and compaction hold for one-shot processes.

Sweeps ran every 32 writes and compaction every 64, counted per process; `ask` writes at
most one entry, so with `max_entries = 2`, `max_bytes = 100`, `ttl_days = 0.00001` six asks
kept six entries, all past the TTL, and fragments piled up. Each case below runs six
separate `stepchat ask` processes (the real CLI, scripted model) on one cache.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from stepchat.runtime import EMBED_DIM
from stepchat.store.lance import LanceStore
from tests.reliability.helpers import fake_cli

ROOT = Path(__file__).resolve().parents[2]
TOPICS = ["lighthouses", "volcanoes", "glaciers", "beehives", "comets", "coral reefs"]


def six_asks(home: Path, limits: str) -> LanceStore:
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f"[limits]\n{limits}\n")
    for topic in TOPICS:
        out = fake_cli(home, "ask", "--json", f"Tell me three facts about {topic}.")
        assert '"stored_entry": "' in out.stdout  # every ask wrote one entry
    return LanceStore(home / "data" / "cache", EMBED_DIM)


def test_the_issues_limits_hold_after_six_asks(tmp_path: Path) -> None:
    store = six_asks(tmp_path, "max_entries = 2\nmax_bytes = 100\nttl_days = 0.00001")
    entries = store.entries()
    assert len(entries) <= 2
    assert sum(e.size_bytes() for e in entries) <= 100  # one entry alone is bigger: none left
    assert all(e.last_hit >= time.time() - 0.00001 * 86400 - 60 for e in entries)


def test_max_entries_keeps_the_two_newest(tmp_path: Path) -> None:
    store = six_asks(tmp_path, "max_entries = 2\nttl_days = 0")
    kept = sorted(e.prompt for e in store.entries())
    assert kept == sorted(f"Tell me three facts about {t}." for t in TOPICS[-2:])


def test_ttl_expires_entries_of_earlier_processes(tmp_path: Path) -> None:
    store = six_asks(tmp_path, "ttl_days = 0.00001")  # 0.86 s: each process outlives it
    entries = store.entries()
    assert [e.prompt for e in entries] == [f"Tell me three facts about {TOPICS[-1]}."]


def test_compaction_runs_across_one_shot_processes(tmp_path: Path) -> None:
    """Six one-shot writers with `optimize_every=4`: fragments stay few, as in one process."""
    directory = tmp_path / "cache"
    fragments = []
    for tag in range(6):
        out = subprocess.run(
            [sys.executable, "-m", "tests.reliability.worker", "oneshot", str(directory),
             str(tag), "4"],
            cwd=ROOT, capture_output=True, text=True, timeout=180,
        )
        assert out.returncode == 0, out.stderr
        fragments.append(int(out.stdout.split()[-1]))
    assert LanceStore(directory, 64).count() == 6 * 3
    print(f"fragments after each one-shot writer: {fragments}")
    assert max(fragments) <= 4, fragments


def test_an_expired_entry_is_never_served(tmp_path: Path) -> None:
    """Past its TTL an entry is not reused, even before a sweep deletes it (the index and a
    sweep racing the lookup used to serve it)."""
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[limits]\nttl_days = 0.00001\n")  # 0.86 s
    prompt = "Solve for x: 3x + 5 = 20. Show each step."
    first = json.loads(fake_cli(tmp_path, "ask", "--json", prompt).stdout)
    time.sleep(1.0)
    again = json.loads(fake_cli(tmp_path, "ask", "--json", prompt).stdout)
    assert first["stored_entry"] and again["matched_entry"] != first["stored_entry"]
    assert again["answer"] == first["answer"]
