"""Parts of a whole and the rest of it, re-checked as orders.

A request that states parts of one whole ("45% are red, 20% blue and the rest green",
"3/10 of them are girls", a share of 0.3, "3 out of every 10", "30 phần trăm" that the
solution divides by 100) may choose in words between a part and the
rest: "the most common colour", "the smaller group". The rest is a quantity no
computation need form (the solution writes `45% × 300` and never 35%), so no compared
pair holds it. Each part, alone and in each group of up to `MAX_PARTS` stated parts of
the same kind (percents of 100, shares of 1), keeps its order against the rest the group
leaves, and so does a part the solution shows as one, whatever the words: the numerator
of a fraction written `3/10`, and a stated value that a computation multiplies by and
divides by a larger stated value or constant (`300 * 30 / 100`, `300 * 3 / 10`) against
what that whole leaves; or one earlier instance had every new order at once. A part and a rest that
become equal decline, as a tie does.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import (
    Value,
    changed_orders,
    computing_parts,
    order_value,
    slot_values,
)
from stepchat.core.tasks.wordprob.solution import Bin, Num, operands

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
    pairs: list[tuple[Value, Value]] = []
    for whole, kind, written in ((HUNDRED, "percent", "100%"), (ONE, "share", "1")):
        members = [v for k, v in slots.items() if _part_kind(p.slots[k], v) == kind]
        constant = Value(written, whole, whole, (whole,) * len(p.witnesses))
        for size in range(1, min(len(members), MAX_PARTS) + 1):
            for group in combinations(members, size):
                rest = _rest(constant, group)
                if rest is not None:
                    pairs += [(member, rest) for member in group]
    for k, value in slots.items():
        if p.slots[k].over and k - 1 in slots:
            rest = _rest(value, (slots[k - 1],))
            if rest is not None:
                pairs.append((slots[k - 1], rest))
    pairs += _divided_parts(p)
    flipped = changed_orders(pairs, len(p.witnesses))
    if flipped:
        part, rest = flipped[0]
        raise Declined(f"{part.text} and the rest of its whole ({rest.text}) changed their "
                       "order: a choice in words between parts of a whole (the larger "
                       "group) would not hold")


def _divided_parts(p: RolePass) -> list[tuple[Value, Value]]:
    """Each stated value the solution divides by a whole at least as large, a stated
    value or a constant (`p / q`, `x * p / q`), with what the whole leaves."""
    pairs = []
    for expr in computing_parts(p):
        for place in operands(expr):
            if place.op != "/" or not place.right:
                continue
            whole = _value(p, place.atom)
            if whole is None or not _stated_or_constant(p, place.atom):
                continue
            for atom in _factors(place.sibling):
                part = _value(p, atom)
                if part is not None and _stated(p, atom) and 0 < part.old <= whole.old:
                    rest = _rest(whole, (part,))
                    if rest is not None:
                        pairs.append((part, rest))
    return pairs


def _factors(expr: object) -> list[int]:
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


def _stated(p: RolePass, atom: int) -> bool:
    return any(kind == "slot" for kind, _ in p.roles[atom].sources)


def _stated_or_constant(p: RolePass, atom: int) -> bool:
    return not p.roles[atom].sources or _stated(p, atom)


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
