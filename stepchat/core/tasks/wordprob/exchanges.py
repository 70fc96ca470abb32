"""Choices in words between two values of one kind, re-checked by exchanging them.

A solution often decides in words which of two values goes where: "shop A is cheaper, so
40 × 3 + 50 × 5", "Ana's team won: 143 × 23", "the longer rope: 45 / 30", "the shift
ends after midnight: 6 + 24 - 22". The arithmetic keeps the cached assignment; the words
would now choose the other one when the two values changed their order. Whether they are
stated or computed, used in one computation or apart, the assignment matters exactly when
exchanging the two new values changes the answer. So two values of one kind (money,
percent, plain) whose order changed decline when the exchange changes the final answer,
unless one earlier instance, solved with the same solution, had every such new order at
once (pair by pair in different instances is not enough: "more than 50 on Saturday or
more than 40 on Sunday" is one condition on both). Two such values that become equal
decline whatever the exchange gives: a rule in words for a tie (a draw, the same price)
would not hold, and exchanging equal values changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import Value, had_every_order
from stepchat.core.tasks.wordprob.values import order

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass

Source = tuple[str, int]


@dataclass(frozen=True)
class Compared(Value):
    """A stated value or a result, with where it comes from and its kind."""

    source: Source = ("", 0)
    kind: tuple[bool, bool] = (False, False)


def check_exchanges(p: RolePass) -> None:
    flipped = [(a, b) for a, b in combinations(_values(p), 2)
               if order(a.old, b.old) != order(a.new, b.new)]
    if not flipped:
        return
    for a, b in flipped:
        if order(a.new, b.new) == 0:
            raise Declined(f"{a.text} and {b.text} become equal: a rule in words for a tie "
                           "(a draw, the same price) would not hold")
    if had_every_order(flipped, len(p.witnesses)):
        return
    final = _final(p)
    for a, b in flipped:
        if _exchanged_final(p, a, b) != final:
            raise Declined(f"{a.text} and {b.text} changed their order and exchanging them "
                           "changes the answer: a choice made in words between them would "
                           "not hold")


def _values(p: RolePass) -> Iterator[Compared]:
    for k, slot in enumerate(p.slots):
        if slot.old.value is not None and slot.new.value is not None:
            yield Compared(slot.old.text, slot.old.value, slot.new.value,
                           tuple(w.slots.get(slot.key) for w in p.witnesses),
                           ("slot", k), slot.old.form())
    for j in p.results:
        role = p.roles[j]
        atom = p.sol.atoms[j]
        yield Compared(atom.text, role.old, role.new, role.seen or (None,) * len(p.witnesses),
                       ("result", j), atom.form())


def _final(p: RolePass) -> Fraction | None:
    numbers = [i for i, a in enumerate(p.sol.atoms) if a.kind == "num" and i in p.roles]
    return p.roles[numbers[-1]].new if numbers else None


def _exchanged_final(p: RolePass, a: Compared, b: Compared) -> Fraction | None:
    """The final answer with the new values of `a` and `b` exchanged, every computation
    after them redone; None where that cannot be computed (it then counts as changed)."""
    from stepchat.core.tasks.wordprob.recompute import RolePass

    slots = list(p.slots)
    forced: dict[int, Fraction] = {}
    for this, other in ((a, b), (b, a)):
        kind, index = this.source
        if kind == "slot":
            slots[index] = replace(slots[index], new=replace(slots[index].new, value=other.new))
        else:
            forced[index] = other.new
    exchanged = RolePass(p.sol, slots, p.witnesses, p.renamed_at, p.factors, forced=forced)
    try:
        exchanged.run()
    except (Declined, ZeroDivisionError):
        return None
    return _final(exchanged)
