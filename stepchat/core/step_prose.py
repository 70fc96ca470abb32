"""What the words of a linear step say it does: the operations its prose names.

A reused step is served as a derivation of the new problem, so a step that says "Subtract 5
from both sides" must be the equation that subtracting 5 yields, not another one with the
same solution. This module reads the closed list of phrasings below into `NamedOp`s; the
derivation check (`stepchat.core.derivation`) applies them. Prose it cannot read — a
number that is not the operand of a named operation ("the answer is 20"), a word outside
`stepchat.core.connectives`, an operand in another letter — reads as None, and the step
fails: a claim nobody checked is not served.

Phrasings read (case-insensitive, `−` read as `-`):

- add / adding T [to both sides | to each side]                  -> add T
- subtract / subtracting / remove T [from both sides | ...]      -> add −T
- subtract / remove the constant, the x terms                    -> remove that part of its side
- move / bring / collect / gather T | the constant | the x terms
  [to the left | the right | the other side]                     -> take it off its side
  [from | off the left | the right]                              -> take it off that side
  (collect / gather … on the left: gathered there; move / bring … on or at a side: not
  read, since it may say where the part is)
  (a term T is subtracted as written: "move 5" off 3x + 5, "move -5" off 3x - 5; the side
  it leaves must hold it: "move 5 to the left" off 3x + 5 = 20 is no move)
- multiply / multiplying / multiplied [both sides] by K          -> multiply by K (K ≠ 0)
- divide / dividing / divided [both sides] by K | by the coefficient [of x] -> divide by K
- simplify, combine (like terms), expand, distribute, rearrange, rewrite [both sides, each
  side, the left / right side]                                   -> rewrite only
- swap / swapping the sides                                      -> the sides swapped, exactly
- the x terms cancel                                             -> x's terms taken off both
                                      sides, or a rewrite; no unknown left
- addition / subtraction / multiplication / division, or a verb above with no operand
                                   -> only an operation the equation shows plainly, with
                                      the verb's sign (`derivation._unnamed`); a move with
                                      a direction and no operand does not read

T is a number, a fraction, a multiple of the unknown (`2x`, `(1/2)x`, `-x`) or "the
opposite of" one of those: ASCII digits, never number words ("by two" does not read, and "two"
is no connective, so the step fails). Everything else (isolate, solve, check, so, then,
...) names no operation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache

from stepchat.core.connectives import is_connective
from stepchat.core.linear import sides_form
from stepchat.core.mathparse import normalise_symbols


@dataclass(frozen=True)
class Operand:
    """What an operation applies: a literal term, or a named part of the current equation.

    kind "term" carries `coef·v + const`; "constant", "unknown" (the terms in the unknown)
    and "coefficient" (of the unknown) are read off the equation the operation applies to.
    `source` is the side the part is taken from ("left", "right"), or None for either.
    """

    kind: str
    coef: Fraction = Fraction(0)
    const: Fraction = Fraction(0)
    source: str | None = None


@dataclass(frozen=True)
class NamedOp:
    """An operation the prose names. kind: "add", "subtract", "move", "multiply",
    "divide" or "rewrite"; operand None means any operand of that kind."""

    kind: str
    operand: Operand | None = None


_NUM = r"[0-9]+(?:\.[0-9]+)?(?:\s*/\s*[0-9]+(?:\.[0-9]+)?)?"
_SIDES = r"(?:\s+of\s+the\s+equation)?"
_WHERE = (
    r"(?:\s+(?P<prep>to|from|on|off|at)\s+(?:both\s+sides|each\s+side"
    r"|the\s+(?P<dir>left|right)(?:\s+side)?|(?P<other>the\s+other\s+side))" + _SIDES + ")?"
)
_A_SIDE = (
    r"(?:\s+(?:on\s+|of\s+|in\s+)?(?:both\s+sides|each\s+side|the\s+(?:left|right)\s+side)"
    + _SIDES + ")?"
)
_REWRITE = re.compile(
    r"\b(?:simplify|simplifying|simplified|simplifies|combine|combining|expand|expanding"
    r"|distribute|distributing|rearrange|rearranging|rewrite|rewriting"
    r"|collect\s+like\s+terms|collecting\s+like\s+terms)\b"
    r"(?:\s+like\s+terms)?" + _A_SIDE
)
"""A rewrite may name the side it rewrites; it changes no side's value, so any side will do."""
_SWAP = re.compile(r"\b(?:swap|swapping)\s+(?:the\s+)?sides\b")
"""Swapping is read only with its object, and the equation must be the swap exactly."""
_KIND_WORDS = {
    "addition": "add",
    "subtraction": "subtract",
    "multiplication": "multiply",
    "division": "divide",
}
_VERBS = {
    "add": "add", "adding": "add",
    "subtract": "subtract", "subtracting": "subtract", "subtracted": "subtract",
    "remove": "subtract", "removing": "subtract",
    "move": "move", "moving": "move", "bring": "move", "collect": "move",
    "collecting": "move", "gather": "move",
    "multiply": "multiply", "multiplying": "multiply", "multiplied": "multiply",
    "divide": "divide", "dividing": "divide", "divided": "divide",
}


