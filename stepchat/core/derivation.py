"""Whether each step of a linear answer follows from the one before it, for this problem.

A step used to pass when its equation had the problem's solution set. Every equation with
x = 5 has that, so "3x = 15" (the derivation of 3x + 5 = 20) was served, green, for
5x + 3 = 28. A step now passes only when it is what one operation yields from the previous
equation of the *new* problem, the first step's previous equation being the problem itself.

The operations, a closed list (both sides are compared after normalising each to
`a·v + b`, and an equation is the same whichever side is written first; the text of each
side must also show that arithmetic, not another equation's with the same value, see
`step_terms`):

- rewrite: either side replaced by an equal expression (expand, collect like terms,
  evaluate arithmetic), or the sides swapped;
- add the same term `p·v + q` to both sides (subtracting is adding its opposite);
- multiply both sides by the same non-zero constant (dividing by k is multiplying by 1/k).

When a step's words name operations ("Subtract 5 from both sides", read by
`stepchat.core.step_prose`), its equations must be what those operations yield, in order,
one operation besides rewrites per equation, and each must change the equation; with
words that name no operation an equation may be one operation from the previous one that
simplifies it (`unannounced`: a term cancelled, a division, a sign flipped, fractions
cleared), never one that complicates it: x + 1 = 3 "becomes" 2x + 2 = 6 only when the
words say "multiply". Operations
named on a step without an equation apply to the next step's equations, and the words fail
with that step; a step of words naming nothing fails. Words after a step's last equation
must describe how it was reached, and words between two equations may name only a rewrite
leading into the second: anything a reader could attach to either equation fails. Two more
things may stand on a step without advancing it: a link of a chain `a = b = c` whose two
sides are equal (`20 - 5 = 15` rewrites a side), and a check that is exactly the problem
with its solution put in as `(value)` (`3(5) + 5 = 20` for 3x + 5 = 20; equal numbers are
not enough). `no solution` and `all real numbers` follow only an equation without the
unknown. Anything else fails, and so does every step after a failing one: a derivation does
not resume after a broken link.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from stepchat.core.linear import (
    FoundEquation,
    LinearForm,
    Solution,
    chains_in,
    format_fraction,
    sides_form,
)
from stepchat.core.mathparse import normalise_symbols
from stepchat.core.step_prose import NamedOp, read_prose
from stepchat.core.step_terms import rewrite_shown, side_shown

_STEP_LABEL = re.compile(
    r"^\s*(?:step\s*[0-9]+\s*[:.)-]|[0-9]+\s*[.)]|[a-z]\)|[-*•])(?=\s)\s*", re.I)
"""A step number or bullet: closed by a mark and then a space, so `-x = 5` keeps its sign,
`0.5x = 2.5` and `3.x = 15` their coefficients, and "Step 3x = 15" is the words "Step"
beside 3x = 15 (not step 3 beside x = 15). A letter and a bracket (`a)`) is a label too: an
equation never starts with one."""
_TRAILING_LEAD = re.compile(r"^[,:]?\s*(?:after|by|from|when|on|having|[a-z]+ing)\b", re.I)
"""Words after a step's last equation name how it was reached only when they read as a
description of it ("3x = 15, subtracting 5 from both sides", "... after dividing by 3").
An imperative or a new sentence there ("3x = 15. Next, subtract 5 ...") announces the next
operation, and a reader cannot tell which equation it belongs to."""
_SENTENCE_BREAK = re.compile(r"[.;!?]\s*\S")
_ADDS = frozenset({"add", "subtract", "move"})


@dataclass(frozen=True)
class Sides:
    """An equation `a·v + b = c·v + d`, each side as written (normalised)."""

    a: Fraction
    b: Fraction
    c: Fraction
    d: Fraction

    @staticmethod
    def of(form: LinearForm) -> Sides:
        return Sides(form.a, form.b, form.c, form.d)

    def form(self, variable: str) -> LinearForm:
        return LinearForm(variable, self.a, self.b, self.c, self.d)

    def swapped(self) -> Sides:
        return Sides(self.c, self.d, self.a, self.b)

    def plus(self, p: Fraction, q: Fraction) -> Sides:
        return Sides(self.a + p, self.b + q, self.c + p, self.d + q)

    def times(self, k: Fraction) -> Sides:
        return Sides(k * self.a, k * self.b, k * self.c, k * self.d)

    def same(self, other: Sides) -> bool:
        return self == other or self == other.swapped()

    @property
    def identity(self) -> bool:
        """Both sides are the same expression (a link that only rewrites a side)."""
        return self.a == self.c and self.b == self.d


def any_add(before: Sides, after: Sides) -> bool:
    """`after` is `before` with one term added to both sides."""
    return any(
        f.a - before.a == f.c - before.c and f.b - before.b == f.d - before.d
        for f in (after, after.swapped())
    )


def any_scale(before: Sides, after: Sides) -> bool:
    """`after` is `before` with both sides multiplied by one non-zero constant."""
    old = (before.a, before.b, before.c, before.d)
    for f in (after, after.swapped()):
        new = (f.a, f.b, f.c, f.d)
        pivot = next((i for i, x in enumerate(old) if x != 0), None)
        if pivot is None:
            if not any(new):
                return True
            continue
        k = new[pivot] / old[pivot]
        if k != 0 and all(n == k * o for n, o in zip(new, old, strict=True)):
            return True
    return False


def _unknown_taken_off(before: Sides, after: Sides) -> bool:
    """`after` is `before` rewritten, or with a term of the unknown alone added to both
    sides: what "the x terms cancel" says. Scaling both sides is no cancelling: `0 = 1`
    times 5 is `0 = 5`, a true step that names another equation's number."""
    return after.same(before) or any(
        f.b == before.b and f.d == before.d and f.a - before.a == f.c - before.c
        for f in (after, after.swapped()))


