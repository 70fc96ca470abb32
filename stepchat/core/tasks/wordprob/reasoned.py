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
    """Decline if the kept number at atom `i` is one step from two other stated values or
    numbers of its computation (its own value apart: 3 is the gcd of 3 and 12), one of
    which changes, in the cached solution and in every earlier instance alike (an
    instance where that step gives another value refutes it)."""
    value = p.roles[i].old
    if any(v is not None and v != value for v in p.written(i)):
        return
    pool = [(values, moves) for values, moves in _pool(p, i) if values[0] != value]
    near = not p.roles[i].sources and value >= NEAR_FROM
    for a_values, a_moves in pool:
        for b_values, b_moves in pool:
            if not (a_moves or b_moves) or a_values is b_values:
                continue
            steps = [one_step(a, b, near) for a, b in zip(a_values, b_values, strict=True)]
            common = set.intersection(*steps)
            if value in common:
                raise Declined(f"{p.sol.atoms[i].text} could be computed from "
                               f"{a_values[0]} and {b_values[0]}: reasoning about the "
                               "values, which changes with them")


def _pool(p: RolePass, i: int) -> list[tuple[tuple[Fraction, ...], bool]]:
    """Each stated value and each other number of the computation: its value in the cached
    solution and in every earlier instance, and whether it changes now."""
    pool = [((slot.old.value, *(w.slots[slot.key] for w in p.witnesses)), slot.changed)
            for slot in p.slots if slot.old.value is not None]
    if i in p.place:
        s_index, p_index = p.place[i]
        for a in p.statements[s_index].parts[p_index].numbers:
            role = p.roles[a]
            if a != i and (not p.witnesses or len(role.seen) == len(p.witnesses)):
                pool.append(((role.old, *role.seen), role.old != role.new))
    return pool


def one_step(a: Fraction, b: Fraction, near: bool = False) -> set[Fraction]:
    """What one step of reasoning on two values gives: their difference, quotient (exact,
    rounded down or up, and with `near` one more or one less: posts and intervals, or a
    count one off), gcd, lcm and remainder."""
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
