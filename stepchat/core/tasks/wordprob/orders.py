"""Comparisons a solution makes in words, re-checked as orders between values.

Recomputation redoes `=`; it cannot redo a choice or a range the solution read from the
words. So the order that choice or range depends on must stay as the cached answer (or an
earlier instance, which was solved with that order) had it:
- a choice: a result the solution computes and then never uses ("shop B: 9 / 3 = $3",
  then it buys at shop A) was computed to be compared; it keeps its order against every
  stated value and result. A stated value the solution never uses (a bus ticket of $20
  against a taxi fare) keeps its order against every result too;
- every other order words may compare: `compared.py`;
- a wrap or an unstated threshold: a result no later computation uses, not money, that
  stayed on one side of a cycle length (24 hours, 12 months, 28 to 31 days, 52 weeks,
  360 degrees, 60 minutes, 7 days; the length itself is inside) may be a time of day, a
  date or a heading, and a sum on one side of a power of ten a counter reading; on the
  other side, the answer wraps round (either way), which the arithmetic does not. The
  whole family declines, whatever operation gave it;
- a time written h.mm: a result written with two decimals, not money, whose hundredths
  stayed below 60, keeps them below 60 (10.15 - 8.45 is 1.30 of a clock, not 1.70);
- a share: a part stays at most its whole. A quotient of at most 1 (3 red balls of 10), a
  stated decimal of at most 1 (a share of 0.25), a fraction written `3/4` in the request,
  and the numbers of a computation with a hundred in it (`20 × 25 / 100`, `45 / 50 × 100`)
  stay at most 1, their denominator, or 100; a result written as a percent or computed
  from percents alone (a battery at 45% + 30%) keeps its order against 100.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.solution import (
    Bin,
    Expr,
    Neg,
    Num,
    Operand,
    Unreadable,
    combine,
    expr_text,
    operands,
)
from stepchat.core.tasks.wordprob.values import (
    MINUTES,
    clock_minutes,
    order,
    written_in_hundredths,
)

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass

MODULI = tuple(Fraction(v) for v in (7, 12, 24, 28, 29, 30, 31, 52, 53, 60, 360, 365, 366))
"""Cycle lengths: days in a week, months, hours, days in each month, weeks in a year,
minutes, degrees, days in a year."""
COUNTERS = tuple(Fraction(10) ** k for k in range(1, 7))
"""Where a counter of so many digits rolls over: a sum that counts on (620 + 85 people
through a gate) keeps its order against them."""
WHOLE = Fraction(1)
HUNDRED = Fraction(100)
ZERO = Fraction(0)


@dataclass(frozen=True)
class Value:
    """A stated value or a result: in the cached answer, the new one, each instance."""

    text: str
    old: Fraction
    new: Fraction
    seen: tuple[Fraction | None, ...]
    """Its value in each earlier instance solved with the new request's words (None in
    the others, and where the instance has none)."""

    def kept_order(self, other: Value) -> bool:
        """Whether the order against `other` is the cached answer's."""
        return order(self.old, other.old) == order(self.new, other.new)

    def keeps(self, bound: Fraction, other: Value | None = None) -> bool:
        """Whether the order against `bound` (or `other`) is as before or as in an
        instance."""
        now = order(self.new, other.new if other else bound)
        if order(self.old, other.old if other else bound) == now:
            return True
        return any(
            v is not None and order(v, other.seen[k] if other else bound) == now
            for k, v in enumerate(self.seen)
        )

    def keeps_side(self, modulus: Fraction, *, length_inside: bool) -> bool:
        """Whether the value is on the side of a cycle's length `modulus` now where it was
        (or where an instance had it).

        For a result that may be a time, a date or a heading (`length_inside`), the
        length itself is inside the cycle: day 31, month 12 and a heading of 360 are its
        last positions. For a value beside a shift by the length, positions count from
        zero, so the length is past it (12 pm is noon, not the twelfth hour after it), and
        an instance with the length itself shows nothing: `12 - 12 + 12` is right for
        12 pm to 12 am by two errors that cancel."""

        def inside(v: Fraction) -> bool:
            return v <= modulus if length_inside else v < modulus

        now = inside(self.new)
        return inside(self.old) == now or any(
            v is not None and (length_inside or v != modulus) and inside(v) == now
            for v in self.seen)


