"""Choices in words between two values, re-checked by exchanging them.

A solution often decides in words which of two values goes where: "shop A is cheaper, so
40 × 3 + 50 × 5", "Ana's team won: 143 × 23", "the longer rope: 45 / 30", "the shift
ends after midnight: 6 + 24 - 22". The arithmetic keeps the cached assignment; the words
would now choose the other one when the two values changed their order. Whether they are
stated or computed, used in one computation or apart, written alike or not ("20%" beside
"40 percent", "$3" beside "5 dollars"), the assignment matters exactly when exchanging
the two new values changes the answer. So two values whose order changed decline when
the exchange changes the final answer, unless one earlier instance, solved with the same
solution, had every such new order at once (pair by pair in different instances is not
enough: "more than 50 on Saturday or more than 40 on Sunday" is one condition on both).
Two values that become equal decline whatever the exchange gives: a rule in words for a
tie (a draw, the same price) would not hold, and exchanging equal values changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import Value, had_every_order, result_values, slot_values
from stepchat.core.tasks.wordprob.values import order

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass

Source = tuple[str, int]
"""("slot", slot index) or ("result", atom index)."""


def check_exchanges(p: RolePass) -> None:
    values = [*((("slot", k), v) for k, v in slot_values(p).items()),
              *((("result", j), v) for j, v in result_values(p).items())]
    flipped = [(a, b) for a, b in combinations(values, 2) if not a[1].kept_order(b[1])]
    if not flipped:
        return
    pairs = [(a, b) for (_, a), (_, b) in flipped]
    for a, b in pairs:
        if order(a.new, b.new) == 0:
            raise Declined(f"{a.text} and {b.text} become equal: a rule in words for a tie "
                           "(a draw, the same price) would not hold")
    if had_every_order(pairs, len(p.witnesses)):
        return
    final = p.final()
    for first, second in flipped:
        if _exchanged_final(p, first, second) != final:
            raise Declined(f"{first[1].text} and {second[1].text} changed their order and "
                           "exchanging them changes the answer: a choice made in words "
                           "between them would not hold")


def _exchanged_final(
    p: RolePass, a: tuple[Source, Value], b: tuple[Source, Value]
) -> Fraction | None:
    """The final answer with the new values of `a` and `b` exchanged, every computation
    after them redone; None where that cannot be computed (it then counts as changed)."""
    from stepchat.core.tasks.wordprob.recompute import RolePass

    slots = list(p.slots)
    forced: dict[int, Fraction] = {}
    for ((kind, index), _), (_, other) in ((a, b), (b, a)):
        if kind == "slot":
            slots[index] = replace(slots[index], new=replace(slots[index].new, value=other.new))
        else:
            forced[index] = other.new
    exchanged = RolePass(p.sol, slots, p.witnesses, p.renamed_at, p.factors, forced=forced)
    try:
        exchanged.run()
    except (Declined, ZeroDivisionError):
        return None
    return exchanged.final()
