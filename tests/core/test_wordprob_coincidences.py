"""Word problems: a solved instance right by a tie or a 0 neither vouches for an order
nor is recomputed from, and a unit's value a computation takes keeps its order against
the stated values."""

from __future__ import annotations

from fractions import Fraction

from stepchat.core.tasks.wordprob.coincidences import coincidence
from tests.wordprob_cases import answers

F = Fraction


def test_two_values_an_instance_ties_and_the_new_request_tells_apart_coincide() -> None:
    assert coincidence([(F(9), F(8)), (F(6), F(8))]) == (1, 0)


def test_a_tie_the_new_request_has_too_is_no_coincidence() -> None:
    assert coincidence([(F(5), F(8)), (F(5), F(8)), (F(3), F(2))]) is None


def test_a_zero_or_a_one_only_the_instance_has_coincides() -> None:
    assert coincidence([(F(7), F(3)), (F(12), F(0))]) == (1, None)
    assert coincidence([(F(4), F(1))]) == (0, None)
    assert coincidence([(F(0), F(0)), (F(1), F(1))]) is None


def test_a_value_the_instance_does_not_state_is_skipped() -> None:
    assert coincidence([(F(9), None), (F(6), F(8)), (F(4), F(8))]) == (2, 1)


def picks(ana: int, ben: int, high: int, low: int) -> str:
    return (f"Ana picks {ana} kg of apples and Ben picks {ben} kg. Whoever picks more apples "
            f"is paid ${high} per kg, and the other is paid ${low} per kg. How many dollars "
            "do they get together?")


def paid(ana: int, ben: int, ana_rate: int, ben_rate: int) -> str:
    """Written as every solution of the problem is: Ana's line first."""
    return (f"Ana: {ana} * {ana_rate} = {ana * ana_rate}\nBen: {ben} * {ben_rate} = "
            f"{ben * ben_rate}\nTogether: {ana * ana_rate} + {ben * ben_rate} = "
            f"{ana * ana_rate + ben * ben_rate}\n#### {ana * ana_rate + ben * ben_rate}")


def test_an_instance_with_both_rates_equal_vouches_for_no_order() -> None:
    """Ana picked more in the cached request; the instance where she picked less was paid
    one rate twice, so it shows nothing of who gets the higher rate."""
    solved = [(picks(16, 5, 5, 2), paid(16, 5, 5, 2)), (picks(8, 13, 8, 8), paid(8, 13, 8, 8))]
    new = answers(solved, picks(10, 17, 9, 6))
    assert not new.hit
    assert "8 and $8 are equal" in new.notes[0] or "changed their order" in new.notes[0]


def test_an_instance_with_both_rates_equal_is_not_recomputed_from() -> None:
    solved = [(picks(7, 12, 8, 8), paid(7, 12, 8, 8)), (picks(18, 7, 4, 2), paid(18, 7, 4, 2))]
    new = answers(solved, picks(10, 13, 6, 3))
    assert not new.hit


def test_distinct_rates_in_every_instance_serve_the_same_order() -> None:
    solved = [(picks(16, 5, 5, 2), paid(16, 5, 5, 2)), (picks(14, 9, 7, 3), paid(14, 9, 7, 3))]
    new = answers(solved, picks(11, 6, 6, 4))
    assert new.hit and new.text.endswith("#### 90")


def hotel(rate: int, breakfast: int, nights: int) -> str:
    return (f"A hotel room costs ${rate} a night, but a stay of more than a week is charged "
            f"as one week. Breakfast costs ${breakfast} each morning. Ana stays {nights} "
            "nights and has breakfast every morning. How many dollars does she pay?")


def capped(rate: int, breakfast: int, nights: int) -> str:
    room, meals = 7 * rate, nights * breakfast
    return (f"Room: 7 * {rate} = {room}\nBreakfast: {nights} * {breakfast} = {meals}\n"
            f"Total: {room} + {meals} = {room + meals}\n#### {room + meals}")


def test_a_count_below_a_units_value_a_computation_takes_declines() -> None:
    """Every solved stay was longer than a week; 5 nights are not charged as 7."""
    solved = [(hotel(68, 12, 10), capped(68, 12, 10)), (hotel(88, 14, 9), capped(88, 14, 9))]
    new = answers(solved, hotel(62, 14, 5))
    assert not new.hit
    assert "changed their order" in new.notes[0]
    assert answers(solved, hotel(62, 14, 11)).text.endswith("#### 588")


def tipped(ana: int, ben: int, high: int, low: int, tip: int) -> str:
    return (f"Ana picks {ana} kg of apples and Ben picks {ben} kg. Whoever picks more apples "
            f"is paid ${high} per kg, and the other is paid ${low} per kg plus a ${tip} tip "
            "per kg. How many dollars do they get together?")


def tipped_paid(ana: int, ben: int, high: int, low: int, tip: int) -> str:
    """Ana's line first, paid the higher rate, Ben the lower one with the tip."""
    a, b = ana * high, ben * (low + tip)
    return (f"Ana: {ana} * {high} = {a}\nBen: {ben} * ({low} + {tip}) = {b}\n"
            f"Together: {a} + {b} = {a + b}\n#### {a + b}")


def test_an_instance_whose_rate_ties_a_sum_the_solution_forms_vouches_for_no_order() -> None:
    """$9 against $5 + $4: the instance where Ana picked less is right by the tie."""
    solved = [(tipped(14, 9, 8, 3, 2), tipped_paid(14, 9, 8, 3, 2)),
              (tipped(7, 12, 9, 5, 4), tipped_paid(7, 12, 9, 5, 4))]
    assert not answers(solved, tipped(6, 11, 8, 3, 2)).hit


def test_a_part_a_result_or_a_constant_can_be_the_tie() -> None:
    """The wider reading names what ties: the coincidence is among every quantity read."""
    assert coincidence([(F(8), F(9)), (F(5), F(9))]) == (1, 0)  # $9 and (5 + 4)
    assert coincidence([(F(1, 2), F(1, 2)), (F(3, 10), F(1, 2))]) == (1, 0)  # 0,5 and 50%
    assert coincidence([(F(1, 2), F(1))]) == (0, None)  # 100% as hundredths
