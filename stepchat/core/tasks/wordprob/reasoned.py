"""A number of a computation that reasoning about the values may have given.

A count of full boxes (15 eggs in boxes of 6: 2), of buses (100 students, 40 seats: 3),
a gcd or an lcm (every 4 and 6 minutes: 2, 12), a remainder, a difference or a quotient
are one step from two stated values, and change with them. Written in a computation as a
plain number, such a value reads exactly like a word's multiplier ("twice"), a unit (12
months, 60 minutes, 24 hours) or a stated value that did not change ("due" is Italian
for two, "fire" Danish for four): the number is taken for what it resembles and kept,
and the answer for new values is wrong. So a kept number of a computation that is one
such step from two stated values, one of which changes, declines, unless an earlier
instance refutes that step (it gives another value there, and the number was kept) or
shows the number following its stated value.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil, floor, gcd
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined

NEAR_FROM = 7
"""A constant this large (a unit: 7, 12, 24, 60...) that is a count one off a quotient is
reasoning too (60 boxes of 4 for 245 eggs); smaller ones are too often one off some
quotient by chance."""

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass


def check_not_reasoned(p: RolePass, i: int) -> None:
    """Decline if the kept number at atom `i` is one step from a number of its own
    computation and another stated value or number there (its own value apart: 3 is the
    gcd of 3 and 12), one of which changes, in the cached solution and in every earlier
    instance alike (an instance where that step gives another value refutes it)."""
    value = p.roles[i].old
    if i not in p.place or any(v is not None and v != value for v in p.written(i)):
        return
    near = not p.roles[i].sources and value >= NEAR_FROM
    siblings = [(v, m) for v, m in _siblings(p, i) if v[0] != value]
    pool = [(v, m) for v, m in [*_stated(p), *siblings] if v[0] != value]
    for b_values, b_moves in siblings:
        for a_values, a_moves in pool:
            if not (a_moves or b_moves) or a_values is b_values:
                continue
            steps = [one_step(a, b, near) for a, b in zip(a_values, b_values, strict=True)]
            if value in set.intersection(*steps):
                raise Declined(f"{p.sol.atoms[i].text} could be computed from "
                               f"{a_values[0]} and {b_values[0]}: reasoning about the "
                               "values, which changes with them")


Values = tuple[tuple[Fraction, ...], bool]
"""A number's value in the cached solution and in each earlier instance, and whether it
changes now."""


def _stated(p: RolePass) -> list[Values]:
    return [((slot.old.value, *(w.slots[slot.key] for w in p.witnesses)), slot.changed)
            for slot in p.slots if slot.old.value is not None]


def _siblings(p: RolePass, i: int) -> list[Values]:
    """The other numbers of the computation atom `i` is in: what a count, a gcd or a
    remainder would be computed against (`2 × 6` for 15 eggs in boxes of 6)."""
    s_index, p_index = p.place[i]
    found: list[Values] = []
    for a in p.statements[s_index].parts[p_index].numbers:
        role = p.roles[a]
        if a != i and (not p.witnesses or len(role.seen) == len(p.witnesses)):
            found.append(((role.old, *role.seen), role.old != role.new))
    return found


def one_step(a: Fraction, b: Fraction, near: bool = False) -> set[Fraction]:
    """What one step of reasoning on `a` against `b` gives: their difference, the quotient
    a / b (exact, rounded down or up, and with `near` one more or one less: posts and
    intervals, or a count one off), gcd, lcm and the remainder of a by b."""
    found = {abs(a - b)}
    if b:
        down, up = floor(a / b), ceil(a / b)
        found |= {a / b, Fraction(down), Fraction(up)}
        if near:
            found |= {Fraction(down - 1), Fraction(up + 1)}
    if a.denominator == b.denominator == 1 and a and b:
        x, y = abs(int(a)), abs(int(b))
        found |= {Fraction(gcd(x, y)), Fraction(x * y // gcd(x, y)), Fraction(x % y)}
    return found
