"""Words that state a multiplier or a fraction ("twice", "half", "two thirds", "zweimal",
"la mitad", "deux tiers", "to tredjedele"): a per-language table, read in every language
at once.

Such a word, written the same in the cached and the new request, may account for a
constant of the solution ("twice as many" for the 2 of `2 * 15`, "half" for the 2 of
`80 / 2`), as a stated value would. What it may account for, and how strictly, is
`wordfactors`; this module only says which words state what:
- a *multiplier* n ("twice", "doppelt", "tredobbelt", or a cardinal before a times word:
  "to gange", "deux fois") is a factor n of a product;
- a *part* 1/q ("half", "un tercio", "ein Drittel") is a divisor q, a factor 1/q (0.5,
  50 %), or the q of `1/q`; a cardinal before it makes it p/q ("two thirds", "tres
  cuartos": the p is a numerator over that q).

A word that is also an ordinal ("third", "cuarto", "cinquième": the third day, a room)
reads as a part only after an indefinite article or a cardinal. A word whose languages
disagree on its value is not read.

Two tiers. The first five languages' words may account for a constant. Every other word
here (Italian, Portuguese, Dutch, Russian, Hindi, Arabic and Chinese words, parts such as
"a seventh", "la tercera parte", "三分之二") is read only to compare: a condition in words
on "more than double" or "fewer than half" of a value keeps its order (`compared`),
which can only make a request decline. Accounting for a constant with them was tried and
backed out: a word in another sense beside a reasoned count served wrong answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal, TypeVar

from stepchat.core.tasks.wordprob.atoms import Atom
from stepchat.core.tasks.wordprob.multcompounds import compounds
from stepchat.core.tasks.wordprob.numwords import LANGUAGES as TEXT2NUM_LANGUAGES
from stepchat.core.tasks.wordprob.numwords import readings, spelled, stated_values
from stepchat.core.tasks.wordprob.scripts import one_atom_each

FactorKind = Literal["times", "part"]
T = TypeVar("T")

_TIMES: dict[str, str] = {
    "en": "twice:2 double:2 doubled:2 doubles:2 triple:3 tripled:3 triples:3 thrice:3 "
          "quadruple:4 quadrupled:4",
    "es": "doble:2 dobles:2 duplica:2 duplicó:2 duplicar:2 triple:3 triples:3 triplica:3 "
          "triplicó:3 cuádruple:4",
    "de": "zweimal:2 doppelt:2 doppelte:2 doppelten:2 doppelter:2 doppeltes:2 verdoppelt:2 "
          "zweifach:2 zweifache:2 dreimal:3 dreifach:3 dreifache:3 dreifachen:3 viermal:4 "
          "vierfach:4 vierfache:4 vierfachen:4 fünfmal:5 fünffache:5",
    "fr": "double:2 doublé:2 doublée:2 doubles:2 triple:3 triplé:3 triplée:3 quadruple:4",
    "da": "dobbelt:2 dobbelte:2 fordoblet:2 tredobbelt:3 tredobbelte:3 firdobbelt:4",
}
"""Words that multiply by n and may account for a constant (`wordfactors`)."""

_PARTS: dict[str, str] = {
    "en": "half:2 halves:2 halved:2 third:3 thirds:3 quarter:4 quarters:4 fourth:4 "
          "fourths:4 fifth:5 fifths:5 sixth:6 sixths:6 eighth:8 eighths:8 tenth:10 tenths:10",
    "es": "mitad:2 medio:2 media:2 tercio:3 tercios:3 cuarto:4 cuartos:4 quinto:5 "
          "quintos:5 sexto:6 sextos:6 octavo:8 octavos:8 décimo:10 décimos:10",
    "de": "hälfte:2 halb:2 halbe:2 halben:2 halber:2 halbes:2 drittel:3 viertel:4 "
          "fünftel:5 sechstel:6 achtel:8 zehntel:10",
    "fr": "moitié:2 demi:2 demie:2 tiers:3 quart:4 quarts:4 cinquième:5 cinquièmes:5 "
          "sixième:6 sixièmes:6 huitième:8 huitièmes:8 dixième:10 dixièmes:10",
    "da": "halvdelen:2 halvdel:2 halvdele:2 halvdelene:2 halv:2 halvt:2 halve:2 "
          "tredjedel:3 tredjedele:3 tredjedelen:3 fjerdedel:4 fjerdedele:4 fjerdedelen:4 "
          "kvart:4 femtedel:5 femtedele:5 femtedelen:5 tiendedel:10 tiendedele:10",
}
"""Words that take the q-th part (1/q; p/q after a cardinal p) and may account for a
constant."""

_TIMES_COMPARED: dict[str, str] = {
    "it": "doppio:2 doppia:2 doppi:2 doppie:2 raddoppia:2 raddoppiato:2 raddoppiata:2 "
          "triplo:3 tripla:3 tripli:3 triplica:3 triplicato:3 quadruplo:4",
    "pt": "dobro:2 dobra:2 dobrou:2 dobrado:2 duplo:2 dupla:2 triplo:3 tripla:3 "
          "triplicou:3 quádruplo:4",
    "nl": "dubbel:2 dubbele:2 verdubbelt:2 verdubbeld:2 verdubbelen:2 tweemaal:2 "
          "driedubbel:3 driedubbele:3 driemaal:3 verdrievoudigd:3 viermaal:4",
    "ru": "вдвое:2 удвоил:2 удвоила:2 удвоили:2 удвоенное:2 удвоенный:2 удвоенная:2 "
          "удвоенного:2 удвоенной:2 удвоенному:2 двойное:2 двойной:2 двойная:2 втрое:3 "
          "утроил:3 утроила:3 утроенное:3 вчетверо:4",
    "hi": "दोगुना:2 दोगुने:2 दोगुनी:2 दुगना:2 दुगने:2 दुगनी:2 दुगुना:2 दुगुने:2 दुगुनी:2 "
          "तिगुना:3 तिगुने:3 तिगुनी:3 चौगुना:4 चौगुने:4 चौगुनी:4",
    "ar": "ضعف:2 ضعفي:2 ضعفا:2 مضاعف:2",
}
"""Multipliers read only to compare: "more than double Ana's" keeps its order.

