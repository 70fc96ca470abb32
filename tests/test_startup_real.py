"""`stepchat ask` from the shell on the real stack loads only what the request needs.

Each call is a new process, as from a script. The first answer is written by the exact
solver (no model needed) and stored with a real MiniLM vector in a real LanceDB table. A
repeat and a changed constant are then settled by the signature index: the process must
not import LanceDB, pyarrow, numpy, llama.cpp or torch. After `stepchat cache evict`, the
evicted entry must never be served again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

HEAVY = ("lancedb", "pyarrow", "numpy", "llama_cpp", "torch", "sentence_transformers")
PROBE = (
    "import json, sys\n"
    "from stepchat.cli import main\n"
    "code = main(sys.argv[1:])\n"
    f"print('LOADED', json.dumps(sorted(set({HEAVY!r}) & set(sys.modules))), file=sys.stderr)\n"
    "raise SystemExit(code)\n"
)


def stepchat(home: Path, *args: str) -> tuple[str, list[str]]:
    env = {**os.environ, "STEPCHAT_HOME": str(home), "HF_HUB_OFFLINE": "1",
           "LANCEDB_LOG": "error"}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = next(line for line in done.stderr.splitlines() if line.startswith("LOADED"))
    return done.stdout, json.loads(loaded.removeprefix("LOADED "))


def ask(home: Path, prompt: str) -> tuple[dict[str, Any], list[str]]:
    out, loaded = stepchat(home, "ask", "--json", prompt)
    return json.loads(out), loaded


def test_hits_from_the_shell_import_no_heavy_runtime(tmp_path: Path) -> None:
    first, loaded = ask(tmp_path, "Solve for x: 3x + 5 = 20")
    assert first["stored_entry"] and "lancedb" in loaded and "torch" not in loaded

    repeat, loaded = ask(tmp_path, "Solve for x: 3x + 5 = 20")
    assert repeat["path"] == "reuse-only" and repeat["matched_entry"] == first["stored_entry"]
    assert loaded == []

    changed, loaded = ask(tmp_path, "Solve for x: 3x + 7 = 20")
    assert changed["matched_entry"] == first["stored_entry"]
    assert changed["answer"].endswith("x = 13/3") and changed["timings_ms"]["embed"] == 0
    assert loaded == []

    stepchat(tmp_path, "cache", "evict", first["stored_entry"])
    after, _ = ask(tmp_path, "Solve for x: 3x + 5 = 20")
    assert after["matched_entry"] is None and after["path"] != "reuse-only"
