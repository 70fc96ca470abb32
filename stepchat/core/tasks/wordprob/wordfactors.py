"""Constants a request's multiplier and fraction words account for ("twice", "half").

A solution's 2 in `2 * 15` may be the "twice" of "twice as many", or a gcd, a remainder,
a pair, a round trip: reasoning about the values that changes with them. An unchanged
word accounts for a constant only where nothing else could:
- the constant is used as the word says: a multiplier n ("twice", "to gange") is a factor
  n of a product; a part 1/q ("half", "ein Drittel") is a divisor q (`80 / 2`, with its
  numerator p in `x * 2 / 3` or `1/2`) or a factor 1/q (`* 0.5`, `50% *`). A 2 subtracted
  (`20 - 2`) or a 2 of a sum is no "half", whatever the words say;
- the uses match the words one to one, by kind, value and numerator: a "half" written
  once accounts for one divisor 2, not two, and a "half" the solution does not use as
  such while it writes a 2 somewhere (a remainder beside an unused "half") declines, as
  does a use no word gives. A word whose value the solution never writes accounts for
  nothing and is left out ("She visits twice a week" beside a sum);
- a value equal to the word's number that the request also states (a digit 2 beside
  "twice"), or that the solution also computes, fits two roles and declines;
- the constant is not what its computation's other operands give in one step (the gcd 2
  of `4 * 6 / 2`, their difference or quotient) unless the earlier instances show it
  constant.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.multwords import FactorWord
from stepchat.core.tasks.wordprob.reasoned import check_not_reasoned
from stepchat.core.tasks.wordprob.solution import Num, Operand, operands

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass

Use = tuple[str, int, int]
"""(kind, n or q, numerator): what one word states, and what one use of it must be."""


def accounted(p: RolePass, factors: list[FactorWord]) -> set[int]:
    """The constant atoms the words account for; Declined when words and uses disagree."""
    words = Counter(_stated_use(w) for w in worded(factors) if w.accounts)
    if not words:
        return set()
    kept = [(use, covered) for use, covered in _uses(p) if use in words]
    uses = Counter(use for use, _ in kept)
    written = _written_values(p)
    for use in words:
        if words[use] != uses[use] and (uses[use] or _values_of(use) & written):
            raise Declined(_mismatch(use, words[use], uses[use]))
    words = Counter({use: n for use, n in words.items() if uses[use]})
    _check_two_roles(p, set(words))
    for _, covered in kept:
        check_not_reasoned(p, covered[0])
    return {a for _, covered in kept for a in covered}


def worded(factors: list[FactorWord]) -> list[FactorWord]:
    """The words that state their value themselves: a cardinal the request states as a
    value ("3 times") is that value, which changes, not a word."""
    return [w for w in factors if not (w.kind == "times" and w.stated)]


def _uses(p: RolePass) -> list[tuple[Use, list[int]]]:
    """Each constant used as a multiplier or a part, with the atoms it covers; a
    numerator counts with its divisor, not on its own."""
    every = [
        found for statement in p.statements if statement.links
        for part in statement.parts for place in operands(part.expr)
        if (found := _use(p, place)) is not None
    ]
    numerators = {a for _, covered in every for a in covered[1:]}
    return [(use, covered) for use, covered in every if covered[0] not in numerators]


def _values_of(use: Use) -> set[Fraction]:
    kind, value, numerator = use
    return {Fraction(value)} if kind == "times" else {Fraction(value),
                                                       Fraction(numerator, value)}


def _written_values(p: RolePass) -> set[Fraction]:
    """Every value the solution writes, percent signs read as hundredths too."""
    found: set[Fraction] = set()
    for atom in p.sol.atoms:
        if atom.kind == "num" and atom.value is not None:
            found |= {atom.value, atom.value / 100} if atom.percent else {atom.value}
    return found


def _stated_use(word: FactorWord) -> Use:
    return (word.kind, word.value, word.numerator)


def _use(p: RolePass, place: Operand) -> tuple[Use, list[int]] | None:
    """What a constant at `place` is used as, if it is a multiplier's or a part's use,
    with the atoms it covers (a part's numerator with its divisor)."""
    role = p.roles.get(place.atom)
    if role is None or role.sources:
        return None
    atom = p.sol.atoms[place.atom]
    value = role.old / 100 if atom.percent else role.old
    if place.op == "*" and value.denominator == 1 and value >= 2:
        return ("times", int(value), 1), [place.atom]
    if place.op == "*" and 0 < value < 1:
        return ("part", value.denominator, value.numerator), [place.atom]
    if place.op == "/" and place.right and value.denominator == 1 and value >= 2:
        numerator, covered = _numerator(p, place.sibling, value)
        return ("part", int(value), numerator), [place.atom, *covered]
    return None


def _numerator(p: RolePass, left: object, q: Fraction) -> tuple[int, list[int]]:
    """The p of `p/q` or `x * p / q` (a whole number under q), else 1 (`80 / 2`)."""
    if not isinstance(left, Num):
        right = getattr(left, "right", None)
        if getattr(left, "op", None) != "*" or not isinstance(right, Num):
            return 1, []
        left = right
    assert isinstance(left, Num)
    value = p.roles[left.atom].old
    if value.denominator == 1 and 0 < value < q:
        return int(value), [] if p.roles[left.atom].sources else [left.atom]
    return 1, []


def _mismatch(use: Use, words: int, uses: int) -> str:
    kind, value, numerator = use
    what = f"a factor {value}" if kind == "times" else (
        f"a part {numerator}/{value}")
    return (f"the request's words state {what} {words} time(s) and the solution uses it "
            f"{uses} time(s): a constant may stand for something else")


def _check_two_roles(p: RolePass, used: set[Use]) -> None:
    """A word's value that the request also states, or the solution also computes, could
    be either: the one-to-one count cannot tell them apart."""
    values: set[Fraction] = set()
    for kind, value, numerator in used:
        values.add(Fraction(value))
        if kind == "part":
            values.add(Fraction(numerator, value))
    for slot in p.slots:  # the cached roles are read with the cached values only
        if slot.old.value is not None and slot.old.value in values:
            raise Declined(f"{slot.old.text} is stated and a multiplier or fraction word "
                           "gives the same value: it fits two roles")
    for j in p.results:
        if p.roles[j].old in values:
            raise Declined(f"{p.sol.atoms[j].text} is a result and a multiplier or "
                           "fraction word gives the same value: it fits two roles")
