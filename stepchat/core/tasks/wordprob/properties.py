"""Two properties of a value a condition in words may test that no order shows.

A choice in words may rest on what a value is rather than on its size: "if the sweets
can be shared equally among the 4 children", "if the chairs fill rows of 8", "if the
bill is a whole number of dollars", "rounded to the nearest dime". No computation of the
cached answer forms the quotient or the rounding (the words chose the branch that needs
none), so recomputation cannot see the condition turn. Two such properties are kept as
the cached answer had them:
- how many decimal places each changed stated value and each result has (none, one,
  two, three, or more);
- whether each stated value goes into each stated value and each result a whole number
  of times (`4.5 / 0.75` too), where one of the two changed: 24 sweets for 4 children
  and then for 5, or 19 sweets for the same 4.

An earlier instance solved with the new request's words vouches where it had every
property that turns on the new request's side at once, as for orders (`compared`): two
instances that each had one of them show nothing of "teams of four or of six".

What is forgiven, and listed in `docs/word-problems-open.jsonl`: a property against a
number no stated value keeps, or none at all, tested in words: evenness (a divisor 2
the text never states), a multiple of five or ten, a last digit, a prime, a square, a
weekday (a residue of 7); a divisor or a value no computation forms (a sum, a product,
one more, a value in another unit, splitting to the cent); and two values that both
changed, one going into the other. Kept like the two above, they decline 12% (two
changed values) to 73% (every such property) of the English numbers variants served,
since random values turn them at every draw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import Value, result_values, slot_values

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass

MAX_PLACES = 4
"""Decimal places read; a value with more (a third) is counted as having this many."""

Reading = Callable[[Value], Fraction | None]
"""Where one value is read: the cached answer, the new request or one earlier instance."""


@dataclass(frozen=True)
class Turned:
    """A property the new request has on the other side from the cached answer."""

    why: str
    now: object
    at: Callable[[Reading], object]
    """The property where the values are read as given (None where one is unread)."""


def check_properties(p: RolePass) -> None:
    stated = list(slot_values(p).values())
    values = [*stated, *result_values(p).values()]
    turned = [*_places_turned(v for v in values if v.old != v.new),
              *_divisors_turned(stated, values)]
    if not turned:
        return
    for k in range(len(p.witnesses)):
        def seen(value: Value, k: int = k) -> Fraction | None:
            return value.seen[k]
        if all(t.at(seen) == t.now for t in turned):
            return
    raise Declined(turned[0].why)


def decimal_places(value: Fraction) -> int:
    """The decimal places `value` is written with, at most `MAX_PLACES`."""
    for places in range(MAX_PLACES):
        if (value * 10 ** places).denominator == 1:
            return places
    return MAX_PLACES


def _old(value: Value) -> Fraction:
    return value.old


def _new(value: Value) -> Fraction:
    return value.new


def _places_turned(values: Iterable[Value]) -> list[Turned]:
    found = []
    for value in values:
        def at(read: Reading, value: Value = value) -> object:
            seen = read(value)
            return None if seen is None else decimal_places(seen)
        old, new = at(_old), at(_new)
        if old != new:
            found.append(Turned(f"{value.text} would have {new} decimal place(s) where it had "
                                f"{old}: a condition in words on it (a whole number of "
                                "dollars, a rounding already exact) would not hold", new, at))
    return found


def _divisors_turned(stated: list[Value], values: list[Value]) -> list[Turned]:
    """Each pair of a stated value and a value it goes into or not, one of them changed."""
    found = []
    for divisor in stated:
        if divisor.old <= 0 or divisor.old == 1 or divisor.new <= 0 or divisor.new == 1:
            continue
        for value in values:
            if value is divisor or (value.old == value.new) == (divisor.old == divisor.new):
                continue
            def at(read: Reading, value: Value = value, divisor: Value = divisor) -> object:
                a, b = read(value), read(divisor)
                return None if a is None or b is None or b <= 0 or a <= 0 else (
                    (a / b).denominator == 1)
            was, now = at(_old), at(_new)
            if was is not None and now is not None and was != now:
                found.append(Turned(
                    f"{divisor.text} would {'' if now else 'no longer '}go into "
                    f"{value.text} a whole number of times: a condition in words on it "
                    "(shared equally, full rows) would not hold", now, at))
    return found
