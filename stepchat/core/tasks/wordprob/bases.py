"""Which solved instance of a cached problem to recompute a new request from, and in what
order to try them.

Every instance an entry keeps is a solution of the same problem, so any of them may be the
base, the others its witnesses; the request is served when one base passes every rule, and
which one does not change that verdict. The order only decides how soon the search ends.
Most requests are served from the entry itself. Where they are not, the rule that declined
is nearly always an order between values (a choice, a tie, a wrap, a share): the new values
sit on another side of each other than the entry's did, and an instance solved with them on
that side passes. So when the entry's stated values are not in the new request's order,
the instances are tried from the one whose stated values are most nearly in that order
(English numbers and names variants: 179 of 205 served by the first base tried and 9 by
the third to fifth; now 191 by the first and 2 by the third or fourth).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

from stepchat.core.tasks.wordprob.evidence import Instance, varying_positions
from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.request import Alignment, NotSame, align
from stepchat.core.tasks.wordprob.values import order


@dataclass(frozen=True)
class Base:
    """A solved instance to recompute from, the others its witnesses, and how the new
    request aligns with it (or why it does not)."""

    instance: Instance
    others: tuple[Instance, ...]
    alignment: Alignment | Declined | NotSame

    @cached_property
    def reorders(self) -> int:
        """Pairs of stated values whose order (above, equal, below) the new request changes:
        how far the base's values sit from the new ones. No alignment is farthest."""
        if not isinstance(self.alignment, Alignment):
            return sys.maxsize
        pairs = [(s.old.value, s.new.value) for s in self.alignment.slots
                 if s.old.value is not None and s.new.value is not None]
        return sum(order(a_old, b_old) != order(a_new, b_new)
                   for (a_old, a_new), (b_old, b_new) in combinations(pairs, 2))


def bases(entry: Instance, earlier: Sequence[Instance], prompt: str) -> Iterator[Base]:
    """Each solved instance as the base for `prompt`, the entry first unless the new values
    change its order and another instance's changes fewer; an instance whose solution has
    another number of steps cannot stand for the entry's steps."""
    every = [entry, *(i for i in earlier if len(i.steps) == len(entry.steps))]
    head = _aligned(prompt, every[0], every)
    if head.reorders == 0:
        yield head
        yield from (_aligned(prompt, base, every) for base in every[1:])
        return
    rest = [_aligned(prompt, base, every) for base in every[1:]]
    yield from sorted((head, *rest), key=lambda b: b.reorders)


def _aligned(prompt: str, instance: Instance, every: Sequence[Instance]) -> Base:
    others = tuple(i for i in every if i is not instance)
    try:
        alignment: Alignment | Declined | NotSame = align(
            instance.request, prompt, *instance.steps,
            varying=varying_positions(instance.request, others))
    except (Declined, NotSame) as exc:
        alignment = exc
    return Base(instance, others, alignment)
