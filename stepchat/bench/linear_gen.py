"""Linear-equation families for the bench workload.

Each base is a one-unknown linear equation written literally in the prompt
("Solve for x: 3x + 5 = 20. Show each step."), so any engine can read it. Its variants
follow the paper's five perturbation kinds: paraphrase, variable rename, constant change,
output-format instruction change, and semantic change (the unknown on both sides, or a
degenerate equation with no solution or every value as solution). Solutions are computed
exactly with `Fraction`, never with floats.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from fractions import Fraction

from stepchat.bench.records import Family, Request

BASE_TEMPLATE = "Solve for {v}: {eq}. Show each step."
PARAPHRASES = (
    "Find {v} if {eq}. Work it out step by step.",
    "What value of {v} satisfies {eq}? Show your steps.",
    "Solve the equation {eq} for {v}, showing each step.",
)
FORMATS = (
    "Solve for {v}: {eq}. Write one equation per line and finish with the line {v} = <value>.",
    "Solve for {v}: {eq}. Be brief: give only the key steps and the final answer.",
    "Solve for {v}: {eq}. Number each step.",
)
VARIABLES = ("x", "y", "z", "n", "t", "k", "m", "p", "w")


@dataclass(frozen=True)
class Side:
    """`coef·v + const`, printed either expanded or as `factor(v + inner)`."""

    coef: int = 0
    const: int = 0
    factor: int | None = None
    inner: int = 0

    @staticmethod
    def factored(factor: int, inner: int) -> Side:
        return Side(coef=factor, const=factor * inner, factor=factor, inner=inner)

    def render(self, v: str) -> str:
        if self.factor is not None:
            sign = "+" if self.inner >= 0 else "-"
            return f"{self.factor}({v} {sign} {abs(self.inner)})"
        if self.coef == 0:
            return str(self.const)
        term = v if self.coef == 1 else f"-{v}" if self.coef == -1 else f"{self.coef}{v}"
        if self.const == 0:
            return term
        sign = "+" if self.const > 0 else "-"
        return f"{term} {sign} {abs(self.const)}"


@dataclass(frozen=True)
class Equation:
    left: Side
    right: Side

    def render(self, v: str) -> str:
        return f"{self.left.render(v)} = {self.right.render(v)}"

    def solution(self) -> str:
        """The exact solution as text: a rational like "13/3", or "none" / "all"."""
        a = self.left.coef - self.right.coef
        b = self.right.const - self.left.const
        if a == 0:
            return "all" if b == 0 else "none"
        return str(Fraction(b, a))


def _nonzero(rng: random.Random, lo: int, hi: int, *, avoid: tuple[int, ...] = ()) -> int:
    while True:
        value = rng.randint(lo, hi)
        if value != 0 and value not in avoid:
            return value


def _base_equation(rng: random.Random) -> Equation:
    """`a·v ± b = c` or `m(v ± b) = c`, usually with an integer solution."""
    integer = rng.random() < 0.75
    if rng.random() < 0.3:
        left = Side.factored(rng.randint(2, 6), _nonzero(rng, -9, 9))
    else:
        b = rng.randint(1, 15) * (1 if rng.random() < 0.7 else -1)
        left = Side(coef=rng.randint(2, 9), const=b)
    c = left.coef * rng.randint(-5, 12) + left.const if integer else rng.randint(1, 40)
    return Equation(left, Side(const=c))


def _constant_changes(rng: random.Random, eq: Equation, k: int) -> list[Equation]:
    """Change one number at a time: the constant term, the right side, the coefficient."""
    left, right = eq.left, eq.right
    out: list[Equation] = []
    for i in range(k):
        which = i % 3
        if which == 0 and left.factor is not None:
            inner = _nonzero(rng, -9, 9, avoid=(left.inner,))
            out.append(replace(eq, left=Side.factored(left.factor, inner)))
        elif which == 0:
            const = _nonzero(rng, -15, 15, avoid=(left.const,))
            out.append(replace(eq, left=replace(left, const=const)))
        elif which == 1:
            c = rng.randint(-10, 45)
            while c == right.const:
                c = rng.randint(-10, 45)
            out.append(replace(eq, right=Side(const=c)))
        elif left.factor is not None:
            factor = rng.choice([f for f in range(2, 8) if f != left.factor])
            out.append(replace(eq, left=Side.factored(factor, left.inner)))
        else:
            coef = rng.choice([c for c in range(2, 10) if c != left.coef])
            out.append(replace(eq, left=replace(left, coef=coef)))
    return out


def _semantic_changes(rng: random.Random, eq: Equation, k: int) -> list[Equation]:
    """Changes that alter the solution structure, not a number.

    Cycle: the unknown also on the right (still one solution); a degenerate equation with
    no solution, `m(v + b) = m·v + e` with e ≠ m·b; an identity, `m(v + b) = m·v + m·b`.
    """
    out: list[Equation] = []
    m = eq.left.factor or eq.left.coef
    inner = eq.left.inner if eq.left.factor is not None else _nonzero(rng, -9, 9)
    for i in range(k):
        which = i % 3
        if which == 0:
            d = rng.choice([c for c in range(1, 10) if c != eq.left.coef])
            s = rng.randint(-4, 9)
            e = (eq.left.coef - d) * s + eq.left.const
            out.append(Equation(eq.left, Side(coef=d, const=e)))
        elif which == 1:
            e = m * inner + _nonzero(rng, -7, 7)
            out.append(Equation(Side.factored(m, inner), Side(coef=m, const=e)))
        else:
            out.append(Equation(Side.factored(m, inner), Side(coef=m, const=m * inner)))
    return out


def _request(rid: str, template: str, v: str, eq: Equation) -> Request:
    prompt = template.format(v=v, eq=eq.render(v))
    check = {"kind": "linear", "variable": v, "solution": eq.solution(), "equation": eq.render(v)}
    return Request(rid, prompt, check)


def linear_family(rng: random.Random, index: int, k: int) -> Family:
    """One base equation and k variants of each perturbation kind."""
    v = "x" if rng.random() < 0.7 else rng.choice(VARIABLES[1:])
    eq = _base_equation(rng)
    fid = f"lin{index:02d}"
    variants: list[Request] = []
    for i in range(k):
        template = PARAPHRASES[i % len(PARAPHRASES)]
        variants.append(_request(f"{fid}-para-{i + 1}", template, v, eq))
    others = [u for u in VARIABLES if u != v]
    for i, u in enumerate(rng.sample(others, min(k, len(others)))):
        variants.append(_request(f"{fid}-rename-{i + 1}", BASE_TEMPLATE, u, eq))
    for i, changed in enumerate(_constant_changes(rng, eq, k)):
        variants.append(_request(f"{fid}-const-{i + 1}", BASE_TEMPLATE, v, changed))
    for i in range(k):
        template = FORMATS[i % len(FORMATS)]
        variants.append(_request(f"{fid}-format-{i + 1}", template, v, eq))
    for i, changed in enumerate(_semantic_changes(rng, eq, k)):
        variants.append(_request(f"{fid}-semantic-{i + 1}", BASE_TEMPLATE, v, changed))
    return Family(_request(f"{fid}-base", BASE_TEMPLATE, v, eq), variants)


def linear_families(rng: random.Random, bases: int, k: int) -> list[Family]:
    return [linear_family(rng, i + 1, k) for i in range(bases)]
