"""Parts of a whole and the rest of it, re-checked as orders.

A request that states parts of one whole ("45% are red, 0.2 blue and the rest green",
"3/10 of them are girls", "3 out of every 10" or "30 phần trăm" that the solution divides
by 10 or 100) may choose in words between a part and the rest: "the most common colour",
"the smaller group". The rest is a quantity no computation need form (the solution
writes `45% × 300` and never 35%), so no compared pair holds it. Each of these parts
keeps its order against the rest of its whole, or one earlier instance had every new
order at once; a part and a rest that become equal decline, as a tie does:
- each stated percent up to 100 and share below 1 (read as hundredths), alone and in
  each group of up to `MAX_PARTS`, against the rest of a hundred;
- the numerator of a fraction written `3/10`, against the rest of its denominator;
- the stated values a computation divides by one whole at least as large, stated,
  constant or computed (`300 * 30 / 100`, `300 / 10 * 3`, `30 / (4 * 20)`, and
  `2000 * 3 / 20` beside `2000 * 5 / 20`), alone and in groups, against the rest of it,
  whatever the words call them.
Not read: a count against the rest of a stated whole the solution never divides by ("of
40 pupils, 18 walk"; reading every stated value as a part of every larger one declined a
tenth of what is served), and a part of a part ("q% of the p% who are girls").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import (
    Value,
    changed_orders,
    computing_parts,
    order_value,
    scaled,
    slot_values,
    stated,
    sub_value,
    written,
)
from stepchat.core.tasks.wordprob.solution import Bin, Expr, Neg, Num

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass
    from stepchat.core.tasks.wordprob.slot import Slot

MAX_PARTS = 4
"""The most stated parts one whole is read as split into."""

HUNDRED = Fraction(100)
ONE = Fraction(1)


def check_rests(p: RolePass) -> None:
    """Decline where a stated part and the rest of its whole changed their order."""
    slots = slot_values(p)
    pairs = [*_parts_of_a_hundred(p, slots), *_fractions(p, slots), *_divided_parts(p)]
    flipped = changed_orders(pairs, len(p.witnesses))
    if flipped:
        part, rest = flipped[0]
        raise Declined(f"{part.text} and the rest of its whole ({rest.text}) changed their "
                       "order: a choice in words between parts of a whole (the larger "
                       "group) would not hold")


def _parts_of_a_hundred(p: RolePass, slots: dict[int, Value]) -> list[tuple[Value, Value]]:
    """Each stated percent and share (a share of 0.25 as 25%: "36% red, 0.25 blue"),
    alone and in groups of up to `MAX_PARTS`, with the rest of a hundred they leave."""
    members = [v if _part_kind(p.slots[k], v) == "percent" else scaled(v, HUNDRED)
               for k, v in slots.items() if _part_kind(p.slots[k], v)]
    return _groups(Value("100%", HUNDRED, HUNDRED, (HUNDRED,) * len(p.witnesses)), members,
                   MAX_PARTS)


def _groups(whole: Value, members: Sequence[Value], most: int) -> list[tuple[Value, Value]]:
    """Each member, alone and in each group of up to `most`, with the rest of `whole`
    the group leaves; a member written twice counts once."""
    distinct = list({(v.text, v.old, v.new): v for v in members}.values())
    pairs = []
    for size in range(1, min(len(distinct), most) + 1):
        for group in combinations(distinct, size):
            rest = _rest(whole, group)
            if rest is not None:
                pairs += [(member, rest) for member in group]
    return pairs


def _fractions(p: RolePass, slots: dict[int, Value]) -> list[tuple[Value, Value]]:
    """The numerator of each fraction written `3/10`, with what it leaves of 10."""
    pairs = []
    for k, value in slots.items():
        if p.slots[k].over and k - 1 in slots:
            rest = _rest(value, (slots[k - 1],))
            if rest is not None:
                pairs.append((slots[k - 1], rest))
    return pairs


def _divided_parts(p: RolePass) -> list[tuple[Value, Value]]:
    """The stated values the solution divides by one whole at least as large (a stated
    value, a constant or what it computes: `x * p / q`, `p / (4 * 20)`, `300 / 10 * p`;
    `2000 * 3 / 20` and `2000 * 5 / 20` are two parts of 20), with what they leave of
    it."""
    parts: dict[tuple[Fraction, Fraction], tuple[Value, list[Value]]] = {}
    for expr in computing_parts(p):
        for divided, by in _divisions(expr):
            whole = sub_value(p, by)
            if whole is None:
                continue
            whole = replace(whole, text=written(p, by))
            found = parts.setdefault((whole.old, whole.new), (whole, []))[1]
            for atom in _factors(divided):
                part = _value(p, atom)
                if part is not None and stated(p, atom) and 0 < part.old <= whole.old:
                    found.append(part)
    return [pair for whole, found in parts.values()
            for pair in _groups(whole, found, MAX_PARTS)]


def _divisions(expr: Expr) -> Iterator[tuple[Expr, Expr]]:
    """Each (what is divided, what it is divided by) in `expr`: `a / b`, and the factor
    beside a quotient, `(w / b) * a` or `a * (w / b)`, as divided by b too."""
    if isinstance(expr, Neg):
        yield from _divisions(expr.operand)
    if not isinstance(expr, Bin):
        return
    if expr.op == "/":
        yield expr.left, expr.right
    if expr.op == "*":
        for quotient, factor in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(quotient, Bin) and quotient.op == "/":
                yield factor, quotient.right
    yield from _divisions(expr.left)
    yield from _divisions(expr.right)


def _factors(expr: Expr) -> list[int]:
    """The number atoms a divided expression multiplies: `p`, or each of `x * p`."""
    if isinstance(expr, Num):
        return [expr.atom]
    if isinstance(expr, Bin) and expr.op == "*":
        return _factors(expr.left) + _factors(expr.right)
    return []


def _value(p: RolePass, atom: int) -> Value | None:
    role = p.roles.get(atom)
    if role is None:
        return None
    return order_value(p, p.sol.atoms[atom].text, role.old, role.new, role.seen)


def _part_kind(slot: Slot, value: Value) -> str | None:
    """"percent" for a stated percent of at most 100, "share" for a stated value between
    0 and 1 that is neither money nor a percent; None for anything else."""
    if slot.old.currency:
        return None
    if slot.old.percent:
        return "percent" if 0 < value.old <= HUNDRED else None
    return "share" if 0 < value.old < ONE else None


def _rest(whole: Value, parts: Sequence[Value]) -> Value | None:
    """What `parts` leave of `whole`, in the cached answer, the new request and each
    instance; None where they exceed it in the cached answer (no parts of that whole)."""
    old = whole.old - sum(v.old for v in parts)
    if old < 0:
        return None
    seen = tuple(
        None if w is None or any(v.seen[k] is None for v in parts)
        else w - sum(v.seen[k] or 0 for v in parts)
        for k, w in enumerate(whole.seen)
    )
    text = " - ".join((whole.text, *(v.text for v in parts)))
    return Value(text, old, whole.new - sum(v.new for v in parts), seen)
