"""The accounting behind a stated JSON value: whole tokens, number formats, key lists, and
what a leftover word declines."""

from __future__ import annotations

import json

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.json_account import NAME, NUM, WORD, tokens
from stepchat.core.tasks.json_request import read_keys
from stepchat.core.tasks.json_spec import read_spec
from stepchat.core.tasks.json_words import number_at, scalar_at
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore


def stated(prompt: str) -> dict[str, object]:
    spec = read_spec(prompt)
    assert spec is not None, prompt
    return spec.entities


@pytest.mark.parametrize("raw", ["1.000", "2.500", "1,000", "1,000.50", "1.000,50", "12.345,67"])
def test_numbers_written_differently_across_countries_are_not_guessed(raw: str) -> None:
    assert number_at(raw, 0) is None
    assert "price" not in stated(f"Return JSON with keys item and price: item lamp, price {raw}.")


@pytest.mark.parametrize(("raw", "value"), [("19.99", 19.99), ("2,700,000", 2700000),
                                             ("0.125", 0.125), ("-3", -3), ("1460000", 1460000)])
def test_numbers_written_one_way_are_read(raw: str, value: float) -> None:
    found = number_at(raw, 0)
    assert found is not None and found.value == value


@pytest.mark.parametrize("value", ["C++", "C#", "F#", ".NET", "Next.js", "Node.js"])
def test_names_written_with_symbols_are_read_whole(value: str) -> None:
    found = scalar_at(f"{value}, then", 0)
    assert found is not None and found.value == value
    assert stated(f"Return JSON with keys name and language. name: Ana, language: {value}") \
        == {"name": "Ana", "language": value}


@pytest.mark.parametrize("name", ["Zoë", "Søren", "Łukasz", "李雷", "Ærø", "Ирина"])
def test_names_in_any_script_are_read_whole(name: str) -> None:
    assert stated(f"Return a JSON object with keys name and age for {name}, 31.") \
        == {"name": name, "age": 31}


def test_tokens_are_read_whole_and_kinded() -> None:
    got = [(t.text, t.kind) for t in tokens("Ana's 40-year-old C++ 1.000,50 daughter Lina")]
    assert got == [("Ana's", NAME), ("40-year-old", NUM), ("C++", NAME), ("1.000,50", NUM),
                   ("daughter", WORD), ("Lina", NAME)]


def test_a_value_read_in_part_is_never_stated() -> None:
    """`C` out of `C++` would leave `++` unread: the token is not accounted for."""
    for prompt in ("Return JSON with keys name and language for Ana who loves C++ a lot.",
                   "Return JSON with keys name and age for Ana, 31%."):
        for key, value in stated(prompt).items():
            assert value not in ("C", 31), (key, value)


def test_a_list_of_keys_is_the_keys_named() -> None:
    assert read_keys("Return JSON with keys name, age, city and a short bio for Bo.").keys == [
        "name", "age", "city", "bio"]
    assert read_keys("JSON using the keys flight, from, to and seats.").keys == [
        "flight", "from", "to", "seats"]
    assert read_keys("Return JSON with keys first name, last name and age for Ana.").keys == [
        "first_name", "last_name", "age"]
    assert read_keys("Return JSON with keys name, age, city, for Bruno").keys == [
        "name", "age", "city"]


def test_a_key_list_read_two_ways_states_nothing() -> None:
    prompt = "Return JSON with keys name, date of birth and city for Ana from Porto."
    assert read_keys(prompt).sure is False
    spec = read_spec(prompt)
    assert spec is not None and spec.entities == {}


def test_a_key_list_read_two_ways_is_answered_by_the_model_unverified() -> None:
    """Not from stated values alone: the model writes it under the schema, nothing cached."""
    backend = ScriptedBackend(['{"name": "Ana", "date": "1990", "city": "Porto"}'] * 2)
    cache = StepCache(backend, HashedEmbedder(), MemoryStore())
    answer = cache.answer("Return JSON with keys name, date of birth and city for Ana from "
                          "Porto.")
    assert backend.calls, "the model was asked"
    assert answer.verified is False and answer.stored_entry is None
    assert {s.check for s in answer.steps} == {"unchecked"}
    assert json.loads(answer.text)["name"] == "Ana"