def changed_orders(pairs: list[tuple[Value, Value]], instances: int) -> list[tuple[Value, Value]]:
    """The pairs whose order changed, unless one earlier instance had every pair in its
    new order at once: a condition in words can join several comparisons ("more than 50
    on Saturday or more than 40 on Sunday"), changed or not, so instances that each show
    one of them apart show nothing of the condition."""
    flipped = [(a, b) for a, b in pairs if not a.kept_order(b)]
    return [] if not flipped or had_every_order(pairs, instances) else flipped


def had_every_order(pairs: Sequence[tuple[Value, Value]], instances: int) -> bool:
    """Whether one earlier instance had every pair in the order it has now."""
    return any(
        all(a.seen[w] is not None and b.seen[w] is not None
            and order(a.seen[w], b.seen[w]) == order(a.new, b.new) for a, b in pairs)
        for w in range(instances)
    )


def order_value(
    p: RolePass, text: str, old: Fraction, new: Fraction, seen: Sequence[Fraction | None]
) -> Value:
    """A value whose orders in earlier instances count only where an instance was solved
    with the new request's words (the cached answer always was: `guards.check_renamed`)."""
    padded = (*seen, *(None,) * (len(p.witnesses) - len(seen)))
    shown = zip(padded, p.shows_orders, strict=True)
    return Value(text, old, new, tuple(v if shows else None for v, shows in shown))


def check_orders(p: RolePass) -> None:
    slots, results = slot_values(p), result_values(p)
    _check_choices(p, slots, results)
    _check_shares(p, slots, results)
    _check_cycle_terms(p)
    _check_wraps(p, results)


def slot_values(p: RolePass) -> dict[int, Value]:
    """Each stated value, by slot index."""
    return {
        k: order_value(p, s.old.text, s.old.value, s.new.value,
                       tuple(w.slots.get(s.key) for w in p.witnesses))
        for k, s in enumerate(p.slots) if s.old.value is not None and s.new.value is not None
    }


def result_values(p: RolePass) -> dict[int, Value]:
    """Each result, by atom index."""
    return {
        j: order_value(p, p.sol.atoms[j].text, p.roles[j].old, p.roles[j].new,
                       p.roles[j].seen)
        for j in p.results
    }


def _check_choices(p: RolePass, slots: dict[int, Value], results: dict[int, Value]) -> None:
    used = _used(p)
    unused = [v for k, v in slots.items() if ("slot", k) not in used]
    unused += [v for j, v in results.items() if ("result", j) not in used]
    if not unused:
        return
    others = [*slots.values(), *results.values()]
    pairs = [(value, other) for value in unused for other in others if other is not value]
    flipped = changed_orders(pairs, len(p.witnesses))
    if flipped:
        value, other = flipped[0]
        raise Declined(f"{value.text} is not used after it is stated or computed "
                       f"and its order against {other.text} changed: a choice made "
                       "in words would not hold")


def _taken(p: RolePass) -> Iterator[set[tuple[str, int]]]:
    """What each number a computation or the final answer uses may stand for. A
    restatement in words is no use: "B costs $3" before `40 * 3` is how a choice is
    written, not a computation that takes the value."""
    for i, role in p.roles.items():
        if p.in_computation(i) or i in p.final_atoms:
            yield {s for s in role.sources if s != ("result", i)}


def _used(p: RolePass) -> set[tuple[str, int]]:
    """The stated values and results a computation or the final answer takes."""
    return set().union(*_taken(p))


