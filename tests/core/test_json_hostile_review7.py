"""A hostile review of the JSON reader's lists, qualified keys and second things.

tests/core/json_hostile_review7.jsonl holds its 50 findings, each with the earlier request
whose answer was cached: L1 a list taking words that are no item (`English and French,
among others`, `, alphabetically`, `Python, SQL and stuff`, `Ana, Ben and others`); L2 a
key-named list taking a word that states no value (`Hobbies: nothing.`); S1 a qualified key
filling the bare one (`My middle name is Eva`, `The retirement age is 65.`, `The nearest
city is Lisbon.`); S3 `My <noun> is N` read as the speaker's age (`My weight is 60`); S4
`My <owner> name is X` filling the speaker's name (`My dog name is Rex`); S5 a sentence about
a second thing after a subject named by a label (`Name: Bo. The bulb costs 5.`); K1 a key
list with an adverb or a condition in it called sure (`name, age, and optionally city`,
`name, if possible age and city`). Each finding is read again, asked twice, and asked after
its cached request, with the earlier reviews' (tests/core/test_json_cue_reviews.py).

`LOOKALIKES` are written from the classes' rules with other words, nouns, owners,
qualifiers and adverbs than the findings': none may be stated (for K1: the key list may
not be called sure).
"""

from __future__ import annotations

import pytest

from stepchat.core.tasks.json_request import read_keys
from stepchat.core.tasks.json_spec import read_spec

_ASK = "Return a JSON object with keys {}"
_TAILS = ["and so on", "and more", "and the like", "and similar", "et cetera", "and whatnot",
          "among other things", "plus others", "as well", "mostly", "fluently", "respectively",
          "at least", "to name a few", "and many more", "and such", "primarily", "and co",
          "roughly", "and all that", "and the rest", "amongst others", "inter alia", "chiefly",
          "and much more", "and beyond", "generally", "if needed", "or similar", "largely"]
_LISTS = [f"{_ASK.format('name and languages')} for Omar, who speaks Spanish and Italian, {t}."
          for t in _TAILS] + [
    f"{_ASK.format('name and tags')} for the post, tagged travel and food {t}." for t in _TAILS
] + [f"{_ASK.format('name and members')} for the band Zed. Members: Kim, Lou, {t}."
     for t in _TAILS] + [f"{_ASK.format('name and tags')}. Tags: jazz, blues, {t}." for t in _TAILS]
_NO_VALUE = [f"{_ASK.format(f'name and {key}')}{who}. {key.capitalize()}: {w}{more}."
             for w in ("none", "n/a", "tbd", "unknown", "blank", "null", "various", "misc",
                       "anything", "dunno", "something", "optional", "same", "whichever")
             for key, who, more in (("hobbies", " for Omar", ""), ("tags", "", ", food"))]
_QUALIFIED = [
    text.format(q=q, Q=q.capitalize(), k=key, v=value, ask=_ASK.format(f"name and {other}"))
    for q, key, value, other in (
        ("legal", "name", "Lina", "age"), ("maiden", "name", "Lina", "age"),
        ("user", "name", "Lina", "age"), ("family", "name", "Lina", "age"),
        ("cat", "name", "Lina", "age"), ("school", "name", "Lina", "age"),
        ("mental", "age", "14", "age"), ("minimum", "age", "14", "age"),
        ("average", "age", "14", "age"), ("home", "city", "Porto", "city"),
        ("birth", "city", "Porto", "city"), ("capital", "city", "Porto", "city"),
        ("work", "email", "l@y.org", "email"), ("backup", "email", "l@y.org", "email"),
        ("old", "price", "5", "price"), ("target", "age", "50", "age"))
    for text in ("{ask}. My {q} {k} is {v}.", "The {q} {k} is {v}. {ask}.", "{ask}. {Q} {k}: {v}.",
                 "{ask}. Her {q} {k} is {v}.", "My {q} {k} is {v} and I am 9. {ask}.")
]
_THINGS = [
    f"My name is Lina. My {noun} is 9. {_ASK.format('name and age')}."
    for noun in ("height", "score", "lucky number", "room", "rank", "cat", "bus", "grade level",
                 "level", "house number", "team", "car")
] + [f"{_ASK.format('name and age')} for Lina. The {noun} turned 9." for noun in ("van", "shop")]
_SECOND = [
    f"{ask} {intro} {second}" if first else f"{intro} {second} {ask}"
    for intro in ("Name: Lina.", "The name is Lina.", "name = Lina.", "Hi, my name is Lina.",
                  "Name - Lina.")
    for second, keys in (("The van is 9.", "age"), ("The shop is in Porto.", "city"),
                         ("The vase costs 9.", "price"), ("The parrot is 9 years old.", "age"),
                         ("The office is based in Porto.", "city"),
                         ("The bot is an admin.", "is_admin"),
                         ("The ticket is priced at 9.", "price"),
                         ("A friend lives in Porto.", "city"), ("The firm moved to Porto.", "city"))
    for first in (True, False)
    for ask in (_ASK.format(f"name and {keys}") + ".",)
]
LOOKALIKES = [(p, "LIST") for p in _LISTS + _NO_VALUE] + [(p, "NONE") for p in _QUALIFIED] + [
    (p, "NAME") for p in _THINGS + _SECOND]
KEY_LISTS = [
    _ASK.format(keys) + tail
    for adverb in ("possibly", "perhaps", "ideally", "preferably", "probably", "maybe", "also",
                   "even", "if known", "if available", "where possible", "optionally",
                   "hopefully", "definitely", "certainly", "only if known", "if relevant",
                   "usually", "sometimes", "at best", "typically", "naturally")
    for keys, tail in ((f"name, age, and {adverb} city", " for Lina, 9."),
                       (f"name, {adverb} age and email", " for Lina."))
]


@pytest.mark.parametrize(("prompt", "what"), LOOKALIKES)
def test_no_lookalike_is_stated(prompt: str, what: str) -> None:
    """A list with a word that is no item states no list; a qualified key states nothing;
    after a number of a thing or a second thing, only the subject's name may be stated."""
    spec = read_spec(prompt)
    assert spec is not None
    if what == "LIST":
        assert not any(isinstance(v, list) for v in spec.entities.values()), spec.entities
    else:
        kept = {"name"} if what == "NAME" else set()
        assert set(spec.entities) <= kept, spec.entities


@pytest.mark.parametrize("prompt", KEY_LISTS)
def test_a_key_list_with_an_adverb_is_not_sure(prompt: str) -> None:
    assert not read_keys(prompt).sure, read_keys(prompt)
