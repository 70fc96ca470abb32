"""Every finding of the second hostile review of the JSON reader: none is served wrong.

tests/core/json_hostile_review2.jsonl has one record per wrong, missing or extra member the
second review saw (classes D1-D19; its last line is the review's summary). Each must now be
declined or right: a value served as `stated` is not stated with that value; a key the
request names is read, or the key list is unsure (nothing stated, the answer not
verified); a key it does not name is not read, or the list is unsure. Then end to end,
twice, with a model that writes exactly the value the review saw served, as round one's
findings are asked (tests/core/test_json_hostile_review.py).

tests/core/json_hostile_review3.jsonl holds the seventieth review's findings (J1: a value
followed by `for the dog`, `for my dog`, `for the refill`, read as the subject's), each with
the earlier request whose answer was cached: read, asked twice, and asked after that
request. `OWNERS` adds look-alikes of J1 written from the rule, not from the findings:
other values, nouns and prepositions (`of`, `to`), a comma before the owner, the owner in a
second clause; none may be stated. The same file holds the seventy-second review's
findings (J2: an owner in parentheses between the key and its value, `age (of the dog) 4`,
`price (refill) 2`, read as the subject's), asked the same ways. `BETWEEN` adds look-alikes
of J2 written from the rule: other brackets of several scripts, other words in them (an
owner or not), a link after them, and words set off by dashes, commas or quotes; none may
be stated. A type in parentheses (`age (integer): 7`) is what the reader reads there, and
`TYPED` must still be stated. The seventy-third review's findings (J3: `age (list of dogs)
4`, `(array of puppies)`, read as a type because `list of` took any word) are there too,
with 48 look-alikes written from the rule (J3L: other nouns after `list of`, `array of`,
`set of`, `collection of`, `as a list of`, in several brackets, with and without a link);
the reader before stated all 5 findings and 16 of the look-alikes, every one in ASCII
parentheses after `list`/`array of`. None may be stated.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.json_request import read_keys
from stepchat.core.tasks.json_spec import read_spec
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore
from tests.core import test_json_hostile_review as round_one

FOUND = Path(__file__).with_name("json_hostile_review2.jsonl")
LINES: list[dict[str, Any]] = [json.loads(line) for line in FOUND.read_text().splitlines()]
RECORDS = [r for r in LINES if not r.get("done")]
FOUND3 = Path(__file__).with_name("json_hostile_review3.jsonl")
RECORDS3: list[dict[str, Any]] = [json.loads(line) for line in FOUND3.read_text().splitlines()]


def _id(record: dict[str, Any]) -> str:
    return f"{record['class'].split()[0]}:{record['key']}:{record['prompt'][38:100]}"


def test_the_review_is_all_here() -> None:
    assert LINES[-1]["done"] is True and LINES[-1]["tried"] == 1216
    assert len(RECORDS) == 220


def _still_found(record: dict[str, Any]) -> bool:
    """Whether the reader still reads the prompt as the review found it, in a way that
    could be verified (an unsure key list states nothing and verifies nothing)."""
    spec = read_spec(record["prompt"])
    if spec is None:
        return False
    key, check = record["key"], record["check"]
    if check == "stated":
        return key in spec.entities and spec.entities[key] == record["served"]
    if check == "open":
        return key in spec.open
    sure = read_keys(record["prompt"]).sure
    if check == "missing":
        return sure and key not in spec.keys
    return sure and key in spec.keys  # extra


@pytest.mark.parametrize("record", RECORDS, ids=_id)
def test_no_finding_holds_in_the_reading(record: dict[str, Any]) -> None:
    assert not _still_found(record), record


@pytest.mark.parametrize("record", RECORDS, ids=_id)
def test_asked_twice_nothing_is_served_as_checked(record: dict[str, Any]) -> None:
    round_one.test_asked_twice_no_finding_is_served_as_checked(record)


def test_the_seventieth_to_seventy_third_reviews_are_all_here() -> None:
    classes = Counter(r["class"].split()[0] for r in RECORDS3)
    assert classes == {"J1": 13, "J2": 14, "J3": 5, "J3L": 48}


@pytest.mark.parametrize("record", RECORDS3, ids=_id)
def test_no_later_finding_holds_in_the_reading(record: dict[str, Any]) -> None:
    assert not _still_found(record), record


@pytest.mark.parametrize("record", RECORDS3, ids=_id)
def test_later_findings_asked_twice_are_not_served_as_checked(record: dict[str, Any]) -> None:
    round_one.test_asked_twice_no_finding_is_served_as_checked(record)


@pytest.mark.parametrize("record", RECORDS3, ids=_id)
def test_later_findings_asked_after_their_cached_request(record: dict[str, Any]) -> None:
    """As the review asked them: the earlier request's answer cached, then the finding."""
    store = MemoryStore()
    StepCache(ScriptedBackend([record["cached_reply"]]), HashedEmbedder(), store).answer(
        record["cached_prompt"])
    answer = StepCache(ScriptedBackend([record["cached_reply"]]), HashedEmbedder(),
                       store).answer(record["prompt"])
    obj = json.loads(answer.text)
    marks = {s.key: s.check for s in answer.steps}
    if obj.get(record["key"]) == record["served"]:
        assert marks.get(record["key"]) != "stated", (answer.text, marks, record)


