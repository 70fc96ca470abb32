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
from typing import Any

from stepchat.core.tasks.wordprob.scripts import is_latin, is_word, one_atom_each

LANGUAGES = ("en", "es", "de", "fr", "da", "pt", "nl", "it")
MAX_WORD = 24
SCALE_FROM = 100
"""From this value on, a word text2num reads is read only where CLDR spells the value
with it (`_spelled_with`)."""
SCALES_DIFFER_FROM = 10**9
"""Words for this much and more are not read: the short and long scales give them two
values by country ("billion" is 10^9 in English and 10^12 in German, Danish and French;
Portuguese "bilião" is 10^12 in Portugal, which text2num reads as Brazil's "bilhão",
10^9), and nothing in a text says which scale it counts in."""


@lru_cache(maxsize=4096)
def readings(word: str) -> tuple[tuple[str, int], ...]:
    """(language, value) for each language in which `word` alone is a cardinal: the
    languages text2num reads, and CLDR's spelled-out cardinals of the others for a word
    of a script other than Latin ("तीन", "пять", "τρία"). A Latin word alone is as often
    a word of the text's own language as a cardinal of another (German "hat" is
    Hungarian 6, English "sex" Swedish 6), and Latin-script text is written in many more
    languages than any other script's."""
    found = _text2num_readings(word)
    if not is_latin(word):
        found += _spelled_readings(word)
    return found


def common_reading(old: str, new: str) -> tuple[int, int] | None:
    """The values of two words that are cardinals in one language, or None; None too
    where two languages that read both give them other values (no such pair is known
    below a billion, but a text's language is not read, so agreement is what shows the
    values). Read as `readings` reads one word: a changed word is a number exactly where
    it would state its value unchanged, so an earlier instance that changed it shows a
    number changed only where the cached word is a stated value too."""
    new_by_language = dict(readings(new))
    found = {(value, new_by_language[language])
             for language, value in readings(old) if language in new_by_language}
    return found.pop() if len(found) == 1 else None


@lru_cache(maxsize=4096)
def _text2num_readings(word: str) -> tuple[tuple[str, int], ...]:
    if not is_word(word) or len(word) > MAX_WORD:
        return ()
    try:
        from text_to_num import text2num
    except ImportError:  # pragma: no cover - a dependency of the package
        return ()
    found = []
    for language in LANGUAGES:
        try:
            value = int(text2num(word.lower(), language))
        except (ValueError, TypeError):
            continue
        if value >= SCALES_DIFFER_FROM:
            continue
        if value >= SCALE_FROM and not _spelled_with(word.lower(), language, value):
            continue
        found.append((language, value))
    return tuple(found)


@lru_cache(maxsize=1024)
def _spelled_with(word: str, language: str, value: int) -> bool:
    """Whether CLDR spells `value` in `language` with `word` as one of its words. text2num
    reads whatever follows a scale word as more of the number, but that is as often a
    plural ("cientos", "miles", "Millionen", "cents": hundreds, thousands of something,
    no count) or an ending ("millionen" is Danish for "the million", which it reads as
    1,000,001) as the units of a compound; CLDR spells each value one way."""
    try:
        from unicode_rbnf import FormatPurpose
        from unicode_rbnf.engine import RbnfError
    except ImportError:  # pragma: no cover - a dependency of the package
        return False
    engine = _cldr(language)
    if engine is None:
        return False
    try:
        result = engine.format_number(value, purpose=FormatPurpose.CARDINAL)
    except RbnfError:
        return False
    return any(word in text.lower().split() for text in result.text_by_ruleset.values())


@lru_cache(maxsize=len(LANGUAGES))
def _cldr(language: str) -> Any:
    """CLDR's spelling rules of `language`, or None where it has none."""
    from unicode_rbnf import RbnfEngine

    try:
        return RbnfEngine.for_language(language)
    except Exception:  # a language CLDR lacks: nothing is spelled
        return None


def _spelled_readings(word: str) -> tuple[tuple[str, int], ...]:
    """CLDR's readings of a word, capitalised or not ("Три ученика": a sentence starts
    with it), but not of a Han numeral or kana, which are atoms each: "十二" to "十五"
    changes one of two (`stated_values`)."""
    if one_atom_each(word[:1]):
        return ()
    return spelled().get(word.lower().translate(_SPELLING), ())


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


SPELLED_UP_TO = 100
"""Cardinals spelled out in CLDR's rules read as words up to this value (and the hundreds
and a thousand): the numbers word problems write in words."""
_SPELLING = {0x200B: None, 0x00AD: None, ord("ँ"): "ं", ord("ё"): "е"}
"""What print leaves out or writes either way: a zero-width space and a soft hyphen,
Devanagari's moon-dot nasal (written as the plain dot), Russian ё (written as е)."""


@lru_cache(maxsize=1)
def spelled() -> dict[str, tuple[tuple[str, int], ...]]:
    """(language, value) for each one-word cardinal CLDR spells out in a language
    text2num does not read (Hindi "तीन", Russian "трех", Swahili "tano")."""
    try:
        from unicode_rbnf import FormatPurpose, RbnfEngine
        from unicode_rbnf.engine import RbnfError
    except ImportError:  # pragma: no cover - a dependency of the package
        return {}
    found: dict[str, set[tuple[str, int]]] = {}
    numbers = [*range(SPELLED_UP_TO + 1), *range(200, 1001, 100)]
    for locale in RbnfEngine.get_supported_languages():
        language = locale.split("_")[0]
        if language in LANGUAGES:
            continue
        engine = RbnfEngine.for_language(locale)
        for n in numbers:
            try:
                result = engine.format_number(n, purpose=FormatPurpose.CARDINAL)
            except RbnfError:  # a rule CLDR lacks for this number
                continue
            for text in result.text_by_ruleset.values():
                word = text.lower().translate(_SPELLING)
                if is_word(word) and len(word) <= MAX_WORD:
                    found.setdefault(word, set()).add((language, n))
    return {word: tuple(sorted(pairs)) for word, pairs in found.items()}
