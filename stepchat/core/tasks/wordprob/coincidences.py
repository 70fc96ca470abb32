"""Solved instances right by a coincidence: they show nothing of a choice in words.

A solution's words may choose between two stated values ("whoever picks more is paid $5
a kg, the other $2") or add an amount on one side only ("a bonus of $9 for whoever sells
more"). An instance in which the two values are equal, or the amount is 0 (a factor 1),
is solved right whichever way the words chose: the cached statements hold for it by the
tie alone, written with its order either way. So an instance that ties two stated values
the new request tells apart, or states a 0 or a 1 where the new request does not,
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
from stepchat.core.tasks.wordprob.values import IDENTITY_VALUES

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass

Coincidence = tuple[int, int | None]
"""The stated value (slot index) an instance has by coincidence, and the one it ties
with (None for a 0 or a 1)."""


def coincidence(values: Sequence[tuple[Fraction, Fraction | None]]) -> Coincidence | None:
    """The first coincidence among the stated values, given as (value in the new request,
    value in the instance) by slot: a 0 or a 1 the new request does not have, or two equal
    values the new request tells apart."""
    earlier: dict[Fraction, list[int]] = {}
    for k, (new, seen) in enumerate(values):
        if seen is None:
            continue
        if seen in IDENTITY_VALUES and new != seen:
            return k, None
        for j in earlier.get(seen, []):
            if values[j][0] != new:
                return k, j
        earlier.setdefault(seen, []).append(k)
    return None


def in_instance(p: RolePass, instance: int) -> Coincidence | None:
    """A coincidence of earlier instance `instance` against the new request."""
    return coincidence([(slot.new.value or Fraction(0), seen[instance] if instance < len(seen)
                         else None) for slot, seen in zip(p.slots, p.slot_seen, strict=True)])


def check_base(p: RolePass) -> None:
    """Decline a recomputation from an instance right by a coincidence."""
    found = coincidence([(slot.new.value or Fraction(0), slot.old.value) for slot in p.slots])
    if found is None:
        return
    k, j = found
    text = p.slots[k].old.text
    if j is None:
        raise Declined(f"{text} is a 0 or a 1 in the solved request recomputed from, and not "
                       "in this one: a choice in words between two amounts or factors makes "
                       "no difference there, so its solution shows nothing of the choice")
    raise Declined(f"{p.slots[j].old.text} and {text} are equal in the solved request "
                   "recomputed from, and not in this one: its solution is right whichever "
                   "of them a choice in words picks, so it shows nothing of the choice")