_SUBJECTS = [
    ("name and age", "for Ines", ["age 7", "aged 7", "7 years old", "age: 7", "who is 7"]),
    ("name and price", "for the Lumo lamp", ["price 12.5", "priced at 12.5", "costs 12.5"]),
    ("name and city", "for Omar", ["city Madrid", "from Madrid", "who lives in Madrid"]),
    ("name and email", "for Omar", ["email o@corp.example", "with the email o@corp.example"]),
    ("name and year", "for Alien", ["year 1979", "released in 1979"]),
]
_OWNER_PHRASES = ["for the horse", "for a neighbour's kid", "for her cousin", "for our office",
                  "for the sequel", "for spare parts", "of the boat", "to the club",
                  ", for the tower", "for the trailer"]
OWNERS = [
    f"Return a JSON object with keys {keys} {subject}, {value}"
    f"{phrase if phrase.startswith(',') else ' ' + phrase}."
    for keys, subject, values in _SUBJECTS for value in values for phrase in _OWNER_PHRASES
] + [
    f"Return a JSON object with keys {keys} {subject}; {phrase.strip(', ')}, {value}."
    for keys, subject, values in _SUBJECTS for value in values[:1] for phrase in _OWNER_PHRASES
]


@pytest.mark.parametrize("prompt", OWNERS)
def test_a_value_with_another_owner_is_not_stated(prompt: str) -> None:
    """`age 7 for the horse`, `; for the horse, age 7`: the value is the horse's, so only the
    subject's name may be stated (when the prompt states it alone, not here: the owner's
    words are left over and decline every value)."""
    spec = read_spec(prompt)
    assert spec is not None and spec.entities == {}, (prompt, spec)


_KEYED = [
    ("name and age", "for Ines", "age", "7"),
    ("name and price", "for the Lumo lamp", "price", "12.5"),
    ("name and city", "for Omar", "city", "Madrid"),
    ("name and email", "for Omar", "email", "o@corp.example"),
    ("title and year", "for Alien", "year", "1979"), ("name and weight", "for Rex", "weight", "31"),
    ("name and tags", "for Ines", "tags", "chess and tennis"),
    ("name and is_member", "for Omar", "is_member", "yes"),
]
_BRACKETS = ["()", "[]", "{}", "（）", "【】", "〔〕", "［］", "｛｝", "〈〉", "《》",
             "「」", "『』", "⟨⟩", "«»", "‹›"]
_BETWEEN_WORDS = ["of the pony", "for her sister", "their son's", "the landlord", "not hers",
                  "previous", "in 2019", "approx.", "see below", "his cousin's", "the club",
                  "spare"]
_SET_OFF = ["—{w}—", " — {w} — ", " – {w} – ", " - {w} - ", ", {w},", " '{w}' ", ' "{w}" ',
            " “{w}” ", " / {w} / ", " … {w} … "]
_LINKS = ["", ":", " is", " =", " ->"]
_ALL_BETWEEN = [
    f"Return a JSON object with keys {keys} {subject}, {key} {b[0]}{w}{b[1]}{link} {value}."
    for keys, subject, key, value in _KEYED for b in _BRACKETS for w in _BETWEEN_WORDS
    for link in _LINKS
] + [
    f"Return a JSON object with keys {keys} {subject}, {key}{around.format(w=w)} {value}."
    .replace("  ", " ")
    for keys, subject, key, value in _KEYED for around in _SET_OFF for w in _BETWEEN_WORDS
]
BETWEEN = random.Random(72).sample(_ALL_BETWEEN, 600)
"""600 of the 8160: the reader before this rule stated a value in 385 of the 8160 (every
one with the words in ASCII parentheses)."""


@pytest.mark.parametrize("prompt", BETWEEN)
def test_words_between_a_key_and_its_value_state_nothing(prompt: str) -> None:
    """`age (of the pony) 7`, `city 【the landlord】 Madrid`, `email — not hers — e`: words
    the reader does not read between a key and its value are not passed over; they are
    left over and decline every value."""
    spec = read_spec(prompt)
    assert spec is not None and spec.entities == {}, (prompt, spec)


TYPED = [
    ("Return a JSON object with keys name and age for Ines, age (integer): 7.", "age", 7),
    ("Return a JSON object with keys name and age for Ines, age (an integer) 7.", "age", 7),
    ("Return a JSON object with keys name and age for Ines, age (of type integer) = 7.",
     "age", 7),
    ("Return a JSON object with keys title and year for Alien, year (as an integer) 1979.",
     "year", 1979),
    ("Return a JSON object with keys name and price for Lumo, price (a number): 12.5.",
     "price", 12.5),
    ("Return a JSON object with keys name and city for Omar, city (string) Madrid.",
     "city", "Madrid"),
    ("Return a JSON object with keys name and is_member for Omar, is_member (boolean): yes.",
     "is_member", True),
    ("Return a JSON object with keys name and tags for Ines, tags (list of strings): chess and "
     "tennis.", "tags", ["chess", "tennis"]),
    ("Return a JSON object with keys name and tags for Ines, tags (an array of words) chess and "
     "tennis.", "tags", ["chess", "tennis"]),
]


@pytest.mark.parametrize(("prompt", "key", "value"), TYPED)
def test_a_type_in_parentheses_between_a_key_and_its_value_is_read(
        prompt: str, key: str, value: Any) -> None:
    spec = read_spec(prompt)
    assert spec is not None and spec.entities.get(key) == value, (prompt, spec)
