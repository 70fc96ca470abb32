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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, partial
from math import ceil, floor, gcd
from types import MappingProxyType
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined

Ratio = tuple[int, int]
"""A value as its numerator and denominator."""

NEAR_FROM = 7
"""A constant this large (a unit: 7, 12, 24, 60...) that is a count one off a quotient is
reasoning too (60 boxes of 4 for 245 eggs); smaller ones are too often one off some
quotient by chance."""

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass


def check_not_reasoned(p: RolePass, i: int) -> None:
    """Decline if the number at atom `i` (kept, or read as a number word) is one or two
    steps from the values: one step from a single stated value or result (one less or
    more, double, half: posts and gaps, pieces and cuts), or one step from any two of the
    stated values, the results and the numbers of its own computation (a count of full
    boxes of a computed total; the games won from games played and lost; the multiples of
    a stated four among 12 tickets, 12 / 4), its own value apart (3 is the gcd of 3 and
    12); in the cached solution and in every earlier instance alike (an instance where that step
    gives another value refutes it: it changed that step's values and the number stayed),
    and that step gives another value with the new values than the number's reading
    gives (where they agree, both readings serve the same answer)."""
    value = p.roles[i].old
    if i not in p.place or any(v is not None and v != value for v in p.written(i)):
        return
    near = not p.roles[i].sources and value >= NEAR_FROM
    pool = [n for n in [*_stated(p), *_computed(p, i), *_siblings(p, i)]
            if n.values[0] != value]
    wanted = (value.numerator, value.denominator)
    for a in pool:
        if wanted in _off_values(a.values[0].numerator, a.values[0].denominator):
            _decline_if_step(p, i, one_off, [(v,) for v in a.values], (a.new,),
                             str(a.values[0]))
        for b in pool:
            if a is b or wanted not in _step_values(p, a.values[0], b.values[0], near):
                continue
            pairs = list(zip(a.values, b.values, strict=True))
            _decline_if_step(p, i, partial(one_step, near=near), pairs, (a.new, b.new),
                             f"{a.values[0]} and {b.values[0]}")


def _step_values(p: RolePass, a: Fraction, b: Fraction, near: bool) -> frozenset[Ratio]:
    """Every value one step on `a` against `b` gives, as numerator and denominator,
    remembered for the pass: a request with thirty stated values tries each of their pairs
    against every kept number, and hashing plain integers is what keeps that quick."""
    key = (a.numerator, a.denominator, b.numerator, b.denominator, near)
    found = p.step_values.get(key)
    if found is None:
        found = frozenset((v.numerator, v.denominator)
                          for v in one_step(a, b, near).values())
        p.step_values[key] = found
    return found


@lru_cache(maxsize=1024)
def _off_values(numerator: int, denominator: int) -> frozenset[Ratio]:
    """Every value one step on a single value gives (`one_off`), as numerator and
    denominator: keyed and hashed as plain integers, as `_step_values` is."""
    return frozenset((v.numerator, v.denominator)
                     for v in one_off(Fraction(numerator, denominator)).values())


def _decline_if_step(
    p: RolePass, i: int, step: Callable[..., Mapping[str, Fraction]],
    cases: Sequence[tuple[Fraction, ...]], now: tuple[Fraction, ...], what: str,
) -> None:
    """Decline if `step` gives the number's value by one operation on the values of the
    cached solution (`cases[0]`) and of every instance, and another value than the
    number's reading on the new values (`now`).
    The cached solution is tried first: it rules out almost every operation alone."""
    value, read_now = p.roles[i].old, p.roles[i].new
    ops = [op for op, result in step(*cases[0]).items() if result == value]
    for case in cases[1:]:
        if not ops:
            return
        found = step(*case)
        ops = [op for op in ops if found.get(op) == value]
    if not ops:
        return
    given = step(*now)
    for op in ops:
        if given.get(op) != read_now:
            raise Declined(f"{p.sol.atoms[i].text} could be computed from {what} ({op}): "
                           "reasoning about the values, which changes with them")


@lru_cache(maxsize=1024)
def one_off(a: Fraction) -> Mapping[str, Fraction]:
    """What one step on a single value gives: one less or one more (gaps between posts,
    cuts of pieces, others than oneself), double, half and half rounded either way.
    Remembered, as `one_step` is, and so read-only."""
    return MappingProxyType({
        "one less": a - 1, "one more": a + 1, "double": 2 * a, "half": a / 2,
        "half down": Fraction(floor(a / 2)), "half up": Fraction(ceil(a / 2))})


@dataclass(frozen=True)
class Number:
    """A number's value in the cached solution and in each earlier instance, and now."""

    values: tuple[Fraction, ...]
    new: Fraction


def _stated(p: RolePass) -> list[Number]:
    return [Number((slot.old.value, *(w.slots[slot.key] for w in p.witnesses)),
                   slot.new.value)
            for slot in p.slots if slot.old.value is not None and slot.new.value is not None]


def _computed(p: RolePass, i: int) -> list[Number]:
    """The solution's results that do not follow from atom `i`: a number is not reasoned
    from its own consequences (9 + 7 = 16 after 18 / 2 = 9 says nothing of the 2)."""
    after: set[int] = {i}
    for j, part in p.results.items():
        if any(a in after or any(kind == "result" and k in after
                                 for kind, k in p.roles[a].sources) for a in part.numbers):
            after.add(j)
    found: list[Number] = []
    for j in p.results:
        role = p.roles[j]
        if j in after or (p.witnesses and len(role.seen) != len(p.witnesses)):
            continue
        found.append(Number((role.old, *role.seen), role.new))
    return found


def _siblings(p: RolePass, i: int) -> list[Number]:
    """The other numbers of the computation atom `i` is in (`2 × 6` for 15 eggs in boxes
    of 6): what a count, a gcd or a remainder would be computed against. A result computed
    with a constant of the same value is left out: 16 / 2 = 8 makes 16 / 8 = 2 by itself."""
    s_index, p_index = p.place[i]
    value = p.roles[i].old
    found: list[Number] = []
    for a in p.statements[s_index].parts[p_index].numbers:
        role = p.roles[a]
        if a == i or (p.witnesses and len(role.seen) != len(p.witnesses)):
            continue
        if a in p.results and any(
            not p.roles[b].sources and p.roles[b].old == value for b in p.results[a].numbers
        ):
            continue
        found.append(Number((role.old, *role.seen), role.new))
    return found


@lru_cache(maxsize=1024)
def one_step(a: Fraction, b: Fraction, near: bool = False) -> Mapping[str, Fraction]:
    """What one step of reasoning on `a` against `b` gives, by name: their difference, sum
    and product (hours of two days written only as their total, `12 * 40`), the
    quotient a / b (exact, rounded down or up, and with `near` one more or one less: posts
    and intervals, or a count one off), gcd, lcm and the remainder of a by b. Remembered
    for the last thousand pairs (a pass tries the same pairs against every number; more
    would lengthen every garbage collection) and so read-only."""
    found = {"difference": abs(a - b), "sum": a + b, "product": a * b}
    if b:
        down, up = floor(a / b), ceil(a / b)
        found |= {"quotient": a / b, "full count": Fraction(down), "count to cover": Fraction(up)}
        if near:
            found |= {"count one less": Fraction(down - 1), "count one more": Fraction(up + 1)}
    if a.denominator == b.denominator == 1 and a and b:
        x, y = abs(int(a)), abs(int(b))
        found |= {"gcd": Fraction(gcd(x, y)), "lcm": Fraction(x * y // gcd(x, y)),
                  "remainder": Fraction(x % y)}
    return MappingProxyType(found)
