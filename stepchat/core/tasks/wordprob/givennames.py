"""Given names: the only words a request may rename as a person's name.

A capitalised word that changes between two requests was once taken for a name unless a
closed list said it carried meaning; a hostile reader then renamed Christmas to Diwali,
Paris to Canberra, Leo to Pisces and "Sa" to "Th", and each change turned a choice the
solution made in words. Now a rename is a name only where both words are given names of
one gender (`given_names.txt`, the first names of 84 locales, built by
scripts/build_given_names.py); any other change goes to the model, or is recomputed only
from an instance solved with the new word.

One gender each, the same for both, given by the lists of two languages and by none the
other way: "the girl gives 2 apples to the boy" points at other people once Ana and Ben
become Tom and Mia. A name given to both (Andrea) or by one locale's list alone (which can
be wrong) cannot show which person a gendered word means, so it is not renamed.

What a name's letters can decide is kept: renamed names keep their alphabetical order and
the order of their lengths among themselves ("the child whose name comes first in the
alphabet", "the longer name"), and two that read as forms of one name (Petr and Petra, a
Czech man and his genitive, both listed) are renamed only to two such forms. At most one
name of each gender is renamed: two of one gender may be one person, in full and by a
short form (William and Bill, Natalia and Natasha), and "he" may mean either of two men.
What may name a person and stays beside a rename (`may_be_form`, `is_ordinary_word`,
used by `names.why_not_names`) makes it decline.

Forgiven, and only this: a given name that is also a word, a place or a brand whose word
the text does not write (Dutch Roos beside "rozen", Celine), one name's letters against a
fixed letter or length, a name whose gender two languages' lists agree on and the
problem's culture reverses (a Russian Nikita), and a short form of a renamed name that
is a common word of the text's language ("bill", "Win" for Edwin) or is written only in
lower case ("peg"): the lists cannot tell such a word from a word of the language; and
what a name tells beyond its gender (its language, a name day, a meaning) where the
solution uses every stated value and the name only decides who has which
(`guards.check_renamed` declines a rename beside a value left unused).
Words of the closed lists of `meaningwords` (months, seasons, planets, zodiac signs) are
never names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import resources
from itertools import combinations
from typing import Any

FORM_STEM = 3
"""Letters two names share at the start, all but at most two of the shorter (Slovak Peter,
genitive Petra), for them to be read as forms of one name."""


LANGUAGE_SHARE = 0.2
"""The share of a text's lower-case words a language's list must hold to be taken for its
language: a Finnish text, which no list has, holds 2 of 12 in the Polish list by chance."""


LANGUAGE_MARGIN = 1.25
"""How many times the runner-up's count the guessed language's must be: a text in a
language no list has (Portuguese) holds nearly as many words of two neighbours (9 of
Spanish, 8 of Italian), and either guess would take that neighbour's words ("Dado") for
its own."""


@cache
def _genders() -> dict[str, str]:
    text = resources.files(__package__).joinpath("given_names.txt").read_text("utf-8")
    return dict(line.split("\t") for line in text.splitlines() if line)


@cache
def _ordinary() -> dict[str, frozenset[str]]:
    text = resources.files(__package__).joinpath("ordinary_words.txt").read_text("utf-8")
    found: dict[str, frozenset[str]] = {}
    for line in text.splitlines():
        word, languages = line.split("\t")
        found[word] = frozenset(languages.split())
    return found


def languages_of(words: Iterable[str]) -> frozenset[str]:
    """The language whose common words hold the most of `words` (a text's lower-case
    words): its language, as far as the lists can tell; none where no list holds a fifth
    of them (`LANGUAGE_SHARE`), or another list holds nearly as many (`LANGUAGE_MARGIN`).
    A word common in another language says nothing of this text: Italian "di", Danish
    "ned" and Czech "tam" are English short forms of Diana, Edward and Thomas."""
    distinct = {word.casefold() for word in words}
    counts = Counter(language for word in distinct for language in _ordinary().get(word, ()))
    ranked = counts.most_common(2)
    if not ranked or ranked[0][1] < LANGUAGE_SHARE * len(distinct) or (
            len(ranked) == 2 and ranked[0][1] < LANGUAGE_MARGIN * ranked[1][1]):
        return frozenset()
    return frozenset({ranked[0][0]})


def is_ordinary_word(word: str, languages: frozenset[str]) -> bool:
    """Whether `word` is a common word of one of `languages` (`ordinary_words.txt`): a
    capital at a sentence's start ("How", "Today") then marks no name."""
    return not _ordinary().get(word.casefold(), frozenset()).isdisjoint(languages)


def is_given_name(word: str) -> bool:
    """Whether `word` is a listed first name (any case)."""
    return word.casefold() in _genders()


def same_gender(a: str, b: str) -> bool:
    """Whether both names are given to one gender only, and the same one."""
    genders = _genders()
    first, second = genders.get(a.casefold()), genders.get(b.casefold())
    return first is not None and first == second and first in ("m", "f")


_ORDERS: tuple[tuple[str, Callable[[str], Any]], ...] = (
    ("alphabetical order", str.casefold), ("order by length", len))


def broken_by_renaming(renames: Mapping[str, str]) -> str | None:
    """How the renamed names changed their orders or their forms, or None; or that two of
    them are of one gender."""
    old = list(renames)
    new = [renames[name] for name in old]
    for what, key in _ORDERS:
        if _places(old, key) != _places(new, key):
            return (f"{', '.join(old)} renamed {', '.join(new)} changed their {what}: a "
                    "rule in words may rest on it")
    for a, b in combinations(old, 2):
        if same_gender(a, b):
            return (f"{a} and {b} are both renamed and of one gender: one may be the other's "
                    "short form (William and Bill), or a gendered word may mean either")
        if _forms_of_one(a, b) != _forms_of_one(renames[a], renames[b]):
            return (f"{a}, {b} renamed {renames[a]}, {renames[b]}: one is another's form "
                    "in one pair and not in the other (Petr and Petra, the Czech genitive)")
    return None


def _forms_of_one(a: str, b: str) -> bool:
    """Whether two names may be one name with another ending: in Czech, Polish or Serbian
    a man's genitive is often a woman's name (Petr, Petra; Daniel, Daniela)."""
    shared = _shared_start(a, b)
    return shared >= FORM_STEM and shared >= min(len(a), len(b)) - 2


def _places(names: list[str], key: Callable[[str], Any]) -> list[tuple[int, int]]:
    """Each name's place by `key`: how many names come before it and how many tie."""
    keys = [key(name) for name in names]
    return [(sum(k < mine for k in keys), sum(k == mine for k in keys)) for mine in keys]


def may_be_form(word: str, name: str) -> bool:
    """Whether `word` may be a form of `name` another case or ending gives (Petrovi,
    Piotrowi, Matille for Petr, Piotr, Matti; "jack" for Jack): the first letters of the
    name, at least `FORM_STEM` of them or all of a shorter one."""
    return _shared_start(word, name) >= min(FORM_STEM, len(name))


def _shared_start(a: str, b: str) -> int:
    """How many first letters two words share, in any case."""
    a, b = a.casefold(), b.casefold()
    shortest = min(len(a), len(b))
    return next((k for k in range(shortest) if a[k] != b[k]), shortest)
