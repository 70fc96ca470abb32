"""Exact arithmetic on one-unknown polynomial expressions, for the bench checker only.

The checker must not trust the engine it judges, so it has its own small reader: a
whitelisted tokenizer (numbers, one-letter names, + - * / ^ and parentheses, implicit
multiplication as in `3x` or `2(x + 1)`) and a recursive-descent parser that builds a
polynomial with `Fraction` coefficients. No `eval`, no floats, no sympy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

MAX_POWER = 4


class ParseError(ValueError):
    """Not an expression this reader accepts."""


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "name", "op", "(", ")", "="
    text: str


_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z]+)|([-+*/^=()]))")


def tokenize(text: str) -> list[Token | None]:
    """Tokens of `text`; `None` marks anything outside the whitelist (a run breaker)."""
    out: list[Token | None] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            if not text[pos].isspace():
                out.append(None)
            pos += 1
            continue
        num, name, sym = match.groups()
        if num is not None:
            out.append(Token("num", num))
        elif name is not None:
            out.append(Token("name", name) if len(name) == 1 else None)
        elif sym in "()":
            out.append(Token(sym, sym))
        elif sym == "=":
            out.append(Token("=", sym))
        else:
            out.append(Token("op", sym))
        pos = match.end()
    return out


class Poly:
    """A polynomial in one unknown: degree -> exact coefficient (zeros dropped)."""

    __slots__ = ("coeffs", "names")

    def __init__(self, coeffs: dict[int, Fraction], names: frozenset[str] = frozenset()) -> None:
        self.coeffs = {d: c for d, c in coeffs.items() if c != 0}
        self.names = names

    @staticmethod
    def const(value: Fraction) -> Poly:
        return Poly({0: value})

    @staticmethod
    def var(name: str) -> Poly:
        return Poly({1: Fraction(1)}, frozenset({name}))

    @property
    def degree(self) -> int:
        return max(self.coeffs, default=0)

    def is_const(self) -> bool:
        return self.degree == 0

    def value(self) -> Fraction:
        return self.coeffs.get(0, Fraction(0))

    def __add__(self, other: Poly) -> Poly:
        keys = set(self.coeffs) | set(other.coeffs)
        return Poly(
            {d: self.coeffs.get(d, Fraction(0)) + other.coeffs.get(d, Fraction(0)) for d in keys},
            self.names | other.names,
        )

    def __neg__(self) -> Poly:
        return Poly({d: -c for d, c in self.coeffs.items()}, self.names)

    def __sub__(self, other: Poly) -> Poly:
        return self + (-other)

    def __mul__(self, other: Poly) -> Poly:
        out: dict[int, Fraction] = {}
        for d1, c1 in self.coeffs.items():
            for d2, c2 in other.coeffs.items():
                out[d1 + d2] = out.get(d1 + d2, Fraction(0)) + c1 * c2
        return Poly(out, self.names | other.names)

    def divide(self, other: Poly) -> Poly:
        if not other.is_const() or other.value() == 0:
            raise ParseError("division by a non-constant or by zero")
        return Poly({d: c / other.value() for d, c in self.coeffs.items()}, self.names)

    def power(self, exponent: Poly) -> Poly:
        if not exponent.is_const() or exponent.value().denominator != 1:
            raise ParseError("exponent must be a whole number")
        n = int(exponent.value())
        if not 0 <= n <= MAX_POWER:
            raise ParseError("exponent out of range")
        out = Poly.const(Fraction(1))
        for _ in range(n):
            out = out * self
        return out


class _Parser:
    """expr := term (('+'|'-') term)* ; term := unary (('*'|'/'|implicit) unary)* ;
    unary := ('+'|'-') unary | power ; power := atom ('^' unary)? ;
    atom := number | name | '(' expr ')'."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise ParseError("unexpected end")
        self.pos += 1
        return tok

    def parse(self) -> Poly:
        if not self.tokens:
            raise ParseError("empty")
        result = self.expr()
        if self.peek() is not None:
            raise ParseError(f"unexpected {self.peek()}")
        return result

    def expr(self) -> Poly:
        result = self.term()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            rhs = self.term()
            result = result + rhs if tok.text == "+" else result - rhs
        return result

    def term(self) -> Poly:
        result = self.unary()
        while (tok := self.peek()) is not None:
            if tok.kind == "op" and tok.text in "*/":
                self.take()
                rhs = self.unary()
                result = result * rhs if tok.text == "*" else result.divide(rhs)
            elif tok.kind in ("name", "("):
                result = result * self.power()
            else:
                break
        return result

    def unary(self) -> Poly:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            inner = self.unary()
            return -inner if tok.text == "-" else inner
        return self.power()

    def power(self) -> Poly:
        base = self.atom()
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text == "^":
            self.take()
            return base.power(self.unary())
        return base

    def atom(self) -> Poly:
        tok = self.take()
        if tok.kind == "num":
            return Poly.const(Fraction(tok.text))
        if tok.kind == "name":
            return Poly.var(tok.text)
        if tok.kind == "(":
            inner = self.expr()
            if self.take().kind != ")":
                raise ParseError("expected ')'")
            return inner
        raise ParseError(f"unexpected {tok.text!r}")


def parse(tokens: list[Token]) -> Poly:
    """The polynomial the tokens spell; raises ParseError."""
    return _Parser(tokens).parse()


def parse_text(text: str) -> Poly:
    tokens = tokenize(text)
    if any(t is None for t in tokens):
        raise ParseError("text outside the whitelist")
    return parse([t for t in tokens if t is not None])


SolutionSet = Fraction | str  # a single value, or "none" / "all"


def solution_set(left: Poly, right: Poly) -> SolutionSet | None:
    """Solutions of `left = right` in its one unknown; None when it is not linear."""
    diff = left - right
    if diff.degree > 1:
        return None
    a = diff.coeffs.get(1, Fraction(0))
    b = diff.coeffs.get(0, Fraction(0))
    if a == 0:
        return "all" if b == 0 else "none"
    return -b / a


def parse_solution(text: str) -> SolutionSet:
    """A workload solution: "none", "all", or an exact rational such as "13/3"."""
    cleaned = text.strip().lower()
    if cleaned in ("none", "all"):
        return cleaned
    return Fraction(cleaned)
