"""Hostile reviews' findings of a value stated for a key or a subject it does not state.

tests/core/json_hostile_review4.jsonl holds the first, each with the earlier request
whose answer was cached: K1 a place cue of one relation filling a place key of another
(`born in Lisbon` as the residence or the address, `works from` as the residence, `lives
in` as the venue, `from` as the headquarters); K2 an occupation filling a key of another
attribute (`a nurse` as the species or the kind, `works as a plumber` as the genre or the
type); K3 a year of one event filling a year key of another (`released in 1995` as the
founding or building year, `founded in` and `established` as the release year, `since` as
the founding year). The look-alikes written from that rule are in
tests/core/test_json_cue_relations.py.

tests/core/json_hostile_review5.jsonl holds the second, on the first's fixes: K4 a cue set
after an agent named by `by X` (`by Acme, founded in 1990`, `by Pablo Picasso (1881)`,
`directed by Christopher Nolan, from London`): it describes X; K5 the `from X` of a trip or
a move `to Y from X`: where it started, no hometown or origin; K6 `now in X` or `currently
in X` with a purpose or a span after it (`for a conference`): a visit, no residence; K7 the
past `worked as a N`: a former job; K8 `works as a N` with a noun that is no occupation
(`a team`, `a whole`). Each finding is read again, asked twice, and asked after its cached
request, as the earlier reviews' findings are.

tests/core/json_hostile_review6.jsonl holds the third, on the second's fixes: K9 a cue
after an agent with a semicolon between (`by Acme Records; established in 1980`): the
agent's span runs to the end of the sentence; K10 a He/She/They sentence after a second
person was named (`directed by Michael Mann. He is from Chicago.`): it may be about that
person, so it states nothing; K11 a beneficiary `for NAME` after a described object (`for
a dog for Bruno`): no name of the subject; K12 an addressee (`Bruno: return ...`, `Hey
Bruno! Return ...`, `for Bruno with keys ... for a dog`): the subject is unsure, no
identity key is stated; K13 a `from X` in a request with a trip or a move anywhere (`from
Porto on a flight to Lisbon`, `moved to Lisbon, Portugal, from Porto`): no hometown or
origin; K14 `now in X` or `currently in X` with anything but the end of the clause after
the place (`as a tourist`): a visit, no residence.

tests/core/json_hostile_review7.jsonl holds a later review's, of lists, qualified keys and
second things (its classes and look-alikes: tests/core/test_json_hostile_review7.py), and
json_hostile_review8.jsonl the next one's, on those fixes: JA1 a capitalised word after the
items (`English, French and Mostly`, `…, Often`), JA2 one joined to an item as part of its
name (`French Maybe`, `English Only`), JC one before it (`Zero French`, `Rusty French`): the
item checks now read every word in any case, against extenders, words that state no value
and a closed list of qualifiers; JB a hedge before a key in a key list (`and optional city`,
`an optional city`, `nullable`, `und eventuell`, `ggf`): the key list is not sure.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.core import test_json_hostile_review as round_one
from tests.core import test_json_hostile_review2 as round_two

CLASSES = {
    4: {"K1": 5, "K2": 5, "K3": 5},
    5: {"K4": 7, "K5": 6, "K6": 5, "K7": 6, "K8": 6},
    6: {"K9": 7, "K10": 5, "K11": 6, "K12": 3, "K13": 6, "K14": 6},
    7: {"L1": 10, "L2": 6, "S1": 13, "S3": 5, "S4": 3, "S5": 10, "K1": 3},
    8: {"JA1": 224, "JA2": 144, "JC": 128, "JB": 192},
}
"""Each review's file (`json_hostile_review<n>.jsonl`) and how many findings of each class."""


def _records(review: int) -> list[dict[str, Any]]:
    path = Path(__file__).with_name(f"json_hostile_review{review}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


RECORDS: list[dict[str, Any]] = [record for review in CLASSES for record in _records(review)]


@pytest.mark.parametrize("review", CLASSES)
def test_the_review_is_all_here(review: int) -> None:
    assert Counter(r["class"].split()[0] for r in _records(review)) == CLASSES[review]


@pytest.mark.parametrize("record", RECORDS, ids=round_two._id)
def test_no_finding_holds_in_the_reading(record: dict[str, Any]) -> None:
    assert not round_two._still_found(record), record


@pytest.mark.parametrize("record", RECORDS, ids=round_two._id)
def test_asked_twice_nothing_is_served_as_checked(record: dict[str, Any]) -> None:
    round_one.test_asked_twice_no_finding_is_served_as_checked(record)


@pytest.mark.parametrize("record", RECORDS, ids=round_two._id)
def test_asked_after_their_cached_request(record: dict[str, Any]) -> None:
    round_two.test_later_findings_asked_after_their_cached_request(record)