@lru_cache(maxsize=64)
def _patterns(variable: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    v = re.escape(variable.lower())
    term = (
        rf"(?P<opp>the\s+opposite\s+of\s+)?"
        rf"(?P<term>(?:-?\s*\(\s*-?\s*{_NUM}\s*\)|-\s*{_NUM}|{_NUM})(?:\s*{v})?|-?\s*{v})"
        rf"(?![a-z0-9])"
    )
    part = (
        rf"(?P<constant>(?:all\s+)?the\s+constants?(?:\s+terms?)?)"
        rf"|(?P<unknown>(?:all\s+)?(?:the\s+)?(?:{v}(?:\s*-\s*|\s+)terms?|terms\s+with\s+{v}))"
    )
    verbs = "|".join(sorted((w for w in _VERBS if _VERBS[w] in ("add", "subtract", "move")),
                            key=len, reverse=True))
    shift = re.compile(
        rf"\b(?P<verb>{verbs})\b(?!\s+like\s+terms)(?:\s+(?:{part}|{term}))?{_WHERE}"
    )
    scale_verbs = "|".join(w for w in _VERBS if _VERBS[w] in ("multiply", "divide"))
    by = (
        rf"(?:\s+(?:both\s+sides|each\s+side|it|this|the\s+equation){_SIDES})?(?:\s+by\s+"
        rf"(?:(?P<coefficient>the\s+coefficient(?:\s+of\s+{v})?)|{term}))?"
    )
    scale = re.compile(rf"\b(?P<verb>{scale_verbs})\b(?:{by})?")
    cancel = re.compile(rf"\b(?:the\s+)?{v}(?:\s*-\s*|\s+)terms\s+cancel(?:s)?(?:\s+out)?\b")
    return shift, scale, cancel


def _term(text: str, opposite: bool, variable: str) -> Operand | None:
    form = sides_form(f"{text.replace(' ', '')} = 0", variable)
    if form is None:
        return None
    sign = -1 if opposite else 1
    return Operand("term", sign * form.a, sign * form.b)


_SENT = frozenset({"move", "moving", "bring"})
"""Verbs that send a part somewhere: "on" or "at" a side after them may say where it goes
or where it is. "Collect the x terms on the left" gathers them there."""


def _source(verb_kind: str, direction: str | None, preposition: str | None) -> str | None:
    """The side a moved part leaves: moving it to (or on, at) the right takes it off the
    left; moving it from (or off) the left takes it off the left."""
    if verb_kind != "move" or direction is None:
        return None
    if preposition in ("from", "off"):
        return direction
    return "left" if direction == "right" else "right"


_MARKED_NUMBER = re.compile(r"[0-9]\s*(?:\.\s*\.|[…!%‰°])|[~≈!¡]\s*[0-9]|[0-9],[0-9]")
"""A number in the words with a mark that changes it: `by 0.3...` (recurring), `by 3!`,
`by 5%`, `by ~3`, `by 1,5` (a decimal comma or a thousands group): not read."""


def read_prose(words: str, variable: str) -> list[NamedOp] | None:
    """The operations `words` name, in order; None when the words say anything else."""
    text = normalise_symbols(words).lower()
    if _MARKED_NUMBER.search(text):
        return None
    shift, scale, cancel = _patterns(variable)
    found: list[tuple[int, NamedOp]] = []
    spans: list[tuple[int, int]] = []

    for match in shift.finditer(text):
        kind = _VERBS[match.group("verb")]
        if kind != "move" and (match.group("dir") or match.group("other")):
            return None  # "subtract 5 from the left side": one side alone is no valid step
        if match.group("verb") in _SENT and match.group("prep") in ("on", "at"):
            return None  # "move the constant on the left": where it goes, or where it is
        operand: Operand | None = None
        source = _source(kind, match.group("dir"), match.group("prep"))
        if match.group("constant"):
            operand = Operand("constant", source=source)
        elif match.group("unknown"):
            operand = Operand("unknown", source=source)
        elif match.group("term"):
            operand = _term(match.group("term"), bool(match.group("opp")), variable)
            if operand is None:
                return None
            operand = replace(operand, source=source)
        if operand is None and match.group("dir"):
            return None  # "Move to the left" names a side but not what leaves the other
        if kind == "add" and operand is not None and operand.kind != "term":
            return None  # "add the constant" names no operation anyone could check
        found.append((match.start(), NamedOp(kind, operand)))
        spans.append(match.span())
    for match in scale.finditer(text):
        kind = _VERBS[match.group("verb")]
        operand = None
        if match.group("coefficient"):
            operand = Operand("coefficient")
        elif match.group("term"):
            operand = _term(match.group("term"), bool(match.group("opp")), variable)
            if operand is None or operand.coef != 0 or operand.const == 0:
                return None  # both sides times the unknown, or by zero: not a valid step
        found.append((match.start(), NamedOp(kind, operand)))
        spans.append(match.span())
    for kind, pattern in (("rewrite", _REWRITE), ("swap", _SWAP), ("cancel", cancel)):
        for match in pattern.finditer(text):
            found.append((match.start(), NamedOp(kind)))
            spans.append(match.span())
    for word, kind in _KIND_WORDS.items():
        for match in re.finditer(rf"\b{word}\b", text):
            found.append((match.start(), NamedOp(kind)))
            spans.append(match.span())

    rest = list(text)
    for lo, hi in spans:
        rest[lo:hi] = " " * (hi - lo)
    if not is_connective("".join(rest), {variable.lower()}, ()):
        return None
    return [op for _, op in sorted(found, key=lambda pair: pair[0])]