@pytest.mark.parametrize(("prompt", "kept"), [
    # any leftover declines every value, wherever it stands and whatever it is
    ("Return JSON with keys name and age for Ana, 31, whose daughter is 12.", set()),
    ("Return JSON with keys name and age for Ana, 31. Lina turned sixty.", set()),
    ("Return JSON with keys name and age for Ana, 31. The budget is 1.000,50.", set()),
    ("Return JSON with keys name and age for Ana, 31. She likes C++.", set()),
    ("Return JSON with keys name and age for Ana, 31. Not anymore.", set()),
    ("Return JSON with keys name and age for Ana, 31. That was last year.", set()),
    ("Return JSON with keys name and age for Ana, 31. Ignore that.", set()),
    ("Return JSON with keys name and age for Ana, 31. The age looks off.", set()),
    ("Return JSON with keys name and age for Ana, 31. She moved away.", set()),
    ("Return JSON with keys name and age for Ana, 31. It is.", set()),
    # a sentence about a relative is read as such
    ("Return JSON with keys name and age for Ana, 31. Her daughter is 12.", {"name", "age"}),
    # output instructions and thanks are accounted for
    ("Return JSON with keys name and age for Ana, 31. Reply in under 50 words, JSON only.",
     {"name", "age"}),
    ("Return JSON with keys name and age for Ana, 31. Thank you.", {"name", "age"}),
])
def test_what_a_leftover_declines(prompt: str, kept: set[str]) -> None:
    assert set(stated(prompt)) == kept


def test_tested_readings_of_change_and_denial() -> None:
    assert stated("Return JSON with keys name and city for Tom, who moved from Leeds to "
                  "York.") == {"name": "Tom", "city": "York"}
    assert stated("Return JSON with keys name and hometown for Tom, who moved from Leeds to "
                  "York.") == {"name": "Tom"}
    assert stated("Return JSON with keys name and city for Maya, originally from Goa, now in "
                  "Pune.") == {"name": "Maya", "city": "Pune"}
    assert stated("Return JSON with keys name and age for Bruno, not Ana, aged 40.") == {
        "name": "Bruno", "age": 40}
    assert stated("Return JSON with keys name and age for Ali, age unknown.") == {"name": "Ali"}


def test_an_instruction_for_a_key_leaves_it_open() -> None:
    for prompt in ("Return JSON with keys name and bio for Bo; the bio is a short sentence.",
                   "Return JSON with keys name and bio for Bo. bio: one sentence about him.",
                   "Return JSON with keys name and role for Bo; role should be a short phrase."):
        spec = read_spec(prompt)
        assert spec is not None and spec.entities == {"name": "Bo"}, prompt
        assert set(spec.open) | set(spec.pending) == set(spec.keys) - {"name"}, prompt


def test_the_answer_says_why_a_value_was_not_read_as_stated() -> None:
    backend = ScriptedBackend(['{"name": "Bruno", "age": 12}'])
    cache = StepCache(backend, HashedEmbedder(), MemoryStore())
    answer = cache.answer("Return JSON with keys name and age for Bruno, 40, whose daughter "
                          "is 12.")
    assert ("'name' not read as stated: the prompt's `whose` is a word this reader cannot "
            "place, so the value is the model's") in answer.notes
    assert answer.verified is False


def test_a_key_added_after_the_list_only_in_its_closed_form() -> None:
    """`Add the field email too.` adds a key; any other `Add/Include X.` is an instruction:
    no key, and nothing stated."""
    spec = read_spec("Return JSON with keys name and age for Ana, 31. Add the field email too.")
    assert spec is not None and spec.keys == ("name", "age", "email")
    assert spec.entities == {"name": "Ana", "age": 31}
    for prompt in ("Return JSON with keys name and age for Ana, 31. Also include city.",
                   "Return JSON with keys name and age for Ana, 31. Include tax.",
                   "Return JSON with keys name and age for Ana, 31. Add comments."):
        spec = read_spec(prompt)
        assert spec is not None and spec.keys == ("name", "age"), prompt
        assert spec.entities == {} and spec.open == (), prompt
    spec = read_spec("Return JSON with keys name and age for Ana, 31. Don't include city.")
    assert spec is not None and spec.keys == ("name", "age")


def test_a_place_fills_only_the_kind_of_key_it_is() -> None:
    """`from Lisbon` is no country, `from Portugal` and `from Texas` no city."""
    ask = "Return a JSON object with keys name and {} for Bruno from {}."
    assert stated(ask.format("country", "Lisbon")) == {"name": "Bruno"}
    assert stated(ask.format("city", "Portugal")) == {"name": "Bruno"}
    assert stated(ask.format("city", "Texas")) == {"name": "Bruno"}
    assert stated(ask.format("country", "Portugal")) == {"name": "Bruno", "country": "Portugal"}
    assert stated(ask.format("city", "Lisbon")) == {"name": "Bruno", "city": "Lisbon"}
    assert stated(ask.format("city", "Paris, Texas")) == {"name": "Bruno", "city": "Paris"}
    assert stated("Return a JSON object with keys name, city and country for Bruno from "
                  "Lisbon, Portugal.") == {"name": "Bruno", "city": "Lisbon", "country": "Portugal"}
