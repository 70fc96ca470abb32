"""Build stepchat/core/tasks/wordprob/given_names.txt, the given names a rename may change,
each with the genders it is given to, and ordinary_words.txt, words that are no names.

Source: the first-name lists of every locale of the `faker` package (MIT), 84 locales in
40 scripts: `first_names_male`, `first_names_female`, and the lists a locale keeps without
a gender (`first_names`, `first_names_nonbinary`). One line per name, casefolded, then a
tab and its gender: `m` or `f` where the gendered lists of at least two languages give it
and none gives the other, `mf` where they disagree (Andrea is male in Italy and female
elsewhere), `-` where fewer than two languages give one (a single locale's list can be
wrong: Turkish Seda and Kikuyu Wangari are listed male). Names of more than one word are
left out: a rename changes one word.

A word that changes between two requests is renamed as a person's name only when both
words are on this list (`givennames.py`); a city, a holiday or a zodiac sign is not, so
its change goes to the model.

ordinary_words.txt: the words of the `lorem` lists of every faker locale (about a thousand
common words each in 32 locales: "how", "today", "wie", "combien"), casefolded, one a
line, then a tab and the languages whose lists have it (`en`, `es`: a locale's language
code). A capitalised word that stays beside a rename is taken for an ordinary word only
where it is a word of the text's own language (`givennames.py`): Italian "di" is no
English word, and "Di" beside Diana renamed is her short form.

Run once, by hand, when the lists should change (faker is no dependency):

    pip install faker==40.63.0
    python scripts/build_given_names.py
"""

from __future__ import annotations

import importlib
import pkgutil
import unicodedata
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "stepchat" / "core" / "tasks" / "wordprob"
OUT = HERE / "given_names.txt"
ORDINARY = HERE / "ordinary_words.txt"

GENDERED = {"first_names_male": "m", "first_names_female": "f"}
UNGENDERED = ("first_names", "first_names_nonbinary")
MIN_LANGUAGES = 2
"""Languages whose lists must give a name its gender before a rename trusts it."""


def _listed(provider: type, attribute: str) -> list[str]:
    value = getattr(provider, attribute, None)
    if value is None or isinstance(value, property):
        return []
    return [str(name) for name in (value.keys() if isinstance(value, dict) else value)]


def names() -> dict[str, str]:
    """Each listed name and its gender, written as the module docstring says."""
    import faker.providers.person as person

    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for module in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        language = module.name.split("_")[0]
        for attribute, gender in GENDERED.items():
            for name in _listed(provider, attribute):
                found[name.casefold()][gender].add(language)
        for attribute in UNGENDERED:
            for name in _listed(provider, attribute):
                found[name.casefold()]
    return {name: _gender(languages) for name, languages in found.items() if _one_word(name)}


def _gender(languages: dict[str, set[str]]) -> str:
    if len(languages) > 1:
        return "mf"
    if any(len(listed) >= MIN_LANGUAGES for listed in languages.values()):
        return next(iter(languages))
    return "-"


def _one_word(name: str) -> bool:
    """Letters and the marks written on them (a Devanagari vowel sign), nothing else."""
    return bool(name) and all(
        c.isalpha() or unicodedata.category(c).startswith("M") for c in name)


def ordinary_words() -> dict[str, set[str]]:
    """Each common word and the languages (locale codes before the region) that list it."""
    import faker.providers.lorem as lorem

    found: dict[str, set[str]] = defaultdict(set)
    for module in pkgutil.iter_modules(lorem.__path__):
        provider = importlib.import_module(f"{lorem.__name__}.{module.name}").Provider
        language = module.name.split("_")[0]
        for word in _listed(provider, "word_list"):
            if _one_word(word.casefold()):
                found[word.casefold()].add(language)
    return found


def main() -> None:
    lines = [f"{name}\t{gender}" for name, gender in sorted(names().items())]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(lines)} names")
    words = [f"{word}\t{' '.join(sorted(languages))}"
             for word, languages in sorted(ordinary_words().items())]
    ORDINARY.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"wrote {ORDINARY}: {len(words)} words")


if __name__ == "__main__":
    main()
