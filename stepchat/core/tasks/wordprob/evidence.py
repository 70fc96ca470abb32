"""Earlier solved instances of a cached word problem: what decides a number's role.

One solution often cannot say what a number is: a 10 that the request states and that a
step also computes, a 12 that is stated (12 eggs) or a constant (12 in a dozen). Two
instances of the same problem usually can, since a coincidence seldom repeats: where the
stated value changed between them, a stated value follows it, a result follows its
computation, and a constant stays. So an entry keeps the instances answered before it
(`Instance`), and a new request is recomputed with roles that hold in every one of them.

An instance is a witness only when it is the same problem written the same way:
- its request aligns with the cached one slot for slot (numbers, and words renamed one to
  one, which is how an instance shows which words vary);
- its solution is the cached solution statement by statement: the same atoms in the same
  order, only numbers different and words renamed as in the request (a model that
  phrased it otherwise, or reasoned otherwise, gives no evidence);
- every computation in it holds.
A witness can only narrow what the cached solution itself allows; one that no role fits
makes the request decline, never a different answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from stepchat.core.tasks.wordprob.atoms import Atom, atoms, decimal_mark
from stepchat.core.tasks.wordprob.numwords import SHORT, common_reading
from stepchat.core.tasks.wordprob.request import NotSame, align
from stepchat.core.tasks.wordprob.slot import SlotKey
from stepchat.core.tasks.wordprob.solution import answer_holds, solution_atoms

MAX_WITNESSES = 8
"""Earlier instances an entry keeps (the newest): enough to separate coincidences and to
hold an order a choice in words was solved with (a problem asked often is served more:
English variants 11-15 of each template, 39% served with four, 43% with eight), few
enough that checking them costs little beside the recomputation."""


@dataclass(frozen=True)
class Instance:
    """A solved request: what was asked and the stored solution's steps."""

    request: str
    steps: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"request": self.request, "steps": list(self.steps)}

    @classmethod
    def from_json(cls, data: Any) -> Instance | None:
        """The instance, or None for anything that is not one (a damaged entry)."""
        if not isinstance(data, dict):
            return None
        request, steps = data.get("request"), data.get("steps")
        if not isinstance(request, str) or not isinstance(steps, list) or not all(
            isinstance(s, str) for s in steps
        ):
            return None
        return cls(request, tuple(steps))


@dataclass(frozen=True)
class Witness:
    """An earlier instance read in the cached instance's places, with the decimal mark the
    two agree on. What it shows holds however a new request writes its decimals: it is set
    aside only where the cached request reads otherwise beside the new request (its slots
    then differ), never for the mark alone. Dropped for a mark, an instance hid what it
    contradicts: a solved instance with its prices swapped served a request written
    "4,5 €" because the one that showed the right roles was written in whole euros, or
    with "16.5"."""

    slots: dict[SlotKey, Fraction]
    """The value of each slot of the cached request in this instance."""
    words: dict[int, str]
    """The word this instance has where the cached request has another (by atom position)."""
    numbers: tuple[Fraction | None, ...]
    """This instance's number at each atom position of the cached solution (None elsewhere)."""
    number_words: frozenset[int] = frozenset()
    """Positions in `words` where both words read as numbers in one language ("three",
    "seven"): slots, whose values the roles check, not words. Not a word of `SHORT`
    letters: unchanged, Danish "to" states no value, so an instance where it changed
    shows nothing of the digit beside it."""
    names: frozenset[int] = frozenset()
    """Positions in `words` where the instance has another name: a renamed word that
    passed every test of a name when the instance was read."""


def varying_positions(request: str, instances: Sequence[Instance]) -> frozenset[int]:
    """Atom positions of `request` where an earlier instance has another word: the places
    a new request may rename (whether it may is decided with the solutions in hand)."""
    found: set[int] = set()
    for instance in instances:
        mark = decimal_mark(request, instance.request)
        if mark is not None:
            words = _differing_words(atoms(request, mark), atoms(instance.request, mark))
            found.update(words or {})
    return frozenset(found)


def witnesses(request: str, steps: Sequence[str], instances: Sequence[Instance]) -> list[Witness]:
    """The instances that witness this solution, read in its places (the others dropped)."""
    found = (_witness(request, tuple(steps), instance) for instance in instances)
    return [w for w in found if w is not None]


def kept_instances(
    request: str, steps: Sequence[str], candidates: Sequence[Instance]
) -> tuple[Instance, ...]:
    """What a new entry keeps: the candidates (newest first) that witness its solution."""
    kept: list[Instance] = []
    for candidate in candidates:
        if candidate.request == request or candidate in kept:
            continue
        if _witness(request, tuple(steps), candidate) is not None:
            kept.append(candidate)
        if len(kept) == MAX_WITNESSES:
            break
    return tuple(kept)


@lru_cache(maxsize=256)
def _witness(request: str, steps: tuple[str, ...], instance: Instance) -> Witness | None:
    """`instance` read in the places of (`request`, `steps`), or None if it is no witness.

    Cached: an entry's witnesses are read again for every variant recomputed from it."""
    mark = decimal_mark(request, instance.request, *steps, *instance.steps)
    if mark is None or not answer_holds("\n".join(instance.steps)):
        return None
    cached_atoms = atoms(request, mark)
    words = _differing_words(cached_atoms, atoms(instance.request, mark))
    if words is None:
        return None
    try:
        alignment = align(request, instance.request, *steps, *instance.steps,
                          varying=frozenset(words))
    except NotSame:
        return None
    if alignment.mark != mark:
        return None
    mine, _ = solution_atoms(steps, mark)
    theirs, _ = solution_atoms(instance.steps, mark)
    if not _same_statements(mine, theirs, alignment.renames, alignment.currency):
        return None
    return Witness(
        {slot.key: slot.new.value or Fraction(0) for slot in alignment.slots},
        words,
        tuple(a.value if a.kind == "num" else None for a in theirs),
        frozenset(i for i, word in words.items()
                  if min(len(cached_atoms[i].text), len(word)) > SHORT
                  and common_reading(cached_atoms[i].text, word) is not None),
        frozenset(i for i, _ in alignment.renamed_at if i not in alignment.word_at),
    )


def _differing_words(mine: Sequence[Atom], theirs: Sequence[Atom]) -> dict[int, str] | None:
    """Where two same-length requests have different words, or None if they cannot align."""
    if len(mine) != len(theirs):
        return None
    return {
        i: b.text for i, (a, b) in enumerate(zip(mine, theirs, strict=True))
        if a.kind == b.kind == "word" and a.text != b.text
    }


def _same_statements(
    mine: Sequence[Atom], theirs: Sequence[Atom], renames: dict[str, str],
    currency: dict[str, str],
) -> bool:
    """The two solutions are one solution: atom for atom the same, numbers of the same
    written kind apart, words renamed as the requests rename them."""
    if len(mine) != len(theirs):
        return False
    for a, b in zip(mine, theirs, strict=True):
        if a.kind != b.kind:
            return False
        if a.kind == "num":
            if a.form() != b.form() or currency.get(a.currency, a.currency) != b.currency:
                return False
        elif a.text != b.text and renames.get(a.text) != b.text:
            return False
    return True
