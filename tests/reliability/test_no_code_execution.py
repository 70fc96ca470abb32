"""Item 1: text from prompts, the model and the cache never runs as code and never hangs.

tests/core/test_mathparse.py feeds payloads to the parser alone; here the same kind of
payloads enter through every door that leads to sympy: the prompt of `StepCache.answer`,
the model's reply, and a cached entry's steps rewritten on disk in LanceDB. A canary file
the payloads try to create must never appear, and each request must finish quickly.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import lancedb
import pytest

from stepchat.core.linear import find_equation
from stepchat.core.prompt import PromptError
from stepchat.core.textgate.gate import compare
from stepchat.store.lance import TABLE_NAME
from tests.reliability.helpers import expected_final, final_line, make_cache, open_lance

BASE = "Solve for x: 3x + 5 = 20. Show each step."
GOOD = "3x + 5 = 20\n3x = 15\nx = 5"
MAX_SECONDS = 2.0

PAYLOADS = [
    "__import__('os').system('touch {canary}') = x",
    "x = __import__('os').system('touch {canary}')",
    "(lambda: __import__('os').system('touch {canary}'))() = 2",
    "lambda x: open('{canary}', 'w') = 1",
    "x.__class__.__bases__[0].__subclasses__() = 3",
    "().__class__.__base__.__subclasses__() = x",
    "exec(\"open('{canary}','w')\") = x",
    "eval('__import__(\"os\").system(\"touch {canary}\")') = x",
    "compile('1', 'f', 'exec') = x",
    "open('{canary}', 'w').write('1') = x",
    "getattr(__builtins__, 'open')('{canary}', 'w') = x",
    "x = $(touch {canary})",
    "x = `touch {canary}`",
    "x = 1; import os; os.system('touch {canary}')",
    "Symbol('x') = sympify(\"open('{canary}','w')\")",
    "x = Integer(9)**9**9",
    "9**9**9 = x",
    "9^9^9 = x",
    "x^99999 = 1",
    "x**10**10 = 2",
    "2**2**2**2**2**2 = x",
    "(x + 1)^4^4^4 = 0",
    "x = 1e999999",
    "x = 10**1000000",
    "x = " + "9" * 5000,
    "factorial(100000) = x",
    "x = 1/0",
    "x/0 = 1",
    "(" * 500 + "x" + ")" * 500 + " = 1",
    "(x)" * 300 + " = 1",
    "x" + "+x" * 3000 + " = 1",
    "=" * 6000,
    "x = " * 1500,
    "\\frac{" * 200 + "x" + "}" * 200 + " = 1",
    "x = E**(I*pi)",
    "{{7*7}} = x",
    "${{jndi:ldap://{canary}}} = x",
    "x = \x00__import__('os')",
    "𝑥 = ９",
]


def _payloads(canary: Path) -> list[str]:
    return [p.replace("{canary}", str(canary)) for p in PAYLOADS]


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    return tmp_path / "canary"


def _timed_answer(cache, prompt: str) -> None:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    with contextlib.suppress(PromptError):
        cache.answer(prompt)
    assert time.perf_counter() - started < MAX_SECONDS, prompt[:80]


def test_payloads_in_prompts(canary: Path) -> None:
    """Each payload as the whole prompt, inside a solve request and inside a JSON request."""
    cache = make_cache([GOOD])
    for payload in _payloads(canary):
        for prompt in (
            payload,
            f"Solve for x: {payload}. Show each step.",
            f"Solve for x: 3x + 5 = 20 and also {payload}",
            f"Return a JSON object with keys name and note for a person whose name is "
            f"Bob and note is {payload}.",
        ):
            _timed_answer(cache, prompt)
    assert not canary.exists()


def test_payloads_as_model_output(canary: Path) -> None:
    """The model replies with payloads; the linear answer is still exact."""
    for payload in _payloads(canary):
        reply = f"3x + 5 = 20\n{payload}\n{payload}\nx = 5"
        cache = make_cache([reply, payload])
        started = time.perf_counter()
        answer = cache.answer(BASE)
        assert time.perf_counter() - started < MAX_SECONDS, payload[:80]
        assert final_line(answer.text) == "x = 5"
        assert answer.verified is True
        json_answer = make_cache([payload]).answer(
            "Return a JSON object with keys name and age for a person whose name is Bob."
        )
        assert set(json.loads(json_answer.text)) == {"name", "age"}
    assert not canary.exists()


def test_payloads_in_steps_tampered_on_disk(tmp_path: Path, canary: Path) -> None:
    """Steps rewritten straight in the LanceDB table reach the checks, never an interpreter."""
    directory = tmp_path / "cache"
    first = make_cache([GOOD], store=open_lance(directory)).answer(BASE)
    assert first.stored_entry
    table = lancedb.connect(directory).open_table(TABLE_NAME)
    for payload in _payloads(canary):
        steps = [{"text": payload, "kind": "equation"}, {"text": payload, "kind": "final"}]
        table.update(where=f"id = '{first.stored_entry}'", values={"steps": json.dumps(steps)})
        cache = make_cache([GOOD], store=open_lance(directory))
        started = time.perf_counter()
        answer = cache.answer("Solve for x: 3x + 7 = 20. Show each step.")
        assert time.perf_counter() - started < MAX_SECONDS, payload[:80]
        assert final_line(answer.text) == expected_final("3x + 7 = 20")
        assert payload not in answer.text or answer.verified is True
    assert not canary.exists()


def test_each_parse_is_bounded(canary: Path) -> None:
    """find_equation on every payload, alone and repeated across a long line, stays fast."""
    for payload in _payloads(canary):
        for line in (payload, " ".join([payload] * 20)[:6000]):
            started = time.perf_counter()
            find_equation(line)
            assert time.perf_counter() - started < 0.5, line[:80]
    assert not canary.exists()


def test_text_gate_is_bounded_on_long_requests(canary: Path) -> None:
    """Comparing two pasted walls of text stays fast: no quadratic alignment, no per-word scan,
    no regex that backtracks over a long word.

    A stored 6,000-character request once made the next long one take seconds to compare,
    and a 5,000-digit number took most of a second in the possessive rule.
    """
    words = [f"w{i:04d}" for i in range(3000)]
    long_words = [
        piece * (20_000 // len(piece))
        for piece in ("a", "1", "s'", "x'", "a.", "ab-", "1,", "don't ", "c++", "'s", "n't",
                      "u.s.a", "=")
    ]
    walls = [
        ("x " * 3000, "y " * 3000),
        (" ".join(words), " ".join(reversed(words))),
        (" ".join(w.capitalize() for w in words), " ".join(words[::2] + words[1::2])),
        *((p, f"Solve for x: {p}. Show each step.") for p in _payloads(canary) + long_words),
    ]
    for old, new in walls:
        started = time.perf_counter()
        compare(old, new)
        assert time.perf_counter() - started < 0.5, new[:80]
