"""A whitelist tokenizer and recursive-descent parser for equations in one unknown.

Text from prompts, the model and the cache reaches sympy only through here: every token is
a number, a one-letter name, an operator or a bracket, and the parser builds sympy objects
directly (no `eval`, no `sympify`/`parse_expr` on strings). Sizes are bounded so a hostile
line cannot hang a check: numbers are short, exponents are small literals, nesting is shallow.

Short text can still describe enormous work: `((x^4)^4)^4...` is a polynomial of degree 4^20,
`(x + 1)` nested five powers deep expands to 1,025 terms with 300-digit coefficients, and
`(2^4)^4...` is an integer sympy computes at once. So every sub-expression carries an upper
bound on what expanding it can produce (`Size`: degree, number of terms, coefficient bits),
computed from its parts *before* the sympy object is built; past `MAX_DEGREE`, `MAX_TERMS`
or `MAX_COEFFICIENT_BITS` the text is not an equation this checker takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import sympy

MAX_EQUATION_CHARS = 400
MAX_NUMBER_DIGITS = 24
MAX_EXPONENT = 4
MAX_DEPTH = 40
MAX_DEGREE = 12
"""Highest total degree an expression may expand to (a linear step needs 1; `(x+1)^2 - x^2`
style rewrites a little more)."""
MAX_TERMS = 256
"""Most monomials an expression may expand to."""
MAX_COEFFICIENT_BITS = 2048
"""Most bits of the numerator (and of the denominator) of the expanded coefficients."""

_TOKEN = re.compile(r"\s*(?:([0-9]+(?:\.[0-9]+)?)|([A-Za-z])|(\*\*|[-+*/^()=]))")
"""ASCII digits only: `৪` (Bengali four) looks like an 8 to a reader."""
_SYMBOLS = {"−": "-", "×": "*", "·": "*", "÷": "/", "⋅": "*"}
"""An en dash is punctuation ("both sides – 3x = 15"), never read as a minus."""
_EMPHASIS = re.compile(r"(?<!\*)\*(?![\s*])[^*]*?(?<![\s*])\*(?!\*)")
"""Two single stars a Markdown reader pairs as emphasis: `1*5*0` shows as "150"."""
_GROUPED = re.compile(r"(?<![0-9.])[1-9][0-9]{0,2}\.[0-9]{3}(?![0-9.])")
"""`1.500`: one and a half, or fifteen hundred with a point between thousands."""
_RAISED_POINT = re.compile(r"[0-9][·⋅][0-9]")
"""`2·5`: a product, or two and a half with the raised decimal point of British print."""


class MathSyntaxError(ValueError):
    """The text is not an equation (or expression) this parser accepts."""


class TooLargeError(MathSyntaxError):
    """The text parses, but expanding it would cost more than a check may spend."""


@dataclass(frozen=True)
class Size:
    """Upper bounds on an expression once expanded: `numerator / denominator` where the
    numerator is a polynomial with integer coefficients.

    `num_bits` bounds the bits of the sum of the numerator's absolute coefficients (a norm
    that is sub-multiplicative, so products and powers are bounded by products and powers
    of the parts), `den_bits` the bits of the denominator, `terms` the monomial count.
    """

    degree: int
    terms: int
    num_bits: int
    den_bits: int
    names: frozenset[str]

    @staticmethod
    def number(value: Fraction) -> Size:
        return Size(0, 1, max(1, abs(value.numerator).bit_length()),
                    value.denominator.bit_length(), frozenset())

    @staticmethod
    def variable(name: str) -> Size:
        return Size(1, 1, 1, 1, frozenset({name}))

    def plus(self, other: Size) -> Size:
        return Size(
            max(self.degree, other.degree),
            self.terms + other.terms,
            max(self.num_bits + other.den_bits, other.num_bits + self.den_bits) + 1,
            self.den_bits + other.den_bits,
            self.names | other.names,
        ).checked()

    def times(self, other: Size) -> Size:
        return Size(
            self.degree + other.degree,
            self.terms * other.terms,
            self.num_bits + other.num_bits,
            self.den_bits + other.den_bits,
            self.names | other.names,
        ).checked()

    def over(self, other: Size) -> Size:
        """Division swaps the divisor's numerator and denominator bounds."""
        flipped = Size(other.degree, other.terms, other.den_bits, other.num_bits, other.names)
        return self.times(flipped)

    def power(self, exponent: int) -> Size:
        if exponent == 0:
            return Size.number(Fraction(1))
        return Size(
            self.degree * exponent,
            comb(self.terms + exponent - 1, exponent),  # monomials of a multinomial power
            self.num_bits * exponent,
            self.den_bits * exponent,
            self.names,
        ).checked()

    def checked(self) -> Size:
        """This size with the term count capped by what its degree allows; raise if too big."""
        if self.degree > MAX_DEGREE:
            raise TooLargeError(f"expression of degree {self.degree} is too large to check")
        if max(self.num_bits, self.den_bits) > MAX_COEFFICIENT_BITS:
            raise TooLargeError("expression coefficients are too large to check")
        monomials = comb(self.degree + len(self.names), len(self.names))
        terms = min(self.terms, monomials)
        if terms > MAX_TERMS:
            raise TooLargeError(f"expression of {terms} terms is too large to check")
        return Size(self.degree, terms, self.num_bits, self.den_bits, self.names)


