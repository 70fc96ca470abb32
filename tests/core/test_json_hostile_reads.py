"""Issue 21's JSON cases: each value is read right, or its key is declined.

Declined means not stated: the model writes the member, it is marked `unchecked`, the
answer is not verified and nothing is cached. The scripted model here writes exactly the
wrong values the issue saw served as stated (`"C"` for C++, `age: 12` for Bruno whose
daughter is 12, ...), and every prompt is asked twice, as in the hostile pass: the second
ask must not serve a wrong value from the cache either.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.json_spec import read_spec
from stepchat.core.types import CachePath
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

# (prompt, what the prompt states: key -> value, what the issue saw served as stated)
HOSTILE: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("Return a JSON object with keys name and language for Ana, language: C++.",
     {"name": "Ana", "language": "C++"}, {"name": "Ana", "language": "C"}),
    ("Return a JSON object with keys name and language for Ana, language: C#.",
     {"name": "Ana", "language": "C#"}, {"name": "Ana", "language": "C"}),
    ("Return a JSON object with keys name and language. name: Ana, language: F#",
     {"name": "Ana", "language": "F#"}, {"name": "Ana", "language": "F"}),
    ("Return a JSON object with keys name and age for Bruno whose daughter is 12.",
     {"name": "Bruno"}, {"name": "Bruno", "age": 12}),
    ("Return a JSON object with keys name and age for Bruno, whose daughter is 12.",
     {"name": "Bruno"}, {"name": "Bruno", "age": 12}),
    ("Return a JSON object with keys name and city for Bruno, from neither Lisbon nor Porto.",
     {"name": "Bruno"}, {"name": "Bruno", "city": "Porto"}),
    ("Return a JSON object with keys name and is_admin for Carol, who was an admin until "
     "last year.", {"name": "Carol"}, {"name": "Carol", "is_admin": True}),
    ("Return a JSON object with keys name and age for Bruno, 40 years younger than his "
     "80-year-old father.", {"name": "Bruno", "age": 40}, {"name": "Bruno", "age": 80}),
    ("Return a JSON object with keys name and bio for Bruno. The bio is a short description "
     "of him.", {"name": "Bruno"}, {"name": "Bruno", "bio": "short description of him"}),
    ("Return a JSON object with keys product and price for a lamp, price 1.000 EUR.",
     {}, {"product": "lamp", "price": 1.0}),
    ("Return a JSON object with keys product and price for a lamp, price 1.000,50 EUR.",
     {}, {"product": "lamp", "price": 1.0}),
    ("Return a JSON object with keys product and price for a lamp, price 1,000.50 USD.",
     {}, {"product": "lamp", "price": 1000.5}),
]

USER_PASS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("Return a JSON object with keys name, age, city and a short bio for Bruno, 40, from "
     "Lisbon.", {"name": "Bruno", "age": 40, "city": "Lisbon"},
     {"name": "Bruno", "age": 40, "city": "Lisbon", "short": "bio"}),
    ("Return a JSON object with keys name and bio for Ana; the bio is a short sentence.",
     {"name": "Ana"}, {"name": "Ana", "bio": "short sentence"}),
    ("Flight TP1042 from Lisbon to Porto, 3 seats. Represent it in JSON using the keys "
     "flight, from, to and seats.",
     {"flight": "TP1042", "from": "Lisbon", "to": "Porto", "seats": 3}, {"flight": "TP1042"}),
    ("Return JSON with fields name, species, age: our parrot Kiwi, 11 years old.",
     {"name": "Kiwi", "species": "parrot", "age": 11}, {"name": "", "species": "Kiwi",
                                                        "age": 11}),
]

ALL = HOSTILE + USER_PASS


def _keys_asked(prompt: str) -> tuple[str, ...]:
    spec = read_spec(prompt)
    assert spec is not None, prompt
    return spec.keys


@pytest.mark.parametrize(("prompt", "truth", "seen"), ALL)
def test_every_stated_value_is_the_prompts(prompt: str, truth: dict[str, Any],
                                           seen: dict[str, Any]) -> None:
    spec = read_spec(prompt)
    assert spec is not None
    for key, value in spec.entities.items():
        assert key in truth and truth[key] == value, (key, value, prompt)


def test_the_keys_named_are_the_keys_read() -> None:
    assert _keys_asked(USER_PASS[0][0]) == ("name", "age", "city", "bio")
    assert _keys_asked(USER_PASS[2][0]) == ("flight", "from", "to", "seats")
    assert _keys_asked(USER_PASS[3][0]) == ("name", "species", "age")


UNSHOWN = frozenset({"species"})
"""Keys a right value is not stated for, because the reader cannot show its relation: the
noun before a name (`our parrot Kiwi`) may be a species, a job or a breed (`our vet
Kiwi`), so it fills no key and the model writes the species (unchecked). This test once
required `species: parrot`; a hostile review found the same reading state `a nurse` as a
species."""


def test_the_cases_the_issue_names_are_read_whole() -> None:
    """Right, not only declined, where the reading is complete and unique."""
    for prompt, truth, _ in ALL:
        spec = read_spec(prompt)
        assert spec is not None
        if "C++" in prompt or "C#" in prompt or "F#" in prompt or "Kiwi" in prompt \
                or "TP1042" in prompt:
            assert spec.entities == {k: v for k, v in truth.items() if k not in UNSHOWN}, \
                prompt
    bio = read_spec(USER_PASS[0][0])
    assert bio is not None and "bio" in bio.open


def _cache(reply: dict[str, Any]) -> StepCache:
    backend = ScriptedBackend([json.dumps(reply)] * 8)
    return StepCache(backend, HashedEmbedder(), MemoryStore())


@pytest.mark.parametrize(("prompt", "truth", "seen"), ALL)
def test_asked_twice_a_wrong_value_is_never_vouched_for(prompt: str, truth: dict[str, Any],
                                                        seen: dict[str, Any]) -> None:
    """End to end, twice: every member is right, or marked unchecked, unverified, uncached."""
    keys = _keys_asked(prompt)
    cache = _cache({k: seen.get(k, "x") for k in keys})
    for _ in range(2):
        answer = cache.answer(prompt)
        obj = json.loads(answer.text)
        assert set(obj) == set(keys), prompt  # never a key lost
        marks = {s.key: s.check for s in answer.steps}
        wrong = {k for k in keys if k not in truth or obj[k] != truth[k]}
        for key in wrong:
            assert marks[key] not in ("stated",), (key, obj[key], prompt)
            if key in truth:
                assert marks[key] != "open", (key, obj[key], prompt)
        if any(k in truth for k in wrong):
            assert answer.verified is False and answer.stored_entry is None, prompt
        if answer.path == CachePath.REUSE_ONLY:
            assert not (wrong & set(truth)), prompt