def one_operation(before: Sides, after: Sides) -> bool:
    """`after` is one operation of the closed list away from `before`."""
    return after.same(before) or any_add(before, after) or any_scale(before, after)


def unannounced(before: Sides, after: Sides) -> bool:
    """`after` is what one operation no words name yields from `before`: a rewrite, or an
    operation that simplifies (`_cancelling_add`, `_simplifying_scale`). Any operation is
    a true step, but one that complicates is how another problem's equation passes as
    this one's: x + 1 = 3 times 2 is 2x + 2 = 6, halved x/2 + 1/2 = 3/2, each a cached
    derivation's first line; 0 = 1 times 5 is 0 = 5."""
    if after.same(before):
        return True
    return any(_cancelling_add(before, f) or _simplifying_scale(before, f)
               for f in (after, after.swapped()))


def _cancelling_add(before: Sides, after: Sides) -> bool:
    """A term taken off both sides that leaves fewer terms (3x + 5 = 20 to 3x = 15,
    3x = 2x + 5 to x = 5, 1 = 5 to 0 = 4), or, with the unknown on one side only, a
    constant taken off that side (3x - 15 = 0 to 3x = 15). Not 3x = 15 to 3x - 15 = 0,
    nor 3x = 2x + 15 to 3x - 15 = 2x: each moves a term and simplifies nothing."""
    p, q = after.a - before.a, after.b - before.b
    if (p, q) != (after.c - before.c, after.d - before.d) or p == q == 0:
        return False
    if p and not (before.a and before.c and 0 in (after.a, after.c)):
        return False
    if _terms(after) < _terms(before):
        return True
    one_side = (before.a == 0) != (before.c == 0)
    return not p and one_side and (
        (after.b == 0 and before.a != 0) or (after.d == 0 and before.c != 0))


def _terms(sides: Sides) -> int:
    return sum(x != 0 for x in _numbers(sides))


def _simplifying_scale(before: Sides, after: Sides) -> bool:
    """Both sides scaled to a simpler equation: divided by the unknown's one coefficient
    (3x = 15 to x = 5, (2/3)x = 4 to x = 6, 3x + 5 = 20 to x + 5/3 = 20/3), divided by a
    whole number with whole numbers left (4x + 2 = 6 to 2x + 1 = 3), or multiplied by
    the least common denominator (x/2 + 1/2 = 3/2 to x + 1 = 3). A sign flips only to
    leave the unknown's coefficient positive (-x = -5 to x = 5). Not x + 1 = 3 to
    x/2 + 1/2 = 3/2, 3x = 15 to (3/5)x = 3, nor x + 3 = 8 to -x - 3 = -8."""
    if before.a == before.c == 0:
        return False  # the unknown has gone: scaling `0 = 1` only names another number
    old, new = _numbers(before), _numbers(after)
    pivot = next(i for i, x in enumerate(old) if x != 0)
    k = new[pivot] / old[pivot]
    if k == 0 or k == 1 or any(n != k * o for n, o in zip(new, old, strict=True)):
        return False
    holders = [x for x in (after.a, after.c) if x != 0]
    if len(holders) == 1 and holders[0] == 1:
        return True  # divided by the unknown's coefficient
    if k < 0 and not (len(holders) == 1 and holders[0] > 0):
        return False
    if abs(k).numerator == 1:
        return _whole(new)
    common = Fraction(math.lcm(*(x.denominator for x in old)))
    return abs(k) == common and _whole(new)


