"""Long hostile JSON requests: reading one never takes more than a few seconds.

Each prompt is as long as a prompt may be (6,000 characters after cleaning) and built to
make a careless reader backtrack or rescan: the word JSON hundreds of times, runs of
capitalised words, thousands of keys or values. A hard alarm turns a regression into a
failure instead of a hung test run; before the reader bounded its work, three of these ran
past the bound (one took 10 s).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from stepchat.core.tasks.json_task import JsonHandler

LIMIT_S = 5
HOSTILE = {
    "json words": "json " * 1200,
    "a request, then json words": "Return JSON with keys a and b " + "json " * 1200,
    "capitalised words": "Return JSON with keys name and city for " + "Aa " * 2000,
    "name particles": "Return JSON with keys name and city for Ana " + "de " * 2000 + "x",
    "a thousand keys": "Return JSON with keys " + "a1, " * 1500 + "b",
    "apposition": "Return JSON with keys name, age, city for " + "Bruno, 40, " * 600,
    "denials": "Return JSON with keys name and city for Ana " + "not " * 1500,
    "quotes": "Return JSON with keys name and city for " + "'a' " * 1500,
    "links": "Return JSON with keys name and city. " + "name is " * 800,
    "braces": "Return JSON " + "{a, " * 1500,
    "a long list": "Return JSON with keys name and tags for Bo, tagged " + "a and " * 1000,
    "numbers": "Return JSON with keys name and age for Bo " + "1,234," * 1000,
    "hyphens": "Return JSON with keys name and age for Bo " + "a-" * 3000,
    "a 5,000-digit number": "Return JSON with keys name and note for Bob, note is " + "9" * 5000,
    "a 5,000-digit price": "Return JSON with keys name and price for a lamp at $" + "9" * 5000,
}


@contextmanager
def hard_limit(seconds: int) -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise TimeoutError(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_json_prompts_are_read_quickly(name: str) -> None:
    prompt = HOSTILE[name][:6000]
    with hard_limit(LIMIT_S):
        task = JsonHandler().detect(prompt)
    assert task is None or len(task.constraints["keys"]) <= 40