A word read only to compare makes a request decline where an order it may state
changed, and never serves one: it accounts for no constant. A table word accounts for
a constant whatever the word is about, and in languages beyond the first five their
words in another sense ("camera doppia", "ضعف" for weakness, Croatian "dobro" as
Portuguese double) stood beside a count the solution reasons out (`docs/word-problems.md`,
the thirty-sixth review); so did a seventh beside the 7 days of a week."""

_PARTS_COMPARED: dict[str, str] = {
    "en": "seventh:7 sevenths:7 ninth:9 ninths:9 twelfth:12 twelfths:12 hundredth:100 "
          "hundredths:100",
    "es": "séptimo:7 séptimos:7 noveno:9 novenos:9",
    "de": "siebtel:7 neuntel:9 zwölftel:12 hundertstel:100",
    "fr": "septième:7 septièmes:7 neuvième:9 neuvièmes:9 douzième:12 douzièmes:12 "
          "centième:100 centièmes:100",
    "da": "sjettedel:6 sjettedele:6 syvendedel:7 syvendedele:7 ottendedel:8 ottendedele:8 "
          "niendedel:9 niendedele:9",
    "it": "metà:2 mezzo:2 mezza:2 terzo:3 terzi:3 quarto:4 quarti:4 quinto:5 quinti:5 "
          "sesto:6 sesti:6 settimo:7 settimi:7 ottavo:8 ottavi:8 nono:9 noni:9 decimo:10 decimi:10",
    "pt": "metade:2 meio:2 meia:2 terço:3 terços:3 quarto:4 quartos:4 quinto:5 quintos:5 "
          "sexto:6 sextos:6 sétimo:7 sétimos:7 oitavo:8 oitavos:8 nono:9 nonos:9 décimo:10 "
          "décimos:10",
    "nl": "helft:2 half:2 halve:2 derde:3 derden:3 kwart:4 vierde:4 vierden:4 vijfde:5 "
          "vijfden:5 zesde:6 zesden:6 zevende:7 achtste:8 achtsten:8 negende:9 tiende:10 "
          "tienden:10",
    "ru": "половина:2 половины:2 половине:2 половину:2 половиной:2 треть:3 трети:3 "
          "третью:3 третей:3 четверть:4 четверти:4 четвертью:4 четвертей:4 пятая:5 "
          "пятую:5 пятой:5 пятых:5 шестая:6 шестую:6 шестых:6 седьмая:7 седьмую:7 "
          "седьмых:7 восьмая:8 восьмую:8 восьмых:8 девятая:9 девятых:9 десятая:10 "
          "десятую:10 десятых:10",
    "hi": "आधा:2 आधे:2 आधी:2 तिहाई:3 चौथाई:4",
    "ar": "نصف:2 ثلث:3 ربع:4",
    "zh": "半:2",
}
"""Parts read only to compare ("fewer than a seventh", "меньше половины")."""

_ORDINAL_TOO: dict[str, str] = {
    "en": "third thirds fourth fourths fifth fifths sixth sixths seventh sevenths eighth "
          "eighths ninth ninths tenth tenths twelfth twelfths hundredth hundredths",
    "es": "cuarto cuartos quinto quintos sexto sextos séptimo séptimos octavo octavos "
          "noveno novenos décimo décimos",
    "fr": "cinquième cinquièmes sixième sixièmes septième septièmes huitième huitièmes "
          "neuvième neuvièmes dixième dixièmes douzième douzièmes centième centièmes",
    "it": "terzo terzi quarto quarti quinto quinti sesto sesti settimo settimi ottavo "
          "ottavi nono noni decimo decimi",
    "pt": "terço quarto quartos quinto quintos sexto sextos sétimo sétimos oitavo oitavos "
          "nono nonos décimo décimos",
    "nl": "derde vierde vijfde zesde zevende achtste negende tiende",
    "ru": "пятая пятую пятой пятых шестая шестую шестых седьмая седьмую седьмых восьмая "
          "восьмую восьмых девятая девятых десятая десятую десятых",
}
"""Parts that are also ordinals (or rooms): read only after an article or a cardinal."""

_ARTICLES: dict[str, str] = {
    "en": "a an",
    "es": "un una",
    "de": "ein eine einen einem einer eines",
    "fr": "un une",
    "da": "en et",
    "it": "un uno una",
    "pt": "um uma",
    "nl": "een",
}
"""Indefinite articles: "a third" is a part, "the third" an ordinal."""

_TIMES_AFTER: dict[str, str] = {
    "en": "times", "es": "veces", "de": "mal", "fr": "fois", "da": "gange", "it": "volte",
    "pt": "vezes", "nl": "keer maal", "ru": "раза раз", "hi": "गुना गुने गुनी",
    "ar": "أضعاف مرات", "zh": "倍", "ko": "배", "pl": "razy",
}
"""Words after a cardinal that make it a multiplier ("to gange", "два раза", "两倍": 2
times)."""

_PART_NOUNS: dict[str, str] = {"es": "parte partes", "it": "parte parti", "pt": "parte partes"}
_ORDINAL_PARTS: dict[str, str] = {
    "es": "tercera:3 terceras:3 cuarta:4 cuartas:4 quinta:5 quintas:5 sexta:6 sextas:6 "
          "séptima:7 octava:8 novena:9 décima:10",
    "it": "terza:3 terze:3 quarta:4 quarte:4 quinta:5 quinte:5 sesta:6 settima:7 "
          "ottava:8 nona:9 decima:10",
    "pt": "terça:3 terças:3 quarta:4 quartas:4 quinta:5 quintas:5 sexta:6 sextas:6 "
          "sétima:7 oitava:8 nona:9 décima:10",
}
"""Ordinals that take the q-th part before a word for "part" ("la tercera parte", "a
quarta parte", "due terze parti"), and nowhere else (a weekday: "quinta-feira")."""

_ARABIC_CLITICS = ("وال", "بال", "فال", "كال", "لل", "ال", "و", "ف", "ب", "ل", "ك")
_ARABIC_SUFFIXES = ("هما", "هم", "ها", "ه")
"""What Arabic writes joined to a word: a conjunction, a preposition and the article
before it ("بنصف", "النصف"), a pronoun after it ("نصفها")."""
_KOREAN_PARTICLES = ("보다", "에서", "으로", "의", "을", "를", "이", "가", "은", "는", "에",
                     "로", "만", "도", "과", "와")
"""Korean particles joined after a word ("두 배보다": than twice)."""

ADDED_BEFORE = {"साढ़े": Fraction(1, 2), "सवा": Fraction(1, 4), "पौने": Fraction(-1, 4)}
"""Hindi words before a cardinal that add to it ("साढ़े तीन गुना": three and a half times,
"पौने दो": one and three quarters)."""
HAN_FAN = ("翻", "番")
"""翻 n 番: doubled n times ("翻一番" is twice, "翻两番" four times)."""
HAN_PART = ("分", "之")
"""The Han form of a part: q 分之 p is p/q ("三分之一", "四分之三")."""


Entry = tuple[FactorKind, int, str, bool]
"""What a table word states in one language: kind, value, language, and whether it may
account for a constant."""


def _table(
    sources: tuple[tuple[dict[str, str], FactorKind, bool], ...]
) -> dict[str, frozenset[Entry]]:
    """Every word of the tables, with what it states in each language that has it."""
    found: dict[str, set[Entry]] = {}
    for source, kind, accounts in sources:
        for language, text in source.items():
            for item in text.split():
                word, _, value = item.partition(":")
                found.setdefault(word, set()).add((kind, int(value), language, accounts))
    return {w: frozenset(v) for w, v in found.items()}


def _words(source: dict[str, str]) -> frozenset[str]:
    return frozenset(w for text in source.values() for w in text.split())


def _languages_of(source: dict[str, str]) -> dict[str, frozenset[str]]:
    """Each word of `source` with the languages that have it."""
    found: dict[str, set[str]] = {}
    for language, text in source.items():
        for word in text.split():
            found.setdefault(word, set()).add(language)
    return {word: frozenset(languages) for word, languages in found.items()}


_READS = _table(((_TIMES, "times", True), (_PARTS, "part", True),
                 (_TIMES_COMPARED, "times", False), (_PARTS_COMPARED, "part", False)))
_ORDINAL_READS = _table(((_ORDINAL_PARTS, "part", False),))
ACCOUNTING = frozenset(_TIMES) | frozenset(_PARTS)
"""The languages whose words may account for a constant; the others' only compare."""
_ORDINALS = _words(_ORDINAL_TOO)

_ARTICLE_LANGUAGES = _languages_of(_ARTICLES)
_TEXT2NUM = frozenset(TEXT2NUM_LANGUAGES)
"""Languages whose cardinals text2num reads; CLDR's table is read only for the others."""
_TIMES_LANGUAGES = _languages_of(_TIMES_AFTER)
_NOUN_LANGUAGES = _languages_of(_PART_NOUNS)


@dataclass(frozen=True)
class FactorWord:
    """One word of a request that states a multiplier or a part."""

    position: int
    """The atom position in the request (the position of the cardinal for "to gange")."""
    text: str
    kind: FactorKind
    value: int
    """n for a multiplier, q for a part."""
    numerator: int = 1
    """p of a part p/q (1 unless a cardinal stands before it)."""
    stated: bool = False
    """The numerator or multiplier is a cardinal the request states as a value already."""
    accounts: bool = False
    """The word may account for a constant of the solution (`wordfactors`); else it is
    read only to compare (`compared`)."""


def _entries(word: str) -> frozenset[Entry]:
    """What the tables have for `word`, or for it without what is joined to it
    (`_stems`)."""
    return _first(_READS, word) or frozenset()


def _first(table: dict[str, T], word: str) -> T | None:
    """`table`'s value for the first of `word`'s stems it has."""
    for stem in _stems(word.lower()):
        if stem in table:
            return table[stem]
    return None


@lru_cache(maxsize=4096)
def _stems(word: str) -> tuple[str, ...]:
    """`word`, then, for a script that joins words to what is about them, the word
    without them: Arabic's conjunctions, prepositions and article before it and its
    pronouns after ("بنصف", "النصف", "نصفها"); Korean's particles after it ("배보다",
    "절반의")."""
    if any("\u0600" <= ch <= "\u06ff" for ch in word):
        fronts = [word] + [word[len(c):] for c in _ARABIC_CLITICS if word.startswith(c)]
        return tuple(stem for front in fronts
                     for stem in [front] + [front[:-len(x)] for x in _ARABIC_SUFFIXES
                                            if front.endswith(x) and len(front) > len(x) + 1])
    if any("\uac00" <= ch <= "\ud7a3" for ch in word):
        return (word, *(word[:-len(x)] for x in _KOREAN_PARTICLES
                        if word.endswith(x) and len(word) > len(x)))
    return (word,)


@lru_cache(maxsize=4096)
def reading(word: str) -> tuple[FactorKind, int, bool] | None:
    """What one word states on its own and whether it may account for a constant, or
    None (no such word, or languages disagree)."""
    return _one_reading(_entries(word))


def _one_reading(entries: frozenset[Entry]) -> tuple[FactorKind, int, bool] | None:
    found = {(kind, value) for kind, value, _, _ in entries}
    if len(found) != 1:
        return None
    (kind, value), = found
    return kind, value, any(accounts for *_, accounts in entries)


def languages(word: str) -> frozenset[str]:
    """The languages whose table has `word`."""
    return frozenset(language for _, _, language, _ in _entries(word))


def _cardinal(word: Atom | None, among: frozenset[str]) -> int | None:
    """The value of a cardinal word in one of the languages `among`, None if it reads as
    none or as several: "to" is two before Danish "gange", and nothing before "half". A
    Latin word is read in CLDR's languages too here, where the word after it is of one
    of them (Polish "dwa razy")."""
    if word is None or word.kind != "word":
        return None
    found = readings(word.text)
    if among - _TEXT2NUM:  # a language text2num does not read: CLDR's table
        found = (*found, *spelled().get(word.text.lower(), ()))
    values = {v for lang, v in found if lang in among}
    return values.pop() if len(values) == 1 else None


def _han_cardinal(items: Sequence[Atom], i: int) -> int | None:
    """The value of a Han numeral at `i` that stands alone (no numeral beside it: "十二"
    is two atoms and neither is its value): "两" before "倍", "三" before "分之"."""
    def numeral(k: int) -> int | None:
        if not 0 <= k < len(items) or items[k].kind != "word":
            return None
        values = stated_values(items[k].text) if one_atom_each(items[k].text[:1]) else set()
        return values.pop() if len(values) == 1 else None

    value = numeral(i)
    if value is None or numeral(i - 1) is not None or numeral(i + 1) is not None:
        return None
    return value


def factor_words(items: Sequence[Atom], stated: frozenset[int] = frozenset()) -> list[FactorWord]:
    """The multipliers and parts `items` (a request's atoms) state. `stated` are the
    positions of words the request already reads as stated cardinal values."""
    found: list[FactorWord] = []
    for i, atom in enumerate(items):
        if atom.kind != "word":
            continue
        word = (_times_word(items, i, stated) or _han_part(items, i) or _mixed(items, i)
                or _ordinal_part(items, i, stated) or _part_or_times(items, i, stated))
        if word is not None:
            found.append(word)
            found.extend(_and_a_part(items, word))
    return found


def _mixed(items: Sequence[Atom], i: int) -> FactorWord | None:
    """A compound word for a multiple or a part ("sixfold", "anderthalbmal", "полтора",
    "dreiviertel", `multcompounds`), read to compare; a word of the tables is read there."""
    value = _mixed_value(items, i)
    if value is None:
        return None
    if value.denominator == 1:
        return FactorWord(i, items[i].text, "times", int(value))
    return FactorWord(i, items[i].text, "part", value.denominator, value.numerator)


def _mixed_value(items: Sequence[Atom], i: int) -> Fraction | None:
    """What the word at `i` multiplies by as a compound, a Hindi word before a cardinal
    ("साढ़े तीन": three and a half) or 翻 n 番 ("翻一番": doubled); None for anything else."""
    lower = items[i].text.lower()
    after = _whole(items[i + 1]) if lower in ADDED_BEFORE and i + 1 < len(items) else None
    if after is not None:
        return after + ADDED_BEFORE[lower]  # alone, "सवा" is a compound: 1¼
    if lower == HAN_FAN[0]:
        if tuple(a.text for a in items[i + 2:i + 3]) != HAN_FAN[1:]:
            return None
        n = _han_cardinal(items, i + 1)
        return Fraction(2) ** n if n is not None and n <= 4 else None
    return None if lower in _READS else _first(compounds(), lower)


def _and_a_part(items: Sequence[Atom], word: FactorWord) -> list[FactorWord]:
    """A whole number n of two or more, up to two words before a part of one ("two and
    a half times", "два с половиной раза", "two and one-half", "to en halv"): the mixed
    number n + 1/q, read to compare."""
    if word.kind != "part" or word.numerator != 1:
        return []
    start = word.position
    before = items[start - 1] if start else None
    if before is not None and before.text == "-":
        start -= 2  # "one-half"
    elif _is_article(before, None):
        start -= 1  # "a half"
    # a word between, then the whole number: "two and a half", "una volta e mezza"
    for k in (start - 1, start - 2, start - 3):
        n = _whole(items[k]) if k >= 0 else None
        if n is not None and n >= 2:  # one and a part is 1 + p/q already (`compared`)
            return [FactorWord(k, " ".join(a.text for a in items[k:word.position + 1]), "part",
                               word.value, n * word.value + 1)]
    return []


def _whole(atom: Atom) -> int | None:
    """A whole number a digit or a cardinal word in one reading states."""
    if atom.kind == "num" and atom.value is not None and atom.value.denominator == 1:
        return int(atom.value)
    values = {v for _, v in readings(atom.text)} if atom.kind == "word" else set()
    return values.pop() if len(values) == 1 else None


def _times_word(items: Sequence[Atom], i: int, stated: frozenset[int]) -> FactorWord | None:
    """A cardinal before a times word: "to gange", "два раза", "两倍"."""
    among = _first(_TIMES_LANGUAGES, items[i].text)
    if among is None or i == 0:
        return None
    before = items[i - 1]
    n = _cardinal(before, among) if not one_atom_each(before.text[:1]) else None
    if n is None and "zh" in among:
        n = _han_cardinal(items, i - 1)
    if n is None or n < 2:
        return None
    return FactorWord(i - 1, f"{before.text} {items[i].text}", "times", n,
                      stated=(i - 1) in stated, accounts=bool(among & ACCOUNTING))


def _han_part(items: Sequence[Atom], i: int) -> FactorWord | None:
    """q 分之 p, read at the 分: "三分之二" is 2/3."""
    if tuple(a.text for a in items[i:i + 2]) != HAN_PART:
        return None
    q, p = _han_cardinal(items, i - 1), _han_cardinal(items, i + 2)
    if q is None or p is None or not 0 < p < q:
        return None
    return FactorWord(i, "".join(a.text for a in items[i - 1:i + 3]), "part", q, p)


def _ordinal_part(items: Sequence[Atom], i: int, stated: frozenset[int]) -> FactorWord | None:
    """An ordinal before a word for "part": "la tercera parte", "due terze parti"."""
    entries = _ORDINAL_READS.get(items[i].text.lower())
    after = items[i + 1] if i + 1 < len(items) else None
    if entries is None or after is None or after.kind != "word":
        return None
    among = frozenset(lang for _, _, lang, _ in entries) & _NOUN_LANGUAGES.get(
        after.text.lower(), frozenset())
    read = _one_reading(frozenset(e for e in entries if e[2] in among))
    if read is None:
        return None
    p = _cardinal(items[i - 1] if i else None, among)
    return FactorWord(i, f"{items[i].text} {after.text}", "part", read[1], p or 1,
                      stated=p is not None and (i - 1) in stated, accounts=read[2])


def _part_or_times(items: Sequence[Atom], i: int, stated: frozenset[int]) -> FactorWord | None:
    """A word of the tables: "twice", "half", "two thirds", "two-thirds", "a quarter"."""
    atom = items[i]
    read = reading(atom.text)
    if read is None:
        return None
    kind, value, accounts = read
    if kind == "times":
        return FactorWord(i, atom.text, kind, value, accounts=accounts)
    among = languages(atom.text)
    at = i - 1
    if i >= 2 and items[i - 1].text == "-" and _cardinal(items[i - 2], among) is not None:
        at = i - 2  # "two-thirds"
    before = items[at] if at >= 0 else None
    p = _cardinal(before, among)
    article = _is_article(before, among)
    ordinal = atom.text.lower() in _ORDINALS
    if ordinal and ((p is None and not article) or (p is not None and p >= value)):
        return None  # "the third day", "the twenty-third"
    return FactorWord(i, atom.text, kind, value, p or 1, stated=p is not None and at in stated,
                      accounts=accounts and at == i - 1  # "two-thirds" only compares
                      and _read_in(before, among & ACCOUNTING, p, ordinal))


def _read_in(before: Atom | None, among: frozenset[str], p: int | None, ordinal: bool) -> bool:
    """Whether the word before a part reads, in the languages `among`, as the part was
    read: its numerator p the same, or the article an ordinal needs. A part shared with
    a language read only to compare ("quinto", Spanish and Portuguese) accounts only
    where its context is of an accounting language: "um quinto" is Portuguese."""
    if p is not None:
        return _cardinal(before, among) == p
    return not ordinal or _is_article(before, among)


def _is_article(word: Atom | None, among: frozenset[str] | None) -> bool:
    """Whether `word` is an indefinite article of one of the languages `among` (of any
    language where None)."""
    if word is None or word.kind != "word":
        return False
    languages_ = _ARTICLE_LANGUAGES.get(word.text.lower(), frozenset())
    return bool(languages_ if among is None else languages_ & among)
