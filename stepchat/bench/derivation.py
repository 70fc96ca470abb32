"""The bench's judge of a linear derivation: does each stated equation follow from the one
before it, or from the problem, by one valid operation?

A second implementation, on purpose: it reads equations with the bench's own reader
(`stepchat.bench.algebra`) and decides with sympy's linear solver whether an operation
exists, where the engine compares normalised coefficients of its own parse. Judging only
"every stated equation has the problem's solution set" counted "3x = 15" as a correct step
of 5x + 3 = 28 (both have x = 5); a derivation must be a derivation of this problem.

One operation takes `L = R` to `L' = R'` when, for a term `t` (any polynomial in the
unknown) and a constant `k`, either k = 1 and `L' = L + t, R' = R + t` (add a term to both
sides; t = 0 is rewriting a side), or t = 0 and `L' = k·L, R' = k·R` with k ≠ 0 (multiply
both sides), in either side order. A statement about numbers that is true may also stand
without advancing the derivation when it checks a value: the problem's sides at the
solution, or the value of a constant side of the equation before it (`15/3 = 5`); inside a
chain `a = b = c` a link whose sides are equal rewrites a side.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import sympy

from stepchat.bench.algebra import Poly

Equation = tuple[Poly, Poly]


def _coefficient(poly: Poly, degree: int) -> sympy.Rational:
    value = poly.coeffs.get(degree, Fraction(0))
    return sympy.Rational(value.numerator, value.denominator)


def _degree(*polys: Poly) -> int:
    return max((p.degree for p in polys), default=0)


def _by_adding(before: Equation, after: Equation) -> bool:
    """Is there a term t with after = before + t on both sides?"""
    top = _degree(*before, *after)
    terms = sympy.symbols(f"t0:{top + 1}")
    system = []
    for degree in range(top + 1):
        for old, new in zip(before, after, strict=True):
            system.append(
                _coefficient(new, degree) - _coefficient(old, degree) - terms[degree]
            )
    return bool(sympy.linsolve(system, terms))


def _by_scaling(before: Equation, after: Equation) -> bool:
    """Is there a constant k ≠ 0 with after = k·before on both sides?"""
    k = sympy.Symbol("k")
    system = [
        _coefficient(new, degree) - k * _coefficient(old, degree)
        for degree in range(_degree(*before, *after) + 1)
        for old, new in zip(before, after, strict=True)
    ]
    solutions = sympy.linsolve(system, [k])
    return any(value.free_symbols or value != 0 for (value,) in solutions)


def follows(before: Equation, after: Equation) -> bool:
    """`after` is one valid operation applied to `before` (in either side order)."""
    return any(
        _by_adding(before, oriented) or _by_scaling(before, oriented)
        for oriented in (after, (after[1], after[0]))
    )


def _is_identity(link: Equation) -> bool:
    return not (link[0] - link[1]).coeffs


@dataclass(frozen=True)
class Judge:
    """Walks the stated equations of an answer from the problem."""

    problem: Equation
    variable: str
    solution: Fraction | None
    """The one solution, or None when the problem has none or every number solves it."""

    def first_gap(self, chains: Sequence[tuple[int, list[Poly]]]) -> tuple[int, str] | None:
        """(line number, why) of the first stated equation that does not follow, or None.
        `chains` are (line number, sides of one chain `a = b = c`) in reading order."""
        before = self.problem
        for number, sides in chains:
            links = list(itertools.pairwise(sides))
            stated = False
            for link in links:
                stray = (link[0].names | link[1].names) - {self.variable}
                if stray:
                    return number, f"an equation in {', '.join(sorted(stray))}"
                if len(links) > 1 and _is_identity(link):
                    continue
                if follows(before, link) or follows(self.problem, link):
                    before, stated = link, True
                elif self._checks(link, before):
                    stated = True
                else:
                    return number, "a step that does not follow from the one before it"
            if not stated and not self._checks((sides[0], sides[-1]), before):
                return number, "a statement about numbers that checks nothing"
        return None

    def _checks(self, link: Equation, before: Equation) -> bool:
        left, right = link
        if left.names or right.names or left.value() != right.value():
            return False
        value = left.value()
        constant_sides = {side.value() for side in before if not side.names}
        if value in constant_sides:
            return True
        if self.solution is None:
            return False
        at = [_evaluate(side, self.solution) for side in self.problem]
        return sorted(at) == sorted((left.value(), right.value()))


def _evaluate(poly: Poly, value: Fraction) -> Fraction:
    return sum((c * value**d for d, c in poly.coeffs.items()), Fraction(0))
