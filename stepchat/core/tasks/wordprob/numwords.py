"""Cardinal number words, read in the languages text2num knows (en, es, de, fr, da, pt,
nl, it): "three", "tres", "drei", "trois", "tre" are 3.

Reading a word as a number never decides on its own that two requests are the same: a
changed word is a slot only when both words read as numbers in one language, and an
unchanged one only adds a stated value, which can make a solution's number fit two roles
(and decline) but never maps it to another value. Multiplicative words ("twice",
"zweimal") are not cardinals and stay meaning words.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from stepchat.core.tasks.wordprob.scripts import one_atom_each

LANGUAGES = ("en", "es", "de", "fr", "da", "pt", "nl", "it")
MAX_WORD = 24


@lru_cache(maxsize=4096)
def readings(word: str) -> tuple[tuple[str, int], ...]:
    """(language, value) for each language in which `word` alone is a cardinal."""
    if not word.isalpha() or len(word) > MAX_WORD:
        return ()
    try:
        from text_to_num import text2num
    except ImportError:  # pragma: no cover - a dependency of the package
        return ()
    found = []
    for language in LANGUAGES:
        try:
            value = text2num(word.lower(), language)
        except (ValueError, TypeError):
            continue
        found.append((language, int(value)))
    return tuple(found)


def common_reading(old: str, new: str) -> tuple[int, int] | None:
    """The values of two words that are cardinals in one language, or None."""
    new_by_language = dict(readings(new))
    for language, value in readings(old):
        if language in new_by_language:
            return value, new_by_language[language]
    return None


SHORT = 2
"""Words this short that read as cardinals ("to", "en", "et", "un") are mostly other
words in the languages around them (English "to", Spanish "en"), so an unchanged one
states no value; a changed one still does when both words read in one language."""


HAN_TWO = {"两": 2.0, "兩": 2.0, "俩": 2.0, "倆": 2.0}
"""The Han words for two (a pair, both) that Unicode gives no numeric value."""


def stated_values(word: str) -> set[int]:
    """Every value an unchanged `word` may state, in any language: a Han numeral ("三",
    "十") is an atom of its own and states the value Unicode gives it. A changed numeral
    is never a slot: "十二" to "十五" changes one of two atoms, and 12 to 15 is no change
    of either value alone."""
    if len(word) == 1 and one_atom_each(word):
        value = HAN_TWO.get(word, unicodedata.numeric(word, None))
        return {int(value)} if value is not None and value == int(value) else set()
    if len(word) <= SHORT:
        return set()
    return {value for _, value in readings(word)}
