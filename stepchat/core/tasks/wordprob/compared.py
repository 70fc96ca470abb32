"""Orders a solution's words may compare, kept as the cached answer had them.

Recomputation redoes the arithmetic of a cached answer; a choice its words made does not
have to hold for new values: "she sells more on Saturday than on Sunday, so she gets the
bonus", "the pens cost more in total than the notebooks, so the discount applies", "shop
A has the lower price per pen". Such a choice compares two quantities of the problem:
stated values, results the solution writes, or parts of a computation it never writes on
their own (`3 × 20` against `4 × 5` inside one sum, a price per pen `18 / 4` inside
`40 × 18 / 4`). This reader does not read the words, so it cannot tell which orders a
choice rests on, and it keeps them all: every pair among the stated values, the results
and the parts of each computation (`quantities.groupings`) keeps the order it had in the
cached answer. What is forgiven is closed:
- orders that one earlier instance, solved with the same solution and the same words, had
  at once, every changed pair together: instances that each show one changed pair apart
  show nothing of a condition on two of them.
Nothing else is. Exchanging the two values to see whether the answer moves proves
nothing: a bonus for selling more on Saturday than on Sunday is added the same way
whichever day sold more. Two values that become equal decline even where an instance had
a tie: a rule in words for a tie (a draw, the same price) is its own rule.

The gaps left (`docs/word-problems.md`, "What is not done"): a quantity no computation
forms is not compared (a multiple, "more than twice as many"; an average; a ratio never
written; minutes against hours). And an instance is taken when it matches the new request
on the changed pairs, whatever it had on the others, so an "or" of a changed comparison
and an unchanged one that the instance had the other way is served; an instance that must
match on every pair would decline a quarter of what is served.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import (
    Value,
    had_every_order,
    is_percent,
    numbers,
    old_and_new,
    result_values,
    slot_values,
    sub_value,
)
from stepchat.core.tasks.wordprob.quantities import groupings
from stepchat.core.tasks.wordprob.solution import Bin, Expr, Neg
from stepchat.core.tasks.wordprob.values import order

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass


def check_compared(p: RolePass) -> None:
    stated_and_results = [*slot_values(p).values(), *result_values(p).values()]
    parts = _parts(p)
    olds = [v.old for v in stated_and_results] + [old for old, _ in parts.values()]
    news = [v.new for v in stated_and_results] + [new for _, new in parts.values()]
    if _ranks(olds) == _ranks(news):
        return  # every pair in its order: the common case, without comparing each pair
    values = stated_and_results + _part_values(p, parts)
    flipped = [(a, b) for a, b in combinations(values, 2) if not a.kept_order(b)]
    for a, b in flipped:
        if order(a.new, b.new) == 0:
            raise Declined(f"{a.text} and {b.text} become equal: a rule in words for a tie "
                           "(a draw, the same price) would not hold")
    if had_every_order(flipped, len(p.witnesses)):
        return
    a, b = flipped[0]
    raise Declined(f"{a.text} and {b.text} changed their order: a choice the words made "
                   "between them would not hold")


def _ranks(values: list[Fraction]) -> list[int]:
    """Each value's place among `values`, equal values at one place: two lists of values
    have every pair in the same order exactly when their places are the same."""
    ordered = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0] * len(values)
    place = 0
    for k, index in enumerate(ordered):
        if k and values[index] != values[ordered[k - 1]]:
            place += 1
        ranks[index] = place
    return ranks


Part = tuple[Expr, frozenset[int]]
"""A part of a computation and the numbers in it read as hundredths."""


def _parts(p: RolePass) -> dict[Part, tuple[Fraction, Fraction]]:
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


def _as_hundredths(p: RolePass, atom: int) -> bool:
    """Whether the number at `atom` is a percent its own line reads as hundredths (a part
    may take numbers from the earlier lines whose results it uses)."""
    return p.scaled[p.place[atom][0]] and is_percent(p, atom)


def _part_values(p: RolePass, parts: Iterable[Part]) -> list[Value]:
    """The parts named by how the solution writes them, with their values in each earlier
    instance too: read only where an order changed, since instances then decide."""
    found = []
    for key in parts:
        value = sub_value(p, *key)
        if value is not None:
            found.append(replace(value, text=_written(p, key[0])))
    return found


def _written(p: RolePass, expr: Expr) -> str:
    """`expr` in the solution's own numbers, bracketed where it groups: `(18 / 4)`."""
    if isinstance(expr, Neg):
        return f"-{_written(p, expr.operand)}"
    if isinstance(expr, Bin):
        return f"({_written(p, expr.left)} {expr.op} {_written(p, expr.right)})"
    return p.sol.atoms[expr.atom].text
