"""Words that state a multiplier or a fraction ("twice", "half", "two thirds", "zweimal",
"la mitad", "deux tiers", "to tredjedele", "आधा", "половина", "nofs"): a per-language
table, read in every language at once. Twenty languages have one; in the others such a
word states nothing this reader sees, and the constant it would account for declines
(round sixteen: earlier instances cannot stand in for the word).

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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from stepchat.core.tasks.wordprob.atoms import Atom
from stepchat.core.tasks.wordprob.numwords import readings

FactorKind = Literal["times", "part"]

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
    "it": "doppio:2 doppia:2 doppi:2 doppie:2 raddoppia:2 raddoppiato:2 raddoppiata:2 "
          "triplo:3 tripla:3 tripli:3 triplica:3 triplicato:3 quadruplo:4",
    "pt": "dobro:2 dobra:2 dobrou:2 duplo:2 dupla:2 triplo:3 tripla:3 triplicou:3 "
          "quádruplo:4",
    "nl": "dubbel:2 dubbele:2 verdubbeld:2 verdubbelt:2 tweemaal:2 driemaal:3 "
          "drievoudig:3 viermaal:4",
    "sv": "dubbelt:2 dubbla:2 fördubblat:2 fördubblas:2 tredubbelt:3",
    "nb": "dobbelt:2 doble:2 doblet:2 tredobbelt:3",
    "ru": "вдвое:2 дважды:2 двойной:2 двойная:2 двойное:2 двойную:2 удвоил:2 удвоила:2 "
          "удвоилось:2 втрое:3 трижды:3 тройной:3 вчетверо:4 четырежды:4",
    "uk": "вдвічі:2 двічі:2 подвійний:2 подвійна:2 подвійне:2 подвійну:2 подвоїв:2 "
          "подвоїла:2 втричі:3 тричі:3 потрійний:3",
    "pl": "dwukrotnie:2 podwójnie:2 podwójna:2 podwójny:2 podwójne:2 podwoił:2 "
          "podwoiła:2 trzykrotnie:3 potrójnie:3 czterokrotnie:4",
    "hi": "दोगुना:2 दोगुने:2 दोगुनी:2 दुगना:2 दुगने:2 दुगनी:2 दुगुना:2 दुगुने:2 "
          "दुगुनी:2 तिगुना:3 तिगुने:3 तिगुनी:3 चौगुना:4 चौगुने:4 चौगुनी:4",
    "ar": "ضعف:2 ضعفي:2 ضعفا:2 الضعف:2",
    "mt": "darbtejn:2 doppju:2 doppja:2",
    "sw": "maradufu:2",
}
"""Words that multiply by n."""

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
    "it": "metà:2 terzo:3 terzi:3 quarto:4 quarti:4 quinto:5 quinti:5 sesto:6 sesti:6 "
          "ottavo:8 ottavi:8 decimo:10 decimi:10",
    "pt": "metade:2 terço:3 terços:3 quarto:4 quartos:4 quinto:5 quintos:5 sexto:6 "
          "sextos:6 oitavo:8 oitavos:8 décimo:10 décimos:10",
    "nl": "helft:2 halve:2 derde:3 derden:3 kwart:4 vierde:4 vierden:4 vijfde:5 vijfden:5 "
          "zesde:6 zesden:6 achtste:8 achtsten:8 tiende:10 tienden:10",
    "sv": "hälften:2 hälft:2 halva:2 halvt:2 tredjedel:3 tredjedelar:3 tredjedelen:3 "
          "fjärdedel:4 fjärdedelar:4 fjärdedelen:4 femtedel:5 femtedelar:5 sjättedel:6 "
          "åttondel:8 tiondel:10 tiondelar:10",
    "nb": "halvparten:2 halvdelen:2 tredjedel:3 tredjedeler:3 tredjedelen:3 fjerdedel:4 "
          "fjerdedeler:4 fjerdedelen:4 femtedel:5 tidel:10",
    "ru": "половина:2 половину:2 половины:2 половине:2 половиной:2 треть:3 трети:3 "
          "третью:3 четверть:4 четверти:4 четвертью:4",
    "uk": "половина:2 половину:2 половини:2 половині:2 половиною:2 третина:3 третину:3 "
          "третини:3 третиною:3 чверть:4 чверті:4 чвертю:4",
    "pl": "połowa:2 połowę:2 połowy:2 połowie:2 połową:2 ćwierć:4",
    "hi": "आधा:2 आधे:2 आधी:2 तिहाई:3 चौथाई:4",
    "ar": "نصف:2 النصف:2 ثلث:3 الثلث:3 ربع:4 الربع:4",
    "mt": "nofs:2 terz:3 kwart:4",
    "sw": "nusu:2 theluthi:3 robo:4",
    "id": "setengah:2 separuh:2 sepertiga:3 seperempat:4 seperlima:5 seperenam:6 "
          "seperdelapan:8 sepersepuluh:10",
    "tr": "yarısı:2 yarısını:2 yarısına:2 yarım:2 yarı:2 çeyrek:4 çeyreği:4",
    "ko": "절반:2",
}
"""Words that take the q-th part (1/q; p/q after a cardinal p)."""

_ORDINAL_TOO: dict[str, str] = {
    "en": "third thirds fourth fourths fifth fifths sixth sixths eighth eighths tenth tenths",
    "es": "cuarto cuartos quinto quintos sexto sextos octavo octavos décimo décimos",
    "fr": "cinquième cinquièmes sixième sixièmes huitième huitièmes dixième dixièmes",
    "it": "terzo terzi quarto quarti quinto quinti sesto sesti ottavo ottavi decimo decimi",
    "pt": "quarto quartos quinto quintos sexto sextos oitavo oitavos décimo décimos",
    "nl": "derde vierde vijfde zesde achtste tiende",
}
"""Parts that are also ordinals (or rooms): read only after an article or a cardinal."""

_ARTICLES: dict[str, str] = {
    "en": "a an",
    "es": "un una",
    "de": "ein eine einen einem einer eines",
    "fr": "un une",
    "da": "en et",
    "it": "un una uno",
    "pt": "um uma",
    "nl": "een",
    "sv": "en ett",
    "nb": "en et ei",
}
"""Indefinite articles: "a third" is a part, "the third" an ordinal."""

_TIMES_AFTER: dict[str, str] = {
    "en": "times", "es": "veces", "de": "mal", "fr": "fois", "da": "gange", "it": "volte",
    "pt": "vezes", "nl": "keer maal", "ru": "раза", "uk": "рази", "hi": "गुना", "ko": "배",
}
"""Words after a cardinal that make it a multiplier ("to gange": 2 times)."""


def _table() -> dict[str, frozenset[tuple[FactorKind, int, str]]]:
    """Every word of both tables, with what it states in each language that has it."""
    found: dict[str, set[tuple[FactorKind, int, str]]] = {}
    sources: tuple[tuple[dict[str, str], FactorKind], ...] = ((_TIMES, "times"), (_PARTS, "part"))
    for source, kind in sources:
        for language, text in source.items():
            for item in text.split():
                word, _, value = item.partition(":")
                found.setdefault(word, set()).add((kind, int(value), language))
    return {w: frozenset(v) for w, v in found.items()}


def _words(source: dict[str, str]) -> frozenset[str]:
    return frozenset(w for text in source.values() for w in text.split())


_READS = _table()
_ORDINALS = _words(_ORDINAL_TOO)
def _languages_of(source: dict[str, str]) -> dict[str, frozenset[str]]:
    """Each word of `source` with the languages that list it ("en" is an article in
    Danish, Swedish and Norwegian alike)."""
    found: dict[str, set[str]] = {}
    for language, text in source.items():
        for word in text.split():
            found.setdefault(word, set()).add(language)
    return {word: frozenset(languages) for word, languages in found.items()}


_ARTICLE_LANGUAGES = _languages_of(_ARTICLES)
_TIMES_LANGUAGE = _languages_of(_TIMES_AFTER)


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


@lru_cache(maxsize=4096)
def reading(word: str) -> tuple[FactorKind, int] | None:
    """What one word states on its own, or None (no such word, or languages disagree)."""
    found = {(kind, value) for kind, value, _ in _READS.get(word.lower(), ())}
    if len(found) != 1:
        return None
    (kind, value), = found
    return kind, value


def languages(word: str) -> frozenset[str]:
    """The languages whose table has `word`."""
    return frozenset(language for _, _, language in _READS.get(word.lower(), ()))


def _cardinal(word: Atom | None, among: frozenset[str]) -> int | None:
    """The value of a cardinal word in one of the languages `among`, None if it reads as
    none or as several: "to" is two before Danish "gange", and nothing before "half"."""
    if word is None or word.kind != "word":
        return None
    values = {v for lang, v in readings(word.text) if lang in among}
    return values.pop() if len(values) == 1 else None


def factor_words(items: Sequence[Atom], stated: frozenset[int] = frozenset()) -> list[FactorWord]:
    """The multipliers and parts `items` (a request's atoms) state. `stated` are the
    positions of words the request already reads as stated cardinal values."""
    found: list[FactorWord] = []
    for i, atom in enumerate(items):
        if atom.kind != "word":
            continue
        before = items[i - 1] if i else None
        lower = atom.text.lower()
        if lower in _TIMES_LANGUAGE:
            n = _cardinal(before, _TIMES_LANGUAGE[lower])
            if n is not None and n >= 2:
                found.append(FactorWord(i - 1, f"{before.text} {atom.text}" if before else "",
                                        "times", n, stated=(i - 1) in stated))
            continue
        read = reading(atom.text)
        if read is None:
            continue
        kind, value = read
        if kind == "times":
            found.append(FactorWord(i, atom.text, kind, value))
            continue
        among = languages(atom.text)
        p = _cardinal(before, among)
        article = before is not None and before.kind == "word" and bool(
            _ARTICLE_LANGUAGES.get(before.text.lower(), frozenset()) & among)
        if lower in _ORDINALS and p is None and not article:
            continue
        found.append(FactorWord(i, atom.text, kind, value, p or 1,
                                stated=p is not None and (i - 1) in stated))
    return found