def unused_slots(p: RolePass) -> list[int]:
    """The stated values (slot indices, with a value) no computation is shown to take: a
    value that may only be compared in words ("more than 3 times as many"). A number
    that two stated values could give (the 3 of "3 times as much" and of "more than 3
    times as many") shows neither taken."""
    shown = set()
    for sources in _taken(p):
        slots = [k for kind, k in sources if kind == "slot"]
        if len(slots) == 1:
            shown.add(slots[0])
    return [k for k, s in enumerate(p.slots)
            if k not in shown and s.old.value is not None and s.new.value is not None]


def _check_wraps(p: RolePass, results: dict[int, Value]) -> None:
    """A result that no later computation uses (a time, a date, a heading or a counter
    reading is an answer, not an operand) and that is neither money nor written as a
    percent (which keeps its side of 100, below) keeps its side of every cycle length it
    was within, whatever operation gave it. A result computed from percents but not
    written as one is checked both ways: `20 + 45% / 5%` is the hour a battery losing 5
    percent an hour is empty, which wraps past 24."""
    operands = {s for i, role in p.roles.items() if p.in_computation(i) and i not in p.results
                for s in role.sources}
    for j, value in results.items():
        if p.sol.atoms[j].currency or p.sol.atoms[j].percent or ("result", j) in operands:
            continue
        expr = p.results[j].expr
        counts_on = isinstance(expr, Bin) and expr.op == "+"
        for modulus in (*MODULI, *(COUNTERS if counts_on else ())):
            if not value.keeps_side(modulus, length_inside=True):
                raise Declined(f"{value.text} crosses {modulus} where it did not: a time, a "
                               "date, a heading or a counter would wrap round")
        if written_in_hundredths(p.sol.atoms[j].text) and not _clock_minutes(value).keeps_side(
                MINUTES, length_inside=False):
            raise Declined(f"{value.text} is written with two decimals and they cross 60 "
                           "where they did not: a clock time or a duration written h.mm "
                           "carries its minutes into the hour")


def _clock_minutes(value: Value) -> Value:
    return Value(value.text, clock_minutes(value.old), clock_minutes(value.new),
                 tuple(None if v is None else clock_minutes(v) for v in value.seen))


def _of_percents(p: RolePass, j: int) -> bool:
    """A result written as a percent, computed from percents alone (45% + 30%), or
    computed with a percent that the statement writes beside its number without reading
    it as hundredths (`50 × 2% = 100`: each minute adds 2% to a level, then "100
    percent"), which is a level, not a share of an amount."""
    numbers = p.results[j].numbers
    level = not p.scaled[p.place[j][0]] and any(is_percent(p, a) for a in numbers)
    return p.sol.atoms[j].percent or level or (
        bool(numbers) and all(is_percent(p, a) for a in numbers))


def is_percent(p: RolePass, atom: int) -> bool:
    """Whether the number at `atom` is a percent: written with its sign, or a stated value
    the request writes with one."""
    return p.sol.atoms[atom].percent or any(
        kind == "slot" and p.slots[k].old.percent for kind, k in p.roles[atom].sources)


def restated_result(p: RolePass, atom: int) -> int | None:
    """The earlier result the number at `atom` restates and nothing else, if any."""
    sources = p.roles[atom].sources
    if len(sources) != 1:
        return None
    (kind, j), = sources
    return j if kind == "result" and j in p.results else None


