"""Issue 12 item 9: `clear` racing other processes on one cache.

With two writers, a clearer and an opener on one cache, up to 197 of 200 adds failed
(`Not found: …entries.lance/data/*.lance`: `clear` drops every old table version, whose
files the others were still reading) and in 2 of 5 runs the opener moved the healthy cache
aside as corrupt. Now a store operation that meets a vanished file moves to the newest
version and runs again, and opening does the same before calling a table damaged.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.helpers import open_lance

ROOT = Path(__file__).resolve().parents[2]
ADDS = 100


def _worker(mode: str, directory: Path, tag: int, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.worker", mode, str(directory), str(tag),
         str(count)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.mark.parametrize("run", [1, 2, 3])  # a race: three tries to meet it
def test_clear_does_not_fail_other_writers_or_look_corrupt(tmp_path: Path, run: int) -> None:
    directory = tmp_path / "cache"
    open_lance(directory)  # the table exists; everyone opens it
    procs = {
        "writer-1": _worker("adds", directory, 1, ADDS),
        "writer-2": _worker("adds", directory, 2, ADDS),
        "clearer": _worker("clear", directory, 0, 10),
        "opener": _worker("open", directory, 0, 20),
    }
    outputs = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{name}: {err[-1500:]}"
        assert "Traceback" not in err, f"{name}: {err[-1500:]}"
        outputs[name] = out
    failed = [ln for name in ("writer-1", "writer-2") for ln in outputs[name].splitlines()
              if ln.startswith("failed")]
    stored = sum(outputs[n].count("stored ") for n in ("writer-1", "writer-2"))
    print(f"run {run}: {stored} of {2 * ADDS} adds acknowledged, {len(failed)} failed; "
          f"{outputs['clearer'].count('cleared')} clears, {outputs['opener'].count('opened')} "
          "opens")
    assert failed == [] and stored == 2 * ADDS
    assert "moved" not in outputs["opener"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]  # nothing moved aside
