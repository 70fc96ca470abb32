"""Cardinal number words, read in the languages text2num knows (en, es, de, fr, da, pt,
nl, it): "three", "tres", "drei", "trois", "tre" are 3.

Reading a word as a number never decides on its own that two requests are the same: a
changed word is a slot only when both words read as numbers in one language, and an
unchanged one only adds a stated value, which can make a solution's number fit two roles
(and decline) but never maps it to another value. Multiplicative words ("twice",
"zweimal") are not cardinals and stay meaning words.
"""

from __future__ import annotations

from functools import lru_cache

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


def stated_values(word: str) -> set[int]:
    """Every value an unchanged `word` may state, in any language."""
    if len(word) <= SHORT:
        return set()
    return {value for _, value in readings(word)}