def _check_shares(p: RolePass, slots: dict[int, Value], results: dict[int, Value]) -> None:
    for k, value in slots.items():
        slot = p.slots[k]
        if 0 < value.old <= WHOLE and not slot.old.currency and not value.keeps(WHOLE):
            raise Declined(f"{value.text} was a share of at most 1 and would not be")
        if slot.over and k - 1 in slots and not slots[k - 1].keeps(WHOLE, value):
            raise Declined(f"{slots[k - 1].text}/{value.text} was a part of its whole and "
                           "would not be")
    for j, value in results.items():
        if _of_percents(p, j) and not value.keeps(HUNDRED):
            raise Declined(f"{value.text} is a percent and crosses 100 where it did not: "
                           "a share or a level above the whole")
    for statement in p.statements:
        if not statement.links:
            continue
        for part in statement.parts:
            if any(not p.roles[a].sources and p.roles[a].old == HUNDRED for a in part.numbers):
                for a in part.numbers:
                    role = p.roles[a]
                    number = order_value(p, p.sol.atoms[a].text, role.old, role.new,
                                         role.seen)
                    if role.old != role.new and not number.keeps(HUNDRED):
                        raise Declined(f"{number.text} changed its order against 100 in a "
                                       "computation of a hundredth: a share above the whole")


def computing_parts(p: RolePass) -> Iterator[Expr]:
    """The expression of each part of each statement that links values."""
    for statement in p.statements:
        if statement.links:
            yield from (part.expr for part in statement.parts)


def stated(p: RolePass, atom: int) -> bool:
    """Whether the number at `atom` is a value the request states."""
    return any(kind == "slot" for kind, _ in p.roles[atom].sources)


def _check_cycle_terms(p: RolePass) -> None:
    """A cycle length that a computation adds or takes off (`4 + 12 - 8`: 4 pm counted on
    a 24-hour clock) shifts positions on that cycle, and so does a computation that uses
    the result of one (`12 - 10 = 2` hours before midnight, then `2 + 6`, or `2 × $20`).
    Every changed value there keeps its side of the length, and no stated value there is
    the length itself: 12 pm is noon, and `12 + 12 - 5` no shift of it."""
    for expr in computing_parts(p):
        places = _summed(p, expr)
        cycles = {p.roles[place.atom].old for place in places
                  if place.op in ("+", "-") and not p.roles[place.atom].sources
                  and p.roles[place.atom].old in MODULI}
        for modulus in sorted(cycles):
            for place in places:
                role = p.roles[place.atom]
                value = order_value(p, p.sol.atoms[place.atom].text, role.old, role.new,
                                    role.seen)
                moved = bool(role.sources) and role.old != role.new and not value.keeps_side(
                    modulus, length_inside=False)
                if (stated(p, place.atom) and role.new == modulus) or moved:
                    raise Declined(f"{value.text} reaches {modulus} beside a shift by "
                                   f"{modulus}: on a clock or a calendar the position "
                                   "there counts from zero")


def _summed(p: RolePass, expr: Expr) -> list[Operand]:
    """The numbers of `expr` with their places, and those of each earlier result it uses,
    at any depth (hours after midnight multiplied by a wage, then added)."""
    found: list[Operand] = []
    for place in operands(expr):
        found.append(place)
        j = restated_result(p, place.atom)
        if j is not None and not isinstance(p.results[j].expr, Num):
            found += _summed(p, p.results[j].expr)
    return found


def sub_value(
    p: RolePass, expr: Expr, hundredths: frozenset[int] = frozenset()
) -> Value | None:
    """A sub-expression's value in the cached answer, the new one and each instance
    (the numbers at `hundredths` read as hundredths: 25% as 0.25). The checks read
    `old_and_new` first and this only where the instances may decide."""
    pair = old_and_new(p, expr, hundredths)
    seen = sub_seen(p, expr, hundredths)
    if pair is None or seen is None:
        return None
    return order_value(p, "", *pair, seen)


def sub_seen(
    p: RolePass, expr: Expr, hundredths: frozenset[int] = frozenset()
) -> tuple[Fraction | None, ...] | None:
    """A sub-expression's value in each earlier instance, whatever words the instance was
    solved with (None in an instance that lacks one of its numbers; None for all of them
    where one instance cannot compute it: a division by zero there)."""
    seen = _seen_values(p, expr, hundredths)
    if any(v is _FAILED for v in seen):
        return None
    return tuple(v if isinstance(v, Fraction) else None for v in seen)


