"""A number word may be part of a quantity this reader does not see: a compound numeral
("twenty three"), a scale ("four thousand"), a unit converted ("four hours" in minutes),
a square or a product. An earlier instance that changed the word shows nothing of which
one a digit beside it is that the solution's number follows; one that kept it does.
"""

from __future__ import annotations

import pytest

from stepchat.core.tasks.wordprob.recompute import Declined
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
    with pytest.raises(Declined, match="no earlier instance"):
        recompute(choir(4, 24, 6), solution(24, 6), choir(4, 32, 7), earlier)


def test_more_instances_that_changed_the_word_show_nothing_either() -> None:
    """Off one line or not: a square of the word, a product with another word, would be
    on none either."""
    earlier = [(choir(3, 23, 5), solution(23, 5)), (choir(6, 30, 2), solution(30, 2))]
    with pytest.raises(Declined, match="no earlier instance"):
        recompute(choir(4, 24, 6), solution(24, 6), choir(4, 32, 7), earlier)


def test_an_instance_that_kept_the_word_shows_the_digit_followed() -> None:
    earlier = [(choir(3, 23, 5), solution(23, 5))]
    # Five notebooks each: "three" times them stays under "twenty" (round eighteen
    # compares a stated value no computation takes times each other value).
    steps = recompute(choir(3, 30, 6), solution(30, 6), choir(3, 32, 5), earlier)
    assert steps[-1] == "#### 160"
