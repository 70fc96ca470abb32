"""Finding equations in prose, their solution sets, and the exact solver's steps."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from stepchat.core.linear import (
    LinearForm,
    find_equation,
    format_linear,
    linear_form,
    solution_of,
    solver_steps,
)
from stepchat.core.linear_request import read_request


def test_finds_the_equation_inside_a_sentence() -> None:
    found = find_equation("Solve for x: 3x + 5 = 20. Show each step.")
    assert found is not None and found.text == "3x + 5 = 20"
    assert find_equation("Step 2: \\( 3x = 15 \\)").text == "3x = 15"  # type: ignore[union-attr]
    assert find_equation("The answer is 10.") is None


def test_solution_kinds() -> None:
    assert str(solution_of("3x + 7 = 20", "x")) == "13/3"
    assert str(solution_of("2x + 1 = 2x + 5", "x")) == "none"
    assert str(solution_of("2(x + 1) = 2x + 2", "x")) == "all"
    assert solution_of("x^2 = 4", "x") is None
    assert solution_of("x + y = 4", "x") is None


coef = st.fractions(min_value=-20, max_value=20, max_denominator=6)


@settings(max_examples=150, deadline=None)
@given(a=coef, b=coef, c=coef, d=coef, var=st.sampled_from("xyzabt"))
def test_every_solver_step_is_equivalent_to_the_problem(
    a: Fraction, b: Fraction, c: Fraction, d: Fraction, var: str
) -> None:
    problem = f"{format_linear(a, b, var)} = {format_linear(c, d, var)}"
    form = linear_form(problem, var)
    assert form is not None
    target = form.solution
    steps = solver_steps(form)
    assert steps[-1][0] == "final"
    assert steps[-1][1] == target.final_line(var)
    for _kind, text in steps[:-1]:
        found = find_equation(text)
        assert found is not None, text
        if found.variables:
            assert solution_of(found.text, var) == target, (problem, text)


def test_final_line_format() -> None:
    form = LinearForm("x", Fraction(2), Fraction(0), Fraction(0), Fraction(7))
    assert solver_steps(form)[-1] == ("final", "x = 7/2")


def test_a_request_whose_unknown_cancels_is_read_and_solved() -> None:
    """`0x = 5` and `3x - 3x = 0` ask for x as much as `2x = 2x + 1` does: sympy dropping the
    term while it builds the sides must not make the request unread."""
    for prompt, kind in [("Solve for x: 0x = 5", "none"), ("Solve for x: 3x - 3x = 0", "all"),
                         ("Solve for y: 0*y + 3 = 5", "none")]:
        request = read_request(prompt)
        assert request is not None, prompt
        assert str(solution_of(request.equation.text, request.variable)) == kind