def _whole(numbers: tuple[Fraction, ...]) -> bool:
    return all(x.denominator == 1 for x in numbers)


def _part(side: str, before: Sides, which: str) -> Fraction:
    if which == "constant":
        return before.b if side == "left" else before.d
    return before.a if side == "left" else before.c


def _holds(side: str, before: Sides, p: Fraction, q: Fraction) -> bool:
    """The side of `before` has the term `p·v + q` as one of its parts."""
    coef, const = (before.a, before.b) if side == "left" else (before.c, before.d)
    return (p == 0 or coef == p) and (q == 0 or const == q)


def _unnamed(op: NamedOp, before: Sides) -> list[Sides]:
    """What a verb with no operand ("Subtract from both sides", "Divide both sides",
    "Subtraction") may yield: only an operation the equation shows plainly. Adding or
    subtracting takes one part of a side off it, with the verb's sign (subtracting the 5
    of 3x + 5, adding the 5 of 3x - 5); multiplying is by the least common denominator
    (x/2 + 1 = 3/2 by 2, not 4), dividing by the unknown's one coefficient or by a whole
    number that leaves whole numbers (4x + 2 = 6 by 2, not x + 1 = 3 by 3). Doubling both
    sides of 3x = 15 is no "division"."""
    if op.kind in _ADDS:
        parts = [(-x, Fraction(0)) for x in (before.a, before.c) if x]
        parts += [(Fraction(0), -x) for x in (before.b, before.d) if x]
        sign = {"add": 1, "subtract": -1}.get(op.kind)
        return [before.plus(p, q) for p, q in parts if sign is None or (p + q) * sign > 0]
    if before.a == before.c == 0:
        return []  # the unknown has gone: scaling `0 = 1` only names another number
    holders = [x for x in (before.a, before.c) if x != 0]
    if op.kind == "multiply":
        common = Fraction(math.lcm(*(x.denominator for x in _numbers(before))))
        return [before.times(common)] if common > 1 else []
    divisors = [Fraction(n) for n in range(2, 13)
                if _whole(_numbers(before.times(Fraction(1, n))))]
    return [before.times(1 / k) for k in divisors + (holders if len(holders) == 1 else [])]


def _numbers(sides: Sides) -> tuple[Fraction, ...]:
    return (sides.a, sides.b, sides.c, sides.d)


def _operation(before: Sides, after: Sides) -> tuple[Fraction, Fraction, Fraction] | None:
    """The unknown's term and the constant added, and the factor applied, that take
    `before` to `after` side for side as written, or None when no one operation does."""
    p, q = after.a - before.a, after.b - before.b
    if (p, q) == (after.c - before.c, after.d - before.d):
        return p, q, Fraction(1)
    old, new = _numbers(before), _numbers(after)
    pivot = next((i for i, x in enumerate(old) if x != 0), None)
    if pivot is None or not new[pivot]:
        return None
    k = new[pivot] / old[pivot]
    if all(n == k * o for n, o in zip(new, old, strict=True)):
        return Fraction(0), Fraction(0), k
    return None


def results_of(op: NamedOp, before: Sides) -> list[Sides]:
    """The equations `op` may yield from `before`. An operation the words name must change
    the equation: subtracting "the x terms" of a side that has none, multiplying by 1, is no
    step the words describe."""
    if op.kind == "rewrite":
        return [before]
    if op.kind == "swap":
        return [before.swapped()] if before.swapped() != before else []
    return [after for after in _results(op, before) if not after.same(before)]


