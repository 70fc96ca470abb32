"""Linear equations in one unknown: finding them in text, their solution sets, exact steps.

Everything is exact (sympy rationals built by `mathparse`); results are memoised by text so
re-checking a reused step costs microseconds.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy

from stepchat.core.mathparse import MathSyntaxError, parse_equation

_MATH_CHARS = set("0123456789.+-*/^()=−×·÷⋅ ")
_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
_AFTER_A_NUMBER = re.compile(r"[\d.](?:\s|\\[,;:! ]|[{}])*$")
"""A number, then only spacing or braces: `3\\frac{1}{2}`, `3\\,\\frac{1}{2}`, `{3}\\frac…`."""
_LATEX = [
    (re.compile(r"\\(?:cdot|times)(?![A-Za-z])"), "*"),  # whole: not \cdots, \cdotp
    (re.compile(r"\\[()\[\]]|\$+|\\,|\\ "), " "),
    (re.compile(r"`"), " "),
]
_WORD = re.compile(r"\S+")
_BOLD_EDGES = re.compile(r"^(\*\*)?(.*?)(\*\*)?([.,:;!?]*)$", re.S)


@dataclass(frozen=True)
class Solution:
    """The solution set of a linear equation: one value, none, or every real number."""

    kind: str  # "one" | "none" | "all"
    value: Fraction | None = None

    def __str__(self) -> str:
        if self.kind == "one":
            return format_fraction(self.value or Fraction(0))
        return self.kind

    def final_line(self, variable: str) -> str:
        if self.kind == "none":
            return "no solution"
        if self.kind == "all":
            return "all real numbers"
        return f"{variable} = {self}"


@dataclass(frozen=True)
class LinearForm:
    """`a*v + b = c*v + d` read off an equation; enough to write exact steps."""

    variable: str
    a: Fraction
    b: Fraction
    c: Fraction
    d: Fraction

    @property
    def solution(self) -> Solution:
        coef = self.a - self.c
        const = self.d - self.b
        if coef == 0:
            return Solution("all") if const == 0 else Solution("none")
        return Solution("one", const / coef)

    @property
    def both_sides(self) -> bool:
        return self.a != 0 and self.c != 0


def format_fraction(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def _fraction(match: re.Match[str]) -> str:
    """`\\frac{a}{b}` as `((a)/(b))`, except right after a number: `3\\frac{1}{2}` is
    three and a half as often as three halves, so it is left as written, and a backslash
    reads as nothing (the request is not read, a step does not parse)."""
    if _AFTER_A_NUMBER.search(match.string, 0, match.start()):
        return match.group(0)
    return f"(({match.group(1)})/({match.group(2)}))"


def clean_latex(text: str) -> str:
    text = _FRAC.sub(_fraction, text)
    for pattern, repl in _LATEX:
        text = pattern.sub(repl, text)
    return _WORD.sub(_unbold, text)


def _unbold(word: re.Match[str]) -> str:
    """Bold markup at a word's edges ("**x", "5**", "**5**.") becomes a space. A word
    with `**` inside it as well as at an edge ("2**1**", "**2**1") is left whole, so
    it does not parse: it shows as 21 and would read as the power 2^1. `2**-1`, with no
    edge, is a power."""
    match = _BOLD_EDGES.match(word.group(0))
    assert match is not None
    opening, core, closing, stop = match.groups()
    if not (opening or closing) or "**" in core or not core:
        return word.group(0)
    return f"{' ' if opening else ''}{core}{' ' if closing else ''}{stop}"


def math_runs(line: str) -> list[tuple[int, int]]:
    """(start, end) of the maximal runs around each '=' made of math characters and lone
    letters; one run may hold several '=' (a chain such as `3x = 20 - 5 = 15`)."""
    runs: list[tuple[int, int]] = []
    n = len(line)
    hi = 0
    for eq in (i for i, ch in enumerate(line) if ch == "="):
        if eq < hi:
            continue  # same maximal run as the previous '=': scanning it again is quadratic
        lo = eq
        while lo > 0 and _is_math_at(line, lo - 1):
            lo -= 1
        hi = eq + 1
        while hi < n and _is_math_at(line, hi):
            hi += 1
        runs.append((lo, hi))
    return runs


def _candidate_spans(line: str) -> list[str]:
    """The runs with exactly one '=', stripped of a sentence's full stop."""
    spans = (line[lo:hi].strip().rstrip(".") for lo, hi in math_runs(line))
    return [span for span in spans if span.count("=") == 1]


def _is_math_at(line: str, i: int) -> bool:
    ch = line[i]
    if ch == "=" or ch in _MATH_CHARS:
        # a full stop ends a sentence unless a digit follows (2.5)
        return ch != "." or (i + 1 < len(line) and line[i + 1] in "0123456789")
    if ch.isalpha() and ch.isascii():
        before = line[i - 1] if i > 0 else " "
        after = line[i + 1] if i + 1 < len(line) else " "
        return not before.isalpha() and not after.isalpha()
    return False


