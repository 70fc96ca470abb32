"""Orders a solution's words may compare, kept as the cached answer had them.

Recomputation redoes the arithmetic of a cached answer; a choice its words made does not
have to hold for new values: "she sells more on Saturday than on Sunday, so she gets the
bonus", "the pens cost more in total than the notebooks, so the discount applies", "shop
A has the lower price per pen". Such a choice compares two quantities of the problem:
stated values, results the solution writes, or parts of a computation it never writes on
their own (`3 × 20` against `4 × 5` inside one sum, a price per pen `18 / 4` inside
`40 × 18 / 4`). This reader does not read the words, so it cannot tell which orders a
choice rests on, and it keeps them all: every pair among the stated values, the results,
the unit values a computation takes (a week's 7 in place of a count a cap in words
stops at) and the parts of each computation (`quantities.groupings`) keeps the order it
had in the cached answer; so do quantities a condition may name that no computation forms: the
mean of each sum (`(24 + 15 + 30) / 3`, "more than the average of the three"), each
value times each multiplier or part word of the request ("more than half as many cups
on Saturday as on Sunday"), and each of these plus and times each stated value no
computation takes ("more than 3 times as many"). What is forgiven is closed:
- orders that one earlier instance, solved with the same solution and the same words, had
  at once, every changed pair together: instances that each show one changed pair apart
  show nothing of a condition on two of them; and an instance right by a tie or a 0
  shows nothing at all (`coincidences`).
Nothing else is. Exchanging the two values to see whether the answer moves proves
nothing: a bonus for selling more on Saturday than on Sunday is added the same way
whichever day sold more. Two values that become equal decline even where an instance had
a tie: a rule in words for a tie (a draw, the same price) is its own rule.

The gaps left (`docs/word-problems.md`, "What is not done"): another quantity no
computation forms is not compared (a ratio never written; minutes against hours; a
difference of differences; a value a computation takes, named again in a condition: "an
extra hour"). And an instance is taken when it matches the new request
on the changed pairs, whatever it had on the others, so an "or" of a changed comparison
and an unchanged one that the instance had the other way is served; an instance that must
match on every pair would decline a quarter of what is served.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import (
    Value,
    is_percent,
    numbers,
    old_and_new,
    order_value,
    result_values,
    scaled,
    slot_values,
    sub_value,
    taken_constants,
    unused_slots,
    written,
)
from stepchat.core.tasks.wordprob.quantities import added_terms, groupings
from stepchat.core.tasks.wordprob.solution import Expr
from stepchat.core.tasks.wordprob.wordfactors import accounted, worded

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass


MAX_COMPARED = 1500
"""Quantities whose every pair is read in the earlier instances where an order changed;
past it the request declines: the pairs grow as its square (1,500 take about a second)."""


def check_compared(p: RolePass) -> None:
    stated = slot_values(p)
    parts = p.parts
    means = _means(p, parts)
    quick = _derived(p, stated, _compared(p, stated, parts, means, with_instances=False))
    olds, news = _ranks([v.old for v in quick]), _ranks([v.new for v in quick])
    if olds == news:
        return  # every pair in its order: the common case, without comparing each pair
    if len(quick) > MAX_COMPARED:
        raise Declined(f"an order changed among {len(quick)} quantities: too many to ask "
                       "the earlier instances which of them a choice in words may rest on")
    flipped = _flipped(olds, news)
    for i, j in flipped:
        if news[i] == news[j]:
            raise Declined(f"{quick[i].text} and {quick[j].text} become equal: a rule in "
                           "words for a tie (a draw, the same price) would not hold")
    # The same quantities in the same places, now with their values in each instance.
    values = _derived(p, stated, _compared(p, stated, parts, means, with_instances=True))
    if any(_had_every_order(values, w, news, flipped) for w in range(len(p.witnesses))):
        return
    i, j = flipped[0]
    raise Declined(f"{values[i].text} and {values[j].text} changed their order: a choice the "
                   "words made between them would not hold")


def _flipped(olds: list[int], news: list[int]) -> list[tuple[int, int]]:
    """The pairs of places whose order differs between `olds` and `news`, first place
    first, in order. Read as two sign matrices: a request can have a million pairs."""
    import numpy as np  # only where an order changed: the common case never needs it

    old, new = np.array(olds), np.array(news)
    differ = np.sign(old[:, None] - old[None, :]) != np.sign(new[:, None] - new[None, :])
    first, second = np.nonzero(np.triu(differ, 1))
    return list(zip(first.tolist(), second.tolist(), strict=True))


def _had_every_order(values: list[Value], instance: int, news: list[int],
                     pairs: list[tuple[int, int]]) -> bool:
    """Whether one earlier instance had every pair of places in the order it has now."""
    import numpy as np

    present = [(k, seen) for k, v in enumerate(values)
               if (seen := v.seen[instance]) is not None]
    places = np.full(len(values), -1)
    for (k, _), place in zip(present, _ranks([seen for _, seen in present]), strict=True):
        places[k] = place
    first, second = np.array(pairs).T
    now = np.sign(np.array(news)[first] - np.array(news)[second])
    had = np.sign(places[first] - places[second])
    return bool(np.all((places[first] >= 0) & (places[second] >= 0) & (had == now)))


def _compared(
    p: RolePass, stated: dict[int, Value], parts: dict[Part, tuple[Fraction, Fraction]],
    means: dict[Part, int], *, with_instances: bool,
) -> list[Value]:
    """The stated values, the results, the parts and the means. The parts' and means'
    values in the earlier instances are read only `with_instances`: only where an order
    changed do the instances decide, and reading them is most of the check's time."""
    values = [*stated.values(), *result_values(p).values(), *_units(p)]
    if with_instances:
        part_values = {key: _part_value(p, key, pair) for key, pair in parts.items()}
        return values + list(part_values.values()) + _mean_values(part_values, means)
    values = [Value(v.text, v.old, v.new, ()) for v in values]
    values += [Value(written(p, key[0]), old, new, ()) for key, (old, new) in parts.items()]
    return values + [Value(f"{written(p, key[0])} / {size}", parts[key][0] / size,
                           parts[key][1] / size, ()) for key, size in means.items()]


