"""Word problems: a value's decimal places, and whether a stated value goes into it a whole
number of times, are kept as the cached answer had them unless an earlier instance had
the new side."""

from __future__ import annotations

from fractions import Fraction

import pytest

from stepchat.core.tasks.wordprob.render import decimals_needed
from tests.wordprob_cases import answers


def pencils(count: int, price: int, condition: bool = True) -> str:
    buys = ("If the pencils can be shared equally among the pupils, she also buys"
            if condition else "She also buys")
    return (f"A teacher buys {count} pencils at {price} coins each for her 4 pupils, and an "
            f"11-coin sticker for each pupil. {buys} 13 erasers at 17 coins each. How many "
            "coins does she spend?")


def bought(count: int, price: int) -> str:
    """The answer where the pencils are shared equally: the erasers are bought."""
    pencil = count * price
    return (f"Pencils: {count} * {price} = {pencil} coins.\nStickers: 4 * 11 = 44 coins.\n"
            f"Erasers: 13 * 17 = 221 coins.\n{pencil} + 44 + 221 = {pencil + 265}\n"
            f"#### {pencil + 265}")


SHARED = [(pencils(20, 3), bought(20, 3)), (pencils(28, 5), bought(28, 5))]


def test_a_count_the_unchanged_stated_count_no_longer_divides_declines() -> None:
    """19 pencils cannot be shared among 4 pupils: no erasers, which no step shows."""
    new = answers(SHARED, pencils(19, 3))
    assert not new.hit
    assert "4 would no longer go into 28" in new.notes[0]


def test_a_count_it_still_divides_is_recomputed() -> None:
    new = answers(SHARED, pencils(36, 3))
    assert new.hit and new.text.rstrip().endswith(f"#### {36 * 3 + 265}")


def test_an_instance_on_the_new_side_vouches() -> None:
    """Where the text has no such condition, an instance whose 25 pencils 4 does not
    divide was solved with the same steps: it shows the solution does not turn on it."""
    solved = [(pencils(n, p, condition=False), bought(n, p)) for n, p in ((20, 3), (28, 5))]
    without = answers(solved, pencils(23, 3, condition=False))
    assert not without.hit
    solved.append((pencils(25, 3, condition=False), bought(25, 3)))
    vouched = answers(solved, pencils(23, 3, condition=False))
    assert vouched.hit and vouched.text.rstrip().endswith(f"#### {23 * 3 + 265}")


def bill(price: str, count: int, tip: int, note: int) -> str:
    return (f"A ticket costs ${price}. Omar buys {count} tickets and pays with a ${note} "
            f"note. If the bill is a whole number of dollars he adds a ${tip} tip, otherwise "
            "no tip. How many dollars does he get back?")


def tipped(price: int, count: int, tip: int, note: int) -> str:
    spent = price * count + tip
    return (f"The bill is {price} * {count} = ${price * count}.\nWith the tip: "
            f"{price * count} + {tip} = ${spent}.\n{note} - {spent} = ${note - spent}\n"
            f"#### {note - spent}")


TIPPED = [(bill("12", 3, 2, 100), tipped(12, 3, 2, 100)),
          (bill("14", 4, 3, 90), tipped(14, 4, 3, 90))]


def test_a_price_that_gains_cents_declines() -> None:
    new = answers(TIPPED, bill("12.50", 3, 2, 100))
    assert not new.hit
    assert "would have 1 decimal place(s) where it had 0" in new.notes[0]


def test_whole_prices_are_recomputed() -> None:
    new = answers(TIPPED, bill("11", 3, 2, 80))
    assert new.hit and new.text.rstrip().endswith("#### 45")


@pytest.mark.parametrize(("value", "places"), [
    (Fraction(3), 0), (Fraction(5, 2), 1), (Fraction(123, 100), 2), (Fraction(1, 8), 3),
    (Fraction(1, 3), None), (Fraction(-7, 10), 1),
])
def test_decimal_places(value: Fraction, places: int | None) -> None:
    assert decimals_needed(value) == places

