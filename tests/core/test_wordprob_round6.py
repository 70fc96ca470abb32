"""Word problems, round six: what earlier instances and the solution's own lines now show.

Each rule here serves what round five declined, and each test also holds the decline
that still applies where the evidence is missing.
"""

from __future__ import annotations

import pytest

from stepchat.bench.wordprob.reference import ReferenceBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.wordprob.recompute import Declined
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore
from tests.wordprob_cases import recompute

AGES = ("Mia and Emma are {gap} years apart in age. Mia, who is younger than Emma, is {mia} "
        "years old. What is the average of their ages?")


def ages_solution(gap: int, mia: int) -> str:
    emma = mia + gap
    total = emma + mia
    return (f"Emma is {mia} + {gap} = {emma} years old.\n"
            f"The sum of their ages is {emma} + {mia} = {total} years.\n"
            f"The average age of the two is {total} / 2 = {total // 2} years.\n#### {total // 2}")


def ages(gap: int, mia: int) -> str:
    return AGES.format(gap=gap, mia=mia)


def engine_for(requests: list[tuple[str, str]]) -> StepCache:
    return StepCache(ReferenceBackend(dict(requests)), HashedEmbedder(), MemoryStore())


def test_a_constant_no_unit_gives_declines_without_two_instances() -> None:
    with pytest.raises(Declined, match="constant of the solution"):
        recompute(ages(16, 40), ages_solution(16, 40), ages(14, 50))


def test_instances_that_kept_a_constant_no_unit_gives_do_not_make_it_pass() -> None:
    """A count, a rounding or a number of full boxes stays the same across chosen
    instances by coincidence (3 buses for 85, 90 and 100 people): instances only show the
    constant did not change for their values."""
    asked = [(16, 40), (10, 30), (12, 26), (14, 40)]
    engine = engine_for([(ages(g, m), ages_solution(g, m)) for g, m in asked])
    assert [engine.answer(ages(g, m)).hit for g, m in asked] == [False] * 4


PENS = "Ana buys {boxes} boxes of {each} pens for her class. How many pens does she have?"


def test_a_result_restated_before_its_computation_takes_its_role() -> None:
    solution = "Ana has 27 pens because 3 * 9 = 27.\n#### 27"
    new = PENS.format(boxes=2, each=13)
    seen = [(PENS.format(boxes=4, each=5), "Ana has 20 pens because 4 * 5 = 20.\n#### 20")]
    assert recompute(PENS.format(boxes=3, each=9), solution, new, seen) == [
        "Ana has 26 pens because 2 * 13 = 26.", "#### 26"]


APPLES = ("Bob has {bags} bags of {each} apples and Ana has {ana} apples. The one with more "
          "apples gives the difference to Carl. How many apples does Carl get?")
APPLES_SOLUTION = ("Bob has 3 * 4 = 12 apples.\n"
                   "Ana has 20 apples, more than 12, so she gives 20 - 12 = 8 to Carl.\n#### 8")


def test_a_restated_result_keeps_its_order_against_the_stated_values() -> None:
    cached = APPLES.format(bags=3, each=4, ana=20)
    seen = [(APPLES.format(bags=2, each=3, ana=10),
             "Bob has 2 * 3 = 6 apples.\n"
             "Ana has 10 apples, more than 6, so she gives 10 - 6 = 4 to Carl.\n#### 4")]
    # Only Ana's apples change: "The one" is a stated value no computation takes, and
    # its sums and products with the others keep their orders too (round eighteen).
    assert recompute(cached, APPLES_SOLUTION, APPLES.format(bags=3, each=4, ana=21),
                     seen)[-1] == "#### 9"
    with pytest.raises(Declined, match="order against"):
        recompute(cached, APPLES_SOLUTION, APPLES.format(bags=4, each=5, ana=18))


TWICE = ("Ana pays ${book} for a book and twice as much for a bag at the same shop. How "
         "much does she pay?")


def test_a_changed_value_equal_to_a_multiplier_word_keeps_the_words_constant() -> None:
    solution = "The bag costs $13 * 2 = $26.\nShe pays $13 + $26 = $39.\n#### 39"
    seen = [(TWICE.format(book=7), "The bag costs $7 * 2 = $14.\nShe pays $7 + $14 = $21.\n"
             "#### 21")]
    assert recompute(TWICE.format(book=13), solution, TWICE.format(book=2), seen) == [
        "The bag costs $2 * 2 = $4.", "She pays $2 + $4 = $6.", "#### 6"]


def test_a_stated_value_equal_to_a_multiplier_word_still_fits_two_roles() -> None:
    solution = "The bag costs $2 * 2 = $4.\nShe pays $2 + $4 = $6.\n#### 6"
    with pytest.raises(Declined):
        recompute(TWICE.format(book=2), solution, TWICE.format(book=5))


WAGE = ("{name} works {hours} hours at the shop on a busy day and earns ${rate} per minute "
        "there. How much money does {name} earn that day?")


def wage_solution(name: str, hours: int, rate: int) -> str:
    minutes = hours * 60
    return (f"{name} works {hours} * 60 = {minutes} minutes.\n"
            f"{name} earns {minutes} * {rate} = ${minutes * rate}.\n#### {minutes * rate}")


def test_a_unit_kept_under_other_names_does_not_pass_a_new_name() -> None:
    """A capitalised word is not always a person: Celsius, Kelvin and Fahrenheit, or two
    calendars, keep a 100 or a 365 by coincidence and change it for a third."""
    asked = [("Ana", 3, 2), ("Beth", 4, 3), ("Cara", 5, 2)]
    engine = engine_for([(WAGE.format(name=n, hours=h, rate=r), wage_solution(n, h, r))
                         for n, h, r in asked])
    served = [engine.answer(WAGE.format(name=n, hours=h, rate=r)) for n, h, r in asked]
    assert [a.hit for a in served] == [False, False, False]


def test_a_new_name_with_no_instance_under_other_names_declines() -> None:
    cached = WAGE.format(name="Ana", hours=7, rate=2)
    with pytest.raises(Declined, match="could depend on it"):
        recompute(cached, wage_solution("Ana", 7, 2), WAGE.format(name="Beth", hours=7, rate=5))
    # With the hours changed, the 60 may be a minute's seconds on a leap second's day.
    with pytest.raises(Declined, match="reasoning about the values"):
        recompute(cached, wage_solution("Ana", 7, 2), WAGE.format(name="Beth", hours=4, rate=5))
