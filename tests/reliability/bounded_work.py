"""Run hostile equations through stepchat in a process the parent caps in memory.

    python -m tests.reliability.bounded_work core   # the pipeline: prompt, reply, cached step
    python -m tests.reliability.bounded_work app    # the app: the prompt, then a next question

Prints one JSON object; the parent (test_memory_bound.py) starts this with
`resource.setrlimit(RLIMIT_AS)`, so a regression ends in a MemoryError within seconds.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

NESTED_X = "(" * 20 + "x)" + "^4)" * 19 + "^4 = 1"
BOMBS = [
    f"Solve for x: {NESTED_X}",  # the 98 characters: degree 4^20
    "Solve for x: (((((x+1)^4)^4)^4)^4)^4 = 1",  # 1,025 terms, 300-digit coefficients
    "Solve for x: ((((((2)^4)^4)^4)^4)^4)^4 = x",  # an integer of 4^6 bits ... 4^20 at depth
    "Solve for x: ((((((((((((2)^4)^4)^4)^4)^4)^4)^4)^4)^4)^4)^4)^4 = x",
    "Solve for x: ((a+b+c+d+e+f+g+h)^4)^4 = x",
    "Solve for x: ((x+y+z)^4)^4 * ((x+y+z)^4)^4 = 1",
]


def peak_mb() -> float:
    """This process's own peak RSS. Not `ru_maxrss`: Linux carries that high-water mark over
    `exec` from the forked parent, so under a large pytest process it reports the parent."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def core() -> dict[str, Any]:
    from stepchat.backends.scripted import ScriptedBackend
    from stepchat.core.pipeline import StepCache
    from stepchat.core.settings import LinearStrategy, PipelineSettings
    from stepchat.store.memory import MemoryStore
    from tests.reliability.helpers import EMBED, make_cache

    timings = {}
    model_first = PipelineSettings(linear_strategy=LinearStrategy.MODEL_FIRST)
    for bomb in BOMBS:
        started = time.perf_counter()
        make_cache(["A short answer."]).answer(bomb)  # the prompt
        line = bomb.removeprefix("Solve for x: ")
        reply = ScriptedBackend([f"3x + 5 = 20\n{line}\nx = 5"])
        cache = StepCache(reply, EMBED, MemoryStore(), settings=model_first)
        cache.answer("Solve for x: 3x + 5 = 20. Show each step.")  # a model reply
        timings[bomb[13:40]] = round(time.perf_counter() - started, 3)
    return {"seconds": timings, "peak_mb": round(peak_mb(), 1)}


async def app() -> dict[str, Any]:
    from tests.reliability.helpers import app_on_fakes
    from tests.tui.conftest import FakeLoader, ask, settle

    the_app = app_on_fakes(Path(tempfile.mkdtemp()), FakeLoader(["A short answer."]))
    started = time.perf_counter()
    async with the_app.run_test(size=(110, 36)) as pilot:
        await settle(pilot)
        await ask(pilot, BOMBS[0])
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        turns = the_app.conversation.turns
        answers = [t.answer.text if t.answer is not None else None for t in turns]
    return {"answers": answers, "seconds": round(time.perf_counter() - started, 2),
            "peak_mb": round(peak_mb(), 1)}


if __name__ == "__main__":
    result = core() if sys.argv[1] == "core" else asyncio.run(app())
    print(json.dumps(result))