_MISSING, _FAILED = object(), object()
"""A sub-expression's value in an instance that lacks one of its numbers, and in one
where computing it fails."""


def _seen_values(p: RolePass, expr: Expr, hundredths: frozenset[int]) -> tuple[object, ...]:
    """`sub_seen` before its failures are read, remembered node by node."""
    key = (expr, hundredths)
    if key in p.seen_values:
        return p.seen_values[key]
    found: tuple[object, ...]
    if isinstance(expr, Num):
        seen = p.roles[expr.atom].seen
        scale = HUNDRED if expr.atom in hundredths else Fraction(1)
        found = tuple(seen[k] / scale if k < len(seen) else _MISSING
                      for k in range(len(p.witnesses)))
    elif isinstance(expr, Neg):
        found = tuple(-v if isinstance(v, Fraction) else v
                      for v in _seen_values(p, expr.operand, hundredths))
    else:
        found = tuple(_combined_seen(expr.op, left, right) for left, right in zip(
            _seen_values(p, expr.left, hundredths), _seen_values(p, expr.right, hundredths),
            strict=True))
    p.seen_values[key] = found
    return found


def _combined_seen(op: str, left: object, right: object) -> object:
    if _MISSING in (left, right):
        return _MISSING
    if not isinstance(left, Fraction) or not isinstance(right, Fraction):
        return _FAILED
    try:
        return combine(op, left, right)
    except (ZeroDivisionError, Unreadable):
        return _FAILED


def taken_constants(p: RolePass, leave_out: frozenset[int] = frozenset()) -> dict[Fraction, int]:
    """Each constant a computation takes (but the atoms `leave_out`), once per value: the
    atom that first writes it."""
    found: dict[Fraction, int] = {}
    for i in p.constant_atoms():
        if p.in_computation(i) and i not in leave_out:
            found.setdefault(p.roles[i].old, i)
    return found


def scaled(value: Value, factor: Fraction) -> Value:
    """`value` times `factor` wherever it is read: a share as hundredths, a sum's mean."""
    return Value(value.text, value.old * factor, value.new * factor,
                 tuple(None if v is None else v * factor for v in value.seen))


def written(p: RolePass, expr: Expr) -> str:
    """`expr` in the solution's own numbers, bracketed where it groups: `(18 / 4)`."""
    return expr_text(p.sol.atoms, expr)


def old_and_new(
    p: RolePass, expr: Expr, hundredths: frozenset[int] = frozenset()
) -> tuple[Fraction, Fraction] | None:
    """A sub-expression's value in the cached answer and the new one (None where one
    cannot be computed): what a check reads first, before the instances. Remembered node
    by node: the candidate counts and shares of a solution share most of their nodes."""
    key = (expr, hundredths)
    if key not in p.value_pairs:
        p.value_pairs[key] = _old_and_new(p, expr, hundredths)
    return p.value_pairs[key]


def _old_and_new(
    p: RolePass, expr: Expr, hundredths: frozenset[int]
) -> tuple[Fraction, Fraction] | None:
    if isinstance(expr, Num):
        role = p.roles[expr.atom]
        if expr.atom in hundredths:
            return role.old / HUNDRED, role.new / HUNDRED
        return role.old, role.new
    if isinstance(expr, Neg):
        inner = old_and_new(p, expr.operand, hundredths)
        return None if inner is None else (-inner[0], -inner[1])
    left = old_and_new(p, expr.left, hundredths)
    right = old_and_new(p, expr.right, hundredths)
    if left is None or right is None:
        return None
    try:
        return combine(expr.op, left[0], right[0]), combine(expr.op, left[1], right[1])
    except (ZeroDivisionError, Unreadable):
        return None


def numbers(expr: Expr) -> list[int]:
    """The number atoms of `expr`, in order."""
    if isinstance(expr, Neg):
        return numbers(expr.operand)
    if isinstance(expr, Bin):
        return [*numbers(expr.left), *numbers(expr.right)]
    return [expr.atom]
