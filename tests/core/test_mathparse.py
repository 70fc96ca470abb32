"""The whitelist parser: exact results, and hostile text never runs or hangs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import sympy

from stepchat.core.linear import find_equation, solution_of
from stepchat.core.mathparse import MathSyntaxError, parse_equation, tokenize

PAYLOADS = [
    "__import__('os').system('touch {canary}') = 1",
    "(lambda: __import__('os').system('touch {canary}'))() = 2",
    "x.__class__.__bases__ = 3",
    "9**9**9 = x",
    "9^9^9 = x",
    "x^99999 = 1",
    "exec('open(\"{canary}\", \"w\")') = x",
    "eval('1') = x",
    "x = 1e999999",
    "(" * 500 + "x" + ")" * 500 + " = 1",
    "1" * 5000 + "x = 2",
    "open('{canary}','w') = x",
    "getattr(x, 'y') = 2",
    "x = $(touch {canary})",
    "x = `touch {canary}`",
    "x; import os = 1",
]


def test_parses_to_exact_rationals() -> None:
    lhs, rhs, names = parse_equation("x/3 + 0.5 = 2(x - 1)")
    x = sympy.Symbol("x")
    assert sympy.expand(lhs) == x / 3 + sympy.Rational(1, 2)
    assert sympy.expand(rhs) == 2 * x - 2
    assert names == {"x"}


@pytest.mark.parametrize("text", ["0x = 5", "3x - 3x = 0", "0*y + 3 = 5"])
def test_an_unknown_that_cancels_is_still_named(text: str) -> None:
    """sympy drops `0x` as it builds the sides; the request still asks for the unknown."""
    lhs, rhs, names = parse_equation(text)
    assert not (lhs.free_symbols | rhs.free_symbols)
    assert len(names) == 1


@pytest.mark.parametrize("payload", PAYLOADS)
def test_hostile_text_never_runs_and_never_hangs(payload: str, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    text = payload.format(canary=canary)
    started = time.perf_counter()
    with pytest.raises((MathSyntaxError, RecursionError)):
        parse_equation(text)
    assert find_equation(f"Solve: {text}") is None or not canary.exists()
    assert time.perf_counter() - started < 1.0
    assert not canary.exists()


def test_tokenizer_rejects_anything_outside_the_whitelist() -> None:
    for bad in ["x_1 = 2", "x = 'a'", "x = [1]", "x == 2", "a.b = 1"]:
        with pytest.raises(MathSyntaxError):
            parse_equation(bad)
    with pytest.raises(MathSyntaxError):
        tokenize("x ; y")


def test_implicit_products_and_unicode_operators() -> None:
    assert solution_of("2(x + 1) = 10", "x") is not None
    assert str(solution_of("2(x + 1) = 10", "x")) == "4"
    assert str(solution_of("3×x − 4 = 11", "x")) == "5"
    assert str(solution_of("(x + 1)(2) = x", "x")) == "-2"


@pytest.mark.parametrize("text", ["2^3x = 16", "3^2x = 18", "x^2(x + 1) = 3"])
def test_a_power_glued_to_a_factor_is_not_read(text: str) -> None:
    """`2^3x` is (2^3)·x to some readers and 2^(3x) to others, as `1/2x` is."""
    with pytest.raises(MathSyntaxError):
        parse_equation(text)
