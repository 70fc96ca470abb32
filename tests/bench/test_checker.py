"""The bench checker, on answers whose verdict is known."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from stepchat.bench.algebra import ParseError, parse_text, solution_set
from stepchat.bench.checker import check, check_json, check_linear

LINEAR_GOOD = [  # (answer, unknown, solution, the problem)
    ("3x + 5 = 20\n3x = 15\nx = 5", "x", "5", "3x + 5 = 20"),
    ("Subtract 5 from both sides: 3x = 20 - 5 = 15\nDivide by 3: x = 15/3\n**x = 5**", "x", "5",
     "3x + 5 = 20"),
    ("1. 2x + 4 = 15\n2. 2x = 11\n3. x = 11/2", "x", "11/2", "2x + 4 = 15"),
    ("Step 1: 2x = 11\nStep 2: x = 5.5", "x", "11/2", "2x + 4 = 15"),
    ("\\(2x = 11\\)\n\\[x = \\frac{11}{2}\\]", "x", "11/2", "2x + 4 = 15"),
    ("−3p − 6 = 9\n−3p = 15\np = −5", "p", "-5", "-3p - 6 = 9"),
    ("3(x - 4) = -21\n3x - 12 = -21\n3x = -9\nx = -3", "x", "-3", "3(x - 4) = -21"),
    ("Check: 3(5) + 5 = 20\n3x = 15\nx = 5", "x", "5", "3x + 5 = 20"),
    ("3(x + 1) = 3x + 7\n3x + 3 = 3x + 7\n3 = 7\nThere is no solution.", "x", "none",
     "3(x + 1) = 3x + 7"),
    ("2(y + 3) = 2y + 6\n2y + 6 = 2y + 6\nEvery real number is a solution.", "y", "all",
     "2(y + 3) = 2y + 6"),
    ("20 = 3x + 5\n15 = 3x\nx = 15/3\n15/3 = 5\nx = 5", "x", "5", "3x + 5 = 20"),
    ("6x + 10 = 40\n3x + 5 = 20\n3x = 15\nx = 5", "x", "5", "6x + 10 = 40"),
    ("5x + 3 = 28\n5x = 25\nx = 5", "x", "5", "5x + 3 = 28"),
]

LINEAR_BAD = [
    ("3x = 15\nx = 10", "x", "5", "line 2"),  # wrong final value
    ("3x + 5 = 20\n3x = 25\nx = 5", "x", "5", "line 2"),  # inconsistent middle line
    ("x = 5\nI hope this helps!", "x", "5", "final line"),  # final line states nothing
    ("The answer is 5.", "x", "5", "final line"),  # value without `x =`
    ("Check: 3(5) + 5 = 21\nx = 5", "x", "5", "false arithmetic"),
    ("3y = 15\ny = 5", "x", "5", "not x"),  # the wrong unknown
    ("3(x + 1) = 3x + 7\nx = 2", "x", "none", "line 2"),
    ("3(x + 1) = 3x + 3\nSo x = 1.", "x", "all", "line 2"),
    ("3(x + 1) = 3x + 7\n3 = 7, so x can be anything.", "x", "none", "no solution"),
    ("", "x", "5", "empty"),
]

PROBLEM = "5x + 3 = 28"
DERIVATION_BAD = [  # answers to 5x + 3 = 28 with x = 5 at the end, and the line that breaks
    ("3x = 15\nx = 15/3\nx = 5", "line 1"),  # issue 21: another equation's derivation
    ("Move the constant to the right: 3x = 15\nDivide: x = 15/3\nx = 5", "line 1"),
    ("5x = 25\nx = 5\n10 = 3x - 5\nx = 5", "line 3"),
    ("x = 5", ""),  # the result alone ("final answer only"): no derivation to judge
    ("5x = 25\nx = 5\nx = 5", ""),
    ("5x + 3 = 28\nx = 5", "line 2"),  # a skipped step
    ("Check: 3(5) + 5 = 20\n5x = 25\nx = 5", "line 1"),  # checks another equation
    ("5x = 25\n2 + 2 = 4\nx = 5", "line 2"),
    ("5x = 25\n2 + 2 = 3 + 1\nx = 5", "line 2"),
    ("5x = 25\n2 + 2 = 3 + 1 = 4\nx = 5", "checks nothing"),
    ("Check: 5(5) + 3 = 28\nx = 5", "line 2"),  # a check is not a derivation
    ("5x = 25\nx = 25/5 = 6 - 1 = 5\nx = 5", ""),  # true, chained: passes
]


@pytest.mark.parametrize(("answer", "var", "solution", "problem"), LINEAR_GOOD)
def test_linear_good_answers_pass(answer: str, var: str, solution: str, problem: str) -> None:
    verdict = check_linear(answer, var, solution, problem)
    assert verdict.ok, verdict.reason
    assert check_linear(answer, var, solution).ok  # a workload line with no equation


@pytest.mark.parametrize(("answer", "var", "solution", "why"), LINEAR_BAD)
def test_linear_bad_answers_fail_with_a_reason(
    answer: str, var: str, solution: str, why: str
) -> None:
    verdict = check_linear(answer, var, solution)
    assert not verdict.ok
    assert why in verdict.reason


@pytest.mark.parametrize(("answer", "why"), DERIVATION_BAD)
def test_a_derivation_of_another_equation_fails(answer: str, why: str) -> None:
    verdict = check_linear(answer, "x", "5", PROBLEM)
    assert verdict.ok is (why == ""), verdict.reason
    assert why in verdict.reason


def test_the_check_reads_its_equation_from_the_workload_line() -> None:
    spec = {"kind": "linear", "variable": "x", "solution": "5", "equation": PROBLEM}
    assert not check("3x = 15\nx = 15/3\nx = 5", spec).ok
    assert check("5x = 25\nx = 25/5\nx = 5", spec).ok
    assert not check("x = 5", {**spec, "equation": "y = 5"}).ok


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
    "additionalProperties": False,
}
EQUALS = {"name": "Alice", "age": 30}


@pytest.mark.parametrize(
    "answer",
    ['{"name": "Alice", "age": 30}', '\n  {\n "age": 30,\n "name": "Alice"\n}\n'],
)
def test_json_good_answers_pass(answer: str) -> None:
    verdict = check_json(answer, SCHEMA, EQUALS)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ('{"name": "Alice", "age": 30} {"name": "Bob", "age": 4}', "more than one"),
        ('Here it is: {"name": "Alice", "age": 30}', "not a single JSON object"),
        ('```json\n{"name": "Alice", "age": 30}\n```', "not a single JSON object"),
        ('{"name": "Alice", "age": 31}', "age is 31"),
        ('{"name": "Alicia", "age": 30}', "name is 'Alicia'"),
        ('{"name": "Alice"}', "'age' is a required property"),
        ('{"name": "Alice", "age": "30"}', "schema"),
        ('{"name": "Alice", "age": 30, "city": "Paris"}', "schema"),
        ('{"name": "Alice", "name": "Bob", "age": 30}', "duplicate key"),
        ('[{"name": "Alice", "age": 30}]', "not an object"),
        ('{"name": "Alice", "age": 30, "score": NaN}', "NaN is no JSON value"),
    ],
)
def test_json_bad_answers_fail_with_a_reason(answer: str, why: str) -> None:
    verdict = check_json(answer, SCHEMA, EQUALS)
    assert not verdict.ok
    assert why in verdict.reason


def test_json_booleans_are_not_numbers() -> None:
    schema: dict[str, Any] = {"type": "object"}
    assert not check_json('{"n": true}', schema, {"n": 1}).ok
    assert not check_json('{"n": 1}', schema, {"n": True}).ok
    assert check_json('{"n": 2.5}', schema, {"n": 2.5}).ok


def test_check_dispatches_on_kind() -> None:
    assert check("x = 2", {"kind": "linear", "variable": "x", "solution": "2"}).ok
    assert check('{"a": 1}', {"kind": "json", "schema": {}, "equals": {"a": 1}}).ok
    assert not check("x = 2", {"kind": "poem"}).ok


@pytest.mark.parametrize(
    ("text", "coeffs"),
    [
        ("3x + 5", {1: 3, 0: 5}),
        ("2(x - 4) + x", {1: 3, 0: -8}),
        ("x/4 - 1/2", {1: Fraction(1, 4), 0: Fraction(-1, 2)}),
        ("-(x + 1)", {1: -1, 0: -1}),
        ("x^2 - x*x + 2.5", {0: Fraction(5, 2)}),
    ],
)
def test_algebra_reader_builds_exact_polynomials(text: str, coeffs: dict[int, Any]) -> None:
    assert parse_text(text).coeffs == {d: Fraction(c) for d, c in coeffs.items()}


@pytest.mark.parametrize("text", ["3 +", "x / x", "import os", "2 ** ", "(x + 1", "x^9"])
def test_algebra_reader_rejects_what_it_cannot_read(text: str) -> None:
    with pytest.raises(ParseError):
        parse_text(text)


def test_solution_sets() -> None:
    assert solution_set(parse_text("2x + 4"), parse_text("15")) == Fraction(11, 2)
    assert solution_set(parse_text("2(x + 1)"), parse_text("2x + 2")) == "all"
    assert solution_set(parse_text("2(x + 1)"), parse_text("2x + 5")) == "none"
    assert solution_set(parse_text("x*x"), parse_text("4")) is None
