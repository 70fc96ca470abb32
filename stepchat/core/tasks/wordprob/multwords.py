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
}
"""Words that take the q-th part (1/q; p/q after a cardinal p)."""

_ORDINAL_TOO: dict[str, str] = {
    "en": "third thirds fourth fourths fifth fifths sixth sixths eighth eighths tenth tenths",
    "es": "cuarto cuartos quinto quintos sexto sextos octavo octavos décimo décimos",
    "fr": "cinquième cinquièmes sixième sixièmes huitième huitièmes dixième dixièmes",
}
"""Parts that are also ordinals (or rooms): read only after an article or a cardinal."""

_ARTICLES: dict[str, str] = {
    "en": "a an",
    "es": "un una",
    "de": "ein eine einen einem einer eines",
    "fr": "un une",
    "da": "en et",
}
"""Indefinite articles: "a third" is a part, "the third" an ordinal."""

_TIMES_AFTER: dict[str, str] = {
    "en": "times", "es": "veces", "de": "mal", "fr": "fois", "da": "gange",
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
_ARTICLE_LANGUAGES = {w: lang for lang, text in _ARTICLES.items() for w in text.split()}
_TIMES_LANGUAGE = {word: language for language, word in _TIMES_AFTER.items()}


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
            n = _cardinal(before, frozenset({_TIMES_LANGUAGE[lower]}))
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
        article = before is not None and before.kind == "word" and (
            _ARTICLE_LANGUAGES.get(before.text.lower()) in among)
        if lower in _ORDINALS and p is None and not article:
            continue
        found.append(FactorWord(i, atom.text, kind, value, p or 1,
                                stated=p is not None and (i - 1) in stated))
    return found