Sized = tuple[sympy.Expr, Size]


@dataclass(frozen=True)
class Token:
    kind: str  # "num" | "var" | "op"
    text: str
    spaced: bool = False
    """Whitespace stands before it: `7.5 (2)` and `(2) x` are a label beside a number,
    not products, so an implicit product is read only between touching factors."""


def normalise_symbols(text: str) -> str:
    for src, dst in _SYMBOLS.items():
        text = text.replace(src, dst)
    return text


def tokenize(text: str) -> list[Token]:
    """Split into whitelisted tokens; anything else is a MathSyntaxError. Text a reader
    could take two ways is not read: stars a renderer shows as emphasis, a number whose
    point may separate thousands, a raised dot between digits."""
    if _EMPHASIS.search(text):
        raise MathSyntaxError("stars that render as emphasis")
    if _GROUPED.search(text):
        raise MathSyntaxError("a point that may separate thousands")
    if _RAISED_POINT.search(text):
        raise MathSyntaxError("a raised dot between digits")
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
        spaced = m.start(m.lastindex or 0) > pos
        if m.group(1):
            digits = m.group(1)
            if len(digits.replace(".", "")) > MAX_NUMBER_DIGITS:
                raise MathSyntaxError("number too long")
            tokens.append(Token("num", digits, spaced))
        elif m.group(2):
            tokens.append(Token("var", m.group(2), spaced))
        else:
            op = "^" if m.group(3) == "**" else m.group(3)
            tokens.append(Token("op", op, spaced))
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

    def expr(self) -> Sized:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise MathSyntaxError("nesting too deep")
        left, size = self.term()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            sign = self.peek()
            if sign is not None and sign.kind == "op" and sign.text in "+-":
                operand = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
                if not sign.spaced or operand is None or operand.spaced:
                    # `3x +- 5`, `3x + - 5`: ± to some writers, `-+` ∓, `--5` a slip as
                    # often as a double negative; a sign set apart from the operator and
                    # joined to its number is the number's (`5 - -3`, `x + -1`)
                    raise MathSyntaxError("two signs in a row")
            right, right_size = self.term()
            size = size.plus(right_size)
            left = left + right if tok.text == "+" else left - right
        self.depth -= 1
        return left, size

    def _starts_atom(self, tok: Token | None) -> bool:
        if tok is None:
            return False
        return tok.kind in ("num", "var") or (tok.kind == "op" and tok.text == "(")

    def term(self) -> Sized:
        left, size = self.unary()
        divided = False
        while True:
            tok = self.peek()
            if tok is not None and tok.kind == "op" and tok.text in "*/":
                self.take()
                if divided:
                    # `3/2/3`: 1/2 read left to right, 9/2 read as 3 over 2/3; `6/2×3`: 9
                    # left to right, 1 with the slash as a fraction bar (ISO 80000-1 asks
                    # for brackets after a solidus for this reason)
                    raise MathSyntaxError("a quotient divided or multiplied again without "
                                          "brackets")
                right, right_size = self.unary()
                divided = tok.text == "/"
                if tok.text == "*":
                    size = size.times(right_size)
                    left = left * right
                else:
                    if right == 0:
                        raise MathSyntaxError("division by zero")
                    if right_size.names:
                        # sympy cancels (x - 2)/(x - 2) to 1 on sight, losing x = 2 from
                        # the domain: a quotient by the unknown is not read at all
                        raise MathSyntaxError("division by an expression in the unknown")
                    size = size.over(right_size)
                    left = left / right
            elif self._starts_atom(tok) and not (tok is not None and tok.kind == "num"):
                # implicit product: 3x, 2(x + 1), (x + 1)(x - 1); never "x 3", and never
                # across a space ("7.5 (2)" is 7.5 labelled (2) to a reader, not 15)
                assert tok is not None
                if tok.spaced:
                    raise MathSyntaxError("factors side by side with a space between")
                if divided:
                    # `1/2x`, `30/2(3)`: (1/2)·x to some readers, 1/(2x) to others
                    raise MathSyntaxError("a product glued to a divisor")
                right, right_size = self.power()
                size = size.times(right_size)
                left = left * right
            else:
                return left, size

    def unary(self) -> Sized:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            after = self.peek()
            if after is not None and after.kind == "op" and after.text in "+-":
                # `= +-5` is ± to its writer (two values), `-+` ∓, `--5` a slip as often
                # as 5: one sign before an operand at most.
                raise MathSyntaxError("two signs in a row")
            inner, size = self.power()
            return (-inner if tok.text == "-" else inner), size
        return self.power()

    def power(self) -> Sized:
        base, size = self.atom()
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text == "^":
            self.take()
            exp_tok = self.take()
            if exp_tok.kind != "num" or "." in exp_tok.text:
                raise MathSyntaxError("exponent must be a small whole number")
            exponent = int(exp_tok.text)
            if exponent > MAX_EXPONENT:
                raise MathSyntaxError("exponent too large")
            glued = self.peek()
            if self._starts_atom(glued) and glued is not None and not glued.spaced:
                # `2^3x`: (2^3)·x to some readers, 2^(3x) to others, as `1/2x` is
                raise MathSyntaxError("a power glued to a factor")
            # The bound first: sympy evaluates (2^4)^4... and combines (x^4)^4 at once.
            size = size.power(exponent)
            return sympy.Pow(base, exponent), size
        return base, size

    def atom(self) -> Sized:
        tok = self.take()
        if tok.kind == "num":
            value = Fraction(tok.text)
            return sympy.Rational(value), Size.number(value)
        if tok.kind == "var":
            return sympy.Symbol(tok.text), Size.variable(tok.text)
        if tok.text == "(":
            inner = self.expr()
            self.expect_op(")")
            return inner
        raise MathSyntaxError(f"unexpected {tok.text!r}")


def parse_sized(text: str) -> Sized:
    """The expression and the bound on its expansion; raises MathSyntaxError/TooLargeError."""
    parser = _Parser(tokenize(text))
    if not parser.tokens:
        raise MathSyntaxError("empty expression")
    expr, size = parser.expr()
    if parser.peek() is not None:
        raise MathSyntaxError(f"unexpected {parser.peek().text!r}")  # type: ignore[union-attr]
    return expr, size


def parse_equation(text: str) -> tuple[sympy.Expr, sympy.Expr, frozenset[str]]:
    """`lhs = rhs` as two sympy expressions whose difference is small enough to expand, and
    the names written in it: sympy drops a term that cancels as it builds (`0x`, `3x - 3x`),
    and the unknown the request names is still the one it asks for."""
    if text.count("=") != 1:
        raise MathSyntaxError("an equation has exactly one '='")
    left, right = text.split("=")
    (lhs, left_size), (rhs, right_size) = parse_sized(left), parse_sized(right)
    whole = left_size.plus(right_size)  # `lhs - rhs` is expanded too: bound it as a whole
    return lhs, rhs, whole.names