def _results(op: NamedOp, before: Sides) -> list[Sides]:
    operand = op.operand
    if operand is None:
        return _unnamed(op, before)
    if op.kind in _ADDS and operand.kind == "term":
        p, q = operand.coef, operand.const
        if op.kind == "add":
            return [before.plus(p, q)]
        if op.kind == "move":
            # a moved term leaves the side that holds it ("move 5 to the right" off 3x + 5);
            # moved "to the left" from the left, or from a side without it, is no move
            sides = [operand.source] if operand.source else ["left", "right"]
            if not any(_holds(side, before, p, q) for side in sides):
                return []
        return [before.plus(-p, -q)]
    if op.kind in _ADDS:  # take the constant or the unknown's terms off their side
        sides = [operand.source] if operand.source else ["left", "right"]
        out = []
        for side in sides:
            value = _part(side, before, operand.kind)
            out.append(before.plus(Fraction(0), -value) if operand.kind == "constant"
                       else before.plus(-value, Fraction(0)))
        return out
    if operand.kind == "coefficient":
        holders = [x for x in (before.a, before.c) if x != 0]
        if len(holders) != 1:
            return []  # the unknown on both sides, or on neither: no one coefficient
        factor = holders[0]
    else:
        factor = operand.const
    return [before.times(factor if op.kind == "multiply" else 1 / factor)]


def named_prefix(ops: Sequence[NamedOp], before: Sides, after: Sides) -> int:
    """How many of `ops`, applied in order to `before`, yield `after` (0: none do). One
    equation applies at most one operation besides rewrites: "Subtract 5 and divide by 3:
    x = 5" is two steps in one, and a reader cannot see the middle equation."""
    states = [before]
    applied = 0
    for count, op in enumerate(ops, start=1):
        applied += op.kind != "rewrite"
        if applied > 1:
            return 0
        if op.kind == "cancel":  # "the x terms cancel": the unknown's terms taken off
            gone = after.a == 0 and after.c == 0
            return count if gone and any(_unknown_taken_off(s, after) for s in states) else 0
        states = [x for s in states for x in results_of(op, s)]
        # a swap is the swap exactly; otherwise either side may be written first
        if any(after == s if op.kind == "swap" else after.same(s) for s in states):
            return count
    return 0


def _ambiguous_between(words: str, named: list[NamedOp] | None) -> bool:
    """Words between two equations on a line may describe either one ("3x = 15 after
    dividing both sides by 3, x = 5"): they may name only a rewrite, and only as a lead
    into the next equation ("..., which simplifies to 3x = 15")."""
    if not named:
        return False
    return any(op.kind != "rewrite" for op in named) or bool(_TRAILING_LEAD.match(words))


def _announce(pending: list[NamedOp], named: list[NamedOp]) -> list[NamedOp]:
    """The operations an equation must apply: those announced before it and those its own
    words name; words repeating the announced operations name them once."""
    return named if named == pending else pending + named


@dataclass(frozen=True)
class Walk:
    """Per step: does it follow; and the equation the passing steps end on."""

    passed: list[bool]
    state: Sides


@dataclass
class _Cursor:
    state: Sides
    ops: list[NamedOp]


