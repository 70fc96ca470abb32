"""Multiples and parts written as one word with a cardinal inside ("sixfold", "zehnmal",
"das Anderthalbfache", "driekwart", "femdobbelt", "пятикратное"): generated from CLDR's
cardinals (two to twelve) and each language's suffixes, since a list by hand always
lacks the next one.

They are read only to compare (`multwords`, second tier): a condition in words on "more
than sixfold" keeps its order, which can only make a request decline.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

CARDINALS = range(2, 13)
"""The cardinals a compound is made from."""

_TIMES_SUFFIXES: dict[str, tuple[str, ...]] = {
    "en": ("fold",),
    "de": ("mal", "fach", "fache", "fachen", "facher", "faches"),
    "nl": ("maal", "voudig", "voudige"),
    "da": ("dobbelt", "dobbelte", "foldig", "foldige"),
}
"""Suffixes that make a cardinal a multiplier ("sechsmal", "vijfmaal", "femdobbelt")."""

_HALF_SUFFIXES: dict[str, tuple[str, ...]] = {
    "de": ("einhalb", "einhalbmal", "einhalbfach", "einhalbfache", "einhalbfachen"),
    "nl": ("ënhalf", "ënhalve", "enhalf", "enhalve"),
}
"""Suffixes that make a cardinal n the mixed number n + 1/2 ("zweieinhalbmal",
"tweeënhalve")."""

_PART_SUFFIXES: dict[str, dict[str, int]] = {
    "de": {"drittel": 3, "viertel": 4, "fünftel": 5, "sechstel": 6, "achtel": 8,
           "zehntel": 10},
    "nl": {"derde": 3, "kwart": 4, "vijfde": 5, "zesde": 6, "achtste": 8, "tiende": 10},
    "da": {"kvart": 4, "tredjedel": 3, "tredjedele": 3, "fjerdedel": 4, "fjerdedele": 4,
           "femtedel": 5, "femtedele": 5},
}
"""Parts joined to their numerator ("dreiviertel", "tweederde", "trekvart")."""

_LISTED: dict[str, str] = {
    "en": "quintuple:5 quintupled:5 sextuple:6 treble:3 trebled:3 trebles:3",
    "de": "anderthalb:3/2 anderthalbmal:3/2 anderthalbfach:3/2 anderthalbfache:3/2 "
          "anderthalbfachen:3/2 eineinhalb:3/2 eineinhalbmal:3/2 eineinhalbfache:3/2",
    "es": "quíntuple:5 séxtuple:6 décuplo:10",
    "it": "quintuplo:5 quintupla:5 sestuplo:6 decuplo:10 decupla:10",
    "pt": "quíntuplo:5 quíntupla:5 sêxtuplo:6 décuplo:10",
    "nl": "anderhalf:3/2 anderhalve:3/2",
    "da": "halvanden:3/2 halvandet:3/2",
    "ru": "полтора:3/2 полторы:3/2 полутора:3/2 впятеро:5 вшестеро:6 всемеро:7 "
          "ввосьмеро:8 вдевятеро:9 вдесятеро:10",
    "hi": "डेढ़:3/2 ढाई:5/2 सवा:5/4",
    "ar": "مثلي:2 مثلا:2 ضعفين:2 ضعفان:2 مرتين:2 مرتان:2 ثلثي:2/3 ثلثا:2/3 خمسي:2/5 "
          "خمسا:2/5 ربعي:2/4",
    "pl": "podwójny:2 podwójnie:2 podwójna:2 podwójne:2 potrójny:3 potrójnie:3 "
          "połowa:1/2 połowy:1/2 połowę:1/2 połową:1/2 połowie:1/2 ćwierć:1/4",
    "ko": "절반:1/2",
}
"""Multiples and parts with no rule to make them, and parts of languages with no table
(Polish, Korean): a value n, or p/q."""

_RUSSIAN_FOLD_STEMS = {"дву": 2, "двух": 2, "трёх": 3, "трех": 3, "четырёх": 4,
                       "четырех": 4, "пяти": 5, "шести": 6, "семи": 7, "восьми": 8,
                       "девяти": 9, "десяти": 10}
_RUSSIAN_FOLD_ENDINGS = ("кратно", "кратное", "кратный", "кратная", "кратного", "кратной",
                         "кратному", "кратную", "кратным", "кратном", "кратные", "кратных")
"""Russian "-fold" ("двукратное", "пятикратный") in every case."""


@lru_cache(maxsize=1)
def compounds() -> dict[str, Fraction]:
    """Each compound word (lower case) with the factor it states."""
    found: dict[str, Fraction] = {}
    for text in _LISTED.values():
        for item in text.split():
            word, _, value = item.partition(":")
            found[word] = Fraction(value)
    for stem, n in _RUSSIAN_FOLD_STEMS.items():
        for ending in _RUSSIAN_FOLD_ENDINGS:
            found[stem + ending] = Fraction(n)
    for language in {*_TIMES_SUFFIXES, *_HALF_SUFFIXES, *_PART_SUFFIXES}:
        for n, cardinal in _cardinals(language):
            for suffix in _TIMES_SUFFIXES.get(language, ()):
                found[cardinal + suffix] = Fraction(n)
            for suffix in _HALF_SUFFIXES.get(language, ()):
                found[cardinal + suffix] = n + Fraction(1, 2)
            for suffix, q in _PART_SUFFIXES.get(language, {}).items():
                if n < q:
                    found[cardinal + suffix] = Fraction(n, q)
    return found


def _cardinals(language: str) -> list[tuple[int, str]]:
    """CLDR's cardinals of `language` from two to twelve, as one word each."""
    try:
        from unicode_rbnf import FormatPurpose, RbnfEngine
    except ImportError:  # pragma: no cover - a dependency of the package
        return []
    engine = RbnfEngine.for_language(language)
    found = []
    for n in CARDINALS:
        result = engine.format_number(n, purpose=FormatPurpose.CARDINAL)
        for text in set(result.text_by_ruleset.values()):
            if text.isalpha():
                found.append((n, text.lower()))
    return found
