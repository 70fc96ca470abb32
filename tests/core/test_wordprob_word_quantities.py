"""A number word may be part of a quantity this reader does not see: a compound numeral
("twenty three"), a scale ("four thousand"), a unit converted ("four hours" in minutes),
a square or a product. An earlier instance that changed the word shows nothing of which
one a digit beside it is that the solution's number follows; one that kept it does.
"""

from __future__ import annotations

import pytest

from stepchat.core.tasks.wordprob.recompute import Declined
from stepchat.core.tasks.wordprob.request import NotSame
from tests.wordprob_cases import recompute

CHOIR = ("In the school choir there are {word} rows of twenty students, and their classroom has "
         "number {room}. Each student bought {each} notebooks. How many notebooks did the "
         "students buy in total?")
TWENTY_THREE = ("In the school choir there are twenty three students, and their classroom "
                "has number {room}. Each student bought {each} notebooks. How many "
                "notebooks did the students buy in total?")
EITHER_READING = "no earlier instance|fits two roles"
"""Why a digit that changed in step with a word's quantity declines: no instance shows
which the solution follows, or the quantity is a conversion of the word's value."""
WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def choir(word: int, room: int, each: int) -> str:
    return CHOIR.format(word=WORDS[word], room=room, each=each)


def solution(count: int, each: int) -> str:
    return f"{count} * {each} = {count * each}\n#### {count * each}"


def test_a_digit_changed_in_step_with_a_word_shows_nothing() -> None:
    """Three rows of twenty students in room 60, then four rows in room 80: the 60 of the
    solution may be the students (the word times 20, which the table of conversions also
    reads) as well as the room. (A numeral of several words, "twenty three", is not
    recomputed at all: round twenty-nine.)"""
    earlier = [(choir(3, 60, 5), solution(60, 5))]
    with pytest.raises(Declined, match=EITHER_READING):
        recompute(choir(4, 80, 6), solution(80, 6), choir(4, 32, 7), earlier)


def test_more_instances_that_changed_the_word_show_nothing_either() -> None:
    """Off one line or not: a square of the word, a product with another word, would be
    on none either."""
    earlier = [(choir(3, 60, 5), solution(60, 5)), (choir(6, 120, 2), solution(120, 2))]
    with pytest.raises(Declined, match=EITHER_READING):
        recompute(choir(4, 80, 6), solution(80, 6), choir(4, 32, 7), earlier)


def test_an_instance_that_kept_the_word_shows_the_digit_followed() -> None:
    earlier = [(choir(3, 23, 5), solution(23, 5))]
    # Five notebooks each: "three" times them stays under "twenty" (round eighteen
    # compares a stated value no computation takes times each other value).
    steps = recompute(choir(3, 30, 6), solution(30, 6), choir(3, 32, 5), earlier)
    assert steps[-1] == "#### 160"


def test_a_numeral_of_several_words_is_not_recomputed() -> None:
    """Twenty-three students: each word is read as a number of its own, so a threshold
    written so ("more than two hundred fifty") was compared with nothing (round
    twenty-nine); once a number changes, such a request goes to the model."""
    with pytest.raises(NotSame, match="twenty three is a number written in several words"):
        recompute(TWENTY_THREE.format(room=30, each=6), solution(30, 6),
                  TWENTY_THREE.format(room=32, each=5))