def _units(p: RolePass) -> list[Value]:
    """Each value of the unit table a computation takes, once: a cap in words puts one in
    place of a stated count ("a stay of more than a week is charged as one week": `7 *
    68`), and a count that falls below it no longer takes it. A constant a multiplier or
    part word accounts for is compared as the word's factor (`_derived`)."""
    return [order_value(p, p.sol.atoms[i].text, value, value, (value,) * len(p.witnesses))
            for value, i in taken_constants(p, frozenset(accounted(p, p.factors))).items()]


def _derived(p: RolePass, stated: dict[int, Value], values: list[Value]) -> list[Value]:
    """`values` and what a condition may make of them that no computation forms: each
    value times each multiplier or part word of the request ("more than twice as many",
    "less than half as much"), used by the solution or not: a constant no word states (a
    round trip's 2) can take a word's place in the count of uses; then each of these plus
    and times each stated value the solution does not use ("more than 3 times as many",
    "ten more than twice as many"; a difference or quotient against a third value is the
    same comparison as a sum or product against it)."""
    factors = sorted(_word_factors(p) - {Fraction(1)})
    found = list(values)
    for factor in factors:
        found += [_combined(_constant(factor, v), v, "*") for v in values]
    places = list(stated)  # `values` begins with the stated values, in this order
    made = list(found)  # "more than ten more than twice as many": a multiple, then a sum
    for k in unused_slots(p):
        for value in _readings(p, k, values[places.index(k)]):
            found += [_combined(value, v, op) for v in made if v is not value for op in "+*"]
    return found


def _word_factors(p: RolePass) -> set[Fraction]:
    """What the request's multiplier and part words multiply by: n, p/q, and a part over
    the whole, 1 + p/q ("a third more" than a value is 4/3 of it, "one and a half times"
    3/2 of it)."""
    found: set[Fraction] = set()
    for word in worded(p.factors):
        if word.kind == "times":
            found.add(Fraction(word.value))
        else:
            part = Fraction(word.numerator, word.value)
            found |= {part, 1 + part}
    return found


