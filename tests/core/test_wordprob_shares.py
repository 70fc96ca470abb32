"""Word problems: a stated share and the rest of its whole, and a share read in hundredths
that another value in another unit could give."""

from __future__ import annotations

import pytest

from tests.wordprob_cases import answers


def town(people: int, bikes: int, group: str = "smaller") -> str:
    return (f"In a town of {people} people, {bikes}% ride bikes and the rest walk. How many "
            f"people are in the {group} group?")


def town_solution(people: int, bikes: int) -> str:
    return (f"The smaller group: {people} * {bikes / 100:g} = {people * bikes // 100} "
            f"people.\n#### {people * bikes // 100}")


def test_a_share_on_its_side_of_half_is_recomputed() -> None:
    solved = [(town(6000, 30), town_solution(6000, 30)), (town(5000, 20), town_solution(5000, 20))]
    kept = answers(solved, town(4000, 40))
    assert kept.hit and kept.text.rstrip().endswith("#### 1600")


def savings(months: int, percent: int) -> str:
    return (f"Ana saves 500 dollars a month for {months} months. Ben saves for {percent}% "
            "as long as Ana. How many dollars does Ana save per year on average?")


def savings_solution(months: int) -> str:
    years = months / 12
    return (f"Ana saves 500 * {months} = {500 * months} dollars.\n{months} months is "
            f"{years:g} years, so per year she saves {500 * months} / {years:g} = 6000 "
            "dollars.\n#### 6000")


def test_a_share_another_value_gives_in_another_unit_fits_two_roles() -> None:
    """1.5 is 150% in hundredths and 18 months in years; the instance moved both alike,
    so nothing tells which the solution follows."""
    solved = [(savings(18, 150), savings_solution(18)), (savings(30, 250), savings_solution(30))]
    new = answers(solved, savings(18, 120))
    assert not new.hit
    assert "another value in another unit" in new.notes[0]


def pupils(total: int, walk: int, badge: int) -> str:
    return (f"Of {total} pupils on a trip, {walk} walk and the rest take the bus. Each "
            f"pupil pays 3 dollars for a ticket, and each pupil of the larger group gets a "
            f"badge of {badge} dollars. How many dollars are spent in all?")


def pupils_solution(total: int, walk: int, badge: int) -> str:
    return (f"Tickets: {total} * 3 = {total * 3} dollars.\n"
            f"The walkers are the larger group: {walk} * {badge} = {walk * badge} dollars.\n"
            f"{total * 3} + {walk * badge} = {total * 3 + walk * badge}\n"
            f"#### {total * 3 + walk * badge}")


def groups(red: int, blue: int) -> str:
    return (f"Of every 20 cars in a town of 2000 cars, {red} are red and {blue} are blue; "
            "the rest are grey. The most common colour pays 3 dollars a car. How many "
            "dollars are paid?")


def groups_solution(red: int, blue: int) -> str:
    cars = 2000 * red // 20
    return (f"Red is the most common: 2000 * {red} / 20 = {cars} cars.\n"
            f"Blue: 2000 * {blue} / 20 = {2000 * blue // 20} cars.\n"
            f"{cars} * 3 = {cars * 3}\n#### {cars * 3}")


@pytest.mark.parametrize(("solved", "new"), [
    # below half the smaller group is the bikers; at 70% it is the walkers
    ([(town(6000, 30), town_solution(6000, 30)), (town(5000, 20), town_solution(5000, 20))],
     town(5000, 70)),
    # 7 red and 5 blue of 20 leave 8 grey, the most common colour
    ([(groups(10, 4), groups_solution(10, 4)), (groups(9, 5), groups_solution(9, 5))],
     groups(7, 5)),
], ids=["a share of a hundred", "two parts of one divided whole"])
def test_a_part_that_passes_the_rest_of_its_whole_declines(
    solved: list[tuple[str, str]], new: str,
) -> None:
    crossed = answers(solved, new)
    assert not crossed.hit
    assert "the rest of its whole" in crossed.notes[0]


def test_a_count_on_its_side_of_the_rest_is_recomputed() -> None:
    solved = [(pupils(40, 25, 5), pupils_solution(40, 25, 5)),
              (pupils(50, 30, 4), pupils_solution(50, 30, 4))]
    kept = answers(solved, pupils(40, 28, 7))
    assert kept.hit and kept.text.rstrip().endswith("#### 316")
