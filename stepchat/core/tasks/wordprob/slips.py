"""Where a model's arithmetic does not hold, said in the answer's own numbers.

An answer whose computation does not hold is shown and never stored. Exact arithmetic
corrects a slip only in pure arithmetic (`handler.generate`); elsewhere
(`12 trays * 24 cookies = 320`) the reader may not know what the words between the numbers
do, so it does not rewrite the line, but a reader of the answer should still learn which
line the check refused and what the numbers as written give (`12 * 24 is 288, not 320`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from stepchat.core.notes import SLIP_NOTE_START
from stepchat.core.tasks.wordprob.atoms import Atom, decimal_mark
from stepchat.core.tasks.wordprob.render import MAX_DECIMALS, decimal_digits, decimals_needed
from stepchat.core.tasks.wordprob.solution import (
    Expr,
    Neg,
    Num,
    Part,
    Statement,
    expr_text,
    holds,
    part_values,
    sides_hold,
    solution_atoms,
    statements,
)

ROUNDED = 3
"""Decimals shown at least of a value no short decimal writes exactly."""
MAX_TEXT = 20_000
"""Characters of an answer past which no step is quoted (the reader's cost grows with it)."""
MAX_QUOTED = 120
"""Characters of a statement past which it is not quoted in a note."""
MAX_NUMBER = 20
"""Characters of one number past which its statement is not quoted."""


@dataclass(frozen=True)
class Slip:
    """An `=` that does not hold as read: the statement as the check read it, a side that
    computes, and what that side gives."""

    step: int
    """The step it is on, from 0."""
    read: str
    """The statement as read (`12 * 24 = 320`): words between its numbers left out."""
    computed: str
    """The computing side (`12 * 24`)."""
    value: str
    """What that side gives (`288`; `60%` beside a percent it is nearer as one)."""

    def note(self) -> str:
        return (f"{SLIP_NOTE_START}: step {self.step + 1} reads as {self.read}, and "
                f"{self.computed} is {self.value}")


def first_slip(steps: Sequence[str]) -> Slip | None:
    """The first `=` of the answer whose computing side gives another value than the side
    beside it, in every reading `answer_holds` tries (percent signs as hundredths or as
    written). None where its step has a number this reader sets aside or an `=` outside
    every statement (`2 * 12x3 = 72`, `17 / 5 = 3 R2`: what it read is not what is
    written; the general note says so), where every `=` holds, where the first that
    fails is a comparison or joins two lone numbers (`5 = 6` says nothing a user could
    act on), or where the statement is too long to quote."""
    if sum(len(step) for step in steps) > MAX_TEXT:
        return None
    mark = decimal_mark("\n".join(steps))
    if mark is None:
        return None
    found, step_of = solution_atoms(steps, mark)
    reading = statements(found)
    set_aside = {step_of[a] for a in reading.unreadable | reading.loose_links}
    for statement in reading.statements:
        readings = list(part_values(statement, found))
        if any(r is None or sides_hold(statement, r) for r in readings):
            continue
        sides = readings[0]
        assert sides is not None
        k = next(k for k, link in enumerate(statement.links)
                 if not holds(sides[k], link, sides[k + 1]))
        if statement.links[k] != "=" or step_of[statement.parts[0].numbers[0]] in set_aside:
            return None
        if _math_signs(statement, found, step_of, steps[step_of[statement.parts[0].numbers[0]]]):
            return None
        left, right = statement.parts[k], statement.parts[k + 1]
        computing, value, other = (
            (left, sides[k], right) if not _plain(left.expr) else (right, sides[k + 1], left))
        if _plain(computing.expr):
            return None
        read = " = ".join(_bare(expr_text(found, part.expr)) for part in statement.parts)
        if len(read) > MAX_QUOTED or any(
                len(found[a].text) > MAX_NUMBER for part in statement.parts for a in part.numbers):
            return None  # a number that long is read in pieces: no quote would be the text
        return Slip(step_of[computing.numbers[0]], read, _bare(expr_text(found, computing.expr)),
                    _value_text(value, other, found, mark))
    return None


def _math_signs(statement: Statement, found: Sequence[Atom], step_of: Sequence[int],
                step: str) -> bool:
    """Whether the statement's currency signs may be TeX math delimiters (`$$12 * 24 =
    320$$`, `$12 * 24 = 320$`, `$T = 12 * 24 = 320$`): its step writes a sign more often
    than its numbers carry it, or one sign both before a number and after another. The
    reader takes them for money, and a quote of what it read (`320$`) would show the user
    an amount nobody wrote."""
    signs = [found[a] for part in statement.parts for a in part.numbers if found[a].currency]
    at = step_of[statement.parts[0].numbers[0]]
    carried = Counter(a.currency for k, a in enumerate(found)
                      if a.currency and a.kind == "num" and step_of[k] == at)
    return len({a.text.startswith(a.currency) for a in signs}) > 1 or any(
        step.count(sign) > n for sign, n in carried.items())


def _plain(expr: Expr) -> bool:
    """A number alone, or negated: a written result, not a computation."""
    return isinstance(expr, Num) or (isinstance(expr, Neg) and isinstance(expr.operand, Num))


def _value_text(value: Fraction, other: Part, found: Sequence[Atom], mark: str) -> str:
    """`value` with the answer's decimal mark, as a percent where the other side is a lone
    percent nearer the value in hundredths (`100% - 40% = 61%`: 60%, not 0.6). Never as an
    amount: whether a computation's value is money (`$100 / $20` is 5, not $5), and in
    which currency (`A$12`), is more than the reader knows."""
    target = found[other.numbers[0]] if other.lone else None
    if target is not None and target.percent and target.value is not None and (
            abs(value * 100 - target.value) < abs(value - target.value)):
        return number_text(value * 100, mark, _decimals(target.text)) + "%"
    written = _decimals(found[other.numbers[0]].text) if other.lone else 0
    return number_text(value, mark, written)


def number_text(value: Fraction, mark: str = ".", written: int = 0) -> str:
    """`value` as a decimal where a short one writes it exactly, else rounded after `≈`
    to two decimals more than the number beside it has (`1/3 = 0.333`: ≈0.33333)."""
    needed = decimals_needed(value)
    if needed is None or needed > MAX_DECIMALS:
        places = max(ROUNDED, written + 2)
        return "≈" + _decimal(round(value, places), places, mark)
    return _decimal(value, needed, mark)


def _decimals(text: str) -> int:
    digits = re.findall(r"[.,](\d+)\D*$", text)
    return len(digits[0]) if digits else 0


def _decimal(value: Fraction, places: int, mark: str) -> str:
    whole, frac = decimal_digits(value, places)
    return ("-" if value < 0 else "") + whole + (mark + frac if frac else "")


def _bare(text: str) -> str:
    """An expression without the brackets around the whole of it."""
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text
