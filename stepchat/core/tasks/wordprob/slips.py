"""Where a model's arithmetic does not hold, said in the answer's own numbers.

An answer whose computation does not hold is shown and never stored. Exact arithmetic
corrects a slip only in pure arithmetic (`handler.generate`); elsewhere
(`12 trays * 24 cookies = 320`) the reader may not know what the words between the numbers
do, so it does not rewrite the line, but a reader of the answer should still learn which
line the check refused and what the numbers as written give (`12 * 24 is 288, not 320`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from stepchat.core.notes import SLIP_NOTE_START
from stepchat.core.tasks.wordprob.atoms import decimal_mark
from stepchat.core.tasks.wordprob.render import MAX_DECIMALS, decimals_needed
from stepchat.core.tasks.wordprob.solution import (
    expr_text,
    holds,
    part_values,
    sides_hold,
    solution_atoms,
    statements,
)


ROUNDED = 3
"""Decimals shown of a value no short decimal writes exactly."""


@dataclass(frozen=True)
class Slip:
    """An `=` that does not hold as written: a side that computes, and what it gives."""

    step: int
    """The step it is on, from 0."""
    computed: str
    """The computing side in the answer's own numbers (`12 * 24`)."""
    value: str
    """What that side gives (`288`, `60%` where the other side is a percent)."""
    written: str
    """The other side as written (`320`), with its value where it computes too."""

    def note(self) -> str:
        return (f"{SLIP_NOTE_START} at step {self.step + 1}: "
                f"{self.computed} is {self.value}, not {self.written}")


def first_slip(steps: Sequence[str]) -> Slip | None:
    """The first `=` of the answer whose computing side gives another value than the side
    beside it, read as `answer_holds` reads it (percent signs as hundredths where an operand
    carries one); None where every `=` read holds, the numbers' decimal mark is unknown, or
    the first that fails is a comparison or has no computing side (`5 = 6` says nothing a
    user could act on)."""
    mark = decimal_mark("\n".join(steps))
    if mark is None:
        return None
    found, step_of = solution_atoms(steps, mark)
    for statement in statements(found).statements:
        readings = list(part_values(statement, found))
        sides = readings[-1]  # percent signs read as hundredths where any is written
        if sides is None or any(r is not None and sides_hold(statement, r) for r in readings):
            continue
        k = next(k for k, link in enumerate(statement.links)
                 if not holds(sides[k], link, sides[k + 1]))
        if statement.links[k] != "=":
            return None
        left, right = statement.parts[k], statement.parts[k + 1]
        computing, value, other, other_value = (
            (left, sides[k], right, sides[k + 1]) if not left.lone
            else (right, sides[k + 1], left, sides[k]))
        if computing.lone:
            return None
        written = _bare(expr_text(found, other.expr))
        if not other.lone:
            written += f" = {number_text(other_value)}"
        shown = number_text(value)
        if other.lone and found[other.numbers[0]].percent:
            shown = number_text(value * 100) + "%"
        return Slip(step_of[computing.numbers[0]], _bare(expr_text(found, computing.expr)),
                    shown, written)
    return None


def number_text(value: Fraction) -> str:
    """`value` as a decimal where a short one writes it exactly, else rounded to three
    decimals after `≈` (`≈52.083`)."""
    needed = decimals_needed(value)
    if needed is None or needed > MAX_DECIMALS:
        return "≈" + _decimal(round(value, ROUNDED), ROUNDED)
    return _decimal(value, needed)


def _decimal(value: Fraction, places: int) -> str:
    digits = str(abs(value.numerator * 10 ** places // value.denominator)).rjust(places + 1, "0")
    whole, frac = digits[:len(digits) - places], digits[len(digits) - places:]
    return ("-" if value < 0 else "") + whole + ("." + frac if frac else "")


def _bare(text: str) -> str:
    """An expression without the brackets around the whole of it."""
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text
