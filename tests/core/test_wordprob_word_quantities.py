"""A number word may be part of a quantity this reader does not see: a compound numeral
("twenty three"), a scale ("four thousand"), a unit converted ("four hours" in minutes).
An earlier instance that changed the word in step with a digit of the same value shows
nothing of which one the solution's number follows; instances that change them apart do.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from stepchat.core.tasks.wordprob.recompute import Declined
from stepchat.core.tasks.wordprob.values import affine_fits
from tests.wordprob_cases import recompute

CHOIR = ("In the school choir there are twenty {word} students, and their classroom has "
         "number {room}. Each student bought {each} notebooks. How many notebooks did the "
         "students buy in total?")
WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def choir(word: int, room: int, each: int) -> str:
    return CHOIR.format(word=WORDS[word], room=room, each=each)


def solution(count: int, each: int) -> str:
    return f"{count} * {each} = {count * each}\n#### {count * each}"


def test_a_digit_changed_in_step_with_a_word_shows_nothing() -> None:
    """Twenty-three students in room 23, then twenty-four in room 24: the 23 of the
    solution may be the students (20 + the word) as well as the room."""
    earlier = [(choir(3, 23, 5), solution(23, 5))]
    with pytest.raises(Declined, match="in step with a number word"):
        recompute(choir(4, 24, 6), solution(24, 6), choir(4, 32, 7), earlier)


def test_instances_off_one_line_show_the_digit_followed() -> None:
    """Room 24 with twenty-four students, room 30 with twenty-six: no line through
    (3, 23), (4, 24), (6, 30), so the number follows the room, whatever the word."""
    earlier = [(choir(3, 23, 5), solution(23, 5)), (choir(6, 30, 2), solution(30, 2))]
    steps = recompute(choir(4, 24, 6), solution(24, 6), choir(4, 32, 7), earlier)
    assert steps[-1] == "#### 224"


def test_an_instance_that_kept_the_word_shows_the_digit_followed() -> None:
    earlier = [(choir(3, 23, 5), solution(23, 5))]
    steps = recompute(choir(3, 30, 6), solution(30, 6), choir(3, 32, 7), earlier)
    assert steps[-1] == "#### 224"


@pytest.mark.parametrize(("points", "fits"), [
    ([([3], 23), ([4], 24)], True),  # any two points with different words
    ([([4], 4000), ([5], 5000), ([7], 7000)], True),  # a scale
    ([([4], 240), ([5], 300), ([2], 120)], True),  # hours in minutes
    ([([3], 23), ([4], 24), ([6], 30)], False),
    ([([3], 23), ([3], 24)], False),  # the word kept, the number changed
    ([([3, 2], 302), ([4, 2], 402), ([4, 5], 405)], True),  # two words: 100 a + b
])
def test_affine_fits(points: list[tuple[list[int], int]], fits: bool) -> None:
    assert affine_fits([([Fraction(v) for v in x], Fraction(y)) for x, y in points]) is fits