@dataclass(frozen=True)
class FoundEquation:
    text: str
    lhs: sympy.Expr
    rhs: sympy.Expr
    variables: frozenset[str]


def find_equation(line: str) -> FoundEquation | None:
    """The first parseable equation in a line of prose, trimming words off its left edge."""
    for span in _candidate_spans(clean_latex(line)):
        parts = span.split()
        for start in range(len(parts)):
            candidate = " ".join(parts[start:])
            if not candidate or candidate.startswith("="):
                break
            found = parse_whole(candidate)
            if found is not None:
                return found
    return None


def chains_in(line: str) -> tuple[list[tuple[str, list[FoundEquation]]], str]:
    """Every chain of equations a line states, in order, each with the words before it
    (since the previous chain), and the words after the last one.

    A chain `a = b = c` is the links `a = b` and `b = c`; a lone equation is a chain of one.
    Words are trimmed off the left edge of a run until it parses ("so x = 5"); a run that
    does not parse at all (`x = 5 (`, a lone `=`) stays in the words, where a checker of
    the words will not accept it.
    """
    line = clean_latex(line)
    chains: list[tuple[str, list[FoundEquation]]] = []
    words: list[str] = []
    pos = 0
    for lo, hi in math_runs(line):
        words.append(line[pos:lo])
        pos = hi
        equations, lead = _equations_in_run(line[lo:hi])
        if equations and (_value_mark_beside(line, lo, hi)
                          or HYPHENED_FRACTION.search(line[lo:hi])):
            equations, lead = [], line[lo:hi]  # unread: the words' reader refuses it
        words.append(lead)
        if equations:
            chains.append((_joined(words), equations))
            words = []
    words.append(line[pos:])
    return chains, _joined(words)


_VALUE_MARK_AFTER = re.compile(r"\s*(?:[!%‰‱…°′″]|\.\s*\.)")
"""A mark that changes the number it follows, after a run and any spaces: `15!` (a
factorial), `0.3...` and `0.3 . . .` (recurring), `15%`, `4°`. Passed over as punctuation
it would let a step claim one value and be read as another."""
_VALUE_MARK_BEFORE = frozenset("~≈±√∛∜$€£¥,!¡")
"""Marks glued before a run that change its first number: `~3`, `$3`, `,5` (a decimal
comma: 0.5), `!5` (a subfactorial)."""


def _value_mark_beside(line: str, lo: int, hi: int) -> bool:
    """Whether a mark that changes a value is glued to the run `line[lo:hi]`."""
    run = line[lo:hi]
    start = lo + len(run) - len(run.lstrip())
    if start > 0 and line[start - 1] in _VALUE_MARK_BEFORE:
        return True
    end = lo + len(run.rstrip())
    return _VALUE_MARK_AFTER.match(line, end - 1 if line[end - 1] == "." else end) is not None


def _joined(parts: list[str]) -> str:
    return " ".join(part.strip() for part in parts if part.strip())


def _binds(token: str) -> bool:
    """Whether `token`, left of an equation, may be part of it: a letter, a number, a
    bracket or an operator ends it. Such a token is never trimmed off as words: `x (x + 1)
    = 3`, `x / (x + 1) = 3` and `2 (x + 1) = 6` are not `x + 1 = 3`."""
    return token[-1].isalnum() or token[-1] in ")]}+-−*/÷×·^"


HYPHENED_FRACTION = re.compile(
    r"\d(?:\s+[-\u2010-\u2015\u2212]|[-\u2010-\u2015\u2212]\s*)\d+\s*[/\u2044\u2215÷]\s*\d")
"""A whole number, a dash glued to it or to a fraction (`3-1/2`, `3 -1/2`, `1- 1/2`,
`3−1÷2`, with any run of spaces, which a screen shows as one): a mixed number in a recipe
as often as a difference, so neither a request nor a step with one is read. Spaced on both
sides (`3 - 1/2`), it is a difference."""

MAX_CHAIN_LINKS = 32
"""A chain longer than this is not read (its words' reader refuses it): no derivation
writes one, and reading a run of thousands of links costs each step a parse per link."""


def _equations_in_run(run: str) -> tuple[list[FoundEquation], str]:
    text = run.strip()
    if text.count("=") > MAX_CHAIN_LINKS:
        return [], text
    stop = "." if text.endswith(".") else ""
    sides = text.removesuffix(".").split("=")
    first = sides[0].split()
    for start in range(len(first) + 1):
        lead = " ".join(first[start:])
        if not lead or (start and _binds(first[start - 1])):
            break
        chain = [lead, *sides[1:]]
        equations = [parse_whole(f"{a} = {b}") for a, b in itertools.pairwise(chain)]
        if all(eq is not None for eq in equations):
            return [eq for eq in equations if eq is not None], " ".join(first[:start]) + stop
    return [], text


