"""`bench --model-speed` on the bundled model: every arm pays llama.cpp's import inside its
own clock, so the first-answer comparison between the model in process and in its own
process is like for like."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_MEASURE_ONE_ROUND = """
import json, sys
from stepchat.backends.extra_buffers import cpu_flags, use_extra_buffers
from stepchat.bench.model_speed import ARM_NAMES, measure
from stepchat.config import ModelSpec, load_config
spec = load_config().model()
assert isinstance(spec, ModelSpec)
results = measure(spec, 1, 1)
print(json.dumps({"measurer_imported_llama_cpp": "llama_cpp" in sys.modules,
                  "arms": [r.as_json() for r in results], "names": list(ARM_NAMES),
                  "amx": not use_extra_buffers(None, cpu_flags())}))
"""


@pytest.mark.slow
def test_every_arm_imports_llama_cpp_inside_its_clock(tmp_path: Path) -> None:
    """The measuring process never imports llama.cpp (an arm that did would find it loaded
    and leave the import out of its first answer); each arm runs in a fresh process that
    refuses to time an import already made."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE_ONE_ROUND], capture_output=True, text=True,
        check=False, env={**os.environ, "STEPCHAT_HOME": str(tmp_path)}, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["measurer_imported_llama_cpp"] is False
    assert [arm["name"] for arm in report["arms"]] == report["names"]
    # On an AMX CPU the arms with extra buffer types on would crash llama.cpp: not run.
    skipped = [arm["name"] for arm in report["arms"] if arm.get("skipped")]
    assert skipped == ([n for n in report["names"] if n.endswith("on")] if report["amx"] else [])
    for arm in report["arms"]:
        if arm.get("skipped"):
            assert arm["first_answer_s"] == [] and "AMX" in arm["skipped"]
            continue
        assert len(arm["first_answer_s"]) == 1 and arm["first_answer_s"][0] > 0
        assert arm["first_answer_s"][0] >= arm["first_token_s"][0] >= arm["load_s"][0] > 0
        assert arm["tokens_per_s"][0] > 0


@pytest.mark.slow
def test_an_arm_reports_an_import_made_before_its_clock() -> None:
    """The guard `measure` relies on: an arm run where llama.cpp is already imported says
    so, and the bench refuses that figure."""
    from stepchat.bench import model_speed

    order = ("import llama_cpp, json, sys\n"
             "from stepchat.bench.model_speed import _arm_main\n"
             "from stepchat.config import load_config\n"
             "from dataclasses import asdict\n"
             "spec = asdict(load_config().model())\n"
             "sys.exit(_arm_main(['--arm', json.dumps({'arm': sys.argv[1], 'spec': spec,"
             " 'threads': 1})]))\n")
    off = next(n for n in model_speed.ARM_NAMES if n.endswith("off"))  # runs on every CPU
    done = subprocess.run([sys.executable, "-c", order, off],
                          capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["preloaded"] is True

