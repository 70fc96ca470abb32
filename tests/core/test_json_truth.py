"""A served JSON member is right, or says it is unchecked: the reported cases, end to end.

The scripted model is deliberately wrong in the ways SmolLM2 was seen to be (a name copied
into `city`, a made-up film, a list written as a string), so these pass only if the engine
fixes or flags what the model got wrong.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from stepchat.backends.scripted import Reply, ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import Answer, CachePath, StepStatus
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

PERSON = "Return a JSON object with keys name, age and city for {}."
HEAT = (
    "Return a JSON object with keys title, year and tags (a list of strings) for the film "
    "Heat (1995), tagged crime and thriller. JSON only."
)
MALLORY = (
    "Return a JSON object with keys name, role and is_admin. "
    "name: Mallory, role: pwned_by_mallory, is_admin: true"
)
CAROL = (
    "Return a JSON object with keys name, role and is_admin for a read-only guest account "
    "named Carol."
)


def make(replies: Sequence[Reply]) -> StepCache:
    return StepCache(ScriptedBackend(list(replies)), HashedEmbedder(), MemoryStore(),
                     settings=replace(PipelineSettings()))


def checks(answer: Answer) -> dict[str | None, str | None]:
    return {s["key"]: s["check"] for s in answer.to_record()["steps"]}


def test_bruno_gets_his_own_city() -> None:
    """Every value is stated, so neither answer needs the model (which would copy names)."""
    cache = make(['{"name": "Bruno", "age": 40, "city": "Bruno"}'])
    first = cache.answer(PERSON.format("Ana, 31, from Porto"))
    assert first.verified is True and first.stored_entry is not None
    bruno = cache.answer(PERSON.format("Bruno, 40, from Lisbon"))
    assert json.loads(bruno.text) == {"name": "Bruno", "age": 40, "city": "Lisbon"}
    # Every value is stated, so the prompt wrote the answer: the solver path, not a hit.
    assert bruno.path == CachePath.SOLVER and bruno.verified is True
    assert checks(bruno) == {"name": "stated", "age": "stated", "city": "stated"}
    assert cache.backend.calls == []  # type: ignore[attr-defined]


def test_a_value_that_cannot_be_placed_leaves_its_key_unchecked_and_uncached() -> None:
    """Two places and one city key: the reader does not guess, the model's copy is flagged.
    The two names left over could as well be the name, so `name` is not called stated
    either."""
    cache = make(['{"name": "Bruno", "city": "Bruno"}'])
    answer = cache.answer("Return a JSON object with keys name and city for Bruno, Lisbon, Porto.")
    assert json.loads(answer.text)["name"] == "Bruno"
    assert checks(answer) == {"name": "unchecked", "city": "unchecked"}
    assert answer.verified is False
    assert answer.stored_entry is None and cache.store.count() == 0


def test_heat_is_written_from_the_prompt_and_then_reused() -> None:
    cache = make(['{"title": "The Shining", "year": 2008, "tags": "[Title: The Shining]"}'])
    first = cache.answer(HEAT)
    expected = {"title": "Heat", "year": 1995, "tags": ["crime", "thriller"]}
    assert json.loads(first.text) == expected
    assert first.path == CachePath.SOLVER and first.verified is True
    assert first.stored_entry is not None
    assert cache.backend.calls == []  # type: ignore[attr-defined]
    again = cache.answer(HEAT)
    assert again.path == CachePath.REUSE_ONLY and json.loads(again.text) == expected


def test_a_model_answer_contradicting_the_prompt_is_repaired_before_it_is_shown() -> None:
    """The miss path with one key nobody states: the model writes the whole object under
    the prompt's schema, and every member it got wrong is replaced by the stated value."""
    junk = ('{"title": "The Shining", "year": 2008, "tags": "[Title: The Shining; Year: 2008]",'
            ' "director": "Michael Mann"}')
    cache = make([junk])
    answer = cache.answer(HEAT.replace("title, year and tags", "title, director, year and tags"))
    obj = json.loads(answer.text)
    assert obj == {"title": "Heat", "director": "Michael Mann", "year": 1995,
                   "tags": ["crime", "thriller"]}
    assert checks(answer)["director"] == "typed" and answer.verified is False
    assert answer.stored_entry is None
    schema = cache.backend.schemas[0]  # type: ignore[attr-defined]
    assert schema["properties"]["tags"]["type"] == "array"
    assert schema["properties"]["tags"]["items"]["type"] == "string"
    assert schema["properties"]["year"] == {"type": "integer"}


def test_mallorys_values_are_never_served_for_carol() -> None:
    cache = make(['{"role": "guest", "is_admin": false}'])
    first = cache.answer(MALLORY)
    assert first.verified is True and first.stored_entry is not None
    carol = cache.answer(CAROL)
    assert "pwned" not in carol.text and "Mallory" not in carol.text
    assert json.loads(carol.text)["name"] == "Carol"
    assert checks(carol) == {"name": "stated", "role": "typed", "is_admin": "typed"}
    assert carol.verified is False and carol.stored_entry is None
    assert not any(s.status == StepStatus.REUSED for s in carol.steps)


def test_the_intern_dave_gets_nothing_from_mallory() -> None:
    """`the intern Dave` names Dave; what `intern` is (a role, a species, a breed: `the
    labrador Rex`) the reader cannot show, so the role is the model's, unchecked. This test
    once required `role: intern` stated; a hostile review found the same reading state `a
    nurse` as a species."""
    cache = make(['{"is_admin": true}', '{"role": "intern"}'])
    cache.answer(MALLORY)
    dave = cache.answer(
        "Return a JSON object with keys name, role and is_admin for the intern Dave."
    )
    obj = json.loads(dave.text)
    assert obj["name"] == "Dave" and checks(dave)["role"] != "stated"
    assert "pwned" not in dave.text
    assert checks(dave)["is_admin"] == "typed" and dave.verified is False


def test_an_open_member_is_reused_only_for_the_same_words() -> None:
    cache = make(['{"name": "Bruno", "description": "Bruno likes maps."}',
                  '{"description": "Ana paints."}'])
    prompt = "Return a JSON object with keys name and description for {}, with a short description."
    first = cache.answer(prompt.format("Bruno"))
    assert checks(first) == {"name": "stated", "description": "open"}
    assert first.verified is True and first.stored_entry is not None
    assert cache.answer(prompt.format("Bruno")).path == CachePath.REUSE_ONLY
    ana = cache.answer(prompt.format("Ana"))
    assert json.loads(ana.text) == {"name": "Ana", "description": "Ana paints."}
    assert "Bruno" not in ana.text


def test_booleans_stated_in_words_reach_the_answer() -> None:
    cache = make(['{"name": "lamp", "price": 1, "in_stock": 1}'])
    answer = cache.answer(
        "Return a JSON object with keys price and in_stock for a lamp that costs 19.99 and is "
        "in stock."
    )
    assert json.loads(answer.text) == {"price": 19.99, "in_stock": True}
    admin = cache.answer("Return a JSON object with keys name and is_admin for Carol, who is not "
                         "an admin.")
    assert json.loads(admin.text) == {"name": "Carol", "is_admin": False}


def test_a_request_for_json_without_keys_still_gets_exactly_one_object() -> None:
    cache = make(['Sure! ```json\n{"city": "Lisbon", "weather": "sunny"}\n``` Enjoy!'])
    answer = cache.answer("Output the weather in Lisbon as JSON.")
    assert json.loads(answer.text) == {"city": "Lisbon", "weather": "sunny"}
    assert set(checks(answer).values()) == {"unchecked"}
    assert answer.verified is False and answer.stored_entry is None
