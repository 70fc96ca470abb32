"""Item 6: two processes asking and storing into one LanceDB cache at once.

Each worker serves 200 requests through StepCache (scripted model, hashed embedder, a
LanceStore on the shared directory) and prints every entry id it stored once `add`
returned. Afterwards every acknowledged id is in the table exactly once, nothing else is.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import lancedb
import pytest

from stepchat.core.ports import StoreError
from stepchat.store.lance import TABLE_NAME
from tests.reliability.helpers import open_lance
from tests.reliability.worker import entry_for

ROOT = Path(__file__).resolve().parents[2]
REQUESTS = 200


def stored_ids(stdout: str) -> list[str]:
    return [line.split()[1] for line in stdout.splitlines() if line.startswith("stored ")]


@pytest.mark.slow
def test_two_processes_share_one_cache(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    open_lance(directory)  # both workers open an existing table
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.worker", "ask", str(directory), str(tag),
             str(REQUESTS)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for tag in (1, 2)
    ]
    acknowledged: list[str] = []
    for worker in workers:
        out, err = worker.communicate(timeout=240)
        assert worker.returncode == 0, err[-2000:]
        assert "Traceback" not in err
        acknowledged += stored_ids(out)
    assert len(acknowledged) >= REQUESTS  # most requests store a new entry

    table_ids = lancedb.connect(directory).open_table(TABLE_NAME).to_arrow()["id"].to_pylist()
    duplicates = [i for i, n in Counter(table_ids).items() if n > 1]
    assert duplicates == []
    assert set(acknowledged) <= set(table_ids), "lost entries"
    assert len(table_ids) == len(set(acknowledged))
    store = open_lance(directory)
    for entry_id in acknowledged[:: max(1, len(acknowledged) // 25)]:
        entry = store.get(entry_id)
        assert entry is not None and entry.steps
    print(f"concurrent writes acknowledged: {len(acknowledged)}, lost: 0, duplicates: 0")


def test_a_commit_that_loses_a_race_is_retried(tmp_path: Path) -> None:
    """LanceDB reports a concurrent commit as a conflict; the store tries again."""
    store = open_lance(tmp_path / "cache")
    real_add = store._table.add
    failures = iter([RuntimeError("Commit conflict for version 3: retryable"),
                     RuntimeError("Retryable commit conflict")])

    def flaky_add(*args: object, **kwargs: object) -> object:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return real_add(*args, **kwargs)

    store._table.add = flaky_add
    store.add(entry_for("raced"))
    assert store.get("raced") is not None and store.count() == 1


def test_other_failures_are_not_retried(tmp_path: Path) -> None:
    store = open_lance(tmp_path / "cache")
    calls = []

    def broken(*args: object, **kwargs: object) -> object:
        calls.append(1)
        raise OSError("No space left on device")

    store._table.add = broken
    with pytest.raises(StoreError, match="No space left"):
        store.add(entry_for("full"))
    assert len(calls) == 1