@lru_cache(maxsize=4096)
def parse_whole(text: str) -> FoundEquation | None:
    """`text` read whole as one equation, or None (no words trimmed off)."""
    try:
        lhs, rhs, names = parse_equation(text)
    except (MathSyntaxError, ZeroDivisionError):
        return None
    return FoundEquation(text.strip(), lhs, rhs, names)


@lru_cache(maxsize=8192)
def linear_form(text: str, variable: str) -> LinearForm | None:
    """The equation's linear form in `variable`, or None if it is not linear in it alone."""
    return _form(text, variable, per_side=False)


@lru_cache(maxsize=8192)
def sides_form(text: str, variable: str) -> LinearForm | None:
    """The linear form of each side as written (`a*v + b = c*v + d`), or None when a side
    is not linear on its own (`x^2 + x = x^2 + 5` is a linear equation, not linear sides):
    what a step-by-step comparison of two equations needs."""
    return _form(text, variable, per_side=True)


def _form(text: str, variable: str, *, per_side: bool) -> LinearForm | None:
    found = parse_whole(text)
    if found is None or not found.variables <= {variable}:
        return None
    sym = sympy.Symbol(variable)
    try:
        left = sympy.Poly(sympy.expand(found.lhs), sym)
        right = sympy.Poly(sympy.expand(found.rhs), sym)
    except sympy.PolynomialError:
        return None
    if left.degree() > 1 or right.degree() > 1:
        if per_side:
            return None
        difference = sympy.Poly(sympy.expand(found.lhs - found.rhs), sym)
        if difference.degree() > 1:
            return None
        a, b = _coefficients(difference)
        return LinearForm(variable, a, b, Fraction(0), Fraction(0))
    a, b = _coefficients(left)
    c, d = _coefficients(right)
    return LinearForm(variable, a, b, c, d)


def _coefficients(poly: sympy.Poly) -> tuple[Fraction, Fraction]:
    coeffs = poly.all_coeffs()
    if len(coeffs) == 1:
        coeffs = [0, coeffs[0]]
    a, b = (Fraction(int(sympy.fraction(c)[0]), int(sympy.fraction(c)[1])) for c in coeffs[-2:])
    return a, b


def solution_of(text: str, variable: str) -> Solution | None:
    form = linear_form(text, variable)
    return form.solution if form else None


# ---------------------------------------------------------------- writing exact steps


def format_linear(coef: Fraction, const: Fraction, variable: str) -> str:
    """`coef*v + const` the way a person writes it: 3x - 5, -x, (1/2)x + 3, 0."""
    parts: list[str] = []
    if coef != 0:
        if coef == 1:
            parts.append(variable)
        elif coef == -1:
            parts.append(f"-{variable}")
        elif coef.denominator == 1:
            parts.append(f"{coef.numerator}{variable}")
        else:
            sign = "-" if coef < 0 else ""
            parts.append(f"{sign}({format_fraction(abs(coef))}){variable}")
    if const != 0 or not parts:
        if parts:
            parts.append(("- " if const < 0 else "+ ") + format_fraction(abs(const)))
        else:
            parts.append(format_fraction(const))
    return " ".join(parts)


def solver_steps(form: LinearForm) -> list[tuple[str, str]]:
    """Exact steps from `form` to its solution as (kind, text); the last one is the final."""
    v = form.variable
    steps: list[tuple[str, str]] = []
    if form.a == 0 and form.c != 0:  # `10 = 2x`: the unknown's side first
        form = LinearForm(v, form.c, form.d, form.a, form.b)
        steps.append(("equation", f"Swap the sides: {format_linear(form.a, form.b, v)} = "
                      f"{format_linear(form.c, form.d, v)}"))
    coef = form.a - form.c
    const = form.d - form.b
    if form.c != 0:
        steps.append(
            ("equation", f"Collect the {v} terms on the left: "
             f"{format_linear(coef, form.b, v)} = {format_linear(Fraction(0), form.d, v)}")
        )
    solution = form.solution
    if solution.kind != "one":
        if form.c == 0:  # collected, the unknown has gone already (`1 = 5`)
            steps.append(("equation", f"The {v} terms cancel: {format_fraction(form.b)} = "
                          f"{format_fraction(form.d)}"))
    else:
        if form.b != 0:
            steps.append(
                ("equation", f"Move the constant to the right: "
                 f"{format_linear(coef, Fraction(0), v)} = {format_fraction(const)}")
            )
        if coef != 1:
            steps.append(
                ("equation", f"Divide both sides by the coefficient of {v}: "
                 f"{v} = {_over(const)}/{_paren(coef)}")
            )
    steps.append(("final", solution.final_line(v)))
    return steps


def _over(value: Fraction) -> str:
    """A dividend: a fraction in brackets, so `(3/2)/3` is not read as 3 over 2/3."""
    text = format_fraction(value)
    return f"({text})" if value.denominator != 1 else text


def _paren(value: Fraction) -> str:
    text = format_fraction(value)
    return f"({text})" if value < 0 or value.denominator != 1 else text
