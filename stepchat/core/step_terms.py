"""The arithmetic a derivation step's text shows, side by side.

`derivation` checks the equation a step states by its value (`a·x + b` on each side): that
alone passed any text with the right value, so `3x + 5 - 5 = 20 - 5` (3x + 5 = 20's step)
was served, verified, as a step of 3x - 4 = 11, and `x = 4/2` as one of 4x = 8. Here each
side of a step, read as written with its signs, must be one of three forms:

- reduced: the terms of the side it states (`3x`, `15`, `-2x + 4`, `0`);
- the operation shown: the terms of the same side of the equation before it, reduced, and
  then, written last, the one term the operation adds (`3x + 5 - 5`, `20 - 5`, `0 + 5`,
  `4x - 3 + (3)`);
- the factor shown: that side before it, reduced, over or times the factor, signs kept
  (`15/3`, `3x/3`, `\\frac{15}{3}`, `2(x + 1)`, `-12/4`, `-8/-4`).

A link of a chain that only rewrites a value (`39 - 9 = 30`, `15 = 3 * 5`) writes a side of
the chain's own equations, a single number, or the product of a coefficient and the
solution; a check of the answer (`3(5) + 5 = 20`) writes the problem's own sides. Anything
else declines: a side written as arithmetic this module cannot read is not shown to be this
problem's.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from stepchat.core.mathparse import normalise_symbols

Terms = Counter[tuple[str, Fraction]]
"""A side's terms: ("x", coefficient) and ("c", constant), as many times as written."""
Side = tuple[Fraction, Fraction]
"""A side's coefficient of the unknown and its constant."""
Operation = tuple[Fraction, Fraction, Fraction]
"""The unknown's term and the constant added to both sides, and the factor applied."""

_FRAC = re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}")
_NUMBER = r"\d+(?:\.\d+)?"


def reduced(side: Side) -> Terms:
    """The terms of a side written reduced: `3x + 5`; a side with neither is `0`."""
    a, b = side
    terms: Terms = Counter()
    if a:
        terms["x", a] += 1
    if b or not a:
        terms["c", b] += 1
    return terms


def side_shown(
    text: str, variable: str, before: Side, after: Side, op: Operation | None,
) -> bool:
    """Whether the side written `text` states `after` in one of the module's three forms,
    reached from `before` by `op` (None: by no one operation, so only reduced)."""
    sign, body = _signed(_plain(text))
    terms = _terms(sign + body, variable)
    if terms is not None and terms == reduced(after):
        return True
    if op is None:
        return False
    p, q, k = op
    if terms is not None:
        return k == 1 and _operation_shown(_term_list(sign + body, variable), before, p, q)
    return k != 1 and _factor_shown(sign, body, variable, before, k)


def _operation_shown(
    written: list[tuple[str, Fraction]] | None, before: Side, p: Fraction, q: Fraction,
) -> bool:
    """The side before, reduced, in any order, then the one term the operation adds, last:
    `3x + 5 - 5` shows 3x + 5 minus 5, and `(3x + 5) - 5` or `3x - 5 + 5` read as 3x - 5
    plus 5 would show another equation's subtraction (the terms agree as a set)."""
    if written is None or (p and q) or not (p or q):
        return False
    added = ("x", p) if p else ("c", q)
    return written[-1] == added and Counter(written[:-1]) == reduced(before)


def rewrite_shown(
    text: str, variable: str, sides: Sequence[str], coefficients: set[Fraction],
    solution: Fraction | None,
) -> bool:
    """Whether `text`, a side of a chain's link that only rewrites a value, writes a side
    of the chain's own equations (`sides`), a single number, or the product of a
    coefficient and the solution (`15 = 3 * 5` after 3x = 15)."""
    plain = _plain(text)
    if plain in {_plain(s) for s in sides} or re.fullmatch(rf"[+-]?{_NUMBER}", plain):
        return True
    product = re.fullmatch(rf"({_NUMBER})\*\(?({_NUMBER})\)?", plain)
    if product is None or solution is None:
        return False
    factors = {Fraction(product.group(1)), Fraction(product.group(2))}
    return any(factors == {abs(c), abs(solution)} for c in coefficients)


def _plain(text: str) -> str:
    """`text` with the signs and fractions of every notation the parser reads made one,
    and no spaces."""
    text = normalise_symbols(text).replace("\\cdot", "*").replace("\\times", "*")
    text = _FRAC.sub(r"(\1)/(\2)", text).replace("\\left", "").replace("\\right", "")
    return re.sub(r"\s+", "", text)


def _signed(text: str) -> tuple[str, str]:
    """A leading sign and the rest."""
    return (text[0], text[1:]) if text[:1] in "+-" else ("", text)


def _terms(text: str, variable: str) -> Terms | None:
    """The side's terms, or None when one term is more than a number or a multiple of the
    unknown (a product, a quotient of numbers not in lowest terms, `4/2`)."""
    found = _term_list(text, variable)
    return None if found is None else Counter(found)


