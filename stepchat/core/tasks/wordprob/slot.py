"""A number a word problem's request states, in the cached request and in a new one."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from stepchat.core.tasks.wordprob.atoms import Atom

SlotKey = tuple[int, Fraction]
"""Where a slot is in the cached request and the value it has there: the same place in
two alignments (a new request's, an earlier instance's) is the same slot."""


@dataclass(frozen=True)
class Slot:
    """A number the request states: its atom in the cached request and in the new one."""

    old: Atom
    new: Atom
    over: bool = False
    """The denominator of a fraction written `3/4` in the request (the slot before it is
    the numerator): a part of its whole stays at most its whole."""

    @property
    def changed(self) -> bool:
        return self.old.value != self.new.value

    @property
    def key(self) -> SlotKey:
        return (self.old.start, self.old.value or Fraction(0))
