"""Solved instances right by a coincidence: they show nothing of a choice in words.

A solution's words may choose between two quantities ("whoever picks more is paid $5 a
kg, the other $2", "the other $3 plus a $2 tip", "$24 for every 6 kg") or add an amount on
one side only ("a bonus of $9 for whoever sells more"). An instance in which the two
alternatives are equal is solved right whichever way the words chose: the cached
statements hold for it by the tie alone, written with its order either way. So is one
with an amount of 0 or a factor of 1 (a bonus of $0, 100% of a rate). The alternatives
are any of the quantities the solution writes or takes: stated values (a percent also as
hundredths: 50% ties 0.5), results, constants (a week's 7, "a dozen" dollars) and every
part of a computation `compared` reads (`3 + 2` against a stated 5; `12 * 7 * 9` also
forms `7 * 9`, against a stated 63).

So an instance in which two such quantities are equal where the new request has them
apart, or one is 0 or 1 where the new request's is not,
- vouches for no order or property of the new request (`RolePass.shows_orders`), and
- is not recomputed from (`check_base`): its solution may be right only by the tie.
A new request with the same tie is not concerned: the choice makes no difference to it
either. Roles are still read from such an instance: a tie fits both readings and so
decides none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import (
    Value,
    scaled,
    sub_seen,
    taken_constants,
    written,
)
from stepchat.core.tasks.wordprob.values import IDENTITY_VALUES

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass


def quantities(p: RolePass) -> list[Value]:
    """Every stated value (a percent also as hundredths), result, constant a computation
    takes and part of a computation, with its value in each earlier instance, whatever
    words the instance was solved with (`orders.order_value` keeps only the instances
    that show orders, which are decided here)."""
    found = []
    for slot, seen in zip(p.slots, p.slot_seen, strict=True):
        old, new = slot.old.value, slot.new.value
        if old is None or new is None:
            continue
        value = Value(slot.old.text, old, new, seen)
        found += [value, scaled(value, Fraction(1, 100))] if slot.old.percent else [value]
    found += [Value(p.sol.atoms[j].text, p.roles[j].old, p.roles[j].new, p.roles[j].seen)
              for j in p.results]
    found += [Value(p.sol.atoms[i].text, value, value, (value,) * len(p.witnesses))
              for value, i in taken_constants(p).items()]
    for (expr, hundredths), (old, new) in p.parts.items():
        in_instances = sub_seen(p, expr, hundredths)
        if in_instances is not None:
            found.append(Value(written(p, expr), old, new, in_instances))
    return found


def coincidence(
    readings: Sequence[tuple[Fraction, Fraction | None]],
) -> tuple[int, int | None] | None:
    """The first coincidence among quantities read as (value in the new request, value in
    the instance): a 0 or a 1 the new request does not have (its index, None), or two
    equal values the new request tells apart (both indices, the later first)."""
    first: dict[tuple[int, int], int] = {}  # by numerator and denominator: hashed fast
    for k, (new, seen) in enumerate(readings):
        if seen is None:
            continue
        if seen in IDENTITY_VALUES and new != seen:
            return k, None
        key = (seen.numerator, seen.denominator)
        j = first.setdefault(key, k)
        if readings[j][0] != new:
            return k, j
    return None


def vouching(p: RolePass) -> tuple[bool, ...]:
    """Per earlier instance, whether it is free of coincidences against the new request."""
    found = p.quantities
    return tuple(
        coincidence([(q.new, q.seen[k] if k < len(q.seen) else None) for q in found]) is None
        for k in range(len(p.witnesses)))


def check_base(p: RolePass) -> None:
    """Decline a recomputation from an instance right by a coincidence."""
    found = p.quantities
    at = coincidence([(q.new, q.old) for q in found])
    if at is None:
        return
    k, j = at
    if j is None:
        raise Declined(f"{found[k].text} is {found[k].old} in the solved request recomputed "
                       "from, and not in this one: an amount of 0 or a factor of 1 makes a "
                       "choice in words make no difference there, so its solution shows "
                       "nothing of the choice")
    raise Declined(f"{found[j].text} and {found[k].text} are equal in the solved request "
                   "recomputed from, and not in this one: its solution is right whichever "
                   "of them a choice in words picks, so it shows nothing of the choice")