class Derivation:
    """The step check of one problem: walks steps from the problem's equation."""

    def __init__(self, problem: LinearForm, target: Solution, *, final_only: bool = False):
        self.variable = problem.variable
        self.problem = Sides.of(problem)
        self.target = target
        self.final_only = final_only

    def walk(self, steps: Sequence[tuple[str, bool]]) -> Walk:
        """`steps` as (text, is the final line). A failure fails every later step, and the
        words that announced the failing step's operations."""
        cursor = _Cursor(self.problem, [])
        announced: int | None = None
        passed: list[bool] = []
        state = self.problem
        for index, (text, final) in enumerate(steps):
            stated = self._step(cursor, text, final)
            if stated is None:
                first = index if announced is None else announced
                passed[first:] = [False] * (len(steps) - first)
                return Walk(passed, state)
            passed.append(True)
            if stated:
                announced, state = None, cursor.state
            elif cursor.ops and announced is None:
                announced = index
        if announced is not None:  # operations named and never applied
            passed[announced:] = [False] * (len(steps) - announced)
        return Walk(passed, state)

    def _step(self, cursor: _Cursor, text: str, final: bool) -> bool | None:
        """Advance over one step: True if it stated equations, False if only words, None
        if it does not follow."""
        body = _STEP_LABEL.sub("", text)
        if final:
            if text.strip() != self.target.final_line(self.variable):
                return None
            if self.final_only:
                return True
            if self.target.kind != "one":
                # "no solution" / "all real numbers" once the unknown has gone (`1 = 5`,
                # `0 = 0`), not straight from `2x + 1 = 2x + 5`
                state = cursor.state
                return True if not cursor.ops and state.a == 0 and state.c == 0 else None
        chains, trailing = chains_in(body)
        readings = [read_prose(words, self.variable) for words, _ in chains]
        after = read_prose(trailing, self.variable)
        if after is None or any(r is None for r in readings):
            return None
        if not chains:
            if not after:
                return None  # words naming no operation claim something nobody checks
            cursor.ops = _announce(cursor.ops, after)
            return None if final else False
        if any(_ambiguous_between(words, named) for (words, _), named in
               zip(chains[1:], readings[1:], strict=True)):
            return None
        if re.search(r"[A-Za-z]", trailing) and not (
            after and _TRAILING_LEAD.match(trailing) and not _SENTENCE_BREAK.search(trailing)
        ):
            return None
        for index, ((_, chain), named) in enumerate(zip(chains, readings, strict=True)):
            assert named is not None
            if index == len(chains) - 1:
                named = named + after  # "3x = 15, subtracting 5 from both sides"
            cursor.ops = _announce(cursor.ops, named)
            if not self._chain(cursor, chain) or cursor.ops:
                return None  # a link that does not follow, or a named operation not applied
        return True

    def _chain(self, cursor: _Cursor, chain: list[FoundEquation]) -> bool:
        forms = [sides_form(link.text, self.variable) for link in chain]
        if any(form is None for form in forms):
            return False  # another unknown, or a side that is not linear
        sides = [Sides.of(form) for form in forms if form is not None]
        stated = False
        shown: list[str] = []
        rewrites: list[str] = []
        coefficients = {cursor.state.a, cursor.state.c}
        for link, text in zip(sides, (found.text for found in chain), strict=True):
            if len(sides) > 1 and link.identity:
                rewrites.append(text)  # `20 - 5 = 15` inside a chain rewrites a side
                continue
            before = cursor.state
            if not self._link(cursor, link, text):
                return False
            if cursor.state is link:  # reached by an operation, not a check of the answer
                if not self._shows(before, link, text):
                    return False
                shown.extend(text.split("="))
                coefficients |= {link.a, link.c}
            stated = True
        if stated:
            solution = self.target.value if self.target.kind == "one" else None
            return all(rewrite_shown(side, self.variable, shown, coefficients, solution)
                       for text in rewrites for side in text.split("="))
        # every link rewrites a side: the chain as a whole is a statement about numbers
        return self._is_check(chain[0].text.split("=")[0], chain[-1].text.split("=")[1])

    def _shows(self, before: Sides, link: Sides, text: str) -> bool:
        """Whether each side of `link`, as `text` writes it, shows the operation that takes
        `before` to it or the side it states (`step_terms`), read in either orientation."""
        left, right = text.split("=")
        v = self.variable
        for f, written in ((link, (left, right)), (link.swapped(), (right, left))):
            op = _operation(before, f)
            if side_shown(written[0], v, (before.a, before.b), (f.a, f.b), op) and side_shown(
                    written[1], v, (before.c, before.d), (f.c, f.d), op):
                return True
        return False

    def _link(self, cursor: _Cursor, link: Sides, text: str) -> bool:
        before, ops = cursor.state, cursor.ops
        count = named_prefix(ops, before, link)
        if count:
            cursor.state, cursor.ops = link, ops[count:]
            return True
        if link.same(before):  # restated, or rewritten before a named operation applies
            cursor.state = link
            return True
        if not ops and unannounced(before, link):
            cursor.state = link
            return True
        left, right = text.split("=")
        return self._is_check(left, right)

    def _is_check(self, left: str, right: str) -> bool:
        """A statement about numbers that is exactly the problem with its solution put in
        for the unknown, written `(value)`: "3(5) + 5 = 20" for 3x + 5 = 20. Equal numbers
        are not enough ("4(5) = 20" is true, and checks another equation)."""
        if self.target.kind != "one" or self.target.value is None:
            return False
        put_in = f"({format_fraction(self.target.value)})"
        text = normalise_symbols(f"{left}={right}").replace(" ", "")
        if put_in not in text or self.variable in text:
            return False
        form = sides_form(text.replace(put_in, f"({self.variable})"), self.variable)
        if form is None or not Sides.of(form).same(self.problem):
            return False
        # As the problem writes its sides: `3(5) + 8 - 3 = 20` checks 3x + 5 = 20 by value
        # and shows another problem's constants.
        v = self.variable
        left, right = re.sub(rf"(?<=[\d)]){re.escape(put_in)}", f"*{v}", text).replace(
            put_in, v).split("=")
        p = self.problem
        return any(side_shown(left, v, first, first, None)
                   and side_shown(right, v, second, second, None)
                   for first, second in (((p.a, p.b), (p.c, p.d)), ((p.c, p.d), (p.a, p.b))))
