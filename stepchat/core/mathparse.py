"""A whitelist tokenizer and recursive-descent parser for equations in one unknown.

Text from prompts, the model and the cache reaches sympy only through here: every token is
a number, a one-letter name, an operator or a bracket, and the parser builds sympy objects
directly (no `eval`, no `sympify`/`parse_expr` on strings). Sizes are bounded so a hostile
line cannot hang a check: numbers are short, exponents are small literals, nesting is shallow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import sympy

MAX_EQUATION_CHARS = 400
MAX_NUMBER_DIGITS = 24
MAX_EXPONENT = 4
MAX_DEPTH = 40

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z])|(\*\*|[-+*/^()=]))")
_SYMBOLS = {"−": "-", "–": "-", "×": "*", "·": "*", "÷": "/", "⋅": "*"}


class MathSyntaxError(ValueError):
    """The text is not an equation (or expression) this parser accepts."""


@dataclass(frozen=True)
class Token:
    kind: str  # "num" | "var" | "op"
    text: str


def normalise_symbols(text: str) -> str:
    for src, dst in _SYMBOLS.items():
        text = text.replace(src, dst)
    return text


def tokenize(text: str) -> list[Token]:
    """Split into whitelisted tokens; anything else is a MathSyntaxError."""
    text = normalise_symbols(text)
    if len(text) > MAX_EQUATION_CHARS:
        raise MathSyntaxError("equation too long")
    tokens: list[Token] = []
    pos = 0
    stripped_end = len(text.rstrip())
    while pos < stripped_end:
        m = _TOKEN.match(text, pos)
        if not m:
            raise MathSyntaxError(f"unexpected character {text[pos:].strip()[:1]!r}")
        if m.group(1):
            digits = m.group(1)
            if len(digits.replace(".", "")) > MAX_NUMBER_DIGITS:
                raise MathSyntaxError("number too long")
            tokens.append(Token("num", digits))
        elif m.group(2):
            tokens.append(Token("var", m.group(2)))
        else:
            op = "^" if m.group(3) == "**" else m.group(3)
            tokens.append(Token("op", op))
        pos = m.end(0)
    return tokens


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise MathSyntaxError("unexpected end")
        self.i += 1
        return tok

    def expect_op(self, op: str) -> None:
        tok = self.take()
        if tok.kind != "op" or tok.text != op:
            raise MathSyntaxError(f"expected {op!r}")

    def expr(self) -> sympy.Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise MathSyntaxError("nesting too deep")
        left = self.term()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            right = self.term()
            left = left + right if tok.text == "+" else left - right
        self.depth -= 1
        return left

    def _starts_atom(self, tok: Token | None) -> bool:
        if tok is None:
            return False
        return tok.kind in ("num", "var") or (tok.kind == "op" and tok.text == "(")

    def term(self) -> sympy.Expr:
        left = self.unary()
        while True:
            tok = self.peek()
            if tok is not None and tok.kind == "op" and tok.text in "*/":
                self.take()
                right = self.unary()
                if tok.text == "*":
                    left = left * right
                else:
                    if right == 0:
                        raise MathSyntaxError("division by zero")
                    left = left / right
            elif self._starts_atom(tok) and not (tok is not None and tok.kind == "num"):
                # implicit product: 3x, 2(x + 1), (x + 1)(x - 1); never "x 3"
                left = left * self.power()
            else:
                return left

    def unary(self) -> sympy.Expr:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            inner = self.unary()
            return -inner if tok.text == "-" else inner
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text == "^":
            self.take()
            exp_tok = self.take()
            if exp_tok.kind != "num" or "." in exp_tok.text:
                raise MathSyntaxError("exponent must be a small whole number")
            exponent = int(exp_tok.text)
            if exponent > MAX_EXPONENT:
                raise MathSyntaxError("exponent too large")
            return sympy.Pow(base, exponent)
        return base

    def atom(self) -> sympy.Expr:
        tok = self.take()
        if tok.kind == "num":
            return sympy.Rational(Fraction(tok.text))
        if tok.kind == "var":
            return sympy.Symbol(tok.text)
        if tok.text == "(":
            inner = self.expr()
            self.expect_op(")")
            return inner
        raise MathSyntaxError(f"unexpected {tok.text!r}")


def parse_expression(text: str) -> sympy.Expr:
    parser = _Parser(tokenize(text))
    if not parser.tokens:
        raise MathSyntaxError("empty expression")
    expr = parser.expr()
    if parser.peek() is not None:
        raise MathSyntaxError(f"unexpected {parser.peek().text!r}")  # type: ignore[union-attr]
    return expr


def parse_equation(text: str) -> tuple[sympy.Expr, sympy.Expr]:
    """`lhs = rhs` as two sympy expressions."""
    if text.count("=") != 1:
        raise MathSyntaxError("an equation has exactly one '='")
    left, right = text.split("=")
    return parse_expression(left), parse_expression(right)
