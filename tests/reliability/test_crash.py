"""Item 7: a writer killed with SIGKILL mid-stream loses nothing it acknowledged.

The writer appends entries (touching some, compacting every 7 writes) and prints each id
after `add` returned. Each round kills it at a different point; the cache must then open,
hold every acknowledged entry whole (content intact, exactly once) and nothing partial.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import lancedb
import pytest

from stepchat.store.lance import TABLE_NAME
from tests.reliability.helpers import open_lance
from tests.reliability.worker import entry_for

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 6


def _run_and_kill(directory: Path, tag: int, after: int) -> list[str]:
    """Start a writer, read `after` acknowledged ids (plus a random pause), SIGKILL it."""
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.worker", "add", str(directory), str(tag), "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert writer.stdout is not None
    acknowledged: list[str] = []
    deadline = time.monotonic() + 90
    while len(acknowledged) < after and time.monotonic() < deadline:
        line = writer.stdout.readline()
        if not line.endswith("\n"):  # the writer is gone
            break
        acknowledged.append(line.split()[1])
    time.sleep(random.uniform(0, 0.05))  # land inside the next commit, or between two
    os.kill(writer.pid, signal.SIGKILL)
    rest, err = writer.communicate(timeout=30)
    assert writer.returncode == -signal.SIGKILL, err[-2000:]
    complete = rest.split("\n")[:-1]  # a last line without its newline was not acknowledged
    acknowledged += [line.split()[1] for line in complete if line.startswith("stored ")]
    assert len(acknowledged) >= after, err[-2000:]
    return acknowledged


@pytest.mark.slow
def test_sigkill_mid_stream_loses_no_acknowledged_entry(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    random.seed(7)
    acknowledged: list[str] = []
    for tag in range(ROUNDS):
        acknowledged += _run_and_kill(directory, tag, after=random.randint(15, 45))
        store = open_lance(directory)  # opens after every crash
        ids = lancedb.connect(directory).open_table(TABLE_NAME).to_arrow()["id"].to_pylist()
        assert [i for i, n in Counter(ids).items() if n > 1] == []
        missing = set(acknowledged) - set(ids)
        assert not missing, f"lost after kill {tag + 1}: {sorted(missing)[:5]}"
        for entry_id in ids:  # whole entries only: every row reads back as written
            entry = store.get(entry_id)
            expected = entry_for(entry_id)
            assert entry is not None
            assert entry.steps == expected.steps and entry.prompt == expected.prompt
            assert len(entry.vector) == len(expected.vector)
    print(f"SIGKILL rounds survived: {ROUNDS}, acknowledged entries kept: {len(acknowledged)}")
