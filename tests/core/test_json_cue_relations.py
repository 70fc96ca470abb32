"""Every cue the reader knows, crossed with every key name it knows: a cue states a value
only for a key that names the relation the cue says.

A hostile review found a place, an occupation and a year served from the cache for a key
naming another relation (`born in Lisbon` as the residence, `a nurse` as the species,
`released in 1995` as the founding year). The rule is by class, so it is checked by class:
each cue phrase below (every place, occupation and year cue of `json_constructions` and
`json_cues`) is asked with each key name of `json_assign._CLASSES` (its patterns spelled
out) and a few qualified keys. What the cue says is judged here, not read from the code:
`CUE_RELATIONS` lists the relations each cue states, `KEY_RELATIONS` the relation each
key names. A value stated for a key whose relation the cue does not state is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from stepchat.core.tasks.json_assign import _CLASSES
from stepchat.core.tasks.json_spec import read_spec

QUALIFIED = ("work_city", "workplace", "office", "home_city", "home_address", "birth_country",
             "birth_year", "year_built", "build_year", "year_established", "job_title",
             "release_date", "film_title", "main_role", "pet_species")
"""Keys a class pattern does not spell, some naming a relation a cue states (`workplace`,
`year_built`, `job_title`), some a relation no cue states (`birth_year`, `home_address`)."""


def spelled(pattern: str) -> list[str]:
    """The names a key class pattern matches: `full_?name|user` is `full_name`, `fullname`,
    `user`; `\\w+_id` is spelled `item_id`."""
    pattern = pattern.replace(r"\w+", "item")
    out, _ = _alternatives(pattern, 0)
    return out


def _alternatives(pattern: str, at: int) -> tuple[list[str], int]:
    """The strings of `a|b(?:c|d)e?` from `at` to the closing bracket or the end."""
    options: list[str] = []
    current = [""]
    while at < len(pattern) and pattern[at] != ")":
        char = pattern[at]
        if char == "|":
            options += current
            current, at = [""], at + 1
            continue
        if pattern.startswith("(?:", at):
            atom, at = _alternatives(pattern, at + 3)
            at += 1
        else:
            atom, at = [char], at + 1
        if at < len(pattern) and pattern[at] == "?":
            atom, at = [*atom, ""], at + 1
        current = [head + tail for head in current for tail in atom]
    return options + current, at


def key_names() -> list[str]:
    names = [n for _, p in _CLASSES for n in spelled(p)]
    return list(dict.fromkeys([*names, *QUALIFIED]))


KEY_RELATIONS: dict[str, frozenset[str]] = {
    key: frozenset(rel.split())
    for rel, keys in (
        ("city", "city town city_name"),
        ("location", "location"),
        ("country", "country nation country_name"),
        ("residence", "residence lives_in current_city current_location"),
        ("residence hq", "based_in"),
        ("hometown", "hometown home_town"),
        ("origin", "origin country_of_origin"),
        ("birthplace", "birthplace place_of_birth born_in birth_city birth_country"),
        ("hq", "headquarters hq"),
        ("destination", "destination arrival_city arrival to_city"),
        ("workplace", "work_city work_location workplace office office_location"),
        ("year", "year"),
        ("release", "release_year year_released released"),
        ("publication", "publication_year year_published published"),
        ("founding", "founding_year year_founded founded year_established"),
        ("building", "built year_built build_year"),
        ("job", "job occupation profession role position job_title"),
    )
    for key in keys.split()
}
"""The relation each key names (by judgement); a key not here names one no cue states
(`venue`, `address`, `place`, `region`, `species`, `genre`, `birth_year`, `home_city`)."""
COUNTRY_KINDS = frozenset({"country", "nation", "country_name", "country_of_origin",
                           "birth_country"})
CITY_KINDS = frozenset({"city", "town", "city_name", "current_city", "birth_city",
                        "arrival_city", "to_city", "work_city", "hometown", "home_town"})
"""Keys whose name says the place is a city; a `residence` or a `birthplace` may be a country."""


@dataclass(frozen=True)
class Cue:
    family: str
    phrase: str
    relations: frozenset[str]


def _cues(family: str, rel: str, *phrases: str) -> list[Cue]:
    return [Cue(family, p, frozenset(rel.split())) for p in phrases]


_NOW = "city location country residence"
CUES = [
    *_cues("place", "birthplace", "born in {v}", "born in the city of {v}"),
    *_cues("place", "city hometown origin country", "from {v}", "from the city of {v}"),
    *_cues("place", "city location country", "in {v}"),
    *_cues("place", _NOW, "lives in {v}", "living in {v}", "resides in {v}", "based in {v}",
           "located in {v}", "now lives in {v}", "now in {v}", "currently in {v}",
           "moved to {v}", "relocated to {v}", "who moved from Faro to {v}",
           "originally from Faro, now in {v}", "lives in the city of {v}"),
    *_cues("place", "city location country hq", "headquartered in {v}"),
    *_cues("place", "workplace", "works from {v}"),
    *_cues("place", "destination", "with a flight to {v}", "heading to {v}"),
    *_cues("year", "year", "in {v}", "from {v}", "since {v}", "made in {v}", "dated {v}",
           "({v})"),
    *_cues("year", "year release", "released in {v}", "released {v}"),
    *_cues("year", "year publication", "published in {v}"),
    *_cues("year", "year release publication", "came out in {v}"),
    *_cues("year", "year founding", "founded in {v}", "founded {v}", "established {v}",
           "established in {v}"),
    *_cues("year", "year building", "built in {v}", "built {v}"),
    *_cues("noun", "job", "works as a {v}", "working as a {v}"),
    *_cues("noun", "", "a {v}", "is a {v}"),
]
"""Each cue phrase with the relations it states (by judgement): `from` is where the subject
is from (a bare city or country, a hometown, an origin), never where it is now or is
headquartered; `in` and `lives in` where it is now; `born in` only where it was born;
`works from` only where it works; a bare `year` any year the request states, an event's
year only from its own verb; `works as` a job, an apposed `a nurse` nothing the reader can
tell (a nurse is a job, a labrador a breed, a comedy a genre)."""
VALUES = {"place": ("Lisbon", "Portugal"), "year": ("1995",), "noun": ("plumber", "nurse")}
SUBJECTS = {"place": "for Bruno", "year": "for the film Heat", "noun": "for Bruno"}


@dataclass(frozen=True)
class Pair:
    cue: Cue
    key: str
    value: str

    @property
    def prompt(self) -> str:
        first = "title" if self.cue.family == "year" else "name"
        return (f"Return a JSON object with keys {first} and {self.key} "
                f"{SUBJECTS[self.cue.family]}, {self.cue.phrase.format(v=self.value)}.")

    @property
    def wanted(self) -> object:
        return int(self.value) if self.value.isdigit() else self.value

    def right(self) -> bool:
        """Whether the key names a relation the cue states, for a value of its kind."""
        if not KEY_RELATIONS.get(self.key, frozenset()) & self.cue.relations:
            return False
        if self.value == "Portugal":
            return self.key not in CITY_KINDS
        return self.key not in COUNTRY_KINDS

    def stated(self) -> bool:
        spec = read_spec(self.prompt)
        return spec is not None and spec.entities.get(self.key) == self.wanted


PAIRS = [Pair(cue, key, value) for cue in CUES for key in key_names()
         if key not in ("name", "title") for value in VALUES[cue.family]]


def test_every_key_class_is_spelled() -> None:
    assert {"full_name", "fullname", "item_id", "release_year", "hometown", "home_town",
            "film_title"} <= set(key_names())
    assert len(PAIRS) > 5000


def test_no_cue_states_a_key_of_another_relation() -> None:
    wrong = [p.prompt for p in PAIRS if not p.right() and p.stated()]
    assert wrong == [], (len(wrong), wrong[:20])


KEPT = [
    ("born in {v}", "birthplace", "Lisbon"), ("from {v}", "city", "Lisbon"),
    ("from {v}", "hometown", "Lisbon"), ("from {v}", "country", "Portugal"),
    ("lives in {v}", "residence", "Lisbon"), ("lives in {v}", "city", "Lisbon"),
    ("based in {v}", "location", "Lisbon"), ("moved to {v}", "current_city", "Lisbon"),
    ("headquartered in {v}", "headquarters", "Lisbon"), ("works from {v}", "workplace", "Lisbon"),
    ("heading to {v}", "destination", "Lisbon"), ("released in {v}", "release_year", "1995"),
    ("released in {v}", "year", "1995"), ("founded in {v}", "founded", "1995"),
    ("since {v}", "year", "1995"), ("built in {v}", "year_built", "1995"),
    ("works as a {v}", "job", "plumber"), ("works as a {v}", "occupation", "nurse"),
]


@pytest.mark.parametrize(("phrase", "key", "value"), KEPT)
def test_a_cue_still_states_its_own_relation(phrase: str, key: str, value: str) -> None:
    pair = next(p for p in PAIRS if (p.cue.phrase, p.key, p.value) == (phrase, key, value))
    assert pair.right() and pair.stated(), pair.prompt


def tally() -> tuple[int, int, int, set[str]]:
    """Pairs tried, stated, stated wrong, and the prompts of the right pairs stated."""
    stated = [p for p in PAIRS if p.stated()]
    wrong = sum(1 for p in stated if not p.right())
    return len(PAIRS), len(stated), wrong, {p.prompt for p in stated if p.right()}