def _term_list(text: str, variable: str) -> list[tuple[str, Fraction]] | None:
    """The side's terms in the order written (see `_terms`). A bracket that holds a sum is
    opened: `3x + 5 + (2x - 3)` adds a term of two parts."""
    terms: list[tuple[str, Fraction]] = []
    for sign, body in _split(_SIGN_RUN.sub(_one_sign, text)):
        inner = _unbracketed(body)
        if inner != body and len(_split(inner)) > 1:
            opened = _term_list(inner, variable)
            if opened is None:
                return None
            terms += [(kind, -value if sign == "-" else value) for kind, value in opened]
            continue
        term = _term(body, variable)
        if term is None:
            return None
        kind, value = term
        terms.append((kind, -value if sign == "-" else value))
    return terms


_SIGN_RUN = re.compile(r"[+-]{2,}")


def _one_sign(run: re.Match[str]) -> str:
    """`+-5` adds -5, `--5` adds 5: a run of signs is the one sign it makes."""
    return "-" if run.group(0).count("-") % 2 else "+"


def _split(text: str) -> list[tuple[str, str]]:
    """The top-level terms of a sum, each with its sign (`+` where none is written)."""
    found: list[tuple[str, str]] = []
    depth, start, sign = 0, 0, "+"
    if text[:1] in "+-":
        sign, start = text[0], 1
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and ch in "+-" and i > start and text[i - 1] not in "*/(":
            found.append((sign, text[start:i]))
            sign, start = ch, i + 1
    found.append((sign, text[start:]))
    return found


_VALUE = rf"[+-]?{_NUMBER}(?:/\d+)?"
"""A number as a factor or a divisor may be written: signed, whole, decimal or a fraction."""


def _number(text: str) -> Fraction | None:
    """A number as written: whole or decimal, or a fraction in lowest terms (`5/3`; `4/2`
    is a division, which only a quotient form shows), bracketed or not, signed inside its
    bracket."""
    inner = _unbracketed(text)
    if inner != text and inner[:1] in "+-":
        value = _number(inner[1:])
        return None if value is None else (-value if inner[0] == "-" else value)
    if re.fullmatch(_NUMBER, inner):
        return Fraction(inner)
    fraction = re.fullmatch(r"(\d+)/(\d+)", inner)
    if fraction:
        n, d = int(fraction.group(1)), int(fraction.group(2))
        if d > 1 and math.gcd(n, d) == 1:
            return Fraction(n, d)
    return None


def _term(body: str, variable: str) -> tuple[str, Fraction] | None:
    """A number (`5`, `(-3)`, `5/3`), or a multiple of the unknown (`3x`, `3*x`, `x`, `x/2`,
    `3x/4`, `(1/2)x`, `(-1/2)*x`)."""
    number = _number(body)
    if number is not None:
        return "c", number
    v = re.escape(variable)
    multiple = re.fullmatch(rf"({_NUMBER})?\*?{v}(?:/({_NUMBER}))?", body)
    if multiple:
        value = Fraction(multiple.group(1) or 1)
        return "x", value / Fraction(multiple.group(2)) if multiple.group(2) else value
    coefficient = re.fullmatch(rf"(\(.+\))\*?{v}", body)
    inside = None if coefficient is None else _number(coefficient.group(1))
    return None if inside is None else ("x", inside)


def _factor_shown(sign: str, body: str, variable: str, before: Side, k: Fraction) -> bool:
    """`N/D`, `N*K`, `K*N` or `K(N)`, where N is `before` reduced (the sign before the
    side taken into N) and D is 1/k or K is k, signs included: `x = 8/4` shows 2x = 4
    divided, not -4x = -8 (`-8/-4`)."""
    body = _outermost(body)
    at = _top_level(body, "/")
    if at is not None:
        return _factor(body[at + 1:]) == 1 / k and _is_reduced(
            sign + _unbracketed(body[:at]), variable, before)
    return any(_factor(factor) == k and _is_reduced(sign + _unbracketed(group), variable,
                                                    before)
               for factor, group in _products(body))


def _factor(text: str) -> Fraction | None:
    """A factor or divisor as written (`3`, `(1/2)`, `(-2)`, `-4`)."""
    inner = _unbracketed(text)
    if not re.fullmatch(_VALUE, inner):
        return None
    return Fraction(inner.lstrip("+"))


def _products(body: str) -> list[tuple[str, str]]:
    """The (factor, group) readings of a product of a number and a bracket: `2(x + 1)`,
    `(1/3)(3x + 5)`, `2*(x + 1)`, `(x + 1)*2`."""
    found = []
    at = _top_level(body, "*")
    if at is not None:
        found += [(body[:at], body[at + 1:]), (body[at + 1:], body[:at])]
    split = re.fullmatch(r"(\([^()]*\)|[+-]?[\d.]+)(\(.+\))", body)
    if split:
        found.append((split.group(1), split.group(2)))
    return found


def _top_level(body: str, op: str) -> int | None:
    """Where `op` stands outside every bracket (the last such place), or None."""
    depth, found = 0, None
    for i, ch in enumerate(body):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and ch == op:
            found = i
    return found


def _outermost(text: str) -> str:
    """`text` without brackets around the whole of it (`((15)/(3))` is `(15)/(3)`)."""
    while (inner := _unbracketed(text)) != text:
        text = inner
    return text


def _unbracketed(text: str) -> str:
    """`text` without one bracket around the whole of it (`(3x + 5)`, not `(3)(x + 5)`)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and i < len(text) - 1:
            return text  # the first bracket closes before the end
    return text[1:-1]


def _is_reduced(text: str, variable: str, side: Side) -> bool:
    return _terms(text, variable) == reduced(side)
