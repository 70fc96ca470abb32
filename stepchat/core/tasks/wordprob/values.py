"""Which values a solution may use without a slot stating them, and the other written
forms and one-step neighbours of a changed value: what the recomputation rule checks a
constant against."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

CONVENTIONAL = frozenset(Fraction(v) for v in (
    *range(2, 13), 14, 15, 16, 20, 24, 25, 28, 30, 31, 36, 40, 48, 50, 52, 60, 90, 100, 120,
    144, 180, 360, 365, 366, 1000, 1024, 3600,
))
"""Values a solution often uses without any slot stating them (units of time, counting,
percent, dozens, angles): a changed slot with such a value may be one of them where the
solution uses it a second time, so only other values may be used by several computations."""

UNIT_CONSTANTS = frozenset(Fraction(v) for v in (7, 12, 24, 52, 60, 100, 365, 1000, 3600))
"""Constants of unit conversions (days in a week, months, hours, weeks in a year,
minutes, per cent, days, thousands, seconds in an hour): the closed table of constants a
solution may use with changed values."""

CONVERSIONS = UNIT_CONSTANTS | frozenset(Fraction(v) for v in (
    8, 10, 14, 15, 16, 20, 25, 30, 36, 40, 144, 168, 500, 1024, 1440, 2000, 5280,
))
"""Factors a solution may convert a value by in words, with no computation written: the
table's units and pints, decades, fortnights, quarter hours and quincenas, ounces, scores,
quarters, months of days, yards of inches, pounds, gross, hours in a week, reams, kibi,
minutes in a day, tons of pounds, feet in a mile. Read only to make a number fit one more
role (which can only make a request decline), never to account for a constant."""

CALENDAR_CONSTANTS = frozenset(Fraction(v) for v in (24, 52, 60, 365, 3600))
"""Constants of the table whose value depends on the date: 366 days in a leap year, 53
of some weekdays in a year, 23 or 25 hours on a day the clocks change, 61 seconds in a
minute with a leap second. Any stated whole number may be a year (2024, the Buddhist 2567,
Reiwa 6) and a day may be named in words (Easter Sunday), so they are kept only where no
stated whole number changed. Seven days in a week, twelve months, 100 and 1000 are fixed."""

IDENTITY_VALUES = (Fraction(0), Fraction(1))
"""A stated 0 or 1 looks exactly like the implicit ones ("the first hour", "1 x 15"), so a
changed slot with such a value is never mapped."""


def derived_forms(values: Sequence[Fraction]) -> set[Fraction]:
    """Other written forms of changed values a solution may use without naming the slot."""
    forms: set[Fraction] = set()
    for v in values:
        forms.update({v, v * 100, v / 100, 100 - v})
        if v:
            forms.add(1 / v)
        if v.denominator != 1:
            forms.update({Fraction(v.numerator), Fraction(v.denominator), 1 - v})
    return forms


def one_step_from(value: Fraction, pool: Sequence[tuple[Fraction, bool]]) -> bool:
    """Whether `value` is one operation on two pool values, one of which changes."""
    values = {v for v, _ in pool}
    changing = {v for v, moves in pool if moves}
    for a in changing:
        candidates = {value - a, a - value, value + a}
        if a:
            candidates.add(value / a)
        if value:
            candidates.add(a / value)
        candidates.add(value * a)
        if candidates & values:
            return True
    return False


def sign(value: Fraction) -> int:
    return (value > 0) - (value < 0)


def order(a: Fraction | None, b: Fraction | None) -> int:
    if a is None or b is None:
        return 0
    return (a > b) - (a < b)


ROUNDING_UNITS = tuple(Fraction(10) ** k for k in range(-2, 7))


def rounds_to(value: Fraction, numbers: Sequence[Fraction]) -> bool:
    """Whether one rounding (down, up, or to the nearest) to one power of ten takes every
    number to `value`, and changes at least one of them. A unit larger than a number does
    not count (100 is no rounding of 60)."""
    if not numbers or all(x == value for x in numbers):
        return False
    smallest = min(abs(x) for x in numbers)
    for unit in ROUNDING_UNITS:
        if unit > smallest or (value / unit).denominator != 1:
            continue
        if all(value <= x < value + unit for x in numbers):
            return True  # down
        if all(value - unit < x <= value for x in numbers):
            return True  # up
        if all(abs(x - value) * 2 <= unit for x in numbers):
            return True  # to the nearest
    return False


MINUTES = Fraction(60)
"""Where the two decimals of a time written h.mm (8.45 Uhr, 10.15 am) carry to the hour."""


def written_in_hundredths(text: str) -> bool:
    """Whether a number is written with exactly two decimals, as 8.45 for 8:45 is."""
    digits = "".join(c for c in text if c.isdigit() or c in ".,")
    return re.fullmatch(r"\d+[.,]\d\d", digits) is not None


def clock_minutes(value: Fraction) -> Fraction:
    """The value's hundredths past its whole part: the minutes, if it is a time h.mm."""
    return (value - (value.numerator // value.denominator)) * 100