def _readings(p: RolePass, k: int, value: Value) -> list[Value]:
    """The stated value at slot `k`, and, for a percent, its hundredths too ("more than
    15% of the bill" is 0.15 times it)."""
    if not p.slots[k].old.percent:
        return [value]
    return [value, scaled(value, Fraction(1, 100))]


def _combined(left: Value, right: Value, op: str) -> Value:
    """`left op right` in the cached answer, the new one and each instance."""
    def at(a: Fraction, b: Fraction) -> Fraction:
        return a + b if op == "+" else a * b
    seen = tuple(None if a is None or b is None else at(a, b)
                 for a, b in zip(left.seen, right.seen, strict=True))
    return Value(f"{left.text} {'×' if op == '*' else op} {right.text}",
                 at(left.old, right.old), at(left.new, right.new), seen)


def _constant(value: Fraction, like: Value) -> Value:
    """A word's factor as a value that is the same everywhere `like` is read."""
    return Value(f"{value}", value, value, (value,) * len(like.seen))


def _ranks(values: list[Fraction]) -> list[int]:
    """Each value's place among `values`, equal values at one place: two lists of values
    have every pair in the same order exactly when their places are the same."""
    # Rounding to a float keeps the order (it never inverts two values), so the float
    # sorts and the exact value only breaks a float's ties: exact, without comparing
    # fractions a million times.
    try:
        keys: list[tuple[float, Fraction]] | list[Fraction] = [(float(v), v) for v in values]
    except OverflowError:  # past a float's range: the exact values alone
        keys = values
    ordered = sorted(range(len(values)), key=keys.__getitem__)
    ranks = [0] * len(values)
    place = 0
    for k, index in enumerate(ordered):
        if k and values[index] != values[ordered[k - 1]]:
            place += 1
        ranks[index] = place
    return ranks


Part = tuple[Expr, frozenset[int]]
"""A part of a computation and the numbers in it read as hundredths."""


def computed_parts(p: RolePass) -> dict[Part, tuple[Fraction, Fraction]]:
    """Each part of each computation, once, with its cached and new values; a percent is
    read as hundredths where its own line reads it so (`800 × 10%` is 80)."""
    found: dict[Part, tuple[Fraction, Fraction]] = {}
    for statement in p.statements:
        if not statement.links:
            continue
        for whole in statement.parts:
            for part in groupings(p, whole.expr):
                key = (part, frozenset(a for a in numbers(part) if _as_hundredths(p, a)))
                if key not in found:
                    pair = old_and_new(p, *key)
                    if pair is not None:
                        found[key] = pair
    return found


def _means(p: RolePass, parts: dict[Part, tuple[Fraction, Fraction]]) -> dict[Part, int]:
    """Each part that adds its terms, with how many: "more than the average of the three"
    compares one term with the sum over three, which no computation forms."""
    return {key: size for key in parts if (size := added_terms(p, key[0]))}


def _mean_values(parts: dict[Part, Value], means: dict[Part, int]) -> list[Value]:
    """The means, with their values in each earlier instance, from their sums'."""
    found = []
    for key, size in means.items():
        value = parts[key]
        found.append(replace(scaled(value, Fraction(1, size)), text=f"{value.text} / {size}"))
    return found


def _as_hundredths(p: RolePass, atom: int) -> bool:
    """Whether the number at `atom` is a percent its own line reads as hundredths (a part
    may take numbers from the earlier lines whose results it uses)."""
    return p.scaled[p.place[atom][0]] and is_percent(p, atom)


def _part_value(p: RolePass, key: Part, pair: tuple[Fraction, Fraction]) -> Value:
    """One part, named by how the solution writes it, with its values in each earlier
    instance (read only where an order changed, since instances then decide); where an
    instance cannot be read (a division by zero there), no instance vouches for its
    orders, and it is still compared."""
    value = sub_value(p, *key)
    if value is None:
        value = Value("", *pair, (None,) * len(p.witnesses))
    return replace(value, text=written(p, key[0]))
